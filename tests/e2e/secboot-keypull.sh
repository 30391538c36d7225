#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Contract v2 (kernel-patch/6.12/README): the hibernation key K is only offered through
# efiresume's key protocol; a program that does not ask for it never receives it. Checked on
# the whole of guest RAM: OVMF with Secure Boot (snakeoil db, tests/lib/secboot.sh), the signed
# efiresume as the removable-media loader. tests/lib/keypull.py watch reads the guest's console
# from a socket and, the moment a chosen line shows up, stops the guest over QMP (unix socket)
# and dumps every RAM block (dump-guest-memory, paging off: above 4 GiB too; SMRAM is not in it,
# as for the OS); after the run every value EfiresumeHibernationKeyV2 (and v1's EfiresumeHibernationKey) holds or held in the VARS
# file (the live K and deleted records: tests/lib/secboot-vars.py's parser) is searched in each
# dump, and every key table header ("EFRK", version 1 or 2) reported: offsets, guest-physical
# addresses, EFI memory types (from the kernel's efi=debug map), and what surrounds each copy
# (a key table, edk2's SMM variable buffer, a variable record, anything else).
#   secboot-keypull.sh CASE
#   unpatched    the fallback is Debian's UNPATCHED kernel (6.12 of bookworm-backports; KP_KERNEL=6.1
#                for Debian 12's), its Debian signature replaced by the snakeoil db key's, with
#                efi=debug (its EFI memory map in the log) and an initramfs that prints a marker
#                and waits: RAM dumped at the kernel's first console line, and at the marker
#   nofallback   no fallback in efiresume.conf (efiresume-install's on-hibernate mode, BootNext):
#                efiresume returns to the firmware, which goes on with its boot order: RAM dumped
#                twice, the moment the firmware reports the boot option's return (its stack not
#                yet reused much), and when it waits at its boot menu (after OVMF's last resort
#                started the removable-media loader, efiresume, a second time)
#   missing      the same with a fallback that does not exist
# PASS: K is in the variable store (a real key was searched for: NV|BS, 32 bytes), efiresume said
# Secure Boot is on, and no key of the run is anywhere in any dump. Copies of K that are the data
# of a variable record (right after the UTF-16 name EfiresumeHibernationKey: the firmware's own
# copy of its variable store) are reported apart as "varrec"; they fail the case too unless
# KP_ALLOW_VARREC=1. Copies in edk2's SMM variable buffer ("commbuf": the last SetVariable or
# GetVariable that carried K, left in EfiRuntimeServicesData) always fail it.
# env KP_CONTROL=old: efiresume built from KP_OLD_COMMIT (default 1a89b5a, contract v1: the key
#     table with K installed as a configuration table for whatever starts next) instead of this
#     tree, signed the same way (cached in $CACHE/keypull-old-<commit>). The control must FAIL
#     (K found): it shows the search finds a key that is there. K is whatever the variable holds
#     after the boot.
#     KP_CONTROL=noscrub: efiresume built from this tree (git archive of HEAD) without the
#     scrub of the firmware's variable buffer (loader/hibkey.c er_keyvar_scrub): nofallback fails
#     KP_CONTROL=nowipe: efiresume built from this tree (git archive of HEAD) with the wipe of
#     this boot's key in er_hibkey_forget() (loader/hibkey.c: take_key, ExitBootServices, the
#     return to the firmware) taken out: must FAIL too, or the dump cannot see a forgotten wipe.
#     KP_EFI=FILE: this signed efiresume (x64, snakeoil db key) instead of one built here.
#     KP_KEEP_DUMP=1 keeps the dumps (mem*.elf, RAM-sized) in the scratch directory.
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: unpatched nofallback missing}
case $case in unpatched | nofallback | missing) ;; *) die "unknown case $case" ;; esac
ctl=${KP_CONTROL:-}
d=$(scratch "secboot-keypull-$case${ctl:+-$ctl}")
T0=$(date +%s)
export MEM=${MEM:-512}
key=$(sb_key "$d")

if [ -n "${KP_EFI:-}" ]; then
	EFI=$KP_EFI
	echo "  efiresume: $EFI (KP_EFI)"
elif [ "$ctl" = old ]; then
	old=${KP_OLD_COMMIT:-1a89b5a}
	odir=$CACHE/keypull-old-$old
	(
		exec 9> "$CACHE/.keypull-old.lock"
		flock 9
		if [ ! -f "$odir/.done" ]; then
			rm -rf "$odir"; mkdir -p "$odir"
			git -C "$TOP" archive "$old" | tar -x -C "$odir"
			make -s -C "$odir" -j2 sign KEY="$key" CERT="$SB_CERT" > "$odir.log" 2>&1 ||
				{ tail "$odir.log"; die "the control build ($old) failed"; }
			touch "$odir/.done"
		fi
	)
	EFI=$odir/build/efiresume-x64.signed.efi
	echo "  control: efiresume of $old ($EFI)"
elif [ "$ctl" = nowipe ]; then
	mkdir -p "$d/ctl"
	git -C "$TOP" archive HEAD | tar -x -C "$d/ctl"
	sed -i 's|^\(\s*\)er_wipe(k->next, sizeof(k->next));|\1/* control: not wiped */|' "$d/ctl/loader/hibkey.c"
	grep -qF '/* control: not wiped */' "$d/ctl/loader/hibkey.c" ||
		die "KP_CONTROL=nowipe: the wipe to take out was not found in loader/hibkey.c"
	make -s -C "$d/ctl" -j2 sign KEY="$key" CERT="$SB_CERT" > "$d/ctl.log" 2>&1 || { tail "$d/ctl.log"; die "control build failed"; }
	EFI=$d/ctl/build/efiresume-x64.signed.efi
	echo "  control: efiresume of HEAD with er_hibkey_forget()'s wipe of this boot's key taken out"
elif [ "$ctl" = noscrub ]; then
	mkdir -p "$d/ctl"
	git -C "$TOP" archive HEAD | tar -x -C "$d/ctl"
	sed -i 's|^\(\s*\)er_keyvar_scrub();|\1/* control: not scrubbed */|' "$d/ctl/loader/hibkey.c"
	[ "$(grep -c '/\* control: not scrubbed \*/' "$d/ctl/loader/hibkey.c")" = 2 ] ||
		die "KP_CONTROL=noscrub: the two scrubs to take out were not found in loader/hibkey.c"
	make -s -C "$d/ctl" -j2 sign KEY="$key" CERT="$SB_CERT" > "$d/ctl.log" 2>&1 || { tail "$d/ctl.log"; die "control build failed"; }
	EFI=$d/ctl/build/efiresume-x64.signed.efi
	echo "  control: efiresume of HEAD without er_keyvar_scrub() (the firmware's variable buffer keeps the last key)"
elif [ -n "$ctl" ]; then
	die "KP_CONTROL: old, nowipe, noscrub or nothing"
else
	make -s -C "$TOP" sign KEY="$key" CERT="$SB_CERT" >/dev/null 2>&1 || { echo "  make sign failed"; exit 1; }
	EFI=$BUILD/efiresume-x64.signed.efi
fi
sbverify --cert "$SB_CERT" "$EFI" >/dev/null 2>&1 || die "$EFI is not signed by the snakeoil key"

marker=m$RANDOM$RANDOM
{
	echo "timeout 0"
	case $case in
	unpatched)
		printf '%s\n' 'fallback \vmlinuz.efi'
		echo "options initrd=\\initrd.gz console=ttyS0 panic=-1 efi=debug efiresume_marker=$marker" ;;
	missing)
		printf '%s\n' 'fallback \EFI\nowhere\missing.efi' ;;
	esac
} > "$d/efiresume.conf"
make_disk "$d/disk.img" 64
esp_put "$d/disk.img" "$EFI" ::/EFI/BOOT/BOOTX64.EFI
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
if [ "$case" = unpatched ]; then
	if [ "${KP_KERNEL:-6.12}" = 6.1 ]; then
		kdir=$(kernel_dir linux-image-cloud-amd64)
	else
		kdir=$(kernel_dir linux-image-cloud-amd64 backports)
	fi
	cat "$TOP"/tests/e2e/init/prelude.sh "$TOP"/tests/e2e/init/keypull.sh > "$d/init"
	make_initramfs x64 "$kdir" "$d/init" "$d/initrd.gz"
	sb_sign "$key" "$(kernel_image "$kdir")" "$d/vmlinuz.efi"
	esp_put "$d/disk.img" "$d/vmlinuz.efi" ::/vmlinuz.efi
	esp_put "$d/disk.img" "$d/initrd.gz" ::/initrd.gz
	echo "  fallback: $(basename "$(kernel_image "$kdir")") (unpatched, re-signed with the snakeoil db key)"
fi
mkswap_disk "$d/disk.img" "$SWAP_PARTUUID"
sb_new_vars "$d/vars.fd"

L=$d/serial.log
# when to dump: the console is read by tests/lib/keypull.py watch, which stops the guest over
# QMP as soon as a line shows up and dumps its RAM (milliseconds, not the seconds of a poll:
# the firmware's own stack use soon covers what a program left there)
#   unpatched   the kernel's first console line ("Linux version", printed when its serial console
#               registers, before it makes any EFI runtime call of its own: what it inherited
#               from the firmware and its EFI stub; dump 1), then its marker line (init runs;
#               dump 2)
#   nofallback, missing   the first "BdsDxe: failed to start Boot####" (efiresume has just
#               returned to the firmware: dump 1), then "BdsDxe: No bootable option or device
#               was found" (OVMF has tried every option, the removable-media loader again as its
#               last resort: efiresume runs a second time; it waits at its boot menu: dump 2)
if [ "$case" = unpatched ]; then
	dumps=("Linux version [0-9]=$d/mem-kernel.elf" "EFIRESUME-TEST: keypull: waiting=$d/mem.elf")
else
	dumps=("efiresume: Secure Boot: the key protocol is removed|BdsDxe: failed to start Boot[0-9A-F]+=$d/mem-return.elf"
	       "BdsDxe: No bootable option or device was found=$d/mem-menu.elf")
fi
TMO=${KP_TIMEOUT:-170}
rm -f "$d"/qmp.sock "$d"/serial.sock "$d"/mem*.elf
rc=0 wrc=0
T1=$(date +%s)
QEMU_SERIAL="-chardev socket,id=ser0,path=$d/serial.sock,server=on,wait=on -serial chardev:ser0" \
	sb_run_qemu "$d/disk.img" "$d/vars.fd" "$L.qemu" "$TMO" -device virtio-rng-pci \
	-qmp unix:"$d/qmp.sock",server=on,wait=off 2> "$d/qemu.stderr" &
qpid=$!
python3 "$TOP/tests/lib/keypull.py" watch "$d/serial.sock" "$d/qmp.sock" "$L" "${dumps[@]}" || wrc=$?
wait $qpid || rc=$?
T2=$(date +%s)
echo "  QEMU ran $((T2 - T1)) s, exit status $rc; the watcher's $wrc"
grep -v "QEMU waiting for connection" "$d/qemu.stderr" | sed 's/^/  qemu: /' || true

ok=0
expect "$L" "efiresume: efiresume .* \(x64\) started" "the signed efiresume started" || ok=1
expect "$L" "efiresume: Secure Boot is on" "efiresume says Secure Boot is on" || ok=1
echo "  efiresume ran $(clean_log "$L" | grep -ac "efiresume: efiresume .* started") time(s) in this boot"
case $case in
unpatched)
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "the unpatched kernel started (marker)" || ok=1
	expect "$L" "efi: mem[0-9]+: " "its EFI memory map (efi=debug)" || true ;;
nofallback)
	expect "$L" "efiresume: no fallback configured .*returning to the firmware" "efiresume returned to the firmware" || ok=1
	expect_not "$L" "EFIRESUME-TEST: marker" "no kernel started" || ok=1 ;;
missing)
	expect "$L" "efiresume: error: fallback .*missing.efi does not exist; returning to the firmware" "efiresume returned to the firmware" || ok=1
	expect_not "$L" "EFIRESUME-TEST: marker" "no kernel started" || ok=1 ;;
esac
if [ "$case" != unpatched ]; then
	expect "$L" "BdsDxe: failed to start Boot[0-9A-F]+ " "the firmware saw the boot option return" || ok=1
	expect "$L" "BdsDxe: No bootable option or device was found" "the firmware went on to its boot menu" || ok=1
	clean_log "$L" | grep -a "^BdsDxe: " | sed 's/^/  firmware: /'
fi
kvar=EfiresumeHibernationKeyV2
[ "$ctl" != old ] || kvar=EfiresumeHibernationKey   # contract v1's variable
a=$(sb_var_attrs "$d/vars.fd" $kvar)
kh=$(sb_var_hex "$d/vars.fd" $kvar)
if [ "$a" = "attrs=0x3 size=32" ] && [[ $kh =~ ^[0-9a-f]{64}$ ]]; then
	pass "K in the variable store after the run ($a, begins ${kh:0:8})"
else
	fail "$kvar in the VARS file: $a: nothing to search for"
fi
# shellcheck disable=SC2154  # keys, k, table ... are set by the eval of the RESULT line
for p in "${dumps[@]}"; do
	f=${p##*=}
	echo "  --- $(basename "$f"), dumped at /${p%=*}/"
	[ -s "$f" ] || { fail "no dump $(basename "$f") (its line never came, or the dump failed)"; continue; }
	[[ $kh =~ ^[0-9a-f]{64}$ ]] || continue
	maparg=()
	[ "$case" != unpatched ] || maparg=("$L.txt")   # the kernel's efi=debug map
	python3 "$TOP/tests/lib/keypull.py" search "$f" "$d/vars.fd" "${maparg[@]}" | tee "$f.search.txt"
	r=$(sed -n 's/^RESULT //p' "$f.search.txt")
	[ -n "$r" ] || { fail "the search did not finish"; r="keys=1 k=1 table=0 commbuf=0 varrec=0 other=1 old=0 oldvarrec=0"; }
	eval "$r"   # keys= k= table= commbuf= varrec= other= old= oldvarrec= efrk= efrk_with_k=
	allow=0
	[ "${KP_ALLOW_VARREC:-0}" != 1 ] || allow=$((varrec + oldvarrec))
	if [ "$((k + old))" = 0 ]; then
		pass "K (and every earlier value of the variable: $((keys - 1))) nowhere in guest RAM"
	elif [ "$((k + old - allow))" = 0 ]; then
		echo "  ok (KP_ALLOW_VARREC=1): keys only in $allow copy(ies) of the firmware's variable store"
	else
		fail "found: $((k + old)) copy(ies) of this run's keys in guest RAM: of K, the key the store holds after the run, $k (key table: $table, the firmware's SMM variable buffer: $commbuf, variable record: $varrec, elsewhere: $other); of keys it held earlier in the run (a first run of efiresume's, replaced by the second), $old (each listed above)"
	fi
done
[ "${KP_KEEP_DUMP:-0}" = 1 ] || rm -f "$d"/mem*.elf
echo "  case time: $(($(date +%s) - T0)) s (QEMU $((T2 - T1)) s)"
exit $ok
