#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side of the two-guest peer suite: boots tools/tests/pair/peer-server.sh and,
# on the same wire, a client guest that is killed mid-job, then the client
# suite (tools/tests/pair/peer-client.sh), with tools/rig/pair.sh.  Prints both
# guests' TAP (client first) and the bandwidth table.
# Usage: tools/tests/pair/peer.sh [--kernel stock|test] [--out DIR] [--long]
#   --long  make check-long's rows too (rig.long=1): the bandwidth table
#           beside perftest (make bench has its own, bench-pair.sh)
#   --rows A,B  a developer's loop: only ibpost_blk's rows peer_blk_A,
#           peer_blk_B (tools/tests/lib/peer-blk.sh) against the same server,
#           with no killed client; the server's own rows then fail (they
#           expect one), so the exit status is the client's alone
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
kind=stock out='' long=0 rows=''
while (($#)); do
	case $1 in
	--kernel) kind=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--long) long=1; shift ;;
	--rows) rows=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel stock|test] [--out DIR] [--long] [--rows A,B]" >&2; exit 2 ;;
	esac
done
[[ -n $out ]] || out=$(mktemp -d "$repo/build/rig/peer-XXXXXX")
rc=0
if [[ -n $rows ]]; then
	[[ $rows =~ ^[a-z0-9_,]+$ ]] || { echo "$0: --rows takes names like errq1,tmo" >&2; exit 2; }
	"$repo/tools/rig/pair.sh" --kernel "$kind" --out "$out" --timeout 1500 \
		--append "rig.long=$long rig.rows=$rows" \
		--server tools/tests/pair/peer-server.sh --client tools/tests/pair/peer-client.sh
	cat "$out/client/peer-client.tap" 2>/dev/null
	[[ -s $out/client/peer-client.tap ]] && ! grep -q '^not ok' "$out/client/peer-client.tap"
	exit
fi
"$repo/tools/rig/pair.sh" --kernel "$kind" --out "$out" --timeout 1500 --append "rig.long=$long" \
	--server tools/tests/pair/peer-server.sh --client tools/tests/pair/peer-client.sh \
	--kill-client tools/tests/pair/peer-client.sh || rc=$?
for f in client/peer-client.tap server/peer-server.tap; do
	echo "# $f"
	cat "$out/$f" 2>/dev/null || echo "not ok 1 - $f missing (pair.sh exit $rc)"
done
cat "$out/client/peer-bench.txt" 2>/dev/null
exit "$rc"
