#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/initramfs.sh stock|test
#
# Builds the guest initramfs for the stock Debian kernel or the test kernel into
# build/rig/initramfs-<kind>-<kver>.cpio.gz and prints its path: busybox-static with
# symlinked applets, tools/rig/init as /init and, for the stock kernel, the 9p/virtio
# modules (dependencies resolved from modules.dep, decompressed, listed in load order in
# /modules/order). Cached: rebuilt only when init, this script, busybox or kver change.
set -euo pipefail

rig=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$rig/../.." && pwd)
die() { echo "initramfs.sh: $*" >&2; exit 1; }

kind=${1:-}
case $kind in
stock) kver=$("$rig/kver.sh") ;;
test) kver=$("$rig/testkernel.sh" --print-kver) ;;
*) sed -n '3,9s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
busybox=/bin/busybox
[[ -x $busybox ]] || die "$busybox missing (busybox-static)"
mods=(netfs fscache 9pnet 9p virtio virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev
	virtio_pci 9pnet_virtio)

out=$repo/build/rig
img=$out/initramfs-$kind-$kver.cpio.gz
# (IBPOST_STOCK picks the stock kernel: tools/rig/kver.sh.)
want=$(cat "$rig/init" "$0" <(echo "$kind $kver") <("$busybox" | head -n1) | sha256sum | cut -d' ' -f1)
# Guests boot side by side (tools/check.sh): one builds an image while the
# others wait for it, under a lock; the image is written to a file of its
# own and renamed into place, so no guest ever boots half an image.
mkdir -p "$out"
exec 9>"$out/initramfs.lock"
flock 9
if [[ -f $img && -f $img.stamp && $(cat "$img.stamp") == "$want" ]]; then
	echo "$img"
	exit 0
fi

root=$(mktemp -d "$out/initramfs.XXXXXX")
trap 'rm -rf "$root" ${tmp:+"$tmp"}' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,host,mods,repo}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[[ -e $root/bin/$applet ]] || ln -s busybox "$root/bin/$applet"
done
install -m 0755 "$rig/init" "$root/init"

if [[ $kind == stock ]]; then
	mkdir "$root/modules"
	for m in "${mods[@]}"; do
		deps=$(modprobe -S "$kver" --show-depends "$m" 2>/dev/null) ||
			{ echo "initramfs.sh: $m: not in $kver, skipped" >&2; continue; }
		while read -r what path _; do
			[[ $what == insmod ]] || continue
			ko=$(basename "$path")
			ko=${ko%.xz} ko=${ko%.zst} ko=${ko%.gz}
			[[ -e $root/modules/$ko ]] && continue
			case $path in
			*.xz) xz -dc "$path" ;;
			*.zst) zstd -qdc "$path" ;;
			*.gz) gzip -dc "$path" ;;
			*) cat "$path" ;;
			esac >"$root/modules/$ko"
			echo "$ko" >>"$root/modules/order"
		done <<<"$deps"
	done
fi

tmp=$(mktemp "$img.XXXXXX")
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -9) >"$tmp"
chmod 0644 "$tmp"
mv -f "$tmp" "$img"
echo "$want" >"$img.stamp"
echo "$img"
