#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The patched 6.12 test kernel (make kernel; kernel-patch/6.12, contract v2) WITH efiresume,
# end to end, under OVMF with Secure Boot enforced (tests/lib/secboot.sh: snakeoil PK/KEK/db):
# efiresume signed (make sign), the bzImage signed with the same db key, started by efiresume
# as its fallback with lockdown=confidentiality. The guest (busybox initramfs) keeps a token in
# memory and hibernates (mode reboot: QEMU exits); efiresume makes a key at every boot and
# offers it through its key protocol (the kernel's EFI stub pulls it); the kernel encrypts and
# authenticates its image; efiresume decrypts and verifies it, writes this boot's key into the
# image kernel's key page and resumes. The keys are read from the variable store (never logged).
#   kernel-cycle.sh cycle     boot 1: key K1 made and pulled by the stub, image encrypted;
#                             the swap partition searched for the token (not there);
#                             boot 2: verified with K1, K2 into the key page, resumed (same
#                             token; in the resumed guest, root reads the swap device: the
#                             token is not on it), hibernates again (K2); boot 3: verified,
#                             resumed; boot 4: no image, normal boot, the key pulled again
#   kernel-cycle.sh flip      one ciphertext byte of the last stored page changed: refused, kept,
#                             fallback; control: the untouched image resumes
#   kernel-cycle.sh flip-lzo|flip-lz4  the same on a compressed image, a byte in the middle of
#                             a chunk (decrypted by the helper CPU that decompresses it)
#   kernel-cycle.sh header    the auth block's key page address (+4096), the swsusp header's
#                             hw_sig, the resume offset (the header page copied to page N,
#                             efiresume told resume-offset N, the auth block's field set to N):
#                             each refused by the final tag; a byte of the (encrypted)
#                             swsusp_info page: refused by its GCM tag; control: untouched resumes
#   kernel-cycle.sh replay    the image resumed (control), then the copy taken before written
#                             back: refused (written with another key), kept, fallback
#   kernel-cycle.sh keep      a boot that does not resume the image (efiresume dry-run: the
#                             image verifies and is kept), then the image is refused: it was
#                             resumable in the boot after its hibernation only
#   kernel-cycle.sh sboff     a boot with Secure Boot off (SecureBootEnable 0): efiresume
#                             deletes the key variable and refuses the encrypted image; Secure
#                             Boot on again: refused (no key), kept, fallback
#   kernel-cycle.sh hybrid    hybrid sleep, woken by QMP: the kernel zeroes the auth block with
#                             the signature; root writes the signature back: refused; the
#                             control: the header page copied during S3 revives the image
#   kernel-cycle.sh otherkey  another machine's key in EfiresumeHibernationKeyV2: refused
#                             (written with another key), kept, fallback; control: own store resumes
#   kernel-cycle.sh commitfail the verified image's commit fails (QEMU blkdebug: the swap header
#                             write gets EIO): not resumed, kept, fallback; the next boot refuses
#                             it (its key is gone: one boot to resume an image)
#   kernel-cycle.sh lzo|lz4   a compressed encrypted image (hibernate.compressor=): verified,
#                             resumed (same token), the key page's key taken
#   kernel-cycle.sh tpm       the key sealed to the TPM (swtpm attached to every boot, its state
#                             kept, as a machine's TPM): boot 1 seals K1 into
#                             EfiresumeHibernationKeyV3 (no V2: K1 is nowhere in the flash in
#                             plain) and caps PCR 7; the kernel pulls it and writes an encrypted
#                             image; controls on copies: another TPM (a fresh swtpm state) and
#                             PCR 7 changed (a certificate added to db) do not unseal K1: the image
#                             refused, kept, fallback; then the image resumed with K1 unsealed
#                             by this machine's TPM
#   kernel-cycle.sh plain     the control of the token searches: Secure Boot off, a plain
#                             image: the token is on the disk and on the resumed guest's swap
#   kernel-cycle.sh cost      the price: COST_RUNS (3) hibernations with the key (Secure Boot
#                             on, lockdown=confidentiality, encrypted) and without (Secure Boot
#                             off in the same store, no lockdown, plain), printk times from
#                             "Wrote" to "sleep state S5"; each image resumed by efiresume: its
#                             total time; and the resumed guest's search of the swap device for
#                             its token: not found encrypted, found plain (the control)
# env KERNEL_BZIMAGE: use this bzImage instead of tests/lib/kernel-build.sh's.
#     KC_CONTROL=nogcm|notag|norotate: efiresume built with that check taken out (the
#     control runs of the refusal cases: they must fail with it; see below).
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: cycle flip flip-lzo flip-lz4 header replay keep sboff hybrid otherkey commitfail lzo lz4 tpm plain cost}
bz=${KERNEL_BZIMAGE:-$("$TOP/tests/lib/kernel-build.sh")}
d=$(scratch "kernel-cycle-$case")
T0=$(date +%s)
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 || { echo "  make sign failed"; exit 1; }
sb_sign "$d/snakeoil.key" "$bz" "$d/vmlinuz.efi"
EFI=$BUILD/efiresume-x64.signed.efi
# KC_CONTROL: the control runs, with a check removed: efiresume built from this tree (git
# archive of HEAD) with one comparison taken out, signed the same way. The refusal cases must
# fail with it.
#   nogcm     each page's GCM tag ignored (loader/auth.c: the page decrypted, the verdict
#             dropped: a changed ciphertext byte becomes a changed plaintext byte): flip, flip-lzo
#   notag     the final tag's comparison (loader/auth.c): header
#   norotate  the key of a boot is the previous one again (loader/hibkey.c: the new key not
#             made, the previous one stored): replay, keep
ctl_edit() {   # ctl_edit FILE OLD NEW: the line OLD (exactly once) replaced by NEW
	python3 - "$d/ctl/$1" "$2" "$3" <<'PY' || die "KC_CONTROL=$KC_CONTROL: the code to take out was not found in $1"
import sys
p, old, new = sys.argv[1:]
s = open(p).read()
assert s.count(old) == 1
open(p, "w").write(s.replace(old, new))
PY
}
if [ -n "${KC_CONTROL:-}" ]; then
	mkdir -p "$d/ctl"
	git -C "$TOP" archive HEAD | tar -x -C "$d/ctl"
	case $KC_CONTROL in
	nogcm)
		# decrypted without the check: the page XORed with the keystream (the encryption of zeros)
		ctl_edit loader/auth.c 'return er_gcm_decrypt(&s->gcm, iv, NULL, 0, page, page, ER_PAGE_SIZE, tag) ? 0 : -1;' \
			'{ static const uint8_t z[ER_PAGE_SIZE]; uint8_t ks[ER_PAGE_SIZE], t[16]; (void)tag; er_gcm_encrypt(&s->gcm, iv, NULL, 0, z, ks, ER_PAGE_SIZE, t); for (unsigned q = 0; q < ER_PAGE_SIZE; q++) page[q] ^= ks[q]; return 0; }' ;;
	notag)
		ctl_edit loader/auth.c 'bool ok = er_ct_equal(got, tag, ER_AUTH_TAG_LEN) && whole;' 'bool ok = whole; (void)er_ct_equal(got, tag, ER_AUTH_TAG_LEN);' ;;
	norotate)
		ctl_edit loader/hibkey.c 'if (EFI_ERROR(make_key(key, &with_cpu))) {' 'if (k->have_prev ? (er_memcpy(key, k->prev, ER_KEY_LEN), 0) : EFI_ERROR(make_key(key, &with_cpu))) {' ;;
	*) die "KC_CONTROL: nogcm, notag or norotate" ;;
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
if [ "$mode" != hibernate ] && [ "$mode" != hybrid ] || [ "$sig" != SWAPSPACE2 ]; then
	echo "KTEST: not hibernating; powering off"
	poweroff -f
fi
swapon /dev/vda2 || echo "KTEST: swapon failed"
cat /sys/class/block/vda2/dev > /sys/power/resume
echo reboot > /sys/power/disk || echo "KTEST: mode reboot refused"
token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo "KTEST: token=$token"
if [ "$mode" = hybrid ]; then
	# hybrid sleep: the image is written, then the machine suspends to RAM; woken, the kernel
	# puts the swap signature back (swsusp_unmark) and goes on. Then root writes the image's
	# 10 signature bytes back, as an attacker who wants it resumed over what comes next.
	echo suspend > /sys/power/disk || echo "KTEST: mode suspend refused"
	echo "KTEST: hybrid: hibernating"
	if echo disk > /sys/power/state; then
		echo "KTEST: hybrid: woke token=$token"
		echo "KTEST: hybrid: swap signature $(dd if=/dev/vda2 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\000')"
		echo "KTEST: hybrid: auth block $(dd if=/dev/vda2 bs=1 skip=512 count=8 2>/dev/null | od -An -tx1 | tr -d ' \n')"
		echo "KTEST: disk after wake: $(cat /sys/power/disk)"
		# (mode reboot: a kernel that does hold a key, as in the control, writes an image and
		# QEMU exits, instead of sleeping in S3 with nobody to wake it)
		echo reboot > /sys/power/disk 2>/dev/null
		echo disk > /sys/power/state 2>/dev/null && echo "KTEST: hybrid: hibernated again" || echo "KTEST: hybrid: hibernation refused after the wake"
		swapoff /dev/vda2   # (a swap device in use refuses writes)
		printf 'S1SUSPEND\000' | dd of=/dev/vda2 bs=1 seek=4086 conv=notrunc 2>/dev/null
		sync
		echo "KTEST: hybrid: signature written back: $(dd if=/dev/vda2 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\000')"
	else
		echo "KTEST: hybrid: hibernate refused"
	fi
	poweroff -f
fi
n=0
while [ $n -lt "${rounds:-1}" ]; do
	n=$((n + 1))
	echo "KTEST: hibernating (round $n)"
	if echo disk > /sys/power/state; then
		echo "KTEST: resumed (round $n) token=$token"
		# root reads the swap device the image was on: is the token there in clear? (with swap
		# off while it reads: reading the whole device fills the page cache, and the memory
		# pressure would swap this shell out, in clear: the image is encrypted, ordinary
		# swapping is not; the cache is dropped before the next hibernation for the same reason)
		swapoff /dev/vda2
		if grep -qF "$token" /dev/vda2; then echo "KTEST: swap search: token FOUND on /dev/vda2"; else echo "KTEST: swap search: token not found on /dev/vda2"; fi
		echo 1 > /proc/sys/vm/drop_caches
		swapon /dev/vda2 || echo "KTEST: swapon after the search failed"
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
# boot NAME [DISK [VARS]]: one QEMU run, timed; with KC_TPM=DIR the machine has a TPM (swtpm,
# its state in DIR, powered on for this boot: tests/lib/swtpm.sh)
boot() {
	local rc=0 t=$(date +%s.%N) pre=()
	[ -z "${KC_TPM:-}" ] || pre=(swtpm_boot "$KC_TPM")
	"${pre[@]}" sb_run_qemu "${2:-$DISK}" "${3:-$d/vars.fd}" "$d/$1.log" "${BOOT_TIMEOUT:-300}" -device virtio-rng-pci ${EXTRA:-} || rc=$?
	echo "  boot $1: qemu exit status $rc, $(echo "$(date +%s.%N) - $t" | bc | cut -c1-5) s"
	[ $rc -ne 124 ] || fail "QEMU timed out in boot $1"
	clean_log "$d/$1.log" > "$d/$1.txt"
}
# grab NAME SED-REGEX: the first \1 of the boot's log
grab() { sed -n "s/$2/\1/p" "$d/$1.txt" | head -1; }
sig_is() {   # sig_is WANT WHEN [DISK]
	local s
	s=$(swap_sig "${3:-$DISK}")
	[ "$s" = "$1" ] && pass "swap signature $s $2" || fail "swap signature '$s' $2 (want $1)"
}
hdr_md5() { dd if="${1:-$DISK}" bs=4096 skip=$(($(swap_offset) / 4096)) count=1 status=none | md5sum | cut -d' ' -f1; }

# the key of this boot, from the variable store (efiresume never logs it, nor its id); with a
# TPM (KC_TPM) the sealed record of V3 instead (K itself is not in the store)
key_now() { sb_var_hex "${1:-$d/vars.fd}" "EfiresumeHibernationKeyV$([ -n "${KC_TPM:-}" ] && echo 3 || echo 2)"; }
# how efiresume says where this boot's key is stored
KEY_STORED='is stored in EfiresumeHibernationKeyV2 \(NV\|BS\)'
KEY_SEALED='is sealed to the TPM \(PCR 7\) in EfiresumeHibernationKeyV3 \(NV\|BS\)'
key_stored() { [ -n "${KC_TPM:-}" ] && echo "$KEY_SEALED" || echo "$KEY_STORED"; }
# auth_u64 OFFSET-IN-AUTH-BLOCK [DISK]: a u64 of the auth block on disk
auth_u64() { od -An -tu8 -j $(( $(swap_offset) + 512 + $1 )) -N8 "${2:-$DISK}" | tr -d ' '; }
# token_on_disk TOKEN [DISK]: is the token anywhere on the disk in clear?
token_on_disk() { grep -qaF "$1" "${2:-$DISK}"; }

# the first boot: key made (K1), the kernel's stub pulls it, hibernates, image encrypted.
# Sets K1, PAGES1, TOKEN.
hibernate_boot() {
	local L=$d/$1.log
	boot "$1"
	expect "$L" 'efiresume: Secure Boot is on' "efiresume started under Secure Boot" || ok=1
	expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* $(key_stored)" "a key made for this boot (NV|BS)${KC_TPM:+, sealed to the TPM}" || ok=1
	expect "$L" "efiresume: Secure Boot: this boot's key is offered to the kernel through the key protocol" "offered through the key protocol" || ok=1
	K1=$(key_now)
	expect "$L" 'efiresume key taken' "the kernel's EFI stub took the key" || ok=1
	expect "$L" 'PM: hibernation key: received from efiresume' "the kernel received it" || ok=1
	expect "$L" 'PM: hibernation key: kept \(lockdown: confidentiality\)' "key kept (confidentiality)" || ok=1
	expect "$L" '^KTEST: lockdown: .*\[confidentiality\]' "locked down at confidentiality" || ok=1
	expect "$L" '^KTEST: disk: .*reboot' "/sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$L" 'PM: hibernation key: image encrypted and authenticated \([0-9]+ pages, [0-9]+ tag pages\)' "image encrypted" || ok=1
	PAGES1=$(grab "$1" '.*image encrypted and authenticated (\([0-9]*\) pages.*')
	TOKEN=$(grab "$1" '^KTEST: token=\([0-9a-f]*\)$')
	expect_not "$L" 'KTEST: hibernate refused' "hibernated" || ok=1
	no_key_id_logged "$L" "$K1"
	sig_is S1SUSPEND "after $1"
	local m v
	m=$(dd if="$DISK" bs=1 skip=$(( $(swap_offset) + 512 )) count=8 status=none)
	v=$(od -An -tu4 -j $(( $(swap_offset) + 520 )) -N4 "$DISK" | tr -d ' ')
	[ "$m" = EFRHMAC1 ] && [ "$v" = 2 ] && pass "auth block EFRHMAC1 version 2 at offset 512" || fail "auth block magic '$m' version '$v'"
	[ "$(auth_u64 88)" = "$PAGES1" ] && pass "the auth block counts $PAGES1 encrypted pages" || fail "auth block page count $(auth_u64 88), kernel said $PAGES1"
	[ -n "$TOKEN" ] && ! token_on_disk "$TOKEN" && pass "the token ($TOKEN) is nowhere on the disk in clear" || fail "the token '$TOKEN' is on the disk in clear"
}

# no_key_id_logged LOG KEYHEX: neither the key nor its id appears in the log (with a TPM the
# test cannot know the key: nothing to check)
no_key_id_logged() {
	local id
	[ -z "${KC_TPM:-}" ] || return 0
	id=$(python3 -c 'import hmac,hashlib,sys; print(hmac.new(bytes.fromhex(sys.argv[1]), b"efiresume key id", hashlib.sha256).hexdigest()[:16])' "$2")
	if grep -qi "$id" "$1" || grep -qi "$2" "$1"; then fail "the key or its id ($id) is in $(basename "$1")"; else pass "neither the key nor its id is logged"; fi
}

# resume_boot NAME KEY PAGES ROUND: efiresume decrypts and verifies (previous key KEY), writes
# this boot's key into the key page, resumes. Sets KNEW, SLOT.
resume_boot() {
	local L=$d/$1.log
	SLOT=0x$(printf %X "$(auth_u64 16)")
	boot "$1" "${DISK}" "${VARS:-$d/vars.fd}"
	KNEW=$(key_now "${VARS:-$d/vars.fd}")
	[ -n "$KNEW" ] && [ "$KNEW" != "$2" ] && pass "a new key for this boot" || fail "the stored key did not change"
	expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* $(key_stored); the previous one verifies this boot's image only" "the previous key read, a new one stored" || ok=1
	expect "$L" "encrypted image \(contract v2, $3 stream pages\)" "an encrypted image of $3 stream pages" || ok=1
	expect "$L" "efiresume: .*Secure Boot: $3 pages decrypted and authenticated, tag verified" "decrypted, authenticated, tag verified" || ok=1
	expect "$L" "Secure Boot: this boot's key written to the image kernel's key page $SLOT" "this boot's key written to the key page $SLOT" || ok=1
	expect "$L" "PM: hibernation key: new key after resume, kept \(lockdown: confidentiality\)" "the resumed kernel took it from the key page" || ok=1
	expect "$L" "^KTEST: resumed \(round $4\) token=$TOKEN\$" "resumed (round $4), same token $TOKEN" || ok=1
	expect "$L" "^KTEST: swap search: token not found on /dev/vda2" "root in the resumed guest: the token is not on the swap device" || ok=1
	expect "$L" '^KTEST: disk after resume: .*reboot' "after resume: /sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$L" '^KTEST: lockdown after resume: .*\[confidentiality\]' "after resume: still at confidentiality" || ok=1
	expect_not "$L" '^KTEST: boot mode' "no fresh boot of the kernel (resumed, not the fallback)" || ok=1
	expect_not "$L" 'timing: .* [0-9]{8,} ms' "efiresume's timing line without a wrapped-around value" || ok=1
	no_key_id_logged "$L" "$2"
	no_key_id_logged "$L" "$KNEW"
}

# refused_boot NAME DISK VARS WHY-REGEX: refused with a clear line, kept byte for byte, fallback
refused_boot() {
	local L=$d/$1.log before
	before=$(hdr_md5 "$2")
	boot "$1" "$2" "$3"
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: image refused: $4" "refused: $4" || ok=1
	expect "$L" "efiresume: PARTUUID=$SWAP_PARTUUID: reason-code auth(-failed)?; nothing was written" "reason-code auth, nothing written" || ok=1
	expect_not "$L" 'pages decrypted and authenticated, tag verified' "not verified" || ok=1
	expect "$L" '^KTEST: boot mode=report .*swap=S1SUSPEND' "the fallback kernel booted, saw the image kept" || ok=1
	sig_is S1SUSPEND "after $1" "$2"
	[ "$(hdr_md5 "$2")" = "$before" ] && pass "swap header page unchanged" || fail "the swap header page changed"
}
GCM_REFUSED='an encrypted page of the image failed its authentication'
TAG_REFUSED='Secure Boot: the tag does not match'
OTHER_KEY='Secure Boot: written with another key'

# stored_page DISK N: the swap page of the Nth map entry (N < 0: from the end)
stored_page() {
	python3 - "$1" "$(swap_offset)" "$2" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb"); off = int(sys.argv[2]); n = int(sys.argv[3])
def page(p): f.seek(off + p * 4096); return f.read(4096)
m = struct.unpack_from("<Q", page(0), 4064)[0]; ents = []
while m:
    e = struct.unpack_from("<512Q", page(m)); ents += [x for x in e[:511] if x]; m = e[511]
print(ents[n])
PY
}
# flip DISK SWAP-PAGE BYTE: one byte of that page
flip_byte() {
	python3 - "$1" $(( $(swap_offset) + $2 * 4096 + $3 )) <<'PY'
import sys
f = open(sys.argv[1], "r+b"); at = int(sys.argv[2])
f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ 1]))
PY
	echo "  flipped byte $3 of swap page $2"
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
	say "kernel-cycle cycle: boot 1 (no image: key made and pulled, the kernel hibernates)"
	hibernate_boot boot1
	say "kernel-cycle cycle: boot 2 (K1 verifies, resume, hibernate again with K2)"
	resume_boot boot2 "$K1" "$PAGES1" 1
	K2=$KNEW
	expect "$d/boot2.log" '^KTEST: hibernating \(round 2\)' "hibernating again (round 2)" || ok=1
	expect "$d/boot2.log" 'PM: hibernation key: image encrypted and authenticated \([0-9]+ pages' "the second image encrypted (with the key from the key page)" || ok=1
	PAGES2=$(grab boot2 '.*image encrypted and authenticated (\([0-9]*\) pages.*')
	sig_is S1SUSPEND "after boot 2 (the second image)"
	token_on_disk "$TOKEN" && fail "the token is on the disk in clear after the second image" || pass "the token is nowhere on the disk in clear (second image)"
	say "kernel-cycle cycle: boot 3 (K2 verifies, resume)"
	resume_boot boot3 "$K2" "$PAGES2" 2
	K3=$KNEW
	expect "$d/boot3.log" '^KTEST: done; powering off' "powered off after round 2" || ok=1
	sig_is SWAPSPACE2 "after boot 3 (resumed, no image)"
	say "kernel-cycle cycle: boot 4 (no image: normal boot)"
	conf report 0
	boot boot4
	expect_not "$d/boot4.log" 'image refused|tag verified' "no image considered" || ok=1
	expect "$d/boot4.log" 'efiresume key taken' "the kernel's stub took boot 4's key" || ok=1
	expect "$d/boot4.log" 'PM: hibernation key: received from efiresume' "the kernel received it" || ok=1
	expect "$d/boot4.log" '^KTEST: boot mode=report rounds=0 swap=SWAPSPACE2' "normal boot of the fallback" || ok=1
	K4=$(key_now)
	[ "$K4" != "$K3" ] && pass "boot 4 has a key of its own" || fail "boot 4 kept boot 3's key"
	sig_is SWAPSPACE2 "after boot 4"
	echo "  stream pages $PAGES1, $PAGES2"
	;;
flip)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	cp --sparse=always "$DISK" "$d/flip.img"
	cp "$d/vars.fd" "$d/vars-flip.fd"
	flip_byte "$d/flip.img" "$(stored_page "$d/flip.img" -2)" 1000
	conf report 0
	esp_put "$d/flip.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	refused_boot flip "$d/flip.img" "$d/vars-flip.fd" "$GCM_REFUSED"
	say "control: the untouched image"
	resume_boot control "$K1" "$PAGES1" 1
	;;
flip-lzo|flip-lz4)
	COMP="hibernate.compressor=${case#flip-}"
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	f=$(hdr_flags)
	[ $((f & 6)) = 4 ] && pass "header flags 0x$(printf %x "$f"): compressed, CRC32 mode" || fail "flags 0x$(printf %x "$f"): not compressed with a CRC32"
	conf report 0
	cp --sparse=always "$DISK" "$d/flip.img"
	cp "$d/vars.fd" "$d/vars-flip.fd"
	# a page in the middle of the stream: inside a chunk, after its first page
	n=$(auth_u64 88)
	flip_byte "$d/flip.img" "$(stored_page "$d/flip.img" $(( n / 2 + n / 512 + 1 )))" 2000
	esp_put "$d/flip.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	refused_boot flip "$d/flip.img" "$d/vars-flip.fd" "$GCM_REFUSED"
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
	refused_boot slot "$d/slot.img" "$(vars_copy slot)" "$TAG_REFUSED"
	cp --sparse=always "$DISK" "$d/hwsig.img"
	f=$(hdr_flags)
	[ $((f & 8)) = 0 ] && pass "no SF_HW_SIG (flags 0x$(printf %x "$f")): the reader ignores hw_sig" || fail "SF_HW_SIG set (flags $f): the reader checks hw_sig"
	echo "  hw_sig in the swsusp header: $(poke "$d/hwsig.img" 4056 1)"
	refused_boot hwsig "$d/hwsig.img" "$(vars_copy hwsig)" "$TAG_REFUSED"
	# the resume offset: the header page copied to page N and efiresume told to look there
	# only (resume PARTUUID= + resume-offset N, as for a swap file): the same image, every
	# swap map entry still valid; the auth block's resume_offset (u64 at +48) set to N as well
	# (else efiresume refuses before reading: "auth block written for resume_offset 0")
	cp --sparse=always "$DISK" "$d/moved.img"
	n=$(( $(swap_size "$d/moved.img") / 4096 - 8 ))
	dd if="$d/moved.img" of="$d/moved.img" bs=4096 skip=$(( $(swap_offset) / 4096 )) seek=$(( $(swap_offset) / 4096 + n )) count=1 conv=notrunc status=none
	echo "  resume_offset in the copy's auth block: $(poke "$d/moved.img" $(( n * 4096 + 512 + 48 )) $n 8)"
	{ cat "$d/efiresume.conf"; printf 'resume PARTUUID=%s\nresume-offset %d\n' $SWAP_PARTUUID $n; } > "$d/moved.conf"
	esp_put "$d/moved.img" "$d/moved.conf" ::/EFI/BOOT/efiresume.conf
	echo "  the header page copied to page $n of the swap partition; efiresume.conf: resume-offset $n"
	refused_boot moved "$d/moved.img" "$(vars_copy moved)" "$TAG_REFUSED"
	expect "$d/moved.log" "efiresume: swap file at page $n of PARTUUID=$SWAP_PARTUUID \\(resume-offset\\): hibernation image signature found" "efiresume read the header at page $n" || ok=1
	# the swsusp_info page (stream page 0, encrypted): cr3 of its arch header lies at 16
	cp --sparse=always "$DISK" "$d/cr3.img"
	flip_byte "$d/cr3.img" "$(stored_page "$d/cr3.img" 0)" 17
	refused_boot cr3 "$d/cr3.img" "$(vars_copy cr3)" "$GCM_REFUSED"
	say "control: the untouched image"
	resume_boot control "$K1" "$PAGES1" 1
	;;
replay)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	cp --sparse=always "$DISK" "$d/first.img"
	say "control: resumed"
	resume_boot control "$K1" "$PAGES1" 1
	sig_is SWAPSPACE2 "after the resume"
	# the first image written back (the whole swap partition as it was after boot 1)
	dd if="$d/first.img" of="$DISK" bs=1M skip=$(( $(swap_offset) >> 20 )) seek=$(( $(swap_offset) >> 20 )) conv=notrunc,sparse status=none
	conf report 0
	refused_boot replay "$DISK" "$d/vars.fd" "$OTHER_KEY"
	;;
keep)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	# a boot that does not resume it: efiresume verifies the image (dry-run) and boots normally
	{ cat "$d/efiresume.conf"; echo 'dry-run yes'; } > "$d/dry.conf"
	esp_put "$DISK" "$d/dry.conf" ::/EFI/BOOT/efiresume.conf
	boot kept
	expect "$d/kept.log" "Secure Boot: $PAGES1 pages decrypted and authenticated, tag verified" "the image verified in the boot after its hibernation" || ok=1
	expect "$d/kept.log" 'dry run: the image is resumable; not committing' "not resumed (dry run), kept" || ok=1
	sig_is S1SUSPEND "after the boot that kept it"
	conf report 0
	refused_boot late "$DISK" "$d/vars.fd" "$OTHER_KEY"
	;;
sboff)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	conf report 0
	python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars.fd" SecureBootEnable --set1 0 >/dev/null
	boot off
	expect "$d/off.log" 'efiresume: Secure Boot is off: EfiresumeHibernationKeyV2 deleted' "Secure Boot off: the key variable deleted" || ok=1
	expect "$d/off.log" "image refused: Secure Boot: the image is encrypted \(written under Secure Boot\) and Secure Boot is off now" "the encrypted image refused with Secure Boot off" || ok=1
	[ "$(key_now)" = absent ] && pass "no key in the store" || fail "the key variable is still there"
	sig_is S1SUSPEND "after the boot with Secure Boot off"
	python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars.fd" SecureBootEnable --set1 1 >/dev/null
	refused_boot on "$DISK" "$d/vars.fd" 'Secure Boot: no key was stored by the previous boot'
	;;
otherkey)
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	conf report 0
	cp "$d/vars.fd" "$d/other.fd"
	python3 - "$d/other.fd" "$TOP/tests/lib" <<'PY'
import hashlib, sys, types
src = open(sys.argv[2] + "/secboot-vars.py").read().replace("\nmain()\n", "\n")
m = types.ModuleType("sv"); exec(src, m.__dict__)
blob = open(sys.argv[1], "rb").read()
live = [r for r in m.records(blob) if r[2] == "EfiresumeHibernationKeyV2" and r[0] == 0x3F and r[4] == 32]
assert len(live) >= 1, "no live key"
with open(sys.argv[1], "r+b") as f:
    f.seek(live[-1][5]); f.write(hashlib.sha256(b"another machine").digest())
PY
	echo "  another machine's key in the store"
	refused_boot otherkey "$DISK" "$d/other.fd" "$OTHER_KEY"
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
	expect "$L" "Secure Boot: $PAGES1 pages decrypted and authenticated, tag verified" "verified" || ok=1
	expect "$L" 'the swap signature could not be reset' "the commit's write failed (EIO)" || ok=1
	expect "$L" 'not resumed; nothing was changed, the image is kept' "not committed, the image kept" || ok=1
	expect "$L" 'efiresume key taken' "the fallback kernel took this boot's key" || ok=1
	expect "$L" '^KTEST: boot mode=report .*swap=S1SUSPEND' "the fallback booted, the image kept" || ok=1
	sig_is S1SUSPEND "after the failed commit"
	[ "$(hdr_md5)" = "$before" ] && pass "swap header page unchanged" || fail "the swap header page changed"
	say "the next boot, without the fault: the image's key is gone"
	refused_boot late "$DISK" "$d/vars.fd" "$OTHER_KEY"
	;;
lzo|lz4)
	COMP="hibernate.compressor=$case"
	new_disk "$d/disk.img"
	conf hibernate 1
	hibernate_boot boot1
	f=$(hdr_flags)
	# SF_NOCOMPRESS_MODE 2 clear; SF_LZ4 16 for lz4 only; SF_CRC32_MODE 4
	lz=0; [ $case = lz4 ] && lz=16
	[ $((f & 2)) = 0 ] && [ $((f & 16)) = $lz ] && pass "header flags 0x$(printf %x "$f"): $case-compressed" || fail "flags 0x$(printf %x "$f") for $case"
	resume_boot resume "$K1" "$PAGES1" 1
	expect "$d/resume.log" "efiresume: .*image of an x86_64 kernel, $case," "efiresume read a $case image" || ok=1
	expect "$d/resume.log" "efiresume: .*CRC32 0x[0-9A-Fa-f]+ verified" "the CRC32 verified too" || ok=1
	;;
hybrid)
	# hybrid sleep (/sys/power/disk = suspend): the image written, then S3; QEMU wakes the
	# guest through QMP (system_wakeup) once it is suspended. Woken, the kernel put the
	# signature back and zeroed the auth block (kernel-patch 0005); root writes the 10
	# signature bytes back; the next boot: refused (no auth block), kept, fallback. The
	# control: the swap header page as it was during S3 (what someone with the disk could copy
	# then) written back instead: that image verifies and resumes (the limit: a disk copy made
	# during the sleep revives it; the zeroing stops root after the wake)
	new_disk "$d/disk.img"
	conf hybrid 1
	python3 - "$d/qmp.sock" "$d/boot1.log" "$DISK" "$(swap_offset)" "$d/s3-header.page" > "$d/waker.log" 2>&1 <<'PY' &
import json, socket, sys, time
sock_path, log, disk, off, save = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
deadline = time.time() + 280
while time.time() < deadline:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sock_path); break
    except OSError:
        time.sleep(0.5)
f = s.makefile("rw")
def cmd(c):
    f.write(json.dumps({"execute": c}) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r: return r
json.loads(f.readline()); cmd("qmp_capabilities")
while time.time() < deadline:
    if "KTEST: hybrid: hibernating" in open(log, errors="replace").read():
        st = cmd("query-status")["return"]["status"]
        if st == "suspended":
            with open(disk, "rb") as d:
                d.seek(off); open(save, "wb").write(d.read(4096))
            print("suspended: the swap header page copied; system_wakeup"); time.sleep(1)
            print(cmd("system_wakeup")); break
    time.sleep(0.5)
PY
	waker=$!
	EXTRA="-global ICH9-LPC.disable_s3=0 -qmp unix:$d/qmp.sock,server=on,wait=off" boot boot1
	wait $waker || true
	sed 's/^/  waker: /' "$d/waker.log"
	L=$d/boot1.log
	expect "$L" 'PM: hibernation key: image encrypted and authenticated' "the image was written (encrypted)" || ok=1
	expect "$L" '^KTEST: hybrid: woke token=' "woken from S3 (hybrid sleep)" || ok=1
	expect "$L" '^KTEST: hybrid: swap signature SWAPSPACE2' "the kernel put the swap signature back" || ok=1
	expect "$L" '^KTEST: hybrid: auth block 0000000000000000' "and zeroed the auth block" || ok=1
	expect "$L" '^KTEST: hybrid: hibernation refused after the wake' "the woken kernel has no key: no second image (the documented limit)" || ok=1
	expect "$L" '^KTEST: hybrid: signature written back: S1SUSPEND' "root wrote the image's signature back" || ok=1
	sig_is S1SUSPEND "after the attack"
	conf report 0
	cp --sparse=always "$DISK" "$d/control.img"
	cp "$d/vars.fd" "$d/vars-control.fd"
	refused_boot revived "$DISK" "$d/vars.fd" 'Secure Boot: no auth block'
	if [ -s "$d/s3-header.page" ]; then
		say "control: the swap header page copied during S3 written back (auth block intact)"
		dd if="$d/s3-header.page" of="$d/control.img" bs=4096 seek=$(( $(swap_offset) / 4096 )) conv=notrunc status=none
		esp_put "$d/control.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
		boot control "$d/control.img" "$d/vars-control.fd"
		expect "$d/control.log" 'pages decrypted and authenticated, tag verified' "(control) the image with its auth block verifies" || ok=1
		expect "$d/control.log" "^KTEST: hybrid: woke token=" "(control) and resumes: the state of before the wake, over what came after" || ok=1
	else
		fail "no copy of the header page was taken during S3"
	fi
	;;
tpm)
	. "$TOP/tests/lib/swtpm.sh"
	KC_TPM=$d/tpm
	# The kernel's EFI stub copies the TPM event log into EFI_ACPI_RECLAIM_MEMORY (an "ACPI
	# data" e820 entry). Under Secure Boot the log does not fit in what OVMF's default
	# ACPI-reclaim bin (18 pages) has left, so the copy lands in RAM at an address that
	# moves from boot to boot (0x1cdac000, then 0x1cdcc000 seen): the image's e820 checksum
	# matches no later boot, and efiresume (and the kernel's own check) refuse the image as
	# "memory map differs" (image/e820.c). Firmware with a bin that holds it keeps the map
	# stable; OVMF's SMM build (this one) takes larger bins from its MemoryTypeInformation
	# variable (OvmfPkg/PlatformPei/MemTypeInfo.c): 64 pages of ACPI reclaim.
	vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages
	printf '{"version": 2, "variables": [{"name": "MemoryTypeInformation", "guid": "4c19049f-4137-4dd3-9c10-8b97a83ffdfa", "attr": 3, "data": "%s"}]}\n' \
		"$(printf '%08x%08x' 10 128 9 64 0 128 5 256 6 582 15 0 | python3 -c 'import sys,struct; w=sys.stdin.read(); print(b"".join(struct.pack("<I", int(w[i:i+8], 16)) for i in range(0, len(w), 8)).hex())')" > "$d/mti.json"
	PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$d/vars.fd" -o "$d/vars.new" --set-json "$d/mti.json" > "$d/vfw.log" 2>&1 &&
		mv "$d/vars.new" "$d/vars.fd" || { cat "$d/vfw.log"; die "virt-fw-vars --set-json"; }
	new_disk "$d/disk.img"
	conf hibernate 1
	say "kernel-cycle tpm: boot 1 (a TPM: K1 sealed to it, pulled by the kernel, the image encrypted)"
	hibernate_boot boot1
	expect "$d/boot1.log" 'efiresume: Secure Boot: PCR 7 extended with "efiresume: hibernation key sealed"' "PCR 7 capped after the seal" || ok=1
	[ "$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)" = absent ] && pass "no plain key (V2) in the flash" || fail "V2 in the flash"
	[[ $K1 == 45465254* ]] && pass "V3 holds a sealed record (EFRT, $(( ${#K1} / 2 )) bytes)" || fail "V3: $K1"
	conf report 0
	NOTSEALED='Secure Boot: the previous key was not unsealed'
	say "control: another TPM (a fresh swtpm state)"
	cp --sparse=always "$DISK" "$d/other.img"
	KC_TPM=$d/tpm-other refused_boot othertpm "$d/other.img" "$(vars_copy othertpm)" "$NOTSEALED: .*"
	expect "$d/othertpm.log" "efiresume: warning: $NOTSEALED" "another TPM: K1 not unsealed" || ok=1
	say "control: PCR 7 changed (a certificate added to db while the machine was hibernated)"
	cp --sparse=always "$DISK" "$d/db.img"
	v=$(vars_copy db)
	vars_add_db "$v" "$d" && pass "a certificate added to db (a copy of the store)" ||
		{ fail "virt-fw-vars --add-db"; cat "$d/vfw.log"; }
	cp -a "$d/tpm" "$d/tpm-db"
	KC_TPM=$d/tpm-db refused_boot db "$d/db.img" "$v" "$NOTSEALED: .*"
	expect "$d/db.log" "efiresume: warning: $NOTSEALED: .*PCR 7 changed" "PCR 7 changed: K1 not unsealed" || ok=1
	say "kernel-cycle tpm: the image resumed, K1 unsealed by this machine's TPM"
	resume_boot resume "$K1" "$PAGES1" 1
	expect "$d/resume.log" 'efiresume: Secure Boot: the previous key unsealed by the TPM \(PCR 7 as when it was sealed\)' "K1 unsealed by the TPM" || ok=1
	[ "$(sb_var_hex "$d/vars.fd" EfiresumeHibernationKeyV2)" = absent ] && pass "still no plain key (V2) in the flash" || fail "V2 in the flash after the resume"
	;;
plain)
	# the control of the token searches: Secure Boot off in the same store (no key, no
	# lockdown): the kernel writes a plain image; the token is on the disk, and root in the
	# resumed guest finds it on the swap device
	new_disk "$d/disk.img"
	python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars.fd" SecureBootEnable --set1 0 >/dev/null
	conf hibernate 1 "$COMP"
	boot boot1
	expect "$d/boot1.log" 'PM: hibernation: Wrote [0-9]+ kbytes' "the kernel hibernated (Secure Boot off)" || ok=1
	expect_not "$d/boot1.log" 'image encrypted' "a plain image" || ok=1
	TOKEN=$(grab boot1 '^KTEST: token=\([0-9a-f]*\)$')
	[ -n "$TOKEN" ] && token_on_disk "$TOKEN" && echo "  ok (control): the token ($TOKEN) is on the disk in clear" || fail "the token '$TOKEN' is not on the disk: the search cannot find a token"
	boot boot2
	expect "$d/boot2.log" "^KTEST: resumed \(round 1\) token=$TOKEN\$" "resumed by efiresume" || ok=1
	expect "$d/boot2.log" '^KTEST: swap search: token FOUND on /dev/vda2' "(control) root in the resumed guest finds the token on the swap device" || ok=1
	;;
cost)
	# key: Secure Boot on, lockdown=confidentiality: the kernel encrypts, efiresume decrypts.
	# none: the same store with SecureBootEnable 0 (Secure Boot off: no key, no lockdown): the
	# kernel writes a plain image, efiresume resumes it. Each hibernation is resumed by
	# efiresume in the next boot: its own "total" (from its start to the hand-off), same
	# kernel, disk and run; and the resumed guest searches the swap device for its token.
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
                   ("g", "hibernation key: image encrypted"), ("s", "Preparing to enter system sleep state S5")):
        if pat in m.group(2) and k not in t: t[k] = float(m.group(1))
    m2 = re.search(r"PM: hibernation: Wrote (\d+) kbytes", m.group(2))
    if m2: t["kb"] = int(m2.group(1))
if "w" in t and "s" in t and "c" in t:
    print("%.3f %.3f %s %d" % (t["s"] - t["w"], t["s"] - t["c"], "encrypted" if "g" in t else "plain", t.get("kb", 0)))
PY
)
			echo "  $mode run $i: Wrote->S5, Creating->S5 (s), kind, kbytes written: ${t:-MISSING}"
			[ -n "$t" ] || ok=1
			echo "$mode $t" >> "$d/cost.txt"
			tok=$(grab "$mode$i" '^KTEST: token=\([0-9a-f]*\)$')
			boot "$mode$i-resume" "$DISK" "$v"
			L=$d/$mode$i-resume.log
			expect "$L" "^KTEST: resumed \(round 1\) token=$tok\$" "$mode run $i: efiresume resumed it (token $tok)" || ok=1
			tot=$(grab "$mode$i-resume" '.*efiresume: timing: prepare [0-9]* ms, total \([0-9]*\) ms.*')
			if [ $mode = key ]; then
				expect "$L" 'pages decrypted and authenticated, tag verified' "$mode run $i: decrypted and verified" || ok=1
				expect "$L" '^KTEST: swap search: token not found on /dev/vda2' "$mode run $i: root in the resumed guest does not find the token on swap" || ok=1
			else
				expect_not "$L" 'efiresume: Secure Boot is on' "$mode run $i: efiresume ran with Secure Boot off" || ok=1
				expect_not "$L" 'pages decrypted' "$mode run $i: nothing decrypted" || ok=1
				expect "$L" '^KTEST: swap search: token FOUND on /dev/vda2' "$mode run $i (control): root in the resumed guest finds the token on the plain image's swap" || ok=1
			fi
			echo "  $mode run $i: efiresume total ${tot:-MISSING} ms"
			[ -n "$tot" ] || ok=1
			echo "$mode ${tot:-0}" >> "$d/resume.txt"
		done
	done
	med() { sort -n | awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}'; }
	for mode in key none; do
		echo "  $mode: median Wrote->S5 $(awk -v m=$mode '$1==m{print $2}' "$d/cost.txt" | med) s, Creating->S5 $(awk -v m=$mode '$1==m{print $3}' "$d/cost.txt" | med) s; efiresume total $(awk -v m=$mode '$1==m{print $2}' "$d/resume.txt" | med) ms"
	done
	grep -q '^key .* encrypted ' "$d/cost.txt" && ! grep -q '^none .* encrypted ' "$d/cost.txt" || fail "encrypted/plain runs not as expected"
	;;
*) die "unknown case $case" ;;
esac
# efiresume's own timing of every verified resume in this case
for f in "$d"/*.txt; do
	case $f in *.log.txt|*/cost.txt|*/resume.txt) continue ;; esac
	grep -h 'decrypted and authenticated\|timing: verify\|timing: prepare' "$f" 2>/dev/null | sed "s|^|  $(basename "$f" .txt): |" || true
done
echo "kernel-cycle $case: $(( $(date +%s) - T0 )) s"
[ $ok = 0 ] && echo "kernel-cycle $case: PASS" || { echo "kernel-cycle $case: FAIL (see $d)"; exit 1; }
