#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# I/O errors under efiresume (QEMU blkdebug between the virtio disk and its file): a read
# error anywhere in the image refuses it with nothing written; a write error on the
# signature reset stops the commit. Either way the image stays on disk, and the next boot,
# without the fault, resumes it (once: the signature is reset then).
#   faults.sh WHERE...   WHERE: page0 | header | map | data (read errors) | write (the commit);
#                        one boot per fault, then one boot without a fault
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
. "$(dirname "$0")/../lib/layout.sh"
[ $# -gt 0 ] || die "usage: faults.sh WHERE..."
name=x64-6.1-lzo arch=x64
make_fixture $name $arch linux-image-cloud-amd64
fx=$(fixture_dir $name)
d=$(scratch "faults-$(IFS=-; echo "$*")")
copy_fixture $name "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" ::/EFI/BOOT/BOOTX64.EFI
sed 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
LAYOUT_BASE=$(swap_offset)
load_layout "$d/disk.img"
swap_page0 "$d/disk.img" "$d/page0.before"
ok=0 n=1
for where in "$@"; do
	event=read_aio
	case $where in
	page0)  page=0; want='efiresume: warning: PARTUUID=.*: cannot read page 0 of a swap partition' ;;
	header) page=$(entry "$d/disk.img" 0); want='image refused: the swap device could not be read' ;;
	map)    page=${maps[$(( ${#maps[@]} / 2 ))]}; want='image refused: the swap device could not be read' ;;
	data)   page=$(entry "$d/disk.img" $(chunk_at "$d/disk.img" 8 200)); want='image refused: the swap device could not be read' ;;
	write)  page=0; event=write_aio; want='the swap signature could not be reset' ;;
	*) die "unknown fault place $where" ;;
	esac
	n=$((n + 1))
	log=$d/boot$n-$where.log
	sector=$(( (LAYOUT_BASE + page * 4096) / 512 ))
	echo "boot $n: $event error at swap page $page (disk sector $sector, $where)"
	printf '[inject-error]\nevent = "%s"\nerrno = "5"\nsector = "%s"\n' $event $sector > "$d/blkdebug.conf"
	rc=0
	QEMU_DRIVE="-drive if=virtio,format=raw,cache=unsafe,file.driver=blkdebug,file.config=$d/blkdebug.conf,file.image.filename=$d/disk.img" \
		run_qemu $arch "$d/disk.img" "$d/vars.fd" "$log" 180 || rc=$?
	[ $rc -eq 0 ] || fail "qemu status $rc"
	expect "$log" "$want" "the fault seen and explained" || ok=1
	expect_not "$log" 'EFIRESUME-TEST: resumed' "no hand-off" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe' "the normal boot program started" || ok=1
	if [ "$where" = write ]; then
		expect "$log" 'not resumed; nothing was changed, the image is kept' "the commit stopped" || ok=1
	else
		expect_not "$log" 'handing off' "no commit" || ok=1
	fi
	swap_page0 "$d/disk.img" "$d/page0.after"
	if cmp -s "$d/page0.before" "$d/page0.after"; then
		pass "swap page 0 unchanged (signature $(swap_sig "$d/disk.img"))"
	else
		fail "changed: swap page 0 ($(swap_sig "$d/disk.img"))"
	fi
done
echo "boot $((n + 1)), without a fault: the image resumes"
esp_put "$d/disk.img" "$fx/efiresume.conf" ::/EFI/BOOT/efiresume.conf
rc=0
run_qemu $arch "$d/disk.img" "$d/vars.fd" "$d/last.log" 180 || rc=$?
expect "$d/last.log" "^EFIRESUME-TEST: md5-after=$(fixture_fact "$fx" md5)\$" "resumed with the same memory" || ok=1
sig=$(swap_sig "$d/disk.img")
[ "$sig" = SWAPSPACE2 ] && pass "signature reset by that resume ($sig): never resumed twice" || fail "signature $sig"
exit $ok
