#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/tests/host/install.sh [--no-dkms]
#
# On the host, for Debian's stock kernel (tools/rig/kver.sh), as make check
# runs it after the build: 'make install' into a scratch DESTDIR lays out
# every file (modules + depmod, tool, man page, bash completion, udev rule
# and the sysusers.d file of its group, systemd units naming the tool's
# path, documentation, example configs, headers, Module.symvers) and no test module unless INSTALL_TESTS=1; the modules'
# version and dependencies; the tool's -V; the man page renders without
# warnings and names every command and option of the tool's option tables;
# the completion offers them (and device names); 'make uninstall' removes
# it all; a plain make's KDIR is the running kernel's, with a clear message
# when its headers are missing; DKMS add, build and install (dkms trees in
# build/pkg, not the system's).  What the stock guest needs for
# tools/tests/guest/installed.sh (modprobe and the tool from the installed files)
# is left in build/pkg.  TAP on stdout and in $TAP_FILE.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo=$PWD
# shellcheck source=tools/tests/lib/tap.sh disable=SC1091
. tools/tests/lib/tap.sh

dkms=1
case ${1:-} in
--no-dkms) dkms=0 ;;
"") ;;
*) sed -n '3,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

kdir=$(tools/rig/kver.sh --kdir) || exit 1
kver=$(tools/rig/kver.sh)
ver=$(head -n 1 VERSION)
pkg=$repo/build/pkg
root=$pkg/root
rm -rf "$pkg"
mkdir -p "$pkg"
log=$pkg/install.log
# 'make install' as a user runs it builds the product, without the test
# hooks and modules (no IBPOST_TESTS): in a copy of the tree's files
# (build/pkg/src), as the tree holds make check's test build, which the
# guests beside this script load.  W=1: its warnings are make check's.
mk() { make --no-print-directory -s -j"$(nproc)" KDIR="$kdir" W=1 PREFIX=/usr "$@" >>"$log" 2>&1; }
tools/rig/copy-tree.sh "$pkg/src" >>"$log" 2>&1 || { echo "install.sh: tools/rig/copy-tree.sh failed, see $log"; exit 1; }
cd "$pkg/src" || exit 1

# The tool's long options by command, from its option tables (the hidden
# --list-options of each command prints its table; the tool is built by
# then): the lower-case spellings, perftest's other ones aside, and not the
# hidden ones (--print-options: the tests'), which completion does not offer.
opts_of() { # opts_of CMD...: every long option of CMD's table
	tools/ibpost/ibpost "$@" --list-options | awk -F'\t' '$3 != "hidden" { print $1 }' |
		grep -E '^--[a-z-]+$' | sort -u
}
cmds=$(sed -n 's/^[[:space:]]*{ "\([a-z]*\)", ".*/\1/p' tools/ibpost/main.c)

# modtree HOW FROM TO: build/pkg/modtree-HOW/lib/modules/KVER, the stock
# kernel's module directory (its kernel/ a link to the system's) with the
# modules of FROM in TO, and depmod's files for it: what the stock guest
# puts over its /lib/modules/KVER (tools/tests/guest/installed.sh; a depmod of
# the whole tree there takes minutes under TCG).
modtree() {
	local how=$1 from=$2 to=$3 t=$pkg/modtree-$1/lib/modules/$kver line
	rm -rf "$pkg/modtree-$how"
	mkdir -p "$t/$to"
	ln -s "/lib/modules/$kver/kernel" "$t/kernel"
	cp /lib/modules/"$kver"/modules.{builtin,builtin.modinfo,order} "$t/"
	cp -r "$from"/. "$t/$to/"
	if depmod -b "$pkg/modtree-$how" "$kver" >>"$log" 2>&1; then
		line=$(grep "^$to/.*ibpost\.ko:" "$t/modules.dep")
		if [[ $line == *ib_core.ko* && $line == *rdma_cm.ko* ]]; then
			t_ok "depmod of the stock tree with $how's modules: ibpost needs ib_core and rdma_cm"
		else
			t_fail "depmod of the stock tree with $how's modules" "'$line'"
		fi
	else
		t_fail "depmod of the stock tree with $how's modules" "see $log"
	fi
}

# 1. make install
t_check "make install DESTDIR=... PREFIX=/usr" mk install DESTDIR="$root"
mods=$root/lib/modules/$kver/extra
files=("$mods/module/ibpost.ko" "$mods/module/blk/ibpost_blk.ko"
	"$root/lib/modules/$kver/modules.dep"
	"$root/usr/sbin/ibpost" "$root/usr/share/man/man8/ibpost.8"
	"$root/usr/share/bash-completion/completions/ibpost"
	"$root/usr/lib/udev/rules.d/60-ibpost.rules" "$root/usr/lib/sysusers.d/ibpost.conf"
	"$root/usr/lib/systemd/system/ibpost-serve.service" "$root/usr/lib/systemd/system/ibpost-blk.service"
	"$root/usr/share/doc/ibpost/examples/serve.conf" "$root/usr/share/doc/ibpost/examples/blk.conf"
	"$root/usr/include/ibpost/ibpost.h" "$root/usr/include/ibpost/uapi/ibpost.h"
	"$root/usr/lib/ibpost/$kver/Module.symvers")
for f in "${files[@]}"; do
	t_check "installed ${f#"$root"}" test -s "$f"
done
t_check "headers installed as in the tree" \
	cmp include/ibpost.h "$root/usr/include/ibpost/ibpost.h"
t_check "Module.symvers has the in-kernel API (ibpost_run, ibpost_session_open)" \
	grep -qE '[[:space:]]ibpost_session_open[[:space:]].*[[:space:]]EXPORT_SYMBOL' \
	"$root/usr/lib/ibpost/$kver/Module.symvers"
t_check "the tool is executable" test -x "$root/usr/sbin/ibpost"
t_check "the units run the installed tool (SBINDIR)" \
	grep -qx 'ExecStart=/usr/sbin/ibpost serve --config /etc/ibpost/serve.conf' \
	"$root/usr/lib/systemd/system/ibpost-serve.service"
# The udev rule: /dev/ibpost for the group rdma (listing devices), as
# shipped; udevadm checks its syntax where it can (udev 253+: verify).
rule=$root/usr/lib/udev/rules.d/60-ibpost.rules
if cmp -s tools/udev/60-ibpost.rules "$rule" &&
	grep -qx 'SUBSYSTEM=="misc", KERNEL=="ibpost", GROUP="rdma", MODE="0660", OPTIONS+="static_node=ibpost"' "$rule" &&
	[[ $(stat -c %a "$rule") == 644 ]]; then
	t_ok "udev rule installed (0644): /dev/ibpost 0660 group rdma"
else
	t_fail "udev rule installed (0644): /dev/ibpost 0660 group rdma" "$(grep -v '^#' "$rule" 2>&1 | head -n 2)"
fi
# The group the rule names, made by systemd-sysusers from the sysusers.d
# file (as the package's postinst runs it; make install runs it too when
# installing into /).
if cmp -s tools/udev/sysusers.conf "$root/usr/lib/sysusers.d/ibpost.conf" &&
	grep -qx 'g rdma -' "$root/usr/lib/sysusers.d/ibpost.conf"; then
	t_ok "sysusers.d/ibpost.conf installed: the system group rdma"
else
	t_fail "sysusers.d/ibpost.conf installed: the system group rdma" "$(grep -v '^#' "$root/usr/lib/sysusers.d/ibpost.conf" 2>&1)"
fi
ndoc=0
for f in README.md Documentation/*.rst; do
	cmp -s "$f" "$root/usr/share/doc/ibpost/${f##*/}" && ndoc=$((ndoc + 1))
done
if [[ $ndoc -gt 1 && $ndoc == $(($(find Documentation -name '*.rst' | wc -l) + 1)) ]]; then
	t_ok "the documentation installed in DOCDIR: README.md and Documentation/*.rst ($ndoc files)"
else
	t_fail "the documentation installed in DOCDIR" "$ndoc files as in the tree"
fi
if udevadm verify --help >/dev/null 2>&1; then
	t_check "udevadm verify accepts the rule" udevadm verify "$rule"
fi
# A consumer driver out of the tree, on the installed header and symbols
# only: modpost finds ibpost_run() in the installed Module.symvers.
cons=$pkg/consumer
mkdir -p "$cons"
cat >"$cons/cons.c" <<'EOF_C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <ibpost.h>

static int __init cons_init(void)
{
	return ibpost_run(NULL, NULL) == -EINVAL ? 0 : -EINVAL;
}
module_init(cons_init);
MODULE_LICENSE("GPL");
EOF_C
printf '%s\n' 'obj-m := cons.o' "ccflags-y := -I$root/usr/include/ibpost" \
	"KBUILD_EXTRA_SYMBOLS := $root/usr/lib/ibpost/$kver/Module.symvers" >"$cons/Kbuild"
out=$(make -s -C "$kdir" M="$cons" modules 2>&1)
if [[ $? == 0 && $out != *undefined* && $(modinfo -F depends "$cons/cons.ko" 2>&1) == ibpost ]]; then
	t_ok "a consumer module builds on the installed header and Module.symvers (depends: ibpost)"
else
	t_fail "a consumer module builds on the installed header and Module.symvers" \
		"$(echo "$out" | grep -v BTF | tail -n 3 | tr '\n' ' ')"
fi
t_check "depmod ran: modules.dep lists extra/module/ibpost.ko" \
	grep -q '^extra/module/ibpost.ko:' "$root/lib/modules/$kver/modules.dep"
tests=$(find "$root" -name '*kunit*.ko' -o -name 'ibpost_consumer.ko')
if [[ -z $tests ]]; then
	t_ok "no test module installed by default"
else
	t_fail "no test module installed by default" "$tests"
fi
dep=$(modinfo -F depends "$mods/module/ibpost.ko" 2>&1)
if [[ $dep == ib_core,rdma_cm || $dep == rdma_cm,ib_core ]]; then
	t_ok "ibpost.ko depends on ib_core and rdma_cm (modprobe loads them)"
else
	t_fail "ibpost.ko depends on ib_core and rdma_cm" "depends '$dep'"
fi
# no_hooks NAME KO PARMS: the product's module KO has no test hook: its
# module parameters (modinfo) are exactly PARMS (space-separated, sorted)
# and no "test hook" text (their descriptions and log lines) is in it.
no_hooks() {
	local got
	got=$(modinfo -F parm "$2" 2>&1 | cut -d: -f1 | sort | paste -sd' ')
	if [[ -s $2 && $got == "$3" ]] && ! grep -qa 'test hook' "$2"; then
		t_ok "$1: no test parameter (modinfo: '${3:-none}'), no test hook"
	else
		t_fail "$1: no test parameter, no test hook" "parameters '$got'$(grep -qa 'test hook' "$2" && echo ', test hook text')"
	fi
}
no_hooks "make install's ibpost.ko" "$mods/module/ibpost.ko" ""
no_hooks "make install's ibpost_blk.ko" "$mods/module/blk/ibpost_blk.ko" "io_timeout"
# The check sees hooks where they are: make check's test build has them.
got=$(modinfo -F parm "$repo/module/ibpost.ko" 2>&1 | cut -d: -f1)
if grep -qx peer_fault <<<"$got" && grep -qa 'test hook' "$repo/module/ibpost.ko"; then
	t_ok "the test build's ibpost.ko (IBPOST_TESTS=y) has the test hooks: $(echo "$got" | wc -l) parameters"
else
	t_fail "the test build's ibpost.ko has the test hooks" "parameters '$(echo "$got" | paste -sd' ')'"
fi
# version_row NAME KO: the module file KO carries MODULE_VERSION $ver.
version_row() {
	local v
	v=$(modinfo -F version "$2" 2>&1)
	if [[ $v == "$ver" ]]; then
		t_ok "$1"
	else
		t_fail "$1" "version '$v'"
	fi
}
for m in module/ibpost module/blk/ibpost_blk; do
	version_row "${m##*/}.ko version $ver (MODULE_VERSION)" "$mods/$m.ko"
done
v=$("$root/usr/sbin/ibpost" -V 2>&1 | head -n 1)
if [[ $v =~ ^ibpost\ $ver\ \(ioctl\ ABI\ [0-9]+\)$ ]]; then
	t_ok "ibpost -V names version $ver and the ABI"
else
	t_fail "ibpost -V names version $ver and the ABI" "'$v'"
fi
v2=$("$root/usr/sbin/ibpost" --version 2>&1 | head -n 1)
if [[ $v2 == "$v" ]] && "$root/usr/sbin/ibpost" --version | grep -q '^module: '; then
	t_ok "ibpost --version as -V, with the module's line"
else
	t_fail "ibpost --version as -V, with the module's line" "'$v2'"
fi

# 2. the man page
man8=$root/usr/share/man/man8/ibpost.8
w=$(MANWIDTH=80 man --warnings -l "$man8" 2>&1 >/dev/null)
if [[ -z $w ]] && MANWIDTH=80 man -l "$man8" 2>/dev/null | grep -q '^NAME'; then
	t_ok "man ibpost renders without warnings"
else
	t_fail "man ibpost renders without warnings" "$(echo "$w" | head -n 3 | tr '\n' ' ')"
fi
t_check "man page carries version $ver" grep -q "^\.TH IBPOST 8 .*\"ibpost $ver\"" "$man8"
# The source with escapes undone: \- is -, fonts dropped.
plain=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man8")
missing=''
for c in $cmds map unmap list help; do
	grep -qE "^\.SS $c\$|^\.B ibpost (blk )?$c\$|^\.B ibpost (blk )?$c " <<<"$plain" ||
		missing+=" $c"
done
for c in devices run serve "blk map" "blk unmap" "blk list"; do
	# shellcheck disable=SC2086 # "blk map" is two words
	for o in $(opts_of $c); do
		grep -qE -- "(^|[ \"])$o([ \",]|$)" <<<"$plain" || missing+=" $o"
	done
done
for o in -V --version -h --help; do
	grep -qE -- "(^|[ \"|])$o([ \",|]|$)" <<<"$plain" || missing+=" $o"
done
if [[ -n $cmds && -z $missing ]]; then
	t_ok "man page covers every command and option of the tool"
else
	t_fail "man page covers every command and option of the tool" "missing:$missing"
fi

# 3. bash completion, in a bash of its own (no bash-completion package).
comp=$root/usr/share/bash-completion/completions/ibpost
fakeib=$pkg/fake-ib
mkdir -p "$fakeib/rxe_lo" "$fakeib/siw0"
complete_words() { # complete_words WORD...: what completing the last WORD offers
	IBPOST_IB_CLASS=$fakeib bash --norc --noprofile -c '
		. "$1"; shift
		[[ $(complete -p ibpost) == "complete -F _ibpost ibpost" ]] || exit 3
		COMP_WORDS=(ibpost "$@"); COMP_CWORD=$#
		_ibpost
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$@"
}
want_words() { # want_words NAME WANT WORD...: completion offers exactly WANT
	local name=$1 want got
	want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort)
	shift 2
	got=$(complete_words "$@" 2>&1)
	if [[ $got == "$want" ]]; then
		t_ok "completion: $name"
	else
		t_fail "completion: $name" "got: $(echo "$got" | tr '\n' ' ')"
	fi
}
has_words() { # has_words NAME WANT WORD...: completion offers every word of WANT
	local name=$1 want=$2 got w miss=''
	shift 2
	got=$(complete_words "$@" 2>&1)
	for w in $want; do
		grep -qx -- "$w" <<<"$got" || miss+=" $w"
	done
	if [[ -n $want && -z $miss ]]; then
		t_ok "completion: $name"
	else
		t_fail "completion: $name" "missing:$miss"
	fi
}
has_words "commands" "$cmds help --help --version" ""
has_words "devices options" "$(opts_of devices)" devices --
has_words "run options" "$(opts_of run)" run --
has_words "serve options" "$(opts_of serve)" serve --
has_words "blk map options" "$(opts_of blk map)" blk map --
want_words "blk subcommands" "map unmap list --help" blk ""
want_words "run --dev: device names" "rxe_lo siw0" run --dev ""
want_words "devices -d r: device names" "rxe_lo" devices -d r
want_words "run --op write*" "write write_imm" run --op write
want_words "run --layout" "equal page-cross unaligned random" run --layout ""
want_words "run --size takes a value" "" run --size ""

# 4. make uninstall
if mk uninstall DESTDIR="$root"; then
	left=$(find "$root" -type f ! -name 'modules.*')
	if [[ -z $left ]]; then
		t_ok "make uninstall removes every installed file"
	else
		t_fail "make uninstall removes every installed file" "left: $(echo "$left" | head -n 3 | tr '\n' ' ')"
	fi
else
	t_fail "make uninstall" "see $log"
fi
# The test build, in the tree: make check built it with these flags, so
# nothing is rebuilt under the guests.
if (cd "$repo" && mk install DESTDIR="$pkg/tests-root" INSTALL_TESTS=1) &&
	[[ -s $pkg/tests-root/lib/modules/$kver/extra/kunit/ibpost_consumer.ko ]] &&
	modinfo -F parm "$pkg/tests-root/lib/modules/$kver/extra/module/ibpost.ko" | grep -q '^peer_fault:'; then
	t_ok "make install INSTALL_TESTS=1 installs the test build: ibpost_consumer.ko, ibpost.ko with its hooks"
else
	t_fail "make install INSTALL_TESTS=1 installs ibpost_consumer.ko" "see $log"
fi
rm -rf "$pkg/tests-root"
mk install DESTDIR="$root" || t_fail "make install again (for the guest)" "see $log"
modtree make "$root/lib/modules/$kver/extra" extra

# 5. the default kernel tree: the running kernel's
msg=$(make --no-print-directory -s kdir KVER=no-such-kernel 2>&1)
if [[ $msg == *"/lib/modules/no-such-kernel/build"* && $msg == *linux-headers-no-such-kernel* &&
	$msg == *KDIR=* ]]; then
	t_ok "no headers: make names the package and KDIR="
else
	t_fail "no headers: make names the package and KDIR=" "$msg"
fi
if msg=$(make --no-print-directory -s kdir 2>&1) ||
	[[ $msg == *"/lib/modules/$(uname -r)/build"* ]]; then
	t_ok "plain make builds for the running kernel ($(uname -r))"
else
	t_fail "plain make builds for the running kernel" "$msg"
fi

# 6. DKMS, in trees of its own (build/pkg/dkms), never the system's.
pv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
if [[ $pv == "$ver" ]]; then
	t_ok "dkms.conf PACKAGE_VERSION is VERSION ($ver)"
else
	t_fail "dkms.conf PACKAGE_VERSION is VERSION ($ver)" "'$pv'"
fi
if ((dkms)); then
	d=$pkg/dkms
	mkdir -p "$d/tree" "$d/src" "$d/install/$kver"
	# Its signing key too (dkms would make one in /var/lib/dkms).
	export mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub
	# --no-depmod: dkms would run depmod on the system's tree.
	dk=(dkms --no-depmod --dkmstree "$d/tree" --sourcetree "$d/src" --installtree "$d/install")
	t0=$SECONDS
	t_check "make dkms (dkms-src, add, build and install for $kver)" \
		mk dkms DKMS="${dk[*]}" DKMS_SRC="$d/src/ibpost-$ver"
	echo "# make dkms: $((SECONDS - t0)) s"
	if [[ -f $d/src/ibpost-$ver/dkms.conf && ! -e $d/src/ibpost-$ver/kunit &&
		-d $d/src/ibpost-$ver/module/compat/probes &&
		-z $(find "$d/src" -name '*.o' -o -name '*.ko' -o -name generated) ]]; then
		t_ok "the DKMS source tree: dkms.conf, the compat probes, no test module source, no build product"
	else
		t_fail "the DKMS source tree: dkms.conf, no test module source, no build product" \
			"$(find "$d/src" -maxdepth 2 | head -n 8 | tr '\n' ' ')"
	fi
	for m in ibpost ibpost_blk; do
		version_row "dkms installed $m.ko $ver" "$d/install/$kver/updates/dkms/$m.ko"
	done
	no_hooks "dkms installed ibpost.ko (the .deb's ibpost-dkms builds these sources)" \
		"$d/install/$kver/updates/dkms/ibpost.ko" ""
	no_hooks "dkms installed ibpost_blk.ko" "$d/install/$kver/updates/dkms/ibpost_blk.ko" io_timeout
	if [[ -z $(find "$d" -name 'ibpost_consumer.ko' -o -name '*kunit*.ko') ]]; then
		t_ok "dkms builds no test module"
	else
		t_fail "dkms builds no test module" "$(find "$d" -name '*.ko' | tr '\n' ' ')"
	fi
	modtree dkms "$d/install/$kver/updates/dkms" updates/dkms
	st=$("${dk[@]}" status 2>&1)
	if [[ $st == *"ibpost/$ver, $kver, "*": installed"* ]]; then
		t_ok "dkms status: installed"
	else
		t_fail "dkms status: installed" "$st"
	fi
	# The same DKMS sources for the 6.12 LTS kernel (its own probes).
	if k12=$(IBPOST_STOCK=6.12 tools/rig/kver.sh 2>/dev/null) &&
		[[ -d /lib/modules/$k12/build ]]; then
		mkdir -p "$d/install/$k12"
		t0=$SECONDS
		t_check "dkms build and install for $k12 (6.12 LTS)" \
			bash -c "${dk[*]} build ibpost/$ver -k $k12 && ${dk[*]} install ibpost/$ver -k $k12"
		echo "# dkms for $k12: $((SECONDS - t0)) s"
		for m in ibpost ibpost_blk; do
			got=$(modinfo -F vermagic "$d/install/$k12/updates/dkms/$m.ko"* 2>&1)
			if [[ $got == "$k12 "* ]]; then
				t_ok "dkms installed $m.ko for $k12 (vermagic $k12)"
			else
				t_fail "dkms installed $m.ko for $k12" "$got"
			fi
		done
	else
		t_fail "dkms for the 6.12 LTS kernel" "no 6.12 headers (tools/rig/deps.sh)"
	fi
fi
t_done
