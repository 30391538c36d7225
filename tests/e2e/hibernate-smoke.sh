#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (or reuses) a hibernation fixture and prints its facts.
#   hibernate-smoke.sh [--kresume] ARCH KPKG [backports] [KERNEL_ARGS...]
#   env MEM (default 512), SMP (default 1)
# (FIXTURE_QEMU_ARGS: see tests/lib/fixture.sh)
# --kresume: then also resumes a copy of the fixture with the KERNEL's own resume
# path (efiresume in dry-run, the kernel told to resume from /dev/vda2) and checks
# what resumed.sh reports. That validates the fixture and the checks, not efiresume.
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"

kresume=0
[ "${1:-}" = --kresume ] && { kresume=1; shift; }
[ $# -ge 2 ] || { sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 2; }
arch=$1 kpkg=$2
shift 2
suite=
[ "${1:-}" = backports ] && { suite=backports; shift; }
args=("$@")

# a fixture name that tells the parameters apart
tag=$(echo "$kpkg $suite ${MEM:-512} ${SMP:-1} ${args[*]} $(fixture_qemu_args "$arch")" | md5sum | cut -c1-8)
name=smoke-$arch-${kpkg//[:\/]/_}${suite:+-$suite}-$tag

make_fixture "$name" "$arch" "$kpkg" $suite -- "${args[@]}"
dir=$(fixture_dir "$name")
echo "fixture $dir:"
sed 's/^/  /' "$dir/facts"

[ $kresume -eq 1 ] || exit 0

# --- the kernel's own resume path, on a copy
d=$(scratch "hibernate-smoke-kresume-$name")
copy_fixture "$name" "$d"
{ echo "dry-run yes"; sed 's/^options .*/& efiresume_kresume/' "$dir/efiresume.conf"; } > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
rc=0
t0=$(date +%s.%N)
MEM=$(fixture_fact "$dir" mem) SMP=$(fixture_fact "$dir" smp) \
	run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/serial.log" 300 $(fixture_fact "$dir" qemu_args) || rc=$?
t1=$(date +%s.%N)
echo "kernel resume boot: qemu exit status $rc after $(fmt_secs "$t0" "$t1") s"
ok=0
[ $rc -eq 0 ] || ok=1
token=$(fixture_fact "$dir" token) md5=$(fixture_fact "$dir" md5)
expect "$d/serial.log" '^EFIRESUME-TEST: kernel resume from ' "kernel asked to resume" || ok=1
expect "$d/serial.log" '^EFIRESUME-TEST: resumed$' "resumed" || ok=1
expect "$d/serial.log" "^EFIRESUME-TEST: token-after=$token\$" "same token" || ok=1
expect "$d/serial.log" "^EFIRESUME-TEST: md5-after=$md5\$" "same data" || ok=1
l=$(grep -a '^EFIRESUME-TEST: counter ' "$d/serial.log.txt" || true)
if [[ $l =~ counter\ ([0-9]+)\ -\>\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[2]}" -gt "${BASH_REMATCH[1]}" ]; then
	pass "${l#EFIRESUME-TEST: }"
else
	fail "counter stopped: '$l'"
fi
expect "$d/serial.log" '^EFIRESUME-TEST: swap-reusable=yes$' "swap reusable" || ok=1
expect "$d/serial.log" '^EFIRESUME-TEST: efivars-read=yes$' "efivars read" || ok=1
expect "$d/serial.log" '^EFIRESUME-TEST: efivars-write=yes$' "efivars write" || ok=1
expect "$d/serial.log" '^EFIRESUME-TEST: disk-read=yes$' "disk read" || ok=1
expect "$d/serial.log" '^EFIRESUME-TEST: checks-done$' "checks done" || ok=1
grep -aE 'PM: (Read|Loading|Image loading|hibernation: (resume|Loading))|EFIRESUME-TEST: (swap-signature|efivar )' \
	"$d/serial.log.txt" | sed 's/^/  | /' || true
exit $ok
