#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two-guest peer suite, server side (tools/tests/pair/peer.sh boots it through
# tools/rig/pair.sh): rxe0 on the wire, IPv4 and IPv6 addresses, ibpost
# loaded, `ibpost serve --idle 3000 --max-keep 0` (its lines in
# $IBPOST_OUT/serve.log), a limited serve (port 18521), one that keeps
# regions 30 s (18522) and one with every default (18523)
# and perftest's ib_write_bw / ib_send_bw -R servers for the bandwidth
# table, until the host creates $IBPOST_OUT/stop.  Meanwhile it acts on the
# client's marker job (a WRITE of 12347 bytes): it deletes rxe0 under it,
# then adds it back; on the client's marker regions (peer-blk.sh) it kills
# the limited serve (PEER_BLK_MARK bytes), disconnects queue 1 of a
# session (PEER_BLK_JOIN_MARK bytes: the serve_test_drop_join hook; on
# the keeping serve, PEER_BLK_KEEP_JOIN_MARK bytes, then again with its
# resume's join failed: serve_test_join_fail_ms) and
# deletes rxe0, then adds it
# back (PEER_BLK_DEL_MARK bytes), under the client's ibpost_blk I/O.  At
# the end it checks what the server saw and that nothing is left.  TAP in
# $IBPOST_OUT/peer-server.tap.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-bw.sh
. tools/tests/lib/peer-bw.sh

rig_pair_start peer-server
LOG=$IBPOST_OUT/serve.log
ip -6 addr add fd00:192::1/64 dev eth0 nodad

# It keeps no region (--max-keep 0): the rows of a region lost with its
# connections (peer_blk_drop, the session API's resume without a keep).
"$IBPOST" serve --idle 3000 --max-keep 0 >"$LOG" 2>&1 &
spid=$!
# Small limits on a second port (the client's budget rows).
LLOG=$IBPOST_OUT/serve-limited.log
"$IBPOST" serve --port 18521 --max-mem 100 --max-job-time 8000 --max-per-addr 2 \
	>"$LLOG" 2>&1 &
lpid=$!
# A serve that keeps a lost session's region (the client's resume rows).
KLOG=$IBPOST_OUT/serve-keep.log
"$IBPOST" serve --port 18522 --keep 30 --idle 3000 >"$KLOG" 2>&1 &
kpid=$!
# Every default but the port: idle 10 s, --max-keep 600 (peer_blk_cut20).
DLOG=$IBPOST_OUT/serve-default.log
"$IBPOST" serve --port 18523 >"$DLOG" 2>&1 &
dpid=$!
# Room for 3 connections, every other limit but idle at its default
# (peer_blk_full: a device's resume refused at its join while another
# address of the client holds the rest).
FLOG=$IBPOST_OUT/serve-full.log
"$IBPOST" serve --port 18524 --max-conns 3 --idle 3000 >"$FLOG" 2>&1 &
fpid=$!
touch "$IBPOST_OUT/ready"

# shellcheck source=tools/tests/lib/peer-blk.sh
. tools/tests/lib/peer-blk.sh
# shellcheck source=tools/tests/lib/hostile-lib.sh
. tools/tests/lib/hostile-lib.sh
# readd_rxe0 [WHAT]: rxe0 deleted under the client's I/O and added back
# 2 s later (events "deleted rxe0[ WHAT]", "added rxe0[ WHAT]").
# perftest's servers are stopped first and started again after: rxe cannot
# take a device away from a process that has it open (no disassociate), so
# they would block the deletion (the client's bench comes after both).
readd_rxe0() {
	perf_servers_stop
	rdma link del rxe0 && echo "deleted rxe0${1:+ $1}" >>"$IBPOST_OUT/events.log"
	sleep 2
	rdma link add rxe0 type rxe netdev eth0 && rig_wait_active rxe0 &&
		echo "added rxe0${1:+ $1}" >>"$IBPOST_OUT/events.log"
	perf_servers 1000
}
deleted=0 killed=0 blkdel=0 dropped=0 kdropped=0 jfailed=0 perf_pids=()
for _ in $(seq 3600); do
	[[ -e $IBPOST_OUT/stop ]] && break
	if ((!deleted)) && grep -q 'job write size 12347 ' "$LOG"; then
		sleep 2
		readd_rxe0
		deleted=1
	fi
	if ((!killed)) && grep -q "job write size $PEER_BLK_MARK " "$LLOG"; then
		sleep 3
		kill -KILL "$lpid" && echo "killed the limited serve" >>"$IBPOST_OUT/events.log"
		killed=1
	fi
	((dropped)) || ! peer_blk_serve_drop "$LOG" || dropped=1
	((kdropped)) || ! peer_blk_serve_drop_keep "$KLOG" || kdropped=1
	((jfailed)) || ! peer_blk_serve_join_fail "$KLOG" || jfailed=1
	if ((!blkdel)) && grep -q "job write size $PEER_BLK_DEL_MARK " "$LOG"; then
		sleep 3
		readd_rxe0 "under ibpost_blk"
		blkdel=1
	fi
	sleep 0.5
done
[[ -e $IBPOST_OUT/stop ]] || t_fail "told to stop" "no $IBPOST_OUT/stop in 30 min"
perf_servers_stop
kill -INT "$spid" "$kpid" "$dpid" "$fpid"
((killed)) || kill -INT "$lpid"
src=0
wait "$spid" || src=$?
wait "$lpid"
ksrc=0
wait "$kpid" || ksrc=$?
dsrc=0
wait "$dpid" || dsrc=$?
fsrc=0
wait "$fpid" || fsrc=$?
cat "$LOG" "$LLOG" "$KLOG" "$DLOG" "$FLOG"

if ((src == 0)) && grep -qx 'serve: stopping' "$LOG"; then
	t_ok "serve ends on SIGINT with status 0 and says so"
else
	t_fail "serve ends on SIGINT with status 0 and says so" "exit $src"
fi
t_check "it listened on every address, port 18520, clients from any" grep -qx 'serve: listening on \* port 18520, clients from any' "$LOG"
mib=$(( $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 / 8 ))
t_check "its default memory budget is an eighth of this guest's RAM ($mib MiB): $(grep 'serve: limits' "$LOG")" \
	grep -qx "serve: limits: 16 conns, 8 per address, $mib MiB pinned, 600000 ms a job, idle 3000 ms" "$LOG"
t_check "a job past the budget was refused, and the event says so" \
	grep -q 'refused: Cannot allocate memory: .*budget of pinned memory or MRs would be exceeded' "$LOG"
t_check "the keeping serve reports its keep time and stopped cleanly (exit $ksrc)" \
	bash -c "grep -qx 'serve: limits: .*, idle 3000 ms, keep up to 30 s' '$KLOG' && test $ksrc = 0"
t_check "the serve with every default keeps regions up to 600 s, and stopped cleanly (exit $dsrc): $(grep 'serve: limits' "$DLOG")" \
	bash -c "grep -qx 'serve: limits: 16 conns, 8 per address, $mib MiB pinned, 600000 ms a job, idle 10000 ms, keep up to 600 s' '$DLOG' && test $dsrc = 0"
# peer_blk_cut20: the device asked its ctrl_loss_tmo (600), was granted it,
# lost its connection to the 20 s cut, and took its region back.
t_check "the default serve granted the device's ask: $(grep -m 1 ': job .*, keep ' "$DLOG")" \
	grep -q '^conn [0-9]*: job write size .*, keep 600 s of 600 asked$' "$DLOG"
t_check "it kept that session for 600 s when the cut took it: $(grep -m 1 ': kept: ' "$DLOG")" \
	grep -q '^conn [0-9]*: kept: session [0-9]* for 600 s after: ' "$DLOG"
t_check "the device took it back: $(grep -m 1 ': resumed: ' "$DLOG")" \
	grep -q '^conn \([0-9]*\): resumed: session \1 (resume 1) from 192\.0\.2\.2 port [0-9]*$' "$DLOG"
t_check "the keeping serve granted 30 s of the 60 s a device asked (its --keep): $(grep -m 1 ': job .*, keep ' "$KLOG")" \
	grep -q '^conn [0-9]*: job write size .*, keep 30 s of 60 asked$' "$KLOG"
t_check "it kept the session lost without its fin: $(grep -m 1 ': kept: ' "$KLOG")" \
	grep -q '^conn [0-9]*: kept: session [0-9]* for 30 s after: Connection reset by peer: ' "$KLOG"
t_check "the client took it back: $(grep -m 1 ': resumed: ' "$KLOG")" \
	grep -q '^conn \([0-9]*\): resumed: session \1 (resume 1) from 192\.0\.2\.2 port [0-9]*$' "$KLOG"
# Told what a stranger is told: the region's absence, not the token's.
t_check "the first token, used again, was refused as a stranger's resume is (region lost)" \
	grep -q 'refused: Stale file handle: region lost' "$KLOG"
t_check "the session on the serve with --max-keep 0: its resume was refused, the region lost" \
	grep -q 'refused: Stale file handle: region lost' "$LOG"
t_check "the limited server reports its limits" \
	grep -qx 'serve: limits: 16 conns, 2 per address, 100 MiB pinned, 8000 ms a job, idle 10000 ms, keep up to 600 s' "$LLOG"
t_check "the limited server ended a job at its time limit" \
	grep -q "lost: Connection timed out: job longer than the server's job time limit" "$LLOG"
t_check "the limited server refused the third connection of one address" \
	grep -q 'refused: Device or resource busy: the server is at its connection limit for this address' "$LLOG"
n=$(grep -c ': done: ' "$LOG")
t_check "jobs served to the end (at least 12: $n)" test "$n" -ge 12
bad=$(grep ': done: ' "$LOG" | grep -vc ' 0 verify errors')
t_check "exactly one job had bytes that were not what the client sent (the corrupt one: $bad)" \
	test "$bad" -eq 1
t_check "a client speaking wire version 99 was refused at connect" \
	grep -q 'refused: Protocol error: wire protocol version not supported (value 99, limit 4)' "$LOG"
t_check "a job message of version 5 (the next) was refused" \
	grep -q 'refused: Protocol error: wire protocol version not supported (value 5, limit 4)' "$LOG"
t_check "an SGE past the slot was refused" \
	grep -q 'refused: Invalid argument: .*SGE outside its buffer' "$LOG"
t_check "the stale rkey broke that connection only (lost with an error)" \
	grep -q 'lost: .*wc status' "$LOG"
# The killed guest's job was the first of 64 KiB (its phase comes before
# the main client's); pair.sh says whether that guest ran before the kill.
kconn=$(sed -n 's/^conn \([0-9]*\): job write size 65536 .*/\1/p' "$LOG" | head -n 1)
kline=$(grep -m 1 "^conn ${kconn:-none}: lost: " "$LOG")
if [[ $(cat "$IBPOST_OUT/client-killed" 2>/dev/null) == ran ]] &&
	[[ $kline =~ ^conn\ [0-9]+:\ lost:\ (Connection\ timed\ out|.*RETRY_EXC_ERR|Connection\ reset\ by\ peer) ]]; then
	t_ok "the killed client guest was noticed (its connection lost within the idle time): $kline"
else
	t_fail "the killed client guest was noticed (its connection lost within the idle time)" \
		"the guest $(cat "$IBPOST_OUT/client-killed" 2>/dev/null || echo '(no word from pair.sh)'), its job's conn ${kconn:-none}: ${kline:-no lost line}"
fi
t_check "the limited serve was killed under the client's ibpost_blk I/O" \
	grep -qx 'killed the limited serve' "$IBPOST_OUT/events.log"
peer_blk_serve_dropped
peer_blk_serve_kept_drop "$KLOG"
t_check "the serve of 3 connections reports its limits and stopped cleanly (exit $fsrc)" \
	bash -c "grep -qx 'serve: limits: 3 conns, 3 per address, $mib MiB pinned, 600000 ms a job, idle 3000 ms, keep up to 600 s' '$FLOG' && test $fsrc = 0"
# The client's peer_blk_full: make check-long only.
[[ $(rig_arg long) == 1 ]] && peer_blk_serve_full "$FLOG"
# The dropped join is freed by its session's thread at once, not at the
# session's end: its own IBPOST_SRV_LOST event (a session's teardown says
# nothing of each join).
# The first hook line: the keeping serve's drop (peer_blk_drop_keep)
# comes after.
jc=$(dmesg | sed -n 's/.*its joined connection 1 (conn \([0-9]*\)) disconnected.*/\1/p' | head -n 1)
t_check "the dropped join (conn ${jc:-?}) was released at once: $(grep -m 1 "^conn ${jc:-x}: lost: " "$LOG")" \
	grep -q "^conn ${jc:-x}: lost: Transport endpoint is not connected: " "$LOG"
t_check "rxe0 was deleted under the client's ibpost_blk I/O and came back" \
	grep -qx 'added rxe0 under ibpost_blk' "$IBPOST_OUT/events.log"
# Each asked its ctrl_loss_tmo (600 s) kept; this serve has --max-keep 0.
t_check "ibpost_blk's devices got regions of the server's memory in 1 MiB chunks (64 MiB: 64 chunks), no keep granted" \
	grep -q 'job write size 4194304 depth [0-9]* slots 64, keep 0 s of 600 asked$' "$LOG"
# The 64 MiB device has 2 queues: its session's second connection joined.
s64=$(sed -n 's/^conn \([0-9]*\): job write size 4194304 depth [0-9]* slots 64, keep 0 s of 600 asked$/\1/p' "$LOG" | head -n 1)
# Its unmap is its normal end: the fin, not a lost connection (the
# region freed at once, kept or not).
t_check "the 2-queue device's unmap ended its session ${s64:-?} with the fin: $(grep -m 1 "^conn ${s64:-x}: \(done\|lost\|kept\): " "$LOG")" \
	grep -q "^conn ${s64:-x}: done: " "$LOG"
t_check "the 2-queue device's session ${s64:-?} had 2 connections on the server: $(grep -m 1 "joined session ${s64:-x} " "$LOG")" \
	bash -c "grep -q '^conn [0-9]*: joined session ${s64:-x} (2 connections) from ' '$LOG' &&
		! grep -q 'joined session ${s64:-x} (3 connections)' '$LOG'"
t_check "rxe0 was deleted under a job and came back" \
	grep -qx 'added rxe0' "$IBPOST_OUT/events.log"
t_check "the job on the deleted device was reported lost" \
	grep -q 'lost: No such device' "$LOG"
t_check "the in-kernel API's sessions got one region of 1 MiB each, IPv4 and IPv6, and ended normally" \
	bash -c "test \$(grep -c 'job write size 1048576 depth 64 slots 1\$' '$LOG') -eq 2"
t_check "two clients were served at once" \
	bash -c "grep -o 'conn [0-9]*: job' '$LOG' | wc -l | awk '{exit !(\$1 >= 2)}'"

hostile_join_race fd00:192::1 "$IBPOST_OUT/serve-race.log"
rig_pair_end
t_done
