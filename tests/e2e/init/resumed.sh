# SPDX-License-Identifier: GPL-2.0-or-later

# Checks after resume, sourced by /init (hibernate.sh) in the resumed kernel:
# its memory is that of boot 1, so $token, $md5, /tmp/random.bin and the
# counter are the ones created before the hibernation.
# Every result is one "EFIRESUME-TEST: ..." line; the last one is "checks-done".

# token and data
say "token-after=$token"
say "md5-after=$(md5sum /tmp/random.bin | cut -d' ' -f1)"

# the background counter must still be counting
counter() {
	local i=0 v=
	while [ $i -lt 10 ]; do
		v=$(cat /tmp/counter 2>/dev/null)
		[ -n "$v" ] && break
		i=$((i + 1)); sleep 0.05
	done
	echo "${v:-none}"
}
c1=$(counter)
sleep 1
c2=$(counter)
say "counter $c1 -> $c2"

# swap: the on-disk signature (read past the page cache), then swapoff + swapon
# (swapon rereads the header from the disk once nothing holds it open).
# $swap and $sigpage: the partition or the swap file, and its header page.
sig=$(dd if=/dev/vda2 bs=4096 skip="$sigpage" count=1 iflag=direct 2>/dev/null | dd bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')
# >>> volumes
# (swap on an LV: its first page, read through the mapping, decrypted for LUKS)
if [ -n "${vol_dev:-}" ]; then
	sig=$(dd if=$vol_dev bs=4096 count=1 iflag=direct 2>/dev/null | dd bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')
	say "swap-device=$vol_dev"
fi
# <<< volumes
say "swap-signature=$sig"
if swapoff "$swap" && swapon "$swap"; then
	say "swap-reusable=yes"
else
	say "swap-reusable=no"
fi

# EFI variables through efivarfs (runtime services of the resumed kernel)
efivars=/sys/firmware/efi/efivars
egv=8be4df61-93ca-11d2-aa0d-00e098032b8c          # EFI_GLOBAL_VARIABLE
vendor=5e1f0c3a-7d4b-4b8e-9a61-2f3c4d5e6f70       # efiresume tests' own vendor GUID
[ -d $efivars ] || say "no $efivars (kernel booted without EFI?)"
grep -q ' efivarfs ' /proc/filesystems || insmod /lib/modules/efivarfs.ko 2>/dev/null
grep -q " $efivars " /proc/mounts || mount -t efivarfs none $efivars || say "efivarfs mount failed"
rd=no
for v in BootCurrent BootOrder; do
	f=$efivars/$v-$egv
	[ -f "$f" ] || continue
	# >= 5 bytes: 4 attribute bytes + data
	n=$(cat "$f" 2>/dev/null | wc -c)
	if [ "$n" -ge 5 ]; then
		say "efivar $v: $(od -An -tx1 "$f" | tr -s ' \n' ' ')"
		rd=yes
		break
	fi
done
say "efivars-read=$rd"
wr=no
f=$efivars/EfiresumeTest-$vendor
printf '\007\000\000\000efiresume-test:%s' "$token" > /tmp/efivar.in
printf '\007\000\000\000' > /tmp/efivar.del
# efivarfs makes a new variable's file immutable (only a few well-known variables
# are removable) and busybox has no chattr: keep the descriptor opened when the
# file is created, write the variable through it (one write(2): attributes +
# data), and delete it by writing the attributes alone (no data = delete).
{
	if dd if=/tmp/efivar.in bs=4096 2>/dev/null >&3; then
		# read back: efivarfs asks the firmware (GetVariable) on every read
		dd if="$f" of=/tmp/efivar.out bs=4096 2>/dev/null
		if busybox cmp -s /tmp/efivar.in /tmp/efivar.out; then
			wr=yes
		else
			say "efivar written $(od -An -tx1 /tmp/efivar.in | tr -s ' \n' ' '), read $(od -An -tx1 /tmp/efivar.out | tr -s ' \n' ' ')"
		fi
	else
		say "efivar write failed"
	fi
	dd if=/tmp/efivar.del bs=4096 2>/dev/null >&3 || say "efivar delete failed"
} 3> "$f" || say "efivar create failed"
if [ -e "$f" ]; then
	say "efivar still present after delete"
	wr=no
fi
say "efivars-write=$wr"

# disk: 4 MiB from /dev/vda straight from the device (O_DIRECT, no page cache)
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
n=$(dd if=/dev/vda bs=1048576 skip=32 count=4 iflag=direct 2>/dev/null | wc -c)
if [ "$n" -eq 4194304 ]; then
	say "disk-read=yes"
else
	say "disk-read=no ($n bytes)"
fi

say "checks-done"
poweroff -f
