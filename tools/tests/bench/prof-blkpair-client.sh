#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the CPU goes in the two-guest block rows, client side, beside
# bench-blkpair-server.sh with rig.prof=1 (its profiler on port 5555; no
# figures to compare: bench-blkpair-client.sh measures).  On each device of the bench (nvme-rdma on the server's brd,
# ibpost_blk on its memory, 2 queues of 128), for the 4 KiB random read at
# depth 32 x 2 and the 128 KiB sequential read at depth 8: fio for
# rig.prof_s seconds (8) under `perf record -a` here, the server's
# profiler started over the same window, then each guest's flat profile by
# symbol (prof-DEV-WORK.txt here, in the server's out dir there) and this
# guest's busy share of the window (/proc/stat) in prof-summary.txt; then
# the wire's ceiling: `ibpost run --connect` RDMA READs of both shapes.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/bench-blk-lib.sh
. tools/tests/lib/bench-blk-lib.sh
# shellcheck source=tools/tests/lib/nvmet-lib.sh
. tools/tests/lib/nvmet-lib.sh

rig_ibpost_paths
out=$IBPOST_OUT
S=$(rig_arg peer)
secs=$(rig_arg prof_s || echo 8)
size_mb=$(rig_arg blk_size || echo 128)
NQN=nqn.2026-12.org.ibpost:bench-blkpair
fail() {
	echo "prof: blkpair: $*" >&2
	exit 1
}
if ! rig_load_rxe || ! rig_pair_net; then fail "rxe0 on the wire"; fi
rig_modprobe nvme_core nvme_fabrics nvme_rdma || fail "nvme modules"
insmod "$KO" || fail "insmod $KO"
insmod "$(dirname "$KO")/blk/ibpost_blk.ko" || fail "insmod ibpost_blk"
rig_wait_serve "$S" || fail "no ibpost serve at $S"
nvme_rdma_connect "$S" "$NQN" 2 128 "$out/nvme-connect.txt" || fail "nvme connect"
IBB=$("$IBPOST" blk map --dev rxe0 --connect "$S" --size "${size_mb}M" --queues 2 --depth 128 2>&1)
[[ $IBB == ibpostb* ]] || fail "blk map: $IBB"
sleep 1

# idle ticks of /proc/stat's cpu line (idle + iowait), and the time
idle() { awk '/^cpu / { print $5 + $6 }' /proc/stat; }
: >"$out/prof-summary.txt"
for dev in nvme-rdma=$NVME ibpost_blk=/dev/$IBB; do
	for work in rr4k sr128k; do
		name=${dev%%=*}-$work
		exec 3<>"/dev/tcp/$S/5555" || fail "server profiler"
		echo "$name $secs" >&3
		read -r ok <&3
		exec 3<&-
		i0=$(idle) t0=$(date +%s.%N)
		# shellcheck disable=SC2046
		perf record -a -q -N -o "$out/prof-$name.data" -- \
			fio --name="$name" --filename="${dev#*=}" --direct=1 --ioengine=libaio \
			$(blk_fio_args "$work") --runtime="$secs" --time_based --group_reporting \
			--output-format=terse >"$out/prof-$name.fio" 2>&1
		i1=$(idle) t1=$(date +%s.%N)
		perf report -i "$out/prof-$name.data" --stdio --sort sym --percent-limit 0.7 \
			>"$out/prof-$name.txt" 2>/dev/null
		# terse v3: field 7 read KiB/s, 8 read IOPS
		awk -F';' -v n="$name" -v ok="$ok" -v i0="$i0" -v i1="$i1" -v t0="$t0" -v t1="$t1" \
			-v cpus="$(nproc)" -v hz="$(getconf CLK_TCK)" \
			'{ w = t1 - t0; printf "%-22s %8.0f IOPS %8.1f MiB/s  client busy %5.1f%% of %d CPUs (server profiler: %s)\n",
			   n, $8, $7 / 1024, 100 * (w * cpus - (i1 - i0) / hz) / (w * cpus), cpus, ok }' \
			"$out/prof-$name.fio" >>"$out/prof-summary.txt"
		sleep 2
	done
done
# The wire's ceiling in the same run, no block layer: ibpost run's RDMA
# READs from the server's memory, 128 KiB at depth 8 and 4 KiB at depth 32
# on 2 QPs, the shapes of the two workloads.
for w in "128K 8 1" "4K 32 2"; do
	read -r sz dp q <<<"$w"
	r=$("$IBPOST" run --dev rxe0 --connect "$S" --op read --size "$sz" --depth "$dp" -q "$q" \
		--duration "$secs" 2>&1 | tail -n 4 | tr -s ' \n' ' ')
	echo "raw RDMA READ $sz depth $dp x $q QP: $r" >>"$out/prof-summary.txt"
done
"$IBPOST" blk unmap "$IBB"
nvme disconnect -n "$NQN" >/dev/null 2>&1
rmmod ibpost_blk ibpost
cat "$out/prof-summary.txt"
