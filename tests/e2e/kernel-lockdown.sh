#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The patched 6.12 test kernel (make kernel; kernel-patch/6.12) under QEMU + OVMF, started
# from the UEFI shell's startup.nsh on the ESP (the EFI stub with a command line), after
# `load keyinject.efi` when the case has a key: tests/e2e/kernel/keyinject.efi, an EFI
# driver offering efiresume's key protocol (contract v2) with a fixed test key; the stub
# must pull the key itself. The guest keeps a random token in memory when it hibernates.
#   kernel-lockdown.sh nokey       lockdown=confidentiality, no key: /sys/power/disk [disabled],
#                                  hibernation refused
#   kernel-lockdown.sh integrity   lockdown=integrity with a key: the key arrives and is wiped
#                                  at once (logged before user space), [disabled], refused
#   kernel-lockdown.sh nolockdown  no lockdown, no key: hibernation as upstream, no auth block;
#                                  the control of the token search: the token IS on the disk
#   kernel-lockdown.sh key         lockdown=confidentiality with a key: image written encrypted;
#                                  tests/e2e/kernel/verify-tag.py decrypts and verifies it (and
#                                  must refuse a flipped byte, two swapped pages, a truncated
#                                  enc_pages); the token is NOT on the disk
#   kernel-lockdown.sh kexec       as key, but the guest first calls kexec_file_load() on the
#                                  bzImage: the key is wiped (logged), hibernation refused
#   kernel-lockdown.sh kexec-control  the same guest without the call: the image is written
#   kernel-lockdown.sh key-lzo     as key with the default compressor (LZO): the compressed
#                                  chunks' pages are the stream; verify-tag.py verifies it
#   kernel-lockdown.sh hybrid      as key in hybrid-sleep mode (/sys/power/disk suspend) with an
#                                  RTC wake alarm: the image is written, the guest suspends to
#                                  idle, wakes, swsusp_unmark() puts SWAPSPACE2 back and zeroes
#                                  the auth block; the key is spent: a second hibernation is
#                                  refused; the signature written back does not revive the image
# Every case with a key checks that the serial log never shows the key id (nor the key).
# env KERNEL_BZIMAGE: use this bzImage instead of tests/lib/kernel-build.sh's.
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
case=${1:?case: nokey integrity nolockdown key kexec kexec-control key-lzo hybrid}
bz=${KERNEL_BZIMAGE:-$("$TOP/tests/lib/kernel-build.sh")}
dir=$(scratch "kernel-lockdown-$case")
here=$TOP/tests/e2e/kernel
KEYHEX=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
start=$(date +%s)

kexec=none mode=reboot
[ $case != hybrid ] || mode=suspend
case $case in
kexec) kexec=call ;;
kexec-control) kexec=nocall ;;
esac

# the guest: prints KTEST: lines, keeps a token in the shell's memory, tries to hibernate
# (mode reboot: QEMU exits, -no-reboot)
cat > "$dir/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security
tok=\$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
echo "KTEST: token \$tok"
echo "KTEST: lockdown: \$(cat /sys/kernel/security/lockdown)"
case $kexec in
call) /bin/kexectest /boot/bzImage ;;
nocall) /bin/kexectest --no-call /boot/bzImage ;;
esac
echo "KTEST: disk: \$(cat /sys/power/disk)"
echo "KTEST: state: \$(cat /sys/power/state)"
mkswap /dev/vda2 >/dev/null && swapon /dev/vda2 || echo "KTEST: swap failed"
cat /sys/class/block/vda2/dev > /sys/power/resume
echo "KTEST: resume device: \$(cat /sys/power/resume)"
if echo $mode > /sys/power/disk; then echo "KTEST: mode $mode set"; else echo "KTEST: mode refused"; fi
if [ $mode = suspend ]; then
	# hybrid sleep: the image is written, then suspend to idle until this alarm
	echo 0 > /sys/class/rtc/rtc0/wakealarm
	echo +\${KTEST_ALARM:-25} > /sys/class/rtc/rtc0/wakealarm && echo "KTEST: wake alarm set"
fi
if echo disk > /sys/power/state; then
	echo "KTEST: hibernate returned"
else
	echo "KTEST: hibernate refused"
fi
if [ $mode = suspend ]; then
	echo "KTEST: disk after wake: \$(cat /sys/power/disk)"
	if echo disk > /sys/power/state; then echo "KTEST: second hibernate returned"; else echo "KTEST: second hibernate refused"; fi
fi
dmesg | grep -i "hibernation key\|lockdown\|efiresume" | sed 's/^/KTEST: dmesg: /'
reboot -f
INIT

args="console=ttyS0 loglevel=7 panic=-1 no_timer_check hibernate=nocompress"
key=0
case $case in
nokey) args="$args lockdown=confidentiality" ;;
integrity) args="$args lockdown=integrity"; key=1 ;;
nolockdown) ;;
key|kexec|kexec-control|hybrid) args="$args lockdown=confidentiality"; key=1 ;;
key-lzo) args="${args/ hibernate=nocompress/} lockdown=confidentiality"; key=1 ;;
*) die "unknown case $case" ;;
esac

mkdir -p "$dir/kdir/lib/modules"
make_initramfs x64 "$dir/kdir" "$dir/init" "$dir/initrd.gz"
if [ $kexec != none ]; then
	# a second cpio archive appended (the kernel unpacks both): the program and the bzImage
	mkdir -p "$dir/extra/bin" "$dir/extra/boot"
	gcc -static -O2 -Wall -Wextra -Werror "$here/kexectest.c" -o "$dir/extra/bin/kexectest"
	cp "$bz" "$dir/extra/boot/bzImage"
	(cd "$dir/extra" && find . | cpio -o -H newc --quiet | gzip -1) >> "$dir/initrd.gz"
fi
make_disk "$dir/disk.img" 640
esp_put "$dir/disk.img" "$bz" ::/vmlinuz.efi
esp_put "$dir/disk.img" "$dir/initrd.gz" ::/initrd.gz
{
	echo "fs0:"
	[ $key = 0 ] || echo "load \\keyinject.efi"
	echo "\\vmlinuz.efi initrd=\\initrd.gz $args"
} > "$dir/startup.nsh"
esp_put "$dir/disk.img" "$dir/startup.nsh" ::/startup.nsh
if [ $key = 1 ]; then
	# the key table of contract v2 with the fixed test key, then the EFI driver
	python3 - "$KEYHEX" > "$dir/keytable.h" <<'PY'
import hashlib, hmac, struct, sys
k = bytes.fromhex(sys.argv[1])
t = struct.pack('<IIII', 0x4b524645, 2, 64, 0) + k + hmac.new(k, b'efiresume key id', hashlib.sha256).digest()[:8] + bytes(8)
print('static const UINT8 key_table[64] = {' + ','.join('0x%02x' % b for b in t) + '};')
PY
	cflags="-Wall -Wextra -Werror -O2 -std=gnu11 -fpic -ffreestanding -fno-stack-protector -fshort-wchar
		-mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI
		-I/usr/include/efi -I/usr/include/efi/x86_64 -I/usr/include/efi/protocol -I$dir"
	gcc $cflags -c "$here/keyinject.c" -o "$dir/keyinject.o"
	ld -nostdlib -znocombreloc -shared -Bsymbolic -T /usr/lib/elf_x86_64_efi.lds \
		/usr/lib/crt0-efi-x86_64.o "$dir/keyinject.o" -L/usr/lib -lefi -lgnuefi -o "$dir/keyinject.so"
	# subsystem 11: an EFI boot service driver (stays resident after `load`)
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j .rel.* -j .rela.* \
		-j .reloc --target efi-app-x86_64 --subsystem=11 "$dir/keyinject.so" "$dir/keyinject.efi"
	esp_put "$dir/disk.img" "$dir/keyinject.efi" ::/keyinject.efi
fi
new_vars x64 "$dir/vars.fd"

say "kernel-lockdown $case: booting ($args)"
rc=0
MEM=${MEM:-384} run_qemu x64 "$dir/disk.img" "$dir/vars.fd" "$dir/serial.log" "${KTEST_TIMEOUT:-900}" || rc=$?
echo "  qemu exit status $rc"
log=$dir/serial.log
ok=0
expect "$log" '^KTEST: lockdown: ' "guest ran /init" || ok=1

# the token the guest held in memory while it hibernated: on the swap partition or not
token_on_disk() {
	local tok
	tok=$(clean_log "$log" | sed -n 's/^KTEST: token \([0-9a-f]\{64\}\)$/\1/p' | head -1)
	[ -n "$tok" ] || { echo "  WRONG: no token in the log"; return 2; }
	python3 - "$dir/disk.img" "$(swap_offset)" "$tok" <<'PY'
import mmap, sys
f = open(sys.argv[1], 'rb')
m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
sys.exit(0 if m.find(sys.argv[3].encode(), int(sys.argv[2])) >= 0 else 1)
PY
}
# the kernel must never log the key id (nor the key): in any form %*ph could give
no_key_in_log() {
	local id spaced
	id=$(python3 "$here/verify-tag.py" --keyid "$KEYHEX")
	spaced=$(sed 's/../& /g; s/ $//' <<< "$id")
	clean_log "$log" > "$log.txt"
	if grep -aqiF -e "$id" -e "$spaced" -e "$KEYHEX" -e "${KEYHEX:0:16}" "$log.txt"; then
		echo "  WRONG: the key id $id (or the key) is in the serial log"; return 1
	fi
	pass "the key id $id (and the key) never in the serial log"
}
# a line before another in the log (ERE, ERE)
before() {
	local a b
	a=$(grep -anE -- "$1" "$log.txt" | head -1 | cut -d: -f1)
	b=$(grep -anE -- "$2" "$log.txt" | head -1 | cut -d: -f1)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then
		pass "$3 (log line $a before $b)"
	else
		echo "  WRONG: $3 (lines '${a:-none}' '${b:-none}')"; return 1
	fi
}

case $case in
nokey|integrity|kexec)
	expect "$log" '^KTEST: lockdown: .*\[(confidentiality|integrity)\]' "locked down" || ok=1
	expect "$log" '^KTEST: disk: \[disabled\]$' "/sys/power/disk [disabled]" || ok=1
	expect_not "$log" '^KTEST: state: .*disk' "/sys/power/state without disk" || ok=1
	expect "$log" '^KTEST: hibernate refused$' "hibernation refused" || ok=1
	sig=$(swap_sig "$dir/disk.img")
	if [ "$sig" = SWAPSPACE2 ]; then pass "swap signature $sig (no image)"; else fail "swap signature '$sig'"; fi
	;;&
integrity|kexec)
	expect "$log" 'keyinject: key protocol installed: Success' "key protocol installed" || ok=1
	expect "$log" 'efiresume key taken' "the EFI stub took the key" || ok=1
	expect "$log" 'hibernation key: received from efiresume' "key received" || ok=1
	no_key_in_log || ok=1
	;;&
integrity)
	expect "$log" 'hibernation key: wiped: lockdown is not at confidentiality' "key wiped at integrity" || ok=1
	before 'hibernation key: wiped: lockdown is not at confidentiality' 'Run /init as init process' \
		"wiped before user space" || ok=1
	;;
kexec)
	expect "$log" 'hibernation key: kept \(lockdown: confidentiality\)' "key kept at boot" || ok=1
	expect "$log" '^KTEST: kexec_file_load: ' "kexec_file_load called" || ok=1
	expect "$log" 'hibernation key: wiped: a kexec image is being loaded' "key wiped by the kexec load" || ok=1
	before 'hibernation key: wiped: a kexec image is being loaded' '^KTEST: disk: ' \
		"wiped before hibernation was tried" || ok=1
	;;
nolockdown)
	expect "$log" '^KTEST: lockdown: \[none\]' "not locked down" || ok=1
	expect "$log" '^KTEST: disk: .*\[reboot\]|^KTEST: disk: .*shutdown' "/sys/power/disk lists modes" || ok=1
	expect_not "$log" 'KTEST: hibernate (refused|returned)' "hibernated (no return)" || ok=1
	sig=$(swap_sig "$dir/disk.img")
	if [ "$sig" = S1SUSPEND ]; then pass "swap signature $sig"; else fail "swap signature '$sig'"; fi
	magic=$(dd if="$dir/disk.img" bs=1 skip=$(( $(swap_offset) + 512 )) count=8 status=none | tr -d '\0')
	if [ -z "$magic" ]; then pass "no auth block (no key)"; else fail "'$magic' at offset 512"; fi
	# the control of the key case's search: a plain image holds the token
	trc=0; token_on_disk || trc=$?
	if [ $trc = 0 ]; then pass "control: the token the guest held IS on the swap partition (plain image)"
	else fail "the token is not found in a plain image (the search cannot succeed)"; fi
	;;
key|kexec-control|key-lzo)
	expect "$log" 'keyinject: key protocol installed: Success' "key protocol installed" || ok=1
	expect "$log" 'efiresume key taken' "the EFI stub took the key" || ok=1
	expect "$log" 'hibernation key: received from efiresume' "key received" || ok=1
	expect "$log" 'hibernation key: kept \(lockdown: confidentiality\)' "key kept" || ok=1
	before 'hibernation key: kept' 'Run /init as init process' "decided before user space" || ok=1
	if [ $case = kexec-control ]; then
		expect "$log" '^KTEST: kexec: not called \(control\)' "kexec not called" || ok=1
		expect_not "$log" 'a kexec image is being loaded' "no kexec wipe" || ok=1
	fi
	expect "$log" '^KTEST: disk: .*reboot' "/sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$log" 'hibernation key: image encrypted and authenticated' "image encrypted" || ok=1
	expect_not "$log" 'KTEST: hibernate (refused|returned)' "hibernated (no return)" || ok=1
	no_key_in_log || ok=1
	echo "  verify-tag.py (python3-cryptography, from the contract):"
	python3 "$here/verify-tag.py" "$dir/disk.img" "$(swap_offset)" "$KEYHEX" --out "$dir/stream.bin" || ok=1
	for c in flip swap truncate; do
		if python3 "$here/verify-tag.py" "$dir/disk.img" "$(swap_offset)" "$KEYHEX" --$c > "$dir/control-$c.txt"; then
			fail "control --$c verified (the check cannot fail)"
		else
			pass "control --$c refused: $(grep -m1 WRONG "$dir/control-$c.txt" | sed 's/^ *//')"
		fi
	done
	trc=0; token_on_disk || trc=$?
	if [ $trc = 1 ]; then pass "the token the guest held is NOT on the swap partition (encrypted)"
	else fail "the token is on the swap partition (or missing from the log)"; fi
	# and the decrypted stream does hold it (the image is the guest's memory; uncompressed)
	tok=$(clean_log "$log" | sed -n 's/^KTEST: token \([0-9a-f]\{64\}\)$/\1/p' | head -1)
	if [ $case = key-lzo ]; then
		flags=$(od -An -tu4 -j $(( $(swap_offset) + 4072 )) -N4 "$dir/disk.img" | tr -d ' ')
		# LZO: neither SF_NOCOMPRESS_MODE (2) nor SF_COMPRESSION_ALG_LZ4 (16); SF_CRC32_MODE (4)
		if [ $(( flags & 18 )) = 0 ] && [ $(( flags & 4 )) != 0 ]; then pass "an LZO image with CRC32 (flags 0x$(printf %x $flags))"
		else fail "not an LZO image (flags $flags)"; fi
	elif [ -n "$tok" ] && grep -aqF "$tok" "$dir/stream.bin"; then
		pass "the decrypted stream holds the token"
	else
		fail "the decrypted stream does not hold the token"
	fi
	;;
hybrid)
	expect "$log" 'hibernation key: kept \(lockdown: confidentiality\)' "key kept" || ok=1
	expect "$log" '^KTEST: wake alarm set' "wake alarm set" || ok=1
	expect "$log" 'hibernation key: image encrypted and authenticated' "image written, encrypted" || ok=1
	expect "$log" '^KTEST: hibernate returned$' "woke up: hibernate returned" || ok=1
	expect "$log" '^KTEST: disk after wake: \[disabled\]$' "key spent: [disabled] after the wake" || ok=1
	expect "$log" '^KTEST: second hibernate refused$' "second hibernation refused" || ok=1
	no_key_in_log || ok=1
	sig=$(swap_sig "$dir/disk.img")
	if [ "$sig" = SWAPSPACE2 ]; then pass "swap signature $sig put back"; else fail "swap signature '$sig'"; fi
	if [ "$(dd if="$dir/disk.img" bs=1 skip=$(( $(swap_offset) + 512 )) count=128 status=none | tr -d '\0' | wc -c)" = 0 ]; then
		pass "the auth block is zero"
	else
		fail "the auth block is not zero"
	fi
	# the attacker's move: the 10 signature bytes written back; verify-tag.py must refuse
	cp "$dir/disk.img" "$dir/revived.img"
	set_swap_sig "$dir/revived.img" S1SUSPEND
	if python3 "$here/verify-tag.py" "$dir/revived.img" "$(swap_offset)" "$KEYHEX" > "$dir/revived.txt"; then
		fail "the image revived by its signature verifies"
	else
		pass "signature written back: refused ($(grep -m1 WRONG "$dir/revived.txt" | sed 's/^ *//'))"
	fi
	rm -f "$dir/revived.img"
	;;
esac
echo "  time $(( $(date +%s) - start )) s"
[ $ok = 0 ] && echo "kernel-lockdown $case: PASS" || { echo "kernel-lockdown $case: FAIL (see $dir)"; exit 1; }
