#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: install what is missing, build, boot ONE stock-kernel guest with
# rxe on lo, run ibpost and perftest side by side (tools/tests/guest-bench.sh),
# then TWO guests on a QEMU socket wire for 64 KiB WRITE and SEND between
# them (tools/tests/bench-pair.sh), and print the comparison (also left in
# build/bench/bench.txt; raw outputs in build/bench/bench-raw/ and
# build/bench/pair/).  Every figure is the median of 5 runs; about 10-20
# minutes in the guest, then the two guests.  Other QEMU guests on the host
# skew the figures: they are reported (console and bench.txt), not waited for.
# usage: tools/bench.sh [--timeout SEC (2400)]
# BENCH_PAIR_ITERS / BENCH_PAIR_REPS: WRs a run (2000) and runs (5) of the
# two-guest rows.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=2400
if [[ ${1:-} == --timeout && -n ${2:-} ]]; then
	timeout=$2
elif (($#)); then
	sed -n '3,14s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
tools/rig/deps.sh linux-perf
# The guest boots the stock kernel: build for it, not for this host's.
make -s KDIR="$(tools/rig/kver.sh --kdir)" all
out=build/bench
mkdir -p "$out"
rm -rf "$out/bench.txt" "$out/bench-raw"
echo "Booting a stock Debian kernel guest under QEMU (TCG) for the benchmark;"
echo "this takes several minutes.  Console: $out/console.log"
# CPU contention: other QEMU processes before and during the run.
# shellcheck source=tools/rig/busy.sh
. tools/rig/busy.sh
busy=$out/.busy
busy_start "$busy" 1
set +e
# perftest times with rdtsc; the guest kernel's clock would be HPET under
# TCG (a slow emulated MMIO read per ktime_get_ns()).  Both tools get the
# TSC: the guest kernel is told to use it as its clocksource.
tools/rig/boot.sh --kernel stock --script tools/tests/guest-bench.sh \
	--out "$out" --log "$out/console.log" --timeout "$timeout" \
	--append "${BENCH_APPEND-clocksource=tsc tsc=reliable}" 2>&1 |
	grep --line-buffered -E '^(bench|boot\.sh|rig):'
rc=${PIPESTATUS[0]}
busy_stop
set -e
if [[ -s $out/bench.txt ]]; then
	busy_note "$busy" >>"$out/bench.txt"
else
	echo "bench: no results (boot.sh exit $rc); see $out/console.log" >&2
	echo "# one guest: no results (boot.sh exit $rc); see $out/console.log" >"$out/bench.txt"
	((rc)) || rc=1
fi

echo
echo "Booting two stock Debian kernel guests joined by a QEMU socket wire for the"
echo "two-guest rows; consoles: $out/pair/console-{server,client}.log"
prc=0
tools/tests/bench-pair.sh --out "$out/pair" --iters "${BENCH_PAIR_ITERS:-2000}" \
	--reps "${BENCH_PAIR_REPS:-5}" >"$out/pair.txt" || prc=$?
{
	echo
	cat "$out/pair.txt"
} >>"$out/bench.txt"
echo
cat "$out/bench.txt"
((rc)) || rc=$prc
exit "$rc"
