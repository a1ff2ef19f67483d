#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A profiler a guest runs for the other guest of a pair (the guests share
no clock, so the other side says when): on TCP port 5555 each line
"NAME SECONDS" runs `perf record -a` for that long into OUT/prof-NAME.data
and answers "started", then the flat profile by symbol goes to
OUT/prof-NAME.txt.  Usage: prof-listen.py OUT (bench-blkpair-server.sh
with rig.prof=1, for prof-blkpair-client.sh)."""
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
