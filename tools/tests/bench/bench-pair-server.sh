#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest rows, server side (tools/tests/bench/bench-pair.sh boots it
# through tools/rig/pair.sh, beside tools/tests/bench/bench-pair-client.sh): rxe0 on
# the wire, ibpost loaded, `ibpost serve` (its lines in $IBPOST_OUT/serve.log)
# and perftest's ib_write_bw / ib_send_bw -R servers for rig.iters WRs a run
# (tools/tests/lib/peer-bw.sh), until the host creates $IBPOST_OUT/stop.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/peer-bw.sh
. tools/tests/lib/peer-bw.sh
# shellcheck source=tools/tests/lib/bench-pair-profile.sh
. tools/tests/lib/bench-pair-profile.sh

rig_ibpost_paths
iters=$(rig_arg iters) || iters=2000
if ! rig_load_rxe || ! rig_pair_net; then
	echo "bench: server: rxe0 on the wire: set-up failed" >&2
	exit 1
fi
insmod "$KO" || { echo "bench: server: insmod $KO failed" >&2; exit 1; }

"$IBPOST" serve --idle 3000 >"$IBPOST_OUT/serve.log" 2>&1 &
spid=$!
perf_servers "$iters"
ppid=''
if prof_ready; then
	prof_server &
	ppid=$!
fi
echo "bench: server: ibpost serve and the perftest servers ($iters WRs a run) are up"
rig_pair_wait_stop 1800 || echo "bench: server: no $IBPOST_OUT/stop in 30 min" >&2
perf_servers_stop
[[ -n $ppid ]] && wait "$ppid"
kill -INT "$spid"
rc=0
wait "$spid" || rc=$?
sleep 1
rmmod ibpost || rc=1
echo "bench: server: done (rc $rc)"
exit "$rc"
