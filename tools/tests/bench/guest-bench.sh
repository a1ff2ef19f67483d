#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of 'make bench' (via tools/rig/boot.sh): ibpost run against
# perftest on rxe_lo in the same guest, side by side, then an SGE sweep
# perftest cannot do.  Writes $IBPOST_OUT/bench.txt (and raw outputs under
# $IBPOST_OUT/bench-raw/, NAME.rREP.{perftest,perftest-server,ibpost}.txt).
# A perftest or ibpost failure shows as n/a.
#
# Single runs under TCG swing by +-30%, so every measurement (perftest and
# ibpost alike) runs $REPS times, interleaved, and the table shows the median.
# Before the message-rate and bandwidth rows, short sweeps pick the ibpost
# configuration (depth, batch, signal-every) by median; the picks are printed.
#
# perftest runs server and client in this guest, connected over its TCP
# side channel to 127.0.0.1 without rdma_cm (rdma_cm cannot route over
# rxe_lo on 6.1); its --out_json is unusable in 4.5-0.17, so the text
# report is parsed: BW average[MB/sec] (really MiB/s), MsgRate[Mpps],
# t_typical[usec].
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/bench-profile.sh
. tools/tests/lib/bench-profile.sh
# shellcheck source=tools/tests/lib/bench-stats.sh
. tools/tests/lib/bench-stats.sh
# shellcheck source=tools/tests/lib/bench-cpu.sh
. tools/tests/lib/bench-cpu.sh
rig_load_rxe || exit 1
rig_rxe_lo || exit 1
# Without the module the ibpost column reads n/a; perftest still runs.
# (A concurrent rebuild on the host can leave a half-written .ko: retry.)
for try in 1 2 3 4 5; do
	insmod "${IBPOST_KO:-module/ibpost.ko}" && break
	echo "bench: insmod module/ibpost.ko failed (try $try)" >&2
	sleep 5
done

out=${IBPOST_OUT:-/tmp}
raw=$out/bench-raw
mkdir -p "$raw"
ib=tools/ibpost/ibpost
dev=rxe_lo
port=18700
REPS=${BENCH_REPS:-5}
table=()
notes=()
t_start=$SECONDS

# Iterations per size: a second or a few per run at rxe-under-TCG speeds
# (~1-2 MiB/s at 64 B, 20-50 MiB/s from 4 KiB up), times $REPS; shorter
# runs are noisier still.  The whole guest run takes about 8-10 minutes.
iters_for() {
	case $1 in
	64) echo 20000 ;;
	4096) echo 5000 ;;
	65536) echo 2000 ;;
	*) echo 100 ;;
	esac
}

# perftest_server TOOL PORT OUT ARGS...: TOOL's server on PORT in the
# background (output to OUT), its PID in $srv; returns once it listens (or
# died).
perftest_server() {
	local tool=$1 sport=$2 o=$3 i
	shift 3
	timeout 300 "$tool" -d "$dev" -F -p "$sport" "$@" >"$o" 2>&1 &
	srv=$!
	for ((i = 0; i < 300; i++)); do
		ss -ltn 2>/dev/null | grep -q ":$sport " && break
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
}

# result_line FILE: a perftest report's result line (it starts with the
# message size, after the header), or nothing.
result_line() {
	awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print; exit }' "$1"
}

# perftest TOOL NAME ARGS...: server in the background, client to 127.0.0.1;
# prints the client's result line (or nothing).
perftest() {
	local tool=$1 name=$2 line t0
	shift 2
	port=$((port + 1))
	if ! command -v "$tool" >/dev/null; then
		echo "$tool: not installed" >"$raw/$name.perftest.txt"
		return 1
	fi
	perftest_server "$tool" "$port" "$raw/$name.perftest-server.txt" "$@"
	t0=$(bench_cpu_ticks)
	timeout 300 "$tool" -d "$dev" -F -p "$port" "$@" 127.0.0.1 >"$raw/$name.perftest.txt" 2>&1 ||
		echo "bench: $tool $name failed: $(tail -n1 "$raw/$name.perftest.txt")" >&2
	wait "$srv"
	line=$(result_line "$raw/$name.perftest.txt")
	# CPU-s/GiB of client and server (both in this guest): bytes = size *
	# #iterations (with -q N the sum of the QPs': 4000 for -q 2 -n 2000)
	bench_cpu_per_gib "$t0" "$(awk '{ print $1 * $2 }' <<<"${line:-0 0}")" >"$raw/$name.perftest.cpu"
	[[ -n $line ]] && echo "$line"
}

# ibpost_rows REGEX NAME ARGS...: one ibpost run; prints its lines that
# match REGEX (or nothing).
ibpost_rows() {
	local re=$1 name=$2 t0
	shift 2
	t0=$(bench_cpu_ticks)
	# --wide: the fields read below (6 MsgRate, 8 t_median) are the wide table's
	if ! timeout 600 "$ib" run --wide --dev "$dev" "$@" >"$raw/$name.ibpost.txt" 2>&1; then
		echo "bench: ibpost $name failed: $(grep -m1 '^ibpost:' "$raw/$name.ibpost.txt")" >&2
		echo n/a >"$raw/$name.ibpost.cpu"
		return 1
	fi
	# CPU-s/GiB of the command: bytes = the rows' size * iters (one point,
	# or -q's total)
	bench_cpu_per_gib "$t0" "$(awk '$1 == "total" { t = $2 * $4 } $1 ~ /^[0-9]+$/ { b += $1 * $3 }
		END { print t ? t : b + 0 }' "$raw/$name.ibpost.txt")" >"$raw/$name.ibpost.cpu"
	grep -E "$re" "$raw/$name.ibpost.txt"
}

# cpu NAME TOOL: the CPU-s/GiB of that run (n/a).
cpu() { cat "$raw/$1.$2.cpu" 2>/dev/null || echo n/a; }

# ibpost NAME ARGS...: the table rows.
ibpost() { ibpost_rows '^[0-9]+ ' "$@"; }

# ibpost_total NAME ARGS...: the "total" row of a -q run.
ibpost_total() { ibpost_rows '^total ' "$@"; }

# perftest_procs N FIELD NAME ARGS...: N ib_write_bw server/client pairs at
# once; prints the sum of FIELD of their result lines (4: BW average, 5:
# MsgRate), n/a if any failed.
perftest_procs() {
	local nproc=$1 f=$2 name=$3 k sp=() cp=() sum=0 v t0 bytes=0
	shift 3
	for ((k = 0; k < nproc; k++)); do
		port=$((port + 1))
		perftest_server ib_write_bw "$port" "$raw/$name.$k.perftest-server.txt" "$@"
		sp+=("$srv")
	done
	t0=$(bench_cpu_ticks)
	for ((k = 0; k < nproc; k++)); do
		timeout 300 ib_write_bw -d "$dev" -F -p "$((port - nproc + 1 + k))" "$@" 127.0.0.1 \
			>"$raw/$name.$k.perftest.txt" 2>&1 &
		cp+=($!)
	done
	wait "${cp[@]}" "${sp[@]}"
	for ((k = 0; k < nproc; k++)); do
		bytes=$(awk -v b="$bytes" '{ b += $1 * $2 } END { print b + 0 }' \
			<<<"$(result_line "$raw/$name.$k.perftest.txt")")
	done
	bench_cpu_per_gib "$t0" "$bytes" >"$raw/$name.perftest.cpu"
	for ((k = 0; k < nproc; k++)); do
		v=$(field "$(result_line "$raw/$name.$k.perftest.txt")" "$f")
		[[ $v =~ ^[0-9.]+$ ]] || { echo n/a; return; }
		sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { printf "%.6g", a + b }')
	done
	echo "$sum"
}

# field LINE N: the Nth field of LINE, n/a when missing.
field() {
	local v
	v=$(awk -v n="$2" '{ print $n }' <<<"$1")
	[[ -n $v ]] && echo "$v" || echo n/a
}

# median V...: median of the numeric values (n/a and 0 -- a perftest glitch,
# seen at 4 KiB read -- dropped).
median() { bench_median -z "$@"; }

ratio() {
	if [[ $1 == - ]]; then
		echo -
	elif [[ $1 == n/a || $2 == n/a ]]; then
		echo n/a
	else
		awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == 0) print "n/a"; else printf "%.2f", b / a }'
	fi
}

# add TEST SIZE UNIT PERFTEST IBPOST [PERFTEST_CPU IBPOST_CPU]: the CPU
# columns (CPU-s/GiB) on bandwidth rows, '-' elsewhere.
add() {
	local r
	r=$(ratio "$4" "$5")
	table+=("$(printf '%-14s %8s %-6s %10s %10s %8s %9s %9s' "$1" "$2" "$3" "$4" "$5" "$r" "${6:--}" "${7:--}")")
	echo "bench: ${table[-1]}  ($((SECONDS - t_start)) s)"
}

# note TEXT: a '#' line for bench.txt, echoed to the console.
note() {
	notes+=("# $*")
	echo "bench: $*"
}

# ibpost_med NAME FIELD ARGS...: $REPS ibpost runs, median of FIELD.
ibpost_med() {
	local name=$1 f=$2 r v=()
	shift 2
	for ((r = 1; r <= REPS; r++)); do
		v+=("$(field "$(ibpost "$name.r$r" "$@")" "$f")")
	done
	echo "bench: $name ${v[*]}" >&2
	median "${v[@]}"
}

# Inline: perftest on rxe says "Device not recognized to implement inline
# feature. Disabling it" (even with -I) and posts 64 B messages from
# memory; ibpost probes what rxe grants and posts them inline.  The small-
# message rows (msgrate, write_lat) use it; their -noinline twins show
# ibpost without it.
max_inline=$("$ib" devices --json --dev "$dev" 2>/dev/null |
	sed -n 's/.*"max_inline_data": \([0-9]*\).*/\1/p' | head -n 1)
INL=()
if [[ ${max_inline:-0} -ge 64 ]]; then
	INL=(--inline)
	note "64 B rows use --inline (the device grants $max_inline B); perftest: inline unavailable on rxe"
fi

# --- ibpost configuration sweeps ----------------------------------------
# Message rate at 64 B: (depth, batch, signal-every) for 64 B WRITE.  Deep
# queues overflow lo's backlog and trigger retransmits, so the deepest is
# not the fastest: measure.
best_rate=0 best_cfg=''
for d in 16 32 64; do
	for b in 1 4 8; do
		k=$((d - b + 1 < 16 ? d - b + 1 : 16))
		m=$(ibpost_med "sweep-rate-d$d-b$b-k$k" 6 --op write --size 64 --iters 10000 \
			--depth "$d" --batch "$b" --signal-every "$k" "${INL[@]}")
		note "sweep msgrate 64 B write: depth $d batch $b signal-every $k: median $m Mpps"
		if [[ $m != n/a ]] && awk -v a="$m" -v b="$best_rate" 'BEGIN { exit !(a > b) }'; then
			best_rate=$m best_cfg="--depth $d --batch $b --signal-every $k"
		fi
	done
done
[[ -n $best_cfg ]] || best_cfg="--depth 32 --batch 4 --signal-every 16"
note "picked for msgrate: $best_cfg ($best_rate Mpps in the sweep)"

# Bandwidth: send-queue depth for WRITE/SEND at 64 KiB WRITE.  The depth is
# also the number of distinct 64 KiB slots on each side (perftest rewrites
# one buffer), so small depths are tried too.
best_bw=0 bw_depth=''
for d in 4 8 32 128; do
	m=$(ibpost_med "sweep-bw-d$d" 4 --op write --size 64K --iters "$(iters_for 65536)" --depth "$d")
	note "sweep bw 64 KiB write: depth $d: median $m MiB/s"
	if [[ $m != n/a ]] && awk -v a="$m" -v b="$best_bw" 'BEGIN { exit !(a > b) }'; then
		best_bw=$m bw_depth=$d
	fi
done
[[ -n $bw_depth ]] || bw_depth=32
note "picked for write/send bw rows: --depth $bw_depth (read: the default, 16)"

# --- side by side ---------------------------------------------------------
# Bandwidth: perftest BW average vs ibpost BW[MiB/s] (both MiB/s).
bw() {
	local test=$1 tool=$2 op=$3 size=$4 n r p=() i=() pc=() ic=()
	shift 4
	n=$(iters_for "$size")
	for ((r = 1; r <= REPS; r++)); do
		p+=("$(field "$(perftest "$tool" "$test-$size.r$r" -s "$size" -n "$n")" 4)")
		pc+=("$(cpu "$test-$size.r$r" perftest)")
		i+=("$(field "$(ibpost "$test-$size.r$r" --op "$op" --size "$size" --iters "$n" "$@")" 4)")
		ic+=("$(cpu "$test-$size.r$r" ibpost)")
	done
	echo "bench: $test $size perftest ${p[*]} (${pc[*]} CPU-s/GiB) / ibpost ${i[*]} (${ic[*]} CPU-s/GiB)"
	add "$test" "$size" MiB/s "$(median "${p[@]}")" "$(median "${i[@]}")" \
		"$(median "${pc[@]}")" "$(median "${ic[@]}")"
}

for size in 64 4096 65536 1048576; do
	bw write_bw ib_write_bw write "$size" --depth "$bw_depth"
	bw send_bw ib_send_bw send "$size" --depth "$bw_depth"
	bw read_bw ib_read_bw read "$size"
done

# Message rate at 64 B: perftest's default (CQ moderation 100, one WR per
# post) and with a post list of 16, against ibpost's picked configuration.
n=50000
p=() p16=() i=() i0=()
for ((r = 1; r <= REPS; r++)); do
	p+=("$(field "$(perftest ib_write_bw "msgrate-64.r$r" -s 64 -n "$n")" 5)")
	p16+=("$(field "$(perftest ib_write_bw "msgrate-64-l16.r$r" -s 64 -n "$n" -l 16)" 5)")
	# shellcheck disable=SC2086 # best_cfg is a list of options
	i+=("$(field "$(ibpost "msgrate-64.r$r" --op write --size 64 --iters "$n" $best_cfg "${INL[@]}")" 6)")
	# shellcheck disable=SC2086 # best_cfg is a list of options
	i0+=("$(field "$(ibpost "msgrate-64-noinline.r$r" --op write --size 64 --iters "$n" $best_cfg)" 6)")
done
echo "bench: msgrate perftest ${p[*]} / -l 16 ${p16[*]} / ibpost ${i[*]} / no inline ${i0[*]}"
rate_i=$(median "${i[@]}")
add msgrate 64 Mpps "$(median "${p[@]}")" "$rate_i"
add msgrate-list16 64 Mpps "$(median "${p16[@]}")" "$rate_i"
add msgrate-noinline 64 Mpps "$(median "${p[@]}")" "$(median "${i0[@]}")"

# One QP per CPU.  One ibpost command runs its QPs from one thread per CPU
# (-q N, thread i pinned to CPU i, each job in its thread's context); one
# perftest command drives its QPs (-q N) from one process, so one CPU.
# TEST-qN compares the two commands; TEST-Nproc compares ibpost -q N with
# N perftest processes running at once (their figures summed): the
# CPU-for-CPU comparison.
# per_cpu TEST SIZE UNIT PFIELD IFIELD ITERS ARGS...: ARGS are ibpost's.
per_cpu() {
	local test=$1 size=$2 unit=$3 pf=$4 f=$5 iters=$6 r p=() pn=() i=() m
	local pc=() pnc=() ic=() mc=() c=()
	shift 6
	for ((r = 1; r <= REPS; r++)); do
		p+=("$(field "$(perftest ib_write_bw "$test-$size-q$nq.r$r" -s "$size" -n "$iters" -q "$nq")" "$pf")")
		pc+=("$(cpu "$test-$size-q$nq.r$r" perftest)")
		pn+=("$(perftest_procs "$nq" "$pf" "$test-$size-${nq}proc.r$r" -s "$size" -n "$iters")")
		pnc+=("$(cpu "$test-$size-${nq}proc.r$r" perftest)")
		i+=("$(field "$(ibpost_total "$test-$size-q$nq.r$r" -q "$nq" --op write --size "$size" \
			--iters "$iters" "$@")" "$f")")
		ic+=("$(cpu "$test-$size-q$nq.r$r" ibpost)")
	done
	echo "bench: $test-q$nq perftest ${p[*]} / $nq processes ${pn[*]} / ibpost ${i[*]}"
	m=$(median "${i[@]}")
	# CPU-s/GiB on the bandwidth rows
	[[ $unit == MiB/s ]] && c=("$(median "${pc[@]}")" "$(median "${pnc[@]}")") mc=("$(median "${ic[@]}")")
	add "$test-q$nq" "$size" "$unit" "$(median "${p[@]}")" "$m" "${c[@]:0:1}" "${mc[@]}"
	add "$test-${nq}proc" "$size" "$unit" "$(median "${pn[@]}")" "$m" "${c[@]:1:1}" "${mc[@]}"
}
nq=$(nproc)
if ((nq > 1)); then
	# shellcheck disable=SC2086 # best_cfg is a list of options
	per_cpu msgrate 64 Mpps 5 7 "$n" $best_cfg "${INL[@]}"
	per_cpu write_bw 65536 MiB/s 4 5 "$(iters_for 65536)" --depth "$bw_depth"
fi

# Latency at 64 B, lower is better.  write_lat: both tools measure the same
# thing, half a ping-pong round trip (perftest t_typical vs ibpost --pingpong
# t_median: the far end WRITEs back when the last byte lands); ibpost posts
# inline where the device grants it (perftest cannot on rxe), the -noinline
# row without.  send_lat: perftest's send ping-pong
# vs ibpost's post-to-completion time of one SEND in flight (its receive is
# posted ahead); write_p2c: ibpost's post-to-completion time of one WRITE (a
# full round trip with the ACK), which perftest does not measure.
lat() {
	local test=$1 tool=$2 op=$3 name=$4 n=10000 r p=() i=()
	shift 4
	for ((r = 1; r <= REPS; r++)); do
		p+=("$(field "$(perftest "$tool" "$name.r$r" -s 64 -n "$n")" 5)")
		i+=("$(field "$(ibpost "$name.r$r" --op "$op" --size 64 --iters "$n" "$@")" 8)")
	done
	echo "bench: $test perftest ${p[*]} / ibpost ${i[*]}"
	add "$test" 64 us "$(median "${p[@]}")" "$(median "${i[@]}")"
}
lat write_lat ib_write_lat write lat-64 --pingpong "${INL[@]}"
lat write_lat-noinline ib_write_lat write lat-64-noinline --pingpong
lat send_lat ib_send_lat send send-lat-64 --depth 1 --batch 1 --signal-every 1
p=()
for ((r = 1; r <= REPS; r++)); do
	p+=("$(field "$(ibpost "write-p2c-64.r$r" --op write --size 64 --iters 10000 \
		--depth 1 --batch 1 --signal-every 1)" 8)")
done
add write_p2c 64 us - "$(median "${p[@]}")"

# SGE sweep: 64 KiB WRITEs split into N equal SGEs (perftest has no SGE knob).
# Its CPU column is ibpost's own --cpu-util (each point's ioctl window:
# one command runs them all).
sges=(1 2 4 8 16 32)
declare -A sv sc
for ((r = 1; r <= REPS; r++)); do
	rows=$(ibpost "sge-sweep.r$r" --op write --size 64K --sge "$(IFS=,; echo "${sges[*]}")" \
		--iters "$(iters_for 65536)" --depth "$bw_depth" --cpu-util)
	for sge in "${sges[@]}"; do
		sv[$sge]+=" $(field "$(awk -v s="$sge" '$2 == s' <<<"$rows")" 4)"
		# the "# cpu: ... N CPU-s/GiB; ..." line after the point's row
		sc[$sge]+=" $(awk -v s="$sge" '$1 ~ /^[0-9]+$/ { cur = $2 == s }
			cur && /^# cpu: / { for (k = 2; k <= NF; k++) if ($k == "CPU-s/GiB;") print $(k - 1); cur = 0 }' \
			"$raw/sge-sweep.r$r.ibpost.txt")"
	done
done
for sge in "${sges[@]}"; do
	# shellcheck disable=SC2086 # a list of values
	add "write_sge$sge" 65536 MiB/s - "$(median ${sv[$sge]})" - "$(median ${sc[$sge]})"
done

# Where the time goes, one QP each (tools/tests/lib/bench-profile.sh).
# shellcheck disable=SC2086 # best_cfg is a list of options
profile_share msgrate 64 200000 $best_cfg "${INL[@]}"
profile_share write_bw 65536 10000 --depth "$bw_depth"

rmmod ibpost 2>/dev/null

# The issue's targets, from the table's ratios.
# (a pipe: the chroot has no /dev/fd for process substitution)
rat() { printf '%s\n' "${table[@]}" | awk -v t="$1" -v s="$2" '$1 == t && $2 == s { print $6 }'; }
# check NAME RATIO OP LIMIT
check() {
	local ok
	if [[ $2 == n/a || -z $2 ]]; then
		ok="n/a"
	elif awk -v a="$2" -v b="$4" -v op="$3" 'BEGIN { exit !(op == ">=" ? a >= b : a <= b) }'; then
		ok="met"
	else
		ok="NOT met"
	fi
	printf '%s %sx %s %s (%s)' "$1" "${2:-n/a}" "$3" "$4" "$ok"
}
targets="targets: $(check 'write_bw 64K' "$(rat write_bw 65536)" '>=' 1.0);"
targets+=" $(check 'send_bw 64K' "$(rat send_bw 65536)" '>=' 1.0);"
targets+=" $(check 'read_bw 64K' "$(rat read_bw 65536)" '>=' 1.0);"
targets+=" $(check 'msgrate 64B, 1 QP (vs perftest default)' "$(rat msgrate 64)" '>=' 1.5);"
if ((nq > 1)); then
	targets+=" $(check "msgrate 64B, one command, $nq QPs (vs ib_write_bw -q $nq)" "$(rat "msgrate-q$nq" 64)" '>=' 1.5);"
	targets+=" [msgrate per CPU: $(rat "msgrate-${nq}proc" 64)x $nq perftest processes; 1 QP: $(rat msgrate-list16 64)x perftest -l 16;"
	targets+=" write_bw 64K: $(rat "write_bw-q$nq" 65536)x one command with $nq QPs, $(rat "write_bw-${nq}proc" 65536)x $nq processes];"
fi
targets+=" $(check 'write_lat 64B median' "$(rat write_lat 64)" '<=' 0.9)"

{
	echo "# ibpost run vs perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo '?'),"
	echo "# $dev in one TCG guest (kernel $(uname -r)), $(nproc) vCPUs; $((SECONDS - t_start)) s in the guest"
	echo "# guest clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo ?)"
	echo "# every figure: the median of $REPS runs (perftest and ibpost interleaved); raw outputs in bench-raw/"
	echo "# BW rows: perftest 'BW average' vs ibpost BW[MiB/s]; msgrate: MsgRate[Mpps]."
	echo "# lat rows (lower is better): write_lat: perftest t_typical vs ibpost --pingpong t_median,"
	echo "# both half a ping-pong round trip; send_lat: perftest t_typical vs ibpost t_median of one"
	echo "# SEND post->completion; write_p2c: ibpost post->completion of one WRITE (perftest: none)."
	echo "# ratio = ibpost / perftest; '-': perftest has no such test."
	echo "# p_cpu, i_cpu (bandwidth rows): CPU-seconds per GiB moved, perftest and ibpost: every CPU's"
	echo "# busy time in the guest (/proc/stat) over the command (perftest: client and server), the"
	echo "# median of the runs; lower is cheaper.  The window holds each command's set-up too, which"
	echo "# weighs most on the short runs (64 B).  write_sge*: ibpost's --cpu-util (each point's ioctl)."
	printf '%s\n' "${notes[@]}"
	printf '%-14s %8s %-6s %10s %10s %8s %9s %9s\n' test size unit perftest ibpost ratio p_cpu i_cpu
	printf '%s\n' "${table[@]}"
	echo "$targets"
} >"$out/bench.txt"
echo
cat "$out/bench.txt"
exit 0
