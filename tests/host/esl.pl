#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The host tests' fixture signature lists (db, MokListRT as efivarfs files, 4 attribute bytes first):
#   esl.pl FILE ATTR DER...
# one EFI_SIGNATURE_LIST of type EFI_CERT_X509_GUID per DER certificate, each with one
# signature owned by 11111111-2222-3333-4444-555555555555; ATTR: the attributes (39: NV|BS|RT|
# time-based authenticated write access, as db; 6: BS|RT, as MokListRT; 0: a bare list to
# append to another).
use strict;
my ($out, $attr, @ders) = @ARGV;
sub guid { my @g = split /-/, shift; pack("V v v", hex $g[0], hex $g[1], hex $g[2]) . pack("H4", $g[3]) . pack("H12", $g[4]); }
my $d = pack("V", $attr);
for my $f (@ders) {
	open my $fh, "<:raw", $f or die "$f: $!"; local $/; my $c = <$fh>; close $fh;
	my $ss = 16 + length $c;
	$d .= guid("a5c059a1-94e4-4aa7-87b5-ab155c2bf072") . pack("V V V", 28 + $ss, 0, $ss) . guid("11111111-2222-3333-4444-555555555555") . $c;
}
open my $o, ">:raw", $out or die; print $o $d; close $o;
