# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tools/tests/lib/leftovers.sh: what ibpost holds after a test, checked as
# TAP rows (sourced after tools/tests/lib/suite.sh): the RDMA resources
# rdma_restrack lists as ibpost's or its consumers' ("comm [ibpost..."),
# and the module's own counts (debugfs ibpost/live).

LIVE=/sys/kernel/debug/ibpost/live
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# no_rdma_left WHEN KIND...: a row "WHEN: no ibpost KIND/... left" (qp,
# cq, mr, pd): none of those resources is ibpost's.  With no RDMA device
# left there is nothing to list, and the row says so (live_zero still
# counts what the module holds).
no_rdma_left() {
	local when=$1 kind found='' kinds
	shift
	kinds=$(tr 'a-z ' 'A-Z/' <<<"$*")
	for kind; do
		rdma resource show "$kind" 2>/dev/null | grep -q 'comm \[ibpost' &&
			found="$found $kind"
	done
	if [[ -n $found ]]; then
		t_fail "$when: no ibpost $kinds left" "found:$found"
	elif [[ -z $(rdma dev 2>/dev/null) ]]; then
		t_ok "$when: no RDMA device left to list ${kinds}s of"
	else
		t_ok "$when: no ibpost $kinds left"
	fi
}

# live_zero WHEN: a row: the pages of buffer slots, the fast-reg MRs and
# the active runs ibpost counts (ibpost/live, 3 lines) are all 0.
live_zero() {
	local text
	if ! text=$(cat $LIVE 2>&1); then
		t_fail "$1: ibpost/live readable" "$text"
		return
	fi
	if [[ $(awk '$2 != 0' <<<"$text") == "" && $(wc -l <<<"$text") == 3 ]]; then
		t_ok "$1: pages, MRs and runs held by ibpost back to 0"
	else
		t_fail "$1: pages, MRs and runs held by ibpost back to 0" "$(tr '\n' ' ' <<<"$text")"
	fi
}
