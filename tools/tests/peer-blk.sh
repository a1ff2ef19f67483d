#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibpost_blk on the memory of `ibpost serve` on the other guest
# (Documentation/blk.rst), rows of the peer suite's client
# (peer-client.sh sources this and calls peer_blk SERVER): a 64 MiB device
# on the server's memory with 2 queues (2 blk-mq hardware queues, 2
# connections of one session on the server: peer-server.sh checks its
# log), fio --verify=crc32c at 4 KiB, 64 KiB and 1 MiB with 2 jobs, ext4 (a tree in, fsck -n, remount, checksums), a second
# device at once, a map past the limited server's budget refused with its
# reason, then the limited server killed under fio (peer-server.sh kills it
# when it sees the marker region of PEER_BLK_MARK bytes): fio's I/O fails
# within PEER_BLK_LOST_S, the device is in error, no task in D state, it
# unmaps, ibpost_blk unloads and no session is left.  Sizes are small: the
# wire between the guests moves about 10 MB/s.
# shellcheck source=tools/tests/blk-lib.sh
. tools/tests/blk-lib.sh

# The marker region the server kills its limited serve under (3 MiB + 12 KiB).
PEER_BLK_MARK=3158016
# Documentation/blk.rst: I/O fails this soon after the server is gone.
PEER_BLK_LOST_S=20

peer_blk() {
	local S=$1 name n2 A lim out rc t0 fpid frc secs st
	local FIG=$IBPOST_OUT/peer-blk.txt MNT=/tmp/ibpost-blk-mnt
	: >"$FIG"
	local blk
	rig_modprobe ext4 || true
	blk=$(dirname "$KO")/blk/ibpost_blk.ko
	if ! insmod "$blk"; then
		t_fail "insmod ibpost_blk" "$blk"
		return
	fi
	t0=$SECONDS
	name=$($IBPOST blk map --dev rxe0 --connect "$S" --size 64M --depth 16 --queues 2 2>&1)
	if [[ $name == ibpostb* ]] && wait_dev "$name"; then
		t_ok "blk map --connect $S --size 64M --queues 2: /dev/$name ($((SECONDS - t0)) s)"
	else
		t_fail "blk map --connect $S --size 64M --queues 2" "$name"
		rmmod ibpost_blk
		return
	fi
	A=/sys/block/$name/ibpost
	lim="server $(cat "$A/server") queues $(cat "$A/queues") hw_queues $(find "/sys/block/$name/mq" -mindepth 1 -maxdepth 1 -type d | wc -l) chunk $(cat "$A/chunk") size $(blockdev --getsize64 "/dev/$name") state $(cat "$A/state")"
	echo "$name: $lim" >>"$FIG"
	if [[ $lim == "server $S port 0 queues 2 hw_queues 2 chunk 1048576 size 67108864 state live" ]]; then
		t_ok "$name: on the server's memory: $lim"
	else
		t_fail "$name: on the server's memory" "$lim"
	fi
	fio_verify "$name" 4k 2M 2
	fio_verify "$name" 64k 4M 2
	fio_verify "$name" 1M 8M 2
	blk_ext4 "$name" "$MNT" 50 Documentation include kunit tools/tests

	n2=$($IBPOST blk map --dev rxe0 --connect "$S" --size 8M --depth 4 2>&1)
	if [[ $n2 == ibpostb* && $n2 != "$name" ]] && wait_dev "$n2" && blk_second "$n2"; then
		t_ok "a second device $n2 on the server at once: 8 MiB written and read back equal"
	else
		t_fail "a second device on the server" "$n2"
	fi
	t_check "unmap $n2" "$IBPOST" blk unmap "$n2"
	t_check "unmap $name" "$IBPOST" blk unmap "$name"

	out=$($IBPOST blk map --dev rxe0 --connect "$S:18521" --size 128M 2>&1)
	rc=$?
	if [[ $rc != 0 && $out == *"refused"*"budget of pinned memory"* ]]; then
		t_ok "a 128 MiB map against the 100 MiB server refused: $out"
	else
		t_fail "a map past the server's budget refused with its reason" "exit $rc: $out"
	fi

	# The limited server is killed under fio.
	t0=$(date +%s.%N)
	name=$($IBPOST blk map --dev rxe0 --connect "$S:18521" --size $PEER_BLK_MARK --depth 8 2>&1)
	if [[ $name == ibpostb* ]] && wait_dev "$name"; then
		timeout 120 fio --name=lost --filename="/dev/$name" --direct=1 --ioengine=libaio \
			--rw=randrw --bs=64k --numjobs=2 --iodepth=8 --time_based --runtime=100 \
			>"$IBPOST_OUT/peer-blk-fio.txt" 2>&1 &
		fpid=$!
		wait "$fpid"
		frc=$?
		secs=$(echo "$(date +%s.%N) - $t0" | bc)
		st=$(cat "/sys/block/$name/ibpost/state")
		echo "serve killed under fio: fio exit $frc after $secs s from the map, state $st" >>"$FIG"
		if [[ $frc != 0 && $frc != 124 && $st == error ]] &&
			(($(echo "$secs < $PEER_BLK_LOST_S" | bc))) &&
			grep -q 'error' "$IBPOST_OUT/peer-blk-fio.txt"; then
			t_ok "serve killed under fio: I/O failed $secs s after the map (< $PEER_BLK_LOST_S s), state $st"
		else
			t_fail "serve killed under fio: I/O errors in time" "fio exit $frc after $secs s, state $st: $(tail -n 3 "$IBPOST_OUT/peer-blk-fio.txt" | tr '\n' ' ')"
		fi
		if ! dd if="/dev/$name" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
			t_ok "after the server went: new I/O fails"
		else
			t_fail "after the server went: new I/O fails" "a read succeeded"
		fi
		no_dstate
		t_check "unmap after the server went" "$IBPOST" blk unmap "$name"
	else
		t_fail "map for the killed-server test" "$name"
	fi
	t_check "rmmod ibpost_blk" rmmod ibpost_blk
	t_check "no ibpost session left" \
		bash -c '[[ -z $(cat /sys/kernel/debug/ibpost/sessions) ]]'
}
