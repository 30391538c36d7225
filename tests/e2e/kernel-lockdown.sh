#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The patched 6.12 test kernel (make kernel; kernel-patch/6.12) under QEMU + OVMF, started
# from the UEFI shell's startup.nsh on the ESP (the EFI stub with a command line), after
# tests/e2e/kernel/keyinject.efi when the case has a key (the table efiresume installs).
#   kernel-lockdown.sh nokey       lockdown=confidentiality, no key: /sys/power/disk [disabled],
#                                  hibernation refused
#   kernel-lockdown.sh integrity   lockdown=integrity with a key: key wiped before user space,
#                                  [disabled], refused
#   kernel-lockdown.sh nolockdown  no lockdown, no key: hibernation as upstream, no auth block
#   kernel-lockdown.sh key         lockdown=confidentiality with a key: image written and tagged;
#                                  tests/e2e/kernel/verify-tag.py recomputes the tag (and a
#                                  flipped data byte must fail)
# env KERNEL_BZIMAGE: use this bzImage instead of tests/lib/kernel-build.sh's.
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
case=${1:?case: nokey integrity nolockdown key}
bz=${KERNEL_BZIMAGE:-$("$TOP/tests/lib/kernel-build.sh")}
dir=$(scratch "kernel-lockdown-$case")
here=$TOP/tests/e2e/kernel
KEYHEX=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

# the guest: prints KTEST: lines, tries to hibernate (mode reboot: QEMU exits, -no-reboot)
cat > "$dir/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security
echo "KTEST: lockdown: $(cat /sys/kernel/security/lockdown)"
echo "KTEST: disk: $(cat /sys/power/disk)"
echo "KTEST: state: $(cat /sys/power/state)"
mkswap /dev/vda2 >/dev/null && swapon /dev/vda2 || echo "KTEST: swap failed"
cat /sys/class/block/vda2/dev > /sys/power/resume
echo "KTEST: resume device: $(cat /sys/power/resume)"
if echo reboot > /sys/power/disk; then echo "KTEST: mode reboot set"; else echo "KTEST: mode refused"; fi
if echo disk > /sys/power/state; then
	echo "KTEST: hibernate returned"
else
	echo "KTEST: hibernate refused"
fi
dmesg | grep -i "hibernation key\|lockdown" | sed 's/^/KTEST: dmesg: /'
reboot -f
INIT

args="console=ttyS0 loglevel=7 panic=-1 no_timer_check hibernate=nocompress"
key=0
case $case in
nokey) args="$args lockdown=confidentiality" ;;
integrity) args="$args lockdown=integrity"; key=1 ;;
nolockdown) ;;
key) args="$args lockdown=confidentiality"; key=1 ;;
*) die "unknown case $case" ;;
esac

mkdir -p "$dir/kdir/lib/modules"
make_initramfs x64 "$dir/kdir" "$dir/init" "$dir/initrd.gz"
make_disk "$dir/disk.img" 640
esp_put "$dir/disk.img" "$bz" ::/vmlinuz.efi
esp_put "$dir/disk.img" "$dir/initrd.gz" ::/initrd.gz
{
	echo "fs0:"
	[ $key = 0 ] || echo "\\keyinject.efi"
	echo "\\vmlinuz.efi initrd=\\initrd.gz $args"
} > "$dir/startup.nsh"
esp_put "$dir/disk.img" "$dir/startup.nsh" ::/startup.nsh
if [ $key = 1 ]; then
	# the key table of contract v1 with the fixed test key, then the EFI program
	python3 - "$KEYHEX" > "$dir/keytable.h" <<'PY'
import hashlib, hmac, struct, sys
k = bytes.fromhex(sys.argv[1])
t = struct.pack('<IIII', 0x4b524645, 1, 64, 0) + k + hmac.new(k, b'efiresume key id', hashlib.sha256).digest()[:8] + bytes(8)
print('static const UINT8 key_table[64] = {' + ','.join('0x%02x' % b for b in t) + '};')
PY
	cflags="-Wall -Wextra -Werror -O2 -std=gnu11 -fpic -ffreestanding -fno-stack-protector -fshort-wchar
		-mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI
		-I/usr/include/efi -I/usr/include/efi/x86_64 -I/usr/include/efi/protocol -I$dir"
	gcc $cflags -c "$here/keyinject.c" -o "$dir/keyinject.o"
	ld -nostdlib -znocombreloc -shared -Bsymbolic -T /usr/lib/elf_x86_64_efi.lds \
		/usr/lib/crt0-efi-x86_64.o "$dir/keyinject.o" -L/usr/lib -lefi -lgnuefi -o "$dir/keyinject.so"
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j .rel.* -j .rela.* \
		-j .reloc --target efi-app-x86_64 --subsystem=10 "$dir/keyinject.so" "$dir/keyinject.efi"
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
case $case in
nokey|integrity)
	expect "$log" '^KTEST: lockdown: .*\[(confidentiality|integrity)\]' "locked down" || ok=1
	expect "$log" '^KTEST: disk: \[disabled\]$' "/sys/power/disk [disabled]" || ok=1
	expect_not "$log" '^KTEST: state: .*disk' "/sys/power/state without disk" || ok=1
	expect "$log" '^KTEST: hibernate refused$' "hibernation refused" || ok=1
	if [ $case = integrity ]; then
		expect "$log" 'hibernation key: received from efiresume' "key received" || ok=1
		expect "$log" 'hibernation key: wiped: lockdown is not at confidentiality' "key wiped at integrity" || ok=1
	fi
	;;
nolockdown)
	expect "$log" '^KTEST: lockdown: \[none\]' "not locked down" || ok=1
	expect "$log" '^KTEST: disk: .*\[reboot\]|^KTEST: disk: .*shutdown' "/sys/power/disk lists modes" || ok=1
	expect_not "$log" 'KTEST: hibernate (refused|returned)' "hibernated (no return)" || ok=1
	sig=$(swap_sig "$dir/disk.img")
	if [ "$sig" = S1SUSPEND ]; then echo "  ok: swap signature $sig"; else echo "  WRONG: swap signature '$sig'"; ok=1; fi
	magic=$(dd if="$dir/disk.img" bs=1 skip=$(( $(swap_offset) + 512 )) count=8 status=none | tr -d '\0')
	if [ -z "$magic" ]; then echo "  ok: no auth block (no key)"; else echo "  WRONG: '$magic' at offset 512"; ok=1; fi
	;;
key)
	expect "$log" 'keyinject: key table at 0x[0-9a-f]+: Success' "key table installed" || ok=1
	expect "$log" 'hibernation key: received from efiresume' "key received" || ok=1
	expect "$log" 'hibernation key: kept \(lockdown: confidentiality\)' "key kept" || ok=1
	expect "$log" '^KTEST: disk: .*reboot' "/sys/power/disk lists modes (not [disabled])" || ok=1
	expect "$log" 'hibernation key: image tagged' "image tagged" || ok=1
	expect_not "$log" 'KTEST: hibernate (refused|returned)' "hibernated (no return)" || ok=1
	python3 "$here/verify-tag.py" "$dir/disk.img" "$(swap_offset)" "$KEYHEX" || ok=1
	echo "  control: one data byte flipped must not verify"
	flipped=$(python3 "$here/verify-tag.py" "$dir/disk.img" "$(swap_offset)" "$KEYHEX" --flip || true)
	if grep 'WRONG: tag' <<< "$flipped"; then
		echo "  ok: flipped byte refused"
	else
		echo "  WRONG: flipped byte accepted"; ok=1
	fi
	;;
esac
[ $ok = 0 ] && echo "kernel-lockdown $case: PASS" || { echo "kernel-lockdown $case: FAIL (see $dir)"; exit 1; }
