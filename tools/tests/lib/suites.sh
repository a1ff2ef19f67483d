# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tools/tests/lib/suites.sh: the registry of guest suites
# (tools/tests/suites) read for tools/check.sh and for the guests.  The
# working directory is the repository.
#
#   suites GUEST LONG      the suites GUEST runs on rxe, in order
#   siw_suites LONG        the suites the test guest runs again on siw
#   suites_guest           the name of the guest this runs in (in a guest)
#
# LONG is 1 for make check-long, else 0.

SUITES_FILE=tools/tests/suites

suites() {
	awk -v g="$1" -v long="$2" '
		/^#/ || NF == 0 { next }
		{
			n = split($2, gs, ",")
			for (i = 1; i <= n; i++) {
				x = gs[i]
				plus = sub(/\+$/, "", x)
				if (x == g && (!plus || long == 1))
					print $1
			}
		}' "$SUITES_FILE"
}

siw_suites() {
	awk -v long="$1" '
		/^#/ || NF == 0 { next }
		$3 == "check" || ($3 == "long" && long == 1) { print $1 }
	' "$SUITES_FILE"
}

suites_guest() {
	if [[ $IBPOST_KERNEL == test ]]; then
		echo test
	elif [[ $(rig_arg stock) == 6.12 ]]; then
		echo stock-6.12
	elif grep -qw 'ib_core.force_mr=1' /proc/cmdline; then
		echo forcemr
	else
		echo stock
	fi
}
