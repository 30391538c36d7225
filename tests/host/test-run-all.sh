#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run-all.sh reports what really happened: the kernel build's exit status (it once said
# "exited with status 127" after a build that succeeded: `wait` on a job `wait -n` had reaped
# already), each case's status, wall and CPU time, the suite's CPU, and the summary line last;
# it starts the kernel tier's cases only after the kernel build, orders the cases by the last
# run's times, and its default groups never include the slow tier.
# Runs run-all.sh with a stand-in kernel build (EFIRESUME_KBUILD) and case lists of its own
# (EFIRESUME_KERNEL_CASES, EFIRESUME_E2E_CASES, EFIRESUME_SLOW_CASES), so it takes seconds:
# builds that succeed and fail, finishing before and after the cases.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

# a stand-in for tests/lib/kernel-build.sh: --dir prints $KB_DIR; otherwise takes its lock,
# burns about 1 s of CPU (a loop of a fixed count: wall time on a busy machine is no measure),
# sleeps $KB_SLEEP s, leaves $KB_DIR/built and exits $KB_RC
cat > "$t/kbuild" <<'EOS'
#!/bin/bash
[ "${1:-}" = --dir ] && { echo "$KB_DIR"; exit 0; }
touch "$KB_DIR/.lock"
i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done
sleep "$KB_SLEEP"; touch "$KB_DIR/built"; echo "stand-in build"; echo "last line"; exit "$KB_RC"
EOS
chmod +x "$t/kbuild"
mkdir -p "$t/kdir" "$t/kcached"
touch "$t/kcached/bzImage"
# (burn-e: about 1.5 s of CPU in a child of the case's shell; after-f: passes only if started after the build ended)
cat > "$t/cases" <<EOS
quick-a   sleep 0.2
quick-b   true
slow-c    sleep 2
fails-d   exit 3
burn-e    i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done
after-f   test -e "\$KB_DIR/built" || test -e "\$KB_DIR/bzImage"
EOS
printf 'fast-x    sleep 1\n' > "$t/e2e"
printf 'slow-z    exit 7\n' > "$t/slow"

run() { # KDIR SLEEP RC GROUP... -> output in $t/out, status in $t/rc
	local kd=$1 sl=$2 rc=$3; shift 3
	rm -f "$t/kdir/built" "$t/kdir/.lock"
	KB_DIR=$kd KB_SLEEP=$sl KB_RC=$rc EFIRESUME_KBUILD=$t/kbuild EFIRESUME_KERNEL_CASES=$t/cases \
		EFIRESUME_E2E_CASES=$t/e2e EFIRESUME_SLOW_CASES=$t/slow EFIRESUME_TEST_TIMES=$t/times \
		TEST_JOBS=2 BUILD=$t/build tests/run-all.sh "$@" > "$t/out" 2>&1
	echo $? > "$t/rc"
}
expect() { # WHAT PATTERN
	if grep -qE -- "$2" "$t/out"; then ok "$1"; else bad "$1 (no /$2/ in:)"; sed 's/^/      /' "$t/out"; fi
}
cpu_of() { sed -nE "s/^(PASS|FAIL)  e2e\/$1 \([0-9]+s, cpu ([0-9]+)s.*/\2/p" "$t/out"; }
line_of() { grep -nE -- "$1" "$t/out" | head -n 1 | cut -d: -f1; }

for sl in 0 4; do
	for rc in 0 5; do
		rm -f "$t/times"
		run "$t/kdir" "$sl" "$rc" kernel
		w="build sleeping ${sl}s, exit $rc"
		expect "$w: the build's status reported" "^kernel tier: the kernel build exited with status $rc "
		expect "$w: a failing case reported with its status" '^FAIL  e2e/fails-d \([0-9]+s, cpu [0-9]+s, status 3\)'
		expect "$w: passing cases, wall and cpu time" '^PASS  e2e/slow-c \([0-9]+s, cpu 0s\)$'
		expect "$w: the kernel's cases start after its build" '^PASS  e2e/after-f '
		expect "$w: summary line" '^5 passed, 1 failed$'
		[ "$(tail -n 1 "$t/out")" = "5 passed, 1 failed" ] && ok "$w: summary is the last line" || bad "$w: summary is the last line"
		[ "$(cat "$t/rc")" != 0 ] && ok "$w: non-zero exit" || bad "$w: non-zero exit"
		c=$(cpu_of burn-e)
		[ -n "$c" ] && [ "$c" -ge 1 ] && ok "$w: a busy case's cpu counted ($c s)" || bad "$w: a busy case's cpu counted (${c:-none})"
		k=$(sed -nE 's/^kernel tier: the kernel build exited .*, cpu ([0-9]+)s$/\1/p' "$t/out")
		[ -n "$k" ] && [ "$k" -ge 1 ] && ok "$w: the build's cpu counted ($k s)" || bad "$w: the build's cpu counted (${k:-none})"
		expect "$w: the suite's cpu, the cases' and the build's" "^suite took [0-9]+ s; cpu [0-9]+ s \(cases [0-9]+ s, kernel build $k s\)"
		s=$(sed -nE 's/^suite took [0-9]+ s; cpu ([0-9]+) s .*/\1/p' "$t/out")
		# (each rounded to the second)
		[ -n "$s" ] && [ $((s + 1)) -ge $((c + k)) ] && ok "$w: the suite's cpu ($s s) holds the cases' and the build's" \
			|| bad "$w: the suite's cpu (${s:-none}) holds the cases' ($c) and the build's ($k)"
		expect "$w: only the kernel's cases to start: the build not niced" '^kernel tier: only its cases are left to start: the kernel build no longer niced$'
		grep -q '^e2e/burn-e [0-9]* [0-9]*$' "$t/times" && ok "$w: times kept" || bad "$w: times kept"
	done
done

# beside other cases: those start first; the kernel's cases after the build, which is reniced
# once only they are left
run "$t/kdir" 3 0 e2e kernel
w="e2e and kernel groups, build sleeping 3s"
fx=$(line_of '^RUN   e2e/fast-x$') rn=$(line_of 'kernel build no longer niced') qa=$(line_of '^RUN   e2e/quick-a$')
[ -n "$fx" ] && [ -n "$rn" ] && [ -n "$qa" ] && [ "$fx" -lt "$rn" ] && [ "$rn" -lt "$qa" ] \
	&& ok "$w: the other case first, then the renice, then the kernel's cases" || { bad "$w: order (fast-x $fx, renice $rn, quick-a $qa)"; sed 's/^/      /' "$t/out"; }
expect "$w: the kernel's cases start after its build" '^PASS  e2e/after-f '
expect "$w: summary" '^6 passed, 1 failed$'

# the kernel cached: no build; the cases in the order of the last run's times, longest first,
# cases without a time before them
printf 'e2e/quick-a 1 0\ne2e/slow-c 50 3\ne2e/quick-b 9 0\ne2e/fails-d 5 0\ne2e/burn-e 2 1\n' > "$t/times"
run "$t/kcached" 0 0 kernel
w="kernel cached, times of a last run"
grep -q '^kernel tier: the kernel build' "$t/out" && bad "$w: no build" || ok "$w: no build"
order=$(sed -n 's/^RUN   e2e\///p' "$t/out" | tr '\n' ' ')
[ "$order" = "after-f slow-c quick-b fails-d burn-e quick-a " ] && ok "$w: order $order" || bad "$w: order $order"
grep -q '^e2e/slow-c 2 0$' "$t/times" && ok "$w: times replaced" || { bad "$w: times replaced"; cat "$t/times"; }

# the default groups: never the slow tier
run "$t/kcached" 0 0
w="default groups"
grep -q 'e2e/slow-z' "$t/out" && bad "$w: the slow tier not run" || ok "$w: the slow tier not run"
expect "$w: says so" '^slow tier \(tests/e2e/cases-slow\) not run by make test'
expect "$w: the e2e and kernel tiers run" '^PASS  e2e/fast-x .*'
expect "$w: summary" '^6 passed, 1 failed$'
run "$t/kcached" 0 0 slow
expect "slow group: its cases run" '^FAIL  e2e/slow-z .*status 7\)'

# the default groups with the kernel not cached: no build, the kernel tier left out and said
# (a run from an empty cache must fit in 30 min on 2 cores; make test-kernel builds it)
run "$t/kdir" 0 0
w="default groups, kernel not cached"
expect "$w: says so" '^kernel tier \(tests/e2e/cases-kernel\) not run: the test kernel is not built; make test-kernel builds it'
[ ! -e "$t/kdir/.lock" ] && ok "$w: no kernel build started" || bad "$w: a kernel build started"
grep -q 'e2e/quick-a' "$t/out" && bad "$w: the kernel's cases not run" || ok "$w: the kernel's cases not run"
expect "$w: the e2e tier runs" '^PASS  e2e/fast-x .*'
expect "$w: summary" '^1 passed, 0 failed$'

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
