#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The host tests' fixture load options (EFI_LOAD_OPTION as an efivarfs file, 4 attribute bytes first):
#   mkopt.pl FILE DESC PART PARTGUID PATH [OPTDATA_TEXT [ascii]]
# an HD() node (GPT, PART, PARTGUID) and a File(PATH) node; PATH "" = a firmware-volume file node
# instead, as OVMF's own entries; optional data UCS-2, or as given with "ascii" (efibootmgr without -u).
use strict;
	my ($file, $desc, $part, $guid, $path, $opt) = @ARGV;
	sub ucs2 { my $s = shift; return pack("v*", map { ord } split //, $s) . "\0\0"; }
	my $fp = "";
	if ($path ne "") {
		my @g = split /-/, $guid;
		my $sig = pack("V v v", hex $g[0], hex $g[1], hex $g[2]) . pack("H4", $g[3]) . pack("H12", $g[4]);
		$fp .= pack("C C v V Q< Q<", 4, 1, 42, $part, 2048, 1048576) . $sig . pack("C C", 2, 2);
		my $f = ucs2($path);
		$fp .= pack("C C v", 4, 4, 4 + length $f) . $f;
	} else {
		$fp .= pack("C C v", 4, 6, 20) . ("\x11" x 16);
	}
	$fp .= pack("C C v", 0x7f, 0xff, 4);
	my $d = pack("V V v", 7, 1, length $fp) . ucs2($desc) . $fp;
	if (defined $opt && defined $ARGV[6] && $ARGV[6] eq "ascii") { $d .= $opt; }   # efibootmgr without -u
	elsif (defined $opt) { $d .= pack("v*", map { ord } split //, $opt); }
	open my $fh, ">:raw", $file or die; print $fh $d; close $fh;
