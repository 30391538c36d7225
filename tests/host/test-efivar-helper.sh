#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume-efivar against the perl programs it replaces (issue 24): the perl programs
# below are verbatim copies of the ones tools/efiresume-install embedded (var_u16,
# boot_order, load_option, esl_certs, shim_vendor_cert, decode_location; checked against
# the installer while it still carries them). Both run on the same inputs and must print
# the same bytes and exit with the same status. Inputs: load options made by libefiboot
# (efi_loadopt_create with efidp_make_hd/efidp_make_file/efidp_make_vendor, and the
# optional data efibootmgr writes with and without -u), the installer tests' fixture
# variables (tests/host/mkopt.pl and esl.pl, test-install.sh's hibloc, EfiresumeLocation), hand-made
# malformed ones, prefixes of all of these (EFV_PREFIXES of each, default 4, and the
# last two lengths) and seeded random mutants (EFV_MUTANTS of each, default 4); db
# variables with real certificates (openssl); shim's .vendor_cert
# section from Debian's shim-signed when the host or the cache has it. Also the one
# documented divergence (decode-location: a non-ASCII character right after the offset's
# digits under Unicode rules) is counted apart and checked to be nothing else.
# Prints "ok:"/"FAIL:" lines and "N passed, N failed".
#   tests/host/test-efivar-helper.sh   (needs build/efiresume-efivar; EFIVAR_HELPER=... another)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HELPER=${EFIVAR_HELPER:-$TOP/build/efiresume-efivar}
CACHE=${EFIRESUME_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/efiresume}
MUTANTS=${EFV_MUTANTS:-4}
PREFIXES=${EFV_PREFIXES:-4}
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; exit; }
[ -x "$HELPER" ] || { echo "no $HELPER (make build/efiresume-efivar)"; exit 1; }
W=$(mktemp -d /tmp/efivar-helper.XXXXXX)
trap 'rm -rf "$W"' EXIT

# ---------------------------------------------------------------- the perl programs (verbatim)
cat >"$W/var_u16.pl" <<'PERL_EOF'
local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		exit 0 if length($d) < 6; printf "%04X\n", unpack("v", substr($d, 4, 2));
PERL_EOF
cat >"$W/boot_order.pl" <<'PERL_EOF'
local $/; open my $fh, "<:raw", $ARGV[0] or exit 1; my $d = <$fh>;
		print join(",", map { sprintf "%04X", $_ } unpack("v*", substr($d, 4))), "\n";
PERL_EOF
cat >"$W/load_option.pl" <<'PERL_EOF'

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
	
PERL_EOF
cat >"$W/esl_certs.pl" <<'PERL_EOF'

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
		}
PERL_EOF
cat >"$W/shim_vendor_cert.pl" <<'PERL_EOF'
binmode STDIN; binmode STDOUT; local $/; my $v = <STDIN>;
		exit 1 if !defined $v || length($v) < 16;
		my ($size, undef, $off) = unpack("V V V", $v);
		exit 1 if !$size || $off + $size > length $v;
		print substr($v, $off, $size);
PERL_EOF
cat >"$W/decode_location.pl" <<'PERL_EOF'

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
	
PERL_EOF
for p in var_u16 boot_order load_option esl_certs shim_vendor_cert decode_location; do
	declare "P_$p=$(cat "$W/$p.pl")"
done
inst=$TOP/tools/efiresume-install
if grep -q "perl -e '" "$inst" 2>/dev/null; then
	for p in var_u16 boot_order load_option esl_certs shim_vendor_cert decode_location; do
		perl -e 'my ($inst, $copy) = @ARGV; local $/; open my $a, "<", $inst or exit 2; my $i = <$a>;
			open my $b, "<", $copy or exit 2; my $c = <$b>; $c =~ s/\n\z//; exit(index($i, "perl -e \x27$c\x27") >= 0 ? 0 : 1)' "$inst" "$W/$p.pl" &&
			ok "the copy of $p is the installer's, verbatim" || fail "the copy of $p is not the installer's any more"
	done
else
	echo "note: tools/efiresume-install carries no perl program any more: the copies are not compared with it"
fi

# ---------------------------------------------------------------- inputs
mkdir -p "$W/lo" "$W/u16" "$W/esl" "$W/vc" "$W/loc"
# load options built by libefiboot (the library efibootmgr builds them with)
cat >"$W/gen.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <efiboot.h>
static uint8_t dp[4096];
static ssize_t dpl;
static void hd(int gpt, uint32_t part)
{
	uint8_t sig[16];
	for (int i = 0; i < 16; i++)
		sig[i] = (uint8_t)(0x10 * i + 0x0c - i);
	ssize_t n = efidp_make_hd(dp + dpl, sizeof dp - dpl, part, 2048, 1048576, sig,
				  gpt ? EFIDP_HD_FORMAT_GPT : EFIDP_HD_FORMAT_PCAT,
				  gpt ? EFIDP_HD_SIGNATURE_GUID : EFIDP_HD_SIGNATURE_MBR);
	if (n < 0) exit(3);
	dpl += n;
}
static void file(const char *f)
{
	ssize_t n = efidp_make_file(dp + dpl, sizeof dp - dpl, (char *)f);
	if (n < 0) exit(3);
	dpl += n;
}
static void vendor(void)
{
	uint8_t data[3] = { 1, 2, 3 };
	ssize_t n = efidp_make_vendor(dp + dpl, sizeof dp - dpl, EFIDP_MEDIA_TYPE, EFIDP_MEDIA_VENDOR,
				      efi_guid_x509_cert, data, sizeof data);
	if (n < 0) exit(3);
	dpl += n;
}
static void end_instance(void) { ssize_t n = efidp_make_end_instance(dp + dpl, sizeof dp - dpl); if (n < 0) exit(3); dpl += n; }
static void end(void) { ssize_t n = efidp_make_end_entire(dp + dpl, sizeof dp - dpl); if (n < 0) exit(3); dpl += n; }
/* OPTKIND: 0 none, 'u' UCS-2 (efibootmgr -u), 'a' bytes (efibootmgr without -u), 'b' binary */
static void emit(const char *name, const char *desc, int kind, const char *args)
{
	uint8_t opt[4096];
	ssize_t ol = 0;
	if (kind == 'u') {
		ol = efi_loadopt_args_as_ucs2(NULL, 0, (uint8_t *)args);
		if (ol < 0 || ol > (ssize_t)sizeof opt || efi_loadopt_args_as_ucs2((uint16_t *)opt, ol, (uint8_t *)args) < 0) exit(4);
	} else if (kind == 'a') {
		ol = efi_loadopt_args_as_utf8(opt, sizeof opt, (uint8_t *)args);
		if (ol < 0) exit(4);
	} else if (kind == 'b') {
		for (ol = 0; ol < 17; ol++) opt[ol] = (uint8_t)(ol * 37 + 1);
	}
	ssize_t sz = efi_loadopt_create(NULL, 0, 1 /* LOAD_OPTION_ACTIVE */, (efidp)dp, dpl, (unsigned char *)desc, ol ? opt : NULL, ol);
	uint8_t *buf = calloc(1, 4 + sz);
	if (sz < 0 || !buf) exit(5);
	buf[0] = 7;
	if (efi_loadopt_create(buf + 4, sz, 1 /* LOAD_OPTION_ACTIVE */, (efidp)dp, dpl, (unsigned char *)desc, ol ? opt : NULL, ol) != sz) exit(6);
	FILE *f = fopen(name, "wb");
	if (!f || fwrite(buf, 1, 4 + sz, f) != (size_t)(4 + sz) || fclose(f)) exit(7);
	free(buf);
	dpl = 0;
}
int main(void)
{
	hd(1, 1); file("\\EFI\\efiresume\\efiresume.efi"); end();
	emit("efiresume", "efiresume", 0, NULL);
	hd(1, 2); file("\\EFI\\debian\\shimx64.efi"); end();
	emit("ucs2-args", "debian", 'u', "\\vmlinuz root=/dev/sda2 ro\tquiet");
	hd(1, 1); file("\\EFI\\debian\\vmlinuz.efi"); end();
	emit("ascii-args", "Debian (EFI stub)", 'a', "initrd=\\EFI\\debian\\initrd.img root=/dev/vda3 ro");
	hd(0, 3); file("\\EFI\\BOOT\\BOOTX64.EFI"); end();
	emit("mbr", "MBR disk", 0, NULL);
	hd(1, 1); file("\\EFI\\x.efi"); end();
	emit("utf8-desc", "D\xc3\xa9" "bian \xc3\xbc", 'u', "caf\xc3\xa9 \xc3\xb1");
	hd(1, 1); file("\\EFI\\y.efi"); end();
	emit("utf8-3byte", "\xe2\x98\x83 \xe4\xb8\xad", 'u', "\xe2\x82\xac");
	hd(1, 1); file("\\EFI"); file("debian\\grubx64.efi"); end();
	emit("two-files", "two File nodes", 0, NULL);
	hd(1, 1); file("/EFI/fwd/slash.efi"); end();
	emit("slashes", "slashes", 0, NULL);
	vendor(); end();
	emit("vendor", "UiApp", 0, NULL);
	hd(1, 1); file("\\EFI\\a.efi"); end_instance(); hd(1, 2); file("\\EFI\\b.efi"); end();
	emit("instances", "two instances", 0, NULL);
	hd(1, 1); file("\\EFI\\bin.efi"); end();
	emit("binary-opt", "binary", 'b', NULL);
	hd(1, 1); file("\\EFI\\e.efi"); end();
	emit("empty-desc", "", 'a', "x");
	hd(1, 7); hd(0, 9); file("\\EFI\\hd2.efi"); end();
	emit("gpt-then-mbr", "two HD nodes", 0, NULL);
	return 0;
}
EOF2
if gcc -O1 -Wall -Werror $(pkg-config --cflags efiboot efivar 2>/dev/null || echo -I/usr/include/efivar) "$W/gen.c" -lefiboot -lefivar -o "$W/gen" &&
	(cd "$W/lo" && "$W/gen"); then
	ok "libefiboot built $(ls "$W/lo" | wc -l) load options"
else
	fail "cannot build load options with libefiboot (libefiboot-dev, libefivar-dev)"
fi
# the host tests' fixture load options (tests/host/mkopt.pl)
cp "$TOP/tests/host/mkopt.pl" "$W/mkopt.pl"
ESP_GUID=0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f50
STUB_OPTS='initrd=\EFI\debian\initrd.img root=/dev/vda3 ro console=ttyS0'
perl "$W/mkopt.pl" "$W/lo/fx-Boot0000" UiApp 0 "" ""
perl "$W/mkopt.pl" "$W/lo/fx-Boot0001" debian 1 "$ESP_GUID" '\EFI\debian\shimx64.efi'
perl "$W/mkopt.pl" "$W/lo/fx-Boot0002" "Debian (EFI stub)" 1 "$ESP_GUID" '\EFI\debian\vmlinuz.efi' "$STUB_OPTS"
perl "$W/mkopt.pl" "$W/lo/fx-Boot0003" "UEFI Misc Device" 0 "" ""
perl "$W/mkopt.pl" "$W/lo/fx-ascii" "Debian (EFI stub)" 1 "$ESP_GUID" '\EFI\debian\vmlinuz.efi' "$STUB_OPTS" ascii
# hand-made malformed ones (python3: bytes are easier to spell there)
python3 - "$W/lo" <<'EOF2'
import os, struct, sys
d = sys.argv[1]
def w(name, data): open(os.path.join(d, "hm-" + name), "wb").write(b"\x07\0\0\0" + data)
def u(s): return s.encode("utf-16-le")
def node(t, s, body, length=None): return struct.pack("<BBH", t, s, 4 + len(body) if length is None else length) + body
def fnode(s): return node(4, 4, u(s) + b"\0\0")
end = node(0x7f, 0xff, b"")
def opt(desc, fp, extra=b"", fplen=None, attrs=1):
	return struct.pack("<IH", attrs, len(fp) if fplen is None else fplen) + desc + fp + extra
w("empty", b"")
w("short", b"\1\0\0\0\0")
w("header-only", struct.pack("<IH", 1, 0))
w("desc-unterminated", struct.pack("<IH", 1, 0) + u("abc"))
w("desc-unterminated-odd", struct.pack("<IH", 1, 0) + u("abc") + b"x")
w("fplen-past-end", opt(u("d") + b"\0\0", fnode("\\a.efi") + end, fplen=200))
w("fplen-one-past", opt(u("d") + b"\0\0", fnode("\\a.efi") + end, fplen=len(fnode("\\a.efi") + end) + 1))
w("no-end-node", opt(u("d") + b"\0\0", fnode("\\EFI\\no-end.efi")))
w("node-len-0", opt(u("d") + b"\0\0", node(4, 4, u("\\x") + b"\0\0", 0) + end))
w("end-len-0", opt(u("d") + b"\0\0", node(0x7f, 0xff, b"", 0)))
w("node-len-3", opt(u("d") + b"\0\0", node(4, 4, u("\\x"), 3) + fnode("\\y") + end))
w("node-past-list", opt(u("d") + b"\0\0", node(4, 4, u("\\x") + b"\0\0", 40)))
w("file-odd-name", opt(u("d") + b"\0\0", node(4, 4, u("\\odd") + b"Z") + end))
w("file-unterminated", opt(u("d") + b"\0\0", node(4, 4, u("\\unterm")) + end))
w("file-empty", opt(u("d") + b"\0\0", fnode("\\a") + node(4, 4, b"") + fnode("b") + end))
w("file-empty-name-first", opt(u("d") + b"\0\0", node(4, 4, b"\0\0") + fnode("b") + end))
w("file-controls", opt(u("d\tx\ny") + b"\0\0", fnode("\\a\nb\\") + fnode("c/d") + end))
w("file-bs-newline", opt(u("d") + b"\0\0", fnode("\\a\\\n") + fnode("c") + end))
w("surrogates", opt(u("x") + b"\x00\xd8\x01\xdc\x00\xdc\x41\x00\0\0", node(4, 4, b"\x00\xd8\x5c\x00\0\0") + end))
w("hd-short", opt(u("d") + b"\0\0", node(4, 1, b"\1\0\0\0" + b"\0" * 36) + fnode("\\x") + end))
w("hd-mbr", opt(u("d") + b"\0\0", node(4, 1, struct.pack("<IQQ", 5, 1, 2) + b"\xaa" * 16 + b"\1\1") + end))
w("hd-long", opt(u("d") + b"\0\0", node(4, 1, struct.pack("<IQQ", 4294967295, 1, 2) + bytes(range(16)) + b"\2\2" + b"pad") + end))
w("unknown-type", opt(u("d") + b"\0\0", node(0x42, 0x42, b"abc") + fnode("\\after-unknown") + end))
w("big-node", opt(u("d") + b"\0\0", node(4, 4, u("\\" + "b" * 700) + b"\0\0") + end))
w("after-end", opt(u("d") + b"\0\0", fnode("\\a") + end + fnode("\\after") + end))
w("opt-ascii-nul", opt(u("d") + b"\0\0", end, b"root=/dev/x ro\0"))
w("opt-ascii-2nul", opt(u("d") + b"\0\0", end, b"root=/dev/x ro\0\0"))
w("opt-nul", opt(u("d") + b"\0\0", end, b"\0"))
w("opt-2nul", opt(u("d") + b"\0\0", end, b"\0\0"))
w("opt-tab", opt(u("d") + b"\0\0", end, b"a\tb"))
w("opt-ucs2-odd", opt(u("d") + b"\0\0", end, u("root=x") + b"r"))
w("opt-ucs2-tab", opt(u("d") + b"\0\0", end, u("a\tb\u00e9\u4e2d") + b"\0\0\0\0"))
w("opt-ucs2-ctrl", opt(u("d") + b"\0\0", end, u("a\x01b")))
w("opt-ucs2-del", opt(u("d") + b"\0\0", end, u("a\x7fb")))
w("opt-ucs2-surrogate", opt(u("d") + b"\0\0", end, u("ab") + b"\x00\xd8"))
w("opt-ucs2-c1", opt(u("d") + b"\0\0", end, u("a\x85\ufffe\uffff")))
w("opt-high-ascii", opt(u("d") + b"\0\0", end, b"caf\xe9"))
w("desc-high", opt(u("\u00ff\u0100\u07ff\u0800\uffff\x7f") + b"\0\0", end))
EOF2

# db variables: EFI_SIGNATURE_LISTs of real certificates (tests/host/esl.pl, as test-install.sh)
cp "$TOP/tests/host/esl.pl" "$W/esl.pl"
for i in 1 2 3; do
	openssl req -new -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=efivar-test-$i" \
		-keyout "$W/k$i.key" -outform DER -out "$W/c$i.der" >/dev/null 2>&1 || fail "openssl: no certificate $i"
done
perl "$W/esl.pl" "$W/esl/fx-one" 39 "$W/c1.der"
perl "$W/esl.pl" "$W/esl/fx-three" 39 "$W/c1.der" "$W/c2.der" "$W/c3.der"
python3 - "$W/esl" "$W/c1.der" "$W/c2.der" <<'EOF2'
import os, struct, sys, uuid
d, c1, c2 = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
X509 = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072").bytes_le
SHA256 = uuid.UUID("c1c41626-504c-4092-aca9-41f936934328").bytes_le
OWNER = uuid.UUID("77fa9abd-0359-4d32-bd60-28f4e78f784b").bytes_le
def esl(t, sigs, hs=b"", ss=None, ls=None, hsize=None):
	ss = ss if ss is not None else (len(sigs[0]) + 16 if sigs else 16)
	body = hs + b"".join(OWNER + s for s in sigs)
	return t + struct.pack("<III", 28 + len(body) if ls is None else ls, len(hs) if hsize is None else hsize, ss) + body
def w(name, data): open(os.path.join(d, "hm-" + name), "wb").write(b"\x27\0\0\0" + data)
w("empty", b"")
open(os.path.join(d, "hm-short"), "wb").write(b"\x27\0\0")
w("sha256-then-x509", esl(SHA256, [b"\x11" * 32, b"\x22" * 32]) + esl(X509, [c2]))
w("two-in-one-list", esl(X509, [c1, c1[:len(c1)]]))
w("header", esl(X509, [c2], hs=b"HDR!"))
w("huge-header", esl(X509, [c2], hsize=0xffffffff))
w("ls-short", esl(X509, [c1], ls=27))
w("ls-past-end", esl(X509, [c1], ls=100000))
w("ls-max", esl(X509, [c1], ls=0xffffffff))
w("ss-15", esl(X509, [c1], ss=15))
w("ss-16", esl(X509, [b""], ss=16) + esl(X509, [c2]))
w("ss-huge", esl(X509, [c1], ss=0xffffffff))
w("ragged", esl(X509, [c1, c1], ls=28 + 2 * (16 + len(c1)) - 5) + b"\0" * 5)
w("trailing-junk", esl(X509, [c1]) + b"junk")
w("many", b"".join(esl(X509, [b"%04d" % i]) for i in range(1005)))
EOF2

# shim's .vendor_cert: Debian's signed shim (the host's, else the cached package), and made-up sections
shim=
[ -r /usr/lib/shim/shimx64.efi.signed ] && shim=/usr/lib/shim/shimx64.efi.signed
if [ -z "$shim" ]; then
	for deb in "$CACHE"/debs/shim-signed_*_amd64.deb; do
		[ -e "$deb" ] && dpkg-deb -x "$deb" "$W/shimroot" && [ -r "$W/shimroot/usr/lib/shim/shimx64.efi.signed" ] &&
			shim=$W/shimroot/usr/lib/shim/shimx64.efi.signed && break
	done
fi
if [ -n "$shim" ] && objcopy -O binary --only-section=.vendor_cert "$shim" "$W/vc/fx-shim" 2>/dev/null; then
	echo "note: .vendor_cert of $shim"
else
	echo "note: no shim-signed on the host or in the cache: made-up .vendor_cert sections only"
fi
python3 - "$W/vc" "$W/c1.der" <<'EOF2'
import os, struct, sys
d, c = sys.argv[1], open(sys.argv[2], "rb").read()
def w(name, data): open(os.path.join(d, "hm-" + name), "wb").write(data)
w("empty", b"")
w("15", b"\1" * 15)
w("made", struct.pack("<IIII", len(c), 0, 16, 16 + len(c)) + c)
w("with-dbx", struct.pack("<IIII", len(c), 32, 16, 16 + len(c)) + c + b"\x33" * 32)
w("size-0", struct.pack("<IIII", 0, 0, 16, 16) + c)
w("past-end", struct.pack("<IIII", len(c) + 1, 0, 16, 0) + c)
w("exact-end", struct.pack("<IIII", 4, 0, 12, 0))
w("off-huge", struct.pack("<IIII", 16, 0, 0xfffffff0, 0) + c)
w("size-huge", struct.pack("<IIII", 0xffffffff, 0, 16, 0) + c)
w("off-0", struct.pack("<IIII", 16, 0, 0, 0))
EOF2

# location variables: test-install.sh's HibernateLocation (UTF-16LE, final NUL) and
# EfiresumeLocation (UTF-8) contents, and malformed ones
FSU=7e5c1d2a-9b3f-4c8e-a1d0-2f4b6c8e0a13
python3 - "$W/loc" "$FSU" "$(uname -r)" <<'EOF2'
import os, sys
d, fsu, run = sys.argv[1], sys.argv[2], sys.argv[3]
n = [0]
def raw(name, data): open(os.path.join(d, name), "wb").write(b"\x07\0\0\0" + data)
def both(name, s):
	raw("u16-" + name, (s + "\0").encode("utf-16-le", "surrogatepass"))
	raw("u8-" + name, s.encode("utf-8", "surrogatepass"))
J = [
	("fx1", '{"uuid":"%s","offset":3000,"kernelVersion":"6.12.57+deb13-amd64","osReleaseId":"d\u00e9bian \U0001F600"}' % fsu),
	("fx2", '{"uuid":"%s","offset":3001,"kernelVersion":"%s"}' % (fsu, run)),
	("fx3", '{"uuid":"11111111-2222-4333-8444-555555555555","offset":3000,"kernelVersion":"x"}'),
	("fx4", '{"uuid":"%s","offset":3000,"device":"254:3","kernelVersion":"%s"}' % (fsu, run)),
	("upper", '{"uuid":"%s","offset":0}' % fsu.upper()),
	("spaces", '{ "uuid" : "%s" , "offset" : 12 , "kernelVersion" : "k" }' % fsu),
	("newlines", '{\n"uuid":\n"%s",\n"offset":\t7\n}' % fsu),
	("nbsp", '{"uuid":\u00a0"%s","offset":\u00a05,"kernelVersion":\u00a0"a"}' % fsu),
	("nbsp-wide", '{"uuid":\u00a0"%s","offset":\u00a05,"kernelVersion":\u3000"a\u0100"}' % fsu),
	("ideo-space", '{"uuid":\u3000"%s","offset":\u20285}' % fsu),
	("nel", '{"uuid":\x85"%s","offset":\x855,"x":"\u0101"}' % fsu),
	("off-20", '{"offset":12345678901234567890}'),
	("off-21", '{"offset":123456789012345678901}'),
	("off-letter", '{"offset":12a,"offset":13}'),
	("off-underscore", '{"offset":12_}'),
	("off-neg", '{"offset":-1}'),
	("off-latin1", '{"offset":12\u00e9}'),
	("off-nbsp-narrow", '{"offset":12\u00a0}'),
	("off-ascii-end", '{"offset":99'),
	("off-quoted", '{"offset":"5"}'),
	("kv-256", '{"kernelVersion":"%s"}' % ("k" * 256)),
	("kv-257", '{"kernelVersion":"%s","kernelVersion":"second"}' % ("k" * 257)),
	("kv-backslash", '{"kernelVersion":"a\\"b","kernelVersion":"c"}'),
	("kv-unicode", '{"kernelVersion":"\u00e9\U0001F600\u4e2d"}'),
	("kv-empty", '{"kernelVersion":""}'),
	("uuid-short", '{"uuid":"%s","uuid":"%s"}' % (fsu[:-1], fsu)),
	("uuid-nonhex", '{"uuid":"%sg"}' % fsu[:-1]),
	("long", '{"uuid":"%s","pad":"%s","offset":77,"kernelVersion":"late"}' % (fsu, "\u00e9" * 1500)),
	("controls", '{"a":"\x01\x1f\x7f","offset":4}'),
	("empty-json", ''),
]
for name, s in J:
	both(name, s)
raw("u16-odd", "ab".encode("utf-16-le") + b"x")
raw("u16-nul-mid", "a\0b".encode("utf-16-le") + b"\0\0")
raw("u16-2nul", "ab".encode("utf-16-le") + b"\0\0\0\0")
raw("u16-no-nul", "ab".encode("utf-16-le"))
raw("u16-only-nul", b"\0\0")
raw("u16-lone-high", b"a\0\x00\xd8b\0")
raw("u16-lone-high-end", b"a\0\x00\xd8")
raw("u16-lone-high-before-nul", b"a\0\x00\xd8\0\0")
raw("u16-lone-low", b"a\0\x00\xdc")
raw("u16-pair", b"{\0\x3d\xd8\x00\xde}\0\0\0")
raw("u16-high-high-low", b"\x00\xd8\x00\xd8\x00\xdc")
raw("u16-latin1-only", "{\"offset\":5\u00a0}".encode("utf-16-le"))
raw("u16-big", ("{\"uuid\":\"%s\",\"offset\":1}" % fsu).encode("utf-16-le") * 3000)
raw("u8-big", ("{\"uuid\":\"%s\",\"offset\":1}" % fsu).encode() * 2000)
raw("u8-big-cut", b"x" * 65535 + "\u00e9".encode() + b"\"offset\":3")
raw("empty", b"")
open(os.path.join(d, "short"), "wb").write(b"\7\0\0")
open(os.path.join(d, "attr-only"), "wb").write(b"\7\0\0\0")
for name, b in [
	("ff", b"\xff"), ("fe", b"\xfe"), ("c0-80", b"\xc0\x80"), ("c1-bf", b"\xc1\xbf"), ("e0-80-80", b"\xe0\x80\x80"),
	("e0-a0-80", b"\xe0\xa0\x80"), ("surrogate", b"\xed\xa0\x80"), ("f4-90", b"\xf4\x90\x80\x80"),
	("f0-80", b"\xf0\x80\x80\x80"), ("f5", b"\xf5\x80\x80\x80"), ("f8", b"\xf8\x88\x80\x80\x80"),
	("f8-overlong", b"\xf8\x80\x80\x80\x80"), ("fc", b"\xfc\x84\x80\x80\x80\x80"), ("fc-overlong", b"\xfc\x80\x80\x80\x80\x80"),
	("fe7", b"\xfe\x82\x80\x80\x80\x80\x80"), ("fe7-overlong", b"\xfe\x81\xbf\x80\x80\x80\x80"),
	("ff13", b"\xff\x80\x80\x80\x80\x80\x80\x81\x80\x80\x80\x80\x80"),
	("ff13-max", b"\xff\x80\x87\xbf\xbf\xbf\xbf\xbf\xbf\xbf\xbf\xbf\xbf"),
	("ff13-over", b"\xff\x80\x88\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"),
	("ff13-overlong", b"\xff\x80\x80\x80\x80\x80\x80\x80\xbf\xbf\xbf\xbf\xbf"),
	("truncated", b"ab\xe2\x82"), ("cont-alone", b"a\x80b"), ("nul-mid", b"a\0b\0\0"), ("nul-mid-hi", b"\xc3\xa9\0x"),
	("latin1-offset", b"{\"offset\":5\xa0}"), ("utf8-nbsp-offset", b"{\"offset\":5\xc2\xa0,\"uuid\":\xc2\xa0\"" + fsu.encode() + b"\"}"),
	("noncharacter", b"\xef\xbf\xbf\xef\xbf\xbe"), ("max-unicode", b"\xf4\x8f\xbf\xbf"),
	]:
	raw("u8-" + name, b"{\"kernelVersion\":\"" + b + b"\"}")
EOF2

# PREFIXES prefixes (evenly spaced lengths, and the last two) and MUTANTS seeded mutants of
# each file of DIR (not those matching SKIP_GLOB), in DIR/m
mutate() { # DIR [SKIP_GLOB]
	python3 - "$1" "$PREFIXES" "$MUTANTS" "${2:-}" <<'EOF2'
import fnmatch, os, random, struct, sys
src, nprefix, n, skip = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
dst = os.path.join(src, "m")
os.makedirs(dst, exist_ok=True)
rng = random.Random(24)
special = [0, 1, 2, 3, 4, 0x7f, 0xff, 0x20, 0x5c, 0x2f, 0x0a, 0x09, 0x22, 0x3a, 0x30, 0x80, 0xd8, 0xdc, 0xc3, 0x01, 0x06]
for name in sorted(os.listdir(src)):
	p = os.path.join(src, name)
	if not os.path.isfile(p) or (skip and fnmatch.fnmatch(name, skip)):
		continue
	data = open(p, "rb").read()
	lengths = {len(data) * i // nprefix for i in range(nprefix)} | {max(len(data) - 1, 0), max(len(data) - 2, 0)}
	for l in sorted(lengths):
		if l < len(data):
			open(os.path.join(dst, "%s.p%d" % (name, l)), "wb").write(data[:l])
	for i in range(n):
		d = bytearray(data)
		for _ in range(rng.choice((1, 1, 2, 3))):
			op = rng.randrange(7)
			pos = rng.randrange(len(d) + 1) if d else 0
			if op <= 1 and d:
				d[min(pos, len(d) - 1)] = rng.choice(special) if op == 0 else rng.randrange(256)
			elif op == 2 and len(d) >= 2:
				pos = min(pos, len(d) - 2)
				d[pos:pos + 2] = struct.pack("<H", rng.choice((0, 1, 3, 4, 5, 41, 42, 0x7fff, 0xffff, rng.randrange(65536))))
			elif op == 3:
				d[pos:pos] = bytes(rng.choice(special) for _ in range(rng.randrange(1, 4)))
			elif op == 4 and d:
				del d[pos:pos + rng.randrange(1, 5)]
			elif op == 5 and d:
				d[pos:pos] = d[pos:pos + rng.randrange(1, 9)]
			elif op == 6 and d:
				del d[rng.randrange(len(d)):]
		open(os.path.join(dst, "%s.m%d" % (name, i)), "wb").write(bytes(d))
EOF2
}
mutate "$W/lo"
mutate "$W/esl" 'hm-many'
mutate "$W/vc"
mutate "$W/loc" '*-big*'
# BootCurrent/BootNext/BootOrder-like variables, and the load options' prefixes
python3 - "$W/u16" <<'EOF2'
import os, sys
d = sys.argv[1]
for l in range(0, 12):
	open(os.path.join(d, "len%d" % l), "wb").write(bytes([7, 0, 0, 0, 0x0a, 0x00, 0xff, 0xab, 0x01, 0x10, 0x34, 0x12][:l]))
open(os.path.join(d, "order"), "wb").write(b"\7\0\0\0" + b"".join(bytes([i & 0xff, i >> 8]) for i in (0, 1, 0x2001, 0xffff, 0xabcd, 0x0a0b)))
open(os.path.join(d, "order-odd"), "wb").write(b"\7\0\0\0\1\0\2\0\3")
EOF2

# ---------------------------------------------------------------- the comparison
# diffrun KIND FILE: both on FILE; their stdout (and the files esl_certs wrote) in $W/p and
# $W/c, "status N" appended; 0 when the same
diffrun() {
	local k=$1 f=$2 prc crc
	rm -rf "$W/pd" "$W/cd" && mkdir "$W/pd" "$W/cd"
	case $k in
	var-u16) perl -e "$P_var_u16" "$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" var-u16 "$f" >"$W/c" 2>/dev/null; crc=$? ;;
	boot-order) perl -e "$P_boot_order" "$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" boot-order "$f" >"$W/c" 2>/dev/null; crc=$? ;;
	load-option) perl -e "$P_load_option" "$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" load-option "$f" >"$W/c" 2>/dev/null; crc=$? ;;
	esl-certs) perl -e "$P_esl_certs" "$W/pd" <"$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" esl-certs "$W/cd" <"$f" >"$W/c" 2>/dev/null; crc=$?
		(cd "$W/pd" && ls | LC_ALL=C sort | xargs -r sha256sum) >>"$W/p"
		(cd "$W/cd" && ls | LC_ALL=C sort | xargs -r sha256sum) >>"$W/c" ;;
	shim-vendor-cert) perl -e "$P_shim_vendor_cert" <"$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" shim-vendor-cert <"$f" >"$W/c" 2>/dev/null; crc=$? ;;
	utf16|utf8) perl -e "$P_decode_location" "$k" <"$f" >"$W/p" 2>/dev/null; prc=$?
		"$HELPER" decode-location "$k" <"$f" >"$W/c" 2>/dev/null; crc=$? ;;
	esac
	echo "status $prc" >>"$W/p"
	echo "status $crc" >>"$W/c"
	cmp -s "$W/p" "$W/c"
}
# the documented divergence: the perl found an offset= that the helper did not take, all
# else the same, and the perl's json= shows the digits followed by a non-ASCII character
known_divergence() {
	case $1 in utf16|utf8) ;; *) return 1 ;; esac
	grep -q '^offset=' "$W/p" && ! grep -q '^offset=' "$W/c" &&
		cmp -s <(grep -v '^offset=' "$W/p") <(grep -v '^offset=' "$W/c") &&
		perl -CS -ne 'BEGIN { $r = 1 } $r = 0 if /^json=.*"offset"\s*:\s*[0-9]{1,20}[^\x00-\x7f]/; END { exit $r }' "$W/p"
}
group() { # LABEL KIND FILE...
	local label=$1 k=$2 n=0 bad=0 known=0 f
	shift 2
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		diffrun "$k" "$f" && continue
		if known_divergence "$k"; then
			known=$((known + 1))
			continue
		fi
		bad=$((bad + 1))
		if [ $bad -le 3 ]; then
			echo "  differs: $k ${f#$W/}"
			diff <(od -An -c "$W/p") <(od -An -c "$W/c") | head -n 8 | sed 's/^/    /'
		fi
	done
	[ $known = 0 ] || echo "note: $label: $known inputs with the documented offset divergence"
	if [ $n -lt 5 ]; then
		fail "$label: only $n inputs"
	elif [ $bad = 0 ]; then
		ok "$label: $n inputs, the same output and status as the perl"
	else
		fail "$label: $bad of $n inputs differ from the perl"
	fi
}

t0=$SECONDS
group "var-u16 (BootCurrent, BootNext)" var-u16 "$W"/u16/* "$W"/lo/* "$W"/lo/m/*.m[0-2]
group "boot-order" boot-order "$W"/u16/* "$W"/lo/* "$W"/lo/m/*.m[0-2]
group "load-option" load-option "$W"/lo/* "$W"/lo/m/*
group "esl-certs" esl-certs "$W"/esl/* "$W"/esl/m/*
group "shim-vendor-cert" shim-vendor-cert "$W"/vc/* "$W"/vc/m/*
group "decode-location utf16" utf16 "$W"/loc/{empty,short,attr-only} "$W"/loc/u16-* "$W"/loc/m/u16-* "$W"/loc/u8-fx1 "$W"/loc/m/u8-fx1.*
group "decode-location utf8" utf8 "$W"/loc/{empty,short,attr-only} "$W"/loc/u8-* "$W"/loc/m/u8-* "$W"/loc/u16-fx1 "$W"/loc/m/u16-fx1.*
echo "note: comparisons took $((SECONDS - t0)) s"

# ---------------------------------------------------------------- what the answers are
# (the comparison alone would pass two programs wrong the same way)
lo() { "$HELPER" load-option "$W/lo/$1" 2>/dev/null | sed -n "s/^$2=//p"; }
check "libefiboot's option: desc" "$(lo efiresume desc)" efiresume
check "libefiboot's option: path" "$(lo efiresume path)" '\EFI\efiresume\efiresume.efi'
check "libefiboot's option: part" "$(lo efiresume part)" 1
check "libefiboot's option: partguid (the signature bytes 0c 1b 2a ... ed as a GUID)" "$(lo efiresume partguid)" 392a1b0c-5748-7566-8493-a2b1c0cfdeed
check "efibootmgr -u options: optkind" "$(lo ucs2-args optkind)" text
check "efibootmgr -u options: opt (tab as a space)" "$(lo ucs2-args opt)" '\vmlinuz root=/dev/sda2 ro quiet'
check "efibootmgr options without -u: ascii" "$(lo ascii-args optkind):$(lo ascii-args opt)" 'ascii:initrd=\EFI\debian\initrd.img root=/dev/vda3 ro'
check "UTF-8 description through UCS-2" "$(lo utf8-desc desc)" "Débian ü"
check "UCS-2 optional data as UTF-8" "$(lo utf8-desc opt)" "café ñ"
check "MBR partition: part, no partguid" "$(lo mbr part):$(lo mbr partguid)" "3:"
check "two File nodes joined" "$(lo two-files path)" '\EFI\debian\grubx64.efi'
check "forward slashes as backslashes" "$(lo slashes path)" '\EFI\fwd\slash.efi'
check "first instance only" "$(lo instances path)" '\EFI\a.efi'
check "a vendor node: no path, no part" "$(lo vendor path):$(lo vendor part)" ":"
check "binary optional data" "$(lo binary-opt optkind):$(lo binary-opt opt)" "binary:"
check "test-install's Boot0002: the stub's options" "$(lo fx-Boot0002 opt)" "$STUB_OPTS"
check "test-install's Boot0001: partguid" "$(lo fx-Boot0001 partguid)" "$ESP_GUID"
"$HELPER" load-option "$W/lo/hm-fplen-past-end" >/dev/null 2>&1
check "file path list past the end: status 1" "$?" 1
"$HELPER" load-option "$W/lo/hm-short" >/dev/null 2>&1
check "5 bytes after the attributes: status 1" "$?" 1
check "the 6-byte header alone: an empty option" "$("$HELPER" load-option "$W/lo/hm-header-only" | tr '\n' ' ')" "desc= path= part= partguid= optkind=none opt= "
"$HELPER" load-option "$W/no-such-file" >/dev/null 2>&1
check "no such file: status 1" "$?" 1
check "no End node: the File node still read" "$(lo hm-no-end-node path)" '\EFI\no-end.efi'
check "an End node of length 0 (libefivar's efidp_is_valid spins on it): path empty" "$(timeout 5 "$HELPER" load-option "$W/lo/hm-end-len-0" | sed -n 's/^path=//p')" ""
check "var-u16" "$("$HELPER" var-u16 "$W/u16/len6")" 000A
check "var-u16, 5 bytes: nothing" "$("$HELPER" var-u16 "$W/u16/len5"; echo "rc=$?")" "rc=0"
check "boot-order" "$("$HELPER" boot-order "$W/u16/order")" "0000,0001,2001,FFFF,ABCD,0A0B"
rm -rf "$W/cd" && mkdir "$W/cd" && "$HELPER" esl-certs "$W/cd" <"$W/esl/fx-three"
check "esl-certs: three certificates" "$(ls "$W/cd" | tr '\n' ' ')" "000.der 001.der 002.der "
check "esl-certs: the second is c2.der" "$(cmp -s "$W/cd/001.der" "$W/c2.der" && echo same)" same
rm -rf "$W/cd" && mkdir "$W/cd" && "$HELPER" esl-certs "$W/cd" <"$W/esl/hm-sha256-then-x509"
check "esl-certs: a SHA-256 list skipped" "$(ls "$W/cd" | tr '\n' ' '):$(cmp -s "$W/cd/000.der" "$W/c2.der" && echo same)" "000.der :same"
check "esl-certs into a missing directory: status 1" "$("$HELPER" esl-certs "$W/nodir" <"$W/esl/fx-one" 2>/dev/null; echo $?)" 1
check "shim-vendor-cert: the certificate" "$("$HELPER" shim-vendor-cert <"$W/vc/hm-made" | cmp - "$W/c1.der" && echo same)" same
check "shim-vendor-cert: past the end: status 1" "$("$HELPER" shim-vendor-cert <"$W/vc/hm-past-end" >/dev/null 2>&1; echo $?)" 1
if [ -e "$W/vc/fx-shim" ]; then
	"$HELPER" shim-vendor-cert <"$W/vc/fx-shim" >"$W/vendor.der"
	check "Debian's shim: its vendor certificate is Debian's CA" \
		"$(openssl x509 -inform DER -in "$W/vendor.der" -noout -subject 2>/dev/null | grep -c 'Debian Secure Boot CA')" 1
fi
dl() { "$HELPER" decode-location "$1" <"$W/loc/$2"; }
check "HibernateLocation (UTF-16LE)" "$(dl utf16 u16-fx1)" "$(printf 'json={"uuid":"%s","offset":3000,"kernelVersion":"6.12.57+deb13-amd64","osReleaseId":"débian 😀"}\nuuid=%s\noffset=3000\nkernel=6.12.57+deb13-amd64' "$FSU" "$FSU")"
check "EfiresumeLocation (UTF-8): uuid" "$(dl utf8 u8-fx4 | sed -n 's/^uuid=//p')" "$FSU"
check "upper-case uuid lowered" "$(dl utf8 u8-upper | sed -n 's/^uuid=//p')" "$FSU"
check "UTF-16: unpaired surrogate" "$(dl utf16 u16-lone-low)" "error=an unpaired surrogate"
check "UTF-16: odd length" "$(dl utf16 u16-odd)" "error=an odd number of bytes for UTF-16LE"
check "UTF-16: NUL before the end" "$(dl utf16 u16-2nul)" "error=a NUL before the end"
check "empty" "$(dl utf8 attr-only)" "error=empty"
check "malformed UTF-8 as Latin-1" "$(dl utf8 u8-ff)" 'json={"kernelVersion":"ÿ"}
kernel=ÿ'
check "21 digits: no offset" "$(dl utf8 u8-off-21 | grep -c '^offset=')" 0
check "usage: status 2" "$("$HELPER" 2>/dev/null; echo $?):$("$HELPER" decode-location utf32 </dev/null 2>/dev/null; echo $?)" "2:2"
finish
