#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two-guest peer suite, client side (tools/tests/pair/peer.sh boots it through
# tools/rig/pair.sh, against tools/tests/pair/peer-server.sh).
#   rig.phase=kill: start a long job, create $IBPOST_OUT/running and wait to
#     be killed with the guest (the server must notice and go on).
#   rig.phase=main: every opcode with multi-SGE layouts and verification
#     (data both ways: WRITE/SEND to the server, READ from it), inline and
#     chains, IPv6, two clients at once, -q 4, sessions of the in-kernel API
#     (the consumer module) on the server's memory (one chunk, and a region
#     of several chunks by offset), ibpost_blk on the server's memory
#     (peer-blk.sh), the malformed-peer faults of
#     the peer_fault test hook, resolution and connection timeouts, the
#     server's device deleted mid-job, the hostile battery
#     (hostile-battery.c), and the bandwidth table beside
#     ib_write_bw / ib_send_bw -R between the same guests
#     ($IBPOST_OUT/peer-bench.txt).
# TAP on stdout and in $IBPOST_OUT/peer-client.tap.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-bw.sh
. tools/tests/lib/peer-bw.sh
# shellcheck source=tools/tests/lib/hostile-lib.sh
. tools/tests/lib/hostile-lib.sh
# shellcheck source=tools/tests/lib/peer-blk.sh
. tools/tests/lib/peer-blk.sh

rig_pair_start peer-client
phase=$(rig_arg phase)
S=$(rig_arg peer)
S6='[fd00:192::1]'
FAULT=/sys/module/ibpost/parameters/peer_fault
ip -6 addr add fd00:192::2/64 dev eth0 nodad

run() { timeout 300 "$IBPOST" run --dev rxe0 "$@"; }

# The server starts serving some time after its guest boots.
wait_server() {
	local i
	for i in $(seq 150); do
		run --connect "$S" --op write --size 4K -n 10 >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

if [[ $phase == kill ]]; then
	wait_server || exit 1
	run --connect "$S" --op write --size 64K --duration 600 >/dev/null 2>&1 &
	sleep 3
	touch "$IBPOST_OUT/running"
	wait
	exit 1	# not reached: the host kills this guest
fi

t_check "the server answers" wait_server
# The killed guest's connections had this guest's QP numbers (rxe hands
# them out in order from boot): the server's CM keeps the dead one's
# (remote QPN, CA GUID) until its disconnect times out, and rejects a new
# REQ with the same pair as a stale connection (ECONNREFUSED, nothing in
# serve's log; seen once in make check).  Loopback jobs move this
# guest's QP numbers past the ones the killed guest used.
for _ in $(seq 32); do
	run --op write --size 4K -n 1 >/dev/null 2>&1 || true
done

# peer.sh --rows: just those ibpost_blk rows, then the end.
if rows=$(rig_arg rows); then
	peer_blk_rows "$S" "${rows//,/ }"
	rig_pair_end here
	t_done
	exit
fi

# json_get JSON EXPR: a value of the first result (python3 expression on r).
json_get() {
	python3 -c 'import json,sys; r=json.loads(sys.argv[1])["results"][0]; print(eval(sys.argv[2]))' "$1" "$2"
}

# peer_job NAME WANT_MSGS ARGS...: a verified job against the server; WANT_MSGS
# is what the server must have checked ("-": nothing to check there).
peer_job() {
	local name=$1 want=$2 out rc=0 msgs
	shift 2
	out=$(run --connect "$S" --verify --json "$@" 2>&1) || rc=$?
	if ((rc)); then
		t_fail "$name" "exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
		return
	fi
	msgs=$(json_get "$out" 'r["peer_msgs"]' 2>/dev/null)
	if [[ $want != - && $msgs != "$want" ]]; then
		t_fail "$name" "server checked $msgs messages, want $want"
		return
	fi
	t_ok "$name (server checked ${msgs:-?})"
}

# 16 warm-up WRs + 200 measured: each received message is checked there;
# a WRITE's last write to each of its 64 slots is checked at the fin.
for op in send send_imm write_imm; do
	imm=(); [[ $op == *imm ]] && imm=(--imm 0x1234)
	peer_job "$op, 4 page-crossing SGEs, 64K, verified by the server" 216 \
		--op "$op" "${imm[@]}" --size 64K --sge 4 --layout page-cross -n 200
done
peer_job "write, 4 page-crossing SGEs, 64K, last write of every slot verified by the server" 64 \
	--op write --size 64K --sge 4 --layout page-cross -n 200
peer_job "read, 4 unaligned SGEs, 64K, the server's stamps verified here" 0 \
	--op read --size 64K --sge 4 --layout unaligned -n 200
peer_job "write with the seed's layout 256@0,512@1024,128@2048" 64 \
	--op write --sge-layout 256@0,512@1024,128@2048 -n 100
peer_job "send with the seed's layout, received into 2 SGEs" 116 \
	--op send --sge-layout 256@0,512@1024,128@2048 --recv-sge 2 -n 100
peer_job "read with a random layout of 8 SGEs" 0 \
	--op read --size 16K --sge 8 --layout random --seed 7 -n 100
peer_job "inline 64 B writes, chains of 8, signaled every 4" 64 \
	--op write --size 64 --inline --batch 8 --signal-every 4 -n 1000
peer_job "send_imm chains of 4, one signaled in 8" 516 \
	--op send_imm --imm 7 --size 4K --sge 2 --batch 4 --signal-every 8 -n 500

out=$(run --connect "$S6" --op send --size 16K --sge 3 --verify --json -n 100 2>&1)
t_check "IPv6: send to $S6, verified" \
	test "$(json_get "$out" 'r["peer_msgs"]' 2>/dev/null)" = 116

# Two clients at once.
run --connect "$S" --op write --size 64K --duration 4 --verify >/dev/null 2>"$IBPOST_OUT/two-a.err" &
a=$!
run --connect "$S" --op send --size 16K --duration 4 --verify >/dev/null 2>"$IBPOST_OUT/two-b.err" &
b=$!
rc=0; wait "$a" || rc=1; wait "$b" || rc=$((rc + 2))
t_check "two clients at once, both verified (rc $rc)" test "$rc" = 0

out=$(run --connect "$S" -q 4 --op write --size 16K -n 200 --verify --json 2>&1)
t_check "-q 4: four QPs, four connections, all verified" \
	python3 -c 'import json,sys; t=json.loads(sys.argv[1])["results"][0]["total"]; sys.exit(not (t["qps_ok"] == 4 and t["qps_failed"] == 0 and t["verify_errors"] == 0))' "$out"

# expect_fault NAME FAULT WANT ARGS...: the job fails and stderr has WANT.
expect_fault() {
	local name=$1 fault=$2 want=$3 out rc=0
	shift 3
	echo "$fault" >"$FAULT"
	out=$(run --connect "$S" "$@" 2>&1) || rc=$?
	echo 0 >"$FAULT"
	if ((rc == 0)); then
		t_fail "$name" "the job succeeded"
	elif ! grep -qF -- "$want" <<<"$out"; then
		t_fail "$name" "no '$want' in: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	else
		t_ok "$name"
	fi
}
expect_fault "hello of wire version 99: refused at connect, reason from the server" 1 \
	"wire protocol version not supported (value 99, limit 4)" --op write -n 10
t_check "the server serves after it" run --connect "$S" --op write -n 10
expect_fault "job message of version 5 (the next): refused by the peer" 8 \
	"refused by the peer" --op write -n 10
expect_fault "an SGE length past the slot: refused with the SGE named" 2 \
	"sge[0] of wr 0: SGE outside its buffer" --op write --sge 2 -n 10
expect_fault "a job describing other bytes than it sends: the server's check fails it" 16 \
	"(reported by the peer" --op write --sge-layout 256@0,512@1024,128@2048 --verify -n 50
run --connect "$S" --op write --size 4K -n 10 >/dev/null 2>&1
expect_fault "the previous job's rkey: remote access error, nothing written" 4 \
	"REM_ACCESS_ERR" --op write --size 4K -n 10
t_check "the server serves after the faults" run --connect "$S" --op send --verify -n 10

# Budgets (Documentation/security.rst).  The default server holds at most
# an eighth of its guest's RAM (2 GiB): 64 MiB WRITE jobs (1024 slots of
# 64 KiB) are held until the next one is refused with the budget, which this
# guest's RAM could not have held 16 times over (--max-conns).
# A holder that fails for another reason (a loaded host: set-up slower than
# the server's --idle 3000) is not counted and another is started.
holders=() held=0 refused=0
for k in $(seq 10); do
	run --connect "$S" --op write --size 64K --depth 1024 --duration 90 \
		>"$IBPOST_OUT/hold-$k.txt" 2>&1 &
	holders+=($!)
	sleep 6
	if kill -0 "${holders[-1]}" 2>/dev/null; then
		held=$((held + 1))
	elif grep -q "budget of pinned memory or MRs would be exceeded" "$IBPOST_OUT/hold-$k.txt"; then
		refused=$k
		break
	fi
done
line=$(grep -o 'budget of pinned memory or MRs would be exceeded (value [0-9]*, limit [0-9]*)' \
	"$IBPOST_OUT/hold-$refused.txt" 2>/dev/null)
val=$(sed -n 's/.*value \([0-9]*\), limit \([0-9]*\).*/\1 \2/p' <<<"$line")
read -r v l <<<"$val"
ok=0
# What the held jobs pin plus this one is past the budget, without it not:
# value = n x (64 MiB + 320 KiB) > limit >= (n - 1) x that, n - 1 jobs
# held; the 320 KiB are each connection's control slots, charged at its
# connect request (5 of 64 KiB: room for a ready of 2 x 1024 slots).
m=$((67108864 + 327680))
((refused && v % m == 0 && v > l && v - m <= l && v / m - 1 <= held)) && ok=1
t_check "default budget: $held 64 MiB jobs held, the next refused: '$line'" test "$ok" = 1
# (background subshells ignore SIGINT: signal the tool itself)
pkill -INT -f -- "--depth 1024 --duration 90"
wait "${holders[@]}" 2>/dev/null
# The server frees a job's memory once it sees the client gone.
again() {
	local i
	for i in $(seq 30); do
		run --connect "$S" --op write --size 64K --depth 1024 -n 2000 --verify >/dev/null 2>&1 &&
			return 0
		sleep 1
	done
	return 1
}
t_check "after the budget refusal the server takes a 64 MiB job again (memory given back)" again

# A second server (peer-server.sh) with small limits on port 18521.
L=$S:18521
out=$(run --connect "$L" --op write --size 4K --duration 10 2>&1)
t_check "--max-job-time 8000: a job declaring 10 s is refused up front: $(grep -o 'job longer.*' <<<"$out")" \
	grep -q "job longer than the server's job time limit (value 10000, limit 8000)" <<<"$out"
t0=$(date +%s)
out=$(run --connect "$L" --op write --size 4K -n 100000000 2>&1)
rc=$?
t1=$(date +%s)
t_check "--max-job-time 8000: a job of WRs still running at 8 s is ended (rc $rc, $((t1 - t0)) s)" \
	test "$rc" != 0 -a "$((t1 - t0))" -lt 40
run --connect "$L" --op write --size 64K --depth 1024 --duration 6 >/dev/null 2>&1 &
h=$!
sleep 4
out=$(run --connect "$L" --op write --size 64K --depth 1024 --duration 3 2>&1)
t_check "--max-mem 100: a second 64 MiB job is refused: $(grep -o 'budget.*' <<<"$out")" \
	grep -q 'budget of pinned memory or MRs would be exceeded (value 134873088, limit 104857600)' <<<"$out"
wait "$h"
run --connect "$L" --op send --size 4K --duration 5 >/dev/null 2>&1 &
h1=$!
run --connect "$L" --op send --size 4K --duration 5 >/dev/null 2>&1 &
h2=$!
sleep 2
out=$(run --connect "$L" --op send --size 4K -n 10 2>&1)
t_check "--max-per-addr 2: a third connection from this address is rejected: $(grep -o 'connection limit.*' <<<"$out")" \
	grep -q 'connection limit for this address (value 2, limit 2)' <<<"$out"
wait "$h1" "$h2"
t_check "the limited server serves after its refusals" run --connect "$L" --op send --verify -n 10

# The hostile battery (tools/tests/hostile-battery.c): every abuse of the
# wire against the default server, then a correct job.
hostile_battery "$S" 18520 "$IBPOST_OUT/battery.txt" --server2 fd00:192::1
t_check "the server serves after the hostile battery" run --connect "$S" --op send --verify -n 10
t_check "the battery's region past the server's budget was refused with the budget's reason" \
	grep -q 'session region of 8 GiB.*: refused (err [0-9]*, reason [0-9]* the server.s budget of pinned memory' "$IBPOST_OUT/battery.txt"

# Bounded set-up times.
t0=$(date +%s)
out=$(run --connect 192.0.2.77 --cm-timeout 1000 --op write -n 10 2>&1)
t1=$(date +%s)
ok=0
grep -q 'could not resolve the address or route of the peer' <<<"$out" && ((t1 - t0 <= 8)) && ok=1
t_check "no host at the address: 'could not resolve' within 1 s + slack ($((t1 - t0)) s): $(head -n 1 <<<"$out")" \
	test "$ok" = 1
t0=$(date +%s)
out=$(run --connect "$S:18599" --cm-timeout 2000 --op write -n 10 2>&1)
t1=$(date +%s)
ok=0
grep -q 'could not connect' <<<"$out" && ((t1 - t0 <= 10)) && ok=1
t_check "no server on the port: 'could not connect' ($((t1 - t0)) s): $(head -n 1 <<<"$out")" \
	test "$ok" = 1

# The server deletes rxe0 when this marker job (12347 bytes) starts.
t0=$(date +%s)
out=$(run --connect "$S" --op write --size 12347 --duration 120 2>&1)
rc=$?
t1=$(date +%s)
ok=0
((rc != 0 && t1 - t0 < 90)) && ok=1
t_check "server's device deleted mid-job: the job fails with an error ($((t1 - t0)) s, rc $rc)" \
	test "$ok" = 1
echo "$out" | tail -n 3
t_check "the server serves again once its device is back" wait_server

# The in-kernel session API across hosts: the consumer module's disk is the
# server's memory (ibpost_session_remote()); it loads only when every byte
# it wrote came back.
for addr in "$S" fd00:192::1; do
	rc=0
	insmod "$CONS" dev=rxe0 peer="$addr" threads=4 reqs=16 || rc=$?
	line=$(dmesg | grep 'ibpost_consumer:' | tail -n 1 | sed 's/^\[[^]]*\] //')
	t_check "session API to $addr: 4 threads x 16 x 128 KiB written into the server's memory and read back, every byte checked, and ibpost_reg() of local pages on the same session: $line" \
		test "$rc" = 0
	[[ $rc == 0 ]] && rmmod ibpost_consumer
done
# A region of the server's memory in several chunks (one MR each on the
# server), reached by offset with IBPOST_REQ_REGION: 4 MiB, 512 KiB requests.
rc=0
insmod "$CONS" dev=rxe0 peer="$S" region=1 threads=4 reqs=4 req_kb=512 || rc=$?
chunks=$(dmesg | grep "ibpost_consumer: the server's region:" | tail -n 1 | sed 's/^\[[^]]*\] //')
line=$(dmesg | grep 'ibpost_consumer:' | tail -n 1 | sed 's/^\[[^]]*\] //')
ok=0
[[ $rc == 0 && $chunks == *'4194304 bytes in chunks of 1048576' ]] && ok=1
t_check "session API, a 4 MiB region of the server's memory in 1 MiB chunks ($chunks): 4 threads x 4 x 512 KiB by region offset, written and read back, every byte checked: $line" \
	test "$ok" = 1
[[ $rc == 0 ]] && rmmod ibpost_consumer

# A region the server keeps (serve --keep 30 on port 18522): the session is
# closed without its fin (the session_test_nofin hook: the server sees its
# connection lost), a new one takes the region back (attr.resume) and reads
# what each thread wrote last; the first token then no longer takes it.
resume_row() {
	rc=0
	echo 1 >/sys/module/ibpost/parameters/session_test_nofin
	insmod "$CONS" dev=rxe0 peer="$S" peer_port="$1" region=1 resume=1 \
		threads=2 reqs=4 req_kb=512 || rc=$?
	line=$(dmesg | grep 'ibpost_consumer: resume:' | tail -n 1 | sed 's/^\[[^]]*\] //')
	[[ $rc == 0 ]] && rmmod ibpost_consumer
}
resume_row 18522
ok=0
# The old token is told what a stranger is told (the region's absence).
[[ $rc == 0 && $line == *'region taken back (reason 0: no error), 0 bad bytes read back; the first token again: reason '*': region lost'*'; keep 30 s of 60 asked' ]] && ok=1
t_check "session API: a region the server kept (60 s asked, its --keep 30 granted) taken back after the connection was lost, 2 x 2 x 512 KiB read back intact, the old token refused as a stranger is: $line" \
	test "$ok" = 1
# The serve on the default port keeps nothing (--max-keep 0): the resume
# fails with the reason.
resume_row ''
ok=0
[[ $rc != 0 && $line == *'not taken back (reason '*': region lost: '*'; keep 0 s of 60 asked' ]] && ok=1
t_check "session API: a serve with --max-keep 0 grants no keep, the region is gone with the connection, and the resume says so: $line" \
	test "$ok" = 1

# ibpost_blk on the server's memory (tools/tests/lib/peer-blk.sh; the test
# kernel has no ext4 for its file-system rows).  The server deletes its
# rxe0 under the last device and adds it back.
if [[ ${IBPOST_KERNEL:-} != test ]]; then
	peer_blk "$S"
	t_check "the server serves again once its device is back (after ibpost_blk)" wait_server
fi

# Bandwidth between the guests: ibpost beside perftest (-R: rdma_cm too),
# both at perftest's default send-queue depth (128), 3 runs each taken in
# turn, the median of each (tools/tests/lib/peer-bw.sh).  make check-long
# only (rig.long=1): a benchmark, which make bench runs idle
# (bench-pair.sh); make check's time goes to the rows that can fail.
bench() {	# bench OP
	local p='' i='' k
	for ((k = 0; k < 3; k++)); do
		p="$p $(perf_bw "$1")"
		i="$i $(ibpost_bw "$1")"
	done
	echo "# $1 runs: perftest MiB/s$p; ibpost MiB/s$i"
	p=$(tr ' ' '\n' <<<"$p" | grep . | median)
	i=$(tr ' ' '\n' <<<"$i" | grep . | median)
	printf '%-9s %6s %13s %12s %7s\n' "$1" 64K "${p:--}" "${i:--}" \
		"$(awk -v a="$i" -v b="$p" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')"
}
[[ $(rig_arg long) == 1 ]] && {
	echo "# 64 KiB between two guests (rxe0 over a QEMU socket wire, TCG), depth 128"
	echo "# medians of 3 runs, MiB/s (perftest's 'BW average[MB/sec]' is bytes / 2^20)"
	printf '%-9s %6s %13s %12s %7s\n' op size "perftest MiB/s" "ibpost MiB/s" ratio
	bench write
	bench send
} | tee "$IBPOST_OUT/peer-bench.txt"
[[ $(rig_arg long) == 1 ]] &&
	t_check "the bandwidth table has both rows with figures" \
		bash -c "grep -v '^#' '$IBPOST_OUT/peer-bench.txt' | awk 'NR > 1 && \$5 != \"-\"' | wc -l | grep -qx 2"

rig_pair_end here
t_done
