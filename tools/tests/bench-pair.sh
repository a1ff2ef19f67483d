#!/bin/bash
# make bench's two-guest rows (tools/bench.sh runs it after the one-guest
# table; it runs alone too): two stock-kernel guests joined by the QEMU
# socket wire on 127.0.0.1 (tools/rig/pair.sh), rxe0 on each; the server
# guest runs `ibpost serve` and the perftest servers
# (tools/tests/bench-pair-server.sh), the client guest 64 KiB WRITE and SEND,
# ibpost beside ib_write_bw / ib_send_bw -R, ITERS WRs a run, REPS runs of
# each tool in turn (tools/tests/bench-pair-client.sh).  Prints the table
# (also DIR/bench-pair.txt; raw outputs in DIR/client/bench-pair-raw.txt),
# progress on stderr.  With 200 WRs a run the whole took 2 minutes (two
# other guests running); 2000 WRs add about 8 s a run at the ~15 MiB/s
# seen then, about 5 minutes in all (an estimate).
# usage: tools/tests/bench-pair.sh [--out DIR (build/bench/pair)] [--iters N (2000)]
#          [--reps N (5)] [--timeout SEC (1800, each guest)]
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo" || exit 1
# shellcheck source=tools/rig/busy.sh
. tools/rig/busy.sh
usage() { sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 2; }
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
	--server tools/tests/bench-pair-server.sh --client tools/tests/bench-pair-client.sh \
	--append "${BENCH_APPEND-clocksource=tsc tsc=reliable} rig.iters=$iters rig.reps=$reps" &
pair=$!
# The client's progress lines, until pair.sh ends.
tail -n +1 -F --pid="$pair" "$out/console-client.log" 2>/dev/null |
	grep --line-buffered '^bench: pair' >&2 &
progress=$!
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
	busy_note "$out/.busy"
} >"$out/bench-pair.txt"
cat "$out/bench-pair.txt"
exit "$rc"
