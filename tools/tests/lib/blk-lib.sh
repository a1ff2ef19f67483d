#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the ibpost_blk tests do to a mapped device, once for the local
# region (blk.sh) and the server's memory (peer-blk.sh).  Sourced after
# tap.sh; $IBPOST is the tool, $FIG the figures file, $IBPOST_OUT the
# guest's output directory.

# wait_dev NAME: /dev/NAME appears (devtmpfs).
wait_dev() {
	local _
	for _ in $(seq 50); do
		[[ -b /dev/$1 ]] && return 0
		sleep 0.1
	done
	return 1
}

# fio_io_bytes FOUT: the bytes fio's output FOUT says it read and wrote
# (its READ: and WRITE: status lines' io=; 0 when none).
fio_io_bytes() {
	awk '/^ *(READ|WRITE): / && match($0, /io=[0-9.]+[KMGT]?i?B/) {
		v = substr($0, RSTART + 3, RLENGTH - 3); n = v + 0
		m = v ~ /K/ ? 1024 : v ~ /M/ ? 1048576 : v ~ /G/ ? 1073741824 : v ~ /T/ ? 1099511627776 : 1
		t += n * m
	} END { printf "%d\n", t }' "$1"
}

# blk_map MAP-OPTION...: 'ibpost blk map MAP-OPTION...' with its standard
# output (the device's name); its standard error (a refusal, a warning)
# in BLK_MAP_ERR, and also on standard output when the map failed.
BLK_MAP_ERR=/tmp/ibpost-blk-map.err
blk_map() {
	local rc=0
	"$IBPOST" blk map "$@" 2>"$BLK_MAP_ERR" || rc=$?
	((rc == 0)) || cat "$BLK_MAP_ERR"
	return $rc
}

# blk_map_or_end ROW MAP-OPTION...: 'ibpost blk map MAP-OPTION...', its
# name in NAME once /dev/NAME is there: a TAP row ROW (with the time it
# took); when the map fails, a failed row and the end of the script.
blk_map_or_end() {
	local row=$1 t0=$SECONDS
	shift
	NAME=$(blk_map "$@")
	if [[ $NAME == ibpostb* ]] && wait_dev "$NAME"; then
		t_ok "$row: /dev/$NAME ($((SECONDS - t0)) s)"
	else
		t_fail "$row" "$NAME"
		t_done
		exit 1
	fi
}

# fio_verify DEV BS PER_JOB JOBS: each job its own range, random writes
# then crc32c verify; a TAP row.
fio_verify() {
	local dev=$1 bs=$2 per=$3 jobs=$4 out rc=0 t=$SECONDS
	out=$(timeout 300 fio --name=v --filename="/dev/$dev" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs="$bs" --size="$per" --offset_increment="$per" \
		--numjobs="$jobs" --iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--randrepeat=0 --group_reporting 2>&1) || rc=$?
	echo "$dev: fio $bs x$jobs jobs of $per: rc $rc, $((SECONDS - t)) s" >>"$FIG"
	grep -E 'WRITE:|READ:' <<<"$out" >>"$FIG"
	if [[ $rc == 0 && $out == *"err= 0"* && $out != *"verify:"*"bad"* && $out == *"READ:"* ]]; then
		t_ok "$dev: fio randwrite + verify crc32c at $bs, $jobs jobs x $per ($((SECONDS - t)) s)"
	else
		t_fail "$dev: fio randwrite + verify crc32c at $bs" "rc $rc: $(tail -n 5 <<<"$out" | tr '\n' ' ')"
	fi
}

# blk_zeroes DEV: the queue declares discard and write zeroes; 1 MiB of
# random bytes around one of the region's MR ends (its middle when the
# region is one MR), then blkdiscard of 128 KiB across that end and
# blkdiscard -z (BLKZEROOUT: REQ_OP_WRITE_ZEROES) of 64 KiB before it:
# both read back as zeros, every other byte as written.  TAP rows.
# blk_busy_half DEV MID CHUNK: issue 42.  A discard across the MR end at
# MID is two session requests; the second, from MID, is refused once as a
# full send queue refuses it (a test build's session_test_busy_page hook).
# That fails no session, so no session event will kick the requeued
# request: the device kicks it itself after 100 ms, and the discard ends
# (before, its task waited in D state until some unrelated loss).  Rows:
# blkdiscard ends with 0 within 10 s, the refusal was taken (the hook back
# at 0); no task in D state.  Not without the hook (a product build) nor
# when MID is not an MR end.
blk_busy_half() {
	local dev=$1 mid=$2 hook=/sys/module/ibpost/parameters/session_test_busy_page
	local pid rc=0 t0 _
	[[ -w $hook ]] && (($2 == $3)) || return 0
	echo $((mid / 4096 + 1)) >"$hook"
	t0=$SECONDS
	blkdiscard -o $((mid - 65536)) -l 131072 "/dev/$dev" 2>>"$FIG" &
	pid=$!
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		t_fail "$dev: a discard whose second half was refused once for room ends" \
			"blkdiscard still running after $((SECONDS - t0)) s, hook $(cat "$hook")"
		echo 0 >"$hook"
		return
	fi
	wait "$pid" || rc=$?
	if [[ $rc == 0 && $(cat "$hook") == 0 ]]; then
		t_ok "$dev: a discard whose second half was refused once for room ended ($((SECONDS - t0)) s, requeued and kicked)"
	else
		t_fail "$dev: a discard whose second half was refused once for room ends" \
			"blkdiscard exit $rc, hook $(cat "$hook") (not 0: the refusal never came)"
	fi
	echo 0 >"$hook"
	no_dstate "$dev: a refused second half"
}

blk_zeroes() {
	local dev=$1 A=/sys/block/$1/ibpost Q=/sys/block/$1/queue chunk size mid base
	local f=/tmp/blk-zero-$1 dmax zmax
	chunk=$(cat "$A/chunk")
	size=$(blockdev --getsize64 "/dev/$dev")
	mid=$chunk
	((chunk >= size || chunk < 1048576)) && mid=$((size / 2))
	base=$((mid - 512 * 1024))
	dmax=$(cat "$Q/discard_max_bytes")
	zmax=$(cat "$Q/write_zeroes_max_bytes")
	echo "$dev: discard_max_bytes $dmax write_zeroes_max_bytes $zmax granularity $(cat "$Q/discard_granularity") chunk $chunk" >>"$FIG"
	if ((dmax > 0 && zmax > 0 && dmax <= chunk && zmax <= chunk)); then
		t_ok "$dev: discard and write zeroes declared, at most one MR ($dmax, $zmax bytes)"
	else
		t_fail "$dev: discard and write zeroes declared" "discard $dmax write zeroes $zmax chunk $chunk"
	fi
	dd if=/dev/urandom of="$f" bs=1M count=1 status=none
	dd if="$f" of="/dev/$dev" bs=1M seek=$base oflag=direct,seek_bytes status=none
	# The expected image: zeros at [mid-64K, mid+64K) and [mid-256K, mid-192K).
	cp "$f" "$f.want"
	dd if=/dev/zero of="$f.want" bs=64k seek=7 count=2 conv=notrunc status=none
	dd if=/dev/zero of="$f.want" bs=64k seek=4 count=1 conv=notrunc status=none
	if blkdiscard -o $((mid - 65536)) -l 131072 "/dev/$dev" 2>>"$FIG" &&
		blkdiscard -z -o $((mid - 262144)) -l 65536 "/dev/$dev" 2>>"$FIG" &&
		dd if="/dev/$dev" of="$f.got" bs=1M count=1 skip=$base \
			iflag=direct,skip_bytes status=none &&
		cmp -s "$f.want" "$f.got"; then
		t_ok "$dev: blkdiscard across an MR end and blkdiscard -z read back as zeros, the bytes around unchanged"
	else
		t_fail "$dev: blkdiscard and blkdiscard -z" "$(cmp "$f.want" "$f.got" 2>&1 | head -1)"
	fi
	rm -f "$f" "$f.want" "$f.got"
	blk_busy_half "$dev" "$mid" "$chunk"
	# fio's trim with verify, 4 MiB around the MR end: each 64 KiB block
	# discarded, then written over (trimwrite), then read back and checked
	# (crc32c): a discard that completed after the write over it would
	# destroy the data.  psync: fio trims with BLKDISCARD there.
	local lo=$((mid - 2097152)) js
	((lo < 0)) && lo=0
	js=$(fio --name=trimverify --filename="/dev/$dev" --direct=1 --ioengine=psync \
		--rw=trimwrite --bs=64k --offset=$lo --size=4M --verify=crc32c \
		--output-format=json 2>&1)
	echo "$dev: fio trimwrite verify: $(sed -n '/^}/,$p' <<<"$js" | tr '\n' ' ' | head -c 300)" >>"$FIG"
	t_check "$dev: fio trimwrite with verify: 64 discards, each block written over and verified (crc32c), 0 errors" \
		python3 -c '
import json, sys
t = sys.stdin.read()
j = json.JSONDecoder().raw_decode(t[t.index("{"):])[0]["jobs"][0]
sys.exit(not (j["error"] == 0 and j["trim"]["total_ios"] == 64 and
              j["write"]["total_ios"] == 64 and j["read"]["total_ios"] == 64))' <<<"$js"
}

# blk_config: the commands of ibpost-blk.service (tools/systemd) with a
# config file of two local devices (a comment, a blank line): map
# --config maps both (found by their serials), again skips both (mapped
# already), unmap --force --config unmaps both; a line without --serial
# is refused with FILE:LINE and maps nothing.
blk_config() {
	local cfg=/tmp/ibpost-blk.conf out1 out2 out3 rc1 rc2 rc3 n1 n3
	printf '%s\n' '# two local devices' '' \
		'--dev rxe_lo --size 4M --queues 1 --depth 4 --serial svc-a' \
		'--dev rxe_lo --size 4M --depth 8 --serial svc-b' >"$cfg"
	out1=$($IBPOST blk map --config "$cfg" 2>&1)
	rc1=$?
	n1=$(grep -lx 'svc-[ab]' /sys/block/ibpostb*/ibpost/serial 2>/dev/null | wc -l)
	out2=$($IBPOST blk map --config "$cfg" 2>&1)
	rc2=$?
	out3=$($IBPOST blk unmap --force --config "$cfg" 2>&1)
	rc3=$?
	n3=$(grep -lx 'svc-[ab]' /sys/block/ibpostb*/ibpost/serial 2>/dev/null | wc -l)
	echo "blk.conf: map exit $rc1 ($n1 mapped): $out1 | again exit $rc2: $out2 | unmap exit $rc3 ($n3 left): $out3" >>"$FIG"
	if [[ $rc1$rc2$rc3 == 000 && $n1 == 2 && $n3 == 0 &&
		$(grep -c 'mapped already' <<<"$out2") == 2 ]]; then
		t_ok "blk.conf (the service's commands): 2 devices mapped by serial, mapped again: both skipped, unmap --force --config: none left"
	else
		t_fail "blk.conf: map, map again, unmap --force" "exits $rc1 $rc2 $rc3, mapped $n1, left $n3: $(tr '\n' ' ' <<<"$out2")"
	fi
	printf '%s\n' '--dev rxe_lo --size 4M --serial svc-c' '--dev rxe_lo --size 4M' >"$cfg"
	out1=$($IBPOST blk map --config "$cfg" 2>&1)
	rc1=$?
	n1=$(grep -lx 'svc-c' /sys/block/ibpostb*/ibpost/serial 2>/dev/null | wc -l)
	if [[ $rc1 == 2 && $out1 == *"$cfg:2: a device needs --dev, --size and --serial"* && $n1 == 0 ]]; then
		t_ok "blk.conf: a line without --serial refused with its place ($cfg:2), nothing mapped"
	else
		t_fail "blk.conf: a line without --serial refused" "exit $rc1, $n1 mapped: $out1"
	fi
	rm -f "$cfg"
}

# The checksums of every file under a directory.
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# blk_ext4 DEV MNT MIN_FILES DIRS...: mkfs.ext4, mount, DIRS copied in,
# checksums equal (more than MIN_FILES files), unmap refused while mounted,
# umount, fsck -n clean, mounted again with the same checksums, umount.
blk_ext4() {
	local dev=$1 mnt=$2 min=$3 src got nfiles out rc t0=$SECONDS
	shift 3
	mkdir -p "$mnt"
	if ! mkfs.ext4 -q -F "/dev/$dev" >/dev/null 2>&1 || ! mount "/dev/$dev" "$mnt"; then
		t_fail "$dev: mkfs.ext4 + mount" "/dev/$dev"
		return
	fi
	rm -rf /tmp/blk-tree
	mkdir -p /tmp/blk-tree
	cp -a "$@" /tmp/blk-tree/
	cp -a /tmp/blk-tree/. "$mnt/" && sync
	src=$(sums /tmp/blk-tree)
	got=$(sums "$mnt")
	nfiles=$(wc -l <<<"$got")
	if [[ $src == "$got" && $nfiles -gt $min ]]; then
		t_ok "$dev: ext4: $nfiles files copied in, checksums equal"
	else
		t_fail "$dev: ext4: copy" "$nfiles files; diff $(diff <(echo "$src") <(echo "$got") | head -3 | tr '\n' ' ')"
	fi
	out=$($IBPOST blk unmap "$dev" 2>&1)
	rc=$?
	if [[ $rc != 0 && $out == *"busy"*"open or mounted"* && -b /dev/$dev ]]; then
		t_ok "$dev: unmap refused while mounted: $out"
	else
		t_fail "$dev: unmap refused while mounted" "exit $rc: $out"
	fi
	umount "$mnt"
	if out=$(fsck.ext4 -n -f "/dev/$dev" 2>&1); then
		t_ok "$dev: fsck -n clean after umount"
	else
		t_fail "$dev: fsck -n clean" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	if mount "/dev/$dev" "$mnt" && [[ $(sums "$mnt") == "$got" ]]; then
		t_ok "$dev: mounted again: checksums equal ($((SECONDS - t0)) s)"
	else
		t_fail "$dev: mounted again: checksums equal" "differ"
	fi
	umount "$mnt"
}

# blk_second DEV: 8 MiB of random bytes written to DEV and read back equal.
blk_second() {
	dd if=/dev/urandom of=/tmp/blk-8m bs=1M count=8 status=none &&
		dd if=/tmp/blk-8m of="/dev/$1" bs=64k oflag=direct status=none &&
		cmp /tmp/blk-8m "/dev/$1"
}

# dstate_tasks: "STAT PID COMM; " of each task in D state (read in bash: a
# pipeline's own awk, paging its binary in from 9p, was once in D itself).
dstate_tasks() {
	local st pid comm out
	# ps's output read whole first: if it fails the caller sees it.
	if ! out=$(ps -eo stat=,pid=,comm=) || [[ -z $out ]]; then
		printf 'ps failed; '
		return
	fi
	while read -r st pid comm; do
		[[ $st == D* ]] && printf '%s %s %s; ' "$st" "$pid" "$comm"
	done <<<"$out"
}

# no_dstate [WHEN]: a TAP row, no task in D state: none in D twice, 1 s
# apart (a hung task stays there; a page-in does not).  A ps that failed
# either time fails the row: it saw nothing.
no_dstate() {
	local first second='' dstate='' t
	first=$(dstate_tasks)
	if [[ -n $first ]]; then
		sleep 1
		second=$(dstate_tasks)
		for t in $(tr ' ;' ' \n' <<<"$second" | awk 'NF == 3 { print $2 }'); do
			[[ $first == *" $t "* ]] && dstate+="$t "
		done
		[[ -n $dstate ]] && dstate="in D 1 s apart: pids $dstate($first)"
	fi
	[[ $first$second == *'ps failed'* ]] && dstate='ps failed: no task list to check'
	if [[ -z $dstate ]]; then
		t_ok "${1:+$1: }no task in D state"
	else
		t_fail "${1:+$1: }no task in D state" "$dstate"
	fi
}

# blk_fault DEV STATE BOUND NAME [CMD...]: the session under DEV ends while
# fio runs on it (2 jobs of 64 KiB random reads and writes at depth 8, for
# at most 100 s; its output in $IBPOST_OUT/fio-NAME.txt, NAME's spaces as
# dashes; NAME starts the rows).  With CMD (say
# 'rdma link del rxe_lo'): CMD runs once fio has moved data for 4 s, and
# the time is counted from it.  Without: something else ends the session
# (the server acts on the device's size), the time is counted from the
# call.  Rows: fio's I/O failed within BOUND seconds; the device is in
# STATE and new I/O fails (within 10 s); no task in D state; it unmaps.
# BLK_FAULT_CPUS (fio's cpus_allowed, say 0): fio runs on those CPUs
# only, so that its requests go to their hardware queues alone.
# BLK_FAULT_EIO=1: the error must be EIO (BLK_STS_IOERR: a device on a
# server's memory that failed for good after its reconnect), not ENOLINK.
blk_fault() {
	local dev=$1 state=$2 bound=$3 tag=$4 fout fpid frc t0 secs st done0=0 rc dsecs before
	local A=/sys/block/$1/ibpost
	shift 4
	fout=$IBPOST_OUT/fio-${tag//[^A-Za-z0-9_]/-}.txt
	t0=$(date +%s.%N)
	timeout 120 fio --name="$tag" --filename="/dev/$dev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=64k --numjobs=2 --iodepth=8 --time_based --runtime=100 \
		${BLK_FAULT_CPUS:+--cpus_allowed="$BLK_FAULT_CPUS"} >"$fout" 2>&1 &
	fpid=$!
	if (($#)); then
		sleep 4
		done0=$(awk '{print $2}' "$A/stats")
		t0=$(date +%s.%N)
		"$@" || echo "$tag: '$*' failed" >>"$FIG"
	fi
	wait "$fpid"
	frc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	st=$(cat "$A/state")
	# A fault the server made by itself: what fio moved is what it did
	# before it (every request after the fault fails).
	(($#)) || done0=$(fio_io_bytes "$fout")
	before="$done0 $( (($#)) && echo requests || echo bytes) done before"
	echo "$tag: fio exit $frc after $secs s${1:+ from '$*'}, $before, state $st" >>"$FIG"
	if [[ $frc != 0 && $frc != 124 ]] && ((done0 > 0)) &&
		(($(echo "$secs < $bound" | bc))) && grep -q 'error' "$fout"; then
		t_ok "$tag: fio's I/O failed after $secs s (< $bound s), $before"
	else
		t_fail "$tag: fio's I/O failed in time, I/O done before the fault" "fio exit $frc after $secs s, $before: $(tail -n 3 "$fout" | tr '\n' ' ')"
	fi
	# A lost path is BLK_STS_TRANSPORT (ENOLINK: dm-multipath retries it
	# elsewhere), never a plain I/O error; a device that failed for good
	# after its reconnect ends its I/O with EIO, never ENOLINK.
	if [[ ${BLK_FAULT_EIO:-} == 1 ]]; then
		if grep -q 'Input/output error' "$fout" && ! grep -q 'Link has been severed' "$fout"; then
			t_ok "$tag: the failed I/O's error is EIO (BLK_STS_IOERR), no ENOLINK"
		else
			t_fail "$tag: the failed I/O's error is EIO" "$(grep -m 2 -E 'error|err=' "$fout" | tr '\n' ' ')"
		fi
	elif grep -q 'Link has been severed' "$fout" && ! grep -q 'Input/output error' "$fout"; then
		t_ok "$tag: the failed I/O's error is ENOLINK (BLK_STS_TRANSPORT), no EIO"
	else
		t_fail "$tag: the failed I/O's error is ENOLINK" "$(grep -m 2 -E 'error|err=' "$fout" | tr '\n' ' ')"
	fi
	# New I/O is refused before it reaches the session.  The bound is on
	# dd's own figure (its read and its end; its start from the 9p root
	# and its open left out: those took 13 s once in a loaded debug
	# guest); a request that waited for io_timeout (30 s) or for ever
	# would miss it.  The wall time goes to the figures.
	t0=$(date +%s.%N)
	rc=0
	LC_ALL=C timeout 60 dd if="/dev/$dev" of=/dev/null bs=4k count=1 iflag=direct \
		2>"$fout.dd" || rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	dsecs=$(sed -n 's/.* copied, \([0-9.e+-]*\) s.*/\1/p' "$fout.dd")
	echo "$tag: new I/O: dd exit $rc after $secs s (its own figure: ${dsecs:-none} s)" >>"$FIG"
	if [[ $st == "$state" && $rc != 0 && $rc != 124 && -n $dsecs ]] &&
		awk -v t="$dsecs" 'BEGIN { exit !(t + 0 < 10) }'; then
		t_ok "$tag: state $st, new I/O fails (dd: $dsecs s, $secs s with its start)"
	else
		t_fail "$tag: state $state, new I/O fails within 10 s" \
			"state $st, dd exit $rc after $secs s (its own figure: ${dsecs:-none} s): $(tr '\n' ' ' <"$fout.dd")"
	fi
	no_dstate "$tag"
	t_check "$tag: unmap" "$IBPOST" blk unmap "$dev"
}
