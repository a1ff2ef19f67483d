# SPDX-License-Identifier: GPL-2.0
# nvme-rdma beside ibpost_blk in the block benchmarks: the kernel's NVMe
# target (nvmet-rdma) exporting a block device through configfs, and the
# host connecting to it with nvme-cli.  Sourced by tools/tests/bench/bench-blk.sh
# (both ends in one guest) and tools/tests/bench/bench-blkpair-server.sh /
# bench-blkpair-client.sh (one end in each of two guests).
#   nvmet_export DEV ADDR NQN   DEV as namespace 1 of subsystem NQN (any
#                               host allowed), on rdma port 1 at
#                               ADDR:4420; needs nvmet, nvmet_rdma
#   nvmet_unexport NQN          undo nvmet_export
#   nvme_rdma_connect ADDR NQN QUEUES QSIZE LOG
#                               nvme connect -t rdma with QUEUES I/O queues
#                               of QSIZE (output in LOG); sets NVME, the
#                               namespace's block device (/dev/nvmeXnY);
#                               needs nvme_rdma
#   nvme_rdma_queues            "N hw queues of D" of the connected
#                               namespace's blk-mq disk
# Each returns non-zero on failure.
# shellcheck shell=bash

NVMET_CFG=/sys/kernel/config/nvmet

nvmet_export() {
	local dev=$1 addr=$2 nqn=$3 s=$NVMET_CFG/subsystems/$3 p=$NVMET_CFG/ports/1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$s" || return 1
	echo 1 >"$s/attr_allow_any_host" || return 1
	mkdir "$s/namespaces/1" || return 1
	echo -n "$dev" >"$s/namespaces/1/device_path" || return 1
	echo 1 >"$s/namespaces/1/enable" || return 1
	mkdir "$p" || return 1
	echo rdma >"$p/addr_trtype" || return 1
	echo ipv4 >"$p/addr_adrfam" || return 1
	echo "$addr" >"$p/addr_traddr" || return 1
	echo 4420 >"$p/addr_trsvcid" || return 1
	ln -s "$s" "$p/subsystems/$nqn"
}

nvmet_unexport() {
	local s=$NVMET_CFG/subsystems/$1 p=$NVMET_CFG/ports/1
	rm -f "$p/subsystems/$1"
	rmdir "$p" "$s/namespaces/1" "$s" 2>/dev/null
}

nvme_rdma_connect() {
	local addr=$1 nqn=$2 queues=$3 qsize=$4 log=$5 hostnqn b
	hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
	nvme connect -t rdma -a "$addr" -s 4420 -n "$nqn" --hostnqn="$hostnqn" \
		--nr-io-queues="$queues" --queue-size="$qsize" >"$log" 2>&1 || return 1
	NVME=''
	for _ in $(seq 100); do
		for b in /sys/block/nvme*n1; do
			[[ -e $b && $(cat "$b/device/subsysnqn" 2>/dev/null ||
				cat "$b/device/device/subsysnqn" 2>/dev/null) == "$nqn" ]] &&
				NVME=/dev/${b##*/}
		done
		[[ -n $NVME && -b $NVME ]] && return 0
		sleep 0.1
	done
	return 1
}

# The namespace's path (nvmeXcYnZ, the blk-mq disk under the multipath
# head NVME) has the hardware queues.
nvme_rdma_queues() {
	local paths hwq
	paths=(/sys/class/block/nvme*c*n1)
	[[ -e ${paths[0]} ]] || paths=("/sys/block/${NVME#/dev/}")
	hwq=("${paths[0]}"/mq/*)
	echo "${#hwq[@]} hw queues of $(cat "${paths[0]}/queue/nr_requests" 2>/dev/null)"
}
