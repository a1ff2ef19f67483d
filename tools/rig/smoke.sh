#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage (host): tools/rig/boot.sh --kernel stock|test --script tools/rig/smoke.sh
#
# In-guest smoke test of the rig: loads rxe, brings up rxe_lo, shows it with rdma and
# ibv_devinfo, checks KUnit's debugfs on the test kernel, writes $IBPOST_OUT/smoke.txt.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$IBPOST_REPO/tools/rig/guest-lib.sh"

rig_load_rxe
rig_rxe_lo
rdma link
ibv_devinfo -v | head -n 12
if [[ $IBPOST_KERNEL == test ]]; then
	ls -d /sys/kernel/debug/kunit
fi
echo "smoke ok on $(uname -r) ($IBPOST_KERNEL)" >"$IBPOST_OUT/smoke.txt"
