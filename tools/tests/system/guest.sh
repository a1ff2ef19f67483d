#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage (inside a guest of tools/tests/system/system.sh, installed as
# /usr/local/sbin/ibpost-systest): ibpost-systest net | run
#
# The guest half of the installed-package test, on a Debian 12 system that
# booted systemd as PID 1 with the packages ibpost and ibpost-dkms
# installed (their modules built by DKMS for this kernel).  Its role and
# addresses come from the kernel command line: ibpost.systest=server or
# client, ibpost.addr=A, ibpost.peer=B.
#   net  (ibpost-systest-net.service, before network-online.target): eth0
#        gets A/24 and rxe0 is added on it, as an operator's network
#        configuration would do.
#   run  (ibpost-systest.service, last): the test.  Server: ibpost-serve
#        refuses a serve.conf without --allow (its journal says why), then
#        is enabled with one that allows only the client's network, is
#        active (Type=notify: READY once the kernel listens) and listens.
#        Client, first boot: the group rdma exists (sysusers.d), a member
#        lists the devices and a non-member is refused /dev/ibpost; once
#        the server answers, ibpost-blk is enabled with a blk.conf naming
#        one device, which is mapped with its by-id link; 8 MiB of random
#        bytes are written, then the guest reboots.  Second boot: the
#        device was mapped again at boot (its by-id link), the bytes read
#        back equal (the server kept the region: its keep), 'systemctl stop
#        ibpost-blk' unmaps it within the unit's stop timeout; then the
#        guest powers off.  Both: systemd-analyze verify accepts the units
#        and its security rates each at most MEDIUM.
# The rows are tools/tests/lib/tap.sh's (installed beside this script),
# each on the console after "SYSTEST " ("SYSTEST ok 3 - NAME", "SYSTEST not
# ok 4 - NAME # WHY"); "SYSTEST end ROLE PHASE" ends a phase.  The host
# turns them into its TAP.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C

state=/var/lib/ibpost-systest
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^ibpost\\.$1=//p" | tail -n 1; }
role=$(arg systest)
addr=$(arg addr)
peer=$(arg peer)
port=18520

# tap.sh reads it.
# shellcheck disable=SC2034
TAP_PREFIX="$role: "
# shellcheck source=tools/tests/lib/tap.sh
. /usr/local/lib/ibpost-systest/tap.sh

net() {
	ip link set eth0 up || return
	ip -4 addr show dev eth0 | grep -q "inet $addr/" ||
		ip addr add "$addr/24" dev eth0 || return
	modprobe rdma_rxe || return
	rdma link show rxe0/1 >/dev/null 2>&1 ||
		rdma link add rxe0 type rxe netdev eth0
}

# units_checked: systemd-analyze verify takes both units; security rates
# each at most MEDIUM (its last line: "→ Overall exposure level for U: X.Y
# MEDIUM 😐").
units_checked() {
	local u out lvl
	for u in ibpost-serve.service ibpost-blk.service; do
		t_check "systemd-analyze verify $u" \
			systemd-analyze verify "/usr/lib/systemd/system/$u"
		out=$(systemd-analyze security "$u" 2>&1 | tail -n 1)
		lvl=$(grep -oE '(UNSAFE|EXPOSED|MEDIUM|OK|SAFE)' <<<"$out" | tail -n 1)
		case $lvl in
		MEDIUM | OK | SAFE) t_ok "systemd-analyze security rates $u $lvl" ;;
		*) t_fail "systemd-analyze security rates $u at most MEDIUM" "${out:-no output}" ;;
		esac
	done
}

# Until the unit is active or failed (at most $2 s): its state.
unit_settle() {
	local _ st
	for _ in $(seq "$2"); do
		st=$(systemctl is-active "$1" 2>&1)
		[[ $st == active || $st == failed ]] && break
		sleep 1
	done
	echo "$st"
}

server() {
	local st first
	# Refused without --allow: the journal's first line of the start says
	# why, and the unit is not restarted (exit 2).
	printf -- '--addr %s\n--port %s\n' "$addr" "$port" >/etc/ibpost/serve.conf
	systemctl start ibpost-serve.service 2>/dev/null
	st=$(unit_settle ibpost-serve.service 30)
	first=$(journalctl -b -u ibpost-serve.service -o cat --no-pager 2>/dev/null |
		grep -m 1 -i 'allow')
	if [[ $st == failed && -n $first ]]; then
		t_ok "ibpost-serve refuses a serve.conf without --allow: $first"
	else
		t_fail "ibpost-serve refuses a serve.conf without --allow" "state $st, journal: $first"
	fi
	systemctl reset-failed ibpost-serve.service 2>/dev/null
	printf -- '--addr %s\n--port %s\n--allow %s/24\n--max-keep 600\n' \
		"$addr" "$port" "${peer%.*}.0" >/etc/ibpost/serve.conf
	t_check "systemctl enable --now ibpost-serve" \
		systemctl enable --now ibpost-serve.service
	st=$(systemctl is-active ibpost-serve.service 2>&1)
	if [[ $st == active ]] && rdma resource show cm_id 2>/dev/null |
		grep -q "state LISTEN.*src-addr $addr:$port"; then
		t_ok "ibpost-serve is active (READY) and listens on $addr:$port"
	else
		t_fail "ibpost-serve is active and listens" "state $st: $(rdma resource show cm_id 2>&1 | tr '\n' ' ')"
	fi
	t_check "ibpost-serve is enabled" systemctl is-enabled ibpost-serve.service
	units_checked
	echo "end server 1"
}

# The client's first boot: the group, the map through the unit, the data.
client1() {
	local out rc i dev tool
	modprobe ibpost
	if getent group rdma >/dev/null; then
		t_ok "the group rdma exists ($(getent group rdma))"
	else
		t_fail "the group rdma exists" "getent: nothing"
	fi
	useradd -m -G rdma alice 2>/dev/null
	useradd -m bob 2>/dev/null
	udevadm settle
	# Its path: /usr/sbin is not in a user's PATH.
	tool=$(command -v ibpost)
	out=$(su alice -s /bin/sh -c "$tool devices" 2>&1)
	rc=$?
	if [[ $rc == 0 && $out == *rxe0* ]]; then
		t_ok "a member of rdma lists the devices (rxe0)"
	else
		t_fail "a member of rdma lists the devices" "exit $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
	out=$(su bob -s /bin/sh -c "$tool devices" 2>&1)
	rc=$?
	if [[ $rc != 0 ]] && grep -qi 'permission denied' <<<"$out"; then
		t_ok "a non-member is refused /dev/ibpost: $(head -n 1 <<<"$out")"
	else
		t_fail "a non-member is refused /dev/ibpost" "exit $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
	# The server guest boots beside this one: wait until it serves.
	for i in $(seq 120); do
		ibpost run --dev rxe0 --connect "$peer:$port" --op write --size 4096 \
			--iters 1 >/dev/null 2>&1 && break
		sleep 5
	done
	((i < 120)) || t_fail "the server answers within 10 minutes" "no job ran"
	printf -- '--dev rxe0 --connect %s:%s --size 64M --serial systest0 --ctrl-loss-tmo 10m\n' \
		"$peer" "$port" >/etc/ibpost/blk.conf
	t_check "ibpost blk map --check-config takes blk.conf" \
		ibpost blk map --config /etc/ibpost/blk.conf --check-config
	t_check "systemctl enable --now ibpost-blk" systemctl enable --now ibpost-blk.service
	dev=/dev/disk/by-id/ibpost-systest0
	udevadm settle
	if [[ -b $dev ]]; then
		t_ok "the device is mapped with its by-id link ($dev -> $(readlink -f "$dev"))"
	else
		t_fail "the device is mapped with its by-id link" "no $dev: $(echo /dev/disk/by-id/*)"
		echo "end client 1"
		return
	fi
	mkdir -p "$state"
	head -c 8M /dev/urandom >"$state/data"
	if dd if="$state/data" of="$dev" bs=1M oflag=direct status=none; then
		sha256sum <"$state/data" | cut -d' ' -f1 >"$state/sum"
		t_ok "8 MiB written to the device ($(cat "$state/sum"))"
	else
		t_fail "8 MiB written to the device" "dd failed"
	fi
	rm -f "$state/data"
	units_checked
	echo 1 >"$state/phase"
	sync
	echo "end client 1"
	systemctl reboot
}

# The client's second boot: mapped at boot, the data, the stop.
client2() {
	local dev=/dev/disk/by-id/ibpost-systest0 got st t0 s tmo left out
	st=$(unit_settle ibpost-blk.service 120)
	udevadm settle
	if [[ $st == active && -b $dev ]]; then
		t_ok "after the reboot ibpost-blk mapped the device at boot ($dev)"
	else
		t_fail "after the reboot the device is mapped at boot" "ibpost-blk $st, $dev $(ls -l "$dev" 2>&1)"
	fi
	# The unit's map went through /dev/ibpost-blk (its DeviceAllow): the
	# tool says so when that node does not open and it uses map_device.
	out=$(journalctl -b -u ibpost-blk.service -o cat --no-pager 2>&1)
	if grep -qx 'ibpostb[0-9]*' <<<"$out" && ! grep -q '/dev/ibpost-blk:' <<<"$out"; then
		t_ok "ibpost-blk mapped through /dev/ibpost-blk (the journal: $(grep -x 'ibpostb[0-9]*' <<<"$out" | tr '\n' ' ')and no fallback)"
	else
		t_fail "ibpost-blk mapped through /dev/ibpost-blk" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	fi
	got=$(dd if="$dev" bs=1M count=8 iflag=direct status=none 2>/dev/null | sha256sum | cut -d' ' -f1)
	if [[ -n $got && $got == "$(cat "$state/sum" 2>/dev/null)" ]]; then
		t_ok "the 8 MiB written before the reboot read back equal"
	else
		t_fail "the 8 MiB written before the reboot read back equal" "sha256 $got, written $(cat "$state/sum" 2>/dev/null)"
	fi
	tmo=$(systemctl show -P TimeoutStopUSec ibpost-blk.service)
	t0=$SECONDS
	systemctl stop ibpost-blk.service
	s=$((SECONDS - t0))
	udevadm settle
	left=$(compgen -G '/sys/block/ibpostb*')
	if [[ ! -e $dev && -z $left ]]; then
		t_ok "systemctl stop ibpost-blk unmapped the device in $s s (TimeoutStopSec $tmo)"
	else
		t_fail "systemctl stop ibpost-blk unmaps the device within its stop timeout" "after $s s: $left"
	fi
	echo 2 >"$state/phase"
	sync
	echo "end client 2"
	systemctl poweroff
}

case ${1:-} in
net) net ;;
run)
	case $role in
	server) server ;;
	client)
		if [[ $(cat "$state/phase" 2>/dev/null) == 1 ]]; then
			client2
		else
			client1
		fi
		;;
	*) t_fail "ibpost.systest= is server or client" "'$role'" ;;
	esac | sed -u 's/^/SYSTEST /'
	;;
*) sed -n '3,4s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
