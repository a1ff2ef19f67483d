#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything, from a clean clone on a fresh Debian 12 machine.
#   1. install what is missing; build module + tool with W=1 and sparse
#      (no warnings), checkpatch; make install into a scratch root and the
#      Debian packages (install.sh, deb.sh: beside the guests of step 3)
#   2. build (or reuse) the KUnit test kernel and ibpost for it; build for
#      the 6.12 LTS kernel (W=1, sparse)
#   3. the guests, two at a time: the debug kernel on rxe (KUnit and the
#      suites of tools/tests/suites), stock 6.1 and stock 6.1 with
#      force_mr, beside the 6.12 stock kernel and the debug kernel on siw
#   4. two stock guests: the peer suite (the hostile battery among it)
# IBPOST_CHECK_LONG=1 (make check-long) adds the long siw rows, the loops
# at full counts and every suite on stock 6.1 in step 3, the hostile
# battery against a debug-kernel server (step 5), ibpost_blk on a
# debug-kernel client whose server host vanishes (step 6) and the Debian
# packages installed in two Debian 12 guests that boot systemd (step 7).
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
# shellcheck source=tools/tests/lib/suites.sh
. tools/tests/lib/suites.sh
out=$repo/build/check
rm -rf "$out"
mkdir -p "$out"
results=$out/results.txt
: >"$results"
pass=0
fail=0
skip=0

record() { # record ok|skip|fail NAME [WHY]
	if [[ $1 == ok ]]; then
		pass=$((pass + 1))
		echo "ok - $2" | tee -a "$results"
	elif [[ $1 == skip ]]; then
		# A row that did not run what it names: neither passed nor failed.
		skip=$((skip + 1))
		echo "ok - $2 # SKIP" | tee -a "$results"
	else
		fail=$((fail + 1))
		echo "not ok - $2${3:+ # $3}" | tee -a "$results"
	fi
}

step() { echo; echo "=== $* ($(date +%T))"; }

finish() {
	echo
	[[ -s $out/times.txt ]] && cat "$out/times.txt"
	grep '^not ok' "$results" || true
	grep ' # SKIP$' "$results" || true
	if ((skip)); then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	((fail == 0))
	exit
}

# The rows each TAP source had when its count was last committed
# (tools/tests/expected-counts.txt, make check-long's in
# expected-counts-long.txt: lines "ROWS PREFIX: FILE", copied from a run's
# build/check/counts.txt).  A source with fewer rows fails: rows lost
# without a word (a script cut short, a loop that stopped emitting) are
# noticed; the commit that drops rows on purpose lowers its number there.
counts=tools/tests/expected-counts.txt
[[ ${IBPOST_CHECK_LONG:-0} == 1 ]] && counts=tools/tests/expected-counts-long.txt
counts_check() { # counts_check KEY ROWS
	local want
	echo "$2 $1" >>"$out/counts.txt"
	want=$(awk -v k="$1" '{ n = $1; sub(/^[0-9]+ /, "") } $0 == k { print n; exit }' \
		"$counts" 2>/dev/null)
	[[ -n $want ]] || return 0
	if (($2 >= want)); then
		record ok "$1: $2 rows, $want committed"
	else
		record fail "$1: $2 rows, $want committed" \
			"fewer than $counts says; a commit that drops rows lowers it there"
	fi
}

# Count a TAP file's ok / not ok lines, and its plan ("1..N", which
# tools/tests/lib/tap.sh's t_done writes last) as a row of its own: a
# script that stopped half-way has none, or one that is not its rows.
count_tap() { # count_tap PREFIX FILE [--no-plan]: "ok [N] - NAME" / "not ok [N] - NAME # WHY"
	local line rows=0 plan=''
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP"*) rows=$((rows + 1)); record skip "$1: ${line#ok*- }" ;;
		"ok "*) rows=$((rows + 1)); record ok "$1: ${line#ok*- }" ;;
		"not ok "*) rows=$((rows + 1)); record fail "$1: ${line#not ok*- }" ;;
		1..*) plan=${line#1..} ;;
		esac
	done <"$2"
	counts_check "$1: ${2##*/}" "$rows"
	[[ ${3:-} == --no-plan ]] && return
	if [[ $plan == "$rows" ]]; then
		record ok "$1: ${2##*/} ran whole (plan 1..$plan)"
	else
		record fail "$1: ${2##*/} ran whole" "plan '1..${plan:-(none)}', $rows rows"
	fi
}

step "dependencies"
tools/rig/deps.sh || { record fail "install dependencies"; finish; }

step "build (stock kernel, W=1, sparse)"
# The stock kernel the guests boot, not this host's (make's default KDIR).
# W=1 and sparse (C=2: every file checked, built or not) in one pass, as
# for 6.12 below: two passes cost three minutes more.
kdir=$(tools/rig/kver.sh --kdir) || { record fail "stock kernel headers"; finish; }
if make -s KDIR="$kdir" W=1 C=2 IBPOST_TESTS=y modules >"$out/build.log" 2>&1 &&
	make -s tool >>"$out/build.log" 2>&1 &&
	make -s -C tools/tests >>"$out/build.log" 2>&1; then
	if grep -E 'warning:|error:' "$out/build.log"; then
		record fail "build W=1 without warnings, sparse clean" "see $out/build.log"
	else
		record ok "build W=1 without warnings, sparse clean"
	fi
else
	tail -20 "$out/build.log"
	record fail "build" "see $out/build.log"
	finish
fi
# host_run NAME: tools/tests/host/NAME.sh, its TAP in $out/NAME.tap (its
# log in $out/NAME.log, its exit status in $out/NAME.rc); host_count
# NAME: its rows, as "NAME: ...", and its exit status; host_step TITLE
# NAME: both.
host_run() {
	local rc=0
	TAP_FILE=$out/$1.tap "tools/tests/host/$1.sh" >"$out/$1.log" 2>&1 || rc=$?
	echo "$rc" >"$out/$1.rc"
}
host_count() {
	local rc
	if [[ -s $out/$1.tap ]]; then
		count_tap "$1" "$out/$1.tap"
	else
		tail -5 "$out/$1.log"; record fail "$1 results present" "see $out/$1.log"
	fi
	rc=$(cat "$out/$1.rc" 2>/dev/null || echo none)
	if [[ $rc == 0 ]]; then
		record ok "$1: exit status 0"
	else
		record fail "$1: exit status 0" "exit $rc, see $out/$1.log"
	fi
}
host_step() {
	step "$1"
	host_run "$2"
	host_count "$2"
}
# The tool's command line on the host (about a second): perftest's
# spellings against the long options, the hints, --dev picked from sysfs.
host_step "command line (host)" cli

# Calls go down the layers only (Documentation/design.rst): every
# cross-folder include of module/ checked against the layer order.
step "layers"
if tools/layers.sh -q >"$out/layers.log" 2>&1; then
	record ok "module/ includes only its own layer and those below"
else
	cat "$out/layers.log"; record fail "module/ calls go down only" "see $out/layers.log"
fi

step "test kernel"
if ! tools/rig/testkernel.sh >"$out/testkernel.log" 2>&1; then
	tail -30 "$out/testkernel.log"
	record fail "build the KUnit test kernel" "see $out/testkernel.log"
	finish
fi
tkdir=$(tools/rig/testkernel.sh --print-kdir)
if tools/checkpatch.sh "$tkdir/scripts/checkpatch.pl" >"$out/checkpatch.log" 2>&1; then
	record ok "checkpatch clean"
else
	cat "$out/checkpatch.log"; record fail "checkpatch clean"
fi
# kernel-doc: every documented function, struct and enum complete.
if "$tkdir/scripts/kernel-doc" -none include/*.h include/uapi/*.h module/*.[ch] module/*/*.[ch] \
	kunit/consumer.[ch] >"$out/kernel-doc.log" 2>&1 && ! [[ -s $out/kernel-doc.log ]]; then
	record ok "kernel-doc clean"
else
	cat "$out/kernel-doc.log"; record fail "kernel-doc clean" "see $out/kernel-doc.log"
fi
rm -rf build/testmod
mkdir -p build/testmod
cp -r Kbuild version.mk VERSION module kunit include build/testmod/
if make -C "$tkdir" M="$repo/build/testmod" W=1 IBPOST_TESTS=y modules >"$out/testmod.log" 2>&1 &&
	! grep -Eq 'warning:|error:' "$out/testmod.log"; then
	record ok "build ibpost + KUnit module for the test kernel (W=1)"
else
	tail -20 "$out/testmod.log"
	record fail "build for the test kernel" "see $out/testmod.log"
	finish
fi
# make check runs most suites on 6.1 under the debug kernel alone
# (tools/tests/suites): it must build what stock 6.1 builds.
gen=module/compat/generated/compat-features.h
if [[ -s $gen ]] && diff <(sed 1d "$gen") <(sed 1d "build/testmod/$gen") >"$out/compat-diff.log"; then
	record ok "the test kernel's compat answers are stock 6.1's ($(grep -c '^#define' "$gen") of $(ls module/compat/probes/*.c | wc -l) probes present)"
else
	record fail "the test kernel's compat answers are stock 6.1's" "$(head -5 "$out/compat-diff.log")"
fi

# The 6.12 LTS stock kernel (Debian 13's, RHEL 10's): ibpost built for it
# from a copy of the sources (the tree's own modules stay 6.1's, which the
# 6.1 guest loads), with sparse in the same pass (C=2 checks every file),
# beside the first guests (the 6.12 guest waits for it; its row is
# counted after the lanes).
step "build for the 6.12 stock kernel (W=1, sparse; beside the first guests)"
rm -rf build/mod-6.12
mkdir -p build/mod-6.12
cp -r Kbuild version.mk VERSION module kunit include build/mod-6.12/
rm -rf build/mod-6.12/module/compat/generated
{
	if k12dir=$(IBPOST_STOCK=6.12 tools/rig/kver.sh --kdir) &&
		make -C "$k12dir" M="$repo/build/mod-6.12" W=1 C=2 IBPOST_TESTS=y modules >"$out/mod-6.12.log" 2>&1 &&
		! grep -Eq 'warning:|error:' "$out/mod-6.12.log"; then
		echo ok >"$out/mod-6.12.rc"
	else
		echo fail >"$out/mod-6.12.rc"
	fi
} &
build612=$!

# guest_boot NAME KIND STOCK TIMEOUT APPEND SCRIPT: boot a guest; its
# output in $out/guest-NAME, console $out/console-NAME.log; the status in
# $out/boot-NAME.rc.  Two may run at once (each its own files).
guest_boot() {
	local name=$1 kind=$2 stock=$3 to=$4 app=$5 script=$6 t0=$SECONDS
	mkdir -p "$out/guest-$name"
	tools/rig/boot.sh --kernel "$kind" --stock "$stock" --script "$script" \
		--out "$out/guest-$name" --log "$out/console-$name.log" --timeout "$to" \
		--append "log_buf_len=8M watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=100 rig.long=${IBPOST_CHECK_LONG:-0} $app" \
		>/dev/null 2>"$out/boot-$name.err"
	echo $? >"$out/boot-$name.rc"
	echo "time: guest $name $((SECONDS - t0)) s" >>"$out/times.txt"
}

# guest_status NAME: the row of a guest's exit status.
guest_status() {
	local rc
	rc=$(cat "$out/boot-$1.rc" 2>/dev/null || echo none)
	case $rc in
	0) record ok "$1 guest: run completed, console clean" ;;
	122) record fail "$1 guest: console clean" "$(cat "$out/boot-$1.err")" ;;
	124) record fail "$1 guest: finished in time" "$(tail -5 "$out/boot-$1.err")" ;;
	*) record fail "$1 guest: script exit status" "exit $rc" ;;
	esac
}

# The guests, two at a time on the two cores (much of each suite sleeps),
# in two lanes of about the same length: the debug kernel on rxe (KUnit
# and the registry's suites, the longest), then stock 6.1; the debug
# kernel on siw, then the 6.12 guest and stock 6.1's force_mr boot.  The lanes only
# boot; every guest's rows are counted here after both end, in one order.
# wait_for PID FILE: until FILE exists or PID has ended.
wait_for() {
	while [[ ! -e $2 ]] && kill -0 "$1" 2>/dev/null; do
		sleep 5
	done
}
long=${IBPOST_CHECK_LONG:-0}
gcheck=tools/tests/guest/guest-check.sh
# Beside the first guests: make install into a scratch root, man page,
# completion, uninstall, and DKMS add/build/install for the stock kernels
# in DKMS trees of their own (install.sh, 3-5 min: two module builds),
# then the Debian packages (deb.sh: make deb, lintian, their files in a
# scratch root, systemd-analyze verify of the units and the units'
# commands on example and bad configs, about a minute; after install.sh,
# whose DKMS sources the package's are compared with).  Their builds are
# copies or build with the flags above (nothing of the tree is rebuilt
# under the guests); the stock guest, which loads what DKMS installed and
# runs the tool make install laid out (tools/tests/guest/installed.sh),
# waits for them.
step "host: install, DKMS, Debian packages (beside the guests)"
{
	host_run install
	host_run deb
	touch "$out/host-pkg.done"
} &
hostpkg=$!
# make check-long: the debug kernel's rxe suites in three guests, one of
# them beside the others (the race loops at full counts alone are about
# 50 minutes there, 2026-12-05): "test" the KUnit suites (the full
# matrix) and make check's suites, "test-races" the races, "test-long" the
# other long ones (hardening with the 100000-ioctl fuzzer, serve).
csv() { paste -sd, -; }
if ((long)); then
	tsuites=$(suites test 0)
	tlong=$(suites test 1 | grep -vxF -f <(echo "$tsuites"))
	traces=$(grep -x races <<<"$tlong")
	tlong=$(grep -vx races <<<"$tlong")
	step "guests: test (rxe), test-races | test (siw), test-long, stock, stock-6.12, forcemr"
	{
		guest_boot test test 6.1 3600 "rig.part=rxe rig.suites=$(csv <<<"$tsuites")" "$gcheck"
		guest_boot test-races test 6.1 5400 "rig.part=suites rig.suites=$(csv <<<"$traces")" "$gcheck"
	} &
	lane1=$!
	{
		guest_boot test-siw test 6.1 3600 "rig.part=siw" "$gcheck"
		guest_boot test-long test 6.1 3600 "rig.part=suites rig.suites=$(csv <<<"$tlong")" "$gcheck"
		wait_for "$hostpkg" "$out/host-pkg.done"
		guest_boot stock stock 6.1 3600 "" "$gcheck"
		wait_for "$build612" "$out/mod-6.12.rc"
		guest_boot stock-6.12 stock 6.12 3600 "" "$gcheck"
		guest_boot forcemr stock 6.1 900 "ib_core.force_mr=1" "$gcheck"
	} &
	lane2=$!
else
	# force_mr's short guest in the second lane: the lanes end together
	# (2026-12-07: 1388 + 223 s against 673 + 887 + 49 s).
	step "guests: test (rxe), stock | test (siw), stock-6.12, forcemr"
	{
		guest_boot test test 6.1 3000 "rig.part=rxe" "$gcheck"
		wait_for "$hostpkg" "$out/host-pkg.done"
		guest_boot stock stock 6.1 900 "" "$gcheck"
	} &
	lane1=$!
	{
		guest_boot test-siw test 6.1 1800 "rig.part=siw" "$gcheck"
		wait_for "$build612" "$out/mod-6.12.rc"
		guest_boot stock-6.12 stock 6.12 1800 "" "$gcheck"
		guest_boot forcemr stock 6.1 900 "ib_core.force_mr=1" "$gcheck"
	} &
	lane2=$!
fi
wait "$lane1" "$lane2" "$hostpkg" "$build612"
step "build for the 6.12 stock kernel"
if [[ $(cat "$out/mod-6.12.rc" 2>/dev/null) == ok ]]; then
	record ok "build ibpost for the 6.12 stock kernel (W=1), sparse clean"
else
	grep -E 'warning:|error:' "$out/mod-6.12.log" | head -20
	record fail "build for the 6.12 stock kernel" "see $out/mod-6.12.log"
fi
step "host: install and DKMS, Debian packages"
host_count install
host_count deb

# count_guest NAME KIND PREFIX [SUITE...]: a guest's exit status, its
# KUnit suites (test kernel), the TAP files the registry gives it, or of
# the SUITEs given (rows "PREFIX: "; a siw row names siw itself), its
# times and its kmemleak scan.
count_guest() {
	local name=$1 kind=$2 prefix=$3 gout=$out/guest-$1 k suite t tfiles
	shift 3
	step "guest: $name"
	guest_status "$name"
	# KUnit ran in the guests of rig.part rxe and siw (test, test-siw);
	# check-long's suites-only guests (test-races, test-long) have none.
	if [[ $name == test || $name == test-siw ]]; then
		python3 tools/tests/lib/ktap_extract.py "$gout/kunit-dmesg.txt" "$gout" ||
			record fail "KTAP found in the $name guest's dmesg" "see $gout/kunit-dmesg.txt"
	fi
	for k in "$gout"/kunit-*.ktap; do
		[[ -e $k ]] || continue
		suite=${k##*/kunit-}
		suite=${suite%.ktap}
		if python3 "$tkdir/tools/testing/kunit/kunit.py" parse "$k" \
			>"$out/kunit-$suite.parsed" 2>&1; then
			record ok "kunit.py parse $suite: all passed"
		else
			cat "$out/kunit-$suite.parsed"
			record fail "kunit.py parse $suite" "see $out/kunit-$suite.parsed"
		fi
		# Each leaf case (parameterized ones per parameter) counts.
		python3 tools/tests/lib/ktap_leaves.py "$k" >"$out/kunit-$suite.cases"
		count_tap "kunit $suite" "$out/kunit-$suite.cases" --no-plan
	done
	if (($#)); then
		tfiles=("$@")
	else
		case $name in
		test-siw) mapfile -t tfiles < <(siw_suites "$long" | sed 's/$/-siw/') ;;
		*) mapfile -t tfiles < <(suites "$name" "$long") ;;
		esac
	fi
	for t in "${tfiles[@]}"; do
		if [[ -s $gout/$t-$kind.tap ]]; then
			count_tap "$prefix" "$gout/$t-$kind.tap"
		else
			record fail "$prefix $t results present"
		fi
	done
	[[ -s $gout/siw-time.txt ]] && sed 's/^/time: /' "$gout/siw-time.txt"
	[[ -s $gout/suite-time-$kind.txt ]] && sed 's/^/time: /' "$gout/suite-time-$kind.txt"
	if [[ -s $gout/kmemleak-$kind.txt ]]; then
		record fail "$name kmemleak clean" "$(head -5 "$gout/kmemleak-$kind.txt")"
	fi
}
if ((long)); then
	# shellcheck disable=SC2086 # one suite a word
	count_guest test test test $tsuites
	# shellcheck disable=SC2086
	count_guest test-races test test $traces
	# shellcheck disable=SC2086
	count_guest test-long test test $tlong
else
	count_guest test test test
fi
count_guest test-siw test test
# Every KUnit suite must have reported (a module that failed to load would
# otherwise just be missing).
for suite in ibpost_abi ibpost_sgl ibpost_sq ibpost_stats ibpost_wire ibpost_msg \
	ibpost_llhist ibpost_rxe ibpost_msgq ibpost_session ibpost_siw; do
	[[ -s $out/guest-test/kunit-$suite.ktap || -s $out/guest-test-siw/kunit-$suite.ktap ]] ||
		record fail "kunit suite $suite reported"
done
# The same stock suites on 6.12 (rows "stock-6.12:"), stock 6.1 (the
# installed package among them) and rdma_rw's MR path on 6.1 ("forcemr:").
count_guest stock stock stock
count_guest stock-6.12 stock stock-6.12
count_guest forcemr stock forcemr

# pair_step NAME PREFIX CLIENT SERVER CMD...: a two-guest run, CMD given
# --out $out/NAME (its log in $out/NAME.log); its status and both guests'
# TAP (DIR/client/CLIENT.tap, DIR/server/SERVER.tap) counted with PREFIX.
pair_step() {
	local name=$1 prefix=$2 ctap=$3 stap=$4 dir=$out/$1 rc=0 t
	shift 4
	rm -rf "$dir"
	mkdir -p "$dir"
	"$@" --out "$dir" >"$out/$name.log" 2>&1 || rc=$?
	if ((rc == 0)); then
		record ok "$prefix: both scripts passed, consoles clean"
	else
		record fail "$prefix: both scripts passed, consoles clean" \
			"exit $rc: $(grep 'pair.sh:' "$out/$name.log" | tail -n 1)"
	fi
	for t in "client/$ctap" "server/$stap"; do
		if [[ -s $dir/$t.tap ]]; then
			count_tap "$prefix" "$dir/$t.tap"
		else
			record fail "$prefix $t results present"
		fi
	done
}

# Two hosts: two stock guests on a QEMU socket wire (tools/tests/pair/peer.sh).
step "two guests: peer suite (stock)"
peer_long=()
[[ ${IBPOST_CHECK_LONG:-0} == 1 ]] && peer_long=(--long)
pair_step peer peer peer-client peer-server tools/tests/pair/peer.sh --kernel stock "${peer_long[@]}"
[[ -s $out/peer/client/peer-bench.txt ]] && cat "$out/peer/client/peer-bench.txt"

# make check-long: the hostile battery against the debug kernel serving
# (KASAN, lockdep, kmemleak), from a stock client guest.
if [[ ${IBPOST_CHECK_LONG:-0} == 1 ]]; then
	step "two guests: hostile battery against the debug kernel"
	pair_step hostile "hostile (debug server)" hostile-client hostile-server \
		tools/rig/pair.sh --kernel stock --server-kernel test --timeout 2400 \
		--append "watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=100" \
		--server tools/tests/pair/hostile-server.sh --client tools/tests/pair/hostile-client.sh
	[[ -s $out/hostile/client/battery.txt ]] &&
		sed -n '/^battery summary/,$p' "$out/hostile/client/battery.txt"
	# ibpost_blk on the debug kernel against a stock server: one queue's
	# connection lost, 100 resets (reconnects) under fio, then the
	# server's host reset under fio (no disconnect reaches the client).
	# Its 100 resets each wait for fio's I/O to move first, under one fio
	# run per 10 resets (one run per reset took 21 s each on the debug
	# client, fio's start: 35 minutes, and 2400 s cut the pair short).
	step "two guests: ibpost_blk on the debug kernel, the server host vanishing"
	pair_step blkvanish "blk vanish (debug client)" blk-vanish-client blk-vanish-server \
		tools/rig/pair.sh --kernel test --server-kernel stock --server-vanishes --timeout 4800 \
		--append "watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=100" \
		--server tools/tests/pair/blk-vanish-server.sh --client tools/tests/pair/blk-vanish-client.sh
	[[ -s $out/blkvanish/client/blk-vanish.txt ]] &&
		sed 's/^/blk vanish: /' "$out/blkvanish/client/blk-vanish.txt"
	# The packages as an operator installs them (issue 46): apt-get
	# install with DKMS in a Debian 12 root, two guests booting systemd,
	# the units, a reboot of the client (tools/tests/system/system.sh):
	# 3.5 minutes, and 2 more the first time (the root from Debian's
	# archive, cached in /var/cache/ibpost).  Not in make check: its 40
	# minutes have no room for it beside nothing.
	step "two Debian 12 guests under systemd: the installed packages"
	rc=0
	TAP_FILE=$out/system.tap tools/tests/system/system.sh >"$out/system.log" 2>&1 || rc=$?
	echo "$rc" >"$out/system.rc"
	host_count system
fi
finish
