#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest rows, client side (tools/tests/bench/bench-pair.sh boots it
# through tools/rig/pair.sh, against tools/tests/bench/bench-pair-server.sh): 64 KiB
# RDMA WRITE and SEND at depth 128 over rxe0, `ibpost run --connect` beside
# ib_write_bw / ib_send_bw -R (tools/tests/lib/peer-bw.sh), rig.iters WRs a run
# (2000), rig.reps runs of each tool (5) taken in turn: ibpost, perftest,
# ibpost, perftest, ...  Each row: the median and the spread (min-max) of
# each tool, and the ratio of the medians.  Writes $IBPOST_OUT/bench-pair.txt
# and every run's output to $IBPOST_OUT/bench-pair-raw.txt.  Exit status 0
# when both rows have figures of both tools.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-bw.sh
. tools/tests/lib/peer-bw.sh
# shellcheck source=tools/tests/lib/bench-pair-profile.sh
. tools/tests/lib/bench-pair-profile.sh
# shellcheck source=tools/tests/lib/bench-cpu.sh
. tools/tests/lib/bench-cpu.sh

rig_ibpost_paths
S=$(rig_arg peer)
iters=$(rig_arg iters) || iters=2000
reps=$(rig_arg reps) || reps=5
PBW_RAW=$IBPOST_OUT/bench-pair-raw.txt
: >"$PBW_RAW"
if ! rig_load_rxe || ! rig_pair_net; then
	echo "bench: client: rxe0 on the wire: set-up failed" >&2
	exit 1
fi
insmod "$KO" || { echo "bench: client: insmod $KO failed" >&2; exit 1; }

# The server starts serving some time after its guest boots.
up=0
rig_wait_serve "$S" && up=1
((up)) || { echo "bench: client: no ibpost serve at $S" >&2; rmmod ibpost; exit 1; }
t_start=$SECONDS

# spread: min-max of the positive values on stdin (- when none).
spread() {
	awk '$1 > 0' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print NR ? lo "-" hi : "-" }'
}

rows=() rc=0
fmt='%-6s %5s %9s %15s %9s %15s %6s %7s %8s %8s\n'
# cost T0 FIGURE: CPU-s/GiB of this guest since T0 for a run that moved
# $iters 64 KiB WRs (n/a when it gave no figure).
cost() {
	if [[ -n $2 ]]; then
		bench_cpu_per_gib "$1" $((PBW_SIZE * iters))
	else
		echo n/a
	fi
}
# row OP: REPS runs of each tool in turn, one table row.
row() {
	local op=$1 r i=() p=() ic=() pc=() mi mp mic mpc ni np ratio t0
	for ((r = 1; r <= reps; r++)); do
		t0=$(bench_cpu_ticks)
		i+=("$(ibpost_bw "$op" "$iters")")
		ic+=("$(cost "$t0" "${i[-1]}")")
		t0=$(bench_cpu_ticks)
		p+=("$(perf_bw "$op" "$iters")")
		pc+=("$(cost "$t0" "${p[-1]}")")
		echo "bench: pair $op run $r: ibpost ${i[-1]:-failed} (${ic[-1]} CPU-s/GiB), perftest ${p[-1]:-failed} MiB/s (${pc[-1]} CPU-s/GiB) ($((SECONDS - t_start)) s)"
	done
	mi=$(printf '%s\n' "${i[@]}" | median)
	mic=$(printf '%s\n' "${ic[@]}" | median)
	mpc=$(printf '%s\n' "${pc[@]}" | median)
	mp=$(printf '%s\n' "${p[@]}" | median)
	ni=$(printf '%s\n' "${i[@]}" | awk '$1 > 0' | wc -l)
	np=$(printf '%s\n' "${p[@]}" | awk '$1 > 0' | wc -l)
	ratio=$(awk -v a="$mi" -v b="$mp" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
	[[ $ratio == - ]] && rc=1
	# shellcheck disable=SC2059 # the format is $fmt
	rows+=("$(printf "$fmt" "$op" 64K "${mi:--}" "$(printf '%s\n' "${i[@]}" | spread)" \
		"${mp:--}" "$(printf '%s\n' "${p[@]}" | spread)" "$ratio" "$ni/$np" \
		"${mic:--}" "${mpc:--}")")
	echo "bench: pair ${rows[-1]}"
}
row write
row send

# One more 64 KiB WRITE run of each tool, profiled on both guests.
if prof_ready; then
	echo "bench: pair profile: one WRITE run of each tool, both guests recording"
	prof_client ibpost "$IBPOST" run --dev rxe0 --connect "$S" --op write \
		--size "$PBW_SIZE" --depth "$PBW_DEPTH" -n "$iters"
	prof_client perftest "$(perf_tool write)" -d rxe0 -R -F -p "$(perf_port write)" \
		-s "$PBW_SIZE" -t "$PBW_DEPTH" -n "$iters" "$S"
else
	echo "bench: pair profile: perf not available, skipped" >&2
fi

rmmod ibpost || echo "bench: client: rmmod ibpost failed" >&2
{
	echo "# two guests: ibpost run --connect vs perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo '?') -R (rdma_cm), 64 KiB, depth 128, $iters WRs a run"
	echo "# rxe0 on each of two TCG guests (kernel $(uname -r), $(nproc) vCPUs each) joined by a QEMU socket wire on 127.0.0.1"
	echo "# guest clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo ?); $((SECONDS - t_start)) s of runs"
	echo "# $reps runs of each tool, taken in turn (ibpost, perftest, ibpost, ...): the median and the spread"
	echo "# (min-max) of each, MiB/s (perftest's 'BW average[MB/sec]' is bytes / 2^20);"
	echo "# ratio = ibpost / perftest (medians); ok: runs with a figure, ibpost/perftest"
	echo "# i_cpu, p_cpu: CPU-seconds per GiB in the client guest (every CPU's busy time, /proc/stat,"
	echo "# over the command; median); the server guest's is not measured"
	# shellcheck disable=SC2059 # the format is $fmt
	printf "$fmt" op size ibpost min-max perftest min-max ratio ok i_cpu p_cpu
	printf '%s\n' "${rows[@]}"
} >"$IBPOST_OUT/bench-pair.txt"
cat "$IBPOST_OUT/bench-pair.txt"
exit "$rc"
