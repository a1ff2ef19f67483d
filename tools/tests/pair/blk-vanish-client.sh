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
# error, new I/O fails at once, no task in D state, it unmaps;
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

name=$($IBPOST blk map --dev rxe0 --connect "$S" --size $PEER_BLK_VANISH_MARK --depth 8 --queues 2 \
	--ctrl-loss-tmo 0 2>&1)
if [[ $name == ibpostb* ]] && wait_dev "$name"; then
	blk_fault "$name" error $PEER_BLK_VANISH_S "the server host reset under fio"
else
	t_fail "map for the vanishing-server test" "$name"
fi
cat "$FIG"
t_check "rmmod ibpost_blk" rmmod ibpost_blk
t_check "no ibpost session left" \
	bash -c '[[ -z $(cat /sys/kernel/debug/ibpost/sessions) ]]'
rig_pair_end "after the server host vanished"
if rig_kmemleak "$IBPOST_OUT/kmemleak.txt"; then
	t_check "kmemleak: nothing leaked" test ! -s "$IBPOST_OUT/kmemleak.txt"
fi
t_done
