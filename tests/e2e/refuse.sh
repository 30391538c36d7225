#!/usr/bin/env bash
# efiresume refuses an image it must not resume: one clear line, nothing written
# (page 0 byte for byte as before), and the normal boot program starts.
# refuse.sh CASE NAME ARCH KPKG [backports] [-- KERNEL_ARGS...]   env: MEM, SMP
#   CASE: flip     a byte flipped in the image body (the CRC or decompression catches it)
#         memsize  boot 2 with a different memory size than boot 1
#         dryrun   `dry-run yes`: everything but the commit; then a real resume
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
case=$1; shift
name=$1 arch=$2
make_fixture "$@"
fx=$(fixture_dir "$name")
d=$(scratch "refuse-$case-$name")
copy_fixture "$name" "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$(efi_boot_name "$arch")"
# the fallback kernel only reports and powers off (efiresume_probe)
sed 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
mem=${MEM:-512}
case $case in
flip)
	# a byte in the middle of the stored image (a data chunk for compressed images)
	stream=$("$BUILD/swsusp-inspect" --json "$d/disk.img" | sed -n 's/.*"stream_pages": \([0-9]*\).*/\1/p')
	pg=$((1 + stream / 2))
	off=$(( $(swap_offset) + pg * 4096 + 1000 ))
	b=$(od -An -tu1 -j "$off" -N1 "$d/disk.img" | tr -d ' ')
	printf "$(printf '\\%03o' $(( (b ^ 0x5a) & 255 )))" | dd of="$d/disk.img" bs=1 seek="$off" conv=notrunc status=none
	echo "  flipped the byte at swap page $pg (of $stream stored pages)"
	want='image refused: (the CRC32 of the image data differs|a compressed chunk does not decompress|a compressed chunk has an impossible length)'
	;;
memsize)
	mem=$((mem + 256))
	echo "  boot 2 with $mem MiB instead of ${MEM:-512}"
	want="image refused: this machine's memory map differs"
	;;
dryrun)
	echo "dry-run yes" >> "$d/efiresume.conf"
	want='dry run: the image is resumable; not committing, booting normally'
	;;
esac
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
swap_page0 "$d/disk.img" "$d/page0.before"
ok=0
rc=0
MEM=$mem run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 180 || rc=$?
[ $rc -eq 0 ] || { echo "  qemu status $rc"; ok=1; }
expect "$d/boot2.log" "efiresume: PARTUUID=$SWAP_PARTUUID: $want" "refusal explained" || ok=1
if [ "$case" != dryrun ]; then
	expect "$d/boot2.log" 'reason-code [a-z-]+; nothing was written, the image is left as it was' "nothing written" || ok=1
fi
expect_not "$d/boot2.log" 'handing off|EFIRESUME-TEST: resumed' "no hand-off" || ok=1
expect "$d/boot2.log" '^EFIRESUME-TEST: probe' "the normal boot program started" || ok=1
swap_page0 "$d/disk.img" "$d/page0.after"
if cmp -s "$d/page0.before" "$d/page0.after"; then
	echo "  ok: swap page 0 unchanged (signature $(swap_sig "$d/disk.img"))"
else
	echo "  CHANGED: swap page 0"; ok=1
fi
if [ "$case" = dryrun ]; then
	echo "after the dry run, a real resume of the same image:"
	esp_put "$d/disk.img" "$fx/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	rc=0
	run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot3.log" 180 || rc=$?
	expect "$d/boot3.log" "^EFIRESUME-TEST: md5-after=$(fixture_fact "$fx" md5)\$" "resumed with the same memory" || ok=1
fi
exit $ok
