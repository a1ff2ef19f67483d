#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two-guest rig check (tools/rig/pair.sh): perftest ib_write_bw -R over rdma_cm
# between the guests, on rxe0 over the QEMU socket wire.  Usage:
#   tools/rig/pair.sh --kernel stock --server tools/tests/pair/guest-pair-perftest.sh \
#       --client tools/tests/pair/guest-pair-perftest.sh
cd "$IBPOST_REPO" || exit 1
. tools/rig/guest-lib.sh
rig_load_rxe || exit 1
rig_pair_net || exit 1
role=$(rig_arg role); peer=$(rig_arg peer)
rdma link show
if [[ $role == server ]]; then
	timeout 120 ib_write_bw -d rxe0 -R -s 65536 -n 500 -F
else
	for i in $(seq 30); do
		timeout 120 ib_write_bw -d rxe0 -R -s 65536 -n 500 -F "$peer" && exit 0
		sleep 1
	done
	exit 1
fi
