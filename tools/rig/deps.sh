#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/deps.sh [PACKAGE...]
#
# Installs (apt-get, as root) the host packages the test rig needs, and the extra
# PACKAGEs a caller names (make bench: linux-perf), only those missing;
# runs `apt-get update` only when something is missing. Prints what it installs.
set -euo pipefail

# make deb and tools/tests/host/deb.sh: debhelper, dh-dkms, dpkg-dev,
# lintian, and systemd for systemd-analyze verify (no systemd as PID 1
# needed); shellcheck for the scripts.  make check-long's installed-package
# test: mmdebstrap (its Debian 12 root, tools/rig/debian-image.sh) and
# qemu-utils (qemu-img: the guests' overlays).
# Two stock kernels: Debian 12's 6.1 and the 6.12 LTS of its archive (the
# kernel of Debian 13 and RHEL 10): make check builds for and boots both.
pkgs=(qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64 linux-source-6.1
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	flex bison bc libelf-dev libssl-dev sparse rdma-core ibverbs-utils perftest iproute2
	libibverbs-dev librdmacm-dev ibverbs-providers
	fio nvme-cli e2fsprogs kmod cpio xz-utils zstd patch python3 gcc make dkms man-db
	debhelper dh-dkms dpkg-dev lintian systemd shellcheck mmdebstrap qemu-utils "$@")

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $st == ii* ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "deps.sh: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
