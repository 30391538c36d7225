#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume finds no image and starts the configured fallback (a real Debian kernel
# with its EFI stub) with the configured command line.
#   fallback.sh ARCH CASE    CASE: noimage | signature | missing
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
arch=$1 case=$2
d=$(scratch "fallback-$arch-$case")

case $arch in
x64) kpkg=linux-image-cloud-amd64 ;;
ia32) kpkg=linux-image-686:i386 ;;
esac
kdir=$(kernel_dir $kpkg)
cat tests/e2e/init/prelude.sh tests/e2e/init/marker.sh > "$d/init" 2>/dev/null ||
	cat "$TOP"/tests/e2e/init/prelude.sh "$TOP"/tests/e2e/init/marker.sh > "$d/init"
make_initramfs "$arch" "$kdir" "$d/init" "$d/initrd.gz"

marker=m$RANDOM$RANDOM
fallback='\vmlinuz.efi'
[ "$case" = missing ] && fallback='\EFI\nowhere\missing.efi'
cat > "$d/efiresume.conf" <<CONF
# test configuration
timeout 0
fallback $fallback
options initrd=\\initrd.gz console=ttyS0 panic=-1 efiresume_marker=$marker
CONF
if [ "$case" = missing ]; then
	# what the firmware runs next: its UEFI shell runs startup.nsh and powers off
	printf 'echo "firmware moved on to its next boot option"\r\nreset -s\r\n' > "$d/startup.nsh"
fi

make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$(efi_boot_name "$arch")"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$d/disk.img" "$(kernel_image "$kdir")" ::/vmlinuz.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
[ -f "$d/startup.nsh" ] && esp_put "$d/disk.img" "$d/startup.nsh" ::/startup.nsh
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
[ "$case" = signature ] && set_swap_sig "$d/disk.img" S1SUSPEND
before=$(swap_sig "$d/disk.img")

new_vars "$arch" "$d/vars.fd"
rc=0
run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/serial.log" 180 || rc=$?
echo "  qemu exit status $rc"
ok=0
[ $rc -ne 124 ] || fail "QEMU timed out"
expect "$d/serial.log" "efiresume: efiresume .* \($arch\) started" "efiresume started" || ok=1
expect "$d/serial.log" "efiresume: configuration .*efiresume.conf read" "configuration read" || ok=1
case $case in
noimage)
	expect "$d/serial.log" "efiresume: swap PARTUUID=$SWAP_PARTUUID: no image" "swap reported without image" || ok=1
	expect "$d/serial.log" "EFIRESUME-TEST: marker=$marker\$" "fallback kernel got the command line" || ok=1
	;;
signature)
	expect "$d/serial.log" "efiresume: swap PARTUUID=$SWAP_PARTUUID: hibernation image signature found" "signature reported" || ok=1
	expect "$d/serial.log" "EFIRESUME-TEST: marker=$marker\$" "fallback kernel got the command line" || ok=1
	;;
missing)
	expect "$d/serial.log" 'efiresume: error: fallback .*missing.efi does not exist; returning to the firmware' "clear message" || ok=1
	expect_not "$d/serial.log" "EFIRESUME-TEST: marker" "no kernel started" || ok=1
	expect "$d/serial.log" 'BdsDxe: failed to start Boot[0-9A-F]+ .*: Not Found' "the firmware saw the error" || ok=1
	expect "$d/serial.log" '^firmware moved on to its next boot option' "the firmware's next boot option ran" || ok=1
	;;
esac
after=$(swap_sig "$d/disk.img")
if [ "$before" = "$after" ]; then pass "swap signature untouched ($after)"; else fail "changed: swap signature $before -> $after"; fi
exit $ok
