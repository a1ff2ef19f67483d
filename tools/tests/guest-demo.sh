#!/bin/bash
# In-guest part of 'make demo': rxe on lo, ibpost loaded, what it sees.
set -euo pipefail
cd "$IBPOST_REPO"
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
rig_load_rxe
rig_rxe_lo
insmod module/ibpost.ko
echo
echo "\$ ibpost devices"
tools/ibpost/ibpost devices
echo
echo "\$ ibpost devices --json"
tools/ibpost/ibpost devices --json
echo
rmmod ibpost
