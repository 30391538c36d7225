# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: EFI variables and load options: reading Boot####, BootOrder, BootNext and efiresume's
# variables, the boot entry (efibootmgr), the preconditions on efivarfs.

# ------------------------------------------------------------------ EFI variables
var_path() { echo "$EFIVARS/$1-${2:-$GLOBAL_GUID}"; }

# u16 variables (BootCurrent, BootNext): prints XXXX or nothing
var_u16() {
	local f
	f=$(var_path "$1") || return 1
	[ -r "$f" ] || return 0
	perl -e 'local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		exit 0 if length($d) < 6; printf "%04X\n", unpack("v", substr($d, 4, 2));' "$f"
}

# BootOrder as XXXX,XXXX,... (empty when missing)
boot_order() {
	local f
	f=$(var_path BootOrder)
	[ -r "$f" ] || return 0
	perl -e 'local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		print join(",", map { sprintf "%04X", $_ } unpack("v*", substr($d, 4))), "\n";' "$f"
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

# Parse a load option: key=value lines desc, path (the File() nodes of the first device
# path instance, "" when it has none), part (HD partition number), partguid (GPT partition
# GUID, lower case; "" for MBR or no HD node), opt (optional data when it is UCS-2 text,
# as UTF-8, or when it is ASCII), optkind (none|text|ascii|binary).
load_option() {
	local f
	f=$(var_path "Boot$1")
	[ -r "$f" ] || return 1
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
	' "$f"
}

# field KEY from load_option output in $LO
lo_get() { printf '%s\n' "$LO" | sed -n "s/^$1=//p" | head -n 1; }

# Is Boot$1 our entry? Its file path (any case) is \EFI\efiresume\efiresume.efi, or
# \EFI\efiresume\shimx64.efi (shimia32.efi) when installed through shim (--secure-boot=shim)
is_ours() {
	local lo p
	lo=$(load_option "$1" 2>/dev/null) || return 1
	p=$(printf '%s\n' "$lo" | sed -n 's/^path=//p' | head -n 1)
	p=${p,,}
	[ "$p" = "${EFI_FILE,,}" ] || [ "$p" = '\efi\efiresume\shimx64.efi' ] || [ "$p" = '\efi\efiresume\shimia32.efi' ]
}

entry_path() { # Boot#### -> its file path
	local LO
	LO=$(load_option "$1" 2>/dev/null) || return 0
	lo_get path
}

# Our entries (normally zero or one)
our_entries() {
	local n
	for n in $(boot_entries); do
		is_ours "$n" && echo "$n"
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

# Ensure one entry starts PATH ($1, default \EFI\efiresume\efiresume.efi); sets ENTRY, and
# ENTRY_NEW when it was created. Our entries that start another of our files (the layout
# before a change of --secure-boot) are deleted once the new one exists; BootNext pointing
# at one of them moves to the new entry.
ensure_entry() {
	local want=${1:-$EFI_FILE} mine n p keep= dup= old=() oldp=() i
	ENTRY_NEW=
	mine=$(our_entries)
	for n in $mine; do
		p=$(entry_path "$n")
		if [ "${p,,}" = "${want,,}" ]; then
			if [ -z "$keep" ]; then keep=$n; else dup="$dup $n"; fi
		else
			old+=("$n") oldp+=("$p")
		fi
	done
	if [ -n "$keep" ]; then
		ENTRY=$keep
		[ -n "$dup" ] && warn "more than one entry starts $want ($keep$dup); using Boot$ENTRY"
	else
		ebm -C -d "$ESP_DISK" -p "$ESP_PART" -L "$LABEL" -l "$want" || { err "efibootmgr could not create the boot entry"; return 1; }
		ENTRY=
		for n in $(our_entries); do
			p=$(entry_path "$n")
			[ "${p,,}" = "${want,,}" ] && { ENTRY=$n; break; }
		done
		[ -n "$ENTRY" ] || { err "efibootmgr created no entry for $want"; return 1; }
		ENTRY_NEW=1
		say "created boot entry Boot$ENTRY \"$LABEL\" ($want on $ESP_DEV)"
	fi
	for i in "${!old[@]}"; do
		n=${old[$i]}
		[ "$(var_u16 BootNext)" = "$n" ] && { ebm -n "$ENTRY" || { err "cannot move BootNext from Boot$n to Boot$ENTRY"; return 1; }; }
		ebm -b "$n" -B || { err "cannot delete Boot$n"; return 1; }
		say "deleted boot entry Boot$n (it started ${oldp[$i]}; Boot$ENTRY starts $want)"
	done
	return 0
}

# put ENTRY first in BootOrder (always) or take it out (on-hibernate)
apply_mode() {
	local mode=$1 order rest o
	order=$(boot_order)
	rest=
	for o in $(echo "$order" | tr , ' '); do
		[ "$o" = "$ENTRY" ] && continue
		rest=${rest:+$rest,}$o
	done
	if [ "$mode" = always ]; then
		[ "${order%%,*}" = "$ENTRY" ] && return 0
		ebm -o "$ENTRY${rest:+,$rest}" || return 1
		say "Boot$ENTRY is first in BootOrder"
	else
		[ "$order" = "$rest" ] && return 0
		if [ -n "$rest" ]; then ebm -o "$rest" || return 1; else ebm -O || return 1; fi
		say "Boot$ENTRY taken out of BootOrder"
	fi
}
