#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of 'make demo': rxe on lo, ibpost loaded, what it sees, then
# a short verified transfer of every opcode with multi-SGE layouts, write
# latency measured as ib_write_lat does, and the session API's consumer.
set -euo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
rig_load_rxe
rig_rxe_lo
insmod module/ibpost.ko
ib=tools/ibpost/ibpost
show() {
	echo
	echo "\$ ibpost $*"
	"$ib" "$@"
}
show devices
for op in write write_imm send send_imm read; do
	show run --dev rxe_lo --op "$op" --size 64K --sge 4 --layout page-cross \
		--iters 500 --depth 32 --batch 4 --signal-every 8 --verify
done
show run --dev rxe_lo --op send --sge-layout 256@0,512@1024,128@2048 \
	--recv-sge 2 --iters 500 --verify
show run --dev rxe_lo --op write --size 64K --sge 1,4,16,32 --iters 300 --verify
show run --dev rxe_lo --op write --size 64 --pingpong --inline --iters 2000
echo
echo "\$ ibpost run --dev rxe_lo --op write --sge-layout 256@0,0@1024   # a mistake"
"$ib" run --dev rxe_lo --op write --sge-layout 256@0,0@1024 || true
echo
echo "\$ insmod kunit/ibpost_consumer.ko dev=rxe_lo threads=4 reqs=16   # the session API's consumer"
insmod kunit/ibpost_consumer.ko dev=rxe_lo threads=4 reqs=16
dmesg | grep 'ibpost_consumer: rxe_lo' | tail -n 1 | sed 's/^\[[ 0-9.]*\] //'
rmmod ibpost_consumer
rmmod ibpost
