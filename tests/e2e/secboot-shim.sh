#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume through shim on a machine that keeps Microsoft's keys (issue 17 item 1): OVMF
# secboot with Debian's OVMF_VARS_4M.ms.fd (Microsoft KEK and db, Secure Boot on) and the
# test certificate enrolled as a MOK (virt-fw-vars --add-mok, python3-virt-firmware from
# bookworm-backports: what `mokutil --import` and MokManager leave behind). Debian's signed
# shim (shim-signed, 16.x, signed by Microsoft's UEFI CA) is \EFI\BOOT\BOOTX64.EFI and
# starts its second stage \EFI\BOOT\grubx64.efi: efiresume signed with the MOK key. efiresume
# starts Debian's kernel with its Debian signature untouched through LoadImage: shim 16
# verifies what is loaded after it (its vendor certificate, Debian's CA), as the firmware's
# db would.
#   secboot-shim.sh mok      efiresume starts through shim, sees Secure Boot, keeps its key,
#                            starts Debian's signed kernel (locked down at integrity)
#   secboot-shim.sh nomok    control: the same without the MOK: shim refuses efiresume
#   secboot-shim.sh unsigned-kernel   efiresume through shim, the kernel without any
#                            signature: refused with efiresume's clear line, never started
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: mok nomok unsigned-kernel}
d=$(scratch "secboot-shim-$case")
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 || { echo "  make sign failed"; exit 1; }
shim=$(kernel_dir shim-signed)/usr/lib/shim/shimx64.efi.signed
vfw=$(kernel_dir python3-virt-firmware backports)
[ -f "$shim" ] || { echo "  no shimx64.efi.signed in shim-signed"; exit 1; }
echo "  shim: shim-signed $(dpkg-deb -f "$(ls -t "$CACHE"/debs/shim-signed_*.deb | head -1)" Version)"

kdir=$(kernel_dir linux-image-cloud-amd64)
sb_guest x64 "$kdir"
kernel=$d/vmlinuz.efi
cp "$(kernel_image "$kdir")" "$kernel"        # Debian's own signature
if [ "$case" = unsigned-kernel ]; then
	sbattach --remove "$kernel" >/dev/null
fi
echo "  kernel: $(sbverify --list "$kernel" 2>/dev/null | sed -n 's/^ - subject: //p' | head -1 || true)"
make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$shim" ::/EFI/BOOT/BOOTX64.EFI
esp_put "$d/disk.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/BOOT/grubx64.efi
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$d/disk.img" "$kernel" ::/vmlinuz.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
mkswap_disk "$d/disk.img" $SWAP_PARTUUID

cp /usr/share/OVMF/OVMF_VARS_4M.ms.fd "$d/vars.fd"
if [ "$case" != nomok ]; then
	# the owner GUID is ours (efiresume's vendor GUID); shim does not look at it
	PYTHONPATH=$vfw/usr/lib/python3/dist-packages python3 -m virt.firmware.vars \
		-i "$d/vars.fd" -o "$d/vars.new" --add-mok 338ebdff-5bf8-4971-8760-45caada2d435 "$SB_CERT" > "$d/vfw.log" 2>&1 ||
		{ echo "  virt-fw-vars --add-mok failed"; cat "$d/vfw.log"; exit 1; }
	mv "$d/vars.new" "$d/vars.fd"
fi

ok=0
L=$d/serial1.log
rc=0
# nomok and unsigned-kernel end in shim's error screen or the firmware's menu: 90 s is enough
tmo=240; [ "$case" = mok ] || tmo=90
# ... where the run ends 3 s after the refusal (QEMU_STOP_AT, tests/lib/harness.sh)
stop=
case $case in
nomok) stop='Verification failed|Security Violation|Access Denied' ;;
unsigned-kernel) stop='efiresume: error: Secure Boot: the firmware refused to load' ;;
esac
QEMU_STOP_AT=$stop sb_run_qemu "$d/disk.img" "$d/vars.fd" "$L" $tmo -device virtio-rng-pci || rc=$?
echo "  boot 1: qemu exit status $rc"
expect "$L" "BdsDxe: starting Boot[0-9A-F]+ .*BOOTX64.EFI|BdsDxe: starting Boot[0-9A-F]+ \"UEFI" "the firmware started shim (BOOTX64.EFI)" || ok=1
case $case in
mok|unsigned-kernel)
	expect "$L" "efiresume: efiresume .* \(x64\) started" "shim started efiresume (signed with the MOK key)" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "efiresume saw Secure Boot" || ok=1
	expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* is stored in EfiresumeHibernationKey" "it made this boot's key" || ok=1
	if [ "$case" = mok ]; then
		expect "$L" "EFIRESUME-TEST: marker=$marker\$" "Debian's signed kernel started (shim verified it)" || ok=1
		expect "$L" "EFIRESUME-TEST: secureboot=1 lockdown=.*\[integrity\]" "the kernel runs under Secure Boot, locked down" || ok=1
		expect "$L" "EFIRESUME-TEST: efiresume variables visible: \[\]" "EfiresumeHibernationKey is not visible to the OS" || ok=1
	else
		expect "$L" "efiresume: error: Secure Boot: the firmware refused to load .*vmlinuz.efi" "the unsigned kernel refused with a clear line" || ok=1
		expect_not "$L" "EFIRESUME-TEST: marker" "the kernel never ran" || ok=1
	fi
	;;
nomok)
	expect_not "$L" "efiresume: efiresume .* started" "efiresume never started" || ok=1
	expect "$L" "Verification failed|Security Violation|Access Denied" "shim refused it" || ok=1
	;;
esac
exit $ok
