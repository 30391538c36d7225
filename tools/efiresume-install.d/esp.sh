# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the EFI system partition: finding it, the firmware's word size, atomic writes on it.

# firmware word size -> arch name
fw_arch() {
	local s
	s=$(cat "$SYSFS/firmware/efi/fw_platform_size" 2>/dev/null)
	case $s in
	64) echo x64 ;;
	32) echo ia32 ;;
	*) # kernels before 4.0 have no fw_platform_size
		case $(uname -m) in x86_64) echo x64 ;; i?86) echo ia32 ;; *) return 1 ;; esac ;;
	esac
}

# find_esp [DIR]: the EFI system partition. Sets ESP (directory), ESP_DEV (/dev/...),
# ESP_DISK, ESP_PART, ESP_PARTUUID (lower case; "" when unknown): the globals every verb
# shares. DIR: --esp-path (explicit). Without it: the ESP recorded in the state file, and
# only that one (like bootctl, never another ESP silently: when it is not mounted, or
# another partition is mounted there, refused, saying which); with nothing recorded, the
# first mounted FAT filesystem of EFIRESUME_ESP_CANDIDATES. Dies when there is none.
find_esp() {
	local given=${1:-} recorded= cands=() c fstype src name sysd ptype was
	# one directory each: --esp-path and the recorded ESP may hold spaces; the default
	# list (EFIRESUME_ESP_CANDIDATES) is split at spaces
	if [ -n "$given" ]; then
		cands=("$given")
	else
		recorded=$(state_get esp)
		if [ -n "$recorded" ]; then
			cands=("$recorded")
		else
			read -r -a cands <<<"$ESP_CANDIDATES"
		fi
	fi
	ESP=
	for c in "${cands[@]}"; do
		ls "$c/" >/dev/null 2>&1     # triggers an automount (x-systemd.automount)
		if ! findmnt -n --mountpoint "$c" >/dev/null 2>&1; then
			[ -n "$given" ] && die "--esp-path $c is not a mount point"
			[ -n "$recorded" ] && die "efiresume is installed on the EFI system partition at $c (recorded in $STATE), and $c is not mounted now: mount it and run this again (or give --esp-path=DIR: install --esp-path=DIR moves efiresume to another EFI system partition)"
			continue
		fi
		# the last line is the mount on top (an automount point shows autofs below it)
		fstype=$(findmnt -n -o FSTYPE --mountpoint "$c" | tail -n 1)
		if ! printf ' %s ' "$ESP_FSTYPES" | grep -q " $fstype "; then
			[ -n "$given" ] && die "$c is a $fstype filesystem, not FAT (vfat): not an EFI system partition"
			[ -n "$recorded" ] && die "efiresume is installed on the EFI system partition at $c (recorded in $STATE), and $c is not mounted now: a $fstype filesystem is mounted there (mount the ESP, or give --esp-path=DIR)"
			continue
		fi
		ESP=$c
		break
	done
	[ -n "$ESP" ] || die "no EFI system partition found: none of ${cands[*]} is a mounted FAT filesystem (give one with --esp-path=DIR)"
	src=$(findmnt -n -o SOURCE --mountpoint "$ESP" | tail -n 1)
	case $src in
	/dev/*) ;;
	*) die "the EFI system partition at $ESP is not mounted from a block device ($src)" ;;
	esac
	name=${src#/dev/}
	name=${name##*/}
	sysd=$(readlink -f "$SYSFS/class/block/$name" 2>/dev/null)
	[ -n "$sysd" ] && [ -r "$sysd/partition" ] ||
		die "the EFI system partition at $ESP ($src) is not a partition of a disk"
	ESP_DEV=$src
	ESP_PART=$(cat "$sysd/partition")
	ESP_DISK=$DEVDIR/$(basename "$(dirname "$sysd")")
	[ -b "$ESP_DISK" ] || [ -n "${EFIRESUME_SYSFS:-}" ] || die "the disk of the EFI system partition, $ESP_DISK, is not a block device"
	# the partition GUID the boot entry's HD() node names: the kernel's (uevent), else blkid's
	ESP_PARTUUID=$(sed -n 's/^PARTUUID=//p' "$sysd/uevent" 2>/dev/null | head -n 1)
	[ -n "$ESP_PARTUUID" ] || ESP_PARTUUID=$(blkid -p -s PART_ENTRY_UUID -o value "$DEVDIR/$name" 2>/dev/null)
	ESP_PARTUUID=${ESP_PARTUUID,,}
	if [ -n "$recorded" ]; then
		was=$(state_get esp-partuuid)
		if ! same_partition "$was" "$ESP_PARTUUID"; then
			die "efiresume is installed on the EFI system partition with PARTUUID $was (recorded in $STATE), but $ESP holds partition $ESP_PARTUUID now: mount that one at $ESP and run this again (or give --esp-path=$ESP to install on this one)"
		fi
	fi
	ptype=$(blkid -p -s PART_ENTRY_TYPE -o value "$DEVDIR/$name" 2>/dev/null)
	case ${ptype,,} in
	'' | c12a7328-f81f-11d2-ba4b-00a0c93ec93b | 0xef) ;;
	*) die "$ESP ($src) is not an EFI system partition (partition type $ptype)" ;;
	esac
	return 0
}

# Every write on the ESP: esp_put_file SRC DEST writes DEST as a copy of SRC (a file off the
# ESP): under a temporary name in DEST's own directory (DEST.new: FAT renames within a
# directory), flushed to the disk (fsync), compared with SRC (what was meant), and only then
# renamed over DEST; then the directory is flushed (the rename). Any failure (a full ESP, an
# I/O error) deletes the temporary file, leaves DEST as it was and says why; status 1.
esp_put_file() { # SRC DEST
	local src=$1 dest=$2 dir tmp
	dir=${dest%/*} tmp=$dest.new
	mkdir -p "$dir" || { err "cannot make the directory $dir"; return 1; }
	rm -f "$tmp"
	if ! cp "$src" "$tmp"; then
		err "cannot copy $src to $tmp"
	elif ! sync -- "$tmp"; then
		err "cannot flush $tmp to the disk"
	elif ! cmp -s "$src" "$tmp"; then
		err "$tmp differs from $src after the copy"
	elif ! mv -f "$tmp" "$dest"; then
		err "cannot rename $tmp to ${dest##*/}"
	else
		sync -f -- "$dir" 2>/dev/null     # the rename, on to the disk
		return 0
	fi
	rm -f "$tmp"
	return 1
}

# copy_binary SRC [NAME]: SRC to \EFI\efiresume\NAME (default efiresume.efi), esp_put_file
copy_binary() {
	esp_put_file "$1" "$ESP/EFI/efiresume/${2:-efiresume.efi}"
}
