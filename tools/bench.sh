#!/bin/bash
# make bench: install what is missing, build, boot ONE stock-kernel guest with
# rxe on lo, run ibpost and perftest side by side (tools/tests/guest-bench.sh)
# and print the comparison (also left in build/bench/bench.txt; raw outputs
# in build/bench/bench-raw/).  Every figure is the median of 5 runs; about
# 10-20 minutes in the guest.  Other QEMU guests on the host skew the
# figures: they are reported (console and bench.txt), not waited for.
# usage: tools/bench.sh [--timeout SEC (2400)]
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=2400
if [[ ${1:-} == --timeout && -n ${2:-} ]]; then
	timeout=$2
elif (($#)); then
	sed -n '2,9s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
tools/rig/deps.sh linux-perf
make -s all
out=build/bench
mkdir -p "$out"
rm -rf "$out/bench.txt" "$out/bench-raw"
echo "Booting a stock Debian kernel guest under QEMU (TCG) for the benchmark;"
echo "this takes several minutes.  Console: $out/console.log"
# CPU contention: count other QEMU processes (by process name, so not the
# 'timeout qemu-system...' wrapper) before and during the run.
busy=$out/.busy
rm -f "$busy"
n=$(pgrep -c '^qemu-system' || true)
if ((n > 0)); then
	echo "bench: warning: $n other QEMU process(es) running at boot; figures will be skewed"
	echo "$n at boot" >>"$busy"
fi
(
	while sleep 15; do
		n=$(pgrep -c '^qemu-system' || true)
		((n > 1)) && echo "$((n - 1)) during the run" >>"$busy"
	done
) &
watch=$!
set +e
# perftest times with rdtsc; the guest kernel's clock would be HPET under
# TCG (a slow emulated MMIO read per ktime_get_ns()).  Both tools get the
# TSC: the guest kernel is told to use it as its clocksource.
tools/rig/boot.sh --kernel stock --script tools/tests/guest-bench.sh \
	--out "$out" --log "$out/console.log" --timeout "$timeout" \
	--append "${BENCH_APPEND-clocksource=tsc tsc=reliable}" 2>&1 |
	grep --line-buffered -E '^(bench|boot\.sh|rig):'
rc=${PIPESTATUS[0]}
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
set -e
echo
if [[ -s $out/bench.txt ]]; then
	if [[ -s $busy ]]; then
		echo "# WARNING: other QEMU guests ran on the host ($(sort -u "$busy" | paste -sd, -)); CPU contention skews these figures" >>"$out/bench.txt"
	fi
	cat "$out/bench.txt"
else
	echo "bench: no results (boot.sh exit $rc); see $out/console.log" >&2
	((rc)) || rc=1
fi
exit "$rc"
