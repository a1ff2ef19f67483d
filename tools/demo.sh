#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install what is missing, build, boot a stock-kernel guest with
# rxe on lo and ibpost loaded, and show what ibpost sees.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/rig/deps.sh
# The guest boots the stock kernel: build for it, not for this host's.
make -s KDIR="$(tools/rig/kver.sh --kdir)" IBPOST_TESTS=y all
mkdir -p build/demo
echo "Booting a stock Debian kernel guest under QEMU (TCG; about a minute)..."
tools/rig/boot.sh --kernel stock --script tools/tests/guest/guest-demo.sh \
	--out build/demo --log build/demo/console.log --timeout 600 |
	sed -n '/^rig: running/,/^IBPOST-RIG-EXIT/p' |
	grep -v -e '^\[ *[0-9.]*\]' -e '^IBPOST-RIG-EXIT' -e '^rig: running'
