#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, client side of the hostile battery (tools/check.sh, make check-long,
# through tools/rig/pair.sh): `hostile battery` against the other guest's
# `ibpost serve`, its rounds in $IBPOST_OUT/battery.txt.  TAP in
# $IBPOST_OUT/hostile-client.tap.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/hostile-lib.sh
. tools/tests/lib/hostile-lib.sh

rig_pair_start hostile-client
S=$(rig_arg peer)
up=0
for _ in $(seq 300); do
	timeout 60 "$IBPOST" run --dev rxe0 --connect "$S" --op write -n 10 \
		>/dev/null 2>&1 && { up=1; break; }
	sleep 1
done
t_check "the server answers" test "$up" = 1
hostile_battery "$S" 18520 "$IBPOST_OUT/battery.txt"
t_check "ibpost unloads" rmmod ibpost
t_done
