#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the test suite and ends with one line "N passed, N failed".
#   tests/run-all.sh [GROUP...]   groups: unit fuzz e2e seeds slow (default: unit fuzz e2e, and
#                                 slow when what it needs is cached already; seeds = the e2e
#                                 cases of the 2004 format only; slow = tests/e2e/cases-slow)
# E2E cases run two at a time (QEMU under TCG is one busy thread per vCPU).
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$TOP"
groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
	groups=(unit fuzz e2e)
	# the slow tier only when what it needs is built already (make test-slow builds it)
	if why=$(tests/lib/slow-warm.sh); then
		groups+=(slow)
	else
		echo "slow tier (tests/e2e/cases-slow) not run: $why; make test-slow builds it and runs them"
	fi
fi
JOBS=${TEST_JOBS:-2}
logdir="$BUILD/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"

cases=()
add() { cases+=("$1|$2"); }   # name|command

for g in "${groups[@]}"; do
	case $g in
	unit)
		for t in "$BUILD"/unit/test_*; do [ -x "$t" ] && add "unit/$(basename "$t")" "$t"; done
		for t in "$BUILD"/unit-O2/test_*; do [ -x "$t" ] && add "unit-O2/$(basename "$t")" "$t"; done ;;
	fuzz)
		for f in "$BUILD"/fuzz/fuzz_*; do [ -x "$f" ] && add "fuzz/$(basename "$f")" "tests/fuzz/run.sh ${FUZZ_SMOKE_SECONDS:-15} $(basename "$f")"; done ;;
	e2e|seeds|slow)
		# "seeds" runs only the cases of the seeds' 2004 format (names seeds-*)
		list=tests/e2e/cases
		[ "$g" = slow ] && list=tests/e2e/cases-slow
		while read -r name cmd; do
			case $name in ''|'#'*) continue ;; esac
			[ "$g" = seeds ] && [[ $name != seeds-* ]] && continue
			add "e2e/$name" "$cmd"
		done < "$list" ;;
	*) echo "unknown group $g" >&2; exit 2 ;;
	esac
done

passed=0 failed=0 failures=()
declare -A pid_of
run_case() {
	local name=$1 cmd=$2 log="$logdir/${1//\//_}.log" t0=$SECONDS
	EFIRESUME_CASE=$name bash -c "$cmd" > "$log" 2>&1
	local rc=$?
	echo "$rc $((SECONDS - t0))" > "$log.rc"
}

running=()
start=$SECONDS
for c in "${cases[@]}"; do
	name=${c%%|*} cmd=${c#*|}
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	echo "RUN   $name"
	run_case "$name" "$cmd" &
done
wait

for c in "${cases[@]}"; do
	name=${c%%|*}
	log="$logdir/${name//\//_}.log"
	read -r rc secs < "$log.rc" || { rc=99; secs=0; }
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1)); echo "PASS  $name (${secs}s)"
	else
		failed=$((failed + 1)); failures+=("$name"); echo "FAIL  $name (${secs}s, status $rc)"
		sed 's/^/      /' "$log" | tail -60
	fi
done
echo "suite took $((SECONDS - start)) s; logs in $logdir"
[ $failed -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
