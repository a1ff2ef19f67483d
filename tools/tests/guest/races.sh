#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest teardown and lifetime race tests (run by guest-check.sh on both
# kernels, rxe only): each row races an end (closing `ibpost serve`, a
# signal, `rdma link del`) against work in flight, in loops, and checks that
# nothing hangs, nothing is left behind (ibpost/live, QPs/MRs) and the
# device goes in time.  A splat (KASAN, lockdep, sleeping in atomic
# context) fails the guest run (tools/rig/boot.sh checks the console); the
# rows also look for one in dmesg.  make check runs a few loops; make
# check-long (rig.long=1) the long ones on the debug kernel, where KASAN
# and lockdep show a lost race: 200 serve closes, 100 close + link del, 50
# session opens against link del (about 46 minutes of loops there,
# 2026-12-05: 9.0, 5.0 and 9.6 s a loop); a quarter of each on the stock
# kernels (6.0, 3.0 and 2.6 s a loop on stock 6.1), which see only hangs
# and leaks.
# TAP on stdout and in $IBPOST_OUT/races-$IBPOST_KERNEL.tap.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" races
# Another build of the same rows (the code before a fix): RACES_KO, RACES_CONS.
KO=${RACES_KO:-$KO} CONS=${RACES_CONS:-$CONS}
LONG=$(rig_arg long || echo 0)
ADDR=192.0.2.31
RDEV=rxe_r
# shellcheck source=tools/tests/lib/leftovers.sh
. "$IBPOST_REPO/tools/tests/lib/leftovers.sh"

# loop_time WHAT SECONDS N: a loop's time, in races-time-KERNEL.txt (the
# figures that size make check-long's counts).
loop_time() {
	echo "$3 x $1: $2 s ($(echo "scale=1; $2 / $3" | bc) s a loop)" |
		tee -a "$IBPOST_OUT/races-time-$IBPOST_KERNEL.txt"
}

loops() { # loops CHECK LONG: the loop count of this run (RACES_LOOPS: any)
	if [[ -n ${RACES_LOOPS:-} ]]; then
		echo "$RACES_LOOPS"
	elif [[ $LONG == 1 && $IBPOST_KERNEL == test ]]; then
		echo "$2"
	elif [[ $LONG == 1 ]]; then
		echo $(($2 / 4))
	else
		echo "$1"
	fi
}

link_up() {
	rdma link show "$RDEV/1" >/dev/null 2>&1 && return 0
	rig_rxe_dummy "$RDEV" "$ADDR/24" >/dev/null 2>&1
}

# ibpost/live: pages, MRs and jobs all 0.
DMESG0=$(dmesg | wc -l)
no_splat() { # no_splat NAME: nothing alarming in dmesg since the last call
	local bad
	bad=$(dmesg | tail -n +$((DMESG0 + 1)) |
		grep -E 'BUG:|KASAN|WARNING:|Oops|circular locking|sleeping function called|blocked for more than|refcount_t' | head -n 3)
	DMESG0=$(dmesg | wc -l)
	[[ -z $bad ]] && t_ok "$1: no splat in dmesg" ||
		t_fail "$1: no splat in dmesg" "$(tr '\n' ' ' <<<"$bad")"
}

SERVE_PID=
serve_start() { # serve_start OUT [ARGS...]: ibpost serve on $ADDR, listening
	local out=$1
	shift
	$IBPOST serve --addr $ADDR "$@" >"$out" 2>&1 &
	SERVE_PID=$!
	for _ in $(seq 100); do
		grep -q 'listening' "$out" && return 0
		kill -0 $SERVE_PID 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# Wait up to $2 tenths of a second for pid $1 to end; 0 if it did.
wait_gone() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# rdma link del within $1 s; a removal that hangs (the kernel waits
# uninterruptibly for a leaked reference) is left behind, and what follows
# needs the device: STUCK ends the script's rows.  Not called through
# t_check, whose subshell would lose STUCK.  link_del_start starts it in
# the background (LINK_DEL: its pid) for a row that acts while it runs;
# link_del_wait SECONDS waits for it.
STUCK=
LINK_DEL=
link_del_start() {
	# Not on the caller's stdout: a t_check would wait for it.
	rdma link del $RDEV >"$IBPOST_OUT/races-linkdel.txt" 2>&1 &
	LINK_DEL=$!
}

link_del_wait() {
	if wait_gone $LINK_DEL $(($1 * 10)); then
		wait $LINK_DEL
		return
	fi
	STUCK=1
	return 1
}

link_del_within() {
	link_del_start
	link_del_wait "$1"
}

stuck_end() {
	[[ -z $STUCK ]] && return
	t_fail "rows after a hung rdma link del" "skipped"
	t_done
	exit 1
}

# A test hook's window (serve_test_lost_ms, session_test_publish_ms): the
# module holds one side of a race there until the test writes 0 to the
# hook (at most 10 s), logging "test hook: WHAT waits" and "test hook: WHAT
# goes on".  hook_watch follows the kernel log from now on (dmesg -W:
# polling all of dmesg took the debug kernel longer than a 2 s window);
# hook_entered WHAT TENTHS waits for the entry; hook_open WHAT: not left
# yet; hook_unwatch stops following.
HOOK_LOG=$IBPOST_OUT/races-hooklog.txt
HOOK_WPID=
hook_watch() {
	local i mark="ibpost races: hook watch $$.$RANDOM"
	dmesg -W >"$HOOK_LOG" 2>&1 &
	HOOK_WPID=$!
	# Following for sure before the race starts: a line of ours seen (a
	# fixed sleep was too short on a loaded host, and dmesg -W shows only
	# what comes after it started).
	for ((i = 0; i < 100; i++)); do
		echo "$mark" >/dev/kmsg
		grep -q "$mark" "$HOOK_LOG" && return 0
		sleep 0.1
	done
	echo "hook_watch: dmesg -W shows nothing after 10 s" >&2
}

hook_entered() {
	local i
	for ((i = 0; i < $2; i++)); do
		grep -q "test hook: $1 waits" "$HOOK_LOG" && return 0
		sleep 0.05
	done
	return 1
}

hook_open() {
	! grep -q "test hook: $1 goes on" "$HOOK_LOG"
}

hook_unwatch() {
	kill "$HOOK_WPID" 2>/dev/null
	wait "$HOOK_WPID" 2>/dev/null
}

# window_link_del WHO REGEX: rows: WHO is held in its hook's window (the
# hook's line in dmesg), then rdma link del starts in it and sleeps in a
# kernel function matching REGEX (it must wait for WHO).
window_link_del() {
	hook_entered "$1" 400 && t_ok "$1 held in the hook's window" ||
		t_fail "$1 held in the hook's window" "no hook line in dmesg"
	link_del_start
	wchan_wait $LINK_DEL "$2" 100
	case $? in
	0) t_ok "rdma link del waits for the $1" ;;
	2) t_fail "rdma link del waits for the $1" "it ended while the $1 was held" ;;
	*) t_fail "rdma link del waits for the $1" "it sleeps in ${WCHAN:-?}" ;;
	esac
}

# wchan_wait PID REGEX TENTHS: PID sleeps in a kernel function matching
# REGEX within TENTHS tenths of a second (positive evidence of where a
# process waits): its wchan, or a function of its kernel stack
# (/proc/PID/stack: a wait in mutex_lock() shows the ibpost function
# that took it, never a mere "mutex"); 1 when it did not, 2 when PID is
# gone.
wchan_wait() {
	local i w k
	for ((i = 0; i < $3; i++)); do
		w=$(cat "/proc/$1/wchan" 2>/dev/null) || return 2
		k=$(sed 's/^\[<[0-9a-f]*>\] //; s/+0x.*//' "/proc/$1/stack" 2>/dev/null | tr '\n' ' ')
		[[ $w =~ ^($2)$ || " $k" =~ \ ($2)\  ]] && return 0
		sleep 0.1
	done
	WCHAN="$w (stack: ${k:-unreadable})"
	return 1
}

rig_load_rxe || { t_fail "load rxe" "modules"; t_done; exit 1; }
insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
link_up || { t_fail "rxe on a dummy netdev" "$RDEV $ADDR"; t_done; exit 1; }
t_ok "ibpost loaded, $RDEV on $ADDR"

# --- closing serve at once after 8 connects (issue 13 item 9) -----------------
# A connection thread stopped before it ran leaked its QP, CQ, pages, id and
# device reference: rdma link del then hung.
n=$(loops 3 200)
bad=0 short=0
tl=$SECONDS
for ((l = 0; l < n; l++)); do
	if ! serve_start "$IBPOST_OUT/races-serve.txt"; then
		bad=$((bad + 1))
		echo "loop $l: serve did not listen: $(tail -n 2 "$IBPOST_OUT/races-serve.txt")"
		continue
	fi
	# 8 connects at once from one process (-q 8: a thread and a
	# connection each): eight processes took twice as long to start under
	# TCG, the loops' main cost on the debug kernel.
	timeout 120 $IBPOST run --dev $RDEV --connect $ADDR --op write \
		--size 4K --duration 5 -q 8 >/dev/null 2>&1 &
	cpid=$!
	# SIGINT right after the k-th connect, k from 1 to 8 over the loops:
	# connection threads just created, running, or not yet run.
	want=$((l % 8 + 1))
	for _ in $(seq 600); do
		(($(grep -c 'connected from' "$IBPOST_OUT/races-serve.txt") >= want)) && break
		sleep 0.05
	done
	# The loop tests a close after the k-th connect: it must have come.
	if (($(grep -c 'connected from' "$IBPOST_OUT/races-serve.txt") < want)); then
		short=$((short + 1))
		echo "loop $l: $(grep -c 'connected from' "$IBPOST_OUT/races-serve.txt") of $want connects before the SIGINT"
	fi
	kill -INT $SERVE_PID
	if ! wait_gone $SERVE_PID 300; then
		bad=$((bad + 1))
		echo "loop $l: serve still there 30 s after SIGINT"
	fi
	wait $SERVE_PID 2>/dev/null
	# The client's connections are gone with the server: no need to wait
	# for it to notice each one (seconds).
	kill -INT $cpid 2>/dev/null
	wait $cpid 2>/dev/null
done
loop_time "(serve, 8 connects, SIGINT at once)" $((SECONDS - tl)) "$n"
[[ $bad == 0 ]] && t_ok "$n x (serve, 8 connects, SIGINT at once): serve ends every time" ||
	t_fail "$n x (serve, 8 connects, SIGINT at once): serve ends every time" "$bad failed"
[[ $short == 0 ]] && t_ok "$n x (serve, 8 connects, SIGINT at once): each SIGINT came after its k-th connect (k = 1..8)" ||
	t_fail "$n x (serve, 8 connects, SIGINT at once): each SIGINT after its k-th connect" "$short loops short of their connects"
live_zero "after $n serve closes under connects"
no_rdma_left "after $n serve closes under connects" qp mr
t0=$SECONDS
link_del_within 10 && t_ok "rdma link del after $n serve closes: within 10 s" ||
	t_fail "rdma link del after $n serve closes: within 10 s" "rdma link del still waiting"
echo "link del: $((SECONDS - t0)) s"
no_splat "serve closes under connects"
stuck_end
link_up

# The same without luck: with the serve_test_nowake hook no connection
# thread runs, so the close stops only threads that never ran.
HOOK=/sys/module/ibpost/parameters/serve_test_nowake
if echo 1 >$HOOK && serve_start "$IBPOST_OUT/races-nowake.txt"; then
	pids=()
	for i in 1 2 3 4; do
		timeout 120 $IBPOST run --dev $RDEV --connect $ADDR --op write \
			--size 4K -n 10 >/dev/null 2>&1 &
		pids+=($!)
	done
	for _ in $(seq 1200); do
		(($(grep -c 'connected from' "$IBPOST_OUT/races-nowake.txt") >= 4)) && break
		sleep 0.05
	done
	n=$(grep -c 'connected from' "$IBPOST_OUT/races-nowake.txt")
	kill -INT $SERVE_PID
	# Only a close with threads that never ran tests what the row says.
	if ((n == 4)) && wait_gone $SERVE_PID 300; then
		t_ok "serve ends with $n connections whose threads never ran"
	else
		t_fail "serve ends with 4 connections whose threads never ran" "$n connected; serve $(kill -0 $SERVE_PID 2>/dev/null && echo 'still there after 30 s' || echo ended)"
	fi
	wait $SERVE_PID 2>/dev/null
	echo 0 >$HOOK
	wait "${pids[@]}" 2>/dev/null
	live_zero "after threads that never ran were stopped"
	no_rdma_left "after threads that never ran were stopped" qp mr
	link_del_within 10 && t_ok "rdma link del after threads that never ran were stopped: within 10 s" ||
		t_fail "rdma link del after threads that never ran were stopped: within 10 s" "rdma link del still waiting"
	no_splat "threads that never ran"
	stuck_end
	link_up
else
	echo 0 >$HOOK
	t_fail "serve with the serve_test_nowake hook listening" "$(cat "$IBPOST_OUT/races-nowake.txt")"
fi

# --- a stopped serve: finished connections reaped anyway (item 6) --------------
if serve_start "$IBPOST_OUT/races-stopped.txt" --max-conns 2; then
	kill -STOP $SERVE_PID
	ok=0
	for i in 1 2 3 4 5; do
		timeout 60 $IBPOST run --dev $RDEV --connect $ADDR --op write \
			--size 4K -n 20 >/dev/null 2>&1 && ok=$((ok + 1))
	done
	# A connection lingers until its client disconnected, then is reaped.
	left=
	for _ in $(seq 100); do
		left=$(pgrep -c '^ibpost-s[0-9]')
		[[ $left == 0 ]] && break
		sleep 0.1
	done
	[[ $ok == 5 ]] && t_ok "serve stopped (SIGSTOP), --max-conns 2: 5 jobs one after another all served" ||
		t_fail "serve stopped (SIGSTOP), --max-conns 2: 5 jobs one after another all served" "$ok of 5"
	[[ $left == 0 ]] && t_ok "serve stopped: no connection thread left 10 s after the last job" ||
		t_fail "serve stopped: no connection thread left 10 s after the last job" "$left ibpost-s threads"
	kill -CONT $SERVE_PID
	kill -INT $SERVE_PID
	wait $SERVE_PID 2>/dev/null
else
	t_fail "serve --max-conns 2 listening" "$(cat "$IBPOST_OUT/races-stopped.txt")"
fi
live_zero "after the stopped serve"

# --- a peer job to a black hole: SIGINT, rdma link del (item 12) ---------------
# 192.0.2.77 is on d0's subnet and nobody answers there: rdma_cm waits up to
# the largest --cm-timeout (600 s per step).
hole() {
	$IBPOST run --dev $RDEV --connect 192.0.2.77 --cm-timeout 600000 --op write \
		--size 4K -n 1 >"$IBPOST_OUT/races-hole.txt" 2>&1 &
	HOLE=$!
	sleep 3
}
hole
if kill -0 $HOLE 2>/dev/null; then
	kill -INT $HOLE
	if wait_gone $HOLE 10; then
		t_ok "peer job to a black hole: SIGINT ends it within 1 s"
	else
		t_fail "peer job to a black hole: SIGINT ends it within 1 s" "still there"
		kill -KILL $HOLE
	fi
else
	t_fail "peer job to a black hole still waiting after 3 s" "$(tail -n 2 "$IBPOST_OUT/races-hole.txt")"
fi
wait $HOLE 2>/dev/null
hole
t0=$SECONDS
link_del_within 10 && t_ok "rdma link del while a peer job waits in rdma_cm: within 10 s" ||
	t_fail "rdma link del while a peer job waits in rdma_cm: within 10 s" "rdma link del still waiting"
echo "link del: $((SECONDS - t0)) s"
if wait_gone $HOLE 50; then
	t_ok "the waiting peer job ended with the device"
else
	t_fail "the waiting peer job ended with the device" "still there"
	kill -KILL $HOLE
fi
wait $HOLE 2>/dev/null
no_splat "black-hole peer jobs"
stuck_end
link_up

# --- serve closed while its device goes (item 10) -----------------------------
# listener_lost() queued its event after dropping the lock: the release,
# racing, freed the server under it (KASAN).
n=$(loops 3 100)
bad=0
tl=$SECONDS
for ((l = 0; l < n; l++)); do
	link_up || { bad=$((bad + 1)); continue; }
	if ! serve_start "$IBPOST_OUT/races-lost.txt"; then
		bad=$((bad + 1))
		continue
	fi
	kill -INT $SERVE_PID &
	if ! link_del_within 10; then
		bad=$((bad + 1))
		echo "loop $l: link del did not end within 10 s"
		break
	fi
	wait_gone $SERVE_PID 100 || { bad=$((bad + 1)); echo "loop $l: serve still there"; }
	wait $SERVE_PID 2>/dev/null
done
loop_time "(SIGINT to serve + rdma link del at once)" $((SECONDS - tl)) "$n"
[[ $bad == 0 ]] && t_ok "$n x (SIGINT to serve + rdma link del at once): both end within 10 s" ||
	t_fail "$n x (SIGINT to serve + rdma link del at once): both end within 10 s" "$bad failed"
no_splat "serve close racing link del"
stuck_end
live_zero "after serve closes racing link del"

# The same without luck: the serve_test_lost_ms hook holds the lost
# listener's handler between the server's lock and its last access to the
# server; the close comes in that window every time.
HOOK=/sys/module/ibpost/parameters/serve_test_lost_ms
link_up
if echo 10000 >$HOOK && serve_start "$IBPOST_OUT/races-lost-hook.txt"; then
	hook_watch
	link_del_start
	hook_entered 'lost listener' 200 && t_ok "lost listener held in the hook's window" ||
		t_fail "lost listener held in the hook's window" "no hook line in dmesg"
	# (The fixed module queued STOPPED as the window opened: serve may be
	# closing already, which is the race too.)
	kill -INT $SERVE_PID 2>/dev/null
	# The release must wait for the handler: serve stays in it while the
	# hook holds.  Gone means the server was freed under the handler.
	wchan_wait $SERVE_PID 'ibpost_serve_release|wait_for_completion' 50
	case $? in
	0) t_ok "serve's close waits for the lost listener's handler" ;;
	2) t_fail "serve's close waits for the lost listener's handler" "serve closed while the handler held the server" ;;
	*) t_fail "serve's close waits for the lost listener's handler" "serve sleeps in ${WCHAN:-?}" ;;
	esac
	hook_open 'lost listener' && t_ok "serve closed inside the lost listener's window" ||
		t_fail "serve closed inside the lost listener's window" "the window had ended"
	echo 0 >$HOOK
	wait_gone $SERVE_PID 100 && t_ok "serve ends within 10 s of the window's end" ||
		t_fail "serve ends within 10 s of the window's end" "still there"
	wait $SERVE_PID 2>/dev/null
	link_del_wait 10 && t_ok "rdma link del under the hook: within 10 s" ||
		t_fail "rdma link del under the hook: within 10 s" "still waiting"
	hook_unwatch
	grep -q 'device gone' "$IBPOST_OUT/races-lost-hook.txt" ||
		echo "serve output: $(tail -n 2 "$IBPOST_OUT/races-lost-hook.txt")"
	no_splat "serve closed inside the lost listener's window"
	stuck_end
	live_zero "after the serve closed inside the lost listener's window"
else
	echo 0 >$HOOK
	t_fail "serve with the serve_test_lost_ms hook listening" "$(cat "$IBPOST_OUT/races-lost-hook.txt")"
fi

# --- device removal while a session with a peer opens (item 11) ---------------
# The session was published before the server's answer: the removal freed
# what the opener still used.
n=$(loops 3 50)
bad=0
tl=$SECONDS
for ((l = 0; l < n; l++)); do
	link_up || { bad=$((bad + 1)); continue; }
	if ! serve_start "$IBPOST_OUT/races-sess.txt"; then
		bad=$((bad + 1))
		continue
	fi
	timeout 120 insmod "$CONS" dev=$RDEV peer=$ADDR threads=1 reqs=2 >/dev/null 2>&1 &
	ins=$!
	# Right at the connect (the opener then waits for the server's answer),
	# or at the job, in turns.
	what='connected from'
	((l % 2)) && what='job'
	for _ in $(seq 200); do
		grep -q "$what" "$IBPOST_OUT/races-sess.txt" && break
		sleep 0.02
	done
	if ! link_del_within 10; then
		bad=$((bad + 1))
		echo "loop $l: link del did not end within 10 s"
		break
	fi
	wait $ins 2>/dev/null
	grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
	kill -INT $SERVE_PID
	wait $SERVE_PID 2>/dev/null
done
loop_time "(session with a peer opening, rdma link del)" $((SECONDS - tl)) "$n"
[[ $bad == 0 ]] && t_ok "$n x (session with a peer opening, rdma link del): link del within 10 s" ||
	t_fail "$n x (session with a peer opening, rdma link del): link del within 10 s" "$bad failed"
no_splat "session opens racing link del"
stuck_end
# The device is gone: rdma resource has nothing to list (its QPs and MRs
# went with it); the module's own counts say what it still holds.
live_zero "after session opens racing link del"

# The same without luck: the session_test_publish_ms hook holds the opener
# between its connection and the session's publication; the device goes in
# that window every time.  The opener then fails with ENODEV.
HOOK=/sys/module/ibpost/parameters/session_test_publish_ms
link_up
if echo 10000 >$HOOK && serve_start "$IBPOST_OUT/races-sess-hook.txt"; then
	hook_watch
	timeout 120 insmod "$CONS" dev=$RDEV peer=$ADDR threads=1 reqs=2 \
		>"$IBPOST_OUT/races-sess-hook-ins.txt" 2>&1 &
	ins=$!
	# The removal has marked the device dying and waits for the opener's
	# reference: only then does the opener go on.
	window_link_del 'session opener' 'ibpost_client_remove|wait_for_completion'
	hook_open 'session opener' && t_ok "rdma link del inside the opener's window" ||
		t_fail "rdma link del inside the opener's window" "the window had ended"
	echo 0 >$HOOK
	t0=$SECONDS
	link_del_wait 10 && t_ok "rdma link del within 10 s of the window's end" ||
		t_fail "rdma link del within 10 s of the window's end" "rdma link del still waiting"
	echo "link del: $((SECONDS - t0)) s after the window"
	wait $ins
	rc=$?
	grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
	# ibpost_session_open() itself fails with ENODEV: a session handed out
	# after its device went would be a dead one.
	if [[ $rc != 0 ]] && grep -q 'No such device' "$IBPOST_OUT/races-sess-hook-ins.txt"; then
		t_ok "the opener caught in the window fails with ENODEV"
	else
		t_fail "the opener caught in the window fails with ENODEV" \
			"insmod status $rc: $(tr '\n' ' ' <"$IBPOST_OUT/races-sess-hook-ins.txt")"
	fi
	hook_unwatch
	kill -INT $SERVE_PID
	wait $SERVE_PID 2>/dev/null
	no_splat "device gone inside the opener's window"
	stuck_end
	live_zero "after the device went inside the opener's window"
else
	echo 0 >$HOOK
	t_fail "serve with the session_test_publish_ms hook listening" "$(cat "$IBPOST_OUT/races-sess-hook.txt")"
fi

# --- device removal while a session with a peer closes (issue 27) ------------
# The close's fin used the control channel and the endpoints while the
# removal's kill freed them.  The session_test_fin_ms hook holds the closer
# (rmmod of a consumer holding a session with serve) just before its fin;
# the device goes in that window every time.  The fin runs under the
# session's registration lock, so the removal waits for it.
HOOK=/sys/module/ibpost/parameters/session_test_fin_ms
link_up
if serve_start "$IBPOST_OUT/races-fin-hook.txt" &&
	timeout 60 insmod "$CONS" hold=1 dev=$RDEV peer=$ADDR \
		>"$IBPOST_OUT/races-fin-hook-ins.txt" 2>&1 &&
	echo 10000 >$HOOK; then
	hook_watch
	timeout 120 rmmod ibpost_consumer >"$IBPOST_OUT/races-fin-hook-rmmod.txt" 2>&1 &
	closer=$!
	# The removal's kill waits in mutex_lock() (scheduler text: wchan
	# names its caller; the stack has it) until the fin is done.
	window_link_del 'session closer' 'ibpost_session_kill|ibpost_sessions_lose'
	hook_open 'session closer' && t_ok "rdma link del inside the closer's window" ||
		t_fail "rdma link del inside the closer's window" "the window had ended"
	echo 0 >$HOOK
	link_del_wait 10 && t_ok "rdma link del within 10 s of the closer's window" ||
		t_fail "rdma link del within 10 s of the closer's window" "rdma link del still waiting"
	wait $closer
	rc=$?
	if [[ $rc == 0 ]] && ! grep -q '^ibpost_consumer ' /proc/modules; then
		t_ok "the closer caught in the window unloads"
	else
		t_fail "the closer caught in the window unloads" "rmmod status $rc: $(tr '\n' ' ' <"$IBPOST_OUT/races-fin-hook-rmmod.txt")"
	fi
	hook_unwatch
	kill -INT $SERVE_PID
	wait $SERVE_PID 2>/dev/null
	no_splat "device gone inside the closer's window"
	stuck_end
	live_zero "after the device went inside the closer's window"
else
	echo 0 >$HOOK
	t_fail "a consumer's session with serve for the session_test_fin_ms hook" \
		"$(cat "$IBPOST_OUT/races-fin-hook.txt" "$IBPOST_OUT/races-fin-hook-ins.txt" 2>&1 | tr '\n' ' ')"
	grep -q '^ibpost_consumer ' /proc/modules && rmmod ibpost_consumer
	kill -INT $SERVE_PID 2>/dev/null
fi

rdma link del $RDEV 2>/dev/null
ip link del d0 2>/dev/null
t_check "rmmod ibpost after the races" rmmod ibpost
t_done
