#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, client side of ibpost_blk against a host that goes away
# (make check-long, on the debug kernel: KASAN, lockdep, kmemleak; the
# server tools/tests/pair/blk-vanish-server.sh on the stock kernel).  On the
# server's memory: a 2-queue device whose queue 1 the server disconnects
# under fio on queue 0 (peer-blk.sh's peer_blk_drop), 100 resets of a
# device on the server's port 18522 (serve --keep), each reconnecting
# under fio's crc32c writes (peer_blk_resets), then a 2-queue
# device that does not reconnect (ctrl_loss_tmo 0) under fio while the
# server's host is reset (no disconnect reaches this guest): fio's I/O fails within PEER_BLK_VANISH_S (its
# requests' retries run out, or io_timeout fails them), the device is in
# error, new I/O fails at once, no task in D state, it unmaps; meanwhile
# a device that reconnects (port 18522, ctrl_loss_tmo 600), held open by
# fio, goes on trying the vanished host until `blk unmap --force` gives
# it up: the unmap returns within FORCE_S, fio's I/O failed, no task in
# D state (blk_force_dead);
# ibpost_blk and ibpost unload, nothing of ibpost is left, kmemleak finds
# nothing (boot.sh checks the console for KASAN, lockdep and the rest).
# TAP in $IBPOST_OUT/blk-vanish-client.tap, figures in blk-vanish.txt.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-blk.sh
. tools/tests/lib/peer-blk.sh

rig_pair_start blk-vanish-client
S=$(rig_arg peer)
FIG=$IBPOST_OUT/blk-vanish.txt
: >"$FIG"
[[ -w /sys/kernel/debug/kmemleak ]] && echo clear >/sys/kernel/debug/kmemleak

# The server starts serving some time after its guest boots.
up=0
rig_wait_serve "$S" && up=1
if ((!up)); then
	t_fail "the server answers" "no ibpost serve at $S"
	t_done
	exit 1
fi
blk=$(dirname "$KO")/blk/ibpost_blk.ko
if ! insmod "$blk"; then
	t_fail "insmod ibpost_blk" "$blk"
	t_done
	exit 1
fi

peer_blk_drop "$S"
# 100 reconnects under KASAN, lockdep and kmemleak (issue 27).
peer_blk_resets "$S" 100

# Documentation/blk.rst: unmap --force of a device held open while it
# reconnects to a host that does not answer returns within this (the tool
# retries for 30 s; an attempt under way ends within its rdma_cm steps).
FORCE_S=40

# blk_force_dead DEV FPID FOUT: DEV reconnects to the vanished host, fio
# (FPID, its output FOUT) holds it open: unmap --force ends both.
blk_force_dead() {
	local dev=$1 fpid=$2 fout=$3 st='' out rc frc t0 secs _
	for _ in $(seq 90); do
		st=$(cat "/sys/block/$dev/ibpost/state" 2>/dev/null)
		[[ $st == reconnecting ]] && break
		sleep 1
	done
	t0=$(date +%s.%N)
	out=$(timeout 120 "$IBPOST" blk unmap --force "$dev" 2>&1)
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	timeout 30 tail --pid="$fpid" -f /dev/null
	wait "$fpid"
	frc=$?
	echo "unmap --force: state before $st, exit $rc after $secs s, fio exit $frc" >>"$FIG"
	if [[ $st == reconnecting && $rc == 0 && ! -e /sys/block/$dev ]] &&
		(($(echo "$secs < $FORCE_S" | bc))); then
		t_ok "unmap --force of a device held open, reconnecting to the vanished host: unmapped after $secs s (< $FORCE_S s)"
	else
		t_fail "unmap --force of a device held open, reconnecting to the vanished host, within $FORCE_S s" \
			"state before '$st', exit $rc after $secs s: $out"
	fi
	if [[ $frc != 0 && $frc != 124 ]] && grep -q 'error' "$fout"; then
		t_ok "unmap --force: the holder's I/O failed (fio exit $frc)"
	else
		t_fail "unmap --force: the holder's I/O failed" "fio exit $frc: $(tail -n 3 "$fout" | tr '\n' ' ')"
	fi
	no_dstate "unmap --force"
}

fdev=$(blk_map --dev rxe0 --connect "$S:18522" --size 4M --depth 8 --queues 1)
ffout=$IBPOST_OUT/fio-force.txt
fpid=''
if [[ $fdev == ibpostb* ]] && wait_dev "$fdev"; then
	timeout 300 fio --name=force --filename="/dev/$fdev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=4k --iodepth=4 --time_based --runtime=280 >"$ffout" 2>&1 &
	fpid=$!
else
	t_fail "map for unmap --force" "$fdev"
fi
name=$(blk_map --dev rxe0 --connect "$S" --size $PEER_BLK_VANISH_MARK --depth 8 --queues 2 \
	--ctrl-loss-tmo 0)
if [[ $name == ibpostb* ]] && wait_dev "$name"; then
	blk_fault "$name" error $PEER_BLK_VANISH_S "the server host reset under fio"
else
	t_fail "map for the vanishing-server test" "$name"
fi
[[ -n $fpid ]] && blk_force_dead "$fdev" "$fpid" "$ffout"
cat "$FIG"
t_check "rmmod ibpost_blk" rmmod ibpost_blk
t_check "no ibpost session left" \
	bash -c '[[ -z $(cat /sys/kernel/debug/ibpost/sessions) ]]'
rig_pair_end "after the server host vanished"
if rig_kmemleak "$IBPOST_OUT/kmemleak.txt"; then
	t_check "kmemleak: nothing leaked" test ! -s "$IBPOST_OUT/kmemleak.txt"
fi
t_done
