# SPDX-License-Identifier: GPL-2.0-or-later

# Boot 1 of a hibernation fixture: appended after prelude.sh to form /init.
# Puts known state in memory (token, random file, running counter), then
# hibernates to /dev/vda2 and powers off. When the image is resumed, the shell
# carries on right after the write to /sys/power/state.
#
# Command-line switches (all optional):
#   efiresume_mb=N        size of the random file on /tmp in MiB (default 48)
#   efiresume_keepswap    do not mkswap /dev/vda2 (it already holds a swap header)
#   efiresume_swapfile    /dev/vda2 is ext4 with /swapfile (made on the host, which
#                         wrote its resume_offset to /swapfile.offset): hibernate there
#   efiresume_hibloc      write systemd's HibernateLocation EFI variable first (UTF-16LE)
# >>> volumes
#   efiresume_lvm         swap on LV vg0/swap_1, /dev/vda2 the PV (tests/lib/volumes.sh)
#   efiresume_luks        the same VG inside LUKS2 on /dev/vda2
#   efiresume_erloc       write EfiresumeLocation naming the container and the LV
# <<< volumes
#   efiresume_probe       only report that this kernel booted, then power off
#                         (the normal boot program of the refusal tests)
#   efiresume_touch=DEV   with efiresume_probe: first mount the ext4 filesystem on DEV,
#                         write a file and unmount (a normal boot that used a disk)
#   efiresume_kresume     test only: ask THIS kernel to resume the image in
#                         /dev/vda2 (the kernel's own path, for comparison)
# /resumed.sh (the checks after resume) is written into the initramfs by the
# fixture builder before this part of /init.
say "booted $(uname -r) $(uname -m)"

if grep -q '\<efiresume_probe\>' /proc/cmdline; then
	touch_dev=$(sed -n 's/.*\<efiresume_touch=\([^ ]*\).*/\1/p' /proc/cmdline)
	if [ -n "$touch_dev" ]; then
		mkdir -p /mnt
		if mount -t ext4 "$touch_dev" /mnt && echo "written by the normal boot" > /mnt/normal-boot && umount /mnt; then
			say "touched $touch_dev"
		else
			say "could not write to $touch_dev"
		fi
	fi
	say "probe: normal boot"
	poweroff -f
fi

if grep -q '\<efiresume_kresume\>' /proc/cmdline; then
	# a swap file's resume_offset= comes on the command line
	say "kernel resume from $(cat /sys/class/block/vda2/dev), offset $(cat /sys/power/resume_offset)"
	cat /sys/class/block/vda2/dev > /sys/power/resume
	# only reached when there was nothing to resume
	say "kernel resume: no image"
	poweroff -f
fi

# swap: the partition, or a swap file; sigpage: where its swap header is
swap=/dev/vda2
sigpage=0
if grep -q '\<efiresume_swapfile\>' /proc/cmdline; then
	mkdir -p /mnt
	mount -t ext4 /dev/vda2 /mnt || say "mount failed"
	swap=/mnt/swapfile
	sigpage=$(cat /mnt/swapfile.offset)
	# as systemd-hibernate does: the swap file's device and first page
	echo "$sigpage" > /sys/power/resume_offset
	cat /sys/class/block/vda2/dev > /sys/power/resume 2>/dev/null
	say "swap file at page $sigpage of /dev/vda2"
# >>> volumes (this block is only in the /init of fixtures with efiresume_lvm/_luks)
elif grep -q '\<efiresume_lvm\>' /proc/cmdline || grep -q '\<efiresume_luks\>' /proc/cmdline; then
	# efiresume_lvm: /dev/vda2 is an LVM PV, VG vg0, linear LV swap_1 (Debian's names);
	# efiresume_luks: the same VG inside LUKS2 on /dev/vda2 (tests/lib/volumes.sh).
	# The host's lvm2 and cryptsetup, no udev: libdevmapper makes the /dev/mapper nodes.
	export DM_DISABLE_UDEV=1 LVM_SUPPRESS_FD_WARNINGS=1
	pv=/dev/vda2
	if grep -q '\<efiresume_luks\>' /proc/cmdline; then
		luks_pass='efiresume luks-11'
		t0=$(cut -d' ' -f1 /proc/uptime)
		printf '%s' "$luks_pass" | cryptsetup luksFormat --batch-mode --type luks2 --pbkdf argon2id \
			--pbkdf-memory 32768 --pbkdf-parallel 2 --pbkdf-force-iterations 4 --key-file - /dev/vda2 ||
			say "luksFormat failed"
		t1=$(cut -d' ' -f1 /proc/uptime)
		printf '%s' "$luks_pass" | cryptsetup open --key-file - /dev/vda2 vda2_crypt || say "cryptsetup open failed"
		t2=$(cut -d' ' -f1 /proc/uptime)
		pv=/dev/mapper/vda2_crypt
		say "luks=$(cryptsetup luksUUID /dev/vda2) format ${t0}-${t1} s, open ${t1}-${t2} s"
		# the kernel's xts(aes) driver (xts-aes-aesni with AES-NI)
		say "luks-cipher=$(dmsetup table vda2_crypt | cut -d' ' -f4) $(grep -A2 '^name *: xts(aes)' /proc/crypto | sed -n 's/^driver *: //p' | head -1)"
	fi
	{ lvm pvcreate -q -y $pv && lvm vgcreate -q vg0 $pv && lvm lvcreate -q -y -l 90%FREE -n swap_1 vg0; } > /dev/null ||
		say "lvm setup failed"
	swap=/dev/mapper/vg0-swap_1
	vol_dev=$swap
	mkswap $swap > /dev/null || say "mkswap failed"
	# the LV is the resume device (the kernel's swap_type_of() picks its swap area)
	for b in /sys/block/dm-*; do
		[ "$(cat $b/dm/name 2>/dev/null)" = vg0-swap_1 ] && cat $b/dev > /sys/power/resume
	done
	say "swap on LV vg0/swap_1 ($(cat /sys/power/resume))"
# <<< volumes
elif ! grep -q '\<efiresume_keepswap\>' /proc/cmdline; then
	mkswap /dev/vda2 > /dev/null || say "mkswap failed"
fi
swapon $swap || say "swapon failed"

token=$(dd if=/dev/urandom bs=16 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
say "token=$token"

mb=$(arg efiresume_mb)
mb=${mb:-48}
dd if=/dev/urandom of=/tmp/random.bin bs=1048576 count="$mb" 2>/dev/null
md5=$(md5sum /tmp/random.bin | cut -d' ' -f1)
say "md5=$md5"

# a counter that keeps running in the background (frozen over the hibernation)
(
	n=0
	while :; do
		n=$((n + 1))
		echo $n > /tmp/counter.new
		busybox mv -f /tmp/counter.new /tmp/counter
		sleep 0.2
	done
) &
sleep 0.5

# efiresume_hibloc: leave systemd's HibernateLocation variable naming this swap area
# (systemd-hibernate does so before hibernating): {"uuid":...,"offset":0,...}
if grep -q '\<efiresume_hibloc\>' /proc/cmdline; then
	ev=/sys/firmware/efi/efivars
	grep -q ' efivarfs ' /proc/filesystems || insmod /lib/modules/efivarfs.ko 2>/dev/null
	grep -q " $ev " /proc/mounts || mount -t efivarfs none $ev
	# the swap UUID as mkswap stored it (offset 1036), in text order; for a swap
	# file, the UUID of its filesystem (ext4: superblock at 1024, s_uuid at +0x68)
	at=1036
	[ "$sigpage" = 0 ] || at=1128
	u=$(dd if=/dev/vda2 bs=1 skip=$at count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')
# >>> volumes
	# (the swap area on the LV)
	[ -z "${vol_dev:-}" ] || u=$(dd if=$vol_dev bs=1 skip=1036 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')
# <<< volumes
	uuid=$(echo "$u" | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\)$/\1-\2-\3-\4-\5/')
	json="{\"uuid\":\"$uuid\",\"offset\":$sigpage,\"kernelVersion\":\"$(uname -r)\",\"osReleaseId\":\"debian\",\"osReleaseVersionId\":\"12\"}"
	# as systemd writes it (efi_set_variable_string: utf8_to_utf16, then the string and
	# its NUL as UTF-16LE, attributes NV|BS|RT): 4 bytes of attributes then the data,
	# in ONE write(2) (efivarfs rule). The JSON is ASCII: each byte, then a zero byte.
	u16=$(printf '%s' "$json" | od -An -v -to1 | tr -s ' \n' '\n\n' | sed -n 's/^\([0-7][0-7]*\)$/\\\1\\000/p' | tr -d '\n')
	{ printf '\007\000\000\000'; printf "$u16"; printf '\000\000'; } > /tmp/hibloc.in
	if { dd if=/tmp/hibloc.in bs=4096 2>/dev/null >&3; } 3> $ev/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67; then
		say "hibernate-location=$uuid"
	else
		say "hibernate-location write failed"
	fi
fi

# >>> volumes
# efiresume_erloc: leave EfiresumeLocation as efiresume's sleep hook writes it for swap on
# an LV inside LUKS (efiresume-install hook: uuid, offset, device, luks, lv, kernelVersion;
# UTF-8 without a NUL, attributes NV|BS|RT, as its write_location does)
if grep -q '\<efiresume_erloc\>' /proc/cmdline; then
	ev=/sys/firmware/efi/efivars
	grep -q ' efivarfs ' /proc/filesystems || insmod /lib/modules/efivarfs.ko 2>/dev/null
	grep -q " $ev " /proc/mounts || mount -t efivarfs none $ev
	u=$(dd if=$vol_dev bs=1 skip=1036 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')
	uuid=$(echo "$u" | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\)$/\1-\2-\3-\4-\5/')
	json="{\"uuid\":\"$uuid\",\"offset\":0,\"device\":\"$(cat /sys/power/resume)\",\"luks\":\"$(cryptsetup luksUUID /dev/vda2)\",\"lv\":\"vg0/swap_1\",\"kernelVersion\":\"$(uname -r)\"}"
	{ printf '\007\000\000\000'; printf '%s' "$json"; } > /tmp/erloc.in
	if { dd if=/tmp/erloc.in bs=4096 2>/dev/null >&3; } 3> $ev/EfiresumeLocation-338ebdff-5bf8-4971-8760-45caada2d435; then
		say "efiresume-location=$json"
	else
		say "efiresume-location write failed"
	fi
fi
# <<< volumes
say "hibernating"
echo shutdown > /sys/power/disk
if echo disk > /sys/power/state; then
	say "resumed"
	. /resumed.sh
else
	say "hibernate failed"
	poweroff -f
fi
