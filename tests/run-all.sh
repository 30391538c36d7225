#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the test suite and ends with one line "N passed, N failed".
#   tests/run-all.sh [GROUP...]   groups: unit fuzz e2e kernel seeds slow (default: unit fuzz
#                                 e2e kernel, and slow when what it needs is cached already;
#                                 kernel = tests/e2e/cases-kernel, the patched 6.12 kernel's
#                                 main cases: when the kernel is not cached its build starts
#                                 first, niced, beside the other groups, and those cases wait
#                                 for it; seeds = the e2e cases of the 2004 format only;
#                                 slow = tests/e2e/cases-slow)
# E2E cases run two at a time (QEMU under TCG is one busy thread per vCPU).
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$TOP"
groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
	groups=(unit fuzz e2e kernel)
	# the slow tier only when what it needs is built already (make test-slow builds it)
	if why=$(tests/lib/slow-warm.sh); then
		groups+=(slow)
	else
		echo "slow tier (tests/e2e/cases-slow) not run: $why; make test-slow builds it and runs them"
	fi
fi
JOBS=${TEST_JOBS:-2}
# (for tests/host/test-run-all.sh: the kernel build and the kernel tier's case list)
kbuild=${EFIRESUME_KBUILD:-tests/lib/kernel-build.sh}
kcases=${EFIRESUME_KERNEL_CASES:-tests/e2e/cases-kernel}
logdir="$BUILD/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"

cases=()
add() { cases+=("$1|$2"); }   # name|command

# the kernel group: build the test kernel in the background when it is not cached (make kernel
# does the same in the foreground); its cases call tests/lib/kernel-build.sh, which waits on
# the build's lock and then finds the bzImage
kbuild_pid=
for g in "${groups[@]}"; do
	[ "$g" = kernel ] || continue
	kdir=$($kbuild --dir)
	if [ ! -f "$kdir/bzImage" ]; then
		echo "kernel tier: the test kernel is not cached; building it now beside the other tests ($logdir/kernel-build.log)"
		# its status goes to a file: the `wait -n` and `wait` below reap this job too, so
		# `wait $kbuild_pid` would find no child and say 127
		( nice -n 10 $kbuild > "$logdir/kernel-build.log" 2>&1; echo $? > "$logdir/kernel-build.rc" ) &
		kbuild_pid=$!
		# let it take its lock before any case asks for the kernel
		for _ in $(seq 50); do [ -e "$kdir/.lock" ] && break; sleep 0.2; done
	fi
done

for g in "${groups[@]}"; do
	case $g in
	unit)
		# (test_tpm_swtpm needs a TPM: tests/host/test-tpm-swtpm.sh starts swtpm and runs it)
		for t in "$BUILD"/unit/test_* "$BUILD"/unit-O2/test_*; do
			[ -x "$t" ] && [ "${t##*/}" != test_tpm_swtpm ] && add "${t#"$BUILD"/}" "$t"
		done ;;
	fuzz)
		for f in "$BUILD"/fuzz/fuzz_*; do [ -x "$f" ] && add "fuzz/$(basename "$f")" "tests/fuzz/run.sh ${FUZZ_SMOKE_SECONDS:-15} $(basename "$f")"; done ;;
	e2e|seeds|slow|kernel)
		# "seeds" runs only the cases of the seeds' 2004 format (names seeds-*)
		list=tests/e2e/cases
		[ "$g" = slow ] && list=tests/e2e/cases-slow
		[ "$g" = kernel ] && list=$kcases
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
	# (the kernel build, when it runs beside them, does not take a slot)
	while [ "$(jobs -rp | grep -vxF "${kbuild_pid:-none}" | wc -l)" -ge "$JOBS" ]; do wait -n; done
	echo "RUN   $name"
	run_case "$name" "$cmd" &
done
wait
if [ -n "$kbuild_pid" ]; then
	echo "kernel tier: the kernel build exited with status $(cat "$logdir/kernel-build.rc" 2>/dev/null || echo unknown) ($(tail -n 2 "$logdir/kernel-build.log" | head -n 1))"
fi

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
