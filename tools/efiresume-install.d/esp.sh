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

# ESP: sets ESP (directory), ESP_DEV (/dev/...), ESP_DISK, ESP_PART, ESP_PARTUUID.
# $1: explicit --esp-path or empty.
find_esp() {
	local cands=() c fstype src name sysd
	# one directory each: --esp-path and the recorded ESP may hold spaces; the default
	# list (EFIRESUME_ESP_CANDIDATES) is split at spaces
	if [ -n "$1" ]; then
		cands=("$1")
	else
		local recorded
		recorded=$(state_get esp)
		[ -n "$recorded" ] && cands=("$recorded")
		local more=()
		read -r -a more <<<"$ESP_CANDIDATES"
		cands+=("${more[@]}")
	fi
	ESP=
	for c in "${cands[@]}"; do
		ls "$c/" >/dev/null 2>&1     # triggers an automount (x-systemd.automount)
		findmnt -n --mountpoint "$c" >/dev/null 2>&1 || { [ -n "$1" ] && die "--esp-path $c is not a mount point"; continue; }
		# the last line is the mount on top (an automount point shows autofs below it)
		fstype=$(findmnt -n -o FSTYPE --mountpoint "$c" | tail -n 1)
		if ! printf ' %s ' "$ESP_FSTYPES" | grep -q " $fstype "; then
			[ -n "$1" ] && die "$c is a $fstype filesystem, not FAT (vfat): not an EFI system partition"
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
	ESP_PARTUUID=$(blkid -p -s PART_ENTRY_UUID -o value "$DEVDIR/$name" 2>/dev/null)
	local ptype
	ptype=$(blkid -p -s PART_ENTRY_TYPE -o value "$DEVDIR/$name" 2>/dev/null)
	case ${ptype,,} in
	'' | c12a7328-f81f-11d2-ba4b-00a0c93ec93b | 0xef) ;;
	*) die "$ESP ($src) is not an EFI system partition (partition type $ptype)" ;;
	esac
	return 0
}

# Copy a file to \EFI\efiresume\NAME atomically (FAT: write a new file, then rename over the
# old one): the new file is written under a temporary name, flushed to the disk (fsync),
# compared with the source, and only then renamed over NAME (default efiresume.efi). Any
# failure (a full ESP, an I/O error) deletes the temporary file and leaves the old one as it
# was; status 1.
copy_binary() {
	local src=$1 name=${2:-efiresume.efi} dir=$ESP/EFI/efiresume tmp
	tmp=$dir/$name.new
	mkdir -p "$dir" || return 1
	rm -f "$tmp"
	if ! cp "$src" "$tmp"; then
		err "cannot copy $src to $tmp"
	elif ! sync -- "$tmp"; then
		err "cannot flush $tmp to the disk"
	elif ! cmp -s "$src" "$tmp"; then
		err "$tmp differs from $src after the copy"
	elif ! mv -f "$tmp" "$dir/$name"; then
		err "cannot rename $tmp to $name"
	else
		sync -f -- "$dir" 2>/dev/null     # the rename, on to the disk
		return 0
	fi
	rm -f "$tmp"
	return 1
}
