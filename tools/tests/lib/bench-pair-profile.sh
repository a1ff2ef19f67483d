# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest profile: where each tool's time goes on BOTH guests
# while it moves 64 KiB WRITEs across the wire.  Sourced by
# tools/tests/bench/bench-pair-client.sh and bench-pair-server.sh.
#
# One run of each tool (ibpost, then perftest) is profiled on both guests at
# once: system-wide cpu-clock samples (perf record -a, 499 Hz a CPU), so what
# the guest's other vCPU, its softirqs and its idle loop do counts too.  The
# two guests see each other's out dirs through the host root they are
# chrooted in (rig.pairout: the host path of tools/rig/pair.sh's out dir),
# which is how the client tells the server when to start and stop
# recording: client/prof-TOOL.go -> server/prof-TOOL.rec -> client/prof-TOOL.done.
#
# Each side writes prof-TOOL.txt: its samples split into
#   idle     the idle loop (comm swapper, *idle*, halt)
#   rxe      rdma_rxe's own functions (requester, responder, completer;
#            module symbols come from kallsyms, so by name: rxe_*)
#   ibpost   the ibpost module (ibpost_*)
#   user     the tool's user space (perftest, libibverbs, the rxe user
#            provider, libc)
#   copy     memcpy/copy_*/CRC32/checksums (payload work)
#   net      the IP/UDP stack and virtio-net under rxe
#   kernel   everything else (syscalls, scheduler, timers, interrupts)
# as "category percent-of-all-samples" lines, plus "samples N" and the
# ten symbols with most self samples.  bench-pair.sh prints them side by side.
# shellcheck shell=bash

PROF_DIR=/run/ibpost-prof

# prof_ready: perf can record here (sets up kptr_restrict/paranoid).
prof_ready() {
	command -v perf >/dev/null && perf version >/dev/null 2>&1 || return 1
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	mkdir -p "$PROF_DIR" && { mountpoint -q "$PROF_DIR" || mount -t tmpfs none "$PROF_DIR"; }
}

# prof_summary DATA OUT: the category split and top symbols of DATA (mawk:
# no sorting inside awk).
prof_summary() {
	local rep=$PROF_DIR/report.txt
	perf report -i "$1" --no-children --sort comm,dso,sym -g none --stdio \
		--percent-limit 0 2>/dev/null |
		awk '
		/^#/ || NF < 4 { next }
		{
			pct = $1; sub("%", "", pct); comm = $2; dso = $3; sym = $NF
			if (comm == "swapper" || sym ~ /idle|safe_halt|mwait|cpu_startup/)
				c = "idle"
			else if (dso ~ /rdma_rxe/ || sym ~ /^rxe_/)
				c = "rxe"
			else if (dso ~ /ibpost/ || sym ~ /^ibpost_/)
				c = "ibpost"
			else if (dso !~ /^\[/)
				c = "user"
			else if (sym ~ /memcpy|memmove|copy_|crc32|csum|memset/)
				c = "copy"
			else if (dso ~ /virtio_net|udp_tunnel/ ||
				 sym ~ /^(ip_|ip6_|udp|__udp|__ip|dev_|__dev_|netif|__netif|net_|napi|__napi|skb|__skb|kfree_skb|virtnet|sk_|inet|nf_|neigh|fib)/)
				c = "net"
			else
				c = "kernel"
			print c, pct, comm, sym
		}' >"$rep"
	{
		awk '{ cat[$1] += $2 }
			END {
				n = split("idle rxe ibpost user copy net kernel", order, " ")
				for (i = 1; i <= n; i++)
					printf "%s %.1f\n", order[i], cat[order[i]]
			}' "$rep"
		awk '$1 != "idle" { v[$3 " " $4] += $2 }
			END { for (s in v) printf "top %.1f %s\n", v[s], s }' "$rep" |
			sort -k2,2 -g -r | head -n 10
		perf report -i "$1" --stdio 2>/dev/null |
			awk '/^# Samples:/ { print "samples", $3; exit }'
	} >"$2"
	rm -f "$rep"
}

# prof_client TOOL CMD...: run CMD profiled here while the server records too
# (its output in prof-TOOL.out).
prof_client() {
	local tool=$1 srv pairout
	shift
	pairout=$(rig_arg pairout) || return 0
	srv=$pairout/server
	touch "$IBPOST_OUT/prof-$tool.go"
	for _ in $(seq 100); do
		[[ -e $srv/prof-$tool.rec ]] && break
		sleep 0.2
	done
	[[ -e $srv/prof-$tool.rec ]] || echo "bench: profile $tool: the server did not start recording" >&2
	perf record -q -a -e cpu-clock -F 499 -o "$PROF_DIR/$tool.data" -- "$@" \
		>"$IBPOST_OUT/prof-$tool.out" 2>&1
	touch "$IBPOST_OUT/prof-$tool.done"
	prof_summary "$PROF_DIR/$tool.data" "$IBPOST_OUT/prof-$tool.txt"
	rm -f "$PROF_DIR/$tool.data"
}

# prof_server &: record system-wide whenever the client says so, until stop.
prof_server() {
	local tool pairout cli rec
	pairout=$(rig_arg pairout) || return 0
	cli=$pairout/client
	for tool in ibpost perftest; do
		until [[ -e $cli/prof-$tool.go ]]; do
			[[ -e $IBPOST_OUT/stop ]] && return 0
			sleep 0.2
		done
		# No workload: -a records until SIGINT (perf installs its own
		# handler, so the background job's ignored SIGINT does not matter).
		perf record -q -a -e cpu-clock -F 499 -o "$PROF_DIR/$tool.data" &
		rec=$!
		sleep 1
		touch "$IBPOST_OUT/prof-$tool.rec"
		until [[ -e $cli/prof-$tool.done || -e $IBPOST_OUT/stop ]]; do
			sleep 0.2
		done
		kill -INT "$rec"
		wait "$rec"
		prof_summary "$PROF_DIR/$tool.data" "$IBPOST_OUT/prof-$tool.txt"
		rm -f "$PROF_DIR/$tool.data"
	done
}
