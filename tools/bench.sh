#!/bin/bash
# make bench: install what is missing, build, boot ONE stock-kernel guest with
# rxe on lo, run ibpost and perftest side by side (tools/tests/guest-bench.sh)
# and print the comparison (also left in build/bench/bench.txt; raw outputs
# in build/bench/bench-raw/).
# usage: tools/bench.sh [--timeout SEC (2400)]
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=2400
if [[ ${1:-} == --timeout && -n ${2:-} ]]; then
	timeout=$2
elif (($#)); then
	sed -n '2,6s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
tools/rig/deps.sh
make -s all
out=build/bench
mkdir -p "$out"
rm -rf "$out/bench.txt" "$out/bench-raw"
echo "Booting a stock Debian kernel guest under QEMU (TCG) for the benchmark;"
echo "this takes several minutes.  Console: $out/console.log"
set +e
tools/rig/boot.sh --kernel stock --script tools/tests/guest-bench.sh \
	--out "$out" --log "$out/console.log" --timeout "$timeout" 2>&1 |
	grep --line-buffered -E '^(bench|boot\.sh|rig):'
rc=${PIPESTATUS[0]}
set -e
echo
if [[ -s $out/bench.txt ]]; then
	cat "$out/bench.txt"
else
	echo "bench: no results (boot.sh exit $rc); see $out/console.log" >&2
	((rc)) || rc=1
fi
exit "$rc"
