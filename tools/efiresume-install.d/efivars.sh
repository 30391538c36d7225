# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: EFI variables and load options:
# the perl programs (one function each), reading Boot####, BootOrder, BootNext and efiresume's
# variables, the boot entry (efibootmgr), the preconditions on efivarfs.

# ------------------------------------------------------------------ perl programs
# Every perl program of the installer is one function here, with its contract (what it
# reads, the lines it prints), so that a compiled helper can replace it function by function.

# efi_pl_u16 FILE: an efivarfs file of a UINT16 variable (BootCurrent, BootNext) -> one line
# "XXXX" (upper-case hex); nothing when it holds fewer than 2 data bytes. Status 1: unreadable.
efi_pl_u16() {
	perl -e 'local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		exit 0 if length($d) < 6; printf "%04X\n", unpack("v", substr($d, 4, 2));' "$1"
}

# efi_pl_u16_list FILE: an efivarfs file of a UINT16 array (BootOrder) -> one line
# "XXXX,XXXX,..." (empty line when it holds none). Status 1: unreadable.
efi_pl_u16_list() {
	perl -e 'local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		print join(",", map { sprintf "%04X", $_ } unpack("v*", substr($d, 4))), "\n";' "$1"
}

# efi_pl_load_option FILE: an efivarfs file of an EFI_LOAD_OPTION (Boot####) -> six lines
# desc=, path= (the File() nodes of the first device path instance, "" when none), part=
# (HD partition number), partguid= (GPT partition GUID, lower case; "" for MBR or no HD
# node), optkind= (none|text|ascii|binary), opt= (optional data as UTF-8 when text (UCS-2)
# or ascii). Status 1: unreadable or not a load option.
efi_pl_load_option() {
	perl -e '
		use strict;
		local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $v = <$fh>;
		exit 1 if length($v) < 4 + 6;
		my $d = substr($v, 4);
		my ($attr, $fplen) = unpack("V v", $d);
		my $p = 6; my $desc = "";
		while ($p + 2 <= length($d)) {
			my $c = unpack("v", substr($d, $p, 2)); $p += 2;
			last if $c == 0;
			$desc .= chr($c);
		}
		exit 1 if $p + $fplen > length($d);
		my $fp = substr($d, $p, $fplen);
		my $opt = substr($d, $p + $fplen);
		my ($path, $part, $partguid) = ("", "", "");
		my $q = 0;
		while ($q + 4 <= length($fp)) {
			my ($type, $sub, $len) = unpack("C C v", substr($fp, $q, 4));
			last if $len < 4 || $q + $len > length($fp);
			last if $type == 0x7f;                  # end of instance or of path
			my $node = substr($fp, $q, $len);
			if ($type == 4 && $sub == 1 && $len >= 42) {  # hard drive
				$part = unpack("V", substr($node, 4, 4));
				if (unpack("C", substr($node, 41, 1)) == 2) {
					my ($a, $b, $c, $e, $f) = unpack("V v v a2 a6", substr($node, 24, 16));
					$partguid = sprintf("%08x-%04x-%04x-%s-%s", $a, $b, $c,
						unpack("H4", $e), unpack("H12", $f));
				}
			} elsif ($type == 4 && $sub == 4) {     # file path, UCS-2
				my $s = "";
				for my $u (unpack("v*", substr($node, 4))) { last if $u == 0; $s .= chr($u); }
				$path .= "\\" if $path ne "" && $path !~ /\\$/ && $s !~ /^\\/;
				$path .= $s;
			}
			$q += $len;
		}
		my ($kind, $text) = ("none", "");
		if (length($opt) && $opt =~ /\A[\x20-\x7e\t]+\0?\z/) {
			# bytes of printable ASCII with no zero byte (but maybe a final NUL): efibootmgr
			# writes optional data this way unless given -u; read as UCS-2 it would be CJK
			$kind = "ascii";
			($text = $opt) =~ s/\0\z//;
			$text =~ s/\t/ /g;
		} elsif (length($opt)) {
			$kind = "binary";
			if (length($opt) % 2 == 0) {
				my @u = unpack("v*", $opt);
				pop @u while @u && $u[-1] == 0;
				if (@u && !grep { ($_ < 0x20 && $_ != 9) || ($_ >= 0xd800 && $_ < 0xe000) || $_ == 0x7f } @u) {
					$kind = "text";
					$text = join("", map { chr } @u);
					$text =~ s/\t/ /g;
				}
			}
		}
		binmode STDOUT, ":utf8";
		$desc =~ s/[\x00-\x1f]/?/g;
		$path =~ s/[\x00-\x1f]/?/g;
		$path =~ s{/}{\\}g;
		print "desc=$desc\npath=$path\npart=$part\npartguid=$partguid\noptkind=$kind\nopt=$text\n";
	' "$1"
}

# efi_pl_esl_x509 DIR: stdin an efivarfs file of EFI_SIGNATURE_LISTs (db, MokListRT) -> the
# X.509 certificates in it as DIR/000.der, DIR/001.der, ...; prints nothing. Status 1: a
# file cannot be written.
efi_pl_esl_x509() {
	perl -e '
		binmode STDIN; local $/; my $v = <STDIN>;
		exit 0 if !defined $v || length($v) < 4;
		my $d = substr($v, 4); my ($p, $n) = (0, 0);
		my $x509 = pack("V v v", 0xa5c059a1, 0x94e4, 0x4aa7) . pack("H4 H12", "87b5", "ab155c2bf072");
		while ($p + 28 <= length $d) {
			my $type = substr($d, $p, 16);
			my ($ls, $hs, $ss) = unpack("V V V", substr($d, $p + 16, 12));
			last if $ls < 28 || $p + $ls > length($d) || $ss < 16;
			if ($type eq $x509) {
				for (my $q = $p + 28 + $hs; $q + $ss <= $p + $ls; $q += $ss) {
					open my $o, ">:raw", sprintf("%s/%03d.der", $ARGV[0], $n++) or exit 1;
					print $o substr($d, $q + 16, $ss - 16);
					close $o;
				}
			}
			$p += $ls;
		}' "$1"
}

# efi_pl_shim_vendor_cert: stdin shim's .vendor_cert section (objcopy -O binary) -> stdout
# the DER certificate it holds (cert_table: size, dbx size, offset). Status 1: none.
efi_pl_shim_vendor_cert() {
	perl -e 'binmode STDIN; binmode STDOUT; local $/; my $v = <STDIN>;
		exit 1 if !defined $v || length($v) < 16;
		my ($size, undef, $off) = unpack("V V V", $v);
		exit 1 if !$size || $off + $size > length $v;
		print substr($v, $off, $size);'
}

# efi_pl_location utf16|utf8: stdin a location variable with its 4 attribute bytes
# (systemd's HibernateLocation in UTF-16LE, efiresume's EfiresumeLocation in UTF-8) -> lines
# json= (the text, control characters as ?, at most 1024 characters), uuid=, offset=,
# kernel= (each when present); or one line error=REASON.
efi_pl_location() {
	perl -e '
		use strict;
		binmode STDIN; local $/; my $d = <STDIN>;
		if (!defined $d || length($d) <= 4) { print "error=empty\n"; exit 0; }
		$d = substr($d, 4, 65536);
		my $s = "";
		if ($ARGV[0] eq "utf16") {
			if (length($d) % 2) { print "error=an odd number of bytes for UTF-16LE\n"; exit 0; }
			my @u = unpack("v*", $d);
			pop @u if @u && $u[-1] == 0;
			for (my $i = 0; $i < @u; $i++) {
				my $c = $u[$i];
				if ($c == 0) { print "error=a NUL before the end\n"; exit 0; }
				if ($c >= 0xd800 && $c <= 0xdbff && $i + 1 < @u && $u[$i + 1] >= 0xdc00 && $u[$i + 1] <= 0xdfff) {
					$c = 0x10000 + (($c - 0xd800) << 10) + ($u[++$i] - 0xdc00);
				} elsif ($c >= 0xd800 && $c <= 0xdfff) {
					print "error=an unpaired surrogate\n"; exit 0;
				}
				$s .= chr($c);
			}
		} else {
			$s = $d; $s =~ s/\0+\z//;
			utf8::decode($s);
		}
		$s =~ s/[\x00-\x1f\x7f]/?/g;
		binmode STDOUT, ":utf8";
		print "json=", substr($s, 0, 1024), "\n";
		print "uuid=", lc $1, "\n" if $s =~ /"uuid"\s*:\s*"([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"/;
		print "offset=$1\n" if $s =~ /"offset"\s*:\s*([0-9]{1,20})\b/;
		print "kernel=$1\n" if $s =~ /"kernelVersion"\s*:\s*"([^"\\]{0,256})"/;
	' "$1" 2>/dev/null
}

# ------------------------------------------------------------------ EFI variables
var_path() { echo "$EFIVARS/$1-${2:-$GLOBAL_GUID}"; }

# u16 variables (BootCurrent, BootNext): prints XXXX or nothing
var_u16() {
	local f
	f=$(var_path "$1")
	[ -r "$f" ] || return 0
	efi_pl_u16 "$f"
}

# BootOrder as XXXX,XXXX,... (empty when missing)
boot_order() {
	local f
	f=$(var_path BootOrder)
	[ -r "$f" ] || return 0
	efi_pl_u16_list "$f"
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

# load_option NNNN ARRAY: Boot#### parsed (efi_pl_load_option) into the associative array
# ARRAY: [desc] [path] [part] [partguid] [optkind] [opt]. Status 1: missing or not a load option.
load_option() {
	local -n lo_out=$2
	local f text line
	lo_out=()
	f=$(var_path "Boot$1")
	[ -r "$f" ] || return 1
	text=$(efi_pl_load_option "$f") || return 1
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
