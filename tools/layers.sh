#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/layers.sh: check that module/ calls only down its layers
# (Documentation/design.rst, "Layers").  A file may include only the
# headers of its own layer and of the layers below it; a function of
# another layer can only be called through its header, so the includes
# are the calls.  Prints every cross-folder include with its verdict and
# exits 1 on a violation.
#
#   rank  layer     may include
#   0     lib/      lib/
#   1     core/     core/ lib/
#   2     session/  session/ core/ lib/
#   3     job/      job/ session/ core/ lib/   (a job runs on a session)
#   3     serve/    serve/ core/ lib/          (never job/ nor session/)
#   4     fronts    everything (main.c ioctl.c file.c)
#
# blk/ (ibpost_blk.ko) may include only its own headers and
# include/ibpost.h, the in-kernel API.
#
# Usage: tools/layers.sh [-q]   (-q: print the violations only)

cd "$(dirname "$0")/../module" || exit 2
quiet=
[ "$1" = -q ] && quiet=1

layer_of() {	# path of a file or header, relative to module/
	case $1 in
	lib/*) echo lib ;;
	core/*) echo core ;;
	session/*) echo session ;;
	job/*) echo job ;;
	serve/*) echo serve ;;
	compat/*) echo compat ;;
	blk/*) echo blk ;;
	*/*) echo unknown ;;
	*) echo front ;;
	esac
}

# allowed FROM TO: may a file of layer FROM include a header of layer TO?
allowed() {
	[ "$1" = "$2" ] && return 0
	# compat/ is below everything: any layer may use its wrappers.
	[ "$2" = compat ] && return 0
	case $1:$2 in
	core:lib) return 0 ;;
	session:core | session:lib) return 0 ;;
	job:session | job:core | job:lib) return 0 ;;
	serve:core | serve:lib) return 0 ;;
	front:lib | front:core | front:session | front:job | front:serve)
		return 0 ;;
	esac
	return 1
}

bad=0
n=0
for f in *.[ch] */*.[ch]; do
	from=$(layer_of "$f")
	[ "$from" = blk ] && continue
	[ "$from" = compat ] && continue
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		to=$(layer_of "$h")
		[ "$from" = "$to" ] && continue
		n=$((n + 1))
		if allowed "$from" "$to"; then
			[ -n "$quiet" ] || echo "ok   $f ($from) -> $h ($to)"
		else
			echo "UP   $f ($from) -> $h ($to)"
			bad=$((bad + 1))
		fi
	done
done

# blk/: its own headers and the in-kernel API only.
for f in blk/*.[ch]; do
	[ -f "$f" ] || continue
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		ibpost.h | blk.h | blk/* | compat-blk.h) continue ;;
		esac
		echo "UP   $f (blk) -> $h (not include/ibpost.h)"
		bad=$((bad + 1))
	done
done

echo "layers: $n cross-folder includes, $bad going up"
[ "$bad" -eq 0 ]
