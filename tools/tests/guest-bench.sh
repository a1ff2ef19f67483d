#!/bin/bash
# In-guest part of 'make bench' (via tools/rig/boot.sh): ibpost run against
# perftest on rxe_lo in the same guest, side by side, then an SGE sweep
# perftest cannot do.  Writes $IBPOST_OUT/bench.txt (and raw outputs under
# $IBPOST_OUT/bench-raw/).  A perftest or ibpost failure shows as n/a.
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
rig_load_rxe || exit 1
rig_rxe_lo || exit 1
# Without the module the ibpost column reads n/a; perftest still runs.
insmod "${IBPOST_KO:-module/ibpost.ko}" || echo "bench: insmod module/ibpost.ko failed" >&2

out=${IBPOST_OUT:-/tmp}
raw=$out/bench-raw
mkdir -p "$raw"
ib=tools/ibpost/ibpost
dev=rxe_lo
port=18700
table=()
t_start=$SECONDS

# Iterations per size: a few seconds each at rxe-under-TCG speeds
# (~1 MiB/s at 64 B, 20-40 MiB/s from 4 KiB up); ~4 minutes in all.
iters_for() {
	case $1 in
	64) echo 20000 ;;
	4096) echo 5000 ;;
	65536) echo 2000 ;;
	*) echo 160 ;;
	esac
}

# perftest TOOL NAME ARGS...: server in the background, client to 127.0.0.1;
# prints the client's result line (or nothing).
perftest() {
	local tool=$1 name=$2 sp i line
	shift 2
	port=$((port + 1))
	if ! command -v "$tool" >/dev/null; then
		echo "$tool: not installed" >"$raw/$name.perftest.txt"
		return 1
	fi
	timeout 300 "$tool" -d "$dev" -F -p "$port" "$@" >"$raw/$name.perftest-server.txt" 2>&1 &
	sp=$!
	for ((i = 0; i < 300; i++)); do
		ss -ltn 2>/dev/null | grep -q ":$port " && break
		kill -0 "$sp" 2>/dev/null || break
		sleep 0.1
	done
	timeout 300 "$tool" -d "$dev" -F -p "$port" "$@" 127.0.0.1 >"$raw/$name.perftest.txt" 2>&1 ||
		echo "bench: $tool $name failed: $(tail -n1 "$raw/$name.perftest.txt")" >&2
	wait "$sp"
	# The result line: starts with the message size, after the header.
	line=$(awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print; exit }' \
		"$raw/$name.perftest.txt")
	[[ -n $line ]] && echo "$line"
}

# ibpost NAME ARGS...: prints the table rows (or nothing).
ibpost() {
	local name=$1
	shift
	if ! timeout 600 "$ib" run --dev "$dev" "$@" >"$raw/$name.ibpost.txt" 2>&1; then
		echo "bench: ibpost $name failed: $(grep -m1 '^ibpost:' "$raw/$name.ibpost.txt")" >&2
		return 1
	fi
	grep -E '^[0-9]+ ' "$raw/$name.ibpost.txt"
}

# field LINE N: the Nth field of LINE, n/a when missing.
field() {
	local v
	v=$(awk -v n="$2" '{ print $n }' <<<"$1")
	[[ -n $v ]] && echo "$v" || echo n/a
}

ratio() {
	if [[ $1 == - ]]; then
		echo -
	elif [[ $1 == n/a || $2 == n/a ]]; then
		echo n/a
	else
		awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == 0) print "n/a"; else printf "%.2f", b / a }'
	fi
}

# add TEST SIZE UNIT PERFTEST IBPOST
add() {
	local r
	r=$(ratio "$4" "$5")
	table+=("$(printf '%-14s %8s %-12s %10s %10s %8s' "$1" "$2" "$3" "$4" "$5" "$r")")
	echo "bench: ${table[-1]}  ($((SECONDS - t_start)) s)"
}

# Bandwidth: perftest BW average vs ibpost BW[MiB/s] (both MiB/s).
bw() {
	local test=$1 tool=$2 op=$3 size=$4 n p i
	shift 4
	n=$(iters_for "$size")
	p=$(perftest "$tool" "$test-$size" -s "$size" -n "$n")
	i=$(ibpost "$test-$size" --op "$op" --size "$size" --iters "$n" "$@")
	add "$test" "$size" MiB/s "$(field "$p" 4)" "$(field "$i" 4)"
}

for size in 64 4096 65536 1048576; do
	bw write_bw ib_write_bw write "$size" --depth 128
	bw send_bw ib_send_bw send "$size" --depth 128
	bw read_bw ib_read_bw read "$size"
done

# Message rate at 64 B: perftest's default (CQ moderation 100, one WR per
# post) and with a post list of 16, against ibpost chaining 16 per post.
n=50000
p=$(perftest ib_write_bw msgrate-64 -s 64 -n "$n")
p16=$(perftest ib_write_bw msgrate-64-l16 -s 64 -n "$n" -l 16)
i=$(ibpost msgrate-64 --op write --size 64 --iters "$n" --depth 128 --batch 16 --signal-every 16)
add msgrate 64 Mpps "$(field "$p" 5)" "$(field "$i" 6)"
add msgrate-list16 64 Mpps "$(field "$p16" 5)" "$(field "$i" 6)"

# Latency at 64 B: perftest t_typical (half a ping-pong round trip) vs the
# ibpost median post-to-completion time of one WR in flight (a full round
# trip: the WRITE and its ACK).  Lower is better.
n=10000
p=$(perftest ib_write_lat lat-64 -s 64 -n "$n")
i=$(ibpost lat-64 --op write --size 64 --iters "$n" --depth 1 --batch 1 --signal-every 1)
add write_lat 64 us "$(field "$p" 5)" "$(field "$i" 8)"
p=$(perftest ib_send_lat send-lat-64 -s 64 -n "$n")
i=$(ibpost send-lat-64 --op send --size 64 --iters "$n" --depth 1 --batch 1 --signal-every 1)
add send_lat 64 us "$(field "$p" 5)" "$(field "$i" 8)"

# SGE sweep: 64 KiB WRITEs split into N equal SGEs (perftest has no SGE knob).
rows=$(ibpost sge-sweep --op write --size 64K --sge 1,2,4,8,16,32 --iters 1000 --depth 128)
for sge in 1 2 4 8 16 32; do
	r=$(awk -v s="$sge" '$2 == s' <<<"$rows")
	add "write_sge$sge" 65536 MiB/s - "$(field "$r" 4)"
done

rmmod ibpost 2>/dev/null

{
	echo "# ibpost run vs perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo '?'),"
	echo "# $dev in one TCG guest (kernel $(uname -r)), $(nproc) vCPUs; $((SECONDS - t_start)) s"
	echo "# BW: perftest 'BW average' vs ibpost BW[MiB/s]; msgrate: MsgRate[Mpps];"
	echo "# lat: perftest t_typical (RTT/2 of a ping-pong) vs ibpost t_median"
	echo "# (post to completion, one WR in flight: a full round trip); for the"
	echo "# latency rows lower is better.  ratio = ibpost / perftest; '-': perftest"
	echo "# has no such test."
	printf '%-14s %8s %-12s %10s %10s %8s\n' test size unit perftest ibpost ratio
	printf '%s\n' "${table[@]}"
} >"$out/bench.txt"
echo
cat "$out/bench.txt"
exit 0
