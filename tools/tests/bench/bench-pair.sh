#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's two-guest rows (tools/bench.sh runs it after the one-guest
# table; it runs alone too): two stock-kernel guests joined by the QEMU
# socket wire on 127.0.0.1 (tools/rig/pair.sh), rxe0 on each; the server
# guest runs `ibpost serve` and the perftest servers
# (tools/tests/bench/bench-pair-server.sh), the client guest 64 KiB WRITE and SEND,
# ibpost beside ib_write_bw / ib_send_bw -R, ITERS WRs a run, REPS runs of
# each tool in turn (tools/tests/bench/bench-pair-client.sh).  Prints the table
# (also DIR/bench-pair.txt; raw outputs in DIR/client/bench-pair-raw.txt),
# progress on stderr.  With 200 WRs a run the whole took 2 minutes (two
# other guests running); 2000 WRs add about 8 s a run at the ~15 MiB/s
# seen then, about 5 minutes in all (an estimate).
# usage: tools/tests/bench/bench-pair.sh [--out DIR (build/bench/pair)] [--iters N (2000)]
#          [--reps N (5)] [--timeout SEC (1800, each guest)]
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$repo" || exit 1
# shellcheck source=tools/rig/busy.sh
. tools/rig/busy.sh
usage() { sed -n '3,15s/^# \{0,1\}//p' "$0" >&2; exit 2; }
out=build/bench/pair iters=2000 reps=5 timeout=1800
while (($#)); do
	(($# >= 2)) || usage
	case $1 in
	--out) out=$2 ;;
	--iters) iters=$2 ;;
	--reps) reps=$2 ;;
	--timeout) timeout=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ $iters =~ ^[0-9]+$ && $reps =~ ^[0-9]+$ && $timeout =~ ^[0-9]+$ ]] || usage
mkdir -p "$out"
rm -rf "$out/server" "$out/client" "$out/client-kill" "$out"/console-*.log "$out/bench-pair.txt"

echo "bench: two stock-kernel guests on a QEMU socket wire, $reps runs of $iters WRs per tool and op;" >&2
echo "bench: consoles: $out/console-server.log, $out/console-client.log" >&2
busy_start "$out/.busy" 2 >&2
# The guests use the TSC clocksource, as tools/bench.sh's guest does.
tools/rig/pair.sh --kernel stock --out "$out" --timeout "$timeout" \
	--server tools/tests/bench/bench-pair-server.sh --client tools/tests/bench/bench-pair-client.sh \
	--append "${BENCH_APPEND-clocksource=tsc tsc=reliable} rig.iters=$iters rig.reps=$reps rig.pairout=$(cd "$out" && pwd)" &
pair=$!
# The client's progress lines, until pair.sh ends.
tail -n +1 -F --pid="$pair" "$out/console-client.log" 2>/dev/null |
	grep --line-buffered '^bench: pair' >&2 &
progress=$!
# prof_table: the profile of one WRITE run of each tool on both guests
# (tools/tests/lib/bench-pair-profile.sh), side by side.
prof_table() {
	local tool side f
	[[ -s $out/client/prof-ibpost.txt ]] || return 0
	echo
	echo "# where the time goes: one 64 KiB WRITE run of each tool, both guests profiled at once"
	echo "# (perf record -a, cpu-clock): percent of all samples of that guest's 2 vCPUs"
	printf '%-9s %-7s %7s %6s %6s %7s %6s %6s %6s %7s %8s\n' tool guest MiB/s idle rxe ibpost \
		user copy net kernel samples
	for tool in ibpost perftest; do
		for side in client server; do
			f=$out/$side/prof-$tool.txt
			[[ -s $f ]] || continue
			awk -v t="$tool" -v g="$side" -v bw="$(prof_bw "$tool")" '
				$1 == "samples" { n = $2 } $1 != "top" && $1 != "samples" { v[$1] = $2 }
				END {
					printf "%-9s %-7s %7s %6s %6s %7s %6s %6s %6s %7s %8s\n", t, g,
						(g == "client" ? bw : ""), v["idle"], v["rxe"], v["ibpost"],
						v["user"], v["copy"], v["net"], v["kernel"], n
				}' "$f"
		done
	done
	for tool in ibpost perftest; do
		for side in client server; do
			f=$out/$side/prof-$tool.txt
			[[ -s $f ]] || continue
			echo "# $tool, $side: most self time outside idle (percent, comm, symbol):"
			awk '$1 == "top" { $1 = ""; print "#  " $0 }' "$f"
		done
	done
}

# prof_bw TOOL: MiB/s of the profiled run (its output in client/prof-TOOL.out;
# both tools print the size first and the bandwidth in the 4th column).
prof_bw() {
	local f=$out/client/prof-$1.out
	[[ -s $f ]] || { echo -; return; }
	awk '$1 == 65536 { print $4; exit }' "$f"
}

rc=0
wait "$pair" || rc=$?
wait "$progress"
busy_stop
{
	if [[ -s $out/client/bench-pair.txt ]]; then
		cat "$out/client/bench-pair.txt"
	else
		echo "# two guests: no results (pair.sh exit $rc); see $out/console-client.log"
		((rc)) || rc=1
	fi
	prof_table
	busy_note "$out/.busy"
} >"$out/bench-pair.txt"
cat "$out/bench-pair.txt"
exit "$rc"
