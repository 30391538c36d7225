#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: benchmarks, reported as medians and ratios.
#  1. image/ decompression + CRC32 throughput on the host vs liblzo2 / liblz4 / zlib, on the
#     uncompressed body of a real hibernation image.
#     The parallel decompression engine (loader/parallel.c) with 1 and 2 threads on the
#     same body; crypto on the host (AES-256-XTS, PBKDF2, AES-256-GCM, SHA-256 and
#     HMAC-SHA256 of 4 KiB pages vs OpenSSL, CRC32 of 4 KiB pages vs zlib; Argon2id vs libargon2).
#  4. (tests/bench-luks.sh) unlocking a default-shape Argon2id LUKS2 keyslot in firmware
#     (QEMU) vs cryptsetup on the host.
#  5. Secure Boot's encrypted images: the patched kernel with the key vs without, efiresume's
#     total for an encrypted vs a plain image of the same system.
#  3. (tests/bench-debian.sh) on a real Debian 12 and 13 system: efiresume through BootNext vs
#     initramfs-tools' resume, same system, same kind of image; and Debian 13's encrypted
#     LVM layout (the passphrase asked by efiresume vs by the initramfs, the unlock's share).
#  2. resume time, efiresume vs the kernel's own resume path, on copies of the same image
#     (BENCH_RUNS runs each, default 3), for each of BENCH_ARCHES (default "x64 ia32").
#     Two spans: QEMU start -> the marker the guest prints when its hibernate command
#     returns; and the boot program's start (efiresume's first line) -> that marker.
set -euo pipefail
. "$(dirname "$0")/lib/fixture.sh"
RUNS=${BENCH_RUNS:-3}
ARCHES=${BENCH_ARCHES:-x64 ia32}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

kpkg_for() { case $1 in x64) echo linux-image-cloud-amd64 ;; ia32) echo linux-image-686:i386 ;; esac; }

# one timed boot: prints "<QEMU start->marker> <boot program start->marker>"
timed_boot() {
	local arch=$1 disk=$2 vars=$3 log=$4
	{ QEMU_SERIAL="-serial stdio" run_qemu "$arch" "$disk" "$vars" /dev/null 300 || true; } | "$TOP/tests/lib/tslog.py" "$log"
	sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$log" > "$log.txt"
	local start mark
	start=$(awk '/efiresume: efiresume .* started/ { print $1; exit }' "$log.txt")
	mark=$(awk '/EFIRESUME-TEST: resumed/ { print $1; exit }' "$log.txt")
	[ -n "$mark" ] && [ -n "$start" ] || { echo "no resume marker in $log" >&2; return 1; }
	echo "$mark $(awk -v a="$start" -v b="$mark" 'BEGIN { printf "%.3f", b - a }')"
}

first=1
for arch in $ARCHES; do
	name=bench-$arch
	make_fixture "$name" "$arch" "$(kpkg_for "$arch")" > /dev/null
	fx=$(fixture_dir "$name")
	d=$(scratch "bench-$arch")
	boot=$(efi_boot_name "$arch")

	if [ $first = 1 ]; then
		first=0
		echo "== image/ codecs on the host ($(fixture_fact "$fx" kernel), $(fixture_fact "$fx" compressor))"
		"$BUILD/swsusp-inspect" --dump-body "$d/body.bin" "$fx/disk.img" > /dev/null
		"$BUILD/bench-codec" "$d/body.bin" | sed 's/^/    /'
		echo "== the parallel decompression engine on the host: 1 thread vs 2 (this machine has $(nproc) cores)"
		"$BUILD/bench-parallel" "$d/body.bin" | sed 's/^/    /'
		rm -f "$d/body.bin"
		echo "== crypto on the host: AES-256-XTS, PBKDF2, AES-256-GCM, SHA-256, HMAC-SHA256 vs OpenSSL; CRC32 vs zlib"
		"$BUILD/bench-crypto" | sed 's/^/    /'
		echo "== Argon2id on the host vs libargon2 (LUKS2-like parameters)"
		"$BUILD/bench-argon2" | sed 's/^/    /'
	fi

	echo "== $arch: resume time, $RUNS runs each, same image ($(fixture_fact "$fx" kernel), $(fixture_fact "$fx" image_pages) pages, $(fixture_fact "$fx" compressor))"
	: > "$d/efiresume.times"; : > "$d/kernel.times"; : > "$d/phases"
	nomatch=00000000-0000-0000-0000-000000000000
	for i in $(seq "$RUNS"); do
		# efiresume's path
		copy_fixture "$name" "$d/e$i" > /dev/null
		esp_put "$d/e$i/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$boot"
		timed_boot "$arch" "$d/e$i/disk.img" "$d/e$i/vars.fd" "$d/e$i/serial" >> "$d/efiresume.times"
		{ grep -a 'efiresume: timing:' "$d/e$i/serial.txt" | tr '\n' ' '
		  # from the last line efiresume prints to the marker: ExitBootServices, the restore
		  # routine and the kernel's own restore work (devices, CPUs)
		  awk '/handing off to the image kernel/ { h = $1 } /EFIRESUME-TEST: resumed/ { printf " handoff %d ms\n", ($1 - h) * 1000; exit }' "$d/e$i/serial.txt"; } >> "$d/phases"
		# the kernel's own path: efiresume told to look elsewhere, the kernel resumes itself
		copy_fixture "$name" "$d/k$i" > /dev/null
		esp_put "$d/k$i/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$boot"
		{ sed 's/^options \(.*\)$/options \1 efiresume_kresume/' "$fx/efiresume.conf"; echo "resume PARTUUID=$nomatch"; } > "$d/k$i/efiresume.conf"
		esp_put "$d/k$i/disk.img" "$d/k$i/efiresume.conf" ::/EFI/BOOT/efiresume.conf
		timed_boot "$arch" "$d/k$i/disk.img" "$d/k$i/vars.fd" "$d/k$i/serial" >> "$d/kernel.times"
		rm -f "$d/e$i/disk.img" "$d/k$i/disk.img"
	done
	ea=$(cut -d' ' -f1 "$d/efiresume.times" | median); eb=$(cut -d' ' -f2 "$d/efiresume.times" | median)
	ka=$(cut -d' ' -f1 "$d/kernel.times" | median); kb=$(cut -d' ' -f2 "$d/kernel.times" | median)
	printf '    %-44s %9s %8s %8s\n' "median seconds" efiresume kernel ratio
	printf '    %-44s %9.2f %8.2f %8s\n' "QEMU start -> resumed shell" "$ea" "$ka" "$(ratio "$ea" "$ka")"
	printf '    %-44s %9.2f %8.2f %8s\n' "boot program start -> resumed shell" "$eb" "$kb" "$(ratio "$eb" "$kb")"
	echo "    efiresume phases (median ms of $RUNS runs):"
	for ph in verify read decompress plan place prepare handoff; do
		v=$(sed -nE "s/.* $ph[+a-z0-9]* ([0-9]+) ms.*/\1/p" "$d/phases" | median)
		case $ph in
		decompress) label="decompress+crc32" ;;
		handoff) label="hand-off (EBS, restore routine, kernel restore)" ;;
		*) label=$ph ;;
		esac
		printf '      %-48s %6s ms\n' "$label" "$v"
	done
	echo "    raw: $d/efiresume.times $d/kernel.times $d/phases"
done

# 3. the same comparison on a real Debian 12 system (systemd, initramfs-tools, the .deb):
#    efiresume through BootNext vs initramfs-tools' own resume
"$TOP/tests/bench-debian.sh"
# and on the Debian 13 system (systemd 257, Debian's 6.12; built and cached when absent)
echo
BENCH_DEBIAN=13 "$TOP/tests/bench-debian.sh"
# and Debian 13's encrypted-LVM layout: the passphrase asked by efiresume at the firmware vs by
# the initramfs (cryptsetup-initramfs), the LUKS unlock's share of each
echo
BENCH_DEBIAN=13 BENCH_LAYOUT=crypt-lvm "$TOP/tests/bench-debian.sh"

# 4. unlocking a LUKS2 keyslot with cryptsetup's default Argon2id shape: efiresume in
#    firmware (1 and 2 vCPUs) vs cryptsetup on the host, same header
echo
echo "== LUKS2 unlock (argon2id, 1 GiB): efiresume in firmware vs cryptsetup"
"$TOP/tests/bench-luks.sh"

# 5. the price of Secure Boot's encrypted images (contract v2), with the patched 6.12 test
#    kernel (built and cached by make kernel when absent): BENCH_RUNS hibernations of one
#    system with the key (Secure Boot on, lockdown=confidentiality: the image encrypted and
#    authenticated) and as many without it (the same variable store with Secure Boot off: no
#    key, no lockdown, a plain image), same kernel, disk and run; in the kernel, printk time
#    from "Wrote" to S5 and from "Creating image" to S5; each image then resumed by efiresume:
#    its own total (start to hand-off), decrypting and verifying every page, or not
echo
echo "== Secure Boot's encrypted images (kernel-patch/6.12, contract v2): encrypted vs plain, hibernation and efiresume's resume"
make -s -C "$TOP" kernel >/dev/null
COST_RUNS=$RUNS "$TOP/tests/e2e/kernel-cycle.sh" cost | grep -E '^  (key|none)( run|:)|kernel-cycle cost:' |
	sed -e 's/^  key/  with the key (encrypted)/' -e 's/^  none/  without (plain)      /'
