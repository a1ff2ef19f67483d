#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/tests/host/deb.sh [--dkms]
#
# On the host, as make check runs it after install.sh (about a minute):
# 'make deb' builds the packages ibpost, ibpost-dkms and ibpost-dev
# (build/deb) at VERSION (debian/rules refuses a changelog of another
# version) and runs cli.sh as its dh_auto_test; lintian finds no error, no
# warning and no info tag but the accepted one; 'dpkg -x' of the packages
# into a scratch root (build/debtest, never the system) lays out the tool
# (--version runs), the man page (renders without warnings), the bash
# completion, the documentation, the udev rule, the sysusers.d file (which
# makes the group rdma in a scratch root, as the postinst runs it), the
# systemd units (under /usr/lib, nothing under /lib) and /etc/ibpost's
# example files (conffiles of the package); ibpost-dev holds the in-kernel
# API's headers, on which a consumer module builds; ibpost-dkms holds the
# same DKMS sources as 'make dkms-src' (install.sh's DKMS build, in
# build/pkg), DKMS skips a kernel outside 6.1..6.12 or without RDMA
# (BUILD_EXCLUSIVE) and its scripts remove every kernel's build on
# removal; systemd-analyze verify accepts the units and its security
# rates each at most MEDIUM; the commands they run take the shipped
# examples (--check-config prints their command lines), refuse a serve
# file without --allow, name the bad line of a bad file and what the
# kernel would refuse; the built ibpost.ko carries the devname alias of
# /dev/ibpost.  --dkms also runs DKMS add, build and install of the
# package's sources for the stock kernel in DKMS trees of its own (1-3
# min).  TAP on stdout and in $TAP_FILE.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo=$PWD
# shellcheck source=tools/tests/lib/tap.sh disable=SC1091
. tools/tests/lib/tap.sh

dkms=0
case ${1:-} in
--dkms) dkms=1 ;;
"") ;;
*) sed -n '3,27s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

ver=$(head -n 1 VERSION)
t=$repo/build/debtest
root=$t/root
rm -rf "$t"
mkdir -p "$root"
log=$t/deb.log

# 1. the packages, built in a copy: the tree's debian/ stays as it was.
sums() { find debian -type f -exec sha256sum {} + | sort; }
before=$(sums)
t0=$SECONDS
if make --no-print-directory -s deb >"$log" 2>&1; then
	t_ok "make deb builds the packages ($((SECONDS - t0)) s)"
else
	t_fail "make deb builds the packages" "$(tail -n 3 "$log" | tr '\n' ' ')"
fi
tool_deb=build/deb/ibpost_${ver}_amd64.deb
dkms_deb=build/deb/ibpost-dkms_${ver}_all.deb
dev_deb=build/deb/ibpost-dev_${ver}_all.deb
for d in "$tool_deb" "$dkms_deb" "$dev_deb"; do
	v=$(dpkg-deb -f "$d" Version 2>&1)
	if [[ $v == "$ver" ]]; then
		t_ok "${d##*/}: version $ver (debian/changelog is VERSION)"
	else
		t_fail "${d##*/}: version $ver (debian/changelog is VERSION)" "'$v'"
	fi
done
# debian/rules checks the changelog against VERSION: a copy of debian/
# with another VERSION beside it is refused at once.
vc=$t/vcheck
mkdir -p "$vc" && cp -r debian "$vc/" && echo 9.9.9 >"$vc/VERSION"
out=$(make -s -C "$vc" -f debian/rules -n binary 2>&1)
if [[ $? != 0 && $out == *"debian/changelog's version $ver is not VERSION's 9.9.9"* ]]; then
	t_ok "debian/rules refuses a changelog whose version is not VERSION's"
else
	t_fail "debian/rules refuses a changelog whose version is not VERSION's" "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi
# dh_auto_test ran cli.sh (the tool's command line) in the build, whole:
# its TAP between dh's override_dh_auto_test and the next step.
blog=build/deb/build.log
tap=$(awk '/^ +debian\/rules override_dh_auto_test$/ {on = 1; next}
	on && /^ +(dh_|debian\/rules )/ {exit} on' "$blog")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$tap")
if [[ $(head -n 1 <<<"$tap") == "ok 1 - perftest -d: "* && ${plan:-0} -ge 100 ]] &&
	grep -qx "# $plan passed, 0 failed" <<<"$tap"; then
	t_ok "dh_auto_test ran tools/tests/host/cli.sh: $plan rows passed"
else
	t_fail "dh_auto_test ran tools/tests/host/cli.sh" "plan '${plan:-none}', see $blog"
fi
if [[ $(sums) == "$before" ]]; then
	t_ok "make deb leaves the tree's debian/ as it was (built in build/deb)"
else
	t_fail "make deb leaves the tree's debian/ as it was" "$(diff <(echo "$before") <(sums) | head -n 3 | tr '\n' ' ')"
fi

# 2. lintian, info tags too: no error, no warning; of the info tags only
# the one these units cannot avoid (they are systemd's alone: no init.d
# script for a Type=notify service and a sysfs-mapping oneshot).
lint=$(lintian --no-cfg -I "$tool_deb" "$dkms_deb" "$dev_deb" 2>&1 | grep -v 'running with root privileges')
[[ -n $lint ]] && while IFS= read -r l; do echo "# lintian: $l"; done <<<"$lint"
if [[ -z $(lintian --version 2>/dev/null) ]]; then
	t_fail "lintian: no error, no warning" "no lintian (tools/rig/deps.sh)"
elif grep -qE '^[EW]: ' <<<"$lint"; then
	t_fail "lintian: no error, no warning" "$(grep -E '^[EW]: ' <<<"$lint" | head -n 3 | tr '\n' ' ')"
else
	t_ok "lintian: no error, no warning on ibpost, ibpost-dkms and ibpost-dev"
fi
accepted='^I: ibpost: package-supports-alternative-init-but-no-init.d-script \[usr/lib/systemd/system/ibpost-(serve|blk)\.service\]$'
other=$(grep -vE "$accepted" <<<"$lint" | grep -E '^[A-Z]: ')
if [[ -n $lint && -z $other ]]; then
	t_ok "lintian: no info tag but package-supports-alternative-init-but-no-init.d-script ($(grep -c '^I: ' <<<"$lint") of it)"
else
	t_fail "lintian: no info tag but package-supports-alternative-init-but-no-init.d-script" "$(head -n 3 <<<"${other:-no lintian output}" | tr '\n' ' ')"
fi

# 3. the files, unpacked into the scratch root
unpack() { dpkg -x "$tool_deb" "$root" && dpkg -x "$dkms_deb" "$root" && dpkg -x "$dev_deb" "$root"; }
t_check "dpkg -x of the three packages into a scratch root" unpack
for f in /usr/sbin/ibpost /usr/share/man/man8/ibpost.8.gz \
	/usr/share/bash-completion/completions/ibpost /usr/lib/udev/rules.d/60-ibpost.rules \
	/usr/lib/sysusers.d/ibpost.conf \
	/usr/lib/systemd/system/ibpost-serve.service /usr/lib/systemd/system/ibpost-blk.service \
	/etc/ibpost/serve.conf /etc/ibpost/blk.conf \
	/usr/share/doc/ibpost/examples/serve.conf /usr/share/doc/ibpost/examples/blk.conf \
	"/usr/src/ibpost-$ver/dkms.conf"; do
	t_check "packaged $f" test -s "$root$f"
done
# The documentation the udev rule and the units point at, as in the tree
# (dh_compress gzips the longer files).
missing='' ndocs=0
for f in README.md Documentation/*.rst; do
	ndocs=$((ndocs + 1))
	g=$root/usr/share/doc/ibpost/${f##*/}
	if ! { cmp -s "$f" "$g" || zcmp -s "$f" "$g.gz"; } 2>/dev/null; then
		missing+=" ${f##*/}"
	fi
done
if [[ -z $missing ]]; then
	t_ok "packaged /usr/share/doc/ibpost: README.md and Documentation/*.rst ($ndocs files)"
else
	t_fail "packaged /usr/share/doc/ibpost: README.md and Documentation/*.rst" "missing or different:$missing"
fi
# Debian 12 is merged-/usr: units and rules under /usr/lib, none in /lib.
inlib=$(for d in "$tool_deb" "$dkms_deb" "$dev_deb"; do dpkg-deb -c "$d"; done | awk '{print $6}' | grep '^\./lib/')
if [[ -z $inlib ]]; then
	t_ok "no packaged file under /lib (udev rule, units, sysusers.d under /usr/lib)"
else
	t_fail "no packaged file under /lib" "$(head -n 3 <<<"$inlib" | tr '\n' ' ')"
fi
# The group rdma of the udev rule: the sysusers.d file, which the postinst
# hands to systemd-sysusers (dh_installsysusers), makes it in a scratch
# root; the package depends on a systemd-sysusers.
sr=$t/sysroot
mkdir -p "$sr/etc"
if out=$(systemd-sysusers --root="$sr" "$root/usr/lib/sysusers.d/ibpost.conf" 2>&1) &&
	grep -qE '^rdma:x:[0-9]+:$' "$sr/etc/group" && [[ $(grep -c . "$sr/etc/group") == 1 ]]; then
	t_ok "sysusers.d/ibpost.conf makes the system group rdma: $(<"$sr/etc/group")"
else
	t_fail "sysusers.d/ibpost.conf makes the system group rdma" "$out $(tr '\n' ' ' <"$sr/etc/group" 2>&1)"
fi
mkdir -p "$t/ctl"
dpkg-deb -e "$tool_deb" "$t/ctl/tool"
# shellcheck disable=SC2016 # the postinst's words, not this shell's
if grep -qF 'systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} ibpost.conf' "$t/ctl/tool/postinst" &&
	[[ $(dpkg-deb -f "$tool_deb" Depends) == *"systemd | systemd-standalone-sysusers | systemd-sysusers"* ]]; then
	t_ok "ibpost's postinst runs systemd-sysusers ibpost.conf; it depends on a systemd-sysusers"
else
	t_fail "ibpost's postinst runs systemd-sysusers ibpost.conf" "depends '$(dpkg-deb -f "$tool_deb" Depends)', see $t/ctl/tool/postinst"
fi
# ibpost-dev: the in-kernel API's headers, as in the tree, and nothing else.
got=$(dpkg-deb -c "$dev_deb" | awk '$1 !~ /^d/ {print $6}' | grep -v '^\./usr/share/doc/' | sort | paste -sd' ')
if [[ $got == "./usr/include/ibpost/ibpost.h ./usr/include/ibpost/uapi/ibpost.h" ]] &&
	cmp -s include/ibpost.h "$root/usr/include/ibpost/ibpost.h" &&
	cmp -s include/uapi/ibpost.h "$root/usr/include/ibpost/uapi/ibpost.h"; then
	t_ok "ibpost-dev: /usr/include/ibpost/ibpost.h and uapi/ibpost.h, as in the tree"
else
	t_fail "ibpost-dev: /usr/include/ibpost/ibpost.h and uapi/ibpost.h" "'$got'"
fi
v=$("$root/usr/sbin/ibpost" --version 2>&1 | head -n 1)
if [[ $v =~ ^ibpost\ $ver\ \(ioctl\ ABI\ [0-9]+\)$ ]]; then
	t_ok "the packaged ibpost --version: $v"
else
	t_fail "the packaged ibpost --version" "'$v'"
fi
w=$(MANWIDTH=80 man --warnings -l "$root/usr/share/man/man8/ibpost.8.gz" 2>&1 >/dev/null)
if [[ -z $w ]] && MANWIDTH=80 man -l "$root/usr/share/man/man8/ibpost.8.gz" 2>/dev/null |
	grep -q "ibpost $ver"; then
	t_ok "the packaged man page renders without warnings, version $ver"
else
	t_fail "the packaged man page renders without warnings" "$(echo "$w" | head -n 2 | tr '\n' ' ')"
fi
conff=$(cat "$t/ctl/tool/conffiles" 2>&1)
if grep -qx /etc/ibpost/serve.conf <<<"$conff" && grep -qx /etc/ibpost/blk.conf <<<"$conff"; then
	t_ok "/etc/ibpost/serve.conf and blk.conf are conffiles"
else
	t_fail "/etc/ibpost/serve.conf and blk.conf are conffiles" "$conff"
fi
# The services are not enabled nor started by the package: dh's postinst
# re-enables only what was enabled before (debian-installed), starts none.
pi=$t/ctl/tool/postinst
if [[ $(grep -c 'deb-systemd-helper debian-installed' "$pi" 2>/dev/null) == 2 ]] &&
	! grep -q 'deb-systemd-invoke' "$pi"; then
	t_ok "the package neither enables nor starts the services"
else
	t_fail "the package neither enables nor starts the services" "see $pi"
fi

# 4. ibpost-dkms: make dkms-src's tree (install.sh's DKMS sources), and
# DKMS's own scripts around it (dh_dkms).
src=$root/usr/src/ibpost-$ver
ref=build/pkg/dkms/src/ibpost-$ver
if [[ -d $ref ]]; then
	if out=$(diff -r "$ref" "$src" 2>&1); then
		t_ok "ibpost-dkms holds make dkms-src's tree (the one install.sh built with DKMS)"
	else
		t_fail "ibpost-dkms holds make dkms-src's tree" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
	fi
else
	t_fail "ibpost-dkms holds make dkms-src's tree" "no $ref (run tools/tests/host/install.sh first)"
fi
dpkg-deb -e "$dkms_deb" "$t/ctl/dkms"
if grep -q "common.postinst" "$t/ctl/dkms/postinst" 2>/dev/null &&
	grep -qF "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" "$t/ctl/dkms/prerm" 2>/dev/null &&
	grep -q "DKMS_VERSION=$ver" "$t/ctl/dkms/prerm"; then
	t_ok "ibpost-dkms: DKMS builds it on install (every kernel with headers), removes every build on removal"
else
	t_fail "ibpost-dkms: DKMS's postinst and prerm" "see $t/ctl/dkms"
fi
if [[ $(dpkg-deb -f "$dkms_deb" Depends) == *dkms* && $(dpkg-deb -f "$dkms_deb" Section) == kernel ]]; then
	t_ok "ibpost-dkms depends on dkms, in section kernel"
else
	t_fail "ibpost-dkms depends on dkms, in section kernel" "$(dpkg-deb -f "$dkms_deb" Depends Section | tr '\n' ' ')"
fi
# DKMS trees of its own (build/debtest/dkms), its signing key too.
kver=$(tools/rig/kver.sh)
d=$t/dkms
mkdir -p "$d/tree" "$d/install/$kver" "$d/ksrc"
export mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub
dk=(dkms --no-depmod --dkmstree "$d/tree" --sourcetree "$root/usr/src" --installtree "$d/install")
t_check "dkms add of the package's sources" "${dk[@]}" add "ibpost/$ver"
# BUILD_EXCLUSIVE: dkms build skips (exit 77, its message) a kernel outside
# 6.1..6.12 and a 6.1 whose configuration lacks rdma_cm
# (CONFIG_INFINIBAND_ADDR_TRANS), and takes the stock 6.1 and 6.12
# configurations (it goes on, to fail on headers a directory of just
# the .config has not: no build here; --dkms builds).
dk_build() { # dk_build KVER CONFIG: dkms build's exit status, its output in $dk_out
	local rc=0
	rm -rf "$d/ksrc" && mkdir -p "$d/ksrc"
	[[ -n $2 ]] && cp "$2" "$d/ksrc/.config"
	dk_out=$("${dk[@]}" build "ibpost/$ver" -k "$1" --kernelsourcedir "$d/ksrc" 2>&1) || rc=$?
	return "$rc"
}
skipped() { # skipped NAME KVER CONFIG
	local rc=0
	dk_build "$2" "$3" || rc=$?
	if [[ $rc == 77 && $dk_out == *"BUILD_EXCLUSIVE directive which does not match"* ]]; then
		t_ok "dkms skips $1 (exit 77, BUILD_EXCLUSIVE)"
	else
		t_fail "dkms skips $1 (exit 77, BUILD_EXCLUSIVE)" "exit $rc: $(tail -n 2 <<<"$dk_out" | tr '\n' ' ')"
	fi
}
skipped "5.10" 5.10.0-30-amd64 "/lib/modules/$kver/build/.config"
skipped "6.13" 6.13.0-1-amd64 "/lib/modules/$kver/build/.config"
grep -v '^CONFIG_INFINIBAND_ADDR_TRANS=' "/lib/modules/$kver/build/.config" >"$t/no-cm.config"
skipped "$kver without CONFIG_INFINIBAND_ADDR_TRANS" "$kver" "$t/no-cm.config"
for k in "$kver" "$(IBPOST_STOCK=6.12 tools/rig/kver.sh 2>/dev/null)"; do
	rc=0
	dk_build "$k" "/lib/modules/$k/build/.config" || rc=$?
	if [[ -f /lib/modules/$k/build/.config && $rc != 77 && $dk_out != *BUILD_EXCLUSIVE* ]]; then
		t_ok "dkms's BUILD_EXCLUSIVE takes $k and its configuration"
	else
		t_fail "dkms's BUILD_EXCLUSIVE takes $k and its configuration" "exit $rc: $(tail -n 2 <<<"$dk_out" | tr '\n' ' ')"
	fi
done
# A consumer module on ibpost-dev's headers (and the Module.symvers of
# install.sh's build of ibpost.ko).
syms=build/pkg/root/usr/lib/ibpost/$kver/Module.symvers
cons=$t/consumer
mkdir -p "$cons"
printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '#include <linux/module.h>' \
	'#include <ibpost.h>' 'static int __init cons_init(void)' '{' \
	'	return ibpost_run(NULL, NULL) == -EINVAL ? 0 : -EINVAL;' '}' \
	'module_init(cons_init);' 'MODULE_LICENSE("GPL");' >"$cons/cons.c"
printf '%s\n' 'obj-m := cons.o' "ccflags-y := -I$root/usr/include/ibpost" \
	"KBUILD_EXTRA_SYMBOLS := $repo/$syms" >"$cons/Kbuild"
out=$(make -s -C "$(tools/rig/kver.sh --kdir)" M="$cons" modules 2>&1)
if [[ $? == 0 && -f $syms && $out != *undefined* && $(modinfo -F depends "$cons/cons.ko" 2>&1) == ibpost ]]; then
	t_ok "a consumer module builds on ibpost-dev's headers (depends: ibpost)"
else
	t_fail "a consumer module builds on ibpost-dev's headers" "$(echo "$out" | grep -v BTF | tail -n 3 | tr '\n' ' ')"
fi
if ((dkms)); then
	mkdir -p "$d/install/$kver"
	t0=$SECONDS
	t_check "dkms build and install of the package's sources for $kver" \
		bash -c "${dk[*]} build ibpost/$ver -k $kver && ${dk[*]} install ibpost/$ver -k $kver"
	echo "# dkms: $((SECONDS - t0)) s"
	for m in ibpost ibpost_blk; do
		t_check "dkms installed $m.ko from the package" test -s "$d/install/$kver/updates/dkms/$m.ko"
	done
fi

# 5. the units: systemd-analyze verify (no systemd as PID 1 needed), with
# the tool's path in the scratch root and its man page there.
units=$t/units
mkdir -p "$units"
for u in ibpost-serve.service ibpost-blk.service; do
	sed "s|/usr/sbin/ibpost|$root/usr/sbin/ibpost|g" "$root/usr/lib/systemd/system/$u" >"$units/$u"
done
if out=$(MANPATH=$root/usr/share/man systemd-analyze verify "$units"/*.service 2>&1) && [[ -z $out ]]; then
	t_ok "systemd-analyze verify: ibpost-serve.service, ibpost-blk.service"
else
	t_fail "systemd-analyze verify of the units" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
fi
unit_cmd() { # unit_cmd UNIT KEY: the command line of KEY= (the first)
	sed -n "s/^$2=-\{0,1\}//p" "$units/$1" | head -n 1
}
want_line() { # want_line UNIT KEY LINE: KEY= runs exactly LINE
	local got
	got=$(unit_cmd "$1" "$2")
	if [[ $got == "$3" ]]; then
		t_ok "$1: $2=${3#"$root"}"
	else
		t_fail "$1: $2=${3#"$root"}" "'$got'"
	fi
}
ib=$root/usr/sbin/ibpost
want_line ibpost-serve.service ExecStart "$ib serve --config /etc/ibpost/serve.conf"
want_line ibpost-blk.service ExecStart "$ib blk map --config /etc/ibpost/blk.conf"
want_line ibpost-blk.service ExecStop "$ib blk unmap --force --keep --config /etc/ibpost/blk.conf"
if grep -qx 'Restart=on-failure' "$units/ibpost-serve.service" &&
	grep -q '^After=network-online.target' "$units/ibpost-blk.service"; then
	t_ok "ibpost-serve restarts on failure; ibpost-blk maps after network-online.target"
else
	t_fail "ibpost-serve restarts on failure; ibpost-blk maps after network-online.target" ""
fi
# The properties systemd reads (systemd-analyze dump of the unit files is
# PID 1's; the files' own lines then): modules through modprobe@, not an
# ExecStartPre; after the RDMA devices; serve notifies; blk's stop bound.
prop() { # prop UNIT KEY: every value of KEY=, one a line
	sed -n "s/^$2=//p" "$units/$1"
}
want_prop() { # want_prop UNIT KEY WORD: a KEY= of UNIT holds WORD
	if prop "$1" "$2" | tr ' ' '\n' | grep -qxF -- "$3"; then
		t_ok "$1: $2 has $3"
	else
		t_fail "$1: $2 has $3" "'$(prop "$1" "$2" | paste -sd' ')'"
	fi
}
want_prop ibpost-serve.service Type notify
want_prop ibpost-serve.service RestartPreventExitStatus 2
want_prop ibpost-serve.service Wants modprobe@ibpost.service
want_prop ibpost-serve.service After modprobe@ibpost.service
want_prop ibpost-blk.service Wants modprobe@ibpost_blk.service
want_prop ibpost-blk.service After modprobe@ibpost_blk.service
want_prop ibpost-blk.service After rdma-hw.target
want_prop ibpost-serve.service After rdma-hw.target
want_prop ibpost-blk.service TimeoutStopSec 60s
if ! grep -qE '^Exec[A-Za-z]*=.*modprobe' "$units/ibpost-serve.service" "$units/ibpost-blk.service"; then
	t_ok "no ExecStartPre=modprobe: the modules come from modprobe@ units"
else
	t_fail "no ExecStartPre=modprobe" "$(grep -h '^Exec.*modprobe' "$units"/*.service | tr '\n' ' ')"
fi
# systemd-analyze security of the unit files (no PID 1 needed): at most
# MEDIUM each.
for u in ibpost-serve.service ibpost-blk.service; do
	line=$(systemd-analyze security --offline=true "$units/$u" 2>&1 | grep 'Overall exposure level')
	level=$(sed -n 's/.*: \([0-9.]*\) \([A-Z]*\).*/\2/p' <<<"$line")
	score=$(sed -n 's/.*: \([0-9.]*\) \([A-Z]*\).*/\1/p' <<<"$line")
	if [[ $level == SAFE || $level == OK || $level == MEDIUM ]]; then
		t_ok "systemd-analyze security $u: $score $level (at most MEDIUM)"
	else
		t_fail "systemd-analyze security $u: at most MEDIUM" "'${line:-no rating}'"
	fi
done

# 6. the commands of the units on the shipped examples (their commented
# options put in), and on bad files: --check-config parses the file as the
# service would and prints the command lines, or names the bad line.
cf=$t/conf
mkdir -p "$cf"
sed 's/^#--/--/' "$root/etc/ibpost/serve.conf" >"$cf/serve.conf"
sed 's/^#--/--/' "$root/etc/ibpost/blk.conf" >"$cf/blk.conf"
out=$("$ib" serve --config "$cf/serve.conf" --check-config 2>&1)
if [[ $? == 0 && $out == "ibpost serve --addr 192.0.2.1 --port 18520 --allow 192.0.2.0/24 --allow 2001:db8::/32 "* &&
	$out == *" --max-keep 600 --cpu-record" ]]; then
	t_ok "serve --check-config of the example: '$out'"
else
	t_fail "serve --check-config of the example" "$out"
fi
out=$("$ib" serve --config "$root/etc/ibpost/serve.conf" --check-config --allow 192.0.2.0/24 2>&1)
if [[ $? == 0 && $out == "ibpost serve --allow 192.0.2.0/24" ]]; then
	t_ok "serve --check-config of the shipped file (all comments), the command line's --allow after it"
else
	t_fail "serve --check-config of the shipped file" "$out"
fi
# A service's file names whom it serves: the shipped file, all comments,
# serves nobody until --allow is written in.  The unit's ExecStart and
# --check-config refuse it (exit 2, before /dev/ibpost), and what they say
# first is why; exit 2 is not restarted.
for c in "$(unit_cmd ibpost-serve.service ExecStart)" "$(unit_cmd ibpost-serve.service ExecStart) --check-config"; do
	# shellcheck disable=SC2086 # the unit's command line, split as systemd does
	out=$(${c//\/etc\/ibpost\/serve.conf/$root/etc/ibpost/serve.conf} 2>&1)
	rc=$?
	if [[ $rc == 2 && $(head -n 1 <<<"$out") == "ibpost: serve: $root/etc/ibpost/serve.conf: no --allow: refusing to serve every address from a configuration file; name the networks served (--allow 0.0.0.0/0 --allow ::/0: all of them)" ]]; then
		t_ok "the unit's '${c#"$root"}' on the shipped file: exit 2, first line: no --allow"
	else
		t_fail "the unit's '${c#"$root"}' on the shipped file refuses: no --allow" "exit $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
done
printf -- '--allow 0.0.0.0/0\n--allow ::/0\n' >"$cf/all.conf"
out=$("$ib" serve --config "$cf/all.conf" --check-config 2>&1)
if [[ $? == 0 && $out == "ibpost serve --allow 0.0.0.0/0 --allow ::/0" ]]; then
	t_ok "serve --check-config: every address served when the file says so (--allow 0.0.0.0/0 --allow ::/0)"
else
	t_fail "serve --check-config: --allow 0.0.0.0/0 --allow ::/0" "$out"
fi
out=$("$ib" blk map --config "$cf/blk.conf" --check-config 2>&1)
if [[ $? == 0 && $(wc -l <<<"$out") == 2 &&
	$out == "ibpost blk map --dev rxe0 --connect 192.0.2.1 --size 1G --serial data0"* ]]; then
	t_ok "blk map --check-config of the example: a 'blk map' line per device"
else
	t_fail "blk map --check-config of the example" "$out"
fi
# bad_conf NAME FILE-TEXT WANT CMD...: CMD on a file of FILE-TEXT exits 2
# and says WANT (the file's name and the line).
bad_conf() {
	local name=$1 text=$2 want=$3 f=$cf/bad.conf out rc=0
	shift 3
	printf '%b' "$text" >"$f"
	out=$("$@" "$f" 2>&1) || rc=$?
	if [[ $rc == 2 && $out == *"$f:$want"* ]]; then
		t_ok "bad config, $name: exit 2, '$(grep -F "$f:" <<<"$out" | head -n 1 | sed "s|$f|FILE|")'"
	else
		t_fail "bad config, $name" "exit $rc: $(echo "$out" | tr '\n' ' ')"
	fi
}
bad_conf "serve: a value" '# ok\n--port 18520\n--max-conns many\n' \
	"3: this line is not valid" "$ib" serve --check-config --config
bad_conf "serve: an unknown option" '--listen 1.2.3.4\n' \
	"1: this line is not valid" "$ib" serve --check-config --config
bad_conf "serve: a word without --" 'port 18520\n' \
	"1: 'port' is not an option of 'ibpost serve'" "$ib" serve --check-config --config
bad_conf "blk: no --serial" '--dev rxe0 --size 1G --serial a\n--dev rxe0 --size 1G\n' \
	"2: a device needs --dev, --size and --serial" "$ib" blk map --check-config --config
bad_conf "blk: a bad address" '--dev rxe0 --connect 192.0.2.300 --size 1G --serial a\n' \
	"1: this line is not valid" "$ib" blk map --check-config --config
bad_conf "blk unmap: the same check" '--dev rxe0 --size 1G\n' \
	"1: a device needs --dev, --size and --serial" "$ib" blk unmap --config
# What ibpost_blk's map_device would refuse (module/blk/ctl.c), with the
# module's limits (tools/ibpost/blklimits.h, made from its headers).
bad_blk() { # bad_blk NAME OPTIONS WANT: a line of OPTIONS refused, saying WANT
	bad_conf "blk: $1" "--dev rxe0 --serial a --size 1G\n--dev rxe0 --serial b $2\n" \
		"2: $3 (the kernel refuses it)" "$ib" blk map --check-config --config
}
bad_blk "a size not a multiple of 4 KiB" "--size 4097" "--size 4097: give a non-zero multiple of 4096 bytes"
bad_blk "a size of 0" "--size 0" "--size 0: give a non-zero multiple of 4096 bytes"
# a size that is none: the tool's own parser refuses it (cli.sh: its words)
bad_conf "blk: a size not a number" '--dev rxe0 --serial a --size 1G\n--dev rxe0 --serial b --size 12x\n' \
	"2: this line is not valid" "$ib" blk map --check-config --config
bad_blk "queues 65" "--size 1M --queues 65" "--queues 65: 1 to 64"
bad_blk "depth 1025" "--size 1M --depth 1025" "--depth 1025: 1 to 1024"
bad_blk "io-timeout 601" "--size 1M --io-timeout 601" "--io-timeout 601: 1 to 600"
bad_blk "reconnect-delay 0" "--size 1M --reconnect-delay 0" "--reconnect-delay 0: 1 to 3600"
bad_blk "ctrl-loss-tmo -2" "--size 1M --ctrl-loss-tmo -2" "--ctrl-loss-tmo -2: -1 to 604800"
bad_blk "a serial with a slash" "--size 1M --serial a/b" "--serial a/b: 1 to 36 of A-Z a-z 0-9 . _ -"
printf -- '--dev rxe0 --serial x.y_z-1 --size 0x1000 --queues 64 --depth 1024 --io-timeout 600\n--dev rxe0 --serial b --size 2m --reconnect-delay 3600 --ctrl-loss-tmo -1 --fast-io-fail-tmo 604800\n' >"$cf/edge.conf"
out=$("$ib" blk map --config "$cf/edge.conf" --check-config 2>&1)
if [[ $? == 0 && $(wc -l <<<"$out") == 2 ]]; then
	t_ok "blk map --check-config takes the limits themselves (64 queues, depth 1024, 4 KiB, -1, 604800)"
else
	t_fail "blk map --check-config takes the limits themselves" "$out"
fi
out=$("$ib" serve --config "$cf/none.conf" --check-config 2>&1)
if [[ $? == 1 && $out == *"$cf/none.conf: No such file or directory"* ]]; then
	t_ok "serve --config of a missing file: exit 1, named"
else
	t_fail "serve --config of a missing file" "$out"
fi

# 7. autoload: the built module's devname alias (the misc minor fixed).
ko=module/ibpost.ko
al=$(modinfo -F alias "$ko" 2>&1)
if grep -qx 'devname:ibpost' <<<"$al" && grep -qE '^char-major-10-[0-9]+$' <<<"$al"; then
	t_ok "ibpost.ko: alias devname:ibpost, $(grep char-major <<<"$al") (/dev/ibpost before the load)"
else
	t_fail "ibpost.ko: the devname alias" "$(echo "$al" | tr '\n' ' ')"
fi
t_done
