#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seeds' 2004 swsusp format end to end (issue 6), with the seeds writer
# (tests/seeds/writer.c) playing a 2.6.8 kernel patched with kernel-patch/.
#   seeds.sh ARCH CASE    ARCH: x64 | ia32    CASE: cycle | toolarge | corrupt-KIND
# cycle:    boot 1 the writer writes its image and powers off (page 0: S1SUSPFW1;
#           build/seeds-check, when built, reads it back with efiresume's reader and
#           checks the test buffer, the page tables and the entry); boot 2 efiresume
#           resumes it: the writer checks its memory and exits QEMU with status 33;
#           boot 3 efiresume finds no image and starts the fallback (the writer in
#           probe mode).
# toolarge: `pages` so large that the pagedir needs more than 768 pages: the writer
#           refuses and writes nothing.
# corrupt-KIND: boot 1 as in cycle, then one corruption of the written image; boot 2
#           efiresume refuses it before the point of no return (page 0 as it was) and
#           the fallback starts. KIND: sig (page 0 signature), info (swsusp_info's
#           firmware magic), pagedir (a pbe's data page outside the partition),
#           toomany (swsusp_info claims 769 pagedir pages).
# Env: SEEDS_WRITER, SEEDS_EFIRESUME override the binaries; MEM, SMP as run_qemu.
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
arch=$1 case=$2
d=$(scratch "seeds-$arch-$case")
writer=${SEEDS_WRITER:-$BUILD/seeds-writer-$arch.efi}
efiresume=${SEEDS_EFIRESUME:-$BUILD/efiresume-$arch.efi}
check=$BUILD/seeds-check
boot=$(efi_boot_name "$arch")
[ -f "$writer" ] || die "$writer missing (make)"

make_disk "$d/disk.img" 64
mkswap_disk "$d/disk.img" "$SWAP_PARTUUID"
esp_put "$d/disk.img" "$writer" "::/EFI/BOOT/$boot"
new_vars "$arch" "$d/vars.fd"
ok=0

# boot N: run QEMU, print its status, and fail on a timeout or another status than wanted
boot() {
	local n=$1 want=$2 tmo=$3 rc=0
	run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot$n.log" "$tmo" || rc=$?
	if [ "$rc" -eq "$want" ]; then
		pass "boot $n: QEMU exit status $rc"
	elif [ "$rc" -eq 124 ]; then
		fail "boot $n: QEMU timed out after $tmo s"
	else
		fail "boot $n: QEMU exit status $rc, want $want"
	fi
}

sig_is() {
	local want=$1 what=$2 sig
	sig=$(swap_sig "$d/disk.img")
	if [ "$sig" = "$want" ]; then pass "$what: swap signature $sig"; else fail "$what: swap signature '$sig', want $want"; fi
}

case $case in
toolarge)
	# more than 768 pagedir pages: 768 * 4096 / 32 = 98304 pbes on x86_64, 196608 on i386
	pages=100000
	[ "$arch" = ia32 ] && pages=200000
	printf 'pages %s\n' "$pages" > "$d/seeds.conf"
	esp_put "$d/disk.img" "$d/seeds.conf" ::/seeds.conf
	swap_page0 "$d/disk.img" "$d/page0.before"
	echo "boot 1: the writer with a test buffer of $pages pages"
	boot 1 0 120
	expect "$d/boot1.log" '^SEEDS-TEST: refused: image needs [0-9]+ pagedir pages, more than 768$' "the writer refuses" || ok=1
	expect_not "$d/boot1.log" 'SEEDS-TEST: (image written|error)' "no image, no error" || ok=1
	swap_page0 "$d/disk.img" "$d/page0.after"
	if cmp -s "$d/page0.before" "$d/page0.after"; then
		pass "swap page 0 unchanged"
	else
		fail "changed: swap page 0"
	fi
	sig_is SWAPSPACE2 "after the refusal"
	;;
cycle)
	[ -f "$efiresume" ] || die "$efiresume missing (make)"
	echo "boot 1: the writer snapshots itself and writes the image"
	boot 1 0 120
	expect "$d/boot1.log" '^SEEDS-TEST: image written: [0-9]+ pages, [0-9]+ pagedir pages$' "image written" || ok=1
	sig_is S1SUSPFW1 "after boot 1"
	clean_log "$d/boot1.log" > "$d/boot1.txt"
	counts=$(sed -n 's/^SEEDS-TEST: image written: \([0-9]*\) pages, \([0-9]*\) pagedir pages$/\1 \2/p' "$d/boot1.txt")
	bufinfo=$(sed -n 's/^SEEDS-TEST: buffer at \(0x[0-9a-f]*\), pages \(0x[0-9a-f]*\), seed \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$d/boot1.txt")
	if [ -x "$check" ] && [ -n "$counts" ] && [ -n "$bufinfo" ]; then
		# shellcheck disable=SC2086
		if "$check" "$arch" "$d/disk.img" "$(swap_offset)" "$(swap_size "$d/disk.img")" $bufinfo $counts > "$d/check.log" 2>&1; then
			pass "seeds-check: efiresume's reader accepts the image; buffer, page tables and entry as written"
		else
			fail "seeds-check:"; sed 's/^/  | /' "$d/check.log"
		fi
	else
		echo "  (seeds-check not run: $check missing or the writer's report incomplete)"
	fi
	[ $ok -eq 0 ] || { echo "boot 1 failed; not resuming"; exit 1; }

	echo "boot 2: efiresume resumes the writer"
	cat > "$d/efiresume.conf" <<-'CONF'
	# seeds test: resume at once; no image -> the writer (in probe mode: seeds.conf)
	timeout 0
	fallback \EFI\BOOT\writer.efi
	CONF
	# probe mode from now on: should efiresume fall back, the writer must not write again
	printf 'probe yes\n' > "$d/seeds.conf"
	esp_put "$d/disk.img" "$efiresume" "::/EFI/BOOT/$boot"
	esp_put "$d/disk.img" "$writer" ::/EFI/BOOT/writer.efi
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	esp_put "$d/disk.img" "$d/seeds.conf" ::/seeds.conf
	boot 2 33 300
	expect "$d/boot2.log" "efiresume: efiresume .* \($arch\) started" "efiresume started" || ok=1
	expect "$d/boot2.log" '^SEEDS-TEST: resumed: buffer ok, counter 3, stack ok$' "the writer resumed with its memory intact" || ok=1
	expect_not "$d/boot2.log" 'SEEDS-TEST: (probe|writer)' "the fallback did not run" || ok=1
	sig_is SWAPSPACE2 "after the resume (orig_sig restored)"

	echo "boot 3: no second resume"
	boot 3 0 180
	expect "$d/boot3.log" "efiresume: swap PARTUUID=$SWAP_PARTUUID: no image" "efiresume finds no image" || ok=1
	expect "$d/boot3.log" '^SEEDS-TEST: probe$' "the fallback (the writer, probing) started" || ok=1
	expect_not "$d/boot3.log" 'SEEDS-TEST: resumed' "no second resume" || ok=1
	;;
corrupt-*)
	kind=${case#corrupt-}
	[ -f "$efiresume" ] || die "$efiresume missing (make)"
	echo "boot 1: the writer writes its image"
	boot 1 0 120
	expect "$d/boot1.log" '^SEEDS-TEST: image written' "image written" || ok=1
	base=$(swap_offset)
	# little-endian fields of the image (the layouts of image/swsusp2004.h)
	rd() { od -An -tu"$2" -j "$1" -N "$2" "$d/disk.img" | tr -d ' '; }
	wr() { local off=$1 n=$2 v=$3 i; for ((i = 0; i < n; i++)); do
		printf "\\$(printf %03o $(( (v >> (8 * i)) & 255 )))" | dd of="$d/disk.img" bs=1 seek=$((off + i)) conv=notrunc status=none
	done; }
	if [ "$arch" = x64 ]; then w=8 ent=4068 tail=3512 slots=440 pdp=424 imp=416 swap_in_pbe=16 pbe=32
	else w=4 ent=4072 tail=3488 slots=416 pdp=408 imp=404 swap_in_pbe=8 pbe=16; fi
	info=$(( $(rd $((base + ent)) $w) & ((1 << (w * 8 - 5)) - 1) ))
	infoff=$((base + info * 4096))
	case $kind in
	sig) printf 'S1SUSPFW9' | dd of="$d/disk.img" bs=1 seek=$((base + 4086)) conv=notrunc status=none
	     want="efiresume: swap PARTUUID=$SWAP_PARTUUID: no swap signature" ;;
	info) wr $((infoff + tail)) 4 $(( $(rd $((infoff + tail)) 4) ^ 0x01000000 ))
	      want='image refused: ' ;;
	pagedir) pd=$(rd $((infoff + slots)) 4)
	         wr $((base + pd * 4096 + swap_in_pbe)) $w $((0x7fffff0))
	         want='image refused: ' ;;
	toomany) # consistent counts: as many pbes as need exactly 769 pagedir pages
	         wr $((infoff + imp)) $w $((768 * 4096 / pbe))
	         wr $((infoff + pdp)) $w 769
	         want='image refused: .*768' ;;
	*) die "unknown corruption $kind" ;;
	esac
	echo "  corrupted: $kind"
	swap_page0 "$d/disk.img" "$d/page0.before"
	printf 'timeout 0\nfallback \\EFI\\BOOT\\writer.efi\n' > "$d/efiresume.conf"
	printf 'probe yes\n' > "$d/seeds.conf"
	esp_put "$d/disk.img" "$efiresume" "::/EFI/BOOT/$boot"
	esp_put "$d/disk.img" "$writer" ::/EFI/BOOT/writer.efi
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	esp_put "$d/disk.img" "$d/seeds.conf" ::/seeds.conf
	echo "boot 2: efiresume must refuse"
	boot 2 0 180
	expect "$d/boot2.log" "$want" "refused ($kind)" || ok=1
	expect_not "$d/boot2.log" 'handing off|SEEDS-TEST: resumed' "no hand-off" || ok=1
	expect "$d/boot2.log" '^SEEDS-TEST: probe$' "the fallback started" || ok=1
	swap_page0 "$d/disk.img" "$d/page0.after"
	if cmp -s "$d/page0.before" "$d/page0.after"; then pass "swap page 0 unchanged"; else fail "changed: swap page 0"; fi
	;;
*)
	die "unknown case $case (cycle | toolarge | corrupt-KIND)"
	;;
esac
exit $ok
