# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# hostile_battery SERVER PORT FILE [ARGS...]: run `tools/tests/hostile
# battery` against an `ibpost serve` (ARGS: its limits, see hostile.c),
# its output in FILE, and a TAP row per category (every round got what it
# must: "wrong 0") and for the correct job after it.  Needs tap.sh.
hostile_battery() {
	local s=$1 port=$2 file=$3 rc=0 line cat
	shift 3
	timeout 900 tools/tests/hostile battery --server "$s" --port "$port" "$@" \
		>"$file" 2>&1 || rc=$?
	for cat in hello job at-limit order bounds rkeys never-fin flood conns join; do
		line=$(grep -E "^  $cat +[0-9]+ rounds:" "$file")
		if [[ -z $line ]]; then
			t_fail "hostile battery: $cat" "no summary (exit $rc): $(tail -n 2 "$file" | tr '\n' ' ')"
		elif [[ $line == *" wrong 0" ]]; then
			t_ok "hostile battery: $(sed 's/^ *//; s/  */ /g' <<<"$line")"
		else
			t_fail "hostile battery: $cat" "$(sed 's/^ *//; s/  */ /g' <<<"$line"): $(grep -- '<-- WRONG' "$file" | grep -F "battery: $cat:" | head -n 3 | tr '\n' ' ')"
		fi
	done
	t_check "hostile battery: a correct job after it all succeeds (exit $rc)" \
		grep -q '^battery: a correct job after it all: ok' "$file"
}
