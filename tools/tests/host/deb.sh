#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/tests/host/deb.sh [--dkms]
#
# On the host, as make check runs it after install.sh (about a minute):
# 'make deb' builds the packages ibpost and ibpost-dkms (build/deb) at
# VERSION; lintian finds no error; 'dpkg -x' of both into a scratch root
# (build/debtest, never the system) lays out the tool (--version runs), the
# man page (renders without warnings), the bash completion, the udev rule,
# the systemd units and /etc/ibpost's example files (conffiles of the
# package); ibpost-dkms holds the same DKMS sources as 'make dkms-src'
# (install.sh's DKMS build, in build/pkg) and its scripts remove every
# kernel's build on removal; systemd-analyze verify accepts the units; the
# commands they run take the shipped examples (--check-config prints their
# command lines) and name the bad line of a bad file; the built
# ibpost.ko carries the devname alias of /dev/ibpost.  --dkms also runs DKMS
# add, build and install of the package's sources for the stock kernel in
# DKMS trees of its own (1-3 min).  TAP on stdout and in $TAP_FILE.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo=$PWD
# shellcheck source=tools/tests/lib/tap.sh disable=SC1091
. tools/tests/lib/tap.sh

dkms=0
case ${1:-} in
--dkms) dkms=1 ;;
"") ;;
*) sed -n '3,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
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
for d in "$tool_deb" "$dkms_deb"; do
	v=$(dpkg-deb -f "$d" Version 2>&1)
	if [[ $v == "$ver" ]]; then
		t_ok "${d##*/}: version $ver (debian/changelog is VERSION)"
	else
		t_fail "${d##*/}: version $ver (debian/changelog is VERSION)" "'$v'"
	fi
done
if [[ $(sums) == "$before" ]]; then
	t_ok "make deb leaves the tree's debian/ as it was (built in build/deb)"
else
	t_fail "make deb leaves the tree's debian/ as it was" "$(diff <(echo "$before") <(sums) | head -n 3 | tr '\n' ' ')"
fi

# 2. lintian: warnings are listed, errors fail.
lint=$(lintian --no-cfg "$tool_deb" "$dkms_deb" 2>&1 | grep -v 'running with root privileges')
[[ -n $lint ]] && while IFS= read -r l; do echo "# lintian: $l"; done <<<"$lint"
if grep -q '^E: ' <<<"$lint"; then
	t_fail "lintian: no error" "$(grep '^E: ' <<<"$lint" | head -n 3 | tr '\n' ' ')"
elif [[ -z $(lintian --version 2>/dev/null) ]]; then
	t_fail "lintian: no error" "no lintian (tools/rig/deps.sh)"
else
	t_ok "lintian: no error ($(grep -c '^W: ' <<<"$lint") warnings)"
fi

# 3. the files, unpacked into the scratch root
unpack() { dpkg -x "$tool_deb" "$root" && dpkg -x "$dkms_deb" "$root"; }
t_check "dpkg -x of both packages into a scratch root" unpack
for f in /usr/sbin/ibpost /usr/share/man/man8/ibpost.8.gz \
	/usr/share/bash-completion/completions/ibpost /lib/udev/rules.d/60-ibpost.rules \
	/lib/systemd/system/ibpost-serve.service /lib/systemd/system/ibpost-blk.service \
	/etc/ibpost/serve.conf /etc/ibpost/blk.conf \
	/usr/share/doc/ibpost/examples/serve.conf /usr/share/doc/ibpost/examples/blk.conf \
	"/usr/src/ibpost-$ver/dkms.conf"; do
	t_check "packaged $f" test -s "$root$f"
done
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
mkdir -p "$t/ctl"
conff=$(dpkg-deb -e "$tool_deb" "$t/ctl/tool" && cat "$t/ctl/tool/conffiles" 2>&1)
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
if [[ $(dpkg-deb -f "$dkms_deb" Depends) == *dkms* ]]; then
	t_ok "ibpost-dkms depends on dkms"
else
	t_fail "ibpost-dkms depends on dkms" "$(dpkg-deb -f "$dkms_deb" Depends)"
fi
if ((dkms)); then
	kver=$(tools/rig/kver.sh)
	d=$t/dkms
	mkdir -p "$d/tree" "$d/install/$kver"
	export mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub
	dk=(dkms --no-depmod --dkmstree "$d/tree" --sourcetree "$root/usr/src" --installtree "$d/install")
	t0=$SECONDS
	t_check "dkms add, build and install of the package's sources for $kver" \
		bash -c "${dk[*]} add ibpost/$ver && ${dk[*]} build ibpost/$ver -k $kver && ${dk[*]} install ibpost/$ver -k $kver"
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
	sed "s|/usr/sbin/ibpost|$root/usr/sbin/ibpost|g" "$root/lib/systemd/system/$u" >"$units/$u"
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
want_line ibpost-blk.service ExecStop "$ib blk unmap --force --config /etc/ibpost/blk.conf"
if grep -qx 'Restart=on-failure' "$units/ibpost-serve.service" &&
	grep -q '^After=network-online.target' "$units/ibpost-blk.service"; then
	t_ok "ibpost-serve restarts on failure; ibpost-blk maps after network-online.target"
else
	t_fail "ibpost-serve restarts on failure; ibpost-blk maps after network-online.target" ""
fi

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
out=$("$ib" serve --config "$root/etc/ibpost/serve.conf" --check-config --port 7 2>&1)
if [[ $? == 0 && $out == "ibpost serve --port 7" ]]; then
	t_ok "serve --check-config of the shipped file (all comments), the command line after it"
else
	t_fail "serve --check-config of the shipped file" "$out"
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
