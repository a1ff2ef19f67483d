# SPDX-License-Identifier: GPL-2.0
# Sourced by the block benchmark's guest scripts (tools/tests/bench/bench-blk.sh):
# the fio workloads of issue 14, run on a list of block devices, and the
# table with ratios and targets.  Nothing here sets devices up, so a
# two-guest script (nvme-rdma and ibpost_blk on a remote target) reuses it
# as is: fill BLK_COLS, call blk_measure, then blk_table.
#
#   BLK_COLS=(LABEL=/dev/X ...)  the devices, in table order; the ratios are
#                                BLK_NUM / BLK_DEN (labels), BLK_CEIL an
#                                extra column's label (its ratio to BLK_DEN
#                                is printed too; empty: none)
#   BLK_RUNTIME, BLK_RAMP        seconds of each fio run and of its ramp
#   BLK_REPS                     runs of each (workload, device); the
#                                table shows medians, the runs interleaved
#   BLK_RAW                      directory of fio's JSON outputs
#   blk_measure                  runs everything; fills BLK_V
#   blk_table TITLE              prints the table and the targets line
#   blk_targets                  the targets line alone
#   BLK_WORKS=(WORK ...)         set before sourcing: fewer workloads (the
#                                table leaves the others' rows out)
# The workloads (fio, libaio, direct=1): rr4k and rw4k, 4 KiB random read
# and write, depth 32, 2 jobs (IOPS); sr128k and sw128k, 128 KiB sequential
# read and write, depth 8 (MiB/s); lat4k, 4 KiB random read at depth 1
# (total latency, submission to completion, p50 and p99, us).
# shellcheck shell=bash disable=SC2153 # BLK_RAW, BLK_REPS...: set by the caller
# shellcheck source=tools/tests/lib/bench-stats.sh
. tools/tests/lib/bench-stats.sh

[[ -v BLK_WORKS ]] || BLK_WORKS=(rr4k rw4k sr128k sw128k lat4k)
declare -A BLK_V

# blk_fio_args WORK: fio's options for WORK.
blk_fio_args() {
	case $1 in
	rr4k) echo --rw=randread --bs=4k --iodepth=32 --numjobs=2 ;;
	rw4k) echo --rw=randwrite --bs=4k --iodepth=32 --numjobs=2 ;;
	sr128k) echo --rw=read --bs=128k --iodepth=8 --numjobs=1 ;;
	sw128k) echo --rw=write --bs=128k --iodepth=8 --numjobs=1 ;;
	lat4k) echo --rw=randread --bs=4k --iodepth=1 --numjobs=1 --lat_percentiles=1 ;;
	esac
}

# blk_parse WORK FILE [JOB]: the figures of job JOB (default: the first)
# of fio's JSON output FILE: IOPS, MiB/s, or "p50 p99" in us; n/a when it
# failed.
blk_parse() {
	python3 - "$1" "$2" "${3:-}" <<'EOF' 2>/dev/null || echo n/a
import json, sys
work, path, name = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path) as f:
    text = f.read()
# fio may print warnings before the JSON document.
jobs = json.loads(text[text.index("{"):])["jobs"]
j = [j for j in jobs if not name or j["jobname"] == name][0]
if j.get("error"):
    raise SystemExit(1)
d = j["write" if work in ("rw4k", "sw128k") else "read"]
if work in ("rr4k", "rw4k"):
    print("%.0f" % d["iops"])
elif work in ("sr128k", "sw128k"):
    print("%.1f" % (d["bw"] / 1024.0))
else:
    # Total latency (submission + completion): a device that completes
    # within io_submit() (brd) has it all in fio's slat, none in its clat.
    p = d["lat_ns"]["percentile"]
    print("%.1f %.1f" % (p["50.000000"] / 1000.0, p["99.000000"] / 1000.0))
EOF
}

# blk_run WORK REP: one fio process runs WORK on each device of BLK_COLS
# in turn (a job each, stonewalled: one fio start-up for them all, which
# takes seconds under TCG); its JSON in BLK_RAW/WORK.rREP.json.
blk_run() {
	local work=$1 rep=$2 col jobs=()
	for col in "${BLK_COLS[@]}"; do
		jobs+=(--name="${col%%=*}" --filename="${col#*=}" --stonewall)
	done
	# shellcheck disable=SC2046 # the options are words
	timeout $((${#BLK_COLS[@]} * (BLK_RUNTIME + BLK_RAMP + 60))) fio \
		--direct=1 --ioengine=libaio $(blk_fio_args "$work") \
		--time_based --runtime="$BLK_RUNTIME" --ramp_time="$BLK_RAMP" \
		--norandommap --randrepeat=0 --group_reporting \
		--output-format=json --output="$BLK_RAW/$work.r$rep.json" "${jobs[@]}" \
		>/dev/null 2>&1
}

blk_measure() {
	local rep work col label v
	declare -A runs
	mkdir -p "$BLK_RAW"
	for ((rep = 1; rep <= BLK_REPS; rep++)); do
		for work in "${BLK_WORKS[@]}"; do
			blk_run "$work" "$rep"
			for col in "${BLK_COLS[@]}"; do
				label=${col%%=*}
				v=$(blk_parse "$work" "$BLK_RAW/$work.r$rep.json" "$label")
				echo "bench: blk $work $label r$rep: $v" >&2
				if [[ $work == lat4k ]]; then
					runs[lat50,$label]+=" ${v% *}"
					runs[lat99,$label]+=" ${v#* }"
				else
					runs[$work,$label]+=" $v"
				fi
			done
		done
	done
	for v in "${!runs[@]}"; do
		# shellcheck disable=SC2086 # a list of values
		BLK_V[$v]=$(bench_median ${runs[$v]})
	done
}

# blk_ratio A B: A / B to two decimals, n/a when either is missing.
blk_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "n/a"
		else printf "%.2f\n", a / b }'
}

# The table's rows: key, test, unit.
BLK_ROWS=("rr4k 4k-randread-qd32x2 IOPS" "rw4k 4k-randwrite-qd32x2 IOPS"
	"sr128k 128k-read-qd8 MiB/s" "sw128k 128k-write-qd8 MiB/s"
	"lat50 4k-randread-qd1-p50 us" "lat99 4k-randread-qd1-p99 us")

blk_table() {
	local row key test unit col line
	echo "# $1"
	echo "# fio $(fio --version 2>/dev/null), libaio, direct=1, ${BLK_RUNTIME} s a run after ${BLK_RAMP} s of ramp;" \
		"every figure the median of $BLK_REPS runs (interleaved: the devices in turn, one fio process); JSON in $(basename "$BLK_RAW")/"
	echo "# ratio = $BLK_NUM / $BLK_DEN${BLK_CEIL:+; ceil = $BLK_CEIL / $BLK_DEN}; latency rows: lower is better"
	line=$(printf '%-22s %-5s' test unit)
	for col in "${BLK_COLS[@]}"; do
		line+=$(printf ' %11s' "${col%%=*}")
	done
	line+=$(printf ' %7s' ratio)
	[[ -n ${BLK_CEIL:-} ]] && line+=$(printf ' %7s' ceil)
	echo "$line"
	for row in "${BLK_ROWS[@]}"; do
		read -r key test unit <<<"$row"
		[[ " ${!BLK_V[*]} " == *" $key,"* ]] || continue
		line=$(printf '%-22s %-5s' "$test" "$unit")
		for col in "${BLK_COLS[@]}"; do
			line+=$(printf ' %11s' "${BLK_V[$key,${col%%=*}]:-n/a}")
		done
		line+=$(printf ' %7s' "$(blk_ratio "${BLK_V[$key,$BLK_NUM]:-}" "${BLK_V[$key,$BLK_DEN]:-}")")
		[[ -n ${BLK_CEIL:-} ]] &&
			line+=$(printf ' %7s' "$(blk_ratio "${BLK_V[$key,$BLK_CEIL]:-}" "${BLK_V[$key,$BLK_DEN]:-}")")
		echo "$line"
	done
	blk_targets
}

# blk_check NAME KEY OP LIMIT: "NAME RATIOx OP LIMIT (met|NOT met)", or
# "NAME n/a".
blk_check() {
	local r ok
	r=$(blk_ratio "${BLK_V[$2,$BLK_NUM]:-}" "${BLK_V[$2,$BLK_DEN]:-}")
	if [[ $r == n/a ]]; then
		printf '%s n/a' "$1"
		return
	fi
	if awk -v a="$r" -v b="$4" -v op="$3" 'BEGIN { exit !(op == ">=" ? a >= b : a <= b) }'; then
		ok=met
	else
		ok="NOT met"
	fi
	printf '%s %sx %s %s (%s)' "$1" "$r" "$3" "$4" "$ok"
}

# Issue 14's targets: key, operator, limit, name.
BLK_TARGETS=("rr4k >= 2.0 4k randread IOPS" "rw4k >= 2.0 4k randwrite IOPS"
	"sr128k >= 1.5 128k read MiB/s" "sw128k >= 1.5 128k write MiB/s"
	"lat50 <= 0.4 qd1 p50 latency")

blk_targets() {
	local t key op lim name line=''
	for t in "${BLK_TARGETS[@]}"; do
		read -r key op lim name <<<"$t"
		[[ " ${!BLK_V[*]} " == *" $key,"* ]] || continue
		line+="${line:+; }$(blk_check "$name" "$key" "$op" "$lim")"
	done
	echo "targets ($BLK_NUM / $BLK_DEN): $line"
}
