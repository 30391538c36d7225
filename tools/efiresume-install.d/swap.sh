# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the device stack: where each swap lives (partition, LUKS, LVM, swap file), the
# location variables, swsusp-inspect.

check_swap() {
	local n
	n=$(tail -n +2 "$PROCFS/swaps" 2>/dev/null | grep -c .)
	[ "${n:-0}" -gt 0 ] || die "no swap is active ($PROCFS/swaps lists none): hibernation needs swap, so efiresume would have nothing to resume"
}

# swsusp-inspect one device; prints the verdict line
inspect_one() { # DEV OFFSET LABEL
	local out rc reason verdict
	if ! command -v "$INSPECT" >/dev/null 2>&1; then
		echo "  $3: $(signature_only "$1" "${2:-0}")"
		return 0
	fi
	out=$("$INSPECT" --json ${2:+--resume-offset "$2"} "$1" 2>&1)
	rc=$?
	reason=$(printf '%s\n' "$out" | sed -n 's/^  "reason": "\(.*\)",$/\1/p')
	verdict=$(printf '%s\n' "$out" | sed -n 's/^  "verdict": "\(.*\)"$/\1/p' | sed 's/\\"/"/g; s/\\\\/\\/g')
	if [ "$rc" = 0 ]; then
		echo "  $3: image found, resumable"
	elif [ "$reason" = no-signature ]; then
		echo "  $3: no image"
	elif [ -n "$verdict" ]; then
		echo "  $3: image found, $verdict"
	else
		echo "  $3: cannot inspect: $(printf '%s' "$out" | head -n 1)"
	fi
}

# without swsusp-inspect: the signature at the end of the swap header page only
signature_only() { # DEV PAGE
	local s
	s=$(dd if="$1" bs=4096 skip="$2" count=1 status=none 2>/dev/null | tail -c 10 | tr -c '[:alnum:]-' '.')
	case $s in
	SWAPSPACE2 | SWAP-SPACE) echo "no image (swap signature $s; swsusp-inspect not found, nothing more read)" ;;
	S1SUSPEND. | S2SUSPEND. | ULSUSPEND. | LINHIB0001) echo "hibernation signature ${s%.} (swsusp-inspect not found: the image was not checked)" ;;
	'') echo "cannot inspect: $1 cannot be read (and swsusp-inspect is not found)" ;;
	*) echo "no swap signature at page $2 (swsusp-inspect not found)" ;;
	esac
}

dev_of() { # MAJ:MIN -> /dev/NAME
	local name
	name=$(sed -n 's/^DEVNAME=//p' "$SYSFS/dev/block/$1/uevent" 2>/dev/null)
	[ -n "$name" ] && echo "$DEVDIR/$name"
}

# ------------------------------------------------------------------ status: where each swap lives
SYSTEMD_GUID=8cf2644b-4b0b-428f-9387-6d876050dc67
# the filesystems whose UUID efiresume recognises, so finds a swap file in (er_fs_uuid)
ER_SWAPFILE_FS="ext2 ext3 ext4 xfs btrfs"

# a path as /proc/swaps and mountinfo print it (\040 space, \011 tab, \012 newline, \134 backslash)
unesc() { printf '%s' "$1" | sed 's/\\040/ /g; s/\\011/\t/g; s/\\012/\n/g; s/\\134/\\/g'; }

devnum_of() { # /dev/... -> MAJ:MIN (sysfs by name, else the node's numbers); nothing when unknown
	local p n d mm
	p=$(readlink -f -- "$1" 2>/dev/null)
	[ -n "$p" ] || p=$1
	n=${p##*/}
	d=$SYSFS/class/block/$n
	mm=$(cat "$d/dev" 2>/dev/null)
	[ -n "$mm" ] || mm=$(sed -n 's/^MAJOR=//p; s/^MINOR=//p' "$d/uevent" 2>/dev/null | paste -sd: -)
	if [ -z "$mm" ] && [ -b "$p" ]; then
		mm=$(stat -L -c '%t %T' -- "$p" 2>/dev/null | { read -r a b && printf '%d:%d' "0x$a" "0x$b"; })
	fi
	[[ $mm =~ ^[0-9]+:[0-9]+$ ]] && echo "$mm"
	return 0
}

# the first of: the kernel's uevent, blkid's probe, a /dev/disk/by-KIND link; lower case
id_of() { # SYSDIR|"" DEVPATH KIND(partuuid|uuid)
	local u f t
	if [ "$3" = partuuid ]; then
		u=$(sed -n 's/^PARTUUID=//p' "$1/uevent" 2>/dev/null | head -n 1)
		[ -n "$u" ] || u=$(blkid -p -s PART_ENTRY_UUID -o value "$2" 2>/dev/null | head -n 1)
	else
		u=$(blkid -o value -s UUID "$2" 2>/dev/null | head -n 1)
	fi
	if [ -z "$u" ]; then
		t=$(readlink -f -- "$2" 2>/dev/null)
		for f in "$DEVDIR/disk/by-$3"/*; do
			[ -L "$f" ] && [ -n "$t" ] && [ "$(readlink -f -- "$f")" = "$t" ] && { u=${f##*/}; break; }
		done
	fi
	printf '%s\n' "${u,,}"
}

# stack_walk ARRAY PREFIX MAJ:MIN ROLE [DEPTH [BASE]]: the device stack under MAJ:MIN, from sysfs
# alone (dm/uuid, dm/name, slaves/, partition), one layer per device (MAJ:MIN first, then what
# it is on, depth first), appended to the associative array ARRAY under PREFIX: [PREFIX:n] the
# number of layers so far; layer I: [PREFIX:I:type] lv | lvm-internal | luks | dm-crypt | dm |
# partition | md | zram | loop | disk | unknown (not in sysfs, or past 8 layers),
# [PREFIX:I:device] /dev/X ("" when there is no node), [PREFIX:I:devnum] MAJ:MIN ("" when
# unknown), [PREFIX:I:uuid] the LV's UUID (as LVM prints it), the LUKS
# container's, the partition's PARTUUID, else "", [PREFIX:I:name] vg/lv, or the
# device-mapper name of a LUKS container or other mapping, else "", [PREFIX:I:depth] DEPTH
# (0 for MAJ:MIN) + BASE, [PREFIX:I:role] how the layer above holds it (ROLE for MAJ:MIN:
# "PV ", "LUKS2 container ", "on ", ...), [PREFIX:I:desc] what status says of it.
stack_walk() {
	local pre=$2 mm=$3 role=$4 depth=${5:-0} base=${6:-0} d dev u name q vg lv h t s kids=() krole="on " desc
	local type uuid= lname=
	d=$SYSFS/dev/block/$mm
	dev=$(dev_of "$mm")
	if [ ! -e "$d" ]; then
		stack_add "$1" "$pre" $((depth + base)) "$role" "$dev" "$mm" unknown "" "" "not in $SYSFS/dev/block"
		return 0
	fi
	if [ "$depth" -ge 8 ]; then
		stack_add "$1" "$pre" $((depth + base)) "$role" "$dev" "$mm" unknown "" "" "... (more than 8 layers)"
		return 0
	fi
	d=$(readlink -f -- "$d" 2>/dev/null || echo "$d")
	u=$(cat "$d/dm/uuid" 2>/dev/null)
	name=$(cat "$d/dm/name" 2>/dev/null)
	for s in "$d"/slaves/*; do [ -e "$s" ] && kids+=("${s##*/}"); done
	if [ -n "$u$name" ]; then
		if [[ $u =~ ^LVM-[[:alnum:]]{64}$ ]]; then
			type=lv h=${u:36:32}
			uuid=${h:0:6}-${h:6:4}-${h:10:4}-${h:14:4}-${h:18:4}-${h:22:4}-${h:26:6}
			q=${name//--//}
			if [[ $q == ?*-?* && $q != *-*-* ]]; then
				vg=${q%%-*} lv=${q#*-}
				lname=${vg//\//-}/${lv//\//-}
				desc="LVM logical volume $lname"
			else
				desc="LVM logical volume (device-mapper name '$name' is not <vg>-<lv>)"
			fi
			[ "${#kids[@]}" -gt 1 ] && desc="$desc, on ${#kids[@]} physical volumes"
			krole="PV "
		elif [[ $u == LVM-* ]]; then
			type=lvm-internal lname=$name
			desc="LVM internal device $name (${u:68}): efiresume maps plain linear logical volumes only"
		elif [[ $u =~ ^CRYPT-LUKS([12])-([[:xdigit:]]{32})- ]]; then
			t=${BASH_REMATCH[1]} h=${BASH_REMATCH[2],,}
			h=${h:0:8}-${h:8:4}-${h:12:4}-${h:16:4}-${h:20:12}
			type=luks uuid=$h lname=$name
			desc="open LUKS$t container, UUID $h (/dev/mapper/$name): efiresume asks for its passphrase at the firmware"
			krole="LUKS$t container "
		elif [[ $u == CRYPT-* ]]; then
			t=${u#CRYPT-}
			type=dm-crypt lname=$name
			desc="dm-crypt ${t%%-*} mapping /dev/mapper/$name (no LUKS header): efiresume cannot open it"
		else
			type=dm lname=$name
			desc="device-mapper device /dev/mapper/$name${u:+ ($u)}: efiresume cannot map it"
		fi
	elif [ -r "$d/partition" ]; then
		h=$(id_of "$d" "$dev" partuuid)
		type=partition uuid=$h
		desc="partition $(cat "$d/partition" 2>/dev/null) of $DEVDIR/$(basename "$(dirname "$d")"), PARTUUID ${h:-unknown}"
	elif [ -r "$d/md/level" ]; then
		type=md
		desc="md RAID, $(cat "$d/md/level" 2>/dev/null)"
		krole="member "
	elif [[ ${d##*/} == zram* ]]; then
		type=zram
		desc="zram (compressed memory): it cannot hold a hibernation image"
	elif [ -r "$d/loop/backing_file" ]; then
		type=loop
		desc="loop device on $(cat "$d/loop/backing_file" 2>/dev/null): efiresume cannot read it"
	else
		type=disk
		desc="whole disk"
	fi
	stack_add "$1" "$pre" $((depth + base)) "$role" "$dev" "$mm" "$type" "$uuid" "$lname" "$desc"
	for s in "${kids[@]}"; do
		t=$(devnum_of "$DEVDIR/$s")
		if [ -n "$t" ]; then
			stack_walk "$1" "$pre" "$t" "$krole" $((depth + 1)) "$base"
		else
			stack_add "$1" "$pre" $((depth + 1 + base)) "$krole" "$DEVDIR/$s" "" unknown "" "" "not in $SYSFS/class/block"
		fi
	done
	return 0
}

# stack_add ARRAY PREFIX DEPTH ROLE DEVICE DEVNUM TYPE UUID NAME DESC: one layer (stack_walk)
stack_add() {
	local -n sa=$1
	local i=${sa[$2:n]:-0}
	sa[$2:$i:depth]=$3 sa[$2:$i:role]=$4 sa[$2:$i:device]=$5 sa[$2:$i:devnum]=$6 sa[$2:$i:type]=$7
	sa[$2:$i:uuid]=$8 sa[$2:$i:name]=$9 sa[$2:$i:desc]=${10}
	sa[$2:n]=$((i + 1))
}

# stack_print ARRAY PREFIX INDENT: the layers stack_walk put under PREFIX (but a swap file's
# own, type file), one line each: "<indent><role>/dev/X: what it is"
stack_print() {
	local -n sq=$1
	local i
	for ((i = 0; i < ${sq[$2:n]:-0}; i++)); do
		[ "${sq[$2:$i:type]}" = file ] && continue
		echo "$3${sq[$2:$i:role]}${sq[$2:$i:device]:-device ${sq[$2:$i:devnum]}}: ${sq[$2:$i:desc]}"
	done
}

# The device stack under MAJ:MIN, one line per layer (stack_walk, stack_print)
stack_lines() { # MAJ:MIN INDENT ROLE
	local -A stack_lines_layers=()
	stack_walk stack_lines_layers x "$1" "$3"
	stack_print stack_lines_layers x "$2"
}

# The mount holding the swap file PATH (as /proc/swaps prints it, escaped): the last of
# the longest mount points over it in mountinfo. "FSTYPE<tab>SOURCE<tab>MOUNTPOINT<tab>MAJ:MIN",
# fields escaped as mountinfo has them; nothing when not found.
mount_of() {
	awk -v p="$1" '
		{
			for (i = 7; i <= NF && $i != "-"; i++) ;
			if (i + 2 > NF) next
			mp = $5
			if (mp == "/" || p == mp || index(p, mp "/") == 1)
				if (length(mp) >= best_len) { best_len = length(mp); best = $(i + 1) "\t" $(i + 2) "\t" mp "\t" $3 }
		}
		END { if (best != "") print best }' "$PROCFS/self/mountinfo" 2>/dev/null
}

# The resume offset of swap file FILE on a FSTYPE filesystem, in pages, as systemd computes it
# for HibernateLocation and the kernel's resume_offset: the physical offset of the file's
# first extent divided by the page size (filefrag -v), or on Btrfs what
# btrfs inspect-internal map-swapfile -r prints. OFF-VAR gets it (empty: unknown), HOW-VAR how
# it was found (or why not).
swapfile_offset() { # FILE FSTYPE OFF-VAR HOW-VAR
	local -n so_off=$3 so_how=$4
	local out rc ps bs phys
	so_off= so_how=
	ps=$(getconf PAGESIZE 2>/dev/null)
	[[ $ps =~ ^[1-9][0-9]*$ ]] || ps=4096
	if [ "$2" = btrfs ]; then
		if ! command -v btrfs >/dev/null 2>&1; then
			so_how="unknown: btrfs (btrfs-progs) is not installed"
			return 0
		fi
		out=$(btrfs inspect-internal map-swapfile -r "$1" 2>&1)
		rc=$?
		if [ "$rc" = 0 ] && [[ $out =~ ^[0-9]+$ ]]; then
			so_off=$out so_how="btrfs inspect-internal map-swapfile -r"
		else
			so_how="unknown: btrfs inspect-internal map-swapfile -r: $(printf '%s\n' "$out" | head -n 1)"
		fi
		return 0
	fi
	if ! command -v filefrag >/dev/null 2>&1; then
		so_how="unknown: filefrag (e2fsprogs) is not installed"
		return 0
	fi
	out=$(filefrag -v "$1" 2>&1)
	rc=$?
	bs=$(printf '%s\n' "$out" | sed -n 's/^File size of .* ([0-9]* blocks\{0,1\} of \([0-9]*\) bytes).*/\1/p' | head -n 1)
	phys=$(printf '%s\n' "$out" | sed -n 's/^ *0: *[0-9]*\.\. *[0-9]*: *\([0-9]*\)\.\..*/\1/p' | head -n 1)
	if [ "$rc" != 0 ] || [ -z "$bs" ] || [ -z "$phys" ]; then
		so_how="unknown: filefrag -v: $(printf '%s\n' "$out" | grep -v '^Filesystem type' | head -n 1)"
	elif [ "$phys" = 0 ] || [ "$bs" = 0 ] || [ $((phys * bs % ps)) != 0 ]; then
		so_how="unknown: filefrag -v puts its first extent at block $phys of $bs bytes (not allocated, or not on a page boundary)"
	else
		so_off=$((phys * bs / ps))
		so_how="first extent at block $phys of $bs bytes (filefrag -v)"
	fi
	return 0
}

# loc_verdict UUID OFFSET ARRAY: does a location (UUID, OFFSET) name one of the swaps listed
# in the status array ARRAY ([swaps], [sw:I:path], [sw:I:uuid], [sw:I:offset])?
loc_verdict() {
	local -n lvd=$3
	local i hits= unknown=
	for ((i = 0; i < ${lvd[swaps]:-0}; i++)); do
		[ -n "${lvd[sw:$i:uuid]}" ] && [ "${lvd[sw:$i:uuid]}" = "$1" ] || continue
		if [ -z "${lvd[sw:$i:offset]}" ]; then
			unknown="${lvd[sw:$i:path]}"
		elif [ "${lvd[sw:$i:offset]}" = "$2" ]; then
			echo "agrees with ${lvd[sw:$i:path]} (UUID $1, offset $2)"
			return 0
		else
			hits="$hits, ${lvd[sw:$i:path]} at offset ${lvd[sw:$i:offset]}"
		fi
	done
	if [ -n "$hits" ]; then
		echo "does not agree: UUID $1 is ${hits#, }, not at offset $2 (the swap file moved since?)"
	elif [ -n "$unknown" ]; then
		echo "cannot tell: UUID $1 is $unknown, whose offset is unknown"
	else
		echo "does not agree: no active swap has UUID $1 (left from an earlier hibernation, or that swap is not active now)"
	fi
}

# location_lines NAME GUID utf16|utf8 WHO ARRAY: the location variable NAME, decoded, and
# whether it names one of the swaps of the status array ARRAY; each swap whose UUID it
# names gets it in its locations: [sw:I:locs] (count), [sw:I:loc:K:variable|uuid|offset|
# kernel|agrees] (agrees: 1 its offset is the swap's, 0 another or none, "" the swap's
# offset is unknown)
location_lines() {
	local -n lls=$5
	local f kv k v json= uuid= off= kern= err= run i
	f=$(var_path "$1" "$2")
	[ -e "$f" ] || return 0
	kv=$(cat "$f" 2>/dev/null | efi_rd_location "$3")
	while IFS='=' read -r k v; do
		case $k in json) json=$v ;; uuid) uuid=$v ;; offset) off=$v ;; kernel) kern=$v ;; error) err=$v ;; esac
	done <<<"$kv"
	if [ -n "$err" ] || [ -z "$json" ]; then
		echo "  $1 ($4): present but not readable: ${err:-efiresume-efivar failed}"
		return 0
	fi
	echo "  $1 ($4): $json"
	if [ -z "$uuid" ] || [ -z "$off" ]; then
		echo "    no \"uuid\" or no \"offset\": efiresume does not use it"
	else
		echo "    $(loc_verdict "$uuid" "$off" "$5")"
	fi
	for ((i = 0; i < ${lls[swaps]:-0}; i++)); do
		[ -n "$uuid" ] && [ "${lls[sw:$i:uuid]}" = "$uuid" ] || continue
		k=${lls[sw:$i:locs]:-0}
		lls[sw:$i:loc:$k:variable]=$1 lls[sw:$i:loc:$k:uuid]=$uuid lls[sw:$i:loc:$k:offset]=$off
		lls[sw:$i:loc:$k:kernel]=$kern lls[sw:$i:loc:$k:agrees]=0
		if [ -z "${lls[sw:$i:offset]}" ]; then
			lls[sw:$i:loc:$k:agrees]=
		elif [ "${lls[sw:$i:offset]}" = "$off" ]; then
			lls[sw:$i:loc:$k:agrees]=1
		fi
		lls[sw:$i:locs]=$((k + 1))
	done
	run=$(uname -r 2>/dev/null)
	[ -n "$kern" ] && [ -n "$run" ] && [ "$kern" != "$run" ] && echo "    written by kernel $kern; this one is $run"
	return 0
}

# swapfile_lines RAW PATH ARRAY I: one swap file of /proc/swaps (RAW: as it prints it):
# inspect it, say where it lives; it is swap I of the status array ARRAY (status_swaps):
# [sw:I:path], [sw:I:type] file, [sw:I:uuid] (its filesystem's), [sw:I:offset], [sw:I:key],
# [sw:I:image], and its stack under sw:I:stack (stack_walk): first the file (type file, the
# filesystem's device and UUID, [filesystem], [mount], [offset]), then the filesystem's device
swapfile_lines() {
	local -n sfa=$3
	local mnt fst src mp mmm mm= sdev= u= read_fs off= how=unknown first
	mnt=$(mount_of "$1")
	IFS=$'\t' read -r fst src mp mmm <<<"$mnt"
	src=$(unesc "$src") mp=$(unesc "$mp")
	case $src in /*) mm=$(devnum_of "$src") ;; esac
	# the mount's own device number is the block device except on Btrfs (an anonymous 0:N)
	[ -n "$mm" ] || { [[ $mmm =~ ^[1-9][0-9]*:[0-9]+$ ]] && mm=$mmm; }
	[ -n "$mm" ] && sdev=$(dev_of "$mm")
	[ -n "$sdev" ] || { [ -b "$src" ] && sdev=$src; }
	[ -n "$sdev" ] && u=$(id_of "" "$sdev" uuid)
	case $2 in
	*" (deleted)") how="unknown: the file was deleted while in use" ;;
	*) [ -n "$mnt" ] && swapfile_offset "$2" "$fst" off how ;;
	esac
	# an offset past the end of the device (map-swapfile prints 2^52-1 for a file with no
	# extent) or at its first page (a superblock) is no offset
	local sectors ps
	sectors=$(cat "$SYSFS/dev/block/$mm/size" 2>/dev/null)
	ps=$(getconf PAGESIZE 2>/dev/null)
	[[ $ps =~ ^[1-9][0-9]*$ ]] || ps=4096
	if [ -n "$off" ] && { [ "$off" = 0 ] || [ "${#off}" -gt 15 ] ||
		{ [[ $sectors =~ ^[1-9][0-9]*$ ]] && [ $((off * ps)) -ge $((sectors * 512)) ]; }; }; then
		how="unknown: $how gives page $off, not inside ${sdev:-the device}"
		off=
	fi
	if [ -z "$mnt" ]; then
		first="  $2 (active swap file): cannot inspect: no mount over it in $PROCFS/self/mountinfo"
	elif [ -z "$sdev" ]; then
		first="  $2 (active swap file): cannot inspect: the block device of $src is not found"
	elif [ -z "$off" ]; then
		first="  $2 (active swap file): cannot inspect: its resume offset is $how"
	else
		first=$(inspect_one "$sdev" "$off" "$2 (active swap file)")
	fi
	printf '%s\n' "$first"
	sfa[sw:$4:path]=$2 sfa[sw:$4:type]=file sfa[sw:$4:uuid]=$u sfa[sw:$4:offset]=$off sfa[sw:$4:key]="${mm:-?}@${off:-?}"
	sfa[sw:$4:image]=${first#"  $2 (active swap file): "}
	stack_add "$3" "sw:$4:stack" 0 "" "$sdev" "$mm" file "$u" "" "swap file $2"
	sfa[sw:$4:stack:0:filesystem]=$fst sfa[sw:$4:stack:0:mount]=$mp sfa[sw:$4:stack:0:offset]=$off
	[ -n "$mnt" ] || return 0
	if printf ' %s ' "$ER_SWAPFILE_FS" | grep -qF " $fst "; then
		read_fs="efiresume recognises $fst"
	else
		read_fs="efiresume does not recognise ${fst:-this filesystem}: it cannot find a swap file there"
	fi
	echo "    in the $fst filesystem UUID ${u:-unknown} mounted at $mp ($src); $read_fs"
	echo "    resume offset: ${off:+$off pages, }${how}"
	if [ -n "$mm" ]; then
		stack_walk "$3" "sw:$4:stack" "$mm" "filesystem on " 0 1
		stack_print "$3" "sw:$4:stack" "    "
	fi
	if [ -n "$off" ] && [ -n "$u" ]; then
		echo "    efiresume finds it through HibernateLocation or EfiresumeLocation (written at hibernation), or with \"resume UUID=$u\" and \"resume-offset $off\" in efiresume.conf"
	fi
	return 0
}

json_escape() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

# The volumes under the resume device MAJ:MIN, for the loader (issue 11), into the
# associative array ARRAY: [lv] "<vg>/<lv>" when it is an LVM logical volume, [luks] the LUKS UUID (as in the
# header: 8-4-4-4-12, lower case) when it, or the one device under that LV, is an open
# LUKS1/LUKS2 container. From sysfs alone (device-mapper's dm/name and dm/uuid, slaves/):
# no LVM command runs while the system goes to sleep.
#   dm/uuid of an LV:   LVM-<vg uuid 32><lv uuid 32> (a layer such as -real, -tpool, -cow
#                       has a suffix and is not an LV of its own)
#   dm/name of an LV:   <vg>-<lv>, with '-' inside a name doubled (libdevmapper's quoting)
#   dm/uuid of a LUKS container: CRYPT-LUKS2-<uuid, 32 hex digits>-<name> (or CRYPT-LUKS1-)
volume_stack() { # MAJ:MIN ARRAY
	local -n vs=$2
	local d=$SYSFS/dev/block/$1 u n q vg lv h s
	vs=([lv]="" [luks]="")
	u=$(cat "$d/dm/uuid" 2>/dev/null) || return 0
	if [[ $u =~ ^LVM-[[:alnum:]]{64}$ ]]; then
		n=$(cat "$d/dm/name" 2>/dev/null)
		q=${n//--//}       # "--" is a '-' inside a name; '/' is in no device-mapper name
		if [[ $q == ?*-?* && $q != *-*-* ]]; then
			vg=${q%%-*} lv=${q#*-}
			vs[lv]=${vg//\//-}/${lv//\//-}
		else
			echo "efiresume: $1: device-mapper name '$n' is not <vg>-<lv>; \"lv\" not written" >&2
		fi
		# the one device under the LV (an LV on several PVs: no single container to name)
		s=$(ls -A "$d/slaves" 2>/dev/null)
		[ -n "$s" ] && [ "$(printf '%s\n' "$s" | wc -l)" = 1 ] || return 0
		d=$SYSFS/class/block/$s
		[ -e "$d" ] || d=$SYSFS/block/$s
		u=$(cat "$d/dm/uuid" 2>/dev/null) || return 0
	fi
	if [[ $u =~ ^CRYPT-LUKS[12]-([[:xdigit:]]{32})-. ]]; then
		h=${BASH_REMATCH[1],,}
		vs[luks]=${h:0:8}-${h:8:4}-${h:12:4}-${h:16:4}-${h:20:12}
	fi
	return 0
}
