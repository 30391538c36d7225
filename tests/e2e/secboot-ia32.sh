#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume-ia32 under Secure Boot (issue 17: "make sign signs both binaries ... it runs under
# Secure Boot"): 32-bit OVMF (OVMF32_CODE_4M.secboot.fd, q35 with SMM and secure pflash, as
# every ia32 test runs) with OVMF32_VARS_4M.fd enrolled with the snakeoil certificate as PK, KEK
# and db, Secure Boot on (sb_new_vars_ia32, tests/lib/secboot.sh); the kernel is Debian 12's
# 686 kernel (6.1), its Debian signature replaced by the snakeoil key's.
#   secboot-ia32.sh CASE
#   signed            the signed efiresume-ia32 starts and sees Secure Boot; it makes the
#                     hibernation key (NV|BS, 32 bytes, read from the VARS file on the host;
#                     invisible in the guest's efivarfs), installs the key table and starts the
#                     signed i386 kernel, which runs with SecureBoot=1 and is locked down; a
#                     second boot reads the same key
#   unsigned          the unsigned efiresume-ia32 is not started by the firmware (Access Denied)
#   fallback-unsigned the signed efiresume asks the firmware to start the kernel with Debian's
#                     signature (not in db): refused with efiresume's clear line
#   not-enrolled      the signed efiresume and kernel of `signed` on the plain OVMF32_VARS_4M.fd
#                     (no keys, Secure Boot off): efiresume runs but claims no Secure Boot, makes
#                     no key, the kernel sees SecureBoot=0 and no lockdown
# SB_IA32_ENROLL=0 runs any case on the plain store (the control: `signed` must then fail).
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: signed unsigned fallback-unsigned not-enrolled}
d=$(scratch "secboot-ia32-$case")
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 ||
	{ echo "  make sign failed"; exit 1; }

kdir=$(kernel_dir linux-image-686:i386)
sb_guest ia32 "$kdir"
efi=$BUILD/efiresume-ia32.signed.efi
[ "$case" = unsigned ] && efi=$BUILD/efiresume-ia32.efi
kernel=$d/vmlinuz.efi
if [ "$case" = fallback-unsigned ]; then
	cp "$(kernel_image "$kdir")" "$kernel"    # Debian's signature, not in the snakeoil db
else
	sb_sign "$d/snakeoil.key" "$(kernel_image "$kdir")" "$kernel"
fi
echo "  efiresume: $(basename "$efi") ($(sbverify --list "$efi" 2>/dev/null | grep -c '^signature [0-9]') signature(s));" \
	"kernel: $(sbverify --list "$kernel" 2>/dev/null | sed -n 's/^ - subject: //p' | head -1)"
make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$efi" ::/EFI/BOOT/BOOTIA32.EFI
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$d/disk.img" "$kernel" ::/vmlinuz.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
before=$(swap_sig "$d/disk.img")
if [ "$case" = not-enrolled ] || [ "${SB_IA32_ENROLL:-1}" = 0 ]; then
	new_vars ia32 "$d/vars.fd"
	echo "  variable store: plain OVMF32_VARS_4M.fd (no keys)"
else
	sb_new_vars_ia32 "$d/vars.fd"
	echo "  variable store: OVMF32_VARS_4M.fd + snakeoil PK/KEK/db, Secure Boot on"
fi

boot() {   # boot N TIMEOUT
	local rc=0 t0=$SECONDS
	run_qemu ia32 "$d/disk.img" "$d/vars.fd" "$d/serial$1.log" "$2" -device virtio-rng-pci || rc=$?
	echo "  boot $1: qemu exit status $rc ($((SECONDS - t0)) s)"
	# unsigned and fallback-unsigned end in the firmware's menu: a timeout is expected there
	[ $rc -ne 124 ] || [ "$case" = unsigned ] || [ "$case" = fallback-unsigned ] || fail "QEMU timed out"
}
ok=0
L=$d/serial1.log
case $case in
unsigned)
	QEMU_STOP_AT='BdsDxe: failed to load Boot[0-9A-F]+ .*: (Access Denied|Security Violation)' boot 1 30
	expect_not "$L" "efiresume: efiresume .* started" "the unsigned efiresume never started" || ok=1
	expect "$L" 'BdsDxe: failed to load Boot[0-9A-F]+ .*: (Access Denied|Security Violation)' "the firmware refused it" || ok=1
	;;
signed)
	boot 1 150
	expect "$L" "efiresume: efiresume .* \(ia32\) started" "the signed efiresume-ia32 started" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "it saw Secure Boot (SecureBoot=1)" || ok=1
	expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot \(EFI_RNG_PROTOCOL(, no RDRAND| and RDRAND)\) is stored in EfiresumeHibernationKeyV2 \(NV\|BS\)" "a key for this boot, stored (NV|BS)" || ok=1
	expect "$L" "efiresume: Secure Boot: this boot's key is offered to the kernel through the key protocol" "the key offered through the protocol (not pushed)" || ok=1
	expect "$L" "EFIRESUME-TEST: booted .* i686\$" "the signed i386 kernel started" || ok=1
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "with efiresume's command line" || ok=1
	expect "$L" "EFIRESUME-TEST: secureboot=1 lockdown=.*\[(integrity|confidentiality)\]" "the kernel runs under Secure Boot, locked down" || ok=1
	expect "$L" "EFIRESUME-TEST: efivars readable: [1-9]" "efivarfs works in the guest" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume variables visible: \[\]" "EfiresumeHibernationKeyV2 is not visible to the OS" || ok=1
	a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV2)
	if [ "$a" = "attrs=0x3 size=32" ]; then pass "in the VARS file: $a"; else fail "EfiresumeHibernationKeyV2 in the VARS file: $a"; fi
	k1=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)
	boot 2 150
	expect "$d/serial2.log" "efiresume: Secure Boot: a new hibernation key for this boot .* the previous one verifies this boot's image only" "boot 2: a fresh key; the previous one read" || ok=1
	k2=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)
	[ "$k1" != "$k2" ] && [ ${#k2} = 64 ] && pass "the stored key changed from boot 1 to boot 2 (one key per boot)" || fail "the key did not change ($k1 -> $k2)"
	expect "$d/serial2.log" "EFIRESUME-TEST: marker=$marker\$" "boot 2 started the kernel" || ok=1
	;;
fallback-unsigned)
	QEMU_STOP_AT='efiresume: error: Secure Boot: the firmware refused to load' boot 1 40
	expect "$L" "efiresume: efiresume .* \(ia32\) started" "the signed efiresume-ia32 started" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "it saw Secure Boot" || ok=1
	expect "$L" 'efiresume: error: Secure Boot: the firmware refused to load .*vmlinuz.efi \(not signed by a key in db, or revoked in dbx\): (Security Violation|Access Denied)' "the Debian-signed fallback refused with a clear line" || ok=1
	expect_not "$L" "EFIRESUME-TEST: marker" "the kernel never ran" || ok=1
	;;
not-enrolled)
	boot 1 150
	expect "$L" "efiresume: efiresume .* \(ia32\) started" "the signed efiresume-ia32 started" || ok=1
	expect_not "$L" "efiresume: Secure Boot" "it claims no Secure Boot, makes no key" || ok=1
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "the kernel started" || ok=1
	expect "$L" "EFIRESUME-TEST: secureboot=0 lockdown=.*\[none\]" "the kernel sees SecureBoot=0, no lockdown" || ok=1
	a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV2)
	if [ "$a" = absent ]; then pass "no EfiresumeHibernationKeyV2 in the VARS file"; else fail "EfiresumeHibernationKeyV2 in the VARS file: $a"; fi
	;;
*) echo "  unknown case $case"; exit 2 ;;
esac
after=$(swap_sig "$d/disk.img")
if [ "$before" = "$after" ]; then pass "swap signature untouched ($after)"; else fail "changed: swap signature $before -> $after"; fi
exit $ok
