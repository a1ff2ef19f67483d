# SPDX-License-Identifier: GPL-2.0
# CPU contention during a benchmark (host side, sourced): other QEMU guests
# on the host skew the figures; they are reported, not waited for.
# Usage: . tools/rig/busy.sh
#   busy_start FILE OURS  before booting OURS guests: note in FILE the QEMU
#                         processes running now, then (every 15 s) those
#                         beyond OURS; warns on stdout at once
#   busy_stop             stop watching
#   busy_note FILE        prints a '# WARNING' line when FILE noted any
# QEMU processes are counted by process name, so not the 'timeout
# qemu-system...' wrappers.
# shellcheck shell=bash

busy_start() {
	local file=$1 ours=$2 n
	rm -f "$file"
	n=$(pgrep -c '^qemu-system' || true)
	if ((n > 0)); then
		echo "bench: warning: $n other QEMU process(es) running at boot; figures will be skewed"
		echo "$n at boot" >>"$file"
	fi
	(
		while sleep 15; do
			n=$(pgrep -c '^qemu-system' || true)
			((n > ours)) && echo "$((n - ours)) during the run" >>"$file"
		done
	) &
	busy_pid=$!
}

busy_stop() {
	kill "$busy_pid" 2>/dev/null || true
	wait "$busy_pid" 2>/dev/null || true
}

busy_note() {
	if [[ -s $1 ]]; then
		echo "# WARNING: other QEMU guests ran on the host ($(sort -u "$1" | paste -sd, -)); CPU contention skews these figures"
	fi
}
