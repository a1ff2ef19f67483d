# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Minimal TAP helpers for in-guest tests.  Results also go to $TAP_FILE.
#   t_ok NAME | t_fail NAME WHY | t_check NAME CMD... | t_done
# Every NAME is prefixed with $TAP_PREFIX (e.g. "siw: ", so the rows of two
# providers in one guest do not collide).
TAP_N=0
TAP_PREFIX=${TAP_PREFIX:-}
TAP_FAILED=0
TAP_FILE=${TAP_FILE:-/dev/null}

t_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $TAP_PREFIX$1" | tee -a "$TAP_FILE"
}

t_fail() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $TAP_PREFIX$1 # $2" | tee -a "$TAP_FILE"
}

# t_check NAME CMD...: pass when CMD succeeds; its output is shown on failure.
t_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_ok "$name"
	else
		t_fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"
	fi
}

# t_expect NAME WANT_RC CMD...: pass when CMD exits with WANT_RC.
t_expect() {
	local name=$1 want=$2 rc=0 out
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [[ $rc == "$want" ]]; then
		t_ok "$name"
	else
		t_fail "$name" "exit $rc, want $want: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

t_done() {
	echo "1..$TAP_N" | tee -a "$TAP_FILE"
	echo "# $((TAP_N - TAP_FAILED)) passed, $TAP_FAILED failed"
	((TAP_FAILED == 0))
}
