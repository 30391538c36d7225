#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume refuses an image it must not resume: one clear line, nothing written
# (page 0 byte for byte as before), and the normal boot program starts.
# refuse.sh CASE NAME ARCH KPKG [backports] [-- KERNEL_ARGS...]   env: MEM, SMP
#   CASE: flip     a literal byte flipped in a compressed chunk (only the CRC32 catches it)
#         memsize  boot 2 with a different memory size than boot 1
#         dryrun   `dry-run yes`: everything but the commit; then a real resume
#         garble   the second part of a chunk's first page overwritten (decompression fails)
#         hwsig    SF_HW_SIG set with a hardware signature this machine's FACS does not
#                  have (as a kernel that records it); then the right one: a real resume
#         nx       boot 2 on a CPU without NX (as with XD disabled in firmware setup): the
#                  image's page tables carry NX bits, so it must be refused before the
#                  commit; then on the CPU it was made on: a real resume
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
. "$(dirname "$0")/../lib/layout.sh"
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
boot2_args=()
# offsets below are within the swap partition (tests/lib/layout.sh)
LAYOUT_BASE=$(swap_offset)
# middle_chunk: chunks, k (the middle chunk), s (its first stream page), word, of an LZO image
middle_chunk() {
	local json comp
	json=$("$BUILD/swsusp-inspect" --json "$d/disk.img")
	comp=$(echo "$json" | sed -n 's/.*"compression": "\([a-z0-9]*\)".*/\1/p')
	chunks=$(echo "$json" | sed -n 's/.*"chunks": \([0-9]*\).*/\1/p')
	word=8; [ "$arch" = ia32 ] && word=4
	[ "$comp" = lzo ] && [ "${chunks:-0}" -gt 1 ] || die "$case wants an LZO image (compression '$comp', $chunks chunks)"
	load_layout "$d/disk.img"
	k=$((chunks / 2))
	s=$(chunk_at "$d/disk.img" $word $k)
}
case $case in
flip)
	# the first literal of the middle chunk's LZO stream: it still decompresses, to
	# different data, so only the CRC32 can catch it (a byte at a fixed page offset may
	# fall into a chunk's page padding, which no reader looks at)
	middle_chunk
	off=$(lzo_literal "$d/disk.img" "$s" $word)
	b=$(le "$d/disk.img" "$off" 1)
	put_le "$d/disk.img" "$off" $(( (b ^ 0x5a) & 255 )) 1
	echo "  flipped the first literal of chunk $k of $chunks (swap byte $off: $b -> $(( (b ^ 0x5a) & 255 )))"
	want='image refused: the CRC32 of the image data differs'
	;;
memsize)
	mem=$((mem + 256))
	echo "  boot 2 with $mem MiB instead of ${MEM:-512}"
	want="image refused: this machine's memory map differs"
	;;
garble)
	# the middle chunk's compressed data from byte 200 of its first page on: it no
	# longer decompresses (with 2 CPUs: on whichever CPU took the chunk)
	middle_chunk
	off=$(cbyte "$d/disk.img" "$s" 200)
	head -c $((4096 - 200)) /dev/zero | tr '\0' '\377' |
		dd of="$d/disk.img" bs=1 seek=$(($(swap_offset) + off)) conv=notrunc status=none
	echo "  garbled chunk $k of $chunks from swap byte $off to the end of its first page"
	want='image refused: a compressed chunk does not decompress'
	;;
hwsig)
	flags=$(le "$d/disk.img" 4072 4)
	put_le "$d/disk.img" 4072 $((flags | 8)) 4
	put_le "$d/disk.img" 4056 $((0x5eed0bad)) 4
	echo "  page 0: flags $flags -> $((flags | 8)) (SF_HW_SIG), hw_sig 0x5eed0bad"
	want='image refused: the ACPI hardware signature differs from the image.s: image 0x5eed0bad, this machine 0x[0-9a-f]{8}'
	;;
nx)
	boot2_args=(-cpu qemu64,-cx16,-nx)
	echo "  boot 2 on ${boot2_args[1]}"
	want="image refused: this machine's CPUs do not fit the image: the image's page tables use NX"
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
if [ "$case" = nx ]; then
	# Debian's x86_64 kernel hangs or panics on a CPU without NX: efiresume's part ends
	# with starting it, so QEMU is stopped once it has
	MEM=$mem run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 240 "${boot2_args[@]}" &
	qpid=$!
	for _ in $(seq 1200); do
		grep -aq 'efiresume: starting' "$d/boot2.log" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.2
	done
	sleep 2
	pkill -f "file=$d/disk.img" 2>/dev/null || true
	wait $qpid || true
else
	MEM=$mem run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 180 "${boot2_args[@]}" || rc=$?
	[ $rc -eq 0 ] || fail "qemu status $rc"
fi
expect "$d/boot2.log" "efiresume: PARTUUID=$SWAP_PARTUUID: $want" "refusal explained" || ok=1
if [ "$case" != dryrun ]; then
	expect "$d/boot2.log" 'reason-code [a-z-]+; nothing was written, the image is left as it was' "nothing written" || ok=1
fi
expect_not "$d/boot2.log" 'handing off|EFIRESUME-TEST: resumed' "no hand-off" || ok=1
if [ "$case" = nx ]; then
	# Debian's x86_64 kernel does not get far on a CPU without NX: efiresume's part is
	# starting it
	expect "$d/boot2.log" 'efiresume: starting .*efiresume_probe' "the normal boot program started" || ok=1
else
	expect "$d/boot2.log" '^EFIRESUME-TEST: probe' "the normal boot program started" || ok=1
fi
swap_page0 "$d/disk.img" "$d/page0.after"
if cmp -s "$d/page0.before" "$d/page0.after"; then
	pass "swap page 0 unchanged (signature $(swap_sig "$d/disk.img"))"
else
	fail "changed: swap page 0"
fi
if [ "$case" = hwsig ]; then
	sig=$(sed -nE 's/.*this machine 0x([0-9a-f]{8}).*/\1/p' "$d/boot2.log.txt" | head -1)
	echo "with the machine's own hardware signature 0x${sig:-?} in page 0, a real resume:"
	[ -n "$sig" ] || { echo "  WRONG: missing: the machine's signature in the refusal"; exit 1; }
	put_le "$d/disk.img" 4056 $((0x$sig)) 4
fi
if [ "$case" = dryrun ] || [ "$case" = hwsig ] || [ "$case" = nx ]; then
	[ "$case" = dryrun ] && echo "after the dry run, a real resume of the same image:"
	[ "$case" = nx ] && echo "on the CPU the image was made on, a real resume of the same image:"
	esp_put "$d/disk.img" "$fx/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	rc=0
	run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot3.log" 180 || rc=$?
	expect "$d/boot3.log" "^EFIRESUME-TEST: md5-after=$(fixture_fact "$fx" md5)\$" "resumed with the same memory" || ok=1
fi
exit $ok
