#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Contract v2 (kernel-patch/6.12/README): the hibernation key K is only offered through
# efiresume's key protocol; a program that does not ask for it never receives it. Checked on
# the whole of guest RAM: OVMF with Secure Boot (snakeoil db, tests/lib/secboot.sh), the signed
# efiresume as the removable-media loader; at a chosen moment QEMU's monitor (QMP on a unix
# socket) dumps every RAM block of the guest (dump-guest-memory, paging off: above 4 GiB too)
# and QEMU is stopped; K is then read from the VARS file (tests/lib/secboot-vars.py) and its 32
# bytes searched in the dump, with every key table header ("EFRK", version 1 or 2) reported
# (tests/lib/keypull.py: offsets, guest-physical addresses, EFI memory types).
#   secboot-keypull.sh CASE
#   unpatched    the fallback is Debian's UNPATCHED kernel (6.12 of bookworm-backports; KP_KERNEL=6.1
#                for Debian 12's), its Debian signature replaced by the snakeoil db key's, with
#                efi=debug (its EFI memory map in the log) and an initramfs that prints a marker
#                and waits: RAM dumped once the marker is on the console
#   nofallback   no fallback in efiresume.conf (efiresume-install's on-hibernate mode, BootNext):
#                efiresume returns to the firmware, which goes on with its boot order: RAM dumped
#                once the firmware has moved on to its next boot option
#   missing      the same with a fallback that does not exist
# PASS: K is in the variable store (a real key was searched for: NV|BS, 32 bytes), efiresume said
# Secure Boot is on, and K is nowhere in guest RAM. Copies of K that are the data of a variable
# record (right after the UTF-16 name EfiresumeHibernationKey: the firmware's own copy of its
# variable store) are reported apart as "varrec"; they fail the case too unless
# KP_ALLOW_VARREC=1.
# env KP_CONTROL=old: efiresume built from KP_OLD_COMMIT (default 1a89b5a, contract v1: the key
#     table with K installed as a configuration table for whatever starts next) instead of this
#     tree, signed the same way (cached in $CACHE/keypull-old-<commit>). The control must FAIL
#     (K found): it shows the search finds a key that is there. K is whatever the variable holds
#     after the boot.
#     KP_KEEP_DUMP=1 keeps the dump (mem.elf, RAM-sized) in the scratch directory.
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

if [ "$ctl" = old ]; then
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
elif [ -n "$ctl" ]; then
	die "KP_CONTROL: old or nothing"
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
		echo 'fallback \vmlinuz.efi'
		echo "options initrd=\\initrd.gz console=ttyS0 panic=-1 efi=debug efiresume_marker=$marker" ;;
	missing)
		echo 'fallback \EFI\nowhere\missing.efi' ;;
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
mkswap_disk "$d/disk.img" $SWAP_PARTUUID
sb_new_vars "$d/vars.fd"

L=$d/serial.log
# when to dump (KP_SETTLE, default 2 s, after): the unpatched kernel's marker; or (no fallback)
# the firmware at its boot menu, having tried every boot option
if [ "$case" = unpatched ]; then
	trigger() { grep -aq "EFIRESUME-TEST: keypull: waiting" "$L"; }
else
	# OVMF, once every boot option has returned (the removable-media loader may be started
	# again by its last resort: efiresume runs twice), waits in front of its boot menu
	trigger() { grep -aq "BdsDxe: No bootable option or device was found" "$L"; }
fi
TMO=${KP_TIMEOUT:-170}
rm -f "$d/qmp.sock" "$d/mem.elf"
rc=0 dumped=0
T1=$(date +%s)
sb_run_qemu "$d/disk.img" "$d/vars.fd" "$L" "$TMO" -device virtio-rng-pci \
	-qmp unix:"$d/qmp.sock",server=on,wait=off &
qpid=$!
while kill -0 $qpid 2>/dev/null; do
	if trigger; then
		sleep "${KP_SETTLE:-2}"
		echo "  trigger seen after $(($(date +%s) - T1)) s: dumping guest RAM"
		if python3 "$TOP/tests/lib/keypull.py" dump "$d/qmp.sock" "$d/mem.elf"; then dumped=1; fi
		break
	fi
	sleep 1
done
wait $qpid || rc=$?
T2=$(date +%s)
echo "  QEMU ran $((T2 - T1)) s, exit status $rc"

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
[ $dumped = 1 ] && [ -s "$d/mem.elf" ] || { echo "  FAIL: no memory dump (trigger never seen, or the dump failed)"; exit 1; }
echo "  dump: $(($(stat -c %s "$d/mem.elf") >> 20)) MiB"

a=$(sb_var_attrs "$d/vars.fd" EfiresumeHibernationKey)
kh=$(python3 "$TOP/tests/lib/secboot-vars.py" "$d/vars.fd" EfiresumeHibernationKey --hex)
if [ "$a" = "attrs=0x3 size=32" ] && [[ $kh =~ ^[0-9a-f]{64}$ ]]; then
	echo "  ok: K in the variable store after the run ($a, begins ${kh:0:8})"
else
	echo "  WRONG: EfiresumeHibernationKey in the VARS file: $a: nothing to search for"; ok=1
fi
if [[ $kh =~ ^[0-9a-f]{64}$ ]]; then
	python3 "$TOP/tests/lib/keypull.py" search "$d/mem.elf" "$d/vars.fd" \
		$([ "$case" = unpatched ] && echo "$L.txt") | tee "$d/search.txt"
	r=$(sed -n 's/^RESULT //p' "$d/search.txt")
	[ -n "$r" ] || { echo "  FAIL: the search did not finish"; ok=1; r="keys=1 k=1 table=0 varrec=0 other=1 old=0 oldvarrec=0"; }
	eval "$r"   # keys= k= table= varrec= other= old= oldvarrec= efrk= efrk_with_k=
	allow=0
	[ "${KP_ALLOW_VARREC:-0}" != 1 ] || allow=$((varrec + oldvarrec))
	if [ "$((k + old))" = 0 ]; then
		echo "  ok: K (and every earlier value of the variable: $((keys - 1))) nowhere in guest RAM"
	elif [ "$((k + old - allow))" = 0 ]; then
		echo "  ok (KP_ALLOW_VARREC=1): keys only in $allow copy(ies) of the firmware's variable store"
	else
		echo "  FOUND: K in guest RAM $k time(s) (key table: $table, variable record: $varrec, elsewhere: $other); earlier keys: $old time(s)"
		ok=1
	fi
fi
[ "${KP_KEEP_DUMP:-0}" = 1 ] || rm -f "$d/mem.elf"
echo "  case time: $(($(date +%s) - T0)) s (QEMU $((T2 - T1)) s)"
exit $ok
