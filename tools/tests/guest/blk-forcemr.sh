#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of ibpost_blk on rdma_rw's memory-registration path, the
# path real NICs take (mlx5 for large READs, iWARP for every READ): the
# guest boots with ib_core.force_mr=1 (tools/check.sh), which makes rdma_rw
# register every request's memory on rxe too.  A local device on rxe_lo:
#   - its queue declares a 4 KiB virt boundary and requests within one
#     MR's page list (ibpost_session_get_limits(): mr_pages), which proves
#     force_mr reached ib_core (rxe alone never registers);
#   - O_DIRECT writes read back byte for byte from buffers starting 0,
#     512, 2048 and 3584 bytes into a page, at 4 KiB to 4 MiB
#     (tools/tests/lib/odirect_io.py);
#   - fio with 512 B to 2 MiB blocks, crc32c verify.
# Before the limits matched rdma_rw, the unaligned 1-4 MiB cases and fio
# failed with EIO ("buffer needs more pages than one fast-reg MR maps").
# TAP in $IBPOST_OUT/blk-forcemr-$IBPOST_KERNEL.tap.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" blk-forcemr
# shellcheck source=tools/tests/lib/blk-lib.sh
. tools/tests/lib/blk-lib.sh

BLK=$(dirname "$KO")/blk/ibpost_blk.ko
FIG=$IBPOST_OUT/blk-forcemr-$IBPOST_KERNEL.txt
: >"$FIG"
grep -qw 'ib_core.force_mr=1' /proc/cmdline ||
	{ t_fail "booted with ib_core.force_mr=1" "$(cat /proc/cmdline)"; t_done; exit 1; }
rig_provider rxe || { t_fail "load rxe, rxe_lo" "modules, link add"; t_done; exit 1; }
grep -q '^ibpost ' /proc/modules || insmod "$KO" || { t_fail "insmod ibpost" "$KO"; t_done; exit 1; }
insmod "$BLK" || { t_fail "insmod ibpost_blk" "$BLK"; t_done; exit 1; }

blk_map_or_end "map 256M on rxe_lo with force_mr" --dev rxe_lo --size 256M --queues 2 --depth 16
Q=/sys/block/$NAME/queue
vb=$(cat "$Q/virt_boundary_mask") kb=$(cat "$Q/max_hw_sectors_kb") segs=$(cat "$Q/max_segments")
echo "queue: virt_boundary_mask $vb max_hw_sectors_kb $kb max_segments $segs" >>"$FIG"
# rxe's MRs map 256 pages in rdma_rw (its cap of max_fast_reg_page_list_len):
# a request is at most 255 pages, and a segment never more than a page's run.
if [[ $vb == 4095 ]] && ((kb > 0 && kb <= 1020 && segs <= 256)); then
	t_ok "queue limits of rdma_rw's MR path: virt boundary 4 KiB, $kb KiB and $segs segments a request"
else
	t_fail "queue limits of rdma_rw's MR path" "virt_boundary_mask $vb max_hw_sectors_kb $kb max_segments $segs"
fi
out=$(timeout 600 python3 tools/tests/lib/odirect_io.py "/dev/$NAME" 0,512,2048,3584 \
	4096,65536,1048576,2097152,4194304 2>&1)
echo "$out" >>"$FIG"
n=0
while read -r res off size why; do
	[[ $res == ok || $res == bad || $res == error ]] || continue
	n=$((n + 1))
	if [[ $res == ok ]]; then
		t_ok "O_DIRECT $size bytes from a buffer $off bytes into a page: read back equal"
	else
		t_fail "O_DIRECT $size bytes from a buffer $off bytes into a page" "$res ${why:-}"
	fi
done <<<"$out"
t_check "all 20 O_DIRECT cases ran" test "$n" = 20
# Blocks of every size from 512 B to 2 MiB, each job its own 32 MiB.
out=$(timeout 300 fio --name=v --filename="/dev/$NAME" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=512-2M --size=32M --offset_increment=32M --numjobs=2 \
	--iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
	--group_reporting 2>&1)
rc=$?
grep -E 'WRITE:|READ:' <<<"$out" >>"$FIG"
if [[ $rc == 0 && $out == *"err= 0"* && $out == *"READ:"* ]]; then
	t_ok "fio randwrite + verify crc32c, blocks 512 B to 2 MiB"
else
	t_fail "fio randwrite + verify crc32c, blocks 512 B to 2 MiB" "rc $rc: $(tail -n 5 <<<"$out" | tr '\n' ' ')"
fi
# Discard and write zeroes through rdma_rw's MRs: the zero page in every
# entry of one MR's page list.
blk_zeroes "$NAME"
no_dstate "$NAME after the I/O"
t_check "unmap $NAME" $IBPOST blk unmap "$NAME"
t_check "rmmod ibpost_blk" rmmod ibpost_blk
t_check "rmmod ibpost" rmmod ibpost
t_done
