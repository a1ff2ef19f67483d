#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, server side of the hostile battery (tools/check.sh, make check-long
# boots it through tools/rig/pair.sh, make check-long on the debug kernel):
# rxe0 on the wire, `ibpost serve --idle 3000` until the host creates
# $IBPOST_OUT/stop, then: serve ended with status 0, refusals were reported,
# a join failing while its session ends (hostile_join_race), nothing of
# ibpost is left, the module unloads and (debug kernel) kmemleak
# finds nothing.  KASAN, lockdep and the rest speak on the console, which
# boot.sh checks.  TAP in $IBPOST_OUT/hostile-server.tap.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/hostile-lib.sh
. tools/tests/lib/hostile-lib.sh

rig_pair_start hostile-server
LOG=$IBPOST_OUT/serve.log
[[ -w /sys/kernel/debug/kmemleak ]] && echo clear >/sys/kernel/debug/kmemleak

"$IBPOST" serve --idle 3000 >"$LOG" 2>&1 &
spid=$!
touch "$IBPOST_OUT/ready"
rig_pair_wait_stop 3600 || t_fail "told to stop" "no $IBPOST_OUT/stop in 60 min"
kill -INT "$spid"
src=0
wait "$spid" || src=$?
t_check "serve ends on SIGINT with status 0 (exit $src)" test "$src" = 0
n=$(grep -c ': refused: ' "$LOG")
t_check "the server reported its refusals ($n)" test "$n" -ge 40
n=$(grep -c ': done: ' "$LOG")
t_check "and served jobs to the end ($n)" test "$n" -ge 5
# On the debug kernel KASAN sees the session freed under the join's wake.
hostile_join_race "$(rig_arg addr)" "$IBPOST_OUT/serve-race.log"
rig_pair_end
rig_kmemleak "$IBPOST_OUT/kmemleak.txt" &&
	t_check "kmemleak: nothing leaked" test ! -s "$IBPOST_OUT/kmemleak.txt"
t_done
