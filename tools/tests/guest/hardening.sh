#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest hardening tests (run by guest-check.sh on both kernels): ioctl
# fuzzing with a printed seed, 8 concurrent runs on one device with the
# device deleted in the middle, unload refused while runs are active, and
# leftovers (QPs, CQs, MRs, PDs, ibpost's pages) checked after each fault.
# TAP on stdout and in $IBPOST_OUT/hardening-$IBPOST_KERNEL.tap.
# IBPOST_PROVIDER=siw (test kernel): the same on siw (runs through rdma_cm,
# WRITE instead of WRITE_WITH_IMM, rdma link del under a run, then rmmod
# siw), rows prefixed "siw: ".
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" hardening
FUZZ_ITERS=${FUZZ_ITERS:-3000}

# shellcheck source=tools/tests/lib/leftovers.sh
. "$IBPOST_REPO/tools/tests/lib/leftovers.sh"

# Only the PD of each device may remain while the module is loaded; then
# the module's own counts.
no_job_leftovers() {
	no_rdma_left "$1" qp mr
	live_zero "$1"
}

rig_provider "${IBPOST_PROVIDER:-rxe}" || { t_fail "load ${IBPOST_PROVIDER:-rxe}, its loopback device" "modules, link add"; t_done; exit 1; }
KMOD=rdma_rxe
[[ $PROV == siw ]] && KMOD=siw
insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
t_ok "ibpost loaded for hardening"

# --- fuzzing -------------------------------------------------------------------
# A fixed seed keeps make check deterministic; FUZZ_SEED=random explores.
# make check-long (rig.long=1) on the debug kernel: at least 100000 ioctls
# with a random seed, within a time budget (the fuzzer's summary says how
# far it got and what each call returned, also when the budget ends it).
seed=${FUZZ_SEED:-12345}
budget=${FUZZ_TIME:-500}
want=$FUZZ_ITERS permille=1000
# Real transfers cost hundreds of ms (3000 calls took 300 s on the debug
# kernel, 287 s on the stock one: a sixth of each guest): make check lets a
# fifth of the run requests reach the device (fuzz -r), make check-long all
# of them on the stock kernel and 2 % of its 100000 on the debug one; the
# rest fail at the device lookup, after every field check.
[[ $IBPOST_KERNEL == test || $(rig_arg long) != 1 ]] && permille=${FUZZ_PERMILLE:-200}
if [[ $(rig_arg long) == 1 && $IBPOST_KERNEL == test && $PROV == rxe ]]; then
	want=${FUZZ_LONG_ITERS:-100000} seed=random budget=${FUZZ_TIME:-3600}
	permille=${FUZZ_PERMILLE:-20}
fi
[[ $seed == random ]] && seed=$(( $(date +%s%N) & 0xffffffff ))
out=$(timeout $((budget + 60)) tools/tests/fuzz -n "$want" -t "$budget" -r "$permille" -s "$seed" -d "$DEV" 2>&1)
rc=$?
echo "$out" | tail -n 5
echo "$out" | grep '^fuzz: ' >>"$IBPOST_OUT/fuzz-$IBPOST_KERNEL.txt"
done_n=$(sed -n 's/^fuzz: .* after \([0-9]*\) iterations.*/\1/p' <<<"$out" | tail -n 1)
if [[ $rc == 0 && ${done_n:-0} -ge $want ]]; then
	t_ok "fuzz: $done_n ioctls, seed $seed, only documented errnos ($(grep -o '[0-9]*/s' <<<"$out" | tail -n 1))"
else
	t_fail "fuzz: $want ioctls within $budget s, seed $seed" "exit $rc, ${done_n:-no} iterations: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
no_job_leftovers "after fuzzing"
t_expect "device list still answers after fuzzing" 0 $IBPOST devices --dev "$DEV"

# --- 8 concurrent runs, the device deleted in the middle ------------------------------
# busy_round R: 8 concurrent runs on a device of their own, the device
# deleted under them; everything must come back: ibpost/live (every page
# and MR ibpost allocates), rdma resource (its QPs and MRs), and on the
# debug kernel kmemleak.  Not MemFree: in a guest running nothing else it
# moved by -6, +18, +10 and +1 MiB over four such rounds (page cache
# dropped), so no threshold tells a leak of these rounds' 5 MiB of slots
# from noise.
busy_round() {
	local r=$1 i rc gone pids=() ops op sge vopt live
	NBUSY=8
	if ! rig_dummy "${PROV}_busy" 192.0.2.12/24 >/dev/null 2>&1; then
		t_fail "round $r: add ${PROV}_busy" "rig_dummy"
		return
	fi
	ops=(write read send write_imm send_imm write read send)
	# iWARP: no immediate data (refused up front), one SGE per READ, WRITE
	# verified only in ping-pong.  And 4 runs, not 8: siw moves data in its
	# own kthreads, which 8 busy-polling runs on 2 vCPUs starve (half the
	# runs saw no completion for 10 s, ETIMEDOUT, before the deletion).
	# And 2, not 4: with the debug guest on rxe beside this one, 3 of 8
	# runs over the two rounds still stalled so (check-long, 2026-12-05;
	# one after 224 WRs, its stall timeout before the deletion reached it).
	# The rounds take the ops in turn (siw: write and read, then send and
	# write).
	[[ $PROV == siw ]] && ops=(write read send write) NBUSY=2
	for ((i = 0; i < NBUSY; i++)); do
		op=${ops[(i + (r - 1) * NBUSY) % ${#ops[@]}]}
		sge=4 vopt=(--verify)
		[[ $PROV == siw && $op == read ]] && sge=1
		[[ $PROV == siw && $op == write ]] && vopt=()
		$IBPOST run --dev "${PROV}_busy" ${CM:+--cm 192.0.2.12} --op "$op" \
			--size 16K --sge $sge --duration 120 "${vopt[@]}" >"$IBPOST_OUT/busy-$i.txt" 2>&1 &
		pids+=($!)
	done
	sleep 6
	# The counts move with the runs (the zero checks could fail).
	live=$(cat $LIVE 2>&1)
	if [[ $(awk '$1 == "jobs" { print $2 }' <<<"$live") == "$NBUSY" ]] &&
		awk '$1 == "pages" && $2 > 0 { p = 1 } $1 == "mrs" && $2 > 0 { m = 1 }
			END { exit !(p && m) }' <<<"$live"; then
		t_ok "round $r: ibpost/live counts $NBUSY runs with their pages and MRs ($(tr '\n' ' ' <<<"$live"))"
	else
		t_fail "round $r: ibpost/live counts $NBUSY runs with their pages and MRs" "$(tr '\n' ' ' <<<"$live")"
	fi
	t_expect "round $r: rmmod refused while runs are active" 1 rmmod ibpost
	t_check "round $r: rdma link del with $NBUSY runs active" timeout 120 rdma link del "${PROV}_busy"
	gone=0
	for ((i = 0; i < NBUSY; i++)); do
		rc=0
		wait "${pids[$i]}" || rc=$?
		if [[ $rc == 1 ]] && grep -q 'device removed during the run' "$IBPOST_OUT/busy-$i.txt"; then
			gone=$((gone + 1))
		else
			echo "run $i: rc $rc: $(tail -n 2 "$IBPOST_OUT/busy-$i.txt")"
		fi
	done
	[[ $gone == "$NBUSY" ]] && t_ok "round $r: all $NBUSY runs ended with 'device removed during the run'" ||
		t_fail "round $r: all $NBUSY runs ended with 'device removed during the run'" "$gone of $NBUSY"
	no_job_leftovers "round $r: after deleting a busy device"
	ip link del d0 2>/dev/null
}

busy_round 1
# make check-long: again, on a device added again (the 45-minute budget).
[[ $(rig_arg long) == 1 ]] && busy_round 2

# --- SIGKILL of several runs at once --------------------------------------------------
pids=()
for i in 0 1 2 3; do
	$IBPOST run --dev "$DEV" "${CMOPT[@]}" --op write --size 64K --duration 60 >/dev/null 2>&1 &
	pids+=($!)
done
sleep 4
kill -KILL "${pids[@]}"
# Each run was alive when killed: SIGKILL's exit status, 137, not an
# earlier end of its own.
killed=0
for p in "${pids[@]}"; do
	rc=0
	wait "$p" 2>/dev/null || rc=$?
	[[ $rc == 137 ]] && killed=$((killed + 1))
done
if [[ $killed == 4 ]]; then
	t_ok "SIGKILL of 4 runs: each was running (exit 137)"
else
	t_fail "SIGKILL of 4 runs: each was running (exit 137)" "$killed of 4"
fi
sleep 1
no_job_leftovers "after SIGKILL of 4 runs"

# --- the provider module removed under a run ----------------------------------------
# siw (6.1) stops its transmit threads before it unregisters its devices
# (siw_exit_module()): a QP posted to in between keeps the reference its
# queueing took, and siw_destroy_qp() waits for it for ever, whoever the
# consumer (reproduced: rmmod in D state in siw_destroy_qp(), no siw_tx
# thread left).  On siw the device goes under the run, the module after.
$IBPOST run --dev "$DEV" "${CMOPT[@]}" --op write --size 16K --duration 60 >"$IBPOST_OUT/$PROV-gone.txt" 2>&1 &
pid=$!
sleep 4
if [[ $PROV == siw ]]; then
	t_check "rdma link del $DEV while a run is active" timeout 120 rdma link del "$DEV"
else
	t_check "rmmod $KMOD while a run is active" timeout 120 rmmod $KMOD
fi
rc=0
wait $pid || rc=$?
[[ $PROV == siw ]] && t_check "rmmod $KMOD after its device went under a run" timeout 120 rmmod $KMOD
if [[ $rc == 1 ]] && grep -q 'device removed during the run' "$IBPOST_OUT/$PROV-gone.txt"; then
	t_ok "run ends with 'device removed' when $KMOD goes"
else
	t_fail "run ends with 'device removed' when $KMOD goes" "rc $rc: $(tail -n 2 "$IBPOST_OUT/$PROV-gone.txt" | tr '\n' ' ')"
fi
# No RDMA device is left for rdma resource to list (their QPs and MRs went
# with them): the module's own counts say what it still holds.
live_zero "after rmmod $KMOD"

# --- module unload ------------------------------------------------------------------
t_check "rmmod ibpost after the faults" rmmod ibpost
t_done
