#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/debian-image.sh [--print]
#
# A Debian 12 root that boots systemd as PID 1, for the installed-package
# test (tools/tests/system/system.sh): mmdebstrap from Debian's archive
# (bookworm with its updates and security suites, mmdebstrap's default for
# a stable release), variant minbase plus what an RDMA host running ibpost
# from its packages has: systemd, udev, kmod, iproute2, rdma-core, the
# amd64 kernel with its headers, DKMS and a compiler for it, and the tools
# the test uses.  Cached as a tarball in /var/cache/ibpost/debian-KEY/,
# KEY the hash of this script (its package list and options are in it):
# built once (about 5 minutes and 400 MB from the archive), then reused.
# The root has a machine-id, so that its first boot is not systemd's
# "first boot" (systemd-firstboot would ask on the console); each guest
# gets its own on the kernel command line (systemd.machine_id=).
# Prints the tarball's path; --print only prints where it would be (and
# exits 1 when it is not built yet).
set -euo pipefail

cache=${IBPOST_CACHE:-/var/cache/ibpost}
pkgs=(systemd-sysv udev dbus kmod iproute2 rdma-core ibverbs-providers
	linux-image-amd64 linux-headers-amd64 dkms gcc make libc6-dev
	e2fsprogs procps passwd util-linux coreutils man-db)
key=$(sha256sum "$0" | cut -c1-16)
dir=$cache/debian-bookworm-$key
tar=$dir/root.tar

case ${1:-} in
--print)
	echo "$tar"
	[[ -f $tar && -s $tar ]]
	exit
	;;
"") ;;
*) sed -n '3,15s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

if [[ -f $tar && -s $tar ]]; then
	echo "$tar"
	exit 0
fi
command -v mmdebstrap >/dev/null ||
	{ apt-get update -qq && apt-get install -y -qq mmdebstrap >/dev/null; }
mkdir -p "$dir"
# Built under a temporary name: an interrupted build is never taken for
# a cached one (--format: mmdebstrap would take a name that does not end
# in .tar for a directory).
rm -f "$tar.tmp"
list=$(IFS=,; echo "${pkgs[*]}")
echo "debian-image.sh: building $tar (mmdebstrap bookworm: $list)" >&2
# shellcheck disable=SC2016 # the hooks' $1 is mmdebstrap's (the root)
mmdebstrap --mode=root --format=tar --variant=minbase --include="$list" \
	--aptopt='Apt::Install-Recommends "false"' \
	--customize-hook='echo ibpost-systest >"$1/etc/hostname"' \
	--customize-hook='chroot "$1" systemd-machine-id-setup' \
	bookworm "$tar.tmp" >&2
mv "$tar.tmp" "$tar"
echo "$tar"
