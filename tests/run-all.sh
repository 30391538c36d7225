#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the test suite and ends with one line "N passed, N failed".
#   tests/run-all.sh [GROUP...]   groups: unit fuzz e2e kernel seeds slow (default: unit fuzz
#                                 e2e, and kernel when the test kernel is cached; never slow:
#                                 make test-slow runs it);
#                                 kernel = tests/e2e/cases-kernel, the patched 6.12 kernel's
#                                 main cases: named, when the kernel is not cached its build
#                                 starts first, beside the other groups, and those cases
#                                 start once it has ended (make test-kernel); seeds = the e2e
#                                 cases of the 2004 format only; slow = tests/e2e/cases-slow)
# The default leaves the kernel tier out while its kernel is not built: the build alone is
# about 770 CPU-s (13 min on 2 cores), and with it a run from an empty cache took 36 min on 2
# cores, over the 30 the suite must fit in. The 6.12 series is still checked without it
# (kernel-6.12-mock-check, kernel-patch-mock-check in tests/e2e/cases).
# E2E cases run two at a time (QEMU under TCG is one busy thread per vCPU). Each case's line
# gives its wall time and its CPU time (user + sys of its processes, those waited for), the
# end the suite's: CPU is what a cold run on 2 cores is short of.
# Order: the longest first by the times of the last run ($CACHE/test-times), cases without a
# time first in list order (e2e, kernel, fuzz, unit: the short ones fill the end).
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$TOP"
groups=("$@")
# (for tests/host/test-run-all.sh: the kernel build, the case lists, the times file)
kbuild=${EFIRESUME_KBUILD:-tests/lib/kernel-build.sh}
if [ ${#groups[@]} -eq 0 ]; then
	groups=(unit fuzz e2e)
	if [ -f "$($kbuild --dir)/bzImage" ]; then
		groups+=(kernel)
	else
		echo "kernel tier (tests/e2e/cases-kernel) not run: the test kernel is not built; make test-kernel builds it (about 13 min on 2 cores) and runs the tier, and make test runs it from then on"
	fi
	echo "slow tier (tests/e2e/cases-slow) not run by make test: make test-slow builds what it needs and runs it"
fi
JOBS=${TEST_JOBS:-2}
kcases=${EFIRESUME_KERNEL_CASES:-tests/e2e/cases-kernel}
ecases=${EFIRESUME_E2E_CASES:-tests/e2e/cases}
scases=${EFIRESUME_SLOW_CASES:-tests/e2e/cases-slow}
timesfile=${EFIRESUME_TEST_TIMES:-$CACHE/test-times}
logdir="$BUILD/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"
TCK=$(getconf CLK_TCK)
# CPU=the CPU seconds (user + sys) of the children this shell has waited for (/proc fields
# 16, 17); not in $(...), which would read a new subshell's
child_cpu() { local st; read -r -a st < "/proc/$BASHPID/stat"; CPU=$(( (st[15] + st[16] + TCK / 2) / TCK )); }

cases=()
add() { cases+=("$1|$2|$3"); }   # group|name|command

# the kernel group: build the test kernel in the background when it is not cached (make kernel
# does the same in the foreground); its cases call tests/lib/kernel-build.sh, which waits on
# the build's lock and then finds the bzImage; they are started after the build has ended
kbuild_pid=
for g in "${groups[@]}"; do
	[ "$g" = kernel ] || continue
	kdir=$($kbuild --dir)
	if [ ! -f "$kdir/bzImage" ]; then
		echo "kernel tier: the test kernel is not cached; building it now beside the other tests ($logdir/kernel-build.log)"
		# its status goes to a file: the `wait -n` and `wait` below reap this job too, so
		# `wait $kbuild_pid` would find no child and say 127. Not niced (KERNEL_NICE): it is
		# the critical path of a cold run (about 900 CPU-s, then its cases); niced 10 it
		# took only what the cases left and ended 35 min into a 38-min suite
		( nice -n "${KERNEL_NICE:-0}" $kbuild > "$logdir/kernel-build.log" 2>&1; rc=$?; child_cpu
		  echo "$rc $CPU" > "$logdir/kernel-build.rc.tmp"; mv "$logdir/kernel-build.rc.tmp" "$logdir/kernel-build.rc" ) &
		kbuild_pid=$!
		# let it take its lock before any case asks for the kernel
		for _ in $(seq 50); do [ -e "$kdir/.lock" ] && break; sleep 0.2; done
	fi
done

for g in "${groups[@]}"; do
	case $g in
	unit)
		# (test_tpm_swtpm and test_tpm_unseal_swtpm need a TPM: tests/host/test-tpm-swtpm.sh
		# starts swtpm and runs them)
		for t in "$BUILD"/unit/test_* "$BUILD"/unit-O2/test_*; do
			[ -x "$t" ] || continue
			case ${t##*/} in test_tpm_swtpm|test_tpm_unseal_swtpm) continue ;; esac
			add unit "${t#"$BUILD"/}" "$t"
		done ;;
	fuzz)
		# the smoke run: each target replays its whole corpus (the cache's, and the seeds),
		# then mutates for the rest of FUZZ_SMOKE_SECONDS (make fuzz: 60 s each). From the seeds
		# alone 5 s reached 96-98% of the edges 15 s did (config 551/560, lvm 1604/1642,
		# location 787/815, json 686/714), a replay of the cache's ~3000 units ~1 s of CPU
		for f in "$BUILD"/fuzz/fuzz_*; do [ -x "$f" ] && add fuzz "fuzz/$(basename "$f")" "tests/fuzz/run.sh ${FUZZ_SMOKE_SECONDS:-5} $(basename "$f")"; done ;;
	e2e|seeds|slow|kernel)
		# "seeds" runs only the cases of the seeds' 2004 format (names seeds-*)
		list=$ecases
		[ "$g" = slow ] && list=$scases
		[ "$g" = kernel ] && list=$kcases
		while read -r name cmd; do
			case $name in ''|'#'*) continue ;; esac
			[ "$g" = seeds ] && [[ $name != seeds-* ]] && continue
			add "$g" "e2e/$name" "$cmd"
		done < "$list" ;;
	*) echo "unknown group $g" >&2; exit 2 ;;
	esac
done

# the order of the run: the last run's wall times (name secs cpu), longest first; cases
# without one first, in the order of the groups e2e seeds slow kernel fuzz unit
declare -A last_secs
if [ -r "$timesfile" ]; then
	while read -r n s _; do [[ $s =~ ^[0-9]+$ ]] && last_secs[$n]=$s; done < "$timesfile"
fi
rank() { case $1 in e2e|seeds|slow) echo 0 ;; kernel) echo 1 ;; fuzz) echo 2 ;; *) echo 3 ;; esac; }
queue=()
i=0
while read -r _ _ _ c; do queue+=("$c"); done < <(
	for c in "${cases[@]}"; do
		g=${c%%|*} rest=${c#*|}; n=${rest%%|*}
		if [ -n "${last_secs[$n]:-}" ]; then printf '1 %08d %06d %s\n' $((99999999 - last_secs[$n])) $i "$c"
		else printf '0 %08d %06d %s\n' "$(rank "$g")" $i "$c"; fi
		i=$((i + 1))
	done | sort -k1,1n -k2,2n -k3,3n)

run_case() {
	local name=$1 cmd=$2 log="$logdir/${1//\//_}.log" t0=$SECONDS
	EFIRESUME_CASE=$name bash -c "$cmd" > "$log" 2>&1
	local rc=$?
	child_cpu
	echo "$rc $((SECONDS - t0)) $CPU" > "$log.rc"
}

# the jobs running now, not counting the kernel build (it takes no slot)
nrunning() { jobs -rp | grep -vxF "${kbuild_pid:-none}" | wc -l; }
kbuild_running() { [ -n "$kbuild_pid" ] && [ ! -e "$logdir/kernel-build.rc" ] && kill -0 "$kbuild_pid" 2>/dev/null; }
# once only its cases are left to start, the kernel build is the critical path: not niced
reniced=
renice_kbuild() {
	local q tree=("$kbuild_pid") i=0
	while [ $i -lt ${#tree[@]} ]; do
		for q in $(pgrep -P "${tree[$i]}"); do tree+=("$q"); done
		i=$((i + 1))
	done
	renice --priority 0 -p "${tree[@]}" > /dev/null 2>&1 || true
	echo "kernel tier: only its cases are left to start: the kernel build no longer niced"
}

start=$SECONDS
while [ ${#queue[@]} -gt 0 ]; do
	if [ "$(nrunning)" -ge "$JOBS" ]; then wait -n; continue; fi
	# the first case that can start: the kernel tier's once the build has ended
	pick=-1
	for i in "${!queue[@]}"; do
		if [ "${queue[$i]%%|*}" = kernel ] && kbuild_running; then continue; fi
		pick=$i; break
	done
	if [ "$pick" -lt 0 ]; then
		# nothing but the kernel's cases, waiting for the build
		[ -n "$reniced" ] || { renice_kbuild; reniced=1; }
		wait -n; continue
	fi
	c=${queue[$pick]}
	queue=("${queue[@]:0:$pick}" "${queue[@]:$((pick + 1))}")
	rest=${c#*|}; name=${rest%%|*} cmd=${rest#*|}
	echo "RUN   $name"
	run_case "$name" "$cmd" &
done
wait
kcpu=0
if [ -n "$kbuild_pid" ]; then
	read -r krc kcpu < "$logdir/kernel-build.rc" 2>/dev/null || { krc=unknown; kcpu=0; }
	echo "kernel tier: the kernel build exited with status $krc ($(tail -n 2 "$logdir/kernel-build.log" | head -n 1)), cpu ${kcpu}s"
fi

passed=0 failed=0 failures=() ccpu=0
: > "$logdir/times"
for c in "${cases[@]}"; do
	rest=${c#*|}; name=${rest%%|*}
	log="$logdir/${name//\//_}.log"
	read -r rc secs cpu < "$log.rc" || { rc=99; secs=0; cpu=0; }
	ccpu=$((ccpu + cpu))
	echo "$name $secs $cpu" >> "$logdir/times"
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1)); echo "PASS  $name (${secs}s, cpu ${cpu}s)"
	else
		failed=$((failed + 1)); failures+=("$name"); echo "FAIL  $name (${secs}s, cpu ${cpu}s, status $rc)"
		sed 's/^/      /' "$log" | tail -60
	fi
done
# the times of this run order the next one (kept for the cases of this run, others left)
if [ -r "$timesfile" ]; then
	awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' "$logdir/times" "$timesfile" > "$timesfile.tmp" 2>/dev/null \
		&& mv "$timesfile.tmp" "$timesfile"
else
	cp "$logdir/times" "$timesfile" 2>/dev/null || true
fi
wall=$((SECONDS - start))
child_cpu; total=$CPU
echo "suite took ${wall} s; cpu ${total} s (cases ${ccpu} s, kernel build ${kcpu} s), $(awk -v c="$total" -v w="$wall" 'BEGIN { printf "%.2f", w ? c / w : 0 }') cores busy on average of $(nproc); logs in $logdir"
[ $failed -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
