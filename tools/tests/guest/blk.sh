#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest tests of ibpost_blk (run by guest-check.sh).  On the stock kernel:
#   - bad map parameters are refused, each with its reason printed;
#   - a 256 MiB device (2 queues, depth 32): fio --verify=crc32c random
#     writes then verify at 4 KiB, 64 KiB and 1 MiB with 3 jobs each;
#   - mkfs.ext4, mount, a tree copied in, umount, fsck -n clean, mount
#     again, checksums equal; unmapping it while mounted is refused;
#     unmapped after umount, several devices at once;
#   - the RDMA device deleted under fio (blk-lib.sh's blk_fault): fio's I/O
#     fails within the stated time (BLK_LOST_S), new I/O at once, no task in
#     D state, the device unmaps, the modules unload, ibpost/live back to 0
#     (rxe_lo is added back at the end).
# On the debug test kernel (KASAN, lockdep, kmemleak; about a minute): a
# 64 MiB device, fio --verify=crc32c at 64 KiB (2 jobs x 2 MiB), then the
# RDMA device deleted under fio on that device, unmap, rmmod.
# TAP on stdout and in $IBPOST_OUT/blk-$IBPOST_KERNEL.tap.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" blk
# shellcheck source=tools/tests/lib/blk-lib.sh
. tools/tests/lib/blk-lib.sh

BLK=$(dirname "$KO")/blk/ibpost_blk.ko
LIVE=/sys/kernel/debug/ibpost/live
MNT=/tmp/ibpost-blk-mnt
# Documentation/blk.rst: I/O outstanding when the RDMA device goes fails
# within this many seconds (the removal drains it; the request timeout,
# 30 s, is the bound when the device hangs instead).
BLK_LOST_S=30
FIG=$IBPOST_OUT/blk-$IBPOST_KERNEL.txt
: >"$FIG"

rig_provider rxe || { t_fail "load rxe, rxe_lo" "modules, link add"; t_done; exit 1; }
grep -q '^ibpost ' /proc/modules || insmod "$KO" || { t_fail "insmod ibpost" "$KO"; t_done; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
rig_modprobe ext4 || true
if ! insmod "$BLK"; then
	t_fail "insmod ibpost_blk" "$BLK"
	t_done
	exit 1
fi
t_ok "insmod ibpost_blk: /sys/class/ibpost-blk/ctl"

# blk_end: the modules unload, nothing of ibpost is left; the TAP plan.
blk_end() {
	local live
	t_check "rmmod ibpost_blk" rmmod ibpost_blk
	live=$(cat $LIVE 2>&1)
	if [[ -z $(awk '$2 != 0' <<<"$live") && -z $(cat /sys/kernel/debug/ibpost/sessions) ]]; then
		t_ok "ibpost/live counts 0, no session left"
	else
		t_fail "ibpost/live counts 0, no session left" "$(tr '\n' ' ' <<<"$live")"
	fi
	t_check "rmmod ibpost" rmmod ibpost
	rig_rxe_lo || true
	t_done
	exit
}

# ctlfd_rows: /dev/ibpost-blk, a map answered on its own open file
# (module/blk/ctlfd.c): root's node; nothing to read before the write; a
# refusal read back on the writer's file; one map per open file; no open
# without CAP_SYS_ADMIN; four maps at once through the tool, each with its
# own size, each printing its own device (sysfs's last_result is the last
# writer's: a tool reading it could print another map's device).
ctlfd_rows() {
	local node=/dev/ibpost-blk before wrc ans w2 out rc s n names='' bad='' distinct left
	t_check "$node: a character device, root's, 0600 ($(stat -c '%U %a' $node 2>&1))" \
		test -c $node -a "$(stat -c '%U %a' $node)" = "root 600"
	exec 3<>$node
	before=$(read -r -t 2 _ <&3 2>&1)
	printf 'dev=rxe_lo size=1M bogus=1' >&3 2>/dev/null
	wrc=$?
	IFS= read -r -t 5 ans <&3
	printf 'dev=rxe_lo size=1M' >&3 2>/dev/null
	w2=$?
	exec 3>&-
	t_check "$node: no answer before a write (${before##*: }), the refusal on the same file: $ans" \
		test "${before##*: }|$wrc|$ans" = "No data available|1|refused: unknown option 'bogus=1' (the options: cat map_device)"
	t_check "$node: a second map on the same open file refused (write exit $w2), nothing mapped" \
		test "$w2|$(cat /sys/class/ibpost-blk/ctl/devices)" = "1|"
	out=$(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- \
		bash -c "exec 4<>$node" 2>&1)
	rc=$?
	t_check "$node: no open without CAP_SYS_ADMIN (exit $rc: ${out##*: })" \
		test "$rc|${out##*: }" = "1|Operation not permitted"
	for s in 4 8 12 16; do
		$IBPOST blk map --dev rxe_lo --size ${s}M --queues 1 --depth 4 \
			>"/tmp/ibpost-par-$s" 2>&1 &
	done
	wait
	for s in 4 8 12 16; do
		n=$(cat "/tmp/ibpost-par-$s")
		if [[ $n == ibpostb* && $(cat "/sys/block/$n/size" 2>&1) == $((s * 2048)) ]]; then
			names+="$n "
		else
			bad+="${s}M: $n "
		fi
	done
	distinct=$(tr ' ' '\n' <<<"$names" | sort -u | grep -c .)
	t_check "four maps at once, each printed its own device of its size: $names$bad" \
		test -z "$bad" -a "$distinct" = 4
	left=''
	for n in $(cat /sys/class/ibpost-blk/ctl/devices); do
		$IBPOST blk unmap "$n" || left+="$n "
	done
	t_check "the four unmapped: ${left:-ok}" test -z "$left" -a -z "$(cat /sys/class/ibpost-blk/ctl/devices)"
}

if [[ $IBPOST_KERNEL == test ]]; then
	ctlfd_rows
	t0=$SECONDS
	NAME=$($IBPOST blk map --dev rxe_lo --size 64M --queues 2 --depth 16 2>&1)
	if [[ $NAME == ibpostb* ]] && wait_dev "$NAME"; then
		t_ok "map 64M, 2 queues, depth 16: /dev/$NAME ($((SECONDS - t0)) s)"
		fio_verify "$NAME" 64k 2M 2
		blk_fault "$NAME" lost $BLK_LOST_S "rdma link del rxe_lo under fio" \
			rdma link del rxe_lo
	else
		t_fail "map 64M" "$NAME"
	fi
	blk_end
fi

# refused NAME WANT_TEXT ARGS...: 'ibpost blk map ARGS' fails and says WANT_TEXT.
refused() {
	local name=$1 want=$2 out rc=0
	shift 2
	out=$($IBPOST blk map "$@" 2>&1) || rc=$?
	if [[ $rc != 0 && $out == *"refused"*"$want"* ]]; then
		t_ok "map refused: $name: ${out#*refused: }"
	else
		t_fail "map refused: $name" "exit $rc: $out"
	fi
}
refused "no size" "size=" --dev rxe_lo --size 0
refused "size not a multiple of 4 KiB" "multiple of 4096" --dev rxe_lo --size 4097
# a size that is none: refused by the tool's parser before the kernel
out=$($IBPOST blk map --dev rxe_lo --size 12x 2>&1)
rc=$?
if [[ $rc == 2 && $out == "ibpost: blk map: bad --size '12x': not a size ("* ]]; then
	t_ok "map refused: size not a number: $(head -n 1 <<<"$out")"
else
	t_fail "map refused: size not a number" "exit $rc: $out"
fi
refused "size above half the RAM" "buffer too large" --dev rxe_lo --size 64G
refused "unknown RDMA device" "no RDMA device nosuch0" --dev nosuch0 --size 1M
refused "queues 0" "queues=0: 1 to" --dev rxe_lo --size 1M --queues 0
refused "queues 65" "queues=65: 1 to" --dev rxe_lo --size 1M --queues 65
refused "depth 0" "depth=0: 1 to" --dev rxe_lo --size 1M --depth 0
refused "depth 5000" "depth=5000: 1 to" --dev rxe_lo --size 1M --depth 5000
refused "port 9" "no such port" --dev rxe_lo --size 1M --port 9
refused "io_timeout 0" "io_timeout=0: 1 to 600" --dev rxe_lo --size 1M --io-timeout 0
refused "io_timeout 601" "io_timeout=601: 1 to 600" --dev rxe_lo --size 1M --io-timeout 601
t_expect "map: a value with '=' is refused by the tool" 2 \
	$IBPOST blk map --dev rxe_lo --size 1M --depth 4=dev=x
out=$(echo "dev=rxe_lo size=1M bogus=1" 2>&1 >/sys/class/ibpost-blk/ctl/map_device)
res=$(cat /sys/class/ibpost-blk/ctl/last_result)
if [[ $res == "refused: unknown option 'bogus=1'"* ]]; then
	t_ok "map_device: unknown option refused ($res)"
else
	t_fail "map_device: unknown option refused" "$res $out"
fi
# A resume token of zeros is none a server gives: refused at the map, not
# sent for the server to call malformed.
echo "dev=rxe_lo size=1M connect=192.0.2.1 resume=7:1:00000000000000000000000000000000" \
	2>/dev/null >/sys/class/ibpost-blk/ctl/map_device
res=$(cat /sys/class/ibpost-blk/ctl/last_result)
if [[ $res == "refused: bad value in resume="* ]]; then
	t_ok "map_device: a resume token of zeros refused ($res)"
else
	t_fail "map_device: a resume token of zeros refused" "$res"
fi
if [[ -z $(cat /sys/class/ibpost-blk/ctl/devices) ]]; then
	t_ok "nothing mapped after the refusals"
else
	t_fail "nothing mapped after the refusals" "$(cat /sys/class/ibpost-blk/ctl/devices)"
fi
ctlfd_rows

blk_map_or_end "map 256M, 2 queues, depth 32" --dev rxe_lo --size 256M --queues 2 --depth 32
A=/sys/block/$NAME/ibpost
sz=$(blockdev --getsize64 "/dev/$NAME")
lim="queues $(cat $A/queues) segs $(cat $A/max_segments) chunk $(cat $A/chunk) max_hw_kb $(cat /sys/block/$NAME/queue/max_hw_sectors_kb) chunk_sectors $(cat /sys/block/$NAME/queue/chunk_sectors) fua/wc $(cat /sys/block/$NAME/queue/write_cache)"
echo "$NAME: $lim" >>"$FIG"
if [[ $sz == 268435456 && $(cat $A/queues) == 2 && $(cat $A/state) == live &&
	$(cat /sys/block/$NAME/queue/chunk_sectors) == $(($(cat $A/chunk) / 512)) &&
	$(cat /sys/block/$NAME/queue/write_cache) == "write through" ]]; then
	t_ok "limits: 256 MiB, 2 hw queues, chunk = region MR, no write cache ($lim)"
else
	t_fail "limits" "size $sz $lim state $(cat $A/state)"
fi
json=$($IBPOST blk list --json)
if python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; assert d[0]["name"]==sys.argv[1] and d[0]["size"]==268435456 and d[0]["queues"]==2, d' "$NAME" <<<"$json" 2>&1; then
	t_ok "list --json: $NAME 256 MiB, 2 queues"
else
	t_fail "list --json" "$json"
fi
t_check "list: one row for $NAME" bash -c "$IBPOST blk list | grep -q '^$NAME .*rxe_lo .* 256 MiB '"

before=$(awk '{print $2}' $A/stats)
fio_verify "$NAME" 4k 4M 3
fio_verify "$NAME" 64k 16M 3
fio_verify "$NAME" 1M 48M 3
after=$(awk '{print $2}' $A/stats)
# 3 x (1024 + 256 + 48) writes, as many reads at least.
if ((after - before >= 2 * 3 * (1024 + 256 + 48))) && [[ $(awk '{print $3}' $A/stats) == 0 ]]; then
	t_ok "the session completed $((after - before)) requests, 0 errors"
else
	t_fail "session requests" "$before -> $after, stats $(cat $A/stats)"
fi
# The server's address is root's (0400); the counters are everyone's.
if [[ $(stat -c %a "$A/server") == 400 ]] &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups cat "$A/server" >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups cat "$A/latency" >/dev/null 2>&1; then
	t_ok "ibpost/server is 0400: another user cannot read it, latency it can"
else
	t_fail "ibpost/server is 0400" "mode $(stat -c %a "$A/server")"
fi
read -r ls lmin lavg l50 l99 l999 lmax <"$A/latency"
echo "latency (exact, last $ls): min $lmin avg $lavg p50 $l50 p99 $l99 p999 $l999 max $lmax ns" >>"$FIG"
if ((ls > 0 && lmin <= l50 && l50 <= l99 && l99 <= l999 && l999 <= lmax)); then
	t_ok "latency: exact percentiles over $ls requests (p50 $((l50 / 1000)) us, p99 $((l99 / 1000)) us)"
else
	t_fail "latency" "$(cat $A/latency)"
fi

# Discard and write zeroes: zeros written into the region (io.c), a range
# across one of its MRs' ends included; the bytes around stay.
blk_zeroes "$NAME"

# A file system: a tree in, fsck clean, the same bytes after a remount.
blk_ext4 "$NAME" "$MNT" 50 Documentation include kunit tools/tests

# Several at once.
N2=$($IBPOST blk map --dev rxe_lo --size 8M --queues 1 --depth 4 --io-timeout 7 2>&1)
if [[ $N2 == ibpostb* && $N2 != "$NAME" ]] && wait_dev "$N2" && blk_second "$N2" &&
	[[ $($IBPOST blk list | grep -c '^ibpostb') == 2 ]]; then
	t_ok "a second device $N2 at once: 8 MiB written and read back equal"
else
	t_fail "a second device" "$N2"
fi
t_check "io_timeout=7: $N2's queue/io_timeout is 7000 ms" \
	test "$(cat /sys/block/"$N2"/queue/io_timeout 2>&1)" = 7000
# The reconnect timers: nvme-rdma's defaults, changed in sysfs (root),
# a write the map would refuse is refused and changes nothing.
A2=/sys/block/$N2/ibpost
t0=$(cat "$A2/reconnect_delay" "$A2/ctrl_loss_tmo" "$A2/fast_io_fail_tmo" | tr '\n' ' ')
echo 5 >"$A2/reconnect_delay" && echo 30 >"$A2/ctrl_loss_tmo" && echo 2 >"$A2/fast_io_fail_tmo"
t1=$(cat "$A2/reconnect_delay" "$A2/ctrl_loss_tmo" "$A2/fast_io_fail_tmo" | tr '\n' ' ')
bad=0
for w in reconnect_delay=0 reconnect_delay=3601 ctrl_loss_tmo=-2 fast_io_fail_tmo=-2 reconnect_delay=x; do
	echo "${w#*=}" 2>/dev/null >"$A2/${w%%=*}" && bad=$((bad + 1))
done
t2=$(cat "$A2/reconnect_delay" "$A2/ctrl_loss_tmo" "$A2/fast_io_fail_tmo" | tr '\n' ' ')
t_check "reconnect timers: defaults '$t0', set in sysfs to '$t1', 5 bad writes refused ($bad taken), still '$t2'" \
	test "$t0|$t1|$bad|$t2" = "10 600 -1 |5 30 2 |0|5 30 2 "
# reset (nvme's reset_controller): a local region has nothing to
# reconnect to, so it is refused (the peer suite resets devices on a
# server's memory).
out=$( (echo 1 >"$A2/reset") 2>&1)
rc=$?
t_check "reset of a local device refused: $out" \
	test "$rc:${out##*: }" = "1:Operation not supported"
# Root without CAP_SYS_ADMIN (a container's, a hardened unit's) may not
# write the per-device files, as it may not map: EPERM, nothing changed.
np=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin --)
out=$("${np[@]}" bash -c "echo 0 >$A2/ctrl_loss_tmo" 2>&1)
rc=$?
out2=$("${np[@]}" bash -c "echo 1 >$A2/reset" 2>&1)
rc2=$?
t3=$(cat "$A2/reconnect_delay" "$A2/ctrl_loss_tmo" "$A2/fast_io_fail_tmo" | tr '\n' ' ')
t_check "without CAP_SYS_ADMIN: ctrl_loss_tmo and reset writes refused ($rc:${out##*: } / $rc2:${out2##*: }), timers still '$t3'" \
	test "$rc:${out##*: }|$rc2:${out2##*: }|$t3" = "1:Operation not permitted|1:Operation not permitted|5 30 2 "
# Serials: the default a UUID, serial= as given, a bad one refused; the
# shipped udev rule names /dev/disk/by-id/ibpost-SERIAL (udevadm test runs
# the rules in-process: the guest has no udevd).
ser=$(cat /sys/block/"$NAME"/ibpost/serial 2>&1)
if [[ $ser =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ &&
	$(cat /sys/block/"$N2"/ibpost/serial) != "$ser" ]]; then
	t_ok "serial: a random UUID by default ($ser), another for $N2"
else
	t_fail "serial: a random UUID by default" "$ser / $(cat /sys/block/"$N2"/ibpost/serial 2>&1)"
fi
refused "serial with a slash" "bad value in 'serial=a/b'" --dev rxe_lo --size 1M --serial a/b
refused "serial of 37 characters" "bad value in 'serial=" --dev rxe_lo --size 1M --serial "$(printf 'x%.0s' {1..37})"
mkdir -p /run/udev/rules.d
cp tools/udev/60-ibpost.rules /run/udev/rules.d/
N4=$($IBPOST blk map --dev rxe_lo --size 4M --queues 1 --depth 4 --serial db-1.a_b 2>&1)
if [[ $N4 == ibpostb* ]] && wait_dev "$N4"; then
	links=$(udevadm test --action=add "/sys/block/$N4" 2>&1 | grep -o "disk/by-id/ibpost-[^' ]*" | sort -u)
	if [[ $(cat /sys/block/"$N4"/ibpost/serial) == db-1.a_b && $links == disk/by-id/ibpost-db-1.a_b ]]; then
		t_ok "serial=db-1.a_b: the udev rule links /dev/$links"
	else
		t_fail "serial=db-1.a_b: the udev rule's link" "serial $(cat /sys/block/"$N4"/ibpost/serial) links '$links'"
	fi
	t_check "unmap $N4" $IBPOST blk unmap "$N4"
else
	t_fail "map --serial db-1.a_b" "$N4"
fi
rm -f /run/udev/rules.d/60-ibpost.rules
blk_config
# ro=1 is refused (a new region holds only zeros: issue 42), with the
# reason.  A device root makes read-only (blockdev --setro): reads work,
# writes fail before they reach the session (its request count does not
# move; the block layer only warns of them), the data is untouched.
rc=0
out=$($IBPOST blk map --dev rxe_lo --size 4M --queues 1 --depth 4 --read-only 2>&1) || rc=$?
t_check "--read-only refused with its reason (exit $rc): $out" \
	test "$rc" = 1 -a "$out" = "ibpost: blk map refused: Invalid argument: ro=1: a new region holds only zeros, so a read-only device could read nothing else (read-only is for exported data)"
N3=$($IBPOST blk map --dev rxe_lo --size 4M --queues 1 --depth 4 2>&1)
if [[ $N3 == ibpostb* ]] && wait_dev "$N3" && blockdev --setro "/dev/$N3"; then
	req0=$(awk '{print $1}' /sys/block/"$N3"/ibpost/stats)
	wrc=0
	dd if=/dev/urandom of="/dev/$N3" bs=4k count=1 oflag=direct status=none 2>/dev/null || wrc=$?
	req1=$(awk '{print $1}' /sys/block/"$N3"/ibpost/stats)
	if [[ $(cat /sys/block/"$N3"/ro) == 1 && $wrc != 0 && $req0 == "$req1" ]] &&
		cmp -s -n 4M "/dev/$N3" /dev/zero; then
		t_ok "blockdev --setro: $N3's ro is 1, a write fails (dd exit $wrc) without a request, it reads zeros"
	else
		t_fail "blockdev --setro" "ro $(cat /sys/block/"$N3"/ro) dd exit $wrc requests $req0 -> $req1"
	fi
	t_check "unmap $N3" $IBPOST blk unmap "$N3"
else
	t_fail "map, then blockdev --setro" "$N3"
fi
t_check "unmap /dev/$N2 (the node's path)" $IBPOST blk unmap "/dev/$N2"
# blk list --json while another process maps and unmaps: every output
# parses (a device vanishing mid-listing is null, never "?").
# The mapper's every map and unmap must succeed (a failed map would leave
# nothing to list concurrently), and the listings must see a device.
# The first device stays until a listing saw it (at most 10 s): however
# slow a listing is, one overlaps a mapping (two listings across five
# quick map/unmap cycles saw none once on the 6.12 guest).
base=$($IBPOST blk list --json 2>&1 | grep -o '"name"' | wc -l)
seenf=/tmp/ibpost-list-seen
rm -f "$seenf"
( ok=0
for i in 1 2 3 4 5; do
	n=$($IBPOST blk map --dev rxe_lo --size 4M --queues 1 --depth 4 2>&1) || continue
	if ((i == 1)); then
		for _ in $(seq 100); do
			[[ -e $seenf ]] && break
			sleep 0.1
		done
	fi
	$IBPOST blk unmap "$n" && ok=$((ok + 1))
done
((ok == 5)) ) &
mapper=$!
lists=0 bad='' seen=0
while kill -0 "$mapper" 2>/dev/null || ((lists == 0)); do
	out=$($IBPOST blk list --json 2>&1)
	lists=$((lists + 1))
	python3 -c 'import json,sys; json.load(sys.stdin)["devices"]' <<<"$out" >/dev/null 2>&1 ||
		bad=$out
	[[ -n $bad ]] && break
	# More than before: one of the mapper's.
	if (($(grep -o '"name"' <<<"$out" | wc -l) > base)); then
		seen=$((seen + 1))
		touch "$seenf"
	fi
done
rm -f "$seenf"
mrc=0
wait "$mapper" || mrc=$?
if [[ -z $bad && $mrc == 0 ]] && ((seen > 0)); then
	t_ok "list --json during a concurrent map/unmap: all $lists outputs parse, $seen saw a mapper's device, 5 maps and unmaps succeeded"
elif [[ -z $bad ]]; then
	t_fail "list --json during a concurrent map/unmap: concurrency" "mapper exit $mrc, $seen of $lists listings saw its device"
else
	t_fail "list --json during a concurrent map/unmap" "$(head -c 300 <<<"$bad")"
fi
t_check "unmap $NAME" $IBPOST blk unmap "$NAME"
if [[ ! -e /dev/$NAME && -z $(cat /sys/class/ibpost-blk/ctl/devices) ]]; then
	t_ok "unmapped: /dev/$NAME gone, no device listed"
else
	t_fail "unmapped" "$(ls /dev/ibpostb* 2>&1)"
fi
t_expect "unmap of a device not mapped: refused" 1 $IBPOST blk unmap "$NAME"
live=$(cat $LIVE 2>&1)
if [[ -z $(awk '$2 != 0' <<<"$live") ]]; then
	t_ok "unmapped: ibpost/live counts 0"
else
	t_fail "unmapped: ibpost/live counts 0" "$(tr '\n' ' ' <<<"$live")"
fi

# The RDMA device deleted under fio.
NAME=$($IBPOST blk map --dev rxe_lo --size 64M --queues 2 --depth 16 2>&1)
if [[ $NAME == ibpostb* ]] && wait_dev "$NAME"; then
	blk_fault "$NAME" lost $BLK_LOST_S "rdma link del rxe_lo under fio" \
		rdma link del rxe_lo
else
	t_fail "map for the removal test" "$NAME"
	rdma link del rxe_lo
fi
blk_end
