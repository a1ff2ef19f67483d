#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of the in-kernel session API through its consumer module
# (kunit/consumer.c; run by guest-check.sh on both kernels):
#   - the consumer's workload at load: 4 kthreads writing 128 KiB requests
#     of 32 single pages, reading them back into other pages and checking
#     every byte; its line and 'ibpost run' at 128 KiB on the
#     same device go to $IBPOST_OUT/session-$IBPOST_KERNEL.txt;
#   - ibpost cannot be unloaded while a consumer module uses it;
#   - the device deleted under a running workload: the load fails with an
#     error, the removal completes, nothing of ibpost is left;
#   - after each: no QP/MR of ibpost, ibpost/live back to 0.
# TAP on stdout and in $IBPOST_OUT/session-$IBPOST_KERNEL.tap.
# IBPOST_PROVIDER=siw (test kernel): a loopback session (its pair connected
# through rdma_cm) and a small session with a peer ('ibpost serve' here,
# through rdma_cm) are checked byte for byte; then the unload pin as on rxe
# (rows "siw: ").
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" session
LIVE=/sys/kernel/debug/ibpost/live
FIG=$IBPOST_OUT/session-$IBPOST_KERNEL.txt
[[ ${IBPOST_PROVIDER:-rxe} == rxe ]] || FIG=/dev/null
: >"$FIG"

rig_provider "${IBPOST_PROVIDER:-rxe}" || { t_fail "load ${IBPOST_PROVIDER:-rxe}, its loopback device" "modules, link add"; t_done; exit 1; }
if ! grep -q '^ibpost ' /proc/modules; then
	insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# nothing_left WHEN: no QP/MR of ibpost, and its own counts at 0.
nothing_left() {
	local kind found='' live
	for kind in qp mr; do
		rdma resource show "$kind" 2>/dev/null | grep -q 'comm \[ibpost' &&
			found="$found $kind"
	done
	live=$(cat $LIVE 2>&1)
	if [[ -z $found && -z $(awk '$2 != 0' <<<"$live") && -z $(cat /sys/kernel/debug/ibpost/sessions) ]]; then
		t_ok "$1: no ibpost QP/MR, session or page left"
	else
		t_fail "$1: no ibpost QP/MR, session or page left" "found:$found; live: $(tr '\n' ' ' <<<"$live"); sessions: $(head -c 300 /sys/kernel/debug/ibpost/sessions)"
	fi
}

# The consumer's last summary line for DEV.
cons_line() { dmesg | grep "ibpost_consumer: $1:" | tail -n 1; }

# On iWARP the session's peer is 'ibpost serve' here, reached through rdma_cm.
SERVE_PID=
# IPv4 any: siw's wildcard listener for IPv6 any (the default) covers only
# the IPv6 addresses of its netdev, and these sessions connect over IPv4.
serve_start() {
	$IBPOST serve --addr 0.0.0.0 >"$IBPOST_OUT/session-serve.txt" 2>&1 &
	SERVE_PID=$!
	for _ in $(seq 50); do
		grep -q 'listening' "$IBPOST_OUT/session-serve.txt" && return 0
		sleep 0.1
	done
	return 1
}
serve_stop() {
	[[ -n $SERVE_PID ]] || return 0
	kill -INT "$SERVE_PID"
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
}
if [[ $PROV == siw ]]; then
	# A loopback session on iWARP connects its pair through rdma_cm to the
	# device's own address (pair.c); rdma_rw registers the READ sinks.
	out=$(timeout 300 insmod "$CONS" dev="$DEV" threads=2 reqs=8 2>&1)
	rc=$?
	line=$(cons_line "$DEV")
	if [[ $rc == 0 && $line == *"2 threads x 8 requests of 128 KiB (WRITE, READ back): 4194304 bytes"* &&
		$line == *"32 requests, 0 errors (first 0), 0 bad bytes"* ]]; then
		t_ok "loopback session on $DEV through rdma_cm: 2 threads x 8 scattered 128 KiB WRITEs read back, every byte equal"
	else
		t_fail "loopback session on $DEV through rdma_cm: 2 threads x 8 scattered 128 KiB WRITEs read back" "rc $rc: $out: $line"
	fi
	grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
	nothing_left "after the loopback session"
	# A session with a peer connects through rdma_cm.  A small workload
	# completes (one thread, 4 requests, every byte read back); larger ones
	# (4 x 32) lose requests when the server's control channel needs its
	# zero-byte SEND_WITH_IMM (ctl.c), which siw refuses: not run here.
	if serve_start; then
		out=$(timeout 300 insmod "$CONS" dev="$DEV" peer="$CM" threads=1 reqs=4 2>&1)
		rc=$?
		line=$(cons_line "$DEV")
		if [[ $rc == 0 && $line == *"1 threads x 4 requests of 128 KiB (WRITE, READ back): 1048576 bytes"* &&
			$line == *"8 requests, 0 errors (first 0), 0 bad bytes"* ]]; then
			t_ok "session with a peer on $DEV: 4 scattered 128 KiB WRITEs read back through rdma_cm, every byte equal"
		else
			t_fail "session with a peer on $DEV: 4 scattered 128 KiB WRITEs read back" "rc $rc: $out: $line; serve: $(tr '\n' ' ' <"$IBPOST_OUT/session-serve.txt")"
		fi
		grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
		serve_stop
	else
		t_fail "ibpost serve listening for the session" "$(cat "$IBPOST_OUT/session-serve.txt")"
	fi
	nothing_left "after the session with a peer"
else
	# --- the workload ------------------------------------------------------------
	reqs=32
	if out=$(timeout 600 insmod "$CONS" dev="$DEV" threads=4 reqs=$reqs 2>&1); then
		line=$(cons_line "$DEV")
		want="4 threads x $reqs requests of 128 KiB (WRITE, READ back): $((4 * reqs * 2 * 131072)) bytes"
		if [[ $line == *"$want"* && $line == *"$((4 * reqs * 2)) requests, 0 errors (first 0), 0 bad bytes"* ]]; then
			t_ok "consumer: 4 threads x $reqs scattered 128 KiB WRITEs read back, every byte equal (${line##*= })"
		else
			t_fail "consumer: 4 threads x $reqs scattered 128 KiB WRITEs read back" "$line"
		fi
		echo "$line" >>"$FIG"
	else
		t_fail "consumer workload loads" "$out: $(cons_line "$DEV")"
	fi
	rmmod ibpost_consumer 2>/dev/null
	nothing_left "after the consumer workload"
	# The same device and size through ibpost run, for comparison.
	for op in write read; do
		$IBPOST run --dev "$DEV" --op $op --size 128K --sge 32 --iters 256 \
			--depth 16 >>"$FIG" 2>&1
	done
fi

# --- a user of the API pins ibpost ------------------------------------------------
if insmod "$CONS" autorun=0; then
	t_expect "rmmod ibpost refused while a consumer module is loaded" 1 rmmod ibpost
	t_check "rmmod the consumer" rmmod ibpost_consumer
else
	t_fail "insmod consumer autorun=0" "$CONS"
fi

# --- the device deleted under a running workload --------------------------------------
# (Not on siw: it has no working session, see above.)
if [[ $PROV == siw ]]; then
	:
elif rig_dummy "${PROV}_sess" 192.0.2.13/24 >/dev/null 2>&1; then
	(
		timeout 600 insmod "$CONS" dev="${PROV}_sess" threads=4 reqs=1000000
		echo $? >"$IBPOST_OUT/cons-loss.rc"
	) >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 60); do
		grep -q "dev ${PROV}_sess state live .* completed [1-9]" \
			/sys/kernel/debug/ibpost/sessions 2>/dev/null && break
		sleep 1
	done
	# Live and completing: the deletion comes under requests that move.
	if grep -q "dev ${PROV}_sess state live .* completed [1-9]" /sys/kernel/debug/ibpost/sessions; then
		t_ok "session on ${PROV}_sess live and completing requests"
	else
		t_fail "session on ${PROV}_sess live and completing requests" "$(cat /sys/kernel/debug/ibpost/sessions)"
	fi
	t_check "rdma link del ${PROV}_sess under the workload" timeout 120 rdma link del "${PROV}_sess"
	wait "$pid"
	rc=$(cat "$IBPOST_OUT/cons-loss.rc" 2>/dev/null)
	line=$(cons_line "${PROV}_sess")
	if [[ $rc != 0 && $line =~ requests,\ ([1-9][0-9]*)\ errors\ \(first\ (-19|-107)\) ]]; then
		t_ok "workload ended with an error when its device went (${BASH_REMATCH[1]} errors, first ${BASH_REMATCH[2]})"
	else
		t_fail "workload ended with an error when its device went" "rc $rc: $line"
	fi
	grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
	nothing_left "after losing the device under a session"
else
	t_fail "$PROV on a dummy netdev for the loss test" "rig_dummy"
fi

t_check "rmmod ibpost after the session tests" rmmod ibpost
t_done
