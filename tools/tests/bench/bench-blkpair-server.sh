#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest block rows, server side (tools/bench.sh boots it
# through tools/rig/pair.sh beside tools/tests/bench/bench-blkpair-client.sh):
# rxe0 on the wire, a brd RAM disk of rig.blk_size MiB (128) exported by
# nvmet-rdma on this guest's address, port 4420 (tools/tests/lib/nvmet-lib.sh),
# and `ibpost serve` for ibpost_blk's region of the same size, until the
# host creates $IBPOST_OUT/stop.  With rig.prof=1 (beside
# prof-blkpair-client.sh, which says where the CPU goes) also the profiler
# the client starts over TCP port 5555 (tools/tests/lib/prof-listen.py).
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/nvmet-lib.sh
. tools/tests/lib/nvmet-lib.sh

rig_ibpost_paths
size_mb=$(rig_arg blk_size || echo 128)
NQN=nqn.2026-12.org.ibpost:bench-blkpair
fail() {
	echo "bench: blkpair server: $*" >&2
	exit 1
}
if ! rig_load_rxe || ! rig_pair_net; then fail "rxe0 on the wire"; fi
rig_modprobe nvmet nvmet_rdma || fail "nvmet modules"
modprobe brd rd_nr=1 rd_size=$((size_mb * 1024)) max_part=0 || fail "modprobe brd"
# Every page of ram0 written once: brd reads a page never written as
# zeros without a copy (bench-blk.sh).
dd if=/dev/zero of=/dev/ram0 bs=1M count="$size_mb" oflag=direct status=none ||
	fail "fill /dev/ram0"
nvmet_export /dev/ram0 "$(rig_arg addr)" "$NQN" || fail "nvmet subsystem and port"
insmod "$KO" || fail "insmod $KO"
"$IBPOST" serve --idle 3000 --max-mem $((2 * size_mb)) >"$IBPOST_OUT/serve.log" 2>&1 &
spid=$!
ppid=
if [[ $(rig_arg prof) == 1 ]]; then
	python3 tools/tests/lib/prof-listen.py "$IBPOST_OUT" &
	ppid=$!
fi
echo "bench: blkpair server: /dev/ram0 ($size_mb MiB) on nvmet-rdma $(rig_arg addr):4420, ibpost serve up${ppid:+, profiler on port 5555}"
rig_pair_wait_stop 3600 || echo "bench: blkpair server: no $IBPOST_OUT/stop in 60 min" >&2
[[ -n $ppid ]] && kill "$ppid" 2>/dev/null
kill -INT "$spid"
rc=0
wait "$spid" || rc=$?
nvmet_unexport "$NQN"
sleep 1
rmmod ibpost || rc=1
echo "bench: blkpair server: done (rc $rc)"
exit "$rc"
