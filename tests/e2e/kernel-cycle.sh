#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The patched 6.12 test kernel (make kernel; kernel-patch/6.12) WITH efiresume, end to end,
# under OVMF with Secure Boot enforced (tests/lib/secboot.sh: snakeoil PK/KEK/db): efiresume
# signed (make sign), the bzImage signed with the same db key, started by efiresume as its
# fallback with lockdown=confidentiality. The guest (busybox initramfs) keeps a token in
# memory and hibernates (mode reboot: QEMU exits); efiresume holds the key, verifies the
# kernel's tag, rotates the key into the image kernel's key page and resumes.
#   kernel-cycle.sh cycle     boot 1: key made, table installed, image tagged (K1);
#                             boot 2: tag verified, K2 into the key page, resumed (same token),
#                             the kernel takes K2 ("new key after resume"), hibernates again
#                             (tagged with K2); boot 3: verified, K3, resumed (same token);
#                             boot 4: no image, normal boot with K3. Swap signature each step.
#   kernel-cycle.sh flip      one byte of the last data page changed (the uncompressed image
#                             carries no CRC: the header's flags are checked for that): refused
#                             by the tag, kept, fallback; control: the untouched image resumes
#   kernel-cycle.sh flip-lzo|flip-lz4  the same on a compressed image: the byte changed in the
#                             uncompressed data, the chunk recompressed and the header's CRC32
#                             recomputed (tests/e2e/kernel/flip-compressed.py): the CRC passes, the
#                             tag refuses; control: the untouched image resumes
#   kernel-cycle.sh header    the auth block's key page address (+4096, still page-aligned),
#                             then the swsusp header's hw_sig (ignored by the reader without
#                             SF_HW_SIG), then the resume offset (the header page copied to
#                             page N, efiresume told resume-offset N), then cr3 in the
#                             swsusp_info page's arch header (+4096): each refused by the tag;
#                             control: untouched resumes
#   kernel-cycle.sh replay    the image resumed (control), then the copy taken before written
#                             back: refused (another key id: K rotated), kept, fallback
#   kernel-cycle.sh otherkey  another machine's key in EfiresumeHibernationKey: refused
#                             (another key id), kept, fallback; control: own store resumes
#   kernel-cycle.sh commitfail the verified image's commit fails (QEMU blkdebug: the swap header
#                             write gets EIO): not resumed, kept, fallback with the old key put
#                             back; the next boot without the fault verifies it and resumes
#   kernel-cycle.sh lzo|lz4   a compressed tagged image (hibernate.compressor=): verified,
#                             resumed (same token), rotated key taken
#   kernel-cycle.sh cost      the tag's cost: COST_RUNS (3) hibernations with the key
#                             (Secure Boot on, lockdown=confidentiality, tagged) and without
#                             (Secure Boot off in the same store, no lockdown, untagged),
#                             printk times from "Wrote" to "sleep state S5"; each image
#                             resumed by efiresume: its total time, and its tag check
# env KERNEL_BZIMAGE: use this bzImage instead of tests/lib/kernel-build.sh's.
#     KC_CONTROL=notag|noauth|norotate: efiresume built with that check taken out (the
#     control runs of the refusal cases: they must fail with it; see below).
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: cycle flip flip-lzo flip-lz4 header replay otherkey commitfail lzo lz4 cost}
bz=${KERNEL_BZIMAGE:-$("$TOP/tests/lib/kernel-build.sh")}
d=$(scratch "kernel-cycle-$case")
T0=$(date +%s)
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 || { echo "  make sign failed"; exit 1; }
sb_sign "$d/snakeoil.key" "$bz" "$d/vmlinuz.efi"
EFI=$BUILD/efiresume-x64.signed.efi
# KC_CONTROL: the control runs, with a check removed: efiresume built from this tree (git
# archive of HEAD) with one comparison taken out, signed the same way. The refusal cases must
# fail with it.
#   notag     the tag's comparison (loader/auth_run.c: the pages still hashed, the result
#             ignored): flip, flip-lzo, flip-lz4, header
#   noauth    that and the key id's comparison (another key's tag can never match, so both go):
#             otherkey
#   norotate  the key is not rotated after a verified image (loader/resume.c): replay
ctl_edit() {   # ctl_edit FILE SED-EXPR CHECK-STRING
	sed -i "$2" "$d/ctl/$1"
	grep -qF "$3" "$d/ctl/$1" || die "KC_CONTROL=$KC_CONTROL: the code to take out was not found in $1"
}
if [ -n "${KC_CONTROL:-}" ]; then
	mkdir -p "$d/ctl"
	git -C "$TOP" archive HEAD | tar -x -C "$d/ctl"
	case $KC_CONTROL in
	notag | noauth)
		ctl_edit loader/auth_run.c 's/ok = fed == img->image_pages && er_auth_end(&ar->mac, ar->blk.tag);/ok = fed == img->image_pages; (void)er_auth_end(\&ar->mac, ar->blk.tag);/' '(void)er_auth_end' ;;&
	noauth)
		ctl_edit loader/auth_run.c 's/if (!er_ct_equal(ar->blk.key_id, er_sb.key_id, ER_KEY_ID_LEN)) {/if (0 \&\& !er_ct_equal(ar->blk.key_id, er_sb.key_id, ER_KEY_ID_LEN)) {/' 'if (0 && !er_ct_equal' ;;
	norotate)
		ctl_edit loader/resume.c 's|^\(\s*\)er_auth_run_rotate(&ar, l.pfns);|\1/* control: not rotated */|' '/* control: not rotated */' ;;
	notag) ;;
	*) die "KC_CONTROL: notag, noauth or norotate" ;;
	esac
	make -s -C "$d/ctl" sign KEY="$d/snakeoil.key" CERT="$SB_CERT" >"$d/ctl.log" 2>&1 || { tail "$d/ctl.log"; die "control build failed"; }
	EFI=$d/ctl/build/efiresume-x64.signed.efi
	echo "  CONTROL $KC_CONTROL: efiresume with that check taken out ($EFI)"
fi

# The guest. ktest=hibernate: swapon (the host's mkswap, its UUID), then up to ktest_rounds
# hibernations, reporting after each resume; ktest=report (or a swap area that is not
# SWAPSPACE2, e.g. a kept image): report and power off, the swap untouched.
cat > "$d/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security
arg() { for w in $(cat /proc/cmdline); do case $w in "$1="*) echo "${w#*=}" ;; esac; done; }
mode=$(arg ktest); rounds=$(arg ktest_rounds)
sig=$(dd if=/dev/vda2 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\000')
echo "KTEST: boot mode=$mode rounds=$rounds swap=$sig"
echo "KTEST: lockdown: $(cat /sys/kernel/security/lockdown)"
echo "KTEST: disk: $(cat /sys/power/disk)"
if [ "$mode" != hibernate ] || [ "$sig" != SWAPSPACE2 ]; then
	echo "KTEST: not hibernating; powering off"
	poweroff -f
fi
swapon /dev/vda2 || echo "KTEST: swapon failed"
cat /sys/class/block/vda2/dev > /sys/power/resume
echo reboot > /sys/power/disk || echo "KTEST: mode reboot refused"
token=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
echo "KTEST: token=$token"
n=0
while [ $n -lt "${rounds:-1}" ]; do
	n=$((n + 1))
	echo "KTEST: hibernating (round $n)"
	if echo disk > /sys/power/state; then
		echo "KTEST: resumed (round $n) token=$token"
		echo "KTEST: disk after resume: $(cat /sys/power/disk)"
		echo "KTEST: lockdown after resume: $(cat /sys/kernel/security/lockdown)"
	else
		echo "KTEST: hibernate refused (round $n)"
		break
	fi
done
swapoff /dev/vda2
echo "KTEST: done; powering off"
poweroff -f
INIT
mkdir -p "$d/kdir/lib/modules"
make_initramfs x64 "$d/kdir" "$d/init" "$d/initrd.gz"

# conf MODE ROUNDS [kernel args]: efiresume.conf on the ESP (read again at every boot)
LOCK="lockdown=confidentiality"
COMP="hibernate=nocompress"
conf() {
	printf 'timeout 0\nfallback \\vmlinuz.efi\noptions initrd=\\initrd.gz console=ttyS0 loglevel=7 panic=-1 no_timer_check printk.time=1 %s ktest=%s ktest_rounds=%s\n' \
		"${3-$LOCK $COMP}" "$1" "$2" > "$d/efiresume.conf"
	esp_put "$DISK" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
}
new_disk() {   # new_disk FILE
	DISK=$1
	make_disk "$DISK" 640
	esp_put "$DISK" "$EFI" ::/EFI/BOOT/BOOTX64.EFI
	esp_put "$DISK" "$d/vmlinuz.efi" ::/vmlinuz.efi
	esp_put "$DISK" "$d/initrd.gz" ::/initrd.gz
	mkswap_disk "$DISK" $SWAP_PARTUUID
}

ok=0
bad() { echo "  WRONG: $*"; ok=1; }
# boot NAME [DISK [VARS]]: one QEMU run, timed
boot() {
	local rc=0 t=$(date +%s.%N)
	sb_run_qemu "${2:-$DISK}" "${3:-$d/vars.fd}" "$d/$1.log" "${BOOT_TIMEOUT:-300}" -device virtio-rng-pci || rc=$?
	echo "  boot $1: qemu exit status $rc, $(echo "$(date +%s.%N) - $t" | bc | cut -c1-5) s"
	[ $rc -ne 124 ] || bad "QEMU timed out in boot $1"
	clean_log "$d/$1.log" > "$d/$1.txt"
}
# grab NAME SED-REGEX: the first \1 of the boot's log
grab() { sed -n "s/$2/\1/p" "$d/$1.txt" | head -1; }
sig_is() {   # sig_is WANT WHEN [DISK]
	local s
	s=$(swap_sig "${3:-$DISK}")
	[ "$s" = "$1" ] && echo "  ok: swap signature $s $2" || bad "swap signature '$s' $2 (want $1)"
}
hdr_md5() { dd if="${1:-$DISK}" bs=4096 skip=$(($(swap_offset) / 4096)) count=1 status=none | md5sum | cut -d' ' -f1; }

# the first boot: key made (K1), kernel takes it, hibernates, image tagged. Sets K1, PAGES1.
hibernate_boot() {
	local L=$d/$1.log
	boot "$1"
	expect "$L" 'efiresume: Secure Boot is on' "efiresume started under Secure Boot" || ok=1
	expect "$L" 'efiresume: Secure Boot: hibernation key made and stored in EfiresumeHibernationKey \(NV\|BS\) \(key id [0-9a-f]{16}\)' "key made (NV|BS)" || ok=1
	K1=$(grab "$1" '.*hibernation key made.*(key id \([0-9a-f]*\)).*')
	expect "$L" 'efiresume: Secure Boot: key table f81507ad-4bd7-47e1-92c8-5dbd29e50049 installed' "key table installed" || ok=1
	expect "$L" "PM: hibernation key: received from efiresume \(key id $K1\)" "the kernel received K1 ($K1)" || ok=1
	expect "$L" 'PM: hibernation key: kept \(lockdown: confidentiality\)' "key kept (confidentiality)" || ok=1
	expect "$L" '^KTEST: lockdown: .*\[confidentiality\]' "locked down at confidentiality" || ok=1
	expect "$L" '^KTEST: disk: .*reboot' "/sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$L" "PM: hibernation key: image tagged \(key id $K1, [0-9]+ pages\)" "image tagged with K1" || ok=1
	PAGES1=$(grab "$1" '.*image tagged (key id [0-9a-f]*, \([0-9]*\) pages).*')
	TOKEN=$(grab "$1" '^KTEST: token=\([0-9a-f]*\)$')
	expect_not "$L" 'KTEST: hibernate refused' "hibernated" || ok=1
	sig_is S1SUSPEND "after $1"
	local m
	m=$(dd if="$DISK" bs=1 skip=$(( $(swap_offset) + 512 )) count=8 status=none)
	[ "$m" = EFRHMAC1 ] && echo "  ok: auth block EFRHMAC1 at offset 512" || bad "auth block magic '$m'"
}

# resume_boot NAME KID PAGES ROUND: efiresume verifies (key KID), rotates, resumes. Sets KNEW, SLOT.
resume_boot() {
	local L=$d/$1.log
	boot "$1" "${DISK}" "${VARS:-$d/vars.fd}"
	expect "$L" "efiresume: Secure Boot: hibernation key read \(key id $2\)" "efiresume read the key ($2)" || ok=1
	expect "$L" 'auth block found \(key id matches, key page 0x[0-9A-Fa-f]+\)' "auth block found" || ok=1
	SLOT=$(grab "$1" '.*auth block found (key id matches, key page \(0x[0-9A-Fa-f]*\)).*')
	expect "$L" "efiresume: .*Secure Boot: tag verified over $3 pages \([0-9]+ ms\)" "tag verified over the $3 pages the kernel tagged" || ok=1
	expect "$L" 'efiresume: Secure Boot: hibernation key rotated \(key id [0-9a-f]{16}\)' "key rotated" || ok=1
	KNEW=$(grab "$1" '.*hibernation key rotated (key id \([0-9a-f]*\)).*')
	[ -n "$KNEW" ] && [ "$KNEW" != "$2" ] && echo "  ok: new key id $KNEW" || bad "rotated key id '$KNEW'"
	expect "$L" "Secure Boot: new key written to the image kernel's key page $SLOT" "K' written to the key page $SLOT" || ok=1
	expect "$L" "PM: hibernation key: new key after resume \(key id $KNEW\)" "the resumed kernel took the rotated key from the slot" || ok=1
	expect "$L" "^KTEST: resumed \(round $4\) token=$TOKEN\$" "resumed (round $4), same token $TOKEN" || ok=1
	expect "$L" '^KTEST: disk after resume: .*reboot' "after resume: /sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$L" '^KTEST: lockdown after resume: .*\[confidentiality\]' "after resume: still at confidentiality" || ok=1
	expect_not "$L" '^KTEST: boot mode' "no fresh boot of the kernel (resumed, not the fallback)" || ok=1
	expect_not "$L" 'timing: .* [0-9]{8,} ms' "efiresume's timing line without a wrapped-around value" || ok=1
}

# refused_boot NAME DISK VARS WHY-REGEX: refused with a clear line, kept byte for byte, fallback
refused_boot() {
	local L=$d/$1.log before
	before=$(hdr_md5 "$2")
	boot "$1" "$2" "$3"
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: image refused: Secure Boot: $4" "refused: $4" || ok=1
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: reason-code auth; nothing was written, the image is kept" "reason-code auth, kept" || ok=1
	expect_not "$L" 'hibernation key rotated' "the key was not rotated" || ok=1
	expect "$L" '^KTEST: boot mode=report .*swap=S1SUSPEND' "the fallback kernel booted, saw the image kept" || ok=1
	sig_is S1SUSPEND "after $1" "$2"
	[ "$(hdr_md5 "$2")" = "$before" ] && echo "  ok: swap header page unchanged" || bad "the swap header page changed"
}

# flip_last_data_byte DISK: one byte of the last data page (through the swap map)
flip_last_data_byte() {
	python3 - "$1" "$(swap_offset)" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b"); off = int(sys.argv[2])
def page(n): f.seek(off + n * 4096); return f.read(4096)
m = struct.unpack_from("<Q", page(0), 4064)[0]; last = None
while m:
    e = struct.unpack_from("<512Q", page(m)); last = [x for x in e[:511] if x][-1] if any(e[:511]) else last; m = e[511]
f.seek(off + last * 4096 + 1000); b = f.read(1); f.seek(off + last * 4096 + 1000); f.write(bytes([b[0] ^ 1]))
print("flipped byte 1000 of swap page %d" % last)
PY
}
# poke DISK OFFSET-IN-HEADER-PAGE LE32-DELTA (u64 at OFFSET when WIDTH=8)
poke() {
	python3 - "$1" $(( $(swap_offset) + $2 )) "$3" "${4:-4}" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b"); at = int(sys.argv[2]); delta = int(sys.argv[3]); w = int(sys.argv[4])
fmt = "<Q" if w == 8 else "<I"
f.seek(at); v = struct.unpack(fmt, f.read(w))[0]; f.seek(at); f.write(struct.pack(fmt, (v + delta) % (1 << (8 * w))))
print("0x%x -> 0x%x" % (v, (v + delta) % (1 << (8 * w))))
PY
}
# vars_copy NAME: a copy of the store as it is now, for one boot, so that each change of a
# case meets the same key (in the control without the tag check, one accepted image rotates it)
vars_copy() { cp "$d/vars.fd" "$d/vars-$1.fd"; echo "$d/vars-$1.fd"; }
hdr_flags() { od -An -tu4 -j $(( $(swap_offset) + 4072 )) -N4 "$DISK" | tr -d ' '; }

sb_new_vars "$d/vars.fd"
case $case in
cycle)
	new_disk "$d/disk.img"
	conf hibernate 2
	say "kernel-cycle cycle: boot 1 (no image: key made, kernel hibernates)"
	hibernate_boot boot1
	say "kernel-cycle cycle: boot 2 (verify K1, resume, hibernate again with K2)"
	resume_boot boot2 "$K1" "$PAGES1" 1
	K2=$KNEW
	expect "$d/boot2.log" '^KTEST: hibernating \(round 2\)' "hibernating again (round 2)" || ok=1
	expect "$d/boot2.log" "PM: hibernation key: image tagged \(key id $K2, [0-9]+ pages\)" "the second image tagged with the rotated key $K2" || ok=1
	PAGES2=$(grab boot2 '.*image tagged (key id [0-9a-f]*, \([0-9]*\) pages).*')
	sig_is S1SUSPEND "after boot 2 (the second image)"
	say "kernel-cycle cycle: boot 3 (verify K2, resume)"
	resume_boot boot3 "$K2" "$PAGES2" 2
	K3=$KNEW
	expect "$d/boot3.log" '^KTEST: done; powering off' "powered off after round 2" || ok=1
	sig_is SWAPSPACE2 "after boot 3 (resumed, no image)"
	say "kernel-cycle cycle: boot 4 (no image: normal boot)"
	conf report 0
	boot boot4
	expect "$d/boot4.log" "efiresume: Secure Boot: hibernation key read \(key id $K3\)" "boot 4 read K3 ($K3)" || ok=1
	expect_not "$d/boot4.log" 'image refused|tag verified' "no image considered" || ok=1
	expect "$d/boot4.log" "PM: hibernation key: received from efiresume \(key id $K3\)" "the kernel received K3 from the table" || ok=1
	expect "$d/boot4.log" '^KTEST: boot mode=report rounds=0 swap=SWAPSPACE2' "normal boot of the fallback" || ok=1
	sig_is SWAPSPACE2 "after boot 4"
	echo "  key ids: K1 $K1, K2 $K2, K3 $K3; pages $PAGES1, $PAGES2"
	;;
flip)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	f=$(hdr_flags)
	# SF_CRC32_MODE (4) is set only for compressed images: there is no CRC to recompute
	[ $((f & 4)) = 0 ] && echo "  ok: header flags 0x$(printf %x "$f"): no CRC32 (uncompressed), only the tag covers the data" || bad "flags $f: CRC32 mode"
	cp --sparse=always "$DISK" "$d/flip.img"
	flip_last_data_byte "$d/flip.img"
	conf report 0
	esp_put "$d/flip.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	refused_boot flip "$d/flip.img" "$d/vars.fd" 'the tag does not match'
	say "control: the untouched image"
	resume_boot control "$K1" "$PAGES1" 1
	;;
flip-lzo|flip-lz4)
	COMP="hibernate.compressor=${case#flip-}"
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	f=$(hdr_flags)
	[ $((f & 6)) = 4 ] && echo "  ok: header flags 0x$(printf %x "$f"): compressed, CRC32 mode" || bad "flags 0x$(printf %x "$f"): not compressed with a CRC32"
	conf report 0
	cp --sparse=always "$DISK" "$d/flip.img"
	python3 "$TOP/tests/e2e/kernel/flip-compressed.py" "$d/flip.img" "$(swap_offset)" "${case#flip-}" | sed 's/^/  /' || bad "flip-compressed.py failed"
	refused_boot flip "$d/flip.img" "$d/vars.fd" 'the tag does not match'
	expect_not "$d/flip.log" 'crc-mismatch|CRC32 of the image data differs' "not caught by the CRC32 (recomputed)" || ok=1
	say "control: the untouched image"
	resume_boot control "$K1" "$PAGES1" 1
	expect "$d/control.log" "efiresume: .*CRC32 0x[0-9A-Fa-f]+ verified" "control: the CRC32 verified" || ok=1
	;;
header)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	conf report 0
	cp --sparse=always "$DISK" "$d/slot.img"
	echo "  key page address in the auth block: $(poke "$d/slot.img" $((512 + 16)) 4096 8)"
	refused_boot slot "$d/slot.img" "$(vars_copy slot)" 'the tag does not match'
	cp --sparse=always "$DISK" "$d/hwsig.img"
	f=$(hdr_flags)
	[ $((f & 8)) = 0 ] && echo "  ok: no SF_HW_SIG (flags 0x$(printf %x "$f")): the reader ignores hw_sig" || bad "SF_HW_SIG set (flags $f): the reader checks hw_sig"
	echo "  hw_sig in the swsusp header: $(poke "$d/hwsig.img" 4056 1)"
	refused_boot hwsig "$d/hwsig.img" "$(vars_copy hwsig)" 'the tag does not match'
	# the resume offset: the tag binds where the header was written (page 0 of the partition);
	# the same header page copied to page N and efiresume told to look there only (resume
	# PARTUUID= + resume-offset N, as for a swap file) reads the same image, every swap map
	# entry still valid. The auth block's plain resume_offset (u64 at +48) is set to N as
	# well (else efiresume refuses before the tag: "auth block written for resume_offset 0,
	# found at page N"): refused by the tag alone
	cp --sparse=always "$DISK" "$d/moved.img"
	n=$(( $(swap_size "$d/moved.img") / 4096 - 8 ))
	dd if="$d/moved.img" of="$d/moved.img" bs=4096 skip=$(( $(swap_offset) / 4096 )) seek=$(( $(swap_offset) / 4096 + n )) count=1 conv=notrunc status=none
	echo "  resume_offset in the copy's auth block: $(poke "$d/moved.img" $(( n * 4096 + 512 + 48 )) $n 8)"
	{ cat "$d/efiresume.conf"; printf 'resume PARTUUID=%s\nresume-offset %d\n' $SWAP_PARTUUID $n; } > "$d/moved.conf"
	esp_put "$d/moved.img" "$d/moved.conf" ::/EFI/BOOT/efiresume.conf
	echo "  the header page copied to page $n of the swap partition; efiresume.conf: resume-offset $n"
	refused_boot moved "$d/moved.img" "$(vars_copy moved)" 'the tag does not match'
	expect "$d/moved.log" "efiresume: swap file at page $n of PARTUUID=$SWAP_PARTUUID \\(resume-offset\\): hibernation image signature found" "efiresume read the header at page $n" || ok=1
	# the swsusp_info page (the first page the swap map lists): its x86_64 arch header's cr3
	# (the restore's page tables; +4096 stays page-aligned, so the reader's checks pass)
	cp --sparse=always "$DISK" "$d/cr3.img"
	at=$(python3 - "$d/cr3.img" "$(swap_offset)" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb"); off = int(sys.argv[2])
f.seek(off + 4064); m = struct.unpack("<Q", f.read(8))[0]
f.seek(off + m * 4096); info = struct.unpack("<Q", f.read(8))[0]
f.seek(off + info * 4096 + 24); magic = struct.unpack("<Q", f.read(8))[0]
assert magic == 0x23456789ABCDEF02, "swap page %d: magic 0x%x, not the x86_64 restore record's" % (info, magic)
print(info * 4096)
PY
)
	echo "  cr3 in the swsusp_info page (swap page $((at / 4096))): $(poke "$d/cr3.img" $((at + 16)) 4096 8)"
	refused_boot cr3 "$d/cr3.img" "$(vars_copy cr3)" 'the tag does not match'
	say "control: the untouched image"
	resume_boot control "$K1" "$PAGES1" 1
	;;
replay)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	cp --sparse=always "$DISK" "$d/first.img"
	say "control: resumed (key rotated)"
	resume_boot control "$K1" "$PAGES1" 1
	sig_is SWAPSPACE2 "after the resume"
	# the first image written back (the whole swap partition as it was after boot 1)
	dd if="$d/first.img" of="$DISK" bs=1M skip=$(( $(swap_offset) >> 20 )) seek=$(( $(swap_offset) >> 20 )) conv=notrunc,sparse status=none
	conf report 0
	refused_boot replay "$DISK" "$d/vars.fd" "tagged with another key \(key id $K1\): another machine, or a key rotated since"
	expect "$d/replay.log" "hibernation key read \(key id $KNEW\)" "efiresume holds the rotated key $KNEW" || ok=1
	;;
otherkey)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	conf report 0
	cp "$d/vars.fd" "$d/other.fd"
	OTHER=$(python3 - "$d/other.fd" "$TOP/tests/lib" <<'PY'
import hashlib, hmac, sys, importlib.util, types
src = open(sys.argv[2] + "/secboot-vars.py").read().replace("\nmain()\n", "\n")
m = types.ModuleType("sv"); exec(src, m.__dict__)
blob = open(sys.argv[1], "rb").read()
live = [r for r in m.records(blob) if r[2] == "EfiresumeHibernationKey" and r[0] == 0x3F and r[4] == 32]
assert len(live) >= 1, "no live key"
k = hashlib.sha256(b"another machine").digest()
with open(sys.argv[1], "r+b") as f:
    f.seek(live[-1][5]); f.write(k)
print(hmac.new(k, b"efiresume key id", hashlib.sha256).hexdigest()[:16])
PY
)
	echo "  another machine's key in the store (key id $OTHER)"
	refused_boot otherkey "$DISK" "$d/other.fd" "tagged with another key \(key id $K1\): another machine"
	expect "$d/otherkey.log" "hibernation key read \(key id $OTHER\)" "efiresume read the other key ($OTHER)" || ok=1
	say "control: the same image with this machine's store"
	resume_boot control "$K1" "$PAGES1" 1
	;;
commitfail)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	conf report 0
	before=$(hdr_md5)
	printf '[inject-error]\nevent = "write_aio"\niotype = "write"\nerrno = "5"\nsector = "%s"\n' $(( $(swap_offset) / 512 )) > "$d/blkdebug.conf"
	QEMU_DRIVE="-drive if=virtio,format=raw,cache=unsafe,file.driver=blkdebug,file.config=$d/blkdebug.conf,file.image.filename=$DISK" \
		boot fault
	L=$d/fault.log
	expect "$L" "Secure Boot: tag verified over $PAGES1 pages" "verified" || ok=1
	expect "$L" 'the swap signature could not be reset' "the commit's write failed (EIO)" || ok=1
	expect "$L" 'not resumed; nothing was changed, the image is kept' "not committed, the image kept" || ok=1
	expect "$L" "efiresume: Secure Boot: hibernation key put back: .*\(key id $K1\)" "the old key put back ($K1)" || ok=1
	expect "$L" "PM: hibernation key: received from efiresume \(key id $K1\)" "the fallback kernel got the old key" || ok=1
	expect "$L" '^KTEST: boot mode=report .*swap=S1SUSPEND' "the fallback booted, the image kept" || ok=1
	sig_is S1SUSPEND "after the failed commit"
	[ "$(hdr_md5)" = "$before" ] && echo "  ok: swap header page unchanged" || bad "the swap header page changed"
	say "the next boot, without the fault: the kept image must still verify"
	resume_boot resume "$K1" "$PAGES1" 1
	;;
lzo|lz4)
	COMP="hibernate.compressor=$case"
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	f=$(hdr_flags)
	# SF_NOCOMPRESS_MODE 2 clear; SF_LZ4 16 for lz4 only; SF_CRC32_MODE 4
	lz=0; [ $case = lz4 ] && lz=16
	[ $((f & 2)) = 0 ] && [ $((f & 16)) = $lz ] && echo "  ok: header flags 0x$(printf %x "$f"): $case-compressed" || bad "flags 0x$(printf %x "$f") for $case"
	resume_boot resume "$K1" "$PAGES1" 1
	expect "$d/resume.log" "efiresume: .*image of an x86_64 kernel, $case," "efiresume read a $case image" || ok=1
	expect "$d/resume.log" "efiresume: .*CRC32 0x[0-9A-Fa-f]+ verified" "the CRC32 verified too" || ok=1
	;;
cost)
	# key: Secure Boot on, lockdown=confidentiality: the kernel tags, efiresume verifies the tag.
	# none: the same store with SecureBootEnable 0 (Secure Boot off: no key handed over, no
	# lockdown): the kernel writes an untagged image, efiresume resumes it without a tag check.
	# Each hibernation is resumed by efiresume in the next boot: its own "total" (from its
	# start to the hand-off) with and without the tag, same kernel, disk and run.
	runs=${COST_RUNS:-3}
	new_disk "$d/disk.img"
	cp "$d/vars.fd" "$d/vars-off.fd"
	python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars-off.fd" SecureBootEnable --set1 0 >/dev/null
	for mode in key none; do
		v=$d/vars.fd; [ $mode = key ] || v=$d/vars-off.fd
		for i in $(seq "$runs"); do
			mkswap_disk "$DISK" $SWAP_PARTUUID
			if [ $mode = key ]; then conf hibernate 1; else conf hibernate 1 "$COMP"; fi
			boot "$mode$i" "$DISK" "$v"
			t=$(python3 - "$d/$mode$i.txt" <<'PY'
import re, sys
t = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.match(r"\[\s*(\d+\.\d+)\] (.*)", l)
    if not m: continue
    for k, pat in (("c", "PM: hibernation: Creating image"), ("w", "PM: hibernation: Wrote "),
                   ("g", "hibernation key: image tagged"), ("s", "Preparing to enter system sleep state S5")):
        if pat in m.group(2) and k not in t: t[k] = float(m.group(1))
    m2 = re.search(r"PM: hibernation: Wrote (\d+) kbytes", m.group(2))
    if m2: t["kb"] = int(m2.group(1))
if "w" in t and "s" in t and "c" in t:
    print("%.3f %.3f %s %d" % (t["s"] - t["w"], t["s"] - t["c"], "tagged" if "g" in t else "untagged", t.get("kb", 0)))
PY
)
			echo "  $mode run $i: Wrote->S5, Creating->S5 (s), tag, kbytes written: ${t:-MISSING}"
			[ -n "$t" ] || ok=1
			echo "$mode $t" >> "$d/cost.txt"
			tok=$(grab "$mode$i" '^KTEST: token=\([0-9a-f]*\)$')
			boot "$mode$i-resume" "$DISK" "$v"
			L=$d/$mode$i-resume.log
			expect "$L" "^KTEST: resumed \(round 1\) token=$tok\$" "$mode run $i: efiresume resumed it (token $tok)" || ok=1
			tot=$(grab "$mode$i-resume" '.*efiresume: timing: prepare [0-9]* ms, total \([0-9]*\) ms.*')
			tag=$(grab "$mode$i-resume" '.*Secure Boot: tag verified over [0-9]* pages (\([0-9]*\) ms).*')
			if [ $mode = key ]; then
				[ -n "$tag" ] || bad "$mode run $i: no tag check in efiresume's log"
			else
				expect_not "$L" 'efiresume: Secure Boot is on' "$mode run $i: efiresume ran with Secure Boot off" || ok=1
				[ -z "$tag" ] || bad "$mode run $i: a tag was checked on an untagged image"
			fi
			echo "  $mode run $i: efiresume total ${tot:-MISSING} ms, tag check ${tag:-none} ms"
			[ -n "$tot" ] || ok=1
			echo "$mode ${tot:-0} ${tag:-0}" >> "$d/resume.txt"
		done
	done
	med() { sort -n | awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}'; }
	for mode in key none; do
		echo "  $mode: median Wrote->S5 $(awk -v m=$mode '$1==m{print $2}' "$d/cost.txt" | med) s, Creating->S5 $(awk -v m=$mode '$1==m{print $3}' "$d/cost.txt" | med) s; efiresume total $(awk -v m=$mode '$1==m{print $2}' "$d/resume.txt" | med) ms, tag check $(awk -v m=$mode '$1==m{print $3}' "$d/resume.txt" | med) ms"
	done
	grep -q '^key .* tagged ' "$d/cost.txt" && ! grep -q '^none .* tagged ' "$d/cost.txt" || bad "tagged/untagged runs not as expected"
	;;
*) die "unknown case $case" ;;
esac
# efiresume's own timing of every verified resume in this case
for f in "$d"/*.txt; do
	case $f in *.log.txt|*/cost.txt) continue ;; esac
	grep -h 'tag verified over\|timing: verify\|timing: prepare' "$f" 2>/dev/null | sed "s|^|  $(basename "$f" .txt): |" || true
done
echo "kernel-cycle $case: $(( $(date +%s) - T0 )) s"
[ $ok = 0 ] && echo "kernel-cycle $case: PASS" || { echo "kernel-cycle $case: FAIL (see $d)"; exit 1; }
