#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two devices carrying the same image (RAID1 members with metadata at the end, a cloned
# disk): resuming one and resetting only its signature would leave the twin to be
# resumed on a later boot over filesystems that moved on. efiresume refuses both and
# writes nothing; with the twin gone, the image resumes.
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
name=x64-6.1-lzo arch=x64
make_fixture $name $arch linux-image-cloud-amd64
fx=$(fixture_dir $name)
d=$(scratch twins)
copy_fixture $name "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" ::/EFI/BOOT/BOOTX64.EFI
sed 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
cp --sparse=always "$d/disk.img" "$d/twin.img"
swap_page0 "$d/disk.img" "$d/page0.before"
ok=0 rc=0
echo "boot 2, the disk and its copy:"
QEMU_DRIVE="-drive file=$d/disk.img,format=raw,if=virtio,cache=unsafe -drive file=$d/twin.img,format=raw,if=virtio,cache=unsafe" \
	run_qemu $arch "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 180 || rc=$?
[ $rc -eq 0 ] || fail "qemu status $rc"
expect "$d/boot2.log" 'efiresume: warning: PARTUUID=[0-9a-f-]+ and PARTUUID=[0-9a-f-]+ hold the same image of one swap area' "twins found and refused" || ok=1
expect_not "$d/boot2.log" 'handing off|EFIRESUME-TEST: resumed' "no hand-off" || ok=1
expect "$d/boot2.log" '^EFIRESUME-TEST: probe' "the normal boot program started" || ok=1
for f in disk twin; do
	swap_page0 "$d/$f.img" "$d/page0.$f"
	cmp -s "$d/page0.before" "$d/page0.$f" && pass "$f: swap page 0 unchanged" || fail "changed: $f: swap page 0"
done
echo "boot 3, the copy detached:"
esp_put "$d/disk.img" "$fx/efiresume.conf" ::/EFI/BOOT/efiresume.conf
rc=0
run_qemu $arch "$d/disk.img" "$d/vars.fd" "$d/boot3.log" 180 || rc=$?
expect "$d/boot3.log" "^EFIRESUME-TEST: md5-after=$(fixture_fact "$fx" md5)\$" "resumed with the same memory" || ok=1
exit $ok
