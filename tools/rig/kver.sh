#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/kver.sh [--kdir]
#
# Prints the version of a stock Debian kernel (e.g. 6.1.0-41-amd64): the one the
# installed meta-package depends on (IBPOST_STOCK picks the series: 6.1, the default,
# is linux-image-amd64; 6.12 is linux-image-6.12-amd64, bookworm's 6.12 LTS), else
# the newest /lib/modules/<that series>*-amd64 with a build link. Never `uname -r`:
# the host runs another kernel. --kdir prints its kbuild dir /lib/modules/<kver>/build.
set -euo pipefail

series=${IBPOST_STOCK:-6.1}
case $series in
6.1) meta=linux-image-amd64 glob='6.1.0-*-amd64' ;;
6.12) meta=linux-image-6.12-amd64 glob='6.12.*-amd64' ;;
*) echo "kver.sh: IBPOST_STOCK=$series: 6.1 or 6.12" >&2; exit 2 ;;
esac
kver=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
	grep -oE 'linux-image-[0-9][^ ,]*-amd64' | head -n1 | sed 's/^linux-image-//') || true
if [[ -z $kver ]]; then
	kver=$(find /lib/modules -mindepth 2 -maxdepth 2 -name build -path "/lib/modules/$glob/build" 2>/dev/null |
		awk -F/ '{print $4}' | sort -V | tail -n1)
fi
[[ -n $kver ]] || { echo "kver.sh: no stock $series kernel found (run tools/rig/deps.sh)" >&2; exit 1; }

case ${1:-} in
"") echo "$kver" ;;
--kdir)
	[[ -d /lib/modules/$kver/build ]] || { echo "kver.sh: /lib/modules/$kver/build missing ($meta's headers?)" >&2; exit 1; }
	echo "/lib/modules/$kver/build" ;;
*) sed -n '3,9s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
