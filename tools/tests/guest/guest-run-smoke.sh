#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest smoke test of 'ibpost run' (via tools/rig/boot.sh): rxe on lo,
# ibpost.ko loaded, every opcode, --verify, the seed tutorial's layout,
# --json, a refusal and Ctrl-C.  Exits non-zero when any step fails.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
rig_load_rxe || exit 1
rig_rxe_lo || exit 1
insmod "${IBPOST_KO:-module/ibpost.ko}" || exit 1

ib=tools/ibpost/ibpost
out=${IBPOST_OUT:-/tmp}/run-smoke
mkdir -p "$out"
fails=0 n=0

# step WANT_RC GREP_PATTERN ARGS...: run 'ibpost ARGS', check the exit code
# and that the output (stdout or stderr) matches the pattern ('' for none).
# stdout is left in $out/step-N.txt, stderr in $out/step-N.err.
step() {
	local want=$1 pat=$2 rc log
	shift 2
	n=$((n + 1))
	log=$out/step-$n
	echo
	echo "\$ ibpost $*"
	timeout 300 "$ib" "$@" >"$log.txt" 2>"$log.err"
	rc=$?
	cat "$log.txt" "$log.err"
	if [[ $rc != "$want" ]]; then
		echo "FAIL: exit $rc, expected $want"
		fails=$((fails + 1))
	elif [[ -n $pat ]] && ! cat "$log.txt" "$log.err" | grep -Eq -- "$pat"; then
		echo "FAIL: output does not match /$pat/"
		fails=$((fails + 1))
	fi
}

row='^[0-9]+ +[0-9]+ +[0-9]+ '
vrow='^[0-9]+ +[0-9]+ +[0-9]+ .* ok$'

step 0 rxe_lo devices
step 0 "$row" run --dev rxe_lo --op write --size 64K --iters 200
step 0 "$vrow" run --dev rxe_lo --op write --size 64K --sge 4 --iters 100 --verify
step 0 "$vrow" run --dev rxe_lo --op send --size 4K --sge 2 --iters 100 --verify
step 0 "$vrow" run --dev rxe_lo --op send_imm --size 4K --imm 0x1234 --iters 100 --verify
step 0 "$vrow" run --dev rxe_lo --op write_imm --size 4K --imm 7 --iters 100 --verify
step 0 "$vrow" run --dev rxe_lo --op read --size 64K --sge 4 --iters 100 --verify
# The seed tutorial's layout: 256 B at 0, 512 B at 1024, 128 B at 2048.
step 0 "^896 +3 .* ok$" run --dev rxe_lo --op send --sge-layout 256@0,512@1024,128@2048 \
	--recv-sge 2 --iters 100 --verify
step 0 "^896 +3 .* ok$" run --dev rxe_lo --op write --sge-layout 256@0,512@1024,128@2048 \
	--iters 100 --verify
step 0 "$vrow" run --dev rxe_lo --op write --size 64K --sge 8 --layout page-cross --iters 50 --verify
step 0 "$vrow" run --dev rxe_lo --op send --size 10000 --sge 5 --layout unaligned \
	--recv-layout random --seed 7 --iters 50 --verify
step 0 "$vrow" run --dev rxe_lo --op write --size 64K --sge 16 --layout random --seed 42 \
	--iters 50 --verify
step 0 "$vrow" run --dev rxe_lo --op write --size 256 --inline --iters 200 --verify
step 0 "$row" run --dev rxe_lo --op write --size 64 --depth 128 --batch 16 --signal-every 16 \
	--iters 2000
step 0 "$row" run --dev rxe_lo --op write --size 64 --depth 1 --batch 1 --signal-every 1 \
	--iters 200 --hist
step 0 "$row" run --dev rxe_lo --op send --size 4K --duration 1
step 0 "$row" run --dev rxe_lo --op write --all-sizes --sge 4 --iters 10 --warmup 2
step 0 '"results": \[\{' run --dev rxe_lo --op write --size 4K --sge 2 --iters 100 --verify --json
if command -v python3 >/dev/null; then
	if python3 -m json.tool "$out/step-$n.txt" >/dev/null; then
		echo "json parses"
	else
		echo "FAIL: --json output does not parse"
		fails=$((fails + 1))
	fi
fi
# Refusals name the WR and SGE.
step 1 'run refused: .*sge\[2\] of wr 0: length 0' run --dev rxe_lo \
	--sge-layout 256@0,512@1024,0@2048 --iters 10
step 1 'run refused: .*no such RDMA device' run --dev nosuchdev --iters 10
step 1 'run refused: .*inline' run --dev rxe_lo --op write --size 64K --inline --iters 10
step 2 'bad --op' run --dev rxe_lo --op frobnicate

# Ctrl-C: partial row, exit 130.
n=$((n + 1))
echo
echo "\$ ibpost run --dev rxe_lo --op write --size 64K --duration 60   (SIGINT after 3 s)"
"$ib" run --dev rxe_lo --op write --size 64K --duration 60 >"$out/step-$n.txt" 2>&1 &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$out/step-$n.txt"
if [[ $rc != 130 ]] || ! grep -q '(interrupted)' "$out/step-$n.txt"; then
	echo "FAIL: exit $rc, expected 130 and an (interrupted) row"
	fails=$((fails + 1))
fi

echo
if ! rmmod ibpost; then
	echo "FAIL: rmmod ibpost"
	fails=$((fails + 1))
fi
echo "run smoke: $n steps, $fails failed"
((fails == 0))
