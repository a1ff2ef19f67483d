#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by guest-bench.sh: where a WRITE's time goes, for each tool.
#
# On rxe every message costs the same protocol work whoever posts it (the
# requester's packet, the responder's copy and ACK, the completer), all in
# rxe's task function (rxe_do_task) on the posting CPU: inside the doorbell
# write() syscall for perftest's user QP, at local_bh_enable() in the job's
# thread for ibpost's kernel QP.  A poster can only save what it spends
# outside that.  A cpu-clock profile of each tool's posting process gives
# s, the share of its time inside rxe_do_task; with rxe's work per message
# the same, the message rates compare as s(ibpost) / s(perftest), and no
# poster at all can beat perftest by more than 1 / s(perftest) on one QP.
#
# shellcheck disable=SC2154 # ib, dev, raw, port, srv: set by guest-bench.sh

# profile_share NAME SIZE ITERS ARGS...: profiles perftest's ib_write_bw
# and ibpost run --op write at SIZE for ITERS messages, ARGS being ibpost's
# options; adds notes (see note(), perftest_server() in guest-bench.sh).  Does nothing without
# perf (Debian's linux-perf).

# rxe_share FILE: percent of FILE's samples with rxe_do_task on the stack.
rxe_share() {
	perf report -i "$1" --children --sort sym -g none --stdio 2>/dev/null |
		awk '$NF == "rxe_do_task" { sub("%", "", $1); print $1; exit }'
}

profile_share() {
	local name=$1 size=$2 iters=$3 pd=/run/ibpost-perf pport s_i s_p
	shift 3
	if ! command -v perf >/dev/null || ! perf version >/dev/null 2>&1; then
		note "profile: perf not available, skipped"
		return 0
	fi
	mkdir -p "$pd" && mount -t tmpfs none "$pd" || return 0
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	perf record -q -e cpu-clock -F 1000 -g -o "$pd/ibpost.data" -- \
		"$ib" run --dev "$dev" --op write --size "$size" --iters "$iters" "$@" \
		>"$raw/profile-$name.ibpost.txt" 2>&1
	pport=$((port + 500))
	perftest_server ib_write_bw "$pport" "$raw/profile-$name.perftest-server.txt" \
		-s "$size" -n "$iters"
	perf record -q -e cpu-clock -F 1000 -g -o "$pd/perftest.data" -- \
		ib_write_bw -d "$dev" -F -p "$pport" -s "$size" -n "$iters" 127.0.0.1 \
		>"$raw/profile-$name.perftest.txt" 2>&1
	wait "$srv"
	s_i=$(rxe_share "$pd/ibpost.data")
	s_p=$(rxe_share "$pd/perftest.data")
	umount "$pd"
	if [[ -z $s_i || -z $s_p ]]; then
		note "profile $name: no rxe_do_task samples (ibpost '$s_i', perftest '$s_p')"
		return 0
	fi
	note "profile $name, WRITE of $size B, 1 QP: share of the posting process's time in rxe_do_task: perftest $s_p%, ibpost $s_i%;" \
		"predicted ratio $(awk -v a="$s_i" -v b="$s_p" 'BEGIN { printf "%.2f", a / b }')," \
		"ceiling for any poster on one QP $(awk -v b="$s_p" 'BEGIN { printf "%.2f", 100 / b }')"
}
