# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: EFI variables and load options:
# the readers of binary variables (efiresume-efivar), reading Boot####, BootOrder, BootNext and efiresume's
# variables, the boot entry (efibootmgr), the preconditions on efivarfs.

# ------------------------------------------------------------------ binary variables
# Binary EFI variables, load options and signature lists are read by efiresume-efivar
# (tools/efiresume-efivar.c: libefiboot/libefivar, every length checked), one subcommand
# per reader below. Found: $EFIRESUME_EFIVAR, else next to the EFI binaries ($LIBDIR), else
# where the package installs it relative to this program (an unpacked package), else in the
# source tree's build/.
efivar_helper() {
	local c
	for c in "${EFIRESUME_EFIVAR:-}" "$LIBDIR/efiresume-efivar" \
		"${SELF%/*/*}/lib/efiresume/efiresume-efivar" /usr/lib/efiresume/efiresume-efivar \
		"${SELF%/*/*}/build/efiresume-efivar"; do
		[ -n "$c" ] && [ -x "$c" ] && { "$c" "$@"; return; }
	done
	err "efiresume-efivar not found (package efiresume incomplete?)"
	return 1
}

# efi_rd_u16 FILE: an efivarfs file of a UINT16 variable (BootCurrent, BootNext) -> one line
# "XXXX" (upper-case hex); nothing when it holds fewer than 2 data bytes. Status 1: unreadable.
efi_rd_u16() { efivar_helper var-u16 "$1"; }

# efi_rd_u16_list FILE: an efivarfs file of a UINT16 array (BootOrder) -> one line
# "XXXX,XXXX,..." (empty line when it holds none). Status 1: unreadable.
efi_rd_u16_list() { efivar_helper boot-order "$1"; }

# efi_rd_load_option FILE: an efivarfs file of an EFI_LOAD_OPTION (Boot####) -> six lines
# desc=, path= (the File() nodes of the first device path instance, "" when none), part=
# (HD partition number), partguid= (GPT partition GUID, lower case; "" for MBR or no HD
# node), optkind= (none|text|ascii|binary), opt= (optional data as UTF-8 when text (UCS-2)
# or ascii). Status 1: unreadable or not a load option.
efi_rd_load_option() { efivar_helper load-option "$1"; }

# efi_rd_esl_x509 DIR: stdin an efivarfs file of EFI_SIGNATURE_LISTs (db, MokListRT) -> the
# X.509 certificates in it as DIR/000.der, DIR/001.der, ...; prints nothing. Status 1: a
# file cannot be written.
efi_rd_esl_x509() { efivar_helper esl-certs "$1"; }

# efi_rd_shim_vendor_cert: stdin shim's .vendor_cert section (objcopy -O binary) -> stdout
# the DER certificate it holds (cert_table: size, dbx size, offset). Status 1: none.
efi_rd_shim_vendor_cert() { efivar_helper shim-vendor-cert; }

# efi_rd_location utf16|utf8: stdin a location variable with its 4 attribute bytes
# (systemd's HibernateLocation in UTF-16LE, efiresume's EfiresumeLocation in UTF-8) -> lines
# json= (the text, control characters as ?, at most 1024 characters), uuid=, offset=,
# kernel= (each when present); or one line error=REASON.
efi_rd_location() { efivar_helper decode-location "$1" 2>/dev/null; }

# ------------------------------------------------------------------ EFI variables
var_path() { echo "$EFIVARS/$1-${2:-$GLOBAL_GUID}"; }

# u16 variables (BootCurrent, BootNext): prints XXXX or nothing
var_u16() {
	local f
	f=$(var_path "$1")
	[ -r "$f" ] || return 0
	efi_rd_u16 "$f"
}

# BootOrder as XXXX,XXXX,... (empty when missing)
boot_order() {
	local f
	f=$(var_path BootOrder)
	[ -r "$f" ] || return 0
	efi_rd_u16_list "$f"
}

# all Boot#### numbers present
boot_entries() {
	local f n
	for f in "$EFIVARS"/Boot[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]-$GLOBAL_GUID; do
		[ -e "$f" ] || continue
		n=${f##*/Boot}
		echo "${n:0:4}" | tr a-f A-F
	done
}

# load_option NNNN ARRAY: Boot#### parsed (efi_rd_load_option) into the associative array
# ARRAY: [desc] [path] [part] [partguid] [optkind] [opt]. Status 1: missing or not a load option.
load_option() {
	local -n lo_out=$2
	local f text line
	lo_out=()
	f=$(var_path "Boot$1")
	[ -r "$f" ] || return 1
	text=$(efi_rd_load_option "$f") || return 1
	while IFS= read -r line; do
		lo_out[${line%%=*}]=${line#*=}
	done <<<"$text"
	return 0
}

# entry_desc NNNN: the description of Boot#### (nothing when it cannot be read)
entry_desc() {
	local -A lo
	load_option "$1" lo 2>/dev/null || return 0
	printf '%s\n' "${lo[desc]}"
}

# entry_path NNNN: the file path of Boot#### (nothing when it cannot be read)
entry_path() {
	local -A lo
	load_option "$1" lo 2>/dev/null || return 0
	printf '%s\n' "${lo[path]}"
}

# Is Boot$1 our entry? Its file path (any case) is \EFI\efiresume\efiresume.efi, or
# \EFI\efiresume\shimx64.efi (shimia32.efi) when installed through shim (--secure-boot=shim),
# on any partition.
is_ours() {
	local -A lo
	local p
	load_option "$1" lo 2>/dev/null || return 1
	p=${lo[path],,}
	[ "$p" = "${EFI_FILE,,}" ] || [ "$p" = '\efi\efiresume\shimx64.efi' ] || [ "$p" = '\efi\efiresume\shimia32.efi' ]
}

# same_partition GUID1 GUID2: true unless both are partition GUIDs and differ (an MBR
# partition, or an ESP whose GUID is unknown, matches by file path alone)
same_partition() {
	local re='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
	[[ ${1,,} =~ $re ]] && [[ ${2,,} =~ $re ]] || return 0
	[ "${1,,}" = "${2,,}" ]
}

# starts_here NNNN PATH: does Boot#### start PATH (any case) on the ESP's partition
# (ESP_PARTUUID, find_esp)?
starts_here() {
	local -A lo
	load_option "$1" lo 2>/dev/null || return 1
	[ "${lo[path],,}" = "${2,,}" ] && same_partition "${lo[partguid]}" "${ESP_PARTUUID:-}"
}

# Our entries (normally zero or one), on any partition
our_entries() {
	local n
	for n in $(boot_entries); do
		if is_ours "$n"; then echo "$n"; fi
	done
	return 0
}

# remove an efivarfs file as libefivar does (the kernel creates them immutable)
var_delete() {
	local f
	f=$(var_path "$1" "${2:-}")
	[ -e "$f" ] || return 0
	chattr -i "$f" 2>/dev/null
	rm -f "$f"
}

ebm() {
	# efibootmgr prints the whole table after every change: keep only its errors
	"$EFIBOOTMGR" "$@" >/dev/null
}

# ------------------------------------------------------------------ preconditions
check_uefi() {
	[ -d "$SYSFS/firmware/efi" ] ||
		die "this system was not booted through UEFI ($SYSFS/firmware/efi is missing); efiresume is a UEFI program"
}

check_efivarfs() {
	[ -d "$EFIVARS" ] || die "EFI variables are not available: $EFIVARS is missing (mount -t efivarfs efivarfs $EFIVARS)"
	local fstype opts
	fstype=$(findmnt -n -o FSTYPE -T "$EFIVARS" 2>/dev/null | head -n 1)
	opts=$(findmnt -n -o OPTIONS -T "$EFIVARS" 2>/dev/null | head -n 1)
	if [ -z "${EFIRESUME_SYSFS:-}" ] && [ "$fstype" != efivarfs ]; then
		die "EFI variables are not available: efivarfs is not mounted at $EFIVARS (mount -t efivarfs efivarfs $EFIVARS)"
	fi
	case ",$opts," in
	*,ro,*) die "efivarfs is mounted read-only at $EFIVARS; boot entries cannot be changed (mount -o remount,rw $EFIVARS)" ;;
	esac
	[ -n "$(ls -A "$EFIVARS" 2>/dev/null)" ] || die "efivarfs at $EFIVARS shows no variables"
}

# the first data byte of a one-byte global variable (SecureBoot, SetupMode), empty when absent;
# efivarfs files cannot seek (no_llseek): read them through a pipe
var_byte() {
	local f
	f=$(var_path "$1")
	[ -r "$f" ] || return 0
	cat "$f" 2>/dev/null | od -An -tu1 -v | tr -s ' \n' ' ' | awk '{ print $5 }'
}
secure_boot_byte() { var_byte SecureBoot; }

# ensure_entry PATH ENTRY-VAR NEW-VAR: make sure one entry starts PATH (default
# \EFI\efiresume\efiresume.efi) on this ESP's partition (ESP_PARTUUID: matched by the HD node
# of the load option, not by the file path alone); ENTRY-VAR gets its number, NEW-VAR 1 when
# it was created ("" when it was there). Our other entries (another of our files: the layout
# before a change of --secure-boot; or our file on another partition: an ESP efiresume was
# installed on before) are deleted once the new one exists, each said; a BootNext pointing at
# one of them moves to the new entry.
ensure_entry() {
	local want=${1:-$EFI_FILE}
	local -n ee_entry=$2 ee_new=$3
	local n p keep= dup= old=() oldp=() i next
	local -A lo
	ee_entry= ee_new=
	for n in $(our_entries); do
		if starts_here "$n" "$want"; then
			if [ -z "$keep" ]; then keep=$n; else dup="$dup $n"; fi
		else
			load_option "$n" lo 2>/dev/null || lo=()
			p=${lo[path]:-?}
			[ -n "${lo[partguid]:-}" ] && ! same_partition "${lo[partguid]}" "${ESP_PARTUUID:-}" &&
				p="$p on partition ${lo[partguid]}, not this ESP's"
			old+=("$n") oldp+=("$p")
		fi
	done
	if [ -n "$keep" ]; then
		ee_entry=$keep
		if [ -n "$dup" ]; then warn "more than one entry starts $want ($keep$dup); using Boot$keep"; fi
	else
		ebm -C -d "$ESP_DISK" -p "$ESP_PART" -L "$LABEL" -l "$want" || { err "efibootmgr could not create the boot entry"; return 1; }
		for n in $(our_entries); do
			if starts_here "$n" "$want"; then ee_entry=$n; break; fi
		done
		[ -n "$ee_entry" ] || { err "efibootmgr created no entry for $want"; return 1; }
		ee_new=1
		say "created boot entry Boot$ee_entry \"$LABEL\" ($want on $ESP_DEV${ESP_PARTUUID:+, partition $ESP_PARTUUID})"
	fi
	for i in "${!old[@]}"; do
		n=${old[$i]}
		next=$(var_u16 BootNext)
		if [ "$next" = "$n" ]; then
			ebm -n "$ee_entry" || { err "cannot move BootNext from Boot$n to Boot$ee_entry"; return 1; }
		fi
		ebm -b "$n" -B || { err "cannot delete Boot$n"; return 1; }
		say "deleted boot entry Boot$n (it started ${oldp[$i]}; Boot$ee_entry starts $want on $ESP_DEV)"
	done
	return 0
}

# apply_mode MODE ENTRY: put Boot####ENTRY first in BootOrder (always) or take it out
# (on-hibernate)
apply_mode() {
	local mode=$1 entry=$2 order rest o
	order=$(boot_order)
	rest=
	for o in ${order//,/ }; do
		[ "$o" = "$entry" ] && continue
		rest=${rest:+$rest,}$o
	done
	if [ "$mode" = always ]; then
		[ "${order%%,*}" = "$entry" ] && return 0
		ebm -o "$entry${rest:+,$rest}" || return 1
		say "Boot$entry is first in BootOrder"
	else
		[ "$order" = "$rest" ] && return 0
		if [ -n "$rest" ]; then ebm -o "$rest" || return 1; else ebm -O || return 1; fi
		say "Boot$entry taken out of BootOrder"
	fi
}
