# SPDX-License-Identifier: GPL-2.0-or-later
# The checks of the e2e scripts (sourced by harness.sh), one message format:
#   "  ok: WHAT" for a check that holds, "  WRONG: WHAT" for one that does not.
# A failed check sets ok=1: a script starts with ok=0 and ends with `exit $ok`.
# CHECKS_PASSED and CHECKS_FAILED count them (for a summary line).
#
#   pass WHAT                      "  ok: WHAT"
#   fail WHAT                      "  WRONG: WHAT", ok=1
#   check WHAT CMD [ARG...]        runs CMD: pass WHAT if it succeeds, fail WHAT if not
#   check_eq WHAT GOT WANT         pass "WHAT (GOT)" or fail "WHAT: got 'GOT', want 'WANT'"
#   check_status WHAT STATUS [WANT]   a boot's (or command's) exit status is WANT [0]; 124: timeout
#   expect LOG REGEX [WHAT]        the (ANSI-stripped) serial log matches REGEX; if not, the
#                                  log's last lines are shown. Returns 1 (ok untouched: the
#                                  caller decides, usually `expect ... || ok=1`)
#   expect_not LOG REGEX [WHAT]    no line matches REGEX (the matching lines are shown)
CHECKS_PASSED=0 CHECKS_FAILED=0

pass() { echo "  ok: $*"; CHECKS_PASSED=$((CHECKS_PASSED + 1)); }
# shellcheck disable=SC2034  # ok: the calling script's status
fail() { echo "  WRONG: $*"; CHECKS_FAILED=$((CHECKS_FAILED + 1)); ok=1; }

check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

check_eq() {
	if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi
}

check_status() {
	local what=$1 rc=$2 want=${3:-0}
	if [ "$rc" = "$want" ]; then
		pass "$what: status $rc"
	else
		fail "$what: status $rc, want $want$([ "$rc" != 124 ] || echo ' (124: timeout)')"
	fi
}

expect() {
	local log=$1 re=$2 what=${3:-$2}
	clean_log "$log" > "$log.txt"
	if grep -aEq -- "$re" "$log.txt"; then
		pass "$what"
	else
		CHECKS_FAILED=$((CHECKS_FAILED + 1))
		echo "  WRONG: missing $what (/$re/ in $log)"
		echo "  --- last lines of $log:"
		tail -25 "$log.txt" | sed 's/^/  | /'
		return 1
	fi
}

expect_not() {
	local log=$1 re=$2 what=${3:-not $2}
	clean_log "$log" > "$log.txt"
	if grep -aEq -- "$re" "$log.txt"; then
		CHECKS_FAILED=$((CHECKS_FAILED + 1))
		echo "  WRONG: unexpected: $what"
		grep -aE -- "$re" "$log.txt" | head -5 | sed 's/^/  | /'
		return 1
	fi
	pass "$what"
}
