#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest block section of 'make bench' (issue 14; tools/bench.sh boots it
# on the stock kernel, alone with 'tools/bench.sh --only blk').  On ONE rxe
# device (rxe_d0 on a dummy netdev, 192.0.2.9: nvme-rdma needs rdma_cm):
#   brd        a brd RAM disk (/dev/ram0) of SIZE: the ceiling, no RDMA;
#   nvme-rdma  the same ram0 exported by nvmet-rdma on 192.0.2.9:4420 and
#              connected with nvme-cli (nvme-rdma over rdma_cm);
#   ibpost_blk an ibpost_blk device of SIZE mapped on rxe_d0 (loopback).
# Both RDMA devices get 2 queues (one per vCPU) of 128 requests (nvme-rdma's
# default queue size).  fio workloads, medians and the table:
# tools/tests/lib/bench-blk-lib.sh.  Then perf profiles (cpu-clock, all CPUs)
# of 4 KiB random reads at depth 32 and 1 and of 128 KiB writes on each
# RDMA device: where the time goes, in the notes.
# Kernel arguments (tools/bench.sh passes them): rig.blk_runtime (s, 6),
# rig.blk_ramp (s, 2), rig.blk_reps (3), rig.blk_size (MiB, 512),
# rig.blk_profile (1: profile; 0: not).
# Writes $IBPOST_OUT/bench-blk.txt and $IBPOST_OUT/bench-blk-raw/.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/bench-blk-lib.sh
. tools/tests/lib/bench-blk-lib.sh
# shellcheck source=tools/tests/lib/nvmet-lib.sh
. tools/tests/lib/nvmet-lib.sh
rig_ibpost_paths

out=${IBPOST_OUT:-/tmp}
BLK_RAW=$out/bench-blk-raw
BLK_RUNTIME=$(rig_arg blk_runtime || echo 6)
BLK_RAMP=$(rig_arg blk_ramp || echo 2)
BLK_REPS=$(rig_arg blk_reps || echo 3)
size_mb=$(rig_arg blk_size || echo 512)
profile=$(rig_arg blk_profile || echo 1)
RDEV=rxe_d0
ADDR=192.0.2.9
NQN=nqn.2026-12.org.ibpost:bench-blk
notes=()
t_start=$SECONDS
rm -rf "$BLK_RAW"
mkdir -p "$BLK_RAW"

note() {
	notes+=("# $*")
	echo "bench: blk: $*"
}

# fail TEXT: no figures; bench-blk.txt says why.
fail() {
	echo "bench: blk: $*" >&2
	echo "# block section: no figures: $*" >"$out/bench-blk.txt"
	exit 1
}

rig_load_rxe || fail "rxe modules"
rig_rxe_dummy "$RDEV" "$ADDR/24" || fail "rxe on a dummy netdev"
rig_modprobe nvme_core nvme_fabrics nvme_rdma nvmet nvmet_rdma || fail "nvme modules"
modprobe brd rd_nr=1 rd_size=$((size_mb * 1024)) max_part=0 || fail "modprobe brd"
insmod "$KO" || fail "insmod $KO"
insmod module/blk/ibpost_blk.ko || fail "insmod ibpost_blk"

# Every page of ram0 written once: brd reads a page never written as zeros
# without a copy, which would flatter both rows that read it.
dd if=/dev/zero of=/dev/ram0 bs=1M count="$size_mb" oflag=direct status=none ||
	fail "fill /dev/ram0"

nvmet_export /dev/ram0 "$ADDR" "$NQN" || fail "nvmet subsystem and port"
nvme_rdma_connect "$ADDR" "$NQN" "$(nproc)" 128 "$BLK_RAW/nvme-connect.txt" ||
	fail "nvme connect: $(tail -n1 "$BLK_RAW/nvme-connect.txt"), namespace ${NVME:-none} ($(ls /sys/block))"

IBB=$(tools/ibpost/ibpost blk map --dev "$RDEV" --size "${size_mb}M" --queues "$(nproc)" --depth 128 2>&1)
[[ $IBB == ibpostb* ]] || fail "ibpost blk map: $IBB"
for _ in $(seq 50); do
	[[ -b /dev/$IBB ]] && break
	sleep 0.1
done
[[ -b /dev/$IBB ]] || fail "no /dev/$IBB"
q=/sys/block/${NVME#/dev/}/queue
note "nvme-rdma: $NVME, $(nvme_rdma_queues), max_sectors_kb $(cat "$q/max_sectors_kb");" \
	"ibpost_blk: /dev/$IBB, $(cat "/sys/block/$IBB/ibpost/queues") hw queues of $(cat "/sys/block/$IBB/ibpost/depth")," \
	"max_sectors_kb $(cat "/sys/block/$IBB/queue/max_sectors_kb"); both on $RDEV ($ADDR, d0 MTU $(cat /sys/class/net/d0/mtu))"

BLK_COLS=(brd=/dev/ram0 nvme-rdma="$NVME" ibpost_blk="/dev/$IBB")
BLK_NUM=ibpost_blk BLK_DEN=nvme-rdma BLK_CEIL=brd
blk_measure

# share FILE SYM...: percent of FILE's samples (perf report --children)
# with any of SYMs on the stack (the first of them listed), summed.
share() {
	local f=$1
	shift
	awk -v syms="$*" 'BEGIN { n = split(syms, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
		($NF in w) { sub("%", "", $1); s += $1 } END { printf "%.0f", s }' "$f"
}

# blk_profile NAME DEV WORK: a cpu-clock profile of all CPUs during a run
# of WORK on DEV (fio's start-up included: a few percent); a note with
# where the time goes (children shares) and the busiest symbols (self
# time).  (perf record -a started beside a running fio sampled nothing:
# under TCG its start-up outlasted the run.)
blk_profile() {
	local name=$1 dev=$2 work=$3 pd=/run/ibpost-perf f c top busy
	f=$pd/$name.data
	c=$BLK_RAW/profile-$name.children.txt
	# shellcheck disable=SC2046 # the options are words
	perf record -q -a -g -e cpu-clock -F 250 -o "$f" -- \
		fio --name=p --filename="$dev" --direct=1 --ioengine=libaio $(blk_fio_args "$work") \
		--time_based --runtime="$BLK_RUNTIME" --norandommap --randrepeat=0 \
		--group_reporting --output-format=json --output="$BLK_RAW/profile-$name.json" \
		>/dev/null 2>&1
	perf report -i "$f" --no-children --sort sym -g none --stdio 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$BLK_RAW/profile-$name.txt"
	perf report -i "$f" --children --sort sym -g none --stdio 2>/dev/null |
		grep -v '^#' | grep -v '^$' | awk '{ $2 = ""; print }' >"$c"
	top=$(awk '$NF !~ /idle|safe_halt/ { printf "%s%s %s", (n++ ? ", " : ""), $1, $NF } n == 6 { exit }' "$BLK_RAW/profile-$name.txt")
	# Each CPU's busy share (its samples outside the idle loop's halt).
	busy=$(perf report -i "$f" --no-children --sort cpu,sym -g none --stdio 2>/dev/null |
		awk '$1 ~ /%$/ { p = $1; sub("%", "", p); tot[$2] += p
			if ($NF !~ /safe_halt|default_idle|acpi_idle/) busy[$2] += p }
			END { for (c in tot) printf "%sCPU%d %.0f%%", (n++ ? " " : ""), c, tot[c] ? 100 * busy[c] / tot[c] : 0 }')
	note "profile $name ($work, $(blk_parse "$work" "$BLK_RAW/profile-$name.json") under perf), busy $busy; % of both CPUs:" \
		"idle $(share "$c" do_idle), rxe tasks $(share "$c" rxe_do_task)" \
		"(ICRC crc32 $(share "$c" rxe_crc32.isra.0 rxe_crc32), data copy $(share "$c" rxe_mr_copy), skb alloc $(share "$c" __alloc_skb)," \
		"in ksoftirqd $(share "$c" run_ksoftirqd)), fio's io_submit $(share "$c" __x64_sys_io_submit)," \
		"io_getevents $(share "$c" __x64_sys_io_getevents), driver queue_rq $(share "$c" ibpost_blk_queue_rq nvme_rdma_queue_rq)" \
		"(sg_init_table $(share "$c" sg_init_table), submit $(share "$c" ibpost_submit nvme_rdma_post_send))," \
		"nvmet target $(share "$c" nvmet_rdma_handle_command nvmet_rdma_send_done nvmet_rdma_read_data_done)," \
		"brd $(share "$c" brd_submit_bio), ibpost completion $(share "$c" ibpost_req_complete);" \
		"top self: $top"
}
if [[ $profile == 1 ]] && command -v perf >/dev/null && perf version >/dev/null 2>&1; then
	mkdir -p /run/ibpost-perf && mount -t tmpfs none /run/ibpost-perf
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	blk_profile ibpost_blk-rr4k "/dev/$IBB" rr4k
	blk_profile nvme-rdma-rr4k "$NVME" rr4k
	blk_profile ibpost_blk-lat4k "/dev/$IBB" lat4k
	blk_profile nvme-rdma-lat4k "$NVME" lat4k
	blk_profile ibpost_blk-sw128k "/dev/$IBB" sw128k
	blk_profile nvme-rdma-sw128k "$NVME" sw128k
	umount /run/ibpost-perf
fi
if read -r ls _ _ l50 l99 _ _ <"/sys/block/$IBB/ibpost/latency"; then
	note "ibpost_blk's own latency (session request, exact, last $ls): p50 $((l50 / 1000)) us, p99 $((l99 / 1000)) us"
fi

tools/ibpost/ibpost blk unmap "$IBB" || note "unmap $IBB failed"
nvme disconnect -n "$NQN" >/dev/null 2>&1 || note "nvme disconnect failed"
nvmet_unexport "$NQN"
rmmod ibpost_blk ibpost 2>/dev/null

{
	blk_table "block devices on one rxe device ($RDEV) in one TCG guest (kernel $(uname -r)), $(nproc) vCPUs, ${size_mb} MiB each; $((SECONDS - t_start)) s in the guest"
	printf '%s\n' "${notes[@]}"
} >"$out/bench-blk.txt"
echo
cat "$out/bench-blk.txt"
exit 0
