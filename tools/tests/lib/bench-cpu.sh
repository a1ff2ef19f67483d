# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The benchmarks' one CPU-cost measure (guest-bench.sh, bench-pair-client.sh),
# computed as ibpost's --cpu-util computes it (tools/ibpost/runcpu.c): the
# run's wall time times the CPUs, less the idle and iowait time the guest's
# /proc/stat "cpu" line counted in it (a tickless kernel counts idle time
# exactly, the busy fields only at ticks, which a TCG guest misses), per
# GiB the run moved.  The same window for both tools, around the whole
# command: ibpost's job runs in the kernel (the posting thread, rxe's
# softirq and kernel threads), perftest's in user space (busy polling), so
# only a system-wide figure compares them.
#
#   t0=$(bench_cpu_ticks)
#   ... one run that moves BYTES ...
#   bench_cpu_per_gib "$t0" BYTES    CPU-seconds per GiB since t0 (n/a)

# bench_cpu_ticks: "IDLE_TICKS SECONDS" now.
bench_cpu_ticks() {
	awk -v t="$(date +%s.%N)" '$1 == "cpu" { print $5 + $6, t; exit }' /proc/stat
}

bench_cpu_per_gib() {
	local i0 s0 i1 s1
	read -r i0 s0 <<<"$1"
	read -r i1 s1 <<<"$(bench_cpu_ticks)"
	awk -v i0="$i0" -v s0="$s0" -v i1="$i1" -v s1="$s1" -v n="$(nproc)" \
		-v hz="$(getconf CLK_TCK)" -v bytes="$2" \
		'BEGIN { if (bytes <= 0 || s0 == "" || s1 <= s0 || i1 < i0) { print "n/a"; exit }
			 busy = (s1 - s0) * n - (i1 - i0) / hz
			 printf "%.3f\n", (busy < 0 ? 0 : busy) / (bytes / 1073741824) }'
}
