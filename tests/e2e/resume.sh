#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The full cycle through efiresume on a real Debian kernel:
#   boot 1 (fixture): efiresume finds no image, starts the kernel; it hibernates
#   boot 2: efiresume resumes the image; the resumed shell checks its memory, the
#           swap, EFI variables and the disk
#   boot 3: no second resume: efiresume finds no image and starts the fallback
# resume.sh NAME ARCH KPKG [backports] [-- KERNEL_ARGS...]   env: MEM, SMP
#   SWAPFILE_VIA=conf: (a swap-file fixture) boot 2 names the swap file in
#   efiresume.conf (resume PARTUUID= + resume-offset) instead of relying on the
#   HibernateLocation variable boot 1 left
#   CONF_EXTRA="key value": a line added to efiresume.conf for boot 2 (e.g. resume PARTUUID=)
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
name=$1 arch=$2
make_fixture "$@"
fx=$(fixture_dir "$name")
d=$(scratch "resume-$name")
copy_fixture "$name" "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$(efi_boot_name "$arch")"
token=$(fixture_fact "$fx" token) md5=$(fixture_fact "$fx" md5) comp=$(fixture_fact "$fx" compressor)
SWAP_PAGE=$(fixture_fact "$fx" swap_page)
SWAP_PAGE=${SWAP_PAGE:-0}
# how efiresume names partition 2 (GPT: its PARTUUID; DOS table: disk signature-02)
id=$(fixture_fact "$fx" swap_id)
id=${id:-PARTUUID=$SWAP_PARTUUID}
ok=0
# how efiresume names the swap area it looks at
if [ "$SWAP_PAGE" = 0 ]; then
	area="swap $id:"
	via=
else
	via=HibernateLocation
	if [ "${SWAPFILE_VIA:-}" = conf ]; then
		via=resume-offset
		{ cat "$fx/efiresume.conf"; echo "resume PARTUUID=$SWAP_PARTUUID"; echo "resume-offset $SWAP_PAGE"; } > "$d/efiresume.conf"
		esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	fi
	area="swap file at page $SWAP_PAGE of $id \\($via\\):"
	echo "swap file: header at page $SWAP_PAGE of partition 2, found through $via"
fi

if [ -n "${CONF_EXTRA:-}" ]; then
	{ cat "$fx/efiresume.conf"; echo "$CONF_EXTRA"; } > "$d/efiresume.conf"
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	echo "efiresume.conf for boot 2: + '$CONF_EXTRA'"
fi

echo "boot 1 (from the fixture):"
if [ "$SWAP_PAGE" = 0 ]; then
	expect "$fx/serial.log" "efiresume: $area (no image|no swap signature)" "efiresume found no image" || ok=1
else
	expect "$fx/serial.log" "efiresume: no swap partition found" "efiresume found no swap partition" || ok=1
fi
expect "$fx/serial.log" '^EFIRESUME-TEST: hibernating$' "the fallback kernel hibernated" || ok=1

echo "boot 2 (resume):"
rc=0
# the CPU boot 1 had (e.g. -cpu qemu32,+nx): the image kernel expects its features
qargs=$(fixture_fact "$fx" qemu_args)
run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot2.log" 240 $qargs || rc=$?
[ $rc -eq 0 ] || fail "qemu status $rc"
log=$d/boot2.log
expect "$log" "efiresume: found a hibernated .* on $id: [0-9]+ MiB" "first line: what will be resumed" || ok=1
expect "$log" "efiresume: $id: image of an .* kernel" "image recognised" || ok=1
expect "$log" 'efiresume: plan: [0-9]+ pages into their own frames, [0-9]+ bounced' "plan reported" || ok=1
if [ "$comp" != none ]; then
	expect "$log" 'efiresume: PARTUUID=.*: CRC32 0x[0-9a-fA-F]{8} verified' "CRC verified" || ok=1
fi
expect "$log" 'efiresume: timing: ' "phase timings reported" || ok=1
# i386 PAE on a CPU with NX: the image's page tables carry NX bits, EFER.NXE must be on
if [ "$arch" = ia32 ] && [[ " $qargs " == *+nx* ]]; then
	expect "$log" 'efiresume: i386: image kernel pages with PAE;.*NX on' "PAE with EFER.NXE" || ok=1
fi
expect "$log" 'resetting the swap signature to SWAPSPACE2 and handing off' "committed" || ok=1
expect "$log" '^EFIRESUME-TEST: resumed$' "shell continued after the hibernate command" || ok=1
expect "$log" "^EFIRESUME-TEST: token-after=$token\$" "same token" || ok=1
expect "$log" "^EFIRESUME-TEST: md5-after=$md5\$" "same md5 of the 48 MiB tmpfs file" || ok=1
if c=$(grep -aE '^EFIRESUME-TEST: counter [0-9]+ -> [0-9]+' "$log.txt"); then
	set -- $c
	if [ "$5" -gt "$3" ]; then pass "counter still counting ($3 -> $5)"; else fail "stopped counter: $c"; fi
else
	fail "missing: counter line"
fi
expect "$log" '^EFIRESUME-TEST: swap-reusable=yes' "swapoff + swapon" || ok=1
expect "$log" '^EFIRESUME-TEST: efivars-read=yes' "EFI variable read" || ok=1
expect "$log" '^EFIRESUME-TEST: efivars-write=yes' "EFI variable written" || ok=1
expect "$log" '^EFIRESUME-TEST: disk-read=yes' "disk readable" || ok=1
expect "$log" '^EFIRESUME-TEST: checks-done' "checks done" || ok=1
expect_not "$log" 'Kernel panic|BUG:|Oops|hibernate failed' "no kernel error" || ok=1
# systemd's HibernateLocation, when boot 1 left one (efiresume_hibloc)
loc=$(sed -n 's/^EFIRESUME-TEST: hibernate-location=//p' "$fx/serial.log.txt")
if [[ " $(fixture_fact "$fx" args) " == *" efiresume_hibloc "* ]] && [ -z "$loc" ]; then
	fail "missing: boot 1 did not write HibernateLocation"
fi
kver=$(fixture_fact "$fx" uname | cut -d' ' -f1)
if [ -n "$loc" ] && [ "${SWAPFILE_VIA:-}" != conf ]; then
	# as systemd-hibernate-resume does before the kernel's own resume: the variable has served
	# (with SWAPFILE_VIA=conf the configuration found the image: the variable is left alone)
	expect "$log" 'efiresume: HibernateLocation deleted \(it named this image' "HibernateLocation deleted at the commit" || ok=1
fi
if [ -n "$loc" ] && [ "$SWAP_PAGE" = 0 ]; then
	expect "$log" "efiresume: HibernateLocation: swap UUID $loc, kernel $kver" "HibernateLocation read" || ok=1
	expect "$log" "efiresume: $area hibernation image signature found \(HibernateLocation\)" "the swap it names chosen" || ok=1
	expect "$log" "efiresume: found a hibernated Linux $kver \(x86_64\)" "first line names the kernel HibernateLocation records" || ok=1
elif [ -n "$loc" ]; then
	expect "$log" "efiresume: HibernateLocation: swap file at page $SWAP_PAGE of the filesystem UUID $loc, kernel $kver" "HibernateLocation read" || ok=1
	[ "$via" = resume-offset ] ||
		expect "$log" "efiresume: $id: ext4 filesystem named by HibernateLocation" "its filesystem found by UUID" || ok=1
	expect "$log" "efiresume: $area hibernation image signature found" "the swap file chosen ($via)" || ok=1
fi
sig=$(swap_sig "$d/disk.img")
[ "$sig" = SWAPSPACE2 ] && pass "swap signature is $sig" || fail "swap signature $sig"

echo "boot 3 (no second resume):"
# (a swap file: the kernel's own resume needs its offset on the command line)
ro=
[ "$SWAP_PAGE" = 0 ] || ro=" resume_offset=$SWAP_PAGE"
sed "s/^options \(.*\)$/options \1 efiresume_kresume$ro/" "$fx/efiresume.conf" > "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
rc=0
run_qemu "$arch" "$d/disk.img" "$d/vars.fd" "$d/boot3.log" 180 $qargs || rc=$?
[ $rc -eq 0 ] || fail "qemu status $rc"
if [ "$SWAP_PAGE" = 0 ]; then
	expect "$d/boot3.log" "efiresume: $area no image" "efiresume found no image" || ok=1
else
	if [ "${SWAPFILE_VIA:-}" = conf ]; then
		# the configuration found the image; the variable that also names the file is left
		# to systemd-hibernate-clear
		expect "$d/boot3.log" "efiresume: swap file at page $SWAP_PAGE of $id \(HibernateLocation\): no image" "efiresume found no image" || ok=1
	else
		# HibernateLocation was deleted at the resume: nothing names the file any more
		expect_not "$d/boot3.log" 'efiresume: HibernateLocation: ' "no HibernateLocation left" || ok=1
	fi
fi
expect "$d/boot3.log" '^EFIRESUME-TEST: booted' "fallback kernel started" || ok=1
expect "$d/boot3.log" '^EFIRESUME-TEST: kernel resume: no image' "the kernel finds no image either" || ok=1
exit $ok
