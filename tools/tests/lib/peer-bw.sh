# SPDX-License-Identifier: GPL-2.0
# 64 KiB bandwidth between the two guests of tools/rig/pair.sh on rxe0:
# ibpost (run --connect against ibpost serve) beside perftest's ib_write_bw /
# ib_send_bw -R (rdma_cm), both at perftest's default send-queue depth (128).
# Sourced by the peer suite (tools/tests/pair/peer-server.sh, peer-client.sh) and
# by make bench's two-guest rows (tools/tests/bench/bench-pair-server.sh,
# bench-pair-client.sh).
# Usage: . tools/tests/lib/peer-bw.sh
# Server side:
#   perf_servers ITERS           an ib_write_bw and an ib_send_bw -R server,
#                                each started again after every client, until
#                                $IBPOST_OUT/stop (output appended to
#                                $IBPOST_OUT/perftest-server.log)
#   perf_servers_stop            stop them
# Client side (S: the server's address, IBPOST: the tool):
#   perf_bw OP [ITERS (1000)]    BW average of one perftest run (OP write or
#                                send), nothing when it failed (3 tries)
#   ibpost_bw OP [ITERS (1000)]  BW[MiB/s] of one ibpost run, nothing when it failed
#   median                       the median of the positive values on stdin
# Both figures are MiB/s: perftest's "BW average[MB/sec]" is bytes / 0x100000
# (format_factor in perftest 4.5's print_report_bw).
# PBW_RAW: a file that gets every client run's output appended (default none).
# shellcheck shell=bash

PBW_SIZE=65536
PBW_DEPTH=128

# perf_tool OP / perf_port OP: the perftest command and its server's port.
perf_tool() { echo "ib_$1_bw"; }
perf_port() { case $1 in write) echo 18610 ;; *) echo 18611 ;; esac; }

# perf_loop CMD...: perftest serves one client a run: keep one listening.
perf_loop() {
	while [[ ! -e $IBPOST_OUT/stop ]]; do
		timeout 300 "$@" >>"$IBPOST_OUT/perftest-server.log" 2>&1
		sleep 0.2
	done
}

perf_servers() {
	local op
	perf_pids=()
	for op in write send; do
		perf_loop "$(perf_tool "$op")" -d rxe0 -R -F -p "$(perf_port "$op")" \
			-s "$PBW_SIZE" -t "$PBW_DEPTH" -n "$1" &
		perf_pids+=($!)
	done
}

perf_servers_stop() {
	((${#perf_pids[@]})) && kill "${perf_pids[@]}" 2>/dev/null
	pkill -f 'ib_(write|send)_bw -d rxe0'
	perf_pids=()
}

perf_bw() {
	# perftest 4.5 dies in librdmacm (general protection fault) when its
	# connect is rejected because its server is between two clients; the
	# kernel's "traps:" line for that user-space fault would fail the
	# console check, which is there for kernel splats.  Retried below.
	echo 0 >/proc/sys/debug/exception-trace 2>/dev/null
	for _ in 1 2 3; do
		timeout 120 "$(perf_tool "$1")" -d rxe0 -R -F -p "$(perf_port "$1")" \
			-s "$PBW_SIZE" -t "$PBW_DEPTH" -n "${2:-1000}" "$S" 2>&1 |
			tee -a "${PBW_RAW:-/dev/null}" |
			awk -v s="$PBW_SIZE" '$1 == s { print $4 }' | grep . && return
		sleep 2
	done
}

ibpost_bw() {
	local out
	out=$(timeout 300 "$IBPOST" run --dev rxe0 --connect "$S" --op "$1" --size "$PBW_SIZE" \
		--depth "$PBW_DEPTH" -n "${2:-1000}" --json 2>>"${PBW_RAW:-/dev/null}")
	[[ -n ${PBW_RAW:-} ]] && echo "$out" >>"$PBW_RAW"
	python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["results"][0]["bw_mib_s"])' \
		<<<"$out" 2>/dev/null
}

# (a perftest run that failed prints 0.00)
median() { awk '$1 > 0' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
