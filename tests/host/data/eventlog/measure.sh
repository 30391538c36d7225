#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How the event logs in this directory were measured (docs/tpm-pcr7.md): one boot per CHAIN
# under QEMU + OVMF (Secure Boot code, Debian's stores) with swtpm as the TPM 2.0; a busybox
# initramfs (Debian 12's cloud kernel) copies /sys/kernel/security/tpm0/binary_bios_measurements
# and the sha256 PCRs 0-9 to the serial console, which this script saves as CHAIN.bin and
# CHAIN.pcrs (what the initramfs, where systemd-cryptsetup unseals, sees).
#   tests/host/data/eventlog/measure.sh CHAIN [OUTDIR]   (after make -j2 all; one QEMU; PCR7_TIMEOUT=S)
# The ESP holds what a Debian system with efiresume-install has: \EFI\debian\ shimx64.efi
# (shim-signed 16.1), grubx64.efi (grub-efi-amd64-signed), mmx64.efi, grub.cfg (linux
# \vmlinuz.efi: Debian's signed 6.1 cloud kernel, initrd \initrd.gz); \EFI\efiresume\ as
# efiresume-install --secure-boot=shim (shimx64.efi, grubx64.efi = efiresume signed with the
# snakeoil key, mmx64.efi) or =db (efiresume.efi signed with the snakeoil key), with
# efiresume.conf's fallback \EFI\debian\shimx64.efi, as detect_fallback picks on such a system.
# The firmware starts Boot0080 (BootNext), a HD()/File() entry as efibootmgr writes it.
# CHAINs (store: OVMF_VARS_4M.ms.fd + the snakeoil certificate as a MOK (mok) or in db (db)):
#   mok-normal     store mok: Boot0080 = \EFI\debian\shimx64.efi -> GRUB -> kernel
#   mok-efiresume  store mok: Boot0080 = \EFI\efiresume\shimx64.efi -> efiresume -> (no image)
#                  \EFI\debian\shimx64.efi -> GRUB -> kernel
#   mok-direct     store mok: \EFI\efiresume\shimx64.efi -> efiresume -> \vmlinuz.efi (Debian's
#                  signature; no GRUB: as tests/e2e/secboot-shim.sh)
#   mok-samekey    store mok: \EFI\efiresume\shimx64.efi -> efiresume -> \vmlinuz-db.efi (the kernel
#                  re-signed with the snakeoil key, the MOK: one authority for both images)
#   db-normal      store db: \EFI\debian\shimx64.efi -> GRUB -> kernel
#   db-efiresume   store db: \EFI\efiresume\efiresume.efi -> \EFI\debian\shimx64.efi -> GRUB -> kernel
#   db-direct      store db: \EFI\efiresume\efiresume.efi -> \vmlinuz-db.efi (the kernel re-signed
#                  with the snakeoil key: one authority for both images)
#   nosb-normal    plain OVMF code and store (no Secure Boot): \EFI\debian\shimx64.efi -> GRUB -> kernel
#   nosb-efiresume plain: \EFI\efiresume\efiresume.efi (unsigned) -> \EFI\debian\shimx64.efi -> GRUB -> kernel
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
. "$TOP/tests/lib/harness.sh"
. "$TOP/tests/lib/secboot.sh"
chain=${1:?CHAIN: mok-normal mok-efiresume mok-direct mok-samekey db-normal db-efiresume db-direct nosb-normal nosb-efiresume}
out=${2:-$(dirname "$0")}
for t in swtpm sbsign sbattach mcopy sgdisk; do command -v $t >/dev/null || die "no $t"; done
d=$(scratch "pcr7-$chain")
G=8be4df61-93ca-11d2-aa0d-00e098032b8c
OWNER=a0baa8a3-041d-48a8-bc87-c36d121b5e3d
ER_GUID=338ebdff-5bf8-4971-8760-45caada2d435
key=$(sb_key "$d")
make -s -C "$TOP" sign KEY="$key" CERT="$SB_CERT" >/dev/null 2>&1 || die "make sign failed"
shim=$(kernel_dir shim-signed)/usr/lib/shim
mm=$(kernel_dir shim-helpers-amd64-signed)/usr/lib/shim/mmx64.efi.signed
grub=$(kernel_dir grub-efi-amd64-signed)/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages
kdir=$(kernel_dir linux-image-cloud-amd64)

cat "$TOP/tests/e2e/init/prelude.sh" - > "$d/init" <<'INIT'
mount -t securityfs none /sys/kernel/security 2>/dev/null
say "chain=$(arg pcr7_chain)"
for i in 0 1 2 3 4 5 6 7 8 9; do say "pcr-sha256-$i=$(cat /sys/class/tpm/tpm0/pcr-sha256/$i 2>/dev/null)"; done
echo "EVENTLOG-BEGIN" > /dev/console
busybox base64 /sys/kernel/security/tpm0/binary_bios_measurements > /dev/console
echo "EVENTLOG-END" > /dev/console
poweroff -f
INIT
make_initramfs x64 "$kdir" "$d/init" "$d/initrd.gz"
cmdline="console=ttyS0 panic=-1 pcr7_chain=$chain"

make_disk "$d/disk.img" 16
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
i="$d/disk.img@@$((ESP_START * 512))"
mmd -i "$i" ::/EFI/debian ::/EFI/efiresume
esp_put "$d/disk.img" "$shim/shimx64.efi.signed" ::/EFI/debian/shimx64.efi
esp_put "$d/disk.img" "$mm" ::/EFI/debian/mmx64.efi
esp_put "$d/disk.img" "$grub" ::/EFI/debian/grubx64.efi
# (without Secure Boot GRUB's linux command boots the kernel so that its EFI stub does not
# hand the event log on: /sys/kernel/security/tpm0 has no binary_bios_measurements, measured;
# chainloader starts the kernel as an EFI program, whose stub does)
if [[ $chain == nosb-* ]]; then
	boot="chainloader /vmlinuz.efi initrd=\\initrd.gz $cmdline"
else
	boot="linux /vmlinuz.efi $cmdline
initrd /initrd.gz"
fi
cat > "$d/grub.cfg" <<CFG
set timeout=0
search --no-floppy --set=root --file /vmlinuz.efi
$boot
boot
CFG
esp_put "$d/disk.img" "$d/grub.cfg" ::/EFI/debian/grub.cfg
esp_put "$d/disk.img" "$(kernel_image "$kdir")" ::/vmlinuz.efi
sb_sign "$key" "$(kernel_image "$kdir")" "$d/vmlinuz-db.efi"
esp_put "$d/disk.img" "$d/vmlinuz-db.efi" ::/vmlinuz-db.efi
esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
fallback='\EFI\debian\shimx64.efi' opts=
case $chain in
*-direct | *-samekey) fallback='\vmlinuz.efi' opts="initrd=\\initrd.gz $cmdline" ;;
esac
case $chain in db-direct | mok-samekey) fallback='\vmlinuz-db.efi' ;; esac
{ echo "timeout 0"; echo "fallback $fallback"; [ -z "$opts" ] || echo "options $opts"; } > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/efiresume/efiresume.conf
case $chain in
mok-*)
	esp_put "$d/disk.img" "$shim/shimx64.efi.signed" ::/EFI/efiresume/shimx64.efi
	esp_put "$d/disk.img" "$mm" ::/EFI/efiresume/mmx64.efi
	esp_put "$d/disk.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/efiresume/grubx64.efi ;;
db-*) esp_put "$d/disk.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/efiresume/efiresume.efi ;;
nosb-*) esp_put "$d/disk.img" "$BUILD/efiresume-x64.efi" ::/EFI/efiresume/efiresume.efi ;;
esac
case $chain in
*-normal) loader='\EFI\debian\shimx64.efi' ;;
mok-*) loader='\EFI\efiresume\shimx64.efi' ;;
*) loader='\EFI\efiresume\efiresume.efi' ;;
esac

# Boot0080 (HD(1,GPT,ESP,start,size)/File(loader), as efibootmgr -C writes it) and BootNext
python3 - "$loader" "$ESP_PARTUUID" $ESP_START $((ESP_MB * 2048)) "$G" > "$d/boot.json" <<'PY'
import json, struct, sys, uuid
path, part, start, size, g = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
u = lambda s: s.encode("utf-16-le") + b"\0\0"
hd = struct.pack("<BBHIQQ", 4, 1, 42, 1, start, size) + uuid.UUID(part).bytes_le + bytes([2, 2])
f = u(path)
fp = hd + struct.pack("<BBH", 4, 4, 4 + len(f)) + f + bytes([0x7f, 0xff, 4, 0])
opt = struct.pack("<IH", 1, len(fp)) + u("pcr7 test") + fp
print(json.dumps({"version": 2, "variables": [
	{"name": "Boot0080", "guid": g, "attr": 7, "data": opt.hex()},
	{"name": "BootNext", "guid": g, "attr": 7, "data": "8000"}]}))
PY
args=(--set-json "$d/boot.json")
case $chain in
mok-*) store=/usr/share/OVMF/OVMF_VARS_4M.ms.fd fw=secboot args+=(--add-mok $ER_GUID "$SB_CERT") ;;
db-*) store=/usr/share/OVMF/OVMF_VARS_4M.ms.fd fw=secboot args+=(--add-db $OWNER "$SB_CERT") ;;
nosb-*) store=/usr/share/OVMF/OVMF_VARS_4M.fd fw=plain ;;
esac
PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$store" -o "$d/vars.fd" "${args[@]}" > "$d/vfw.log" 2>&1 ||
	{ cat "$d/vfw.log"; die "virt-fw-vars failed"; }

# the TPM: swtpm on a unix socket, a fresh state
mkdir -p "$d/tpm"
swtpm socket --tpm2 --tpmstate dir="$d/tpm" --ctrl type=unixio,path="$d/tpm/sock" --log file="$d/swtpm.log" &
swpid=$!
trap 'kill $swpid 2>/dev/null || true; wait $swpid 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do [ -S "$d/tpm/sock" ] && break; sleep 0.1; done
L=$d/serial.log
rc=0
# PCR7_TIMEOUT: more than 300 s on a loaded host (TCG)
qemu_run "$L" "${PCR7_TIMEOUT:-300}" fw=$fw vars="$d/vars.fd" disk="$d/disk.img" cpu="$SB_CPU" rng=1 -- \
	-chardev socket,id=chrtpm,path="$d/tpm/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0 || rc=$?
echo "  $chain: qemu status $rc"
tr -d '\r' < "$L" | sed -n '/^EVENTLOG-BEGIN/,/^EVENTLOG-END/p' | sed '1d;$d' | base64 -d > "$d/eventlog.bin" ||
	die "no event log on the console ($L)"
[ -s "$d/eventlog.bin" ] || die "empty event log ($L)"
tr -d '\r' < "$L" | sed -n 's/^EFIRESUME-TEST: pcr-sha256-\([0-9]*\)=\([0-9A-Fa-f]*\)$/\1 \2/p' > "$d/pcrs"
cp "$d/eventlog.bin" "$out/$chain.bin"
cp "$d/pcrs" "$out/$chain.pcrs"
grep -a "efiresume:" "$L" | tr -d '\r' | sed 's/^/  | /' | head -20 || true
echo "  $out/$chain.bin ($(stat -c %s "$d/eventlog.bin") bytes), PCR 7 $(awk '$1 == 7 {print $2}' "$d/pcrs")"
