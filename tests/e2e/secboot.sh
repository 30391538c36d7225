#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume under Secure Boot (OVMF secboot, snakeoil keys; tests/lib/secboot.sh), x64.
#   secboot.sh CASE
#   signed            the signed efiresume starts; it makes the hibernation key (variable NV|BS,
#                     32 bytes, read from the VARS file on the host; invisible in the guest's
#                     efivarfs), installs the key table and starts a signed kernel; a second
#                     boot reads the same key
#   unsigned          the unsigned efiresume is not started by the firmware (Access Denied)
#   fallback-unsigned the signed efiresume asks the firmware to start a kernel that is not
#                     signed by db (Debian's own signature): refused with a clear line
#   untagged          an image signature without an auth block: refused under Secure Boot
#                     (reason-code auth), the swap signature kept, the fallback started
#   tagged            a real image (6.1, uncompressed) hibernated under the same firmware code
#                     with Secure Boot off, then tagged on the host by tests/lib/secboot-tag.py
#                     (a reference of the kernel side) with the key efiresume made: a copy with
#                     one flipped data byte is refused (tag), the tagged one is resumed under
#                     Secure Boot and the key rotated; the same image again is refused (key id)
#   baseline          what the kernel patch changes (issue 17): Debian's unpatched kernel (6.1; its
#                     Debian signature replaced by the snakeoil db key's) started by efiresume
#                     under Secure Boot locks down at integrity, /sys/power/disk says [disabled]
#                     and writing "disk" to /sys/power/state fails with EPERM, nothing written
#   baseline-control  the same kernel, firmware code and disk with Secure Boot off: it hibernates
#                     (image on the swap partition), so the refusal above is Secure Boot's doing
#   baseline-6.12, baseline-6.12-control   the same with Debian 13's 6.12 (bookworm-backports)
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=$1
[ "$case" != tagged ] || exec "$(dirname "$0")/secboot-tagged.sh"
d=$(scratch "secboot-$case")
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 ||
	{ echo "  make sign failed"; exit 1; }

# Debian 12's 6.1, or (a case named *-6.12*) the 6.12 of bookworm-backports, Debian 13's kernel
kdir=$(kernel_dir linux-image-cloud-amd64 $([[ $case == *-6.12* ]] && echo backports))
try=
case $case in baseline*) try=" efiresume_try_hibernate=1" ;; esac
sb_guest x64 "$kdir" "$try"
efi=$BUILD/efiresume-x64.signed.efi
[ "$case" = unsigned ] && efi=$BUILD/efiresume-x64.efi
kernel=$d/vmlinuz.efi
if [ "$case" = fallback-unsigned ]; then
	cp "$(kernel_image "$kdir")" "$kernel"    # Debian's signature, not in the snakeoil db
else
	sb_sign "$d/snakeoil.key" "$(kernel_image "$kdir")" "$kernel"
fi
make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$efi" ::/EFI/BOOT/BOOTX64.EFI
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$d/disk.img" "$kernel" ::/vmlinuz.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
[ "$case" = untagged ] && set_swap_sig "$d/disk.img" S1SUSPEND
before=$(swap_sig "$d/disk.img")
sb_new_vars "$d/vars.fd"
[[ $case == baseline*-control ]] && sb_plain_vars "$d/vars.fd"   # the same firmware, Secure Boot off

boot() {   # boot N TIMEOUT
	local rc=0
	sb_run_qemu "$d/disk.img" "$d/vars.fd" "$d/serial$1.log" "$2" -device virtio-rng-pci || rc=$?
	echo "  boot $1: qemu exit status $rc"
	[ $rc -ne 124 ] || [ "$case" = unsigned ] || [ "$case" = fallback-unsigned ] || fail "QEMU timed out"   # those two end in the firmware's menu
}
ok=0
L=$d/serial1.log
case $case in
unsigned)
	QEMU_STOP_AT='BdsDxe: failed to load Boot[0-9A-F]+ .*: (Access Denied|Security Violation)' boot 1 40
	expect_not "$L" "efiresume: efiresume .* started" "the unsigned efiresume never started" || ok=1
	expect "$L" 'BdsDxe: failed to load Boot[0-9A-F]+ .*: (Access Denied|Security Violation)' "the firmware refused it" || ok=1
	;;
signed)
	boot 1 180
	expect "$L" "efiresume: efiresume .* \(x64\) started" "the signed efiresume started" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "it saw Secure Boot" || ok=1
	expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot \(EFI_RNG_PROTOCOL(, no RDRAND| and RDRAND)\) is stored in EfiresumeHibernationKeyV2 \(NV\|BS\)" "a key for this boot, stored (NV|BS)" || ok=1
	expect "$L" "efiresume: Secure Boot: this boot's key is offered to the kernel through the key protocol" "the key offered through the protocol (not pushed)" || ok=1
	expect_not "$L" "key table .* installed" "no key table installed for whatever boots" || ok=1
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "the signed kernel started" || ok=1
	expect "$L" "EFIRESUME-TEST: secureboot=1 lockdown=.*\[(integrity|confidentiality)\]" "the kernel runs under Secure Boot, locked down" || ok=1
	expect "$L" "EFIRESUME-TEST: efivars readable: [1-9]" "efivarfs works in the guest" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume variables visible: \[\]" "EfiresumeHibernationKeyV2 is not visible to the OS" || ok=1
	a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV2)
	if [ "$a" = "attrs=0x3 size=32" ]; then pass "in the VARS file: $a"; else fail "EfiresumeHibernationKeyV2 in the VARS file: $a"; fi
	k1=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)
	boot 2 180
	expect "$d/serial2.log" "efiresume: Secure Boot: a new hibernation key for this boot .* the previous one verifies this boot's image only" "boot 2: a fresh key; the previous one read" || ok=1
	k2=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)
	[ "$k1" != "$k2" ] && [ ${#k2} = 64 ] && pass "the stored key changed from boot 1 to boot 2 (one key per boot)" || fail "the key did not change ($k1 -> $k2)"
	expect "$d/serial2.log" "EFIRESUME-TEST: marker=$marker\$" "boot 2 started the kernel" || ok=1
	;;
fallback-unsigned)
	QEMU_STOP_AT='efiresume: error: Secure Boot: the firmware refused to load' boot 1 60
	expect "$L" "efiresume: efiresume .* \(x64\) started" "the signed efiresume started" || ok=1
	expect "$L" 'efiresume: error: Secure Boot: the firmware refused to load .*vmlinuz.efi \(not signed by a key in db, or revoked in dbx\): (Security Violation|Access Denied)' "the unsigned fallback refused with a clear line" || ok=1
	expect_not "$L" "EFIRESUME-TEST: marker" "the kernel never ran" || ok=1
	;;
baseline|baseline-control|baseline-6.12|baseline-6.12-control)
	# Debian's own (unpatched) kernel, the Debian signature replaced by the test db key's
	# (the code that decides is the same): under Secure Boot it locks down at integrity and
	# refuses to hibernate; the control, the same kernel and firmware with Secure Boot off,
	# hibernates, so the refusal is Secure Boot's doing
	boot 1 240
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "Debian's kernel started by efiresume" || ok=1
	if [[ $case != *-control ]]; then
		expect "$L" "EFIRESUME-TEST: secureboot=1 lockdown=.*\[integrity\]" "Secure Boot on, lockdown at integrity (Debian's default)" || ok=1
		expect "$L" "EFIRESUME-TEST: power-disk=\[\[disabled\]\]" "/sys/power/disk: [disabled]" || ok=1
		expect "$L" "EFIRESUME-TEST: hibernate: refused \(Operation not permitted\)" "hibernation refused (EPERM)" || ok=1
		expect_not "$L" "PM: hibernation: (Creating image|Wrote)" "no image made" || ok=1
		[ "$(swap_sig "$d/disk.img")" != S1SUSPEND ] && pass "no image on the swap partition" || fail "an image was written"
	else
		expect "$L" "EFIRESUME-TEST: secureboot=0 lockdown=.*\[none\]" "Secure Boot off, no lockdown" || ok=1
		expect_not "$L" "EFIRESUME-TEST: power-disk=\[\[disabled\]\]" "/sys/power/disk offers modes" || ok=1
		expect "$L" "PM: hibernation: Wrote [0-9]+ kbytes" "the same kernel hibernates" || ok=1
		[ "$(swap_sig "$d/disk.img")" = S1SUSPEND ] && pass "image on the swap partition (S1SUSPEND)" || fail "no image written"
	fi
	exit $ok
	;;
untagged)
	boot 1 180
	expect "$L" "efiresume: swap PARTUUID=$SWAP_PARTUUID: hibernation image signature found" "signature reported" || ok=1
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: image refused: Secure Boot: no auth block \(EFRHMAC1\)" "refused: no auth block" || ok=1
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: reason-code auth; nothing was written, the image is kept" "reason-code auth, kept" || ok=1
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "the fallback kernel started" || ok=1
	;;
esac
after=$(swap_sig "$d/disk.img")
if [ "$before" = "$after" ]; then pass "swap signature untouched ($after)"; else fail "changed: swap signature $before -> $after"; fi
exit $ok
