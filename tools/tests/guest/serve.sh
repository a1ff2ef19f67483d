#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of `ibpost serve` against clients in the same guest (run by
# guest-check.sh on both kernels; rxe on a dummy netdev with two IPv4
# addresses and one IPv6 address, every job through rdma_cm):
#   - who may connect (--allow): a server that allows 192.0.2.0/24 and
#     fd00:9::/64 serves clients of those, rejects one from 198.51.100.9
#     with the reason (client and server event); a server without --allow
#     serves that same client;
#   - the wire checks, through the peer_fault test hook: hello flags, bytes
#     past the hello, a job header's conn, a job longer than its header
#     says, a fin before the job, a second job while one runs: each refused
#     with its reason, value and limit (the client's and the server's
#     words), and the server serves after them;
#   - a trickle of SENDs (one every 3 ms): the connection's thread sleeps
#     between them (its CPU time a small part of the wall time);
#   - a flood of verified 4 MiB SENDs: their checks run in the connection's
#     thread, a second client is served meanwhile, no lockup reported.
# TAP on stdout and in $IBPOST_OUT/serve-$IBPOST_KERNEL.tap.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" serve
FAULT=/sys/module/ibpost/parameters/peer_fault
A4=192.0.2.9 B4=198.51.100.9 A6=fd00:9::9
P_ALLOW=18531 P_ANY=18532 P_JSON=18533
LOG_ALLOW=$IBPOST_OUT/serve-allow-$IBPOST_KERNEL.log
LOG_ANY=$IBPOST_OUT/serve-any-$IBPOST_KERNEL.log

rig_load_rxe && rig_modprobe rdma_cm || { t_fail "load rxe" "modules"; t_done; exit 1; }
if ! rdma link show rxe_d0/1 >/dev/null 2>&1; then
	rig_rxe_dummy rxe_d0 "$A4/24" || { t_fail "rxe_d0 on d0" "link add"; t_done; exit 1; }
fi
ip addr add "$B4/24" dev d0
ip -6 addr add "$A6/64" dev d0 nodad
loaded=0
if ! grep -q '^ibpost ' /proc/modules; then
	insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
	loaded=1
fi

run() { timeout 120 "$IBPOST" run --dev rxe_d0 "$@"; }

# serve_start LOG PORT ARGS...: start a server, wait for its listen line.
SPIDS=()
serve_start() {
	local log=$1 port=$2 i
	shift 2
	"$IBPOST" serve --port "$port" --idle 3000 "$@" >"$log" 2>&1 &
	SPIDS+=($!)
	for i in $(seq 50); do
		grep -q 'listening' "$log" && return 0
		sleep 0.1
	done
	return 1
}

serve_start "$LOG_ALLOW" $P_ALLOW --allow 192.0.2.0/24 --allow fd00:9::/64 ||
	t_fail "serve --allow started" "$(cat "$LOG_ALLOW")"
serve_start "$LOG_ANY" $P_ANY || t_fail "serve started" "$(cat "$LOG_ANY")"
t_check "the listen line states the bind address and the allowed networks" \
	grep -qx "serve: listening on \* port $P_ALLOW, clients from 192.0.2.0/24 fd00:9::/64" "$LOG_ALLOW"

# --- who may connect -----------------------------------------------------------
t_check "--allow 192.0.2.0/24: a client of $A4 is served (write, verified)" \
	run --connect "$A4:$P_ALLOW" --op write --size 4K --verify -n 20
t_check "--allow fd00:9::/64: a client of $A6 is served (send, verified)" \
	run --connect "[$A6]:$P_ALLOW" --op send --size 4K --verify -n 20
out=$(run --connect "$B4:$P_ALLOW" --op write --size 4K -n 20 2>&1)
rc=$?
if ((rc != 0)) && grep -q 'client address not allowed by the server (value 2, limit 0)' <<<"$out"; then
	t_ok "a client of $B4 is rejected at connect with the reason"
else
	t_fail "a client of $B4 is rejected at connect with the reason" "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
fi
t_check "the server printed the refusal of $B4" \
	grep -q "client $B4 port [0-9]*: refused: Permission denied: client address not allowed by the server" "$LOG_ALLOW"
t_check "without --allow the same client of $B4 is served" \
	run --connect "$B4:$P_ANY" --op write --size 4K --verify -n 20

# --- perftest's command line, a host name and no --dev --------------------------------
# ibpost-peer.test is A4 (and A6) in an /etc/hosts of a mount namespace of
# its own; the route to A4 leaves from d0, whose GID table is rxe_d0's.
hosts=$IBPOST_OUT/serve-hosts-$IBPOST_KERNEL
printf '%s ibpost-peer.test\n%s ibpost-peer.test\n' "$A4" "$A6" >"$hosts"
out=$(unshare -m bash -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$hosts" \
	timeout 120 "$IBPOST" run -p "$P_ANY" -s 4096 -n 20 -t 16 --verify ibpost-peer.test 2>&1)
rc=$?
if ((rc == 0)) && grep -qx "# no --dev: rxe_d0, the route to $A4 leaves from d0" <<<"$out" &&
	grep -qF "# measures: peer $A4 port $P_ANY ('ibpost serve' there holds the target QP)," <<<"$out" &&
	grep -qE "^#? .*t = post to completion of each WR$" <<<"$out" &&
	grep -Eq '^4096 +1 +20 .* ok$' <<<"$out"; then
	t_ok "ibpost run -p PORT -s 4096 -n 20 ibpost-peer.test: the name resolved, rxe_d0 from the route, verified"
else
	t_fail "ibpost run -p PORT -s 4096 -n 20 ibpost-peer.test: the name resolved, rxe_d0 from the route, verified" "rc $rc: $(head -n 4 <<<"$out" | tr '\n' ' ')"
fi
rm -f "$hosts"

# --- the wire checks -------------------------------------------------------------
# fault_row NAME FAULT WANT SERVER_WANT ARGS...: the job fails, its stderr
# has WANT and the server's log SERVER_WANT.
fault_row() {
	local name=$1 fault=$2 want=$3 swant=$4 out rc=0
	shift 4
	echo "$fault" >"$FAULT"
	out=$(run --connect "$A4:$P_ANY" "$@" 2>&1) || rc=$?
	echo 0 >"$FAULT"
	if ((rc == 0)); then
		t_fail "$name" "the job succeeded"
	elif [[ -n $want ]] && ! grep -qF -- "$want" <<<"$out"; then
		t_fail "$name" "no '$want' in: $(head -n 3 <<<"$out" | tr '\n' ' ')"
	elif ! grep -qF -- "$swant" "$LOG_ANY"; then
		t_fail "$name" "no '$swant' in the server's log; client: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	else
		t_ok "$name"
	fi
}
fault_row "hello flag 0x8000: rejected at connect (flags, value 32768)" 32 \
	"unknown flag bits set (value 32768, limit 7)" \
	"refused: Protocol error: unknown flag bits set (value 32768, limit 7)" \
	--op write -n 10
fault_row "4 bytes past the 16-byte hello (RoCE pads to 56): rejected (offset 16)" 64 \
	"malformed message on the wire (value 16, limit 16)" \
	"refused: Protocol error: malformed message on the wire (value 16, limit 16)" \
	--op write -n 10
fault_row "a job header with conn 7: refused by the peer" 128 \
	"malformed message on the wire (value 7, limit 0)" \
	"refused: Protocol error: malformed message on the wire (value 7, limit 0)" \
	--op write -n 10
fault_row "a job of 80 bytes whose header says 72: refused by the peer" 256 \
	"malformed message on the wire (value 72, limit 80)" \
	"refused: Protocol error: malformed message on the wire (value 72, limit 80)" \
	--op write --size 4K -n 10
fault_row "a zero-byte message before the job: refused, not taken as its fin" 1024 \
	"message out of order on the wire (value 0, limit 1)" \
	"refused: Protocol error: message out of order on the wire (value 0, limit 1)" \
	--op write -n 10
fault_row "a second job while one runs: the job ends with the reason" 512 "" \
	"refused: Protocol error: message out of order on the wire (value 1, limit 0)" \
	--op write --size 4K -n 2000
t_check "the server serves after the malformed clients" \
	run --connect "$A4:$P_ANY" --op send --size 4K --verify -n 20

# --- a trickle of messages -------------------------------------------------------
# conn_thread 'OP size S ' TRIES: $n, the last connection of LOG_ANY whose
# job line starts so, and $pid, its thread's (waiting up to TRIES x 0.1 s).
conn_thread() {
	local i
	pid='' n=''
	for ((i = 0; i < $2; i++)); do
		n=$(grep -o "^conn [0-9]*: job $1" "$LOG_ANY" | tail -n 1 | cut -d' ' -f2 | tr -d :)
		[[ -n $n ]] && pid=$(grep -lx "ibpost-s$n" /proc/[0-9]*/comm 2>/dev/null | head -n 1 | cut -d/ -f3)
		[[ -n $pid ]] && return 0
		sleep 0.1
	done
	return 1
}

# ticks PID: utime + stime of a thread, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
# cpu_start PID, then CMD..., then cpu_pm PID: $pm, per mille of one CPU
# the thread used in between (-1 when it was gone at the start or the end:
# $gone says which).
cpu_start() { t0=$(ticks "$1") w0=$(date +%s%N); }
cpu_pm() {
	t1=$(ticks "$1") w1=$(date +%s%N)
	gone=
	if [[ -n $t0 && -n $t1 ]]; then
		pm=$(((t1 - t0) * 1000 * 1000000000 / $(getconf CLK_TCK) / (w1 - w0)))
	else
		pm=-1 gone="thread gone at the window's end"
		[[ -z $t0 ]] && gone="thread gone at the window's start"
	fi
}
# 2000 SENDs, 6 s; 5000 on the debug kernel, where finding the thread
# and the window's own commands took 2-3 s more than its 2.5 s.
trickle_n=2000
[[ $IBPOST_KERNEL == test ]] && trickle_n=5000
echo 2048 >"$FAULT"
run --connect "$A4:$P_ANY" --op send --size 64 --batch 1 --warmup 0 -n $trickle_n \
	>"$IBPOST_OUT/serve-trickle.txt" 2>&1 &
cpid=$!
conn_thread 'send size 64 ' 50
if [[ -z $pid ]]; then
	t_fail "the connection thread of the trickle" "not found: $(tail -n 3 "$LOG_ANY" | tr '\n' ' ')"
else
	sleep 0.5
	cpu_start "$pid"
	sleep 2
	cpu_pm "$pid"
	echo "trickle: thread ibpost-s$n used $pm per mille of a CPU in $(((w1 - w0) / 1000000)) ms $gone" \
		>>"$IBPOST_OUT/serve-trickle.txt"
	if ((pm >= 0 && pm < 150)); then
		t_ok "one SEND every 3 ms: the connection thread used $pm per mille of a CPU (< 150)"
	else
		t_fail "one SEND every 3 ms: the connection thread used $pm per mille of a CPU (< 150)" "${gone:-it polls instead of sleeping}"
	fi
fi
rc=0
wait "$cpid" || rc=$?
echo 0 >"$FAULT"
t_check "the trickle job ended and the server got its $trickle_n messages (rc $rc)" \
	grep -q ": done: $trickle_n msgs, $((trickle_n * 64)) bytes" "$LOG_ANY"

# --- a flood of verified 4 MiB SENDs (issue 28, H1) --------------------------
# Each message's check reads 4 MiB.  It runs in the connection's thread
# (cond_resched() after each), not in the CQ's handler, which runs in a
# workqueue shared with every CQ of its vector: the thread's CPU time shows
# the checks, and a second client is served meanwhile.  12 s (check-long 60).
flood_s=12
[[ $(rig_arg long) == 1 ]] && flood_s=60
d0=$(dmesg | wc -l)
run --connect "$A4:$P_ANY" --op send --size 4M --depth 16 --verify \
	--duration "$flood_s" >"$IBPOST_OUT/serve-flood.txt" 2>&1 &
fpid=$!
conn_thread 'send size 4194304 ' 100
if [[ -z $pid ]]; then
	t_fail "the connection thread of the flood" "not found: $(tail -n 3 "$LOG_ANY" | tr '\n' ' ')"
else
	sleep 1
	cpu_start "$pid"
	# A second client meanwhile: 100 verified 4 KiB WRITEs.
	s0=$(date +%s%N)
	run --connect "$A4:$P_ANY" --op write --size 4K --verify -n 100 \
		>"$IBPOST_OUT/serve-flood-small.txt" 2>&1
	src=$?
	s1=$(date +%s%N)
	sleep 1
	cpu_pm "$pid"
	sms=$(((s1 - s0) / 1000000))
	echo "flood: thread ibpost-s$n used $pm per mille of a CPU; the small job took $sms ms (rc $src)" \
		>>"$IBPOST_OUT/serve-flood.txt"
	t_check "verified 4 MiB SENDs at depth 16: their checks run in the connection's thread ($pm per mille of a CPU, > 100)" \
		test "$pm" -gt 100
	t_check "a second client's 100 verified 4 KiB WRITEs were served meanwhile within 20 s ($sms ms, rc $src)" \
		test "$src" = 0 -a "$sms" -lt 20000
fi
rc=0
wait "$fpid" || rc=$?
done_line=$(grep "^conn ${n:-x}: done: " "$LOG_ANY")
t_check "the flood ended after ${flood_s} s, the server found every byte as sent (rc $rc): $done_line" \
	bash -c "test $rc = 0 && [[ '$done_line' == *' 0 verify errors' && '$done_line' != *': done: 0 msgs'* ]]"
t_check "no soft lockup, RCU stall or workqueue hog was reported meanwhile" \
	bash -c "! dmesg | tail -n +$((d0 + 1)) | grep -E 'soft lockup|rcu.*(stall|self-detected)|hogged CPU|BUG:'"

# --- serve --json: every line one valid JSON object, the events in order ----
LOG_JSON=$IBPOST_OUT/serve-json-$IBPOST_KERNEL.log
# stdout only: the tool's own words (serve: stopping) go to stderr.
"$IBPOST" serve --port $P_JSON --idle 3000 --allow 192.0.2.0/24 --json >"$LOG_JSON" 2>"$LOG_JSON.err" &
jpid=$!
for i in $(seq 50); do
	grep -q '"kind": *"listen"' "$LOG_JSON" && break
	sleep 0.1
done
run --connect "$A4:$P_JSON" --op write --size 4K --verify -n 20 >/dev/null 2>&1
run --connect "$B4:$P_JSON" --op write --size 4K -n 20 >/dev/null 2>&1
sleep 0.5
kill -INT "$jpid"
wait "$jpid" 2>/dev/null
why=$(python3 -c 'import json, sys
kinds = [json.loads(l)["kind"] for l in open(sys.argv[1]) if l.strip()]
want = ["listen", "connect", "job", "done", "refused"]
missing = [k for k in want if k not in kinds]
if missing or kinds[0] != "listen":
    print("kinds", kinds, "missing", missing)' "$LOG_JSON" 2>&1)
if [[ -z $why ]]; then
	t_ok "serve --json: every line parses; listen first, connect, job, done, refused"
else
	t_fail "serve --json: every line parses; listen first, connect, job, done, refused" "$why $(head -c 300 "$LOG_JSON")"
fi

for p in "${SPIDS[@]}"; do
	kill -INT "$p"
	wait "$p" 2>/dev/null
done
t_check "both servers stopped: no ibpost QP or MR left" \
	bash -c "! rdma resource show qp | grep -q 'comm \[ibpost' && ! rdma resource show mr | grep -q 'comm \[ibpost'"
cat "$LOG_ALLOW" "$LOG_ANY" >>"$IBPOST_OUT/serve-trickle.txt"
((loaded)) && { rmmod ibpost || t_fail "rmmod ibpost" "busy"; }
rdma link del rxe_d0
ip link del d0
t_done
