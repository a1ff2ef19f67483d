#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl on every source file of the project.
# usage: tools/checkpatch.sh [CHECKPATCH]   (default: from the test kernel tree,
#        else /usr/src/linux-source-* extracted on demand into build/)
set -euo pipefail
cd "$(dirname "$0")/.."
cp=${1:-}
if [ -z "$cp" ]; then
	for c in "$(tools/rig/testkernel.sh --print-kdir 2>/dev/null)/scripts/checkpatch.pl" build/checkpatch/linux-source-6.1/scripts/checkpatch.pl; do
		[ -x "$c" ] && cp=$c && break
	done
fi
if [ -z "$cp" ]; then
	mkdir -p build/checkpatch
	tar -C build/checkpatch -xJf /usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	cp=build/checkpatch/linux-source-6.1/scripts/checkpatch.pl
fi
mapfile -t files < <(git ls-files '*.c' '*.h' 'Kbuild' '*/Kbuild')
rc=0
for f in "${files[@]}"; do
	out=$("$cp" --no-tree -q --show-types -f "$f" 2>&1) || rc=1
	[ -n "$out" ] && { echo "$out"; rc=1; }
done
if [ $rc = 0 ]; then
	echo "checkpatch: ${#files[@]} files clean"
fi
exit $rc
