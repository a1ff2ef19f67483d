# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest test scripts run by tools/rig/boot.sh (bash; inside the chroot).
# Usage: . "$IBPOST_REPO/tools/rig/guest-lib.sh"
#   rig_load_rxe              load crc32/ib_core/.../rdma_rxe/rdma_cm/rdma_ucm (no autoload in the guest)
#   rig_rxe_lo                rxe device rxe_lo on lo, waits for ACTIVE
#   rig_rxe_dummy NAME ADDR   dummy netdev d0 (MTU 9000, ADDR e.g. 192.0.2.9/24) + rxe NAME on it
#   rig_load_siw              load crc32c/libcrc32c/ib_core/.../siw/rdma_cm/rdma_ucm (soft-iWARP)
#   rig_siw_lo                siw device siw_lo on lo, waits for ACTIVE (rdma_cm cannot use it:
#                             ibpost's loopback jobs need rig_siw0)
#   rig_siw0                  siw device siw0 on dummy netdev dsiw with 192.0.2.20/32, ACTIVE
#   rig_siw_dummy NAME ADDR   as rig_rxe_dummy, with a siw device NAME on d0
#   rig_provider [rxe|siw]    load the provider ($IBPOST_PROVIDER, default rxe), create its
#                             loopback device; sets PROV, DEV (rxe_lo, siw0), CM (the
#                             rdma_cm address of DEV: empty on rxe, 192.0.2.20 on siw), CMOPT
#                             (the 'ibpost run' options that connect a loopback job: none on
#                             rxe, '--cm 192.0.2.20' on siw), TP (TAP name prefix, e.g. 'siw: ')
#   rig_dummy NAME ADDR       rig_rxe_dummy or rig_siw_dummy, after rig_provider
#   rig_tap NAME              TAP_FILE ($IBPOST_OUT/NAME-KERNEL.tap, NAME-siw-KERNEL.tap for
#                             siw) and TAP_PREFIX ('siw: ' for siw) for tools/tests/lib/tap.sh
#   rig_arg NAME              value of rig.NAME= on the kernel command line (tools/rig/pair.sh)
#   rig_ibpost_paths          KO (ibpost.ko), CONS (ibpost_consumer.ko) and IBPOST (the tool)
#                             for $IBPOST_KERNEL (test: the modules built for the test kernel)
#   rig_pair_net              two-guest wire (pair.sh): eth0 up, MTU 9000, this guest's
#                             address (rig.addr), rxe0 on it, ACTIVE
#   rig_wait_serve SERVER     wait (up to about 150 tries a second apart) until
#                             'ibpost serve' at SERVER answers a short WRITE run on rxe0
#                             ($IBPOST, from rig_ibpost_paths)
# Functions return non-zero on failure (messages on stderr).
# shellcheck shell=bash

# The suites read serve's lines as they are, without the time it puts
# before each when its output is not journald's (ibpost(8)).
export IBPOST_SERVE_STAMP=0

# rig_modprobe MOD...: load each module; skip ones this kernel lacks (built-in ones load as no-ops).
# rig_tracefs: the tracefs directory (printed), mounted where it is not:
# /sys/kernel/tracing, or debugfs's tracing/ on a kernel without the
# former (trace.sh's events, peer-blk.sh's kprobes).
rig_tracefs() {
	local t=/sys/kernel/tracing
	if [[ ! -e $t/events ]] && ! mount -t tracefs nodev "$t" 2>/dev/null; then
		mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
		t=/sys/kernel/debug/tracing
	fi
	echo "$t"
}

rig_modprobe() {
	local m
	for m in "$@"; do
		if ! modinfo -n "$m" >/dev/null 2>&1; then
			echo "rig: module $m not available, skipped" >&2
			continue
		fi
		modprobe "$m" || { echo "rig: modprobe $m failed" >&2; return 1; }
	done
}

rig_load_rxe() {
	rig_modprobe crc32_generic configfs ib_core ib_uverbs udp_tunnel ip6_udp_tunnel \
		rdma_rxe iw_cm ib_cm rdma_cm rdma_ucm
}

# rig_wait_active DEV [SECONDS]: wait until port 1 of DEV is ACTIVE.
rig_wait_active() {
	local i
	for ((i = 0; i < ${2:-10} * 10; i++)); do
		rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.1
	done
	echo "rig: $1 not ACTIVE: $(rdma link show "$1/1" 2>&1)" >&2
	return 1
}

rig_rxe_lo() {
	ip link set lo up
	rdma link show rxe_lo/1 >/dev/null 2>&1 || rdma link add rxe_lo type rxe netdev lo || return 1
	rig_wait_active rxe_lo
}

# rig_link_dummy TYPE NAME ADDR: an rdma link of TYPE (rxe, siw) on the
# dummy netdev d0 with ADDR.
rig_link_dummy() {
	local type=$1 name=$2 addr=$3
	rig_modprobe dummy || return 1
	ip link show d0 >/dev/null 2>&1 || ip link add d0 type dummy || return 1
	ip link set d0 mtu 9000
	ip addr add "$addr" dev d0
	ip link set d0 up
	rdma link add "$name" type "$type" netdev d0 || return 1
	rig_wait_active "$name"
}

rig_rxe_dummy() {
	rig_link_dummy rxe "${1:?usage: rig_rxe_dummy NAME ADDR}" "${2:?usage: rig_rxe_dummy NAME ADDR}"
}

rig_load_siw() {
	rig_modprobe crc32c_generic libcrc32c configfs ib_core ib_uverbs siw \
		iw_cm ib_cm rdma_cm rdma_ucm
}

rig_siw_lo() {
	ip link set lo up
	rdma link show siw_lo/1 >/dev/null 2>&1 || rdma link add siw_lo type siw netdev lo || return 1
	rig_wait_active siw_lo
}

# rdma_cm binds 127.0.0.1 to no device, so ibpost (which checks that the
# pair is on the job's device) cannot connect a pair on siw_lo: siw0 sits on
# a dummy netdev of its own, with one address (/32: 192.0.2.0/24 stays free
# for the d0 devices the tests add and delete).
rig_siw0() {
	# The iWARP stream to a local address runs over lo: it must be up.
	ip link set lo up
	rig_modprobe dummy || return 1
	if ! ip link show dsiw >/dev/null 2>&1; then
		ip link add dsiw type dummy || return 1
		ip link set dsiw mtu 9000
		ip addr add 192.0.2.20/32 dev dsiw
	fi
	ip link set dsiw up
	rdma link show siw0/1 >/dev/null 2>&1 || rdma link add siw0 type siw netdev dsiw || return 1
	rig_wait_active siw0
}

rig_siw_dummy() {
	rig_link_dummy siw "${1:?usage: rig_siw_dummy NAME ADDR}" "${2:?usage: rig_siw_dummy NAME ADDR}"
}

# shellcheck disable=SC2034 # DEV, CM, CMOPT and TP are for the caller
rig_provider() {
	PROV=${1:-${IBPOST_PROVIDER:-rxe}}
	case $PROV in
	rxe)
		DEV=rxe_lo CM='' CMOPT=() TP=''
		rig_load_rxe && rig_rxe_lo
		;;
	siw)
		# iWARP: QPs connect only through rdma_cm, to siw0's address.
		DEV=siw0 CM=192.0.2.20 CMOPT=(--cm 192.0.2.20) TP='siw: '
		rig_load_siw && rig_siw0
		;;
	*)
		echo "rig: unknown provider $PROV" >&2
		return 1
		;;
	esac
}

# rig_dummy NAME ADDR: a device of the provider chosen by rig_provider on d0.
rig_dummy() {
	"rig_${PROV:-rxe}_dummy" "$@"
}

rig_tap() {
	local p=${IBPOST_PROVIDER:-rxe}
	if [[ $p == rxe ]]; then
		TAP_FILE=$IBPOST_OUT/$1-$IBPOST_KERNEL.tap TAP_PREFIX=''
	else
		TAP_FILE=$IBPOST_OUT/$1-$p-$IBPOST_KERNEL.tap TAP_PREFIX="$p: "
	fi
	export TAP_FILE TAP_PREFIX
	: >"$TAP_FILE"
}

rig_arg() {
	local a
	for a in $(cat /proc/cmdline); do
		[[ $a == "rig.$1="* ]] && { echo "${a#*=}"; return 0; }
	done
	return 1
}

rig_wait_serve() {
	local i
	for i in $(seq 150); do
		timeout 60 "$IBPOST" run --dev rxe0 --connect "$1" --op write --size 4K -n 10 \
			>/dev/null 2>&1 && return 0
		sleep 1
	done
	echo "rig: no ibpost serve at $1" >&2
	return 1
}

rig_pair_net() {
	local addr
	addr=$(rig_arg addr) || { echo "rig: no rig.addr (not booted by pair.sh?)" >&2; return 1; }
	rig_modprobe virtio_net || return 1
	for _ in $(seq 50); do
		ip link show eth0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip link set eth0 mtu 9000 || return 1
	ip addr add "$addr/24" dev eth0 || return 1
	ip link set eth0 up || return 1
	rdma link show rxe0/1 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev eth0 || return 1
	rig_wait_active rxe0
}

# rig_pair_start NAME: the start of a two-guest script (tools/rig/pair.sh):
# TAP helpers (tools/tests/lib/tap.sh) writing $IBPOST_OUT/NAME.tap, rxe0 on
# the wire, ibpost loaded, debugfs mounted; on a failure a TAP row, exit 1.
rig_pair_start() {
	TAP_FILE=$IBPOST_OUT/$1.tap
	export TAP_FILE
	: >"$TAP_FILE"
	# shellcheck source=tools/tests/lib/tap.sh
	. tools/tests/lib/tap.sh
	rig_ibpost_paths
	if ! rig_load_rxe || ! rig_pair_net; then
		t_fail "rxe0 on the wire" "set-up"
		t_done
		exit 1
	fi
	insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
}

# rig_pair_wait_stop SECONDS: wait until the host creates $IBPOST_OUT/stop
# (tools/rig/pair.sh, when the client is done); 1 when it did not in time.
rig_pair_wait_stop() {
	local i
	for ((i = 0; i < $1 * 2; i++)); do
		[[ -e $IBPOST_OUT/stop ]] && return 0
		sleep 0.5
	done
	return 1
}

# rig_pair_end [WHERE]: the last rows of a two-guest script: nothing of
# ibpost left (rdma resource), ibpost/live at 0, the module unloads.
rig_pair_end() {
	sleep 1
	t_check "nothing of ibpost is left${1:+ $1} (rdma resource)" \
		bash -c "! rdma resource show qp | grep -q 'comm \\[ibpost' && ! rdma resource show mr | grep -q 'comm \\[ibpost'"
	t_check "ibpost/live is back to 0 0 0" \
		bash -c "tr '\\n' ' ' </sys/kernel/debug/ibpost/live | grep -q 'pages 0 mrs 0 jobs 0'"
	t_check "ibpost unloads" rmmod ibpost
}

# rig_kmemleak FILE: on a kernel with kmemleak, scan (twice: a first scan
# only marks candidates) and write what it reports to FILE; 1 without it.
rig_kmemleak() {
	[[ -w /sys/kernel/debug/kmemleak ]] || return 1
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$1"
}

# The modules of this guest's kernel: the test kernel's build/testmod, the
# 6.12 stock kernel's build/mod-6.12 (tools/check.sh builds both), the
# 6.1 stock kernel's the tree's own.
rig_ibpost_paths() {
	local obj=.
	[[ ${IBPOST_KERNEL:-} == test ]] && obj=build/testmod
	[[ ${IBPOST_KERNEL:-} == stock && $(rig_arg stock) == 6.12 ]] && obj=build/mod-6.12
	KO=$obj/module/ibpost.ko
	CONS=$obj/kunit/ibpost_consumer.ko
	IBPOST=tools/ibpost/ibpost
	export KO CONS IBPOST
}
