#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soak of the first EFI variable write after a resume (issue 24 finding 8: a resumed Debian
# 13 hung once at its first efivarfs write under heavy host load). On the Debian 13 system
# of tests/lib/debian13.sh (Debian's 6.12, systemd 257) with the efiresume .deb installed
# as in tests/e2e/debian13.sh (dpkg -i, efiresume-install install: on-hibernate, the sleep
# hook sets BootNext):
#   debian13-varsoak.sh [resume|control]      (default resume)
#     resume   boot 1: install; CONTROL_WRITES variable cycles (below) in this fresh boot;
#              then CYCLES times: systemctl hibernate (QEMU exits), the firmware starts
#              efiresume through BootNext, it resumes; the resumed system at once creates a
#              new variable through efivarfs (printf '\007\0\0\0abc' > EfiresumeSoak-<guid>),
#              reads it back, chattr -i, deletes it, checks it is gone
#     control  CYCLES plain boots of the same system (no efiresume, no hibernation), each
#              doing the same variable cycle as its first own write
#   Environment: VARSOAK_CYCLES (default 2), VARSOAK_CONTROL_WRITES (resume mode: write
#   cycles in boot 1 before the first hibernation, default VARSOAK_CYCLES),
#   VARSOAK_STEP_TIMEOUT (guest: seconds per step, default 120; a step still running then
#   is a hang: the guest dumps the blocked task's stack and sysrq w/l), VARSOAK_SILENT
#   (host: seconds of serial silence before the registers are sampled over QMP, default
#   240), VARSOAK_KILL (host: seconds of silence before QEMU is stopped, default 600),
#   VARSOAK_LOAD=FROM-TO (host load: 2 busy loops at nice VARSOAK_NICE, default 5, during
#   QEMU runs FROM..TO), VARSOAK_SMM=1 (OVMF_CODE_4M.secboot.fd with SMM: the variable
#   driver in SMM, as distributions ship it; default the plain OVMF_CODE_4M.fd of the
#   other Debian cases, whose variable driver writes the flash directly).
#   The guest logs every step with its uptime on the serial console ("EFIRESUME-TEST: [T
#   up U] ...") and a heartbeat every 15 s; OVMF's debug port 0x402 goes to NAME.ovmf.log.
# Prints one line per cycle and a summary; exits non-zero on a hang or a failed step.
set -euo pipefail
. "$(dirname "$0")/../lib/debian13.sh"
mode=${1:-resume}
case $mode in resume|control) ;; *) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 2 ;; esac
cycles=${VARSOAK_CYCLES:-2}
cwrites=${VARSOAK_CONTROL_WRITES:-$cycles}
step_tmo=${VARSOAK_STEP_TIMEOUT:-120}
silent=${VARSOAK_SILENT:-240}
kill_after=${VARSOAK_KILL:-600}
nice_lvl=${VARSOAK_NICE:-5}
load=${VARSOAK_LOAD:-}
[[ $cycles =~ ^[1-9][0-9]*$ ]] || die "VARSOAK_CYCLES must be a positive number"
ok=0

# VARSOAK_SMM=1: the SMM build of OVMF (tests/lib's _deb_qemu takes the code from
# ovmf_code, redefined here rather than changed there)
EXTRA_QEMU=()
if [ "${VARSOAK_SMM:-0}" = 1 ]; then
	ovmf_code() { echo /usr/share/OVMF/OVMF_CODE_4M.secboot.fd; }
	EXTRA_QEMU+=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on)
fi

VGUID=7e3c1a52-9d4b-4f60-8a2e-5b1c0d9e8f71

# the guest's variable cycle (sent ahead of every boot's commands)
guest_lib() {
	cat <<EOF
STEP_TMO=$step_tmo
V=/sys/firmware/efi/efivars/EfiresumeSoak-$VGUID
EOF
	cat <<'EOF'
dmesg -n 8 2>/dev/null
echo 1 > /proc/sys/kernel/sysrq
# slog TEXT: a line with the wall clock and the uptime
slog() { printf 'EFIRESUME-TEST: [%s up %s] %s\n' "$(date +%T.%3N)" "$(cut -d' ' -f1 /proc/uptime)" "$*"; }
# a heartbeat on the console every 15 s (stops when the whole guest stops)
heartbeat() {
	( while :; do sleep 15; printf 'EFIRESUME-TEST: hb up %s at %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$(cat $T/step 2>/dev/null)" > /dev/ttyS0; done ) &
}
# hang_dump PID: what the hung step waits for
hang_dump() {
	slog "hang: /proc/$1: state $(sed -n 's/^State:\t//p' /proc/$1/status 2>/dev/null) wchan $(cat /proc/$1/wchan 2>/dev/null)"
	sed 's/^/EFIRESUME-TEST: hang-stack: /' /proc/$1/stack 2>/dev/null
	for p in /proc/[0-9]*; do
		[ "$(sed -n 's/^State:\t\(.\).*/\1/p' $p/status 2>/dev/null)" = D ] || continue
		slog "D task ${p#/proc/} $(cat $p/comm 2>/dev/null)"
		sed 's/^/EFIRESUME-TEST: D-stack: /' $p/stack 2>/dev/null
	done
	echo w > /proc/sysrq-trigger
	echo l > /proc/sysrq-trigger
}
# vstep LABEL STEP CMD...: CMD in the background, polled; prints its time; 124 when it
# still runs after STEP_TMO seconds (the process may be unkillable: not waited for)
vstep() {
	local label=$1 st=$2 t0 pid i=0 rc ms
	shift 2
	echo "$label $st" > $T/step
	t0=$(date +%s%N)
	"$@" > $T/step.out 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null && [ $i -lt $((STEP_TMO * 10)) ]; do i=$((i + 1)); sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		slog "HANG $label $st: still running after ${STEP_TMO}s"
		hang_dump $pid
		say "varsoak-hang=$label-$st"
		return 124
	fi
	wait $pid; rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	slog "$label $st rc=$rc ${ms}ms $(head -c 120 $T/step.out | tr '\n' ' ')"
	echo "$label $st done" > $T/step
	return $rc
}
# var_cycle LABEL: create, read back, chattr -i, delete, gone
var_cycle() {
	local l=$1 t0 ms
	t0=$(date +%s%N)
	[ ! -e $V ] || { chattr -i $V; rm -f $V; }
	vstep $l create sh -c "printf '\\007\\000\\000\\000abc' > $V" || { say "varsoak-fail=$l-create"; return 1; }
	vstep $l read sh -c "od -An -tx1 $V | tr -s ' \n' ' ' | grep -qx ' 07 00 00 00 61 62 63 '" || { say "varsoak-fail=$l-read"; return 1; }
	vstep $l chattr chattr -i $V || { say "varsoak-fail=$l-chattr"; return 1; }
	vstep $l delete rm $V || { say "varsoak-fail=$l-delete"; return 1; }
	vstep $l gone sh -c "! ls /sys/firmware/efi/efivars | grep -q EfiresumeSoak" || { say "varsoak-fail=$l-gone"; return 1; }
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	say "varsoak-ok=$l ${ms}ms"
}
# the firmware's runtime regions (where a RIP inside the firmware would be)
rt_map() {
	local r
	for r in /sys/firmware/efi/runtime-map/*/; do
		say "rt-map: type $(cat $r/type) phys $(cat $r/phys_addr) virt $(cat $r/virt_addr) pages $(cat $r/num_pages)"
	done 2>/dev/null
}
EOF
}

d=$(scratch "debian13-varsoak-$mode")
deb_fixture
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry); OVMF $(ovmf_code x64)"
deb=$(deb_file) || exit 1
echo "package: $deb"
cp "$deb" "$d/fwcfg/efiresume.deb"

# --- host load ---------------------------------------------------------------
load_pids=()
load_on() {
	[ ${#load_pids[@]} -eq 0 ] || return 0
	local i
	for i in 1 2; do nice -n "$nice_lvl" bash -c 'while :; do :; done' & load_pids+=($!); done
	echo "  host load on: 2 busy loops at nice $nice_lvl (pids ${load_pids[*]})"
}
load_off() {
	[ ${#load_pids[@]} -gt 0 ] || return 0
	kill "${load_pids[@]}" 2>/dev/null || true
	wait "${load_pids[@]}" 2>/dev/null || true
	echo "  host load off (pids ${load_pids[*]})"
	load_pids=()
}
trap 'load_off; rm -f "$d"/*.sock' EXIT
load_for() {   # RUN-NUMBER
	[ -n "$load" ] || return 0
	if [ "$1" -ge "${load%-*}" ] && [ "$1" -le "${load#*-}" ]; then load_on; else load_off; fi
}

# --- QMP and the watcher ------------------------------------------------------
# qmp SOCK CMD...: each CMD a human monitor command, or "sendkey a-b-c"
qmp() {
	python3 - "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1]); f = s.makefile('rw')
def rd():
    while True:
        m = json.loads(f.readline())
        if 'event' not in m:
            return m
def cmd(c):
    f.write(json.dumps(c) + "\n"); f.flush(); return rd()
rd(); cmd({"execute": "qmp_capabilities"})
for c in sys.argv[2:]:
    if c.startswith("sendkey "):
        r = cmd({"execute": "send-key", "arguments": {"keys": [{"type": "qcode", "data": k} for k in c.split()[1].split("-")], "hold-time": 200}})
    elif c == "quit":
        r = cmd({"execute": "quit"})
    else:
        r = cmd({"execute": "human-monitor-command", "arguments": {"command-line": c}})
    print("(qemu) " + c)
    print(r["return"] if isinstance(r.get("return"), str) else json.dumps(r))
PY
}
# diagnose SOCK LOG OUT: registers, RIP samples, instructions at RIP; sysrq w, l over the
# keyboard when the guest's Linux is running (its last line is the test's)
diagnose() {
	local sock=$1 log=$2 out=$3 i
	{
		echo "=== $(date -u +%T) after ${silent}s of serial silence; host load $(cut -d' ' -f1-3 /proc/loadavg)"
		qmp "$sock" "info status" "info cpus" "info registers" "x/12i \$pc" || true
		echo "--- RIP samples (1 s apart)"
		for i in $(seq 10); do
			qmp "$sock" "info registers" 2>/dev/null | grep -o 'RIP=[0-9a-f]*' | head -1 || true
			sleep 1
		done
		if tail -5 "$log" | grep -aq 'EFIRESUME-TEST:'; then
			echo "--- sysrq w, l over the keyboard"
			qmp "$sock" "sendkey alt-sysrq-w" || true
			sleep 5
			qmp "$sock" "sendkey alt-sysrq-l" || true
		fi
	} >> "$out" 2>&1
}
# watch NAME: runs beside a boot; on VARSOAK_SILENT seconds of silence diagnoses, on
# VARSOAK_KILL seconds stops QEMU (diagnosed again first)
watch_boot() {
	local name=$1 log=$d/$1.log sock=$d/qmp.sock out=$d/$1.hang.txt last=-1 since sz n=0 stage=0
	since=$(date +%s)
	while [ ! -e "$d/.stop" ]; do
		sleep 5
		sz=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$sz" != "$last" ]; then last=$sz; since=$(date +%s); stage=0; continue; fi
		n=$(( $(date +%s) - since ))
		if [ $stage = 0 ] && [ $n -ge "$silent" ]; then
			stage=1; diagnose "$sock" "$log" "$out"
			echo "  [watch] $name: ${n}s silent, diagnosed ($out)" >&2
		elif [ $stage = 1 ] && [ $n -ge "$kill_after" ]; then
			stage=2; diagnose "$sock" "$log" "$out"
			qmp "$sock" quit >> "$out" 2>&1 || true
			echo "  [watch] $name: ${n}s silent, QEMU stopped" >&2
		fi
	done
}
# vboot NAME SCRIPT: one QEMU run (deb_boot) with QMP, the debug port, the watcher
vboot() {
	local name=$1 script=$2 wpid
	rm -f "$d/.stop" "$d/qmp.sock"
	watch_boot "$name" & wpid=$!
	deb_boot "$d" "$name" "$DEB_TIMEOUT" "$script" \
		-qmp unix:"$d/qmp.sock",server=on,wait=off \
		-debugcon file:"$d/$name.ovmf.log" -global isa-debugcon.iobase=0x402 "${EXTRA_QEMU[@]}"
	touch "$d/.stop"; wait $wpid 2>/dev/null || true
}
# ms_of NAME LABEL STEP: a step's milliseconds in a boot's log
ms_of() { sed -nE "s/.*EFIRESUME-TEST: \[[^]]*\] $2 $3 rc=0 ([0-9]+)ms.*/\\1/p" "$d/$1.log.txt" | tail -1; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; else print "-" }'; }

: > "$d/cycles.txt"
passes=0 hangs=0 fails=0 ran=0
t_start=$(date +%s.%N)

if [ $mode = control ]; then
	{ guest_lib; cat <<'EOF'
heartbeat
slog "fresh boot: $(uname -r), BootCurrent $(efibootmgr | sed -n 's/^BootCurrent: //p')"
var_cycle control
EOF
	} > "$d/control.sh"
	for ((c = 1; c <= cycles; c++)); do
		load_for $c
		la=$(cut -d' ' -f1-3 /proc/loadavg)
		vboot "boot$c" "$d/control.sh"
		ran=$((ran + 1))
		cr=$(ms_of "boot$c" control create)
		if grep -aq 'EFIRESUME-TEST: varsoak-ok=control' "$d/boot$c.log.txt" && [ "$DEB_RC" = 0 ]; then
			passes=$((passes + 1)); r=pass
		elif grep -aq 'varsoak-hang=' "$d/boot$c.log.txt" || [ "$DEB_RC" != 0 ]; then
			hangs=$((hangs + 1)); r="HANG (QEMU status $DEB_RC)"
		else
			fails=$((fails + 1)); r=FAIL
		fi
		echo "cycle $c: $r; boot $DEB_SECS s; create ${cr:-?} ms; host load $la" | tee -a "$d/cycles.txt"
		[ "$r" = pass ] || { ok=1; break; }
	done
else
	{ guest_lib; echo "N=$cycles CW=$cwrites"; cat <<'EOF'
heartbeat
slog "fresh boot: $(uname -r)"
rt_map
run dpkg -i $IN/efiresume.deb
run efiresume-install install
say "er-entry=$(er_entry)"
for i in $(seq $CW); do var_cycle fresh-$i || break; done
for c in $(seq $N); do
	slog "cycle $c: hibernating"
	hibernate_wait 900 || { say "varsoak-fail=cycle-$c-hibernate"; break; }
	slog "cycle $c: resumed (BootCurrent $(efibootmgr | sed -n 's/^BootCurrent: //p'))"
	var_cycle cycle-$c || break
done
say "varsoak-end"
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/fresh.sh"
	load_for 0
	echo "boot 1 (install, $cwrites write cycles in the fresh boot, hibernate): host load $(cut -d' ' -f1-3 /proc/loadavg)"
	vboot boot1 "$d/boot1.sh"
	expect "$d/boot1.log" 'EFIRESUME-TEST: efiresume-install-status=0' "efiresume-install install" || ok=1
	er=$(deb_val "$d" boot1 er-entry)
	nf=$(grep -ac 'EFIRESUME-TEST: varsoak-ok=fresh-' "$d/boot1.log.txt" || true)
	[ "$nf" = "$cwrites" ] && echo "  ok: $nf write cycles in the fresh boot (no resume)" || { echo "  WRONG: $nf of $cwrites write cycles in the fresh boot"; ok=1; }
	echo "  fresh-boot create times (ms): $(for i in $(seq $cwrites); do ms_of boot1 fresh-$i create; done | paste -sd' ')"
	expect "$d/boot1.log" 'PM: hibernation: Wrote [0-9]+ kbytes' "hibernated (cycle 1)" || { ok=1; cycles=0; }
	for ((c = 1; c <= cycles; c++)); do
		load_for $c
		la=$(cut -d' ' -f1-3 /proc/loadavg)
		vboot "run$c" "$d/fresh.sh"
		ran=$((ran + 1))
		L=$d/run$c.log.txt
		cr=$(ms_of "run$c" "cycle-$c" create)
		why=
		grep -aq "BdsDxe: starting Boot$er" "$L" || why="$why; the firmware did not start Boot$er"
		grep -aq 'efiresume: .*handing off' "$L" || why="$why; efiresume did not hand off"
		! grep -aq 'EFIRESUME-TEST: fresh-boot' "$L" || why="$why; a fresh boot, not a resume"
		if grep -aq 'varsoak-hang=' "$L" || [ "$DEB_RC" = 124 ] || [ "$DEB_RC" = 137 ] || [ -s "$d/run$c.hang.txt" ] && ! grep -aq "EFIRESUME-TEST: varsoak-ok=cycle-$c " "$L"; then
			hangs=$((hangs + 1)); r="HANG (QEMU status $DEB_RC; last step: $(grep -a 'EFIRESUME-TEST: \[' "$L" | tail -1 | tr -d '\r'))"
		elif [ -z "$why" ] && grep -aq "EFIRESUME-TEST: varsoak-ok=cycle-$c " "$L" && [ "$DEB_RC" = 0 ]; then
			passes=$((passes + 1)); r=pass
		else
			fails=$((fails + 1)); r="FAIL${why:- (status $DEB_RC)}"
		fi
		resumed_up=$(sed -nE "s/.*EFIRESUME-TEST: \[[^ ]* up ([0-9.]+)\] cycle $c: resumed.*/\\1/p" "$L" | tail -1)
		echo "cycle $c: $r; QEMU run $DEB_SECS s; first write (create) ${cr:-?} ms; whole var cycle $(sed -nE "s/.*varsoak-ok=cycle-$c ([0-9]+)ms.*/\\1/p" "$L") ms; guest uptime at resume ${resumed_up:-?}; host load $la" | tee -a "$d/cycles.txt"
		[ "$r" = pass ] || { ok=1; break; }
		if [ $c -lt $cycles ]; then
			grep -aqE 'PM: hibernation: Wrote [0-9]+ kbytes' "$L" || { echo "  WRONG: run $c did not hibernate again"; ok=1; break; }
		else
			grep -aq 'EFIRESUME-TEST: varsoak-end' "$L" || { echo "  WRONG: the script did not end"; ok=1; }
		fi
	done
fi
load_off
t_end=$(date +%s.%N)
for f in "$d"/*.ovmf.log; do [ -s "$f" ] && echo "  OVMF debug log: $f ($(wc -l < "$f") lines)"; done
med_run=$(sed -nE 's/.*(QEMU run|boot) ([0-9.]+) s;.*/\2/p' "$d/cycles.txt" | median)
med_cr=$(sed -nE 's/.*create\)? ([0-9]+) ms.*/\1/p' "$d/cycles.txt" | median)
echo "varsoak $mode$([ "${VARSOAK_SMM:-0}" = 1 ] && echo ' (SMM)'): $ran of ${VARSOAK_CYCLES:-2} cycles run, $passes passed, $hangs hung, $fails failed; median QEMU run $med_run s, median first write $med_cr ms; $(fmt_secs "$t_start" "$t_end") s in all; $d"
[ $passes = "${VARSOAK_CYCLES:-2}" ] || ok=1
exit $ok
