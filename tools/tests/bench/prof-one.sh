#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the CPU goes in make bench's one-guest bandwidth rows (boot it with
# tools/rig/boot.sh on the stock kernel, nothing else running; the figures
# to compare are guest-bench.sh's): 64 KiB RDMA WRITE and SEND on rxe_lo,
# perftest (server and client in this guest) and `ibpost run`.  Each
# command runs twice: alone, for its CPU-s/GiB (tools/tests/lib/bench-cpu.sh),
# then under `perf record -a` (cpu-clock: TCG has no PMU), whose report by
# command and DSO, and by command, DSO and symbol, goes to
# $IBPOST_OUT/prof-TOOL-OP.txt.  prof-summary.txt has the CPU-s/GiB of
# the plain runs and the busy share of each command in the profiled one.
# rig.prof_iters: WRs a run (10000).
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/bench-cpu.sh
. tools/tests/lib/bench-cpu.sh
rig_load_rxe || exit 1
rig_rxe_lo || exit 1
rig_ibpost_paths
insmod "$KO" || exit 1
out=$IBPOST_OUT
n=$(rig_arg prof_iters || echo 10000)
size=65536
port=18800
: >"$out/prof-summary.txt"

# run NAME CMD...: CMD alone (its CPU-s/GiB), then under perf record -a.
run() {
	local name=$1 t0 cpu
	shift
	t0=$(bench_cpu_ticks)
	"$@" >"$out/prof-$name.out" 2>&1
	cpu=$(bench_cpu_per_gib "$t0" $((size * n)))
	perf record -a -q -N -o "$out/prof-$name.data" -- "$@" >/dev/null 2>&1
	{
		perf report -i "$out/prof-$name.data" --stdio --sort comm,dso --percent-limit 1
		perf report -i "$out/prof-$name.data" --stdio --sort comm,dso,sym --percent-limit 0.5
	} >"$out/prof-$name.txt" 2>/dev/null
	echo "$name: $cpu CPU-s/GiB; profiled run by command: $(perf report -i "$out/prof-$name.data" \
		--stdio --sort comm --percent-limit 2 2>/dev/null | awk '/%/ { printf "%s %s, ", $2, $1 }')" \
		>>"$out/prof-summary.txt"
}

# perftest_srv OP PORT: its server, listening
perftest_srv() {
	timeout 600 "ib_$1_bw" -d rxe_lo -F -p "$2" -s "$size" -n "$n" >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		ss -ltn 2>/dev/null | grep -q ":$2 " && return 0
		sleep 0.1
	done
}

for op in write send; do
	for pass in plain perf; do
		port=$((port + 1))
		perftest_srv "$op" "$port"
		if [[ $pass == plain ]]; then
			t0=$(bench_cpu_ticks)
			timeout 600 "ib_${op}_bw" -d rxe_lo -F -p "$port" -s "$size" -n "$n" 127.0.0.1 \
				>"$out/prof-perftest-$op.out" 2>&1
			cpu=$(bench_cpu_per_gib "$t0" $((size * n)))
		else
			perf record -a -q -N -o "$out/prof-perftest-$op.data" -- \
				timeout 600 "ib_${op}_bw" -d rxe_lo -F -p "$port" -s "$size" -n "$n" 127.0.0.1 \
				>/dev/null 2>&1
		fi
		wait "$srv"
	done
	{
		perf report -i "$out/prof-perftest-$op.data" --stdio --sort comm,dso --percent-limit 1
		perf report -i "$out/prof-perftest-$op.data" --stdio --sort comm,dso,sym --percent-limit 0.5
	} >"$out/prof-perftest-$op.txt" 2>/dev/null
	echo "perftest-$op: $cpu CPU-s/GiB; profiled run by command: $(perf report -i "$out/prof-perftest-$op.data" \
		--stdio --sort comm --percent-limit 2 2>/dev/null | awk '/%/ { printf "%s %s, ", $2, $1 }')" \
		>>"$out/prof-summary.txt"
	run "ibpost-$op" "$IBPOST" run --dev rxe_lo --op "$op" --size "$size" --iters "$n" --depth 128
done
rmmod ibpost
cat "$out/prof-summary.txt"
