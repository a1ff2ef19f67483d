#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/copy-tree.sh DEST
#
# Copies the tree's files into DEST (made if missing): git's files with the
# changes not yet committed (build products and ignored files left out);
# outside a git work tree, everything but build/, .git and objects.
# 'make deb' builds its packages in such a copy, and install.sh runs
# 'make install' in one (a user's build, without the test hooks, beside
# the test build of the tree the guests load).
set -euo pipefail
[[ $# == 1 && -n $1 ]] || { sed -n '3,10s/^# \{0,1\}//p' "$0" >&2; exit 2; }
cd "$(dirname "$0")/../.."
mkdir -p "$1"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Deleted but not yet committed: not copied.
	# shellcheck disable=SC2016 # sh's own $f
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
		tar --null -T - -cf - | tar -xf - -C "$1"
else
	tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.ko' \
		-cf - . | tar -xf - -C "$1"
fi
