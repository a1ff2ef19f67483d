#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest entry of 'make check', in every guest it boots (test, stock,
# stock-6.12, forcemr: tools/tests/suites names them).  On the test kernel
# first the KUnit suites (module KTAP copied from dmesg to
# $IBPOST_OUT/kunit-dmesg.txt), the engine suite again on soft-iWARP; then,
# in every guest, the suites the registry tools/tests/suites gives that
# guest, in its order; on the test kernel last the registry's siw column
# again on siw0 (IBPOST_PROVIDER=siw: a dummy netdev with 192.0.2.20, every
# job through rdma_cm), rxe unloaded.
#
# make check boots the test kernel twice, one guest beside another on the
# two cores (tools/check.sh): rig.part=rxe runs the KUnit suites on rxe and
# the registry's suites, rig.part=siw the engine suite and the siw column
# on soft-iWARP.  Without rig.part a guest runs both, one after the other.
# rig.suites=A,B gives the rxe suites, in that order, instead of the
# registry, and rig.part=suites runs just them, without the KUnit suites
# (make check-long spreads the debug kernel's suites over three guests).
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
# shellcheck source=tools/tests/lib/suites.sh
. tools/tests/lib/suites.sh
rc=0
long=0
[[ $(rig_arg long) == 1 ]] && long=1
part=$(rig_arg part) || part=all
rxe=0 siw=0 kunit=0
[[ $part == all || $part == rxe || $part == suites ]] && rxe=1
[[ $IBPOST_KERNEL == test && ($part == all || $part == rxe) ]] && kunit=1
[[ $IBPOST_KERNEL == test && ($part == all || $part == siw) ]] && siw=1
# The debug kernel boots slowly under TCG (ACPI with kmemleak took 24 s in
# one stretch), so the guest boots with watchdog_thresh=60; the tests run
# with the usual 10 (a soft lockup is reported after 20 s); the same for the
# RCU stall timeout (100 at boot, 21 s, the default, for the tests).
echo 10 >/proc/sys/kernel/watchdog_thresh
echo 21 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null || true
# kmemleak (debug test kernel): forget what boot left; report what we leak.
if [[ -w /sys/kernel/debug/kmemleak ]]; then
	echo clear >/sys/kernel/debug/kmemleak
fi
if ((kunit)); then
	rig_load_rxe
	rig_rxe_lo
	insmod build/testmod/module/ibpost.ko || rc=1
	# Pure suites, then the engine on rxe_lo (exported API only).
	insmod build/testmod/kunit/ibpost_kunit.ko || rc=1
	# The transfer matrix: two variants per op and shape, all eight in
	# make check-long (full=1).
	insmod build/testmod/kunit/ibpost_rxe_kunit.ko dev=rxe_lo full=$long || rc=1
	# Two-sided messages and per-command keys on a loopback pair.
	insmod build/testmod/kunit/ibpost_msgq_kunit.ko dev=rxe_lo || rc=1
	# The session API: its consumer, driven by the session suite.
	insmod build/testmod/kunit/ibpost_consumer.ko autorun=0 || rc=1
	# A waiter woken by its session's close holds 3 s, longer than a close
	# takes here, before it touches the session again: a close that does
	# not wait for it frees the session under it (tk_close_waiter_test,
	# KASAN; a 300 ms hold ended within the close's QP drain).
	echo 3000 >/sys/module/ibpost/parameters/session_test_wake_ms || rc=1
	insmod build/testmod/kunit/ibpost_session_kunit.ko dev=rxe_lo || rc=1
	echo 0 >/sys/module/ibpost/parameters/session_test_wake_ms
	# KTAP is cut from this dmesg on the host (tools/tests/lib/ktap_extract.py).
	dmesg >"$IBPOST_OUT/kunit-dmesg.txt"
	grep -E '^\[[ 0-9.]*\] *(not ok|# .*(FAILED|fail:[1-9]))' \
		"$IBPOST_OUT/kunit-dmesg.txt" || true
	rmmod ibpost_session_kunit || rc=1
	rmmod ibpost_consumer || rc=1
	rmmod ibpost_msgq_kunit || rc=1
	rmmod ibpost_rxe_kunit || rc=1
	rmmod ibpost_kunit || rc=1
	rmmod ibpost || rc=1
	rdma link del rxe_lo || rc=1
fi
if ((siw)); then
	# The engine suite again on soft-iWARP, every job through rdma_cm.
	t0=$SECONDS
	seen=$(dmesg | wc -l)
	rig_load_siw || rc=1
	rig_siw0 || rc=1
	insmod build/testmod/module/ibpost.ko || rc=1
	insmod build/testmod/kunit/ibpost_siw_kunit.ko dev=siw0 cm=192.0.2.20 full=$long || rc=1
	dmesg | tail -n +$((seen + 1)) >>"$IBPOST_OUT/kunit-dmesg.txt"
	grep -E '^\[[ 0-9.]*\] *(not ok|# .*(FAILED|fail:[1-9]))' \
		"$IBPOST_OUT/kunit-dmesg.txt" || true
	rmmod ibpost_siw_kunit || rc=1
	rmmod ibpost || rc=1
	rdma link del siw0 || rc=1
	echo "siw engine suite: $((SECONDS - t0)) s" >>"$IBPOST_OUT/siw-time.txt"
fi
# The suites of this guest, in the registry's order (tools/tests/suites:
# installed.sh first on stock 6.1, before anything of ours is loaded;
# serve.sh on the debug kernel in make check-long only, the 45-minute
# budget), each one's time in suite-time-KERNEL.txt.
guest=$(suites_guest)
list=$(rig_arg suites | tr ',' ' ') || list=$(suites "$guest" "$long")
for t in $( ((rxe)) && echo "$list"); do
	t0=$SECONDS
	"tools/tests/guest/$t.sh" || rc=1
	echo "$guest $t: $((SECONDS - t0)) s" >>"$IBPOST_OUT/suite-time-$IBPOST_KERNEL.txt"
done
if ((siw)); then
	# Only siw devices from here on: the registry's siw column.
	rdma link del rxe_lo 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	for t in $(siw_suites "$long"); do
		t0=$SECONDS
		IBPOST_PROVIDER=siw "tools/tests/guest/$t.sh" || rc=1
		echo "siw $t: $((SECONDS - t0)) s" >>"$IBPOST_OUT/siw-time.txt"
	done
fi
# kmemleak, when the kernel has it: a scan after everything was unloaded.
rig_kmemleak "$IBPOST_OUT/kmemleak-$IBPOST_KERNEL.txt"
dmesg >"$IBPOST_OUT/dmesg-$IBPOST_KERNEL.txt"
exit $rc
