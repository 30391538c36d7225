#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An image that is no longer the truth. Boot 2: efiresume sees the image for the first
# time and records the filesystems it can read (EfiresumeSeen); the user presses Esc and
# the normal boot mounts and writes an ext4 disk. Boot 3: efiresume finds that disk
# changed since the hibernation, refuses to resume (that would corrupt it), offers to
# discard the image; 'd' discards it. Nothing is written to any disk but the discard.
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
name=x64-6.1-lzo arch=x64
make_fixture $name $arch linux-image-cloud-amd64
fx=$(fixture_dir $name)
d=$(scratch stale)
copy_fixture $name "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" ::/EFI/BOOT/BOOTX64.EFI
data_uuid=7e57da7a-5a1e-4e11-b0a7-0123456789ab
truncate -s 64M "$d/data.img"
mkfs.ext4 -q -F -U $data_uuid "$d/data.img"
sed -e 's/^timeout 0$/timeout 120/' -e 's|^options \(.*\)$|options \1 efiresume_probe efiresume_touch=/dev/vdb|' \
	"$fx/efiresume.conf" > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
drives="-drive file=$d/disk.img,format=raw,if=virtio,cache=unsafe -drive file=$d/data.img,format=raw,if=virtio,cache=unsafe"
swap_page0 "$d/disk.img" "$d/page0.before"

# boot LOG WAIT_RE KEY: one boot with the serial console on a pipe; KEY typed when WAIT_RE shows
boot() {
	local rc=0
	wait_re=$2 key=$3
	QEMU_DRIVE="$drives" serial_boot $arch "$d/disk.img" "$d/vars.fd" "$1" 240 type_key || rc=$?
	[ $rc -eq 0 ] || { echo "  qemu status $rc"; return 1; }
}
type_key() {
	for _ in $(seq 900); do
		grep -aqE "$wait_re" "$1" && break
		sleep 0.2
	done
	sleep 1
	printf '%s' "$key"
}
ok=0
echo "boot 2: first sight, Esc, the normal boot writes the ext4 disk"
boot "$d/boot2.log" 'resuming in 120 s' $'\033' || ok=1
expect "$d/boot2.log" 'efiresume: PARTUUID=[0-9a-f-]+: first sight of this image: [1-9][0-9]* filesystem\(s\) recorded in EfiresumeSeen' "filesystems recorded" || ok=1
expect "$d/boot2.log" 'booting normally at the user.s request; the image is kept' "Esc: boot normally" || ok=1
expect "$d/boot2.log" '^EFIRESUME-TEST: touched /dev/vdb' "the normal boot wrote the ext4 disk" || ok=1
echo "boot 3: the image is no longer the truth"
boot "$d/boot3.log" 'D: discard the image' d || ok=1
expect "$d/boot3.log" "efiresume: warning: PARTUUID=[0-9a-f-]+: image refused: ext4 $data_uuid was mounted since the hibernation \(mount count 0 -> 1\): resuming would corrupt it" "refused with the filesystem named" || ok=1
expect_not "$d/boot3.log" 'handing off|EFIRESUME-TEST: resumed' "no hand-off" || ok=1
expect "$d/boot3.log" 'image discarded: swap signature restored' "D: discarded" || ok=1
expect "$d/boot3.log" 'EfiresumeSeen deleted' "the record is gone with the image" || ok=1
sig=$(swap_sig "$d/disk.img")
[ "$sig" = SWAPSPACE2 ] && pass "signature now $sig" || fail "signature $sig"
e2fsck -fn "$d/data.img" > "$d/fsck.log" 2>&1 && pass "the ext4 disk is clean" || { echo "  fsck: $(tail -3 "$d/fsck.log")"; ok=1; }
exit $ok
