# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The benchmarks' one CPU-cost measure (guest-bench.sh, bench-pair-client.sh),
# computed as ibpost's --cpu-util computes it (tools/ibpost/runcpu.c): the
# busy share of every CPU's ticks in the guest's /proc/stat "cpu" line
# (user, nice, system, irq, softirq, steal against idle and iowait) over a
# run, times its wall time and the CPUs (a TCG guest misses timer ticks:
# the share holds where a sum of busy ticks falls short), per GiB the run
# moved.  The same window for both tools, around the whole command:
# ibpost's job runs in the kernel (the posting thread, rxe's softirq and
# kernel threads), perftest's in user space (busy polling), so only a
# system-wide figure compares them.
#
#   t0=$(bench_cpu_ticks)
#   ... one run that moves BYTES ...
#   bench_cpu_per_gib "$t0" BYTES    CPU-seconds per GiB since t0 (n/a)

# bench_cpu_ticks: "BUSY TOTAL SECONDS" now.
bench_cpu_ticks() {
	awk -v t="$(date +%s.%N)" '$1 == "cpu" {
		b = $2 + $3 + $4 + $7 + $8 + $9
		print b, b + $5 + $6, t; exit }' /proc/stat
}

bench_cpu_per_gib() {
	local b0 t0 s0 b1 t1 s1
	read -r b0 t0 s0 <<<"$1"
	read -r b1 t1 s1 <<<"$(bench_cpu_ticks)"
	awk -v b0="$b0" -v t0="$t0" -v s0="$s0" -v b1="$b1" -v t1="$t1" -v s1="$s1" \
		-v n="$(nproc)" -v bytes="$2" \
		'BEGIN { if (bytes <= 0 || t0 == "" || t1 <= t0 || b1 < b0) print "n/a"
			 else printf "%.3f\n", (b1 - b0) / (t1 - t0) * (s1 - s0) * n / (bytes / 1073741824) }'
}
