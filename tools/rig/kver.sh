#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/kver.sh [--kdir]
#
# Prints the version of the stock Debian kernel (e.g. 6.1.0-41-amd64): the one the
# installed linux-image-amd64 meta-package depends on, else the newest
# /lib/modules/*-amd64 that has a build link (from linux-headers). Never `uname -r`:
# the host runs another kernel. --kdir prints its kbuild dir /lib/modules/<kver>/build.
set -euo pipefail

kver=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	grep -oE 'linux-image-[0-9][^ ,]*-amd64' | head -n1 | sed 's/^linux-image-//') || true
if [[ -z $kver ]]; then
	kver=$(find /lib/modules -mindepth 2 -maxdepth 2 -name build -path '*-amd64/build' 2>/dev/null |
		awk -F/ '{print $4}' | sort -V | tail -n1)
fi
[[ -n $kver ]] || { echo "kver.sh: no stock kernel found (run tools/rig/deps.sh)" >&2; exit 1; }

case ${1:-} in
"") echo "$kver" ;;
--kdir)
	[[ -d /lib/modules/$kver/build ]] || { echo "kver.sh: /lib/modules/$kver/build missing (linux-headers-amd64?)" >&2; exit 1; }
	echo "/lib/modules/$kver/build" ;;
*) sed -n '3,8s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
