#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest block rows, client side (tools/bench.sh boots it
# through tools/rig/pair.sh against tools/tests/bench/bench-blkpair-server.sh):
# the same two rows of issue 14's table across the QEMU socket wire, the
# other guest's memory behind both devices:
#   nvme-rdma   the server's brd disk, exported by nvmet-rdma, connected
#               with nvme-cli over rxe0 (2 I/O queues of 128);
#   ibpost_blk  `ibpost blk map --connect` on the server's `ibpost serve`
#               (2 queues of 128), of the same size.
# The rows (tools/tests/lib/bench-blk-lib.sh): 4 KiB random read at depth 32,
# 2 jobs (IOPS: small requests, where one-sided I/O saves messages),
# 128 KiB sequential read at depth 8 (MiB/s: the wire's bandwidth) and
# 4 KiB random read at depth 1 (p50 and p99 latency); then the scaling
# rows: the 4 KiB random read again with 1, 2 and 4 hardware queues on
# each device (issue 27), both devices connected anew for each.
# Kernel arguments: rig.blk_size (MiB, 128), rig.blk_runtime (s, 5),
# rig.blk_ramp (s, 2), rig.blk_reps (3).  Writes
# $IBPOST_OUT/bench-blkpair.txt and $IBPOST_OUT/bench-blkpair-raw/.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
BLK_WORKS=(rr4k sr128k lat4k)
# shellcheck source=tools/tests/lib/bench-blk-lib.sh
. tools/tests/lib/bench-blk-lib.sh
# shellcheck source=tools/tests/lib/nvmet-lib.sh
. tools/tests/lib/nvmet-lib.sh

rig_ibpost_paths
out=$IBPOST_OUT
S=$(rig_arg peer)
BLK_RAW=$out/bench-blkpair-raw
BLK_RUNTIME=$(rig_arg blk_runtime || echo 5)
BLK_RAMP=$(rig_arg blk_ramp || echo 2)
BLK_REPS=$(rig_arg blk_reps || echo 3)
size_mb=$(rig_arg blk_size || echo 128)
NQN=nqn.2026-12.org.ibpost:bench-blkpair
t_start=$SECONDS
rm -rf "$BLK_RAW"
mkdir -p "$BLK_RAW"
fail() {
	echo "bench: blkpair: $*" >&2
	echo "# two-guest block rows: no figures: $*" >"$out/bench-blkpair.txt"
	exit 1
}
if ! rig_load_rxe || ! rig_pair_net; then fail "rxe0 on the wire"; fi
rig_modprobe nvme_core nvme_fabrics nvme_rdma || fail "nvme modules"
insmod "$KO" || fail "insmod $KO"
insmod "$(dirname "$KO")/blk/ibpost_blk.ko" || fail "insmod ibpost_blk"

# The server exports its disk, then starts serving: once serve answers,
# both are there.
up=0
rig_wait_serve "$S" && up=1
((up)) || fail "no ibpost serve at $S"
nvme_rdma_connect "$S" "$NQN" 2 128 "$BLK_RAW/nvme-connect.txt" ||
	fail "nvme connect to $S: $(tail -n1 "$BLK_RAW/nvme-connect.txt"), namespace ${NVME:-none}"
# ibb_map QUEUES: map the server's memory with QUEUES queues of 128 (IBB).
ibb_map() {
	IBB=$("$IBPOST" blk map --dev rxe0 --connect "$S" --size "${size_mb}M" --queues "$1" --depth 128 2>&1)
	[[ $IBB == ibpostb* ]] || fail "ibpost blk map --connect $S --queues $1: $IBB"
	for _ in $(seq 50); do
		[[ -b /dev/$IBB ]] && break
		sleep 0.1
	done
	[[ -b /dev/$IBB ]] || fail "no /dev/$IBB"
}
ibb_map 2
note="# nvme-rdma: $NVME ($size_mb MiB brd on the server), $(nvme_rdma_queues),"
note+=" max_sectors_kb $(cat "/sys/block/${NVME#/dev/}/queue/max_sectors_kb");"
note+=" ibpost_blk: /dev/$IBB ($(cat "/sys/block/$IBB/ibpost/server")),"
note+=" $(cat "/sys/block/$IBB/ibpost/queues") hw queues of $(cat "/sys/block/$IBB/ibpost/depth"),"
note+=" max_sectors_kb $(cat "/sys/block/$IBB/queue/max_sectors_kb"); eth0 MTU $(cat /sys/class/net/eth0/mtu)"
echo "bench: blkpair: $note"

BLK_COLS=(nvme-rdma="$NVME" ibpost_blk="/dev/$IBB")
BLK_NUM=ibpost_blk BLK_DEN=nvme-rdma BLK_CEIL=''
blk_measure
table=$(blk_table "two guests (kernel $(uname -r), TCG, $(nproc) vCPUs each) on the QEMU socket wire, rxe0 on each: the server's memory behind both devices, ${size_mb} MiB each")

# The scaling rows: rr4k with 1, 2 and 4 hardware queues of each device,
# reconnected for each count; the hw queues each got are printed (blk-mq
# maps queues to CPUs, and nvme-rdma has at most one I/O queue per CPU).
rc=0
scale=("# scaling: 4k-randread-qd32x2 IOPS by hardware queues asked for (got: ibpost_blk/nvme-rdma), median of $BLK_REPS runs"
	"$(printf '%-8s %-9s %11s %11s %7s' queues got nvme-rdma ibpost_blk ratio)")
BLK_WORKS=(rr4k)
for nq in 1 2 4; do
	"$IBPOST" blk unmap "$IBB" || rc=1
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || rc=1
	nvme_rdma_connect "$S" "$NQN" "$nq" 128 "$BLK_RAW/nvme-connect-$nq.txt" ||
		fail "nvme connect to $S with $nq queues: $(tail -n1 "$BLK_RAW/nvme-connect-$nq.txt")"
	ibb_map "$nq"
	got="$(cat "/sys/block/$IBB/ibpost/queues")/$(nvme_rdma_queues | cut -d' ' -f1)"
	BLK_COLS=(nvme-rdma="$NVME" ibpost_blk="/dev/$IBB")
	BLK_RAW=$out/bench-blkpair-raw/q$nq
	BLK_V=()
	blk_measure
	scale+=("$(printf '%-8s %-9s %11s %11s %7s' "$nq" "$got" "${BLK_V[rr4k,nvme-rdma]:-n/a}" \
		"${BLK_V[rr4k,ibpost_blk]:-n/a}" "$(blk_ratio "${BLK_V[rr4k,ibpost_blk]:-}" "${BLK_V[rr4k,nvme-rdma]:-}")")")
done

"$IBPOST" blk unmap "$IBB" || rc=1
nvme disconnect -n "$NQN" >/dev/null 2>&1 || rc=1
rmmod ibpost_blk ibpost || rc=1
{
	echo "$table"
	printf '%s\n' "${scale[@]}"
	echo "$note; $((SECONDS - t_start)) s in the client"
} >"$out/bench-blkpair.txt"
cat "$out/bench-blkpair.txt"
exit "$rc"
