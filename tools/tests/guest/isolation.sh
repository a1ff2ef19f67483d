#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest isolation tests (run by guest-check.sh on both kernels, rxe):
# `ibpost serve` and its clients in one guest, over rxe on a dummy netdev
# (rdma_cm), clients being tools/tests/hostile (userspace verbs speaking
# the wire format):
#   - client A holds a session slot (remote read and write) with its data in
#     it; client B, with its own connection, RDMA WRITEs and READs A's slot
#     with A's real address and rkey: B gets a remote access error, A's data
#     is intact, A's job ends normally (each served connection its own PD);
#   - the same against a kernel consumer's ibpost_reg() registration on a
#     loopback session of the same device (ibpost_consumer hold=1);
#   - the address a client receives in `ready` is no kernel pointer;
#   - a foreign connect request to a loopback rdma_cm pair's port is
#     rejected and the pair's own initiator connects (pair_test_port hook).
# TAP on stdout and in $IBPOST_OUT/isolation-$IBPOST_KERNEL.tap.
# ISO_KO, ISO_CONS: the ibpost.ko and ibpost_consumer.ko to test (default:
# the ones for this kernel).
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" isolation
KO=${ISO_KO:-$KO}
CONS=${ISO_CONS:-$CONS}
HOSTILE=tools/tests/hostile
A=192.0.2.31
PORT=18531
TMP=$(mktemp -d)

if ! rig_load_rxe || ! rig_rxe_dummy rxe_iso "$A/24"; then
	t_fail "rxe_iso on a dummy netdev" "set-up"
	t_done
	exit 1
fi
insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }

"$IBPOST" serve --addr "$A" --port "$PORT" >"$TMP/serve.log" 2>&1 &
spid=$!
up=0
for _ in $(seq 100); do
	grep -q -i listen "$TMP/serve.log" && { up=1; break; }
	sleep 0.1
done
((up)) || t_fail "ibpost serve listening" "$(tail -n 3 "$TMP/serve.log" | tr '\n' ' ')"

# --- one connection's slot, another connection's WRs --------------------------
timeout 180 "$HOSTILE" hold --server "$A" --port "$PORT" --size 4096 \
	--until "$TMP/release" >"$TMP/a.txt" 2>&1 &
apid=$!
slot=
for _ in $(seq 300); do
	grep -q 'holding' "$TMP/a.txt" && { slot=$(grep '^slot 0 ' "$TMP/a.txt"); break; }
	kill -0 $apid 2>/dev/null || break
	sleep 0.1
done
if [[ -z $slot ]]; then
	t_fail "client A holds a slot" "$(tail -n 3 "$TMP/a.txt" | tr '\n' ' ')"
else
	t_ok "client A holds a slot: $slot"
	addr=$(awk '{ print $4 }' <<<"$slot")
	rkey=$(awk '{ print $6 }' <<<"$slot")
	# Item 2: a kernel address (0xffff8...) must not reach a peer.
	if (( addr >= 0 && addr < (1 << 47) )); then
		t_ok "the address in ready ($addr) is no kernel pointer"
	else
		t_fail "the address in ready is no kernel pointer" "$addr"
	fi
	for op in write read; do
		out=$(timeout 60 "$HOSTILE" access --server "$A" --port "$PORT" \
			--op $op --addr "$addr" --rkey "$rkey" --len 4096 2>&1)
		if grep -q "^access $op: remote access error" <<<"$out"; then
			t_ok "client B's RDMA $op to A's slot: remote access error on B"
		else
			t_fail "client B's RDMA $op to A's slot: remote access error on B" \
				"$(tr '\n' ' ' <<<"$out")"
		fi
	done
fi
touch "$TMP/release"
arc=0
wait $apid || arc=$?
if [[ $arc == 0 ]] && grep -q 'data intact' "$TMP/a.txt" &&
	grep -q 'result err 0 ' "$TMP/a.txt"; then
	t_ok "client A's data intact, its job ended normally"
else
	t_fail "client A's data intact, its job ended normally" \
		"exit $arc: $(tail -n 3 "$TMP/a.txt" | tr '\n' ' ')"
fi

# --- a kernel consumer's ibpost_reg() registration, from a served connection --
seen=$(dmesg | wc -l)
if insmod "$CONS" dev=rxe_iso autorun=0 hold=1; then
	reg=$(dmesg | tail -n +$((seen + 1)) | grep -o 'holding a registration: .*')
	raddr=$(awk '{ print $5 }' <<<"$reg")
	rrkey=$(awk '{ print $7 }' <<<"$reg")
	if [[ -n $raddr ]] && (( raddr >= 0 && raddr < (1 << 47) )); then
		t_ok "a session registration's address ($raddr) is no kernel pointer"
	else
		t_fail "a session registration's address is no kernel pointer" "${raddr:-none}"
	fi
	for op in write read; do
		out=$(timeout 60 "$HOSTILE" access --server "$A" --port "$PORT" \
			--op $op --addr "${raddr:-0}" --rkey "${rrkey:-1}" --len 4096 2>&1)
		if grep -q "^access $op: remote access error" <<<"$out"; then
			t_ok "a client's RDMA $op to a session's registration: remote access error"
		else
			t_fail "a client's RDMA $op to a session's registration: remote access error" \
				"$(tr '\n' ' ' <<<"$out")"
		fi
	done
	seen=$(dmesg | wc -l)
	rmmod ibpost_consumer
	if dmesg | tail -n +$((seen + 1)) | grep -q 'held registration intact'; then
		t_ok "the session's registered page intact"
	else
		t_fail "the session's registered page intact" \
			"$(dmesg | tail -n +$((seen + 1)) | grep ibpost_consumer | tr '\n' ' ')"
	fi
else
	t_fail "consumer holding a registration on rxe_iso" "insmod $CONS hold=1"
fi
kill -INT $spid 2>/dev/null
wait $spid 2>/dev/null

# --- a foreign connect request to a loopback pair's port -----------------------
PPORT=18532
echo $PPORT >/sys/module/ibpost/parameters/pair_test_port
timeout 120 "$IBPOST" run --dev rxe_iso --cm "$A" --op write --size 4K -n 100 \
	>"$TMP/pair.txt" 2>&1 &
ppid=$!
out=$(timeout 60 "$HOSTILE" connect --server "$A" --port $PPORT --tries 40 2>&1)
hrc=$?
prc=0
wait $ppid || prc=$?
if [[ $hrc == 3 ]] && grep -q 'consumer reject [1-9]' <<<"$out"; then
	t_ok "a foreign connect to the pair's port is rejected ($out)"
else
	t_fail "a foreign connect to the pair's port is rejected" "exit $hrc: $(tr '\n' ' ' <<<"$out")"
fi
if [[ $prc == 0 ]]; then
	t_ok "the pair's own initiator connected, the job ran"
else
	t_fail "the pair's own initiator connected, the job ran" \
		"exit $prc: $(tail -n 3 "$TMP/pair.txt" | tr '\n' ' ')"
fi

t_check "rmmod ibpost" rmmod ibpost
rdma link del rxe_iso
ip link del d0 2>/dev/null
rm -rf "$TMP"
t_done
