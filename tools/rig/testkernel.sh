#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/testkernel.sh [--print-kdir | --print-kver | --print-bzimage]
#
# Builds the KUnit test kernel into the rig's cache outside the clone
# (IBPOST_CACHE, default /var/cache/ibpost: testkernel-6.1/), so that every clone
# on the machine, CI's fresh one included, reuses it: Linux 6.1 from
# /usr/src/linux-source-6.1.tar.xz with tools/rig/testkernel-*.patch applied (fixes of
# the kernel's own bugs that its debug options report), tools/rig/testkernel.config on
# top of tinyconfig, modules installed under its mods/. Rebuilds only when
# the fragment, a patch, the linux-source-6.1 package version or this script changed;
# otherwise prints "cached".
# On success prints KDIR=<tree usable as make -C KDIR M=...>, BZIMAGE=..., KVER=...
# The --print-* options print one of those without building (fail if not built).
# Needs flex bison bc libelf-dev libssl-dev gcc make (tools/rig/deps.sh).
set -euo pipefail

rig=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$rig/../.." && pwd)
cache=${IBPOST_CACHE:-/var/cache/ibpost}
out=$cache/testkernel-6.1
tree=$out/linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz
frag=$rig/testkernel.config
stamp=$out/stamp
bzimage=$tree/arch/x86/boot/bzImage

die() { echo "testkernel.sh: $*" >&2; exit 1; }

built_kver() {
	[[ -f $stamp && -f $bzimage && -f $tree/include/config/kernel.release ]] ||
		die "test kernel not built: run tools/rig/testkernel.sh"
	cat "$tree/include/config/kernel.release"
}

case ${1:-} in
--print-kdir) built_kver >/dev/null; echo "$tree"; exit 0 ;;
--print-kver) built_kver; exit 0 ;;
--print-bzimage) built_kver >/dev/null; echo "$bzimage"; exit 0 ;;
"") ;;
*) sed -n '3,13s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

[[ -f $tarball ]] || die "$tarball missing: install linux-source-6.1 (tools/rig/deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
patches=("$rig"/testkernel-*.patch)
# The unpacked tree is the package's source with these patches.
srcid="$srcver $(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)"
want=$(cat "$frag" "$0" <(echo "$srcid") | sha256sum | cut -d' ' -f1)

if [[ -f $stamp && $(cat "$stamp") == "$want" && -f $bzimage ]]; then
	echo "testkernel.sh: cached ($(built_kver))" >&2
else
	mkdir -p "$out"
	rm -f "$stamp"
	echo "testkernel.sh: building into $out (key ${want:0:12})" >&2
	if [[ ! -f $tree/.ibpost-srcver || $(cat "$tree/.ibpost-srcver") != "$srcid" ]]; then
		echo "testkernel.sh: unpacking $tarball ($srcver)" >&2
		rm -rf "$tree"
		tar -C "$out" -xf "$tarball"
		for p in "${patches[@]}"; do
			echo "testkernel.sh: applying ${p##*/}" >&2
			patch -d "$tree" -p1 --no-backup-if-mismatch -s <"$p" ||
				die "${p##*/} does not apply to $srcver"
		done
		echo "$srcid" >"$tree/.ibpost-srcver"
	fi
	log=$out/build.log
	echo "testkernel.sh: building in $tree (log: $log)" >&2
	start=$SECONDS
	{
		make -C "$tree" tinyconfig
		(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$frag")
		make -C "$tree" olddefconfig
	} >"$log" 2>&1 || { tail -n 40 "$log" >&2; die "configuring failed"; }

	# Every symbol the fragment asks for must have survived olddefconfig.
	missing=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" | while read -r line; do
		grep -qxF "$line" "$tree/.config" || echo "  want $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$tree/.config" || echo unset)"
	done)
	[[ -z $missing ]] || die "olddefconfig dropped requested symbols:"$'\n'"$missing"

	if ! make -C "$tree" -j"$(($(nproc) + 1))" bzImage modules >>"$log" 2>&1 ||
		! make -C "$tree" modules_install INSTALL_MOD_PATH="$out/mods" INSTALL_MOD_STRIP=1 >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "build failed (full log: $log)"
	fi
	echo "$want" >"$stamp"
	echo "testkernel.sh: built in $((SECONDS - start)) s" >&2
fi
echo "KDIR=$tree"
echo "BZIMAGE=$bzimage"
echo "KVER=$(built_kver)"
