#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, server side of ibpost_blk against a host that goes away
# (make check-long: tools/check.sh boots it with tools/rig/pair.sh
# --server-vanishes, the client tools/tests/pair/blk-vanish-client.sh on the
# debug kernel): rxe0 on the wire, `ibpost serve --idle 3000 --max-keep 0`
# (its lines in $IBPOST_OUT/serve.log) and one that keeps regions on port 18522 (the
# client's 100 resets).  When serve's log shows the client's
# PEER_BLK_JOIN_MARK region it disconnects that session's queue 1
# (peer_blk_serve_drop); when it shows the PEER_BLK_VANISH_MARK region it
# waits 3 s (the client's fio runs by then), writes its TAP, creates
# $IBPOST_OUT/vanished and resets its own guest at once (sysrq b: no
# sync, no disconnect, nothing more on the wire; QEMU runs with
# -no-reboot and exits).  TAP in $IBPOST_OUT/blk-vanish-server.tap.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-blk.sh
. tools/tests/lib/peer-blk.sh

rig_pair_start blk-vanish-server
LOG=$IBPOST_OUT/serve.log
# It keeps no region (--max-keep 0; serve's default keeps 600 s): the lost
# queue's reconnect finds its region gone (peer_blk_drop), and the
# vanishing host's device has nothing to resume either way.
"$IBPOST" serve --idle 3000 --max-keep 0 >"$LOG" 2>&1 &
# The client's resets (peer_blk_resets): a serve that keeps regions.
"$IBPOST" serve --port 18522 --keep 30 --idle 3000 >"$IBPOST_OUT/serve-keep.log" 2>&1 &
touch "$IBPOST_OUT/ready"
dropped=0
for _ in $(seq 3000); do
	[[ -e $IBPOST_OUT/stop ]] && break
	((dropped)) || ! peer_blk_serve_drop "$LOG" || dropped=1
	if grep -q "job write size $PEER_BLK_VANISH_MARK " "$LOG"; then
		sleep 3
		peer_blk_serve_dropped
		# That device's own session (its job's conn), not an earlier one.
		vconn=$(sed -n "s/^conn \([0-9]*\): job write size $PEER_BLK_VANISH_MARK .*/\1/p" "$LOG" | tail -n 1)
		t_check "serve gave the client's 2-queue device its region (conn ${vconn:-?}) and the join: $(grep -m 1 "joined session ${vconn:-none} " "$LOG")" \
			grep -q "^conn [0-9]*: joined session ${vconn:-none} (2 connections) from " "$LOG"
		t_ok "the server host goes down now, under the client's fio"
		t_done
		touch "$IBPOST_OUT/vanished"
		echo b >/proc/sysrq-trigger
		sleep 60
	fi
	sleep 0.5
done
# Not reached unless the client never mapped the marker region.
t_fail "the client mapped the marker region" "no 'job write size $PEER_BLK_VANISH_MARK' in $LOG"
cat "$LOG"
t_done
