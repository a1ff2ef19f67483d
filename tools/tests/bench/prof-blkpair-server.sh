#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the CPU goes in the two-guest block rows, server side (boot it
# through tools/rig/pair.sh beside tools/tests/bench/prof-blkpair-client.sh):
# what bench-blkpair-server.sh sets up (brd on nvmet-rdma, ibpost serve),
# plus a profiler the client starts over TCP port 5555: each line
# "NAME SECONDS" runs `perf record -a` for that long into
# $IBPOST_OUT/prof-NAME.data and answers "started" (the guests share no
# clock, so the client says when), then its flat profile by symbol goes
# to $IBPOST_OUT/prof-NAME.txt.  Ends when the host creates
# $IBPOST_OUT/stop.
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
	echo "prof: blkpair server: $*" >&2
	exit 1
}
if ! rig_load_rxe || ! rig_pair_net; then fail "rxe0 on the wire"; fi
rig_modprobe nvmet nvmet_rdma || fail "nvmet modules"
modprobe brd rd_nr=1 rd_size=$((size_mb * 1024)) max_part=0 || fail "modprobe brd"
dd if=/dev/zero of=/dev/ram0 bs=1M count="$size_mb" oflag=direct status=none ||
	fail "fill /dev/ram0"
nvmet_export /dev/ram0 "$(rig_arg addr)" "$NQN" || fail "nvmet subsystem and port"
insmod "$KO" || fail "insmod $KO"
"$IBPOST" serve --idle 3000 --max-mem $((2 * size_mb)) >"$IBPOST_OUT/serve.log" 2>&1 &
spid=$!
python3 - "$IBPOST_OUT" <<'PY' &
import socket, subprocess, sys
out = sys.argv[1]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5555))
s.listen(1)
while True:
    c, _ = s.accept()
    f = c.makefile("rw")
    name, secs = f.readline().split()
    p = subprocess.Popen(["perf", "record", "-a", "-q", "-N", "-o",
                          "%s/prof-%s.data" % (out, name), "--", "sleep", secs],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    f.write("started\n")
    f.flush()
    c.close()
    p.wait()
    with open("%s/prof-%s.txt" % (out, name), "w") as t:
        subprocess.run(["perf", "report", "-i", "%s/prof-%s.data" % (out, name),
                        "--stdio", "--sort", "sym", "--percent-limit", "0.7"],
                       stdout=t, stderr=subprocess.DEVNULL)
PY
ppid=$!
echo "prof: blkpair server: /dev/ram0 on nvmet-rdma, ibpost serve, profiler on port 5555"
rig_pair_wait_stop 3600 || echo "prof: blkpair server: no stop in 60 min" >&2
kill "$ppid" 2>/dev/null
kill -INT "$spid"
wait "$spid"
nvmet_unexport "$NQN"
sleep 1
rmmod ibpost
exit 0
