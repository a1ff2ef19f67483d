#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of ibpost's observability (run by guest-check.sh on the
# stock kernel, which has tracefs; Documentation/observability.rst): with
# every event of events/ibpost/ enabled, on rxe over a dummy netdev
# (rxe_d0, 192.0.2.9):
#   - a loopback WRITE job: job_start names the QPs the tool reports
#     (JSON qpn, target_qpn); the job's posted chains add up to its WRs and
#     bytes; job_end has them too; the target's registration and
#     invalidation are on its QP;
#   - a refused job (an SGE past the slot): ibpost_refuse names WR 0, SGE 1,
#     the value and the limit;
#   - a session of ibpost_consumer (hold=1): its LIVE and DEAD events, and
#     `rdma resource` names the consumer for its QPs and MRs;
#   - against `ibpost serve` here: connect, a refused hello (the server's
#     REFUSED event with value and limit), and a job given a stale rkey: an
#     ibpost_wc event REM_ACCESS_ERR on the QP the tool names, the server's
#     connection LOST, and exactly one kernel log line for it, with the
#     status text and that QP.
# Then, tracing off, perftest's spellings of issue 29 on the same device:
#   - -R: the loopback pair through rdma_cm to an address of d0 (the header
#     names it); -x N HOST and -R HOST against `ibpost serve` run (the note);
#   - --cpu-util: the JSON figures plausible (above 0, at most 100 % per
#     CPU, CPU-s/GiB above 0, the process's share within the busy time) and
#     the text line; -b: two QP pairs, the total both directions;
#   - --cpu-util against `ibpost serve --cpu-record`: the server's figures
#     come back (its CPUs, busy time within its window times them, its
#     thread's within the window, CPU-s/GiB above 0) in JSON and the text
#     line; against a serve without --cpu-record (the default) the job is
#     refused: exit 1 and the line naming SRV_CPU (issue 42), the server's
#     log has its refusal;
#   - --out_json_file: perftest's keys, valid JSON, the figures of the run;
#   - a threshold missed (--min-bw, --max-lat-p50): exit 3, the line on
#     stderr, the rows printed; thresholds met: exit 0.
# TAP on stdout and in $IBPOST_OUT/trace-$IBPOST_KERNEL.tap; its time in
# $IBPOST_OUT/trace-time-$IBPOST_KERNEL.txt.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" trace
t0=$SECONDS
A4=192.0.2.9 PORT=18541
# The server refuses hello version 99 with its own version as the limit.
WIRE_VERSION=$(awk '/^#define IBPOST_WIRE_VERSION/ { print $3 }' module/lib/wire.h)
SLOT_MAX=$((4 << 20))	# IBPOST_SLOT_MAX
FAULT=/sys/module/ibpost/parameters/peer_fault
TMP=$(mktemp -d)

rig_load_rxe && rig_modprobe rdma_cm || { t_fail "load rxe" "modules"; t_done; exit 1; }
made_link=0
if ! rdma link show rxe_d0/1 >/dev/null 2>&1; then
	rig_rxe_dummy rxe_d0 "$A4/24" || { t_fail "rxe_d0 on d0" "link add"; t_done; exit 1; }
	made_link=1
fi
# A fresh module: its rate limit of error completion lines starts full.
grep -q '^ibpost ' /proc/modules && rmmod ibpost 2>/dev/null
loaded=0
if ! grep -q '^ibpost ' /proc/modules; then
	insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
	loaded=1
fi

T=$(rig_tracefs)
if [[ ! -d $T/events/ibpost ]]; then
	t_fail "tracefs has events/ibpost" "in $T"
	t_done
	exit 1
fi
echo 0 >$T/tracing_on
echo >$T/trace
echo 1 >$T/events/ibpost/enable
echo 1 >$T/tracing_on
nev=0
for d in "$T"/events/ibpost/*/; do
	[[ -e $d/enable ]] && nev=$((nev + 1))
done
t_ok "events/ibpost enabled: $nev events"

# snap: copy the trace buffer (a read of tracefs took about a second in
# the TCG guest: once per step).  ev NAME: the copy's lines of event NAME, "key=value ..." after
# its name.
snap() { cat $T/trace >"$TMP/trace"; }
ev() { sed -n "s/.* $1: //p" "$TMP/trace"; }
# val KEY: the value of KEY= in each line of stdin.
val() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }
hex() { printf '0x%x' "$1"; }

run() { timeout 60 "$IBPOST" run --dev rxe_d0 "$@"; }

# --- a loopback job and a refused one (then one copy of the trace) --------
N=40 SIZE=4096
out=$(run --op write --size $SIZE -n $N --warmup 0 --depth 8 --batch 4 --json 2>&1)
rc=$?
run --op write --sge-layout "256@0,256@$SLOT_MAX" -n 10 >/dev/null 2>&1
snap
qpn=$(grep -o '"qpn": [0-9]*' <<<"$out" | head -n 1 | awk '{ print $2 }')
tqpn=$(grep -o '"target_qpn": [0-9]*' <<<"$out" | head -n 1 | awk '{ print $2 }')
if ((rc == 0)) && [[ -n $qpn && -n $tqpn && $qpn != 0 && $tqpn != 0 ]]; then
	t_ok "loopback job: the tool reports its QPs (qpn $qpn, target $tqpn)"
else
	t_fail "loopback job: the tool reports its QPs" "rc $rc: $(head -c 300 <<<"$out")"
	qpn=0 tqpn=0
fi
Q=$(hex "$qpn") TQ=$(hex "$tqpn")
start=$(ev ibpost_job_start | grep " qpn=$Q ")
if [[ $(wc -l <<<"$start") == 1 ]] && grep -q "tgt_qpn=$TQ .*msg_size=$SIZE .*iters=$N\$" <<<"$start"; then
	t_ok "job_start: qpn $Q, tgt_qpn $TQ, msg_size, iters"
else
	t_fail "job_start: qpn $Q, tgt_qpn $TQ, msg_size, iters" "$(ev ibpost_job_start | head -n 3 | tr '\n' ' ')"
fi
posts=$(ev ibpost_post | grep "^qpn=$Q ")
wrs=$(val wrs <<<"$posts" | awk '{ s += $1 } END { print s + 0 }')
bytes=$(val bytes <<<"$posts" | awk '{ s += $1 } END { print s + 0 }')
bad=$(grep -vc 'ret=0$' <<<"$posts")
if ((wrs == N && bytes == N * SIZE && bad == 0)); then
	t_ok "post: $(wc -l <<<"$posts") chains on $Q add up to $N WRs, $((N * SIZE)) bytes, all taken"
else
	t_fail "post: the chains on $Q add up to $N WRs, $((N * SIZE)) bytes" "wrs $wrs bytes $bytes failed $bad"
fi
if ev ibpost_job_end | grep -q "^qpn=$Q err=0 reason=0 wrs=$N bytes=$((N * SIZE)) wc_errors=0 "; then
	t_ok "job_end: qpn $Q, err 0, $N WRs, $((N * SIZE)) bytes"
else
	t_fail "job_end: qpn $Q, err 0, $N WRs, $((N * SIZE)) bytes" "$(ev ibpost_job_end | head -n 2 | tr '\n' ' ')"
fi
if ev ibpost_reg | grep -q "^qpn=$TQ mrs=[1-9][0-9]* access=0x[0-9a-f]* ret=0" &&
	ev ibpost_inval | grep -q "^qpn=$TQ mrs=[1-9][0-9]* access=0x0 ret=0"; then
	t_ok "reg and inval: the target's MRs on $TQ"
else
	t_fail "reg and inval: the target's MRs on $TQ" "$(ev ibpost_reg | head -n 2 | tr '\n' ' ') / $(ev ibpost_inval | head -n 2 | tr '\n' ' ')"
fi
want="err=-22 reason=[0-9]* wr=0 sge=1 value=$((SLOT_MAX + 256)) limit=$SLOT_MAX text=\"SGE outside its buffer\""
if ev ibpost_refuse | grep -qx "$want"; then
	t_ok "refuse: an SGE past the slot names WR 0, SGE 1, value and limit"
else
	t_fail "refuse: an SGE past the slot names WR 0, SGE 1, value and limit" "$(ev ibpost_refuse | tail -n 2 | tr '\n' ' ')"
fi

# --- a consumer's session ----------------------------------------------------
if insmod "$CONS" dev=rxe_d0 autorun=0 hold=1; then
	cq=$(rdma resource show qp | sed -n 's/.*lqpn \([0-9]*\) .*comm \[ibpost_consumer\].*/\1/p')
	if rdma resource show mr | grep -q 'comm \[ibpost_consumer\]'; then
		t_ok "rdma resource show mr: the session's registration is ibpost_consumer's"
	else
		t_fail "rdma resource show mr: the session's registration is ibpost_consumer's" "$(rdma resource show mr | head -n 3 | tr '\n' ' ')"
	fi
	rmmod ibpost_consumer
	snap
	live=$(ev ibpost_session | grep 'owner=ibpost_consumer .*state=LIVE' | tail -n 1)
	sq=$(val qpn <<<"$live")
	if [[ -n $sq ]] && grep -qx "$((sq))" <<<"$cq"; then
		t_ok "rdma resource show qp: the session's QP $sq (its LIVE event) is ibpost_consumer's"
	else
		t_fail "rdma resource show qp: the session's QP is ibpost_consumer's" "event: $live; ibpost_consumer's QPs: $(tr '\n' ' ' <<<"$cq")"
	fi
	if ev ibpost_session | grep -q "owner=ibpost_consumer qpn=$sq state=DEAD err=-125"; then
		t_ok "session: LIVE, then DEAD (-ECANCELED) at close, on QP $sq"
	else
		t_fail "session: LIVE, then DEAD (-ECANCELED) at close" "$(ev ibpost_session | tail -n 3 | tr '\n' ' ')"
	fi
else
	t_fail "ibpost_consumer hold=1 on rxe_d0" "insmod $CONS"
fi

# --- against ibpost serve here: a job, a refused hello, a stale rkey --------
"$IBPOST" serve --port $PORT --idle 3000 >"$TMP/serve.log" 2>&1 &
spid=$!
for _ in $(seq 50); do
	grep -q listening "$TMP/serve.log" && break
	sleep 0.1
done
# The stale-rkey fault uses the rkey of the last job served.
run --connect "$A4:$PORT" --op write --size 4K -n 10 >/dev/null 2>&1
echo 1 >$FAULT
run --connect "$A4:$PORT" --op write --size 4K -n 10 >/dev/null 2>&1
seen=$(dmesg | wc -l)
echo 4 >$FAULT
out=$(run --connect "$A4:$PORT" --op write --size 4K -n 10 2>&1)
snap
# The client's source is one of d0's addresses: 192.0.2.9, or the primary
# an earlier script of the guest left on d0 (session.sh: 192.0.2.13).
addrs=$(ip -4 -o addr show dev d0 | awk '{ sub("/.*", "", $4); print $4 }')
src=$(sed 's/\./\\./g' <<<"$addrs" | paste -sd'|')
if ev ibpost_srv | grep -Eq "^kind=CONNECT conn=[1-9][0-9]* peer=::ffff:($src) " &&
	ev ibpost_srv | grep -q '^kind=DONE '; then
	t_ok "srv: CONNECT from an address of d0 ($(paste -sd' ' <<<"$addrs")), DONE"
else
	t_fail "srv: CONNECT from an address of d0 ($(paste -sd' ' <<<"$addrs")), DONE" "$(ev ibpost_srv | head -n 4 | tr '\n' ' ')"
fi
if ev ibpost_srv | grep -q "^kind=REFUSED .*value=99 limit=$WIRE_VERSION "; then
	t_ok "srv: a hello of version 99 REFUSED with value and limit"
else
	t_fail "srv: a hello of version 99 REFUSED with value and limit" "$(ev ibpost_srv | tail -n 3 | tr '\n' ' ')"
fi
eq=$(grep -o 'first error completion: REM_ACCESS_ERR.*qpn 0x[0-9a-f]*' <<<"$out" | sed 's/.*qpn //')
if [[ -n $eq ]] && ev ibpost_wc | grep -q "^qpn=$eq status=REM_ACCESS_ERR vendor_err=0x[0-9a-f]* opcode=[0-9]* counted=1$"; then
	t_ok "wc: REM_ACCESS_ERR on the QP the tool names ($eq)"
else
	t_fail "wc: REM_ACCESS_ERR on the QP the tool names" "tool: $(grep 'error completion' <<<"$out" | head -n 1); trace: $(ev ibpost_wc | head -n 2 | tr '\n' ' ')"
fi
if ev ibpost_srv | grep -q '^kind=LOST .*err=-5 '; then
	t_ok "srv: the stale-rkey connection LOST (-EIO)"
else
	t_fail "srv: the stale-rkey connection LOST (-EIO)" "$(ev ibpost_srv | tail -n 3 | tr '\n' ' ')"
fi
logs=$(dmesg | tail -n +$((seen + 1)) | grep 'ibpost: .*error completion')
if [[ $(wc -l <<<"$logs") == 1 ]] && grep -q "QP ${eq:-none} (ibpost): error completion: remote access error (status 10, vendor error 0x" <<<"$logs"; then
	t_ok "one kernel log line for the error completion: status text, QP, vendor error"
else
	t_fail "one kernel log line for the error completion" "$(tr '\n' '|' <<<"$logs")"
fi
kill -INT $spid 2>/dev/null
wait $spid 2>/dev/null
echo 0 >$FAULT

echo 0 >$T/events/ibpost/enable
cp "$TMP/trace" "$IBPOST_OUT/trace-events-$IBPOST_KERNEL.txt"
echo >$T/trace

# --- perftest's spellings (issue 29), tracing off ------------------------------
# -R on the loopback pair: --cm with d0's first address.
out=$(run -R --op write --size 4K -n 200 2>&1)
rc=$?
if ((rc == 0)) && grep -Eq "^# -R: the loopback pair connects through rdma_cm to ($src)\$" <<<"$out"; then
	t_ok "-R: the loopback pair through rdma_cm to $(sed -n 's/^# -R: .* to //p' <<<"$out") (d0's)"
else
	t_fail "-R: the loopback pair through rdma_cm to an address of d0" "rc $rc: $(head -n 3 <<<"$out" | tr '\n' ' ')"
fi
# --cpu-util: one point of 1 s (ticks are 10 ms), JSON.
out=$(run --op write --size 64K -D 1 --cpu-util --json 2>&1)
rc=$?
why=$(python3 -c '
import json, os, sys
c = json.loads(sys.stdin.read())["results"][0]["cpu"]
n = os.cpu_count()
bad = []
if c["ncpus"] != n: bad.append("ncpus %s, not %d" % (c["ncpus"], n))
if not 0 < c["pct"] <= 100 * n: bad.append("pct %s" % c["pct"])
if not c["s_per_gib"] > 0: bad.append("s_per_gib %s" % c["s_per_gib"])
if not 0 < c["busy_s"] <= c["wall_s"] * n + 0.01: bad.append("busy_s %s of wall_s %s" % (c["busy_s"], c["wall_s"]))
# the process time is exact, idle time too on a tickless kernel: 10 % slack
if not 0 <= c["process_s"] <= c["busy_s"] * 1.1 + 0.05: bad.append("process_s %s" % c["process_s"])
if c["server"] is not None: bad.append("server %s" % c["server"])
print("; ".join(bad + [str(c)]) if bad else "pct %.1f, %.3f CPU-s/GiB, process %.2f of %.2f s" % (c["pct"], c["s_per_gib"], c["process_s"], c["busy_s"]))
' <<<"$out" 2>&1)
if ((rc == 0)) && [[ $why == pct* ]]; then
	t_ok "--cpu-util: plausible ($why; $(nproc) CPUs)"
else
	t_fail "--cpu-util: plausible" "rc $rc: $why: $(head -c 200 <<<"$out")"
fi
# -b: a QP pair each way, the total is both.
out=$(run -b --op write --size 4K -n 100 --json 2>&1)
rc=$?
why=$(python3 -c '
import json, sys
p = json.loads(sys.stdin.read())["results"][0]
q, t = p["qps"], p["total"]
print("ok" if len(q) == 2 and t["qps_ok"] == 2 and t["iters"] == 200 and t["total_bytes"] == 200 * 4096
      else "qps %d, total %s" % (len(q), t))' <<<"$out" 2>&1)
if ((rc == 0)) && [[ $why == ok ]]; then
	t_ok "-b: two QP pairs, one each way; the total is 200 WRs (both)"
else
	t_fail "-b: two QP pairs, the total both" "rc $rc: $why"
fi
# --out_json_file: perftest's keys.
out=$(run --op write --size 4096 -n 100 --out_json --out_json_file "$TMP/p.json" --cpu_util 2>&1)
rc=$?
why=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
i, r = d["test_info"], d["results"]
bad = [k for k in ("test", "Device", "Number_of_qps", "TX_depth", "CQ_Moderation", "Mtu", "Link_type", "Max_inline_data", "rdma_cm_QPs") if k not in i]
if i.get("Device") != "rxe_d0" or i.get("test") != "RDMA_Write BW Test": bad.append("test_info %s" % i)
if r.get("MsgSize") != 4096 or r.get("n_iterations") != 100: bad.append("results %s" % r)
if not r.get("BW_average", 0) > 0 or not r.get("MsgRate", 0) > 0 or not r.get("t_typical", 0) > 0: bad.append("figures %s" % r)
if not 0 < r.get("CPU_util", 0) <= 100: bad.append("CPU_util %s" % r.get("CPU_util"))
print("; ".join(bad + [str(d)]) if bad else "BW_average %s MiB/s, CPU_util %s %%" % (r["BW_average"], r["CPU_util"]))
' "$TMP/p.json" 2>&1)
if ((rc == 0)) && [[ $why == BW_average* ]]; then
	t_ok "--out_json_file: perftest's keys, valid JSON ($why)"
else
	t_fail "--out_json_file: perftest's keys, valid JSON" "rc $rc: $why"
fi
# Thresholds: missed (exit 3, a line each, the rows printed), met (0).
out=$(run --op write --size 4K -n 200 --min-bw 1000000 --max-lat-p50 0.001 2>"$TMP/err")
rc=$?
if ((rc == 3)) && grep -Eq '^4096 +1 +200 ' <<<"$out" &&
	grep -Eq '^ibpost: run: threshold missed: 4096 bytes, 1 sge: bandwidth [0-9.e+]+ MiB/s below --min-bw 1e\+06$' "$TMP/err" &&
	grep -Eq '^ibpost: run: threshold missed: 4096 bytes, 1 sge: median latency [0-9.e+]+ us above --max-lat-p50 0.001$' "$TMP/err"; then
	t_ok "thresholds missed: exit 3, the rows printed, one line per miss"
else
	t_fail "thresholds missed: exit 3, the rows printed, one line per miss" "rc $rc: $(tr '\n' '|' <"$TMP/err") $(tail -n 1 <<<"$out")"
fi
out=$(run --op write --size 4K -n 200 -w 0.001 -y 0.000001 --max-lat-p99 100000000 --cpu_util 2>&1)
rc=$?
if ((rc == 0)) && ! grep -q 'threshold' <<<"$out"; then
	t_ok "thresholds met: exit 0"
else
	t_fail "thresholds met: exit 0" "rc $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
fi
if grep -Eq '^# cpu: [0-9.]+% \([0-9]+ CPUs\), [0-9.]+ CPU-s/GiB; process [0-9.]+ of [0-9.]+ CPU-s; server: n/a$' <<<"$out"; then
	t_ok "--cpu_util: the text line after the row"
else
	t_fail "--cpu_util: the text line after the row" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
# Against a server: -x N HOST (accepted, not used) and -R HOST (a no-op).
# It gives its CPU time (--cpu-record) for the --cpu-util rows below.
"$IBPOST" serve --port $((PORT + 1)) --idle 3000 --cpu-record >"$TMP/serve2.log" 2>&1 &
spid=$!
for _ in $(seq 50); do
	grep -q "cpu record" "$TMP/serve2.log" && break
	sleep 0.1
done
out=$(run -x 0 -R -p $((PORT + 1)) --op write --size 4K -n 20 $A4 2>&1)
rc=$?
if ((rc == 0)) && grep -Fxq "ibpost: run: note: -x 0 is not used: through rdma_cm (--connect) the source GID is the one of the address" <<<"$out" &&
	grep -q "^# measures: peer $A4 port $((PORT + 1))" <<<"$out"; then
	t_ok "perftest -x 0 -R HOST: runs against the server, -x noted as unused"
else
	t_fail "perftest -x 0 -R HOST: runs against the server" "rc $rc: $(head -n 3 <<<"$out" | tr '\n' ' ')"
fi
# --cpu-util against the server: its figures over its window of the job.
out=$(run -R -p $((PORT + 1)) --op write --size 64K -D 1 --cpu-util --json $A4 2>&1)
rc=$?
why=$(python3 -c '
import json, os, sys
c = json.loads(sys.stdin.read())["results"][0]["cpu"]
s, n = c["server"], os.cpu_count()
bad = []
if s is None: bad.append("no server figures")
else:
    if s["ncpus"] != n: bad.append("ncpus %s, not %d" % (s["ncpus"], n))
    if not 0.5 <= s["wall_s"] <= 10: bad.append("wall_s %s for a 1 s job" % s["wall_s"])
    if not 0 < s["busy_s"] <= s["wall_s"] * n + 0.001: bad.append("busy_s %s" % s["busy_s"])
    if not 0 <= s["thread_s"] <= s["wall_s"] + 0.001: bad.append("thread_s %s" % s["thread_s"])
    if not 0 < s["pct"] <= 100 * n: bad.append("pct %s" % s["pct"])
    if not s["s_per_gib"] > 0: bad.append("s_per_gib %s" % s["s_per_gib"])
print("; ".join(bad + [str(c)]) if bad else "server %.1f %%, %.3f CPU-s/GiB, thread %.3f of %.3f s in %.2f s" % (s["pct"], s["s_per_gib"], s["thread_s"], s["busy_s"], s["wall_s"]))
' <<<"$out" 2>&1)
if ((rc == 0)) && [[ $why == server* ]]; then
	t_ok "--cpu-util --connect: the server's figures plausible ($why)"
else
	t_fail "--cpu-util --connect: the server's figures plausible" "rc $rc: $why: $(head -c 200 <<<"$out")"
fi
out=$(run -R -p $((PORT + 1)) --op send --size 4K -n 500 --cpu_util $A4 2>&1)
rc=$?
if ((rc == 0)) && grep -Eq '^# cpu: [0-9.]+% \([0-9]+ CPUs\), [0-9.]+ CPU-s/GiB; process [0-9.]+ of [0-9.]+ CPU-s; server: [0-9.]+% \('"$(nproc)"' CPUs\), [0-9.]+ CPU-s/GiB; thread [0-9.]+ of [0-9.]+ CPU-s$' <<<"$out"; then
	t_ok "--cpu_util --connect: the server's part of the text line"
else
	t_fail "--cpu_util --connect: the server's part of the text line" "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
kill -INT $spid 2>/dev/null
wait $spid 2>/dev/null
# A server without --cpu-record (the default) refuses to give its CPU
# time: the client's line names the reason, the server logs the refusal.
IBPOST_SERVE_STAMP=0 "$IBPOST" serve --port $((PORT + 2)) --idle 3000 >"$TMP/serve3.log" 2>&1 &
spid=$!
for _ in $(seq 50); do
	grep -q "^serve: limits: " "$TMP/serve3.log" && break
	sleep 0.1
done
out=$(run -R -p $((PORT + 2)) --op write --size 4K -n 100 --cpu-util $A4 2>&1)
rc=$?
# the server's line comes when the tool there has read its event
for _ in $(seq 50); do
	grep -q "^conn 1: refused" "$TMP/serve3.log" && break
	sleep 0.1
done
want="ibpost: run refused by the peer (conn 1): Permission denied: the server does not give its CPU time (ibpost serve --cpu-record)"
if ((rc == 1)) && grep -Fxq "$want" <<<"$out" &&
	! grep -q "cpu record" "$TMP/serve3.log" &&
	grep -Fxq "conn 1: refused: Permission denied: the server does not give its CPU time (ibpost serve --cpu-record)" "$TMP/serve3.log"; then
	t_ok "--cpu-util --connect to a serve without --cpu-record: refused, exit 1, the reason"
else
	t_fail "--cpu-util --connect to a serve without --cpu-record: refused, exit 1, the reason" "rc $rc: $(head -n 3 <<<"$out" | tr '\n' ' '); serve: $(tr '\n' ' ' <"$TMP/serve3.log")"
fi
# The same server runs a job that does not ask.
out=$(run -R -p $((PORT + 2)) --op write --size 4K -n 100 $A4 2>&1)
rc=$?
if ((rc == 0)); then
	t_ok "a serve without --cpu-record runs a job without --cpu-util"
else
	t_fail "a serve without --cpu-record runs a job without --cpu-util" "rc $rc: $(head -n 3 <<<"$out" | tr '\n' ' ')"
fi
kill -INT $spid 2>/dev/null
wait $spid 2>/dev/null
((loaded)) && { rmmod ibpost || t_fail "rmmod ibpost" "busy"; }
if ((made_link)); then
	rdma link del rxe_d0
	ip link del d0
fi
rm -rf "$TMP"
echo "trace.sh: $((SECONDS - t0)) s" >"$IBPOST_OUT/trace-time-$IBPOST_KERNEL.txt"
t_done
