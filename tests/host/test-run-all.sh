#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run-all.sh reports what really happened: the kernel build's exit status (it once said
# "exited with status 127" after a build that succeeded: `wait` on a job `wait -n` had reaped
# already), each case's status, and the summary line.
# Runs run-all.sh's kernel group with a stand-in kernel build (EFIRESUME_KBUILD) and a case
# list of its own (EFIRESUME_KERNEL_CASES), so it takes seconds: builds that succeed and fail,
# finishing before and after the cases.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

# a stand-in for tests/lib/kernel-build.sh: --dir prints a directory without a bzImage;
# otherwise sleeps $KB_SLEEP s and exits $KB_RC
cat > "$t/kbuild" <<'EOS'
#!/bin/sh
[ "${1:-}" = --dir ] && { echo "$KB_DIR"; exit 0; }
sleep "$KB_SLEEP"; echo "stand-in build"; echo "last line"; exit "$KB_RC"
EOS
chmod +x "$t/kbuild"
mkdir -p "$t/kdir"
cat > "$t/cases" <<'EOS'
quick-a   sleep 0.2
quick-b   true
slow-c    sleep 2
fails-d   exit 3
EOS

run() { # SLEEP RC -> output in $t/out
	KB_DIR=$t/kdir KB_SLEEP=$1 KB_RC=$2 EFIRESUME_KBUILD=$t/kbuild EFIRESUME_KERNEL_CASES=$t/cases \
		TEST_JOBS=2 BUILD=$t/build tests/run-all.sh kernel > "$t/out" 2>&1
	echo $? > "$t/rc"
}
expect() { # WHAT PATTERN
	if grep -qE -- "$2" "$t/out"; then ok "$1"; else bad "$1 (no /$2/ in:)"; sed 's/^/      /' "$t/out"; fi
}

for sl in 0 4; do
	for rc in 0 5; do
		run "$sl" "$rc"
		w="build sleeping ${sl}s, exit $rc"
		expect "$w: the build's status reported" "^kernel tier: the kernel build exited with status $rc "
		expect "$w: a failing case reported with its status" '^FAIL  e2e/fails-d \(.*status 3\)'
		expect "$w: passing cases" '^PASS  e2e/slow-c '
		expect "$w: summary line last" '^3 passed, 1 failed$'
		[ "$(tail -n 1 "$t/out")" = "3 passed, 1 failed" ] && ok "$w: summary is the last line" || bad "$w: summary is the last line"
		[ "$(cat "$t/rc")" != 0 ] && ok "$w: non-zero exit" || bad "$w: non-zero exit"
	done
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
