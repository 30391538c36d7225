#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: the whole story on x86_64 in QEMU + OVMF.
#   1. boot: efiresume finds no image and starts a real Debian kernel (the fallback);
#      it puts a token, 48 MiB of random data and a running counter in memory and hibernates
#   2. boot: efiresume verifies the image, loads it and hands off; the kernel continues
# Then it prints what was resumed and how long each phase took.
set -euo pipefail
. "$(dirname "$0")/lib/fixture.sh"
KPKG=${DEMO_KPKG:-linux-image-cloud-amd64}
name=demo-x64
show() { grep -aE "$1" "$2" | sed 's/^/    | /'; }

echo "== boot 1: efiresume finds no image, starts $KPKG, which hibernates"
t0=$(date +%s.%N)
make_fixture "$name" x64 "$KPKG" > /dev/null
fx=$(fixture_dir "$name")
show '^efiresume: |EFIRESUME-TEST: (booted|token|md5|hibernating)|PM: .*(Wrote|Need to copy)' "$fx/serial.log.txt"

echo
echo "== boot 2: efiresume resumes the image"
d=$(scratch demo)
copy_fixture "$name" "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-x64.efi" ::/EFI/BOOT/BOOTX64.EFI
s=$(date +%s.%N)
run_qemu x64 "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 240 || true
e=$(date +%s.%N)
clean_log "$d/boot2.log" > "$d/boot2.log.txt"
show '^efiresume: |EFIRESUME-TEST: ' "$d/boot2.log.txt"

echo
echo "== what happened"
tok=$(fixture_fact "$fx" token)
if grep -aq "token-after=$tok" "$d/boot2.log.txt" && grep -aq "md5-after=$(fixture_fact "$fx" md5)" "$d/boot2.log.txt"; then
	echo "    resumed: $(fixture_fact "$fx" uname), token $tok and the md5 of its 48 MiB file are the same after resume"
else
	echo "    NOT resumed: see $d/boot2.log.txt"
	exit 1
fi
"$BUILD/swsusp-inspect" "$fx/disk.img" | sed -n 's/^\(arch\|compression\|image pages\|stored\|uncompressed\):/    \1:/p'
grep -aE '^efiresume: (plan|timing):' "$d/boot2.log.txt" | sed 's/^efiresume: /    /'
awk -v a="$s" -v b="$e" 'BEGIN { printf "    boot 2 took %.1f s from QEMU start to power-off (TCG; the firmware alone takes ~4 s)\n", b - a }'
