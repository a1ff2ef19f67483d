#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: install what is missing, build, boot ONE stock-kernel guest with
# rxe on lo, run ibpost and perftest side by side (tools/tests/bench/guest-bench.sh),
# then a one-guest boot for the block section (tools/tests/bench/bench-blk.sh:
# ibpost_blk against nvme-rdma and a brd RAM disk under fio, on one rxe
# device), then TWO guests on a QEMU socket wire for 64 KiB WRITE and SEND
# between them (tools/tests/bench/bench-pair.sh), then two guests again for the
# block rows across the wire (blkpair: ibpost_blk on the other guest's
# `ibpost serve` against nvme-rdma on its nvmet-rdma brd disk, 4 KiB
# random read QD32x2 and 128 KiB sequential read QD8;
# tools/tests/bench/bench-blkpair-client.sh), and print the comparison (also
# left in build/bench/bench.txt; raw outputs in build/bench/bench-raw/,
# build/bench/blk/, build/bench/pair/ and build/bench/blkpair/).  Every
# figure is a median (of 5 runs; 3 in the block sections); every bandwidth
# row of the first guest and of the two also gives each tool's CPU-seconds
# per GiB (tools/tests/lib/bench-cpu.sh).  About 10-20
# minutes in the first guest, 15-25 in the block one (a third of it perf
# profiles), then the two guests, then about 5 minutes for blkpair.
# Other QEMU guests on the host skew the figures: they are reported
# (console and bench.txt), not waited for.
# usage: tools/bench.sh [--timeout SEC (2400)] [--only one|blk|pair|blkpair]
#   --only SECTION  that section alone (blk: iterate on the block rows)
# BENCH_PAIR_ITERS / BENCH_PAIR_REPS: WRs a run (2000) and runs (5) of the
# two-guest rows.  BENCH_BLK_RUNTIME / BENCH_BLK_REPS / BENCH_BLK_SIZE /
# BENCH_BLK_PROFILE: seconds of each fio run (6), runs (3), size of each
# block device in MiB (512), perf profiles (1; 0: none) of the block section.
# BENCH_BLKPAIR_RUNTIME / BENCH_BLKPAIR_REPS / BENCH_BLKPAIR_SIZE: the same
# for blkpair (5 s, 3 runs, 128 MiB: the wire moves 10-15 MB/s).
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=2400
only=''
while (($#)); do
	if [[ $1 == --timeout && -n ${2:-} ]]; then
		timeout=$2
	elif [[ $1 == --only && ${2:-} =~ ^(one|blk|pair|blkpair)$ ]]; then
		only=$2
	else
		sed -n '3,30s/^# \{0,1\}//p' "$0" >&2
		exit 2
	fi
	shift 2
done
# want SECTION: whether SECTION runs.
want() { [[ -z $only || $only == "$1" ]]; }

tools/rig/deps.sh linux-perf
# The guest boots the stock kernel: build for it, not for this host's.
make -s KDIR="$(tools/rig/kver.sh --kdir)" all
out=build/bench
mkdir -p "$out"
rm -rf "$out/bench.txt" "$out/bench-raw" "$out/blk" "$out/blkpair"
: >"$out/bench.txt"
# CPU contention: other QEMU processes before and during the run.
# shellcheck source=tools/rig/busy.sh
. tools/rig/busy.sh
busy=$out/.busy
# perftest times with rdtsc; the guest kernel's clock would be HPET under
# TCG (a slow emulated MMIO read per ktime_get_ns()).  Both tools get the
# TSC: the guest kernel is told to use it as its clocksource (fio too).
append=${BENCH_APPEND-clocksource=tsc tsc=reliable}
rc=0

# guest NAME SCRIPT OUT TXT [BOOT_ARGS...]: boot one stock guest running
# SCRIPT with --out OUT; append OUT/TXT (with the contention warning) to
# bench.txt, or a line saying there are no results.
guest() {
	local name=$1 script=$2 o=$3 txt=$4 grc
	shift 4
	echo "Booting a stock Debian kernel guest under QEMU (TCG) for the $name;"
	echo "this takes several minutes.  Console: $o/console.log"
	mkdir -p "$o"
	busy_start "$busy" 1
	set +e
	tools/rig/boot.sh --kernel stock --script "$script" --out "$o" \
		--log "$o/console.log" --timeout "$timeout" "$@" 2>&1 |
		grep --line-buffered -E '^(bench|boot\.sh|rig):'
	grc=${PIPESTATUS[0]}
	busy_stop
	set -e
	if [[ -s $o/$txt ]]; then
		[[ $o/$txt -ef $out/bench.txt ]] || cat "$o/$txt" >>"$out/bench.txt"
		busy_note "$busy" >>"$out/bench.txt"
	else
		echo "bench: no results (boot.sh exit $grc); see $o/console.log" >&2
		echo "# $name: no results (boot.sh exit $grc); see $o/console.log" >>"$out/bench.txt"
		((grc)) || grc=1
	fi
	((rc)) || rc=$grc
}

if want one; then
	guest benchmark tools/tests/bench/guest-bench.sh "$out" bench.txt --append "$append"
fi

if want blk; then
	[[ -s $out/bench.txt ]] && echo >>"$out/bench.txt"
	guest "block section" tools/tests/bench/bench-blk.sh "$out/blk" bench-blk.txt \
		--append "$append rig.blk_runtime=${BENCH_BLK_RUNTIME:-6} rig.blk_reps=${BENCH_BLK_REPS:-3} rig.blk_size=${BENCH_BLK_SIZE:-512} rig.blk_profile=${BENCH_BLK_PROFILE:-1}"
fi

if want pair; then
	echo
	echo "Booting two stock Debian kernel guests joined by a QEMU socket wire for the"
	echo "two-guest rows; consoles: $out/pair/console-{server,client}.log"
	prc=0
	tools/tests/bench/bench-pair.sh --out "$out/pair" --iters "${BENCH_PAIR_ITERS:-2000}" \
		--reps "${BENCH_PAIR_REPS:-5}" >"$out/pair.txt" || prc=$?
	{
		[[ -s $out/bench.txt ]] && echo
		cat "$out/pair.txt"
	} >>"$out/bench.txt"
	((rc)) || rc=$prc
fi
if want blkpair; then
	echo
	echo "Booting two stock Debian kernel guests joined by a QEMU socket wire for the"
	echo "two-guest block rows; consoles: $out/blkpair/console-{server,client}.log"
	bo=$out/blkpair
	mkdir -p "$bo"
	busy_start "$busy" 2
	brc=0
	tools/rig/pair.sh --kernel stock --out "$bo" --timeout "$timeout" \
		--server tools/tests/bench/bench-blkpair-server.sh \
		--client tools/tests/bench/bench-blkpair-client.sh \
		--append "$append rig.blk_runtime=${BENCH_BLKPAIR_RUNTIME:-5} rig.blk_reps=${BENCH_BLKPAIR_REPS:-3} rig.blk_size=${BENCH_BLKPAIR_SIZE:-128}" &
	pair=$!
	# The client's progress lines, until pair.sh ends.
	sleep 1
	tail -n +1 -F --pid="$pair" "$bo/console-client.log" 2>/dev/null |
		grep --line-buffered '^bench: blk' &
	progress=$!
	wait "$pair" || brc=$?
	wait "$progress" || true
	busy_stop
	{
		[[ -s $out/bench.txt ]] && echo
		if [[ -s $bo/client/bench-blkpair.txt ]]; then
			cat "$bo/client/bench-blkpair.txt"
		else
			echo "# two-guest block rows: no results (pair.sh exit $brc); see $bo/console-client.log"
			((brc)) || brc=1
		fi
		busy_note "$busy"
	} >>"$out/bench.txt"
	((rc)) || rc=$brc
fi
echo
cat "$out/bench.txt"
exit "$rc"
