#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# secboot.sh tagged (see there): a real image verified under Secure Boot.
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
. "$(dirname "$0")/../lib/secboot.sh"
d=$(scratch secboot-tagged)
make -s -C "$TOP" sign KEY="$(sb_key "$d")" CERT="$SB_CERT" >/dev/null 2>&1 || { echo "  make sign failed"; exit 1; }

boot() {   # boot NAME DISK VARS TIMEOUT
	local rc=0
	sb_run_qemu "$2" "$3" "$d/$1.log" "$4" -cpu "$SB_CPU" -device virtio-rng-pci || rc=$?
	echo "  boot $1: qemu exit status $rc"
}
ok=0
# 1. the key: efiresume makes it under Secure Boot (a disk without an image, no fallback)
make_disk "$d/key.img" 64
esp_put "$d/key.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/BOOT/BOOTX64.EFI
mkswap_disk "$d/key.img" $SWAP_PARTUUID
sb_new_vars "$d/vars.fd"
boot key "$d/key.img" "$d/vars.fd" 45
a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKeyV2)
[ "$a" = "attrs=0x3 size=32" ] && pass "key made ($a)" || fail "key $a"
# 2. the image: hibernated by an unpatched 6.1 kernel under the same firmware code and the
#    same variable store with SecureBootEnable = 0 (Secure Boot off, keys enrolled: the
#    kernel is not locked down and may hibernate), so that the memory map is the one of
#    the Secure Boot boots
cp "$d/vars.fd" "$d/vars-off.fd"
python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars-off.fd" SecureBootEnable --set1 0
run_qemu() { local disk=$2 vars=$3 log=$4 tmo=$5; shift 5; sb_run_qemu "$disk" "$vars" "$log" "$tmo" "$@"; }
new_vars() { cp "$d/vars-off.fd" "$2"; }
FIXTURE_REBUILD=1 FIXTURE_QEMU_ARGS="-cpu $SB_CPU -device virtio-rng-pci" make_fixture secboot-x64-6.1-nocompress x64 \
	linux-image-cloud-amd64 -- hibernate=nocompress efiresume_secboot_fixture=1
fx=$(fixture_dir secboot-x64-6.1-nocompress)
expect "$fx/serial.log" '^EFIRESUME-TEST: hibernating$' "the kernel hibernated (SecureBootEnable 0)" || ok=1
expect_not "$fx/serial.log" 'efiresume: Secure Boot is on' "efiresume saw Secure Boot off in that boot" || ok=1
cp --sparse=always "$fx/disk.img" "$d/disk.img"
token=$(fixture_fact "$fx" token)
kdir=$(kernel_dir linux-image-cloud-amd64)
sb_sign "$d/snakeoil.key" "$(kernel_image "$kdir")" "$d/vmlinuz.efi"
esp_put "$d/disk.img" "$d/vmlinuz.efi" ::/vmlinuz.efi
esp_put "$d/disk.img" "$BUILD/efiresume-x64.signed.efi" ::/EFI/BOOT/BOOTX64.EFI
# no fallback while the image must stay (the fixture's kernel would make a new swap)
printf 'timeout 0\n' > "$d/nofallback.conf"
esp_put "$d/disk.img" "$d/nofallback.conf" ::/EFI/BOOT/efiresume.conf
sig=$(swap_sig "$d/disk.img")
[ "$sig" = S1SUSPEND ] && pass "image there ($sig)" || fail "signature $sig"
# 3. encrypted and tagged on the host with that key (contract v2; key page: none); a plain
#    copy kept for step 7
cp --sparse=always "$d/disk.img" "$d/plain.img"
read -r kid npages slot < <(python3 "$TOP/tests/lib/secboot-tag.py" "$d/disk.img" "$(swap_offset)" "$d/vars.fd" 0)
echo "  encrypted: key id $kid, $npages stream pages"
# the guest's token (in its memory at hibernation): in the plain copy, not in the encrypted one
if [ -n "$token" ]; then
	grep -qaF "$token" "$d/plain.img" && echo "  ok (control): the token is in the plain image" || fail "the token is not in the plain image: the search finds nothing"
	grep -qaF "$token" "$d/disk.img" && fail "the token is in the encrypted image" || pass "the token is nowhere in the encrypted image"
fi
# swsusp-inspect says what it is without the key
# (it exits 10 + auth-failed: only efiresume with the key can read more)
insp=$("$BUILD/swsusp-inspect" "$d/disk.img") || true
grep -q 'an encrypted image (Secure Boot, auth block version 2)' <<< "$insp" && pass "swsusp-inspect: an encrypted image" || fail "swsusp-inspect does not say encrypted: $insp"
# 4. one byte flipped in a copy (the last stored page, through the map: group 0's tag page
#    or the last group's): refused, its GCM tag or the page's does not match
cp --sparse=always "$d/disk.img" "$d/bad.img"
cp "$d/vars.fd" "$d/bad-vars.fd"
python3 - "$d/bad.img" "$(swap_offset)" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b"); off = int(sys.argv[2])
def page(n): f.seek(off + n * 4096); return f.read(4096)
m = struct.unpack_from("<Q", page(0), 4064)[0]; last = None
while m:
    e = struct.unpack_from("<512Q", page(m)); last = [x for x in e[:511] if x][-1] if any(e[:511]) else last; m = e[511]
f.seek(off + last * 4096 + 1000); b = f.read(1); f.seek(off + last * 4096 + 1000); f.write(bytes([b[0] ^ 1]))
PY
boot flipped "$d/bad.img" "$d/bad-vars.fd" 60
expect "$d/flipped.log" "image refused: an encrypted page of the image failed its authentication.*its GCM tag does not match" "a flipped byte: refused (GCM)" || ok=1
expect "$d/flipped.log" "reason-code auth-failed; nothing was written" "nothing written" || ok=1
# 5. the tagged image resumes under Secure Boot; the key is rotated
cp --sparse=always "$d/disk.img" "$d/tagged-copy.img"
boot resume "$d/disk.img" "$d/vars.fd" 240
L=$d/resume.log
expect "$L" "efiresume: Secure Boot: a new hibernation key for this boot .* is stored in EfiresumeHibernationKeyV2 \(NV\|BS\); the previous one verifies this boot's image only" "a new key for this boot; the previous one read" || ok=1
expect "$L" "encrypted image \(contract v2, $npages stream pages\)" "encrypted image of $npages stream pages" || ok=1
expect "$L" "Secure Boot: $npages pages decrypted and authenticated, tag verified" "$npages pages decrypted, tag verified" || ok=1
expect "$L" "the image names no key page" "no key page named: none written" || ok=1
expect "$L" '^EFIRESUME-TEST: resumed$' "the image kernel resumed" || ok=1
[ -z "$token" ] || expect "$L" "^EFIRESUME-TEST: token-after=$token\$" "same token" || ok=1
# 6. the same image (the copy taken before the resume) again: another key now
boot replay "$d/tagged-copy.img" "$d/vars.fd" 60
expect "$d/replay.log" "image refused: Secure Boot: written with another key" "replay refused: the key of that boot is gone" || ok=1
# 7. the plain copy encrypted with the key of now, naming a key page (a page the hibernated
#    kernel had free): verified, this boot's key written there, resumed
cp --sparse=always "$d/plain.img" "$d/tagged-copy.img"
read -r kid2 npages2 slot2 < <(python3 "$TOP/tests/lib/secboot-tag.py" "$d/tagged-copy.img" "$(swap_offset)" "$d/vars.fd" auto)
echo "  tagged again: key id $kid2, key page $slot2"
slot2=0x$(echo "${slot2#0x}" | tr a-f A-F)   # efiresume prints hex digits in upper case
boot keypage "$d/tagged-copy.img" "$d/vars.fd" 240
L=$d/keypage.log
expect "$L" "Secure Boot: $npages2 pages decrypted and authenticated, tag verified" "verified (key $kid2)" || ok=1
expect "$L" "Secure Boot: this boot's key written to the image kernel's key page $slot2" "this boot's key written to key page $slot2" || ok=1
expect "$L" '^EFIRESUME-TEST: resumed$' "the image kernel resumed again" || ok=1
exit $ok
