# SPDX-License-Identifier: GPL-2.0-or-later
# Swap on LVM and in LUKS2 (issue 11): the host side of the volume fixtures and of
# tests/e2e/volumes.sh. Sourced by fixture.sh (functions only).
#
# Guest switches (tests/e2e/init/hibernate.sh, blocks between "# >>> volumes" and
# "# <<< volumes", which are left out of every other fixture's /init):
#   efiresume_lvm    /dev/vda2 is an LVM PV, VG vg0, linear LV swap_1 (Debian's names)
#   efiresume_luks   the same VG inside LUKS2 on /dev/vda2 (opened as vda2_crypt;
#                    passphrase VOL_LUKS_PASS, argon2id 32 MiB, 2 lanes, 4 passes)
#
#   vol_kind ARGS...            lvm | luks | "" (from the kernel arguments)
#   vol_modules KIND            kernel modules the guest needs (fixture_modules adds them)
#   vol_add_tools INITRD        appends the host's lvm, dmsetup, cryptsetup (with their
#                               shared libraries, the dynamic loader, /etc/lvm/lvm.conf)
#   vol_params                  a line for the fixture's params (the tools' identity)
#   vol_part DISK OUT           partition 2 of DISK as the file OUT (sparse)
#   vol_put_part DISK FILE      FILE written back over partition 2
#   vol_lvm_facts DEV_FILE      pe_start, LV swap_1's first PE and extent size, from
#                               lvm2 itself (pvs/lvs on a read-only loop device)
#   vol_luks_facts PART_FILE    luks_uuid, luks_offset, luks_sector, luks_key (cryptsetup)
#   vol_swap_page DIR DISK OUT  the LV's first page (its swap header), decrypted for luks,
#                               DIR holding the facts of the fixture
VOL_LUKS_PASS='efiresume luks-11'
VOL_TOOLS="/sbin/lvm /sbin/dmsetup /sbin/cryptsetup"
# lvm2 in the guest: no udev (libdevmapper makes the /dev/mapper nodes, DM_DISABLE_UDEV=1),
# no devices file, no dmeventd, no backups
VOL_LVM_CONF='devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 external_device_info_source = "none" hints = "none" }
activation { udev_sync = 0 udev_rules = 0 verify_udev_operations = 1 monitoring = 0 }
global { use_lvmpolld = 0 event_activation = 0 }
backup { backup = 0 archive = 0 }'

vol_kind() {
	case " $* " in
	*" efiresume_luks "*) echo luks ;;
	*" efiresume_lvm "*) echo lvm ;;
	esac
}

vol_modules() {
	case $1 in
	lvm) echo dm_mod ;;
	# ecb: xts's inner cipher; af_alg/algif_skcipher: cryptsetup encrypts the keyslot
	# through the kernel's crypto API; aesni_intel only loads on a CPU with AES-NI
	luks) echo dm_mod dm_crypt ecb xts af_alg algif_skcipher crypto_simd cryptd aesni_intel ;;
	esac
}

vol_params() {
	echo "tools=$(md5sum $VOL_TOOLS | md5sum | cut -d' ' -f1) conf=$(echo "$VOL_LVM_CONF$VOL_LUKS_PASS" | md5sum | cut -d' ' -f1)"
}

vol_add_tools() {
	local initrd=$1 root t f
	root=$(mktemp -d)
	mkdir -p "$root/sbin" "$root/etc/lvm" "$root/lib64" "$root/run/lvm" "$root/run/lock/lvm" "$root/run/cryptsetup"
	for t in $VOL_TOOLS; do
		cp -L "$t" "$root/sbin/"
		for f in $(ldd "$t" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
			mkdir -p "$root$(dirname "$f")"
			cp -L "$f" "$root$f"
		done
	done
	echo "$VOL_LVM_CONF" > "$root/etc/lvm/lvm.conf"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >> "$initrd"
	rm -rf "$root"
}

# byte offset and length of partition 2
vol_part_range() {
	local start end
	start=$(sgdisk -i 2 "$1" | awk '/First sector/{print $3}')
	end=$(sgdisk -i 2 "$1" | awk '/Last sector/{print $3}')
	echo "$((start * 512)) $(((end - start + 1) * 512))"
}

vol_part() {
	local r
	r=($(vol_part_range "$1"))
	rm -f "$2"
	dd if="$1" of="$2" bs=1M iflag=skip_bytes,count_bytes skip="${r[0]}" count="${r[1]}" conv=sparse status=none
}

vol_put_part() {
	local r
	r=($(vol_part_range "$1"))
	[ "$(stat -c %s "$2")" = "${r[1]}" ] || { echo "vol_put_part: $2 is not the size of partition 2" >&2; return 1; }
	dd if="$2" of="$1" bs=1M oflag=seek_bytes seek="${r[0]}" conv=notrunc,sparse status=none
}

# lvm2 with only the loop device $1 visible (as tests/lib/mklvm.sh), activation off
_vol_lvm() {
	local dev=$1 f
	shift
	f="\"a|^$dev\$|\", \"r|.*|\""
	LVM_SUPPRESS_FD_WARNINGS=1 lvm "$1" --config "devices{obtain_device_list_from_udev=0 use_devicesfile=0 hints=\"none\" filter=[$f] global_filter=[$f]} activation{udev_sync=0 udev_rules=0} global{activation=0} backup{backup=0 archive=0}" "${@:2}" 2>/dev/null
}

# vol_lvm_facts FILE: lines pe_start=BYTES extent=BYTES lv_pe=FIRST_PE lv_extents=N lv_offset=BYTES
# (lv_offset: where swap_1 starts in FILE)
vol_lvm_facts() {
	local file=$1 loop pe ext seg rc=0
	[ "$(id -u)" = 0 ] || { echo "vol_lvm_facts: needs root (loop devices)" >&2; return 1; }
	loop=$(losetup -f --show -r "$file") || return 1
	pe=$(_vol_lvm "$loop" pvs --noheadings --units b --nosuffix -o pe_start "$loop" | tr -d ' ')
	ext=$(_vol_lvm "$loop" vgs --noheadings --units b --nosuffix -o vg_extent_size vg0 | tr -d ' ')
	# swap_1's segments: "pv:FIRST-LAST"; one linear segment expected
	seg=$(_vol_lvm "$loop" lvs --segments --noheadings --separator '|' -o seg_pe_ranges,segtype vg0/swap_1 | tr -d ' ')
	losetup -d "$loop"
	[ -n "$pe" ] && [ -n "$ext" ] && [ -n "$seg" ] || { echo "vol_lvm_facts: lvm2 found no vg0/swap_1 on $file" >&2; return 1; }
	case $seg in
	*:*-*"|linear") ;;
	*) echo "vol_lvm_facts: swap_1 is not one linear segment: $seg" >&2; rc=1 ;;
	esac
	local first=${seg#*:} last
	first=${first%%-*}
	last=${seg#*-}; last=${last%%|*}
	echo "pe_start=$pe"
	echo "extent=$ext"
	echo "lv_pe=$first"
	echo "lv_extents=$((last - first + 1))"
	echo "lv_offset=$((pe + first * ext))"
	return $rc
}

# vol_luks_facts FILE [PASS]: luks_uuid= luks_offset= luks_sector= luks_key=
vol_luks_facts() {
	local file=$1 pass=${2:-$VOL_LUKS_PASS} key
	cryptsetup luksDump "$file" | awk '
		/^UUID:/ { print "luks_uuid=" $2 }
		/^Data segments:/ { seg = 1 }
		seg && /^[ \t]+offset:/ && !o { print "luks_offset=" $2; o = 1 }
		seg && /^[ \t]+sector:/ { print "luks_sector=" $2; seg = 0 }'
	key=$(printf %s "$pass" | cryptsetup luksDump --batch-mode --dump-volume-key --key-file - "$file" |
		awk '/^(MK dump|Volume key):/ { on = 1; sub(/^[A-Za-z ]+:/, "") } on && /^[ \t]*([0-9a-f][0-9a-f] )+/ { gsub(/[ \t]/, ""); printf "%s", $0; next } on && !/^[ \t]/ { on = 0 }')
	[ -n "$key" ] || { echo "vol_luks_facts: no volume key from luksDump" >&2; return 1; }
	echo "luks_key=$key"
}

# vol_plain FACTSDIR PART_FILE START LEN > bytes: START/LEN bytes of the device the
# PV sits on (the partition itself, or the decrypted LUKS payload)
vol_plain() {
	local fx=$1 file=$2 start=$3 len=$4
	if [ "$(fixture_fact "$fx" vol)" = luks ]; then
		python3 "$TOP/tests/lib/xts-read.py" "$file" "$(fixture_fact "$fx" luks_offset)" \
			"$(fixture_fact "$fx" luks_sector)" "$(fixture_fact "$fx" luks_key)" "$start" "$len"
	else
		dd if="$file" bs=4096 iflag=skip_bytes,count_bytes skip="$start" count="$len" status=none
	fi
}

# vol_swap_page FACTSDIR DISK OUT: the first page of LV swap_1 (its swap header)
vol_swap_page() {
	local fx=$1 disk=$2 out=$3 tmp
	tmp=$(mktemp)
	vol_part "$disk" "$tmp"
	vol_plain "$fx" "$tmp" "$(fixture_fact "$fx" lv_offset)" 4096 > "$out"
	rm -f "$tmp"
}

# vol_swap_sig FACTSDIR DISK: the signature at the end of that page
vol_swap_sig() {
	local tmp
	tmp=$(mktemp)
	vol_swap_page "$1" "$2" "$tmp"
	dd if="$tmp" bs=1 skip=4086 count=10 status=none | tr -d '\0'
	rm -f "$tmp"
}

# vol_facts KIND DISK PASS: the facts lines of a volume fixture (after boot 1)
vol_facts() {
	local kind=$1 disk=$2 tmp dev rc=0
	tmp=$(mktemp -d)
	vol_part "$disk" "$tmp/part"
	echo "vol=$kind"
	dev=$tmp/part
	if [ "$kind" = luks ]; then
		vol_luks_facts "$tmp/part" > "$tmp/luks" || rc=1
		cat "$tmp/luks"
		# the PV inside: the decrypted payload's first 4 MiB (label, metadata) in a sparse
		# file of the payload's size, for lvm2 to read
		local off sec key size
		off=$(sed -n 's/^luks_offset=//p' "$tmp/luks")
		sec=$(sed -n 's/^luks_sector=//p' "$tmp/luks")
		key=$(sed -n 's/^luks_key=//p' "$tmp/luks")
		size=$(($(stat -c %s "$tmp/part") - off))
		python3 "$TOP/tests/lib/xts-read.py" "$tmp/part" "$off" "$sec" "$key" 0 $((4 << 20)) > "$tmp/plain" || rc=1
		truncate -s "$size" "$tmp/plain"
		dev=$tmp/plain
	fi
	vol_lvm_facts "$dev" || rc=1
	rm -rf "$tmp"
	return $rc
}
