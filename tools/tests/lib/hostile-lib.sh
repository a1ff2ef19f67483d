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

# hostile_join_race ADDR LOG (a server guest, after its serves stopped): a
# join's failure path against its session's end (serve_test_join_fail_ms).
# A serve on port 18523 of its own, the hook at 4000 ms, and `hostile
# join-race` against this guest's ADDR: the join fails after its QP and
# holds 4 s where it wakes the session, while the session's client ends
# it.  The wake is under the server's lock, which the session's end
# takes: the session is not freed under it (before the fix, on the debug
# kernel: KASAN, use-after-free).  One TAP row.
hostile_join_race() {
	local addr=$1 log=$2 rpid out n0 n1 b0 b1 ok=0
	"$IBPOST" serve --port 18523 >"$log" 2>&1 &
	rpid=$!
	sleep 1
	n0=$(dmesg | grep -c 'test hook: failed join goes on')
	b0=$(dmesg | grep -c 'BUG:\|KASAN\|general protection')
	echo 4000 >/sys/module/ibpost/parameters/serve_test_join_fail_ms
	out=$(timeout 60 tools/tests/hostile join-race --server "$addr" --port 18523 2>&1)
	echo 0 >/sys/module/ibpost/parameters/serve_test_join_fail_ms
	kill -INT "$rpid"
	wait "$rpid"
	n1=$(dmesg | grep -c 'test hook: failed join goes on')
	b1=$(dmesg | grep -c 'BUG:\|KASAN\|general protection')
	grep -q '^join-race: .*: ok$' <<<"$out" && ((n1 > n0 && b1 == b0)) && ok=1
	t_check "a join failing while its session ends, its failure path held 4 s ($((n1 - n0)) held), the kernel log clean: $(tail -n 1 <<<"$out")" \
		test "$ok" = 1
}
