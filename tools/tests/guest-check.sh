#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest entry of 'make check': on the test kernel, run the KUnit suites
# (module KTAP copied from debugfs to $IBPOST_OUT/kunit-*.ktap), then the
# integration tests, the bad-input table, the hardening and session tests,
# ibpost serve in one guest (serve.sh), isolation against a hostile peer
# (isolation.sh) and the teardown races (races.sh); on the
# stock kernel first the installed files (installed.sh: modprobe ibpost,
# the installed tool), then the same without KUnit; on both the block device
# (blk.sh: its short set on the test kernel).  The test kernel has soft-iWARP too
# (siw; the stock kernel has not): after the rxe rows, the engine suite
# (ibpost_siw) and the same scripts run again on siw0 (IBPOST_PROVIDER=siw:
# a dummy netdev with 192.0.2.20, every job through rdma_cm), rxe unloaded.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
rc=0
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
if [[ $IBPOST_KERNEL == test ]]; then
	rig_load_rxe
	rig_rxe_lo
	insmod build/testmod/module/ibpost.ko || rc=1
	# Pure suites, then the engine on rxe_lo (exported API only).
	insmod build/testmod/kunit/ibpost_kunit.ko || rc=1
	# The transfer matrix: two variants per op and shape, all eight in
	# make check-long (full=1).
	full=0
	[[ $(rig_arg long) == 1 ]] && full=1
	insmod build/testmod/kunit/ibpost_rxe_kunit.ko dev=rxe_lo full=$full || rc=1
	# The session API: its consumer, driven by the session suite.
	insmod build/testmod/kunit/ibpost_consumer.ko autorun=0 || rc=1
	# A waiter woken by its session's close holds 3 s, longer than a close
	# takes here, before it touches the session again: a close that does
	# not wait for it frees the session under it (tk_close_waiter_test,
	# KASAN; a 300 ms hold ended within the close's QP drain).
	echo 3000 >/sys/module/ibpost/parameters/session_test_wake_ms || rc=1
	insmod build/testmod/kunit/ibpost_session_kunit.ko dev=rxe_lo || rc=1
	echo 0 >/sys/module/ibpost/parameters/session_test_wake_ms
	# KTAP is cut from this dmesg on the host (tools/tests/ktap_extract.py).
	dmesg >"$IBPOST_OUT/kunit-dmesg.txt"
	grep -E '^\[[ 0-9.]*\] *(not ok|# .*(FAILED|fail:[1-9]))' \
		"$IBPOST_OUT/kunit-dmesg.txt" || true
	rmmod ibpost_session_kunit || rc=1
	rmmod ibpost_consumer || rc=1
	rmmod ibpost_rxe_kunit || rc=1
	rmmod ibpost_kunit || rc=1
	rmmod ibpost || rc=1
	rdma link del rxe_lo || rc=1
	# The engine suite again on soft-iWARP, every job through rdma_cm.
	t0=$SECONDS
	seen=$(dmesg | wc -l)
	rig_load_siw || rc=1
	rig_siw0 || rc=1
	insmod build/testmod/module/ibpost.ko || rc=1
	insmod build/testmod/kunit/ibpost_siw_kunit.ko dev=siw0 cm=192.0.2.20 full=$full || rc=1
	dmesg | tail -n +$((seen + 1)) >>"$IBPOST_OUT/kunit-dmesg.txt"
	rmmod ibpost_siw_kunit || rc=1
	rmmod ibpost || rc=1
	rdma link del siw0 || rc=1
	echo "siw engine suite: $((SECONDS - t0)) s" >>"$IBPOST_OUT/siw-time.txt"
fi
# The installed files (tools/tests/install.sh left them in build/pkg):
# modprobe and the tool from them, before anything of ours is loaded.
# (6.1's: the 6.12 guest loads the modules make check built for it; its
# DKMS build is checked on the host, install.sh.)
if [[ $IBPOST_KERNEL == stock && $(rig_arg stock) != 6.12 ]]; then
	tools/tests/installed.sh || rc=1
fi
tools/tests/integration.sh || rc=1
tools/tests/badinput.sh || rc=1
tools/tests/hardening.sh || rc=1
tools/tests/session.sh || rc=1
# Tracepoints and logs: the stock kernel (tracefs; about 60 s).
if [[ $IBPOST_KERNEL == stock ]]; then
	tools/tests/trace.sh || rc=1
fi
# serve.sh takes 5-6 minutes on the debug kernel and checks nothing that
# kernel sees better: there in make check-long only (the 45-minute budget).
if [[ $IBPOST_KERNEL != test || $(rig_arg long) == 1 ]]; then
	tools/tests/serve.sh || rc=1
fi
tools/tests/isolation.sh || rc=1
tools/tests/races.sh || rc=1
# ibpost_blk: the whole set on the stock kernel (about 2 minutes); on the
# debug kernel a loopback device, fio verify and the RDMA device deleted
# under fio (about a minute: KASAN, lockdep and kmemleak watch the fault).
t0=$SECONDS
tools/tests/blk.sh || rc=1
echo "blk.sh: $((SECONDS - t0)) s" >>"$IBPOST_OUT/blk-time-$IBPOST_KERNEL.txt"
if [[ $IBPOST_KERNEL == test ]] && modinfo -n siw >/dev/null 2>&1; then
	# Only siw devices from here on.
	rdma link del rxe_lo 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	t0=$SECONDS
	# make check: integration on siw; make check-long (rig.long=1): all four.
	siw_tests=(integration)
	[[ $(rig_arg long) == 1 ]] && siw_tests+=(badinput hardening session)
	for t in "${siw_tests[@]}"; do
		IBPOST_PROVIDER=siw "tools/tests/$t.sh" || rc=1
		echo "siw $t: $((SECONDS - t0)) s" >>"$IBPOST_OUT/siw-time.txt"
	done
	# No kernel address in an iWARP READ request (rdma_rw's MRs; 40 s).
	tools/tests/iova.sh || rc=1
	echo "siw iova: $((SECONDS - t0)) s" >>"$IBPOST_OUT/siw-time.txt"
fi
# kmemleak, when the kernel has it: a scan after everything was unloaded.
rig_kmemleak "$IBPOST_OUT/kmemleak-$IBPOST_KERNEL.txt"
dmesg >"$IBPOST_OUT/dmesg-$IBPOST_KERNEL.txt"
exit $rc
