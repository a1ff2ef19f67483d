# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The benchmarks' one median (guest-bench.sh, bench-blk-lib.sh).

# bench_median [-z] V...: the median of the numeric values (n/a and other
# words dropped; -z: zeros too), n/a when none; an even count averages the
# middle two.
bench_median() {
	local min=-1
	if [[ ${1:-} == -z ]]; then
		min=0
		shift
	fi
	printf '%s\n' "$@" | awk -v min="$min" '$1 ~ /^[0-9.]+$/ && $1 > min' | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) print "n/a"
			else if (NR % 2) print v[(NR + 1) / 2]
			else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
