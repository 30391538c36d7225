#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The hibernation key sealed to the TPM (EfiresumeHibernationKeyV3) in the firmware: OVMF
# secboot (snakeoil keys) with swtpm as the machine's TPM 2.0 (tpm-tis), x64, the signed
# efiresume starting a signed kernel (no image: what is checked is where the key lives).
#   boot 1  a TPM: the key sealed to it ("sealed to the TPM (PCR 7) in ...V3"), PCR 7 capped
#           through HashLogExtendEvent; in the VARS file V3 is there (NV|BS), V2 is not; the
#           guest sees no key variable, and EfiresumeKeyStore "V3"
#   boot 2  the previous key unsealed by the TPM (PCR 7 at efiresume's start is the same),
#           a new one sealed: V3 changed
#   boot 3  another TPM (a fresh swtpm state): the record names another storage key:
#           not unsealed ("sealed under another storage key"), a new key sealed to this TPM
#   boot 4  no TPM: the key stored in plain in V2 (as before V3), V3 deleted; EfiresumeKeyStore "V2"
#   tests/e2e/secboot-tpm-seal.sh   (make -j2 all first; needs swtpm)
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
d=$(scratch "secboot-tpm-seal")
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 ||
	{ echo "  make sign failed"; exit 1; }
kdir=$(kernel_dir linux-image-cloud-amd64)
sb_guest x64 "$kdir" ""
sb_sign "$d/snakeoil.key" "$(kernel_image "$kdir")" "$d/vmlinuz.efi"
make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/BOOT/BOOTX64.EFI
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$d/disk.img" "$d/vmlinuz.efi" ::/vmlinuz.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
sb_new_vars "$d/vars.fd"

swtpm_pid=
stop_tpm() {
	[ -n "$swtpm_pid" ] || return 0
	kill "$swtpm_pid" 2>/dev/null || true
	wait "$swtpm_pid" 2>/dev/null || true
	swtpm_pid=
}
trap stop_tpm EXIT
start_tpm() {   # STATE-DIR
	mkdir -p "$1"
	rm -f "$d/tpm.sock"
	swtpm socket --tpm2 --tpmstate dir="$1" --ctrl type=unixio,path="$d/tpm.sock" --flags startup-clear \
		>"$1.log" 2>&1 &
	swtpm_pid=$!
	for _ in $(seq 1 50); do [ -S "$d/tpm.sock" ] && break; sleep 0.1; done
}
boot() {   # N TIMEOUT [STATE-DIR: a TPM with that state, started for this boot: a power cycle]
	local rc=0 tpm=()
	[ -n "${3:-}" ] && start_tpm "$3" && tpm=(-chardev "socket,id=chrtpm,path=$d/tpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
		-device tpm-tis,tpmdev=tpm0)
	sb_run_qemu "$d/disk.img" "$d/vars.fd" "$d/serial$1.log" "$2" -device virtio-rng-pci "${tpm[@]}" || rc=$?
	echo "  boot $1: qemu exit status $rc"
	[ $rc -ne 124 ] || fail "QEMU timed out"
	stop_tpm
}
ok=0
# a new TPM without a persistent SRK: efiresume makes its own primary
boot 1 240 "$d/tpm1"
L=$d/serial1.log
expect "$L" "efiresume: Secure Boot is on" "Secure Boot on" || ok=1
expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* is sealed to the TPM \(PCR 7\) in EfiresumeHibernationKeyV3 \(NV\|BS\)" "boot 1: the key sealed to the TPM" || ok=1
expect "$L" "efiresume: Secure Boot: PCR 7 extended with \"efiresume: hibernation key sealed\"" "boot 1: PCR 7 capped" || ok=1
expect "$L" "EFIRESUME-TEST: marker=$marker\$" "boot 1: the signed kernel started" || ok=1
expect "$L" "EFIRESUME-TEST: efiresume variables visible: \[\]" "no key variable visible to the OS" || ok=1
expect "$L" "EFIRESUME-TEST: efiresume key store: \[V3\]" "EfiresumeKeyStore says V3 to the OS" || ok=1
a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV3)
[[ $a == "attrs=0x3 size="* ]] && pass "V3 in the VARS file: $a" || fail "V3 in the VARS file: $a"
v2=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)
[ "$v2" = absent ] && pass "no plain key (V2) in the VARS file" || fail "V2 in the VARS file: $v2"
r1=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV3)
[[ $r1 == 45465254* ]] && pass "V3 holds an EFRT record" || fail "V3: $r1"

boot 2 240 "$d/tpm1"
L=$d/serial2.log
expect "$L" "efiresume: Secure Boot: the previous key unsealed by the TPM" "boot 2: the previous key unsealed" || ok=1
expect "$L" "is sealed to the TPM \(PCR 7\) in EfiresumeHibernationKeyV3 \(NV\|BS\); the previous one verifies this boot's image only" "boot 2: a new key sealed" || ok=1
r2=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV3)
[ "$r1" != "$r2" ] && pass "V3 changed from boot 1 to boot 2" || fail "V3 did not change"
boot 3 240 "$d/tpm2"
L=$d/serial3.log
expect "$L" "efiresume: warning: Secure Boot: the previous key was not unsealed: .*sealed under another storage key" "boot 3, another TPM: not unsealed" || ok=1
expect "$L" "is sealed to the TPM \(PCR 7\) in EfiresumeHibernationKeyV3" "boot 3: a new key sealed to this TPM" || ok=1
boot 4 240
L=$d/serial4.log
expect_not "$L" "PCR 7 extended" "boot 4, no TPM: no cap" || ok=1
expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* is stored in EfiresumeHibernationKeyV2 \(NV\|BS\)" "boot 4: the key in plain in V2 (the line as before V3)" || ok=1
expect "$L" "EFIRESUME-TEST: efiresume key store: \[V2\]" "EfiresumeKeyStore says V2 to the OS" || ok=1
v3=$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV3)
[ "$v3" = absent ] && pass "V3 deleted when V2 is in use" || fail "V3 still there: $v3"
a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV2)
[ "$a" = "attrs=0x3 size=32" ] && pass "V2: $a" || fail "V2: $a"
echo "$CHECKS_PASSED passed, $CHECKS_FAILED failed"
exit $ok
