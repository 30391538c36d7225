#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The include rules of the pure-C folders (image/README, crypto/README, volume/README):
# image/ includes only image/; crypto/ only image's base, crypto/ and arch/cpu.h; volume/ nothing of
# loader/, efi/ or arch/. Prints every offending line; fails if there is one.
set -uo pipefail
cd "$(dirname "$0")/../.."
bad=0
check() {   # FOLDER ERE-of-forbidden-includes [ERE-of-allowed-exceptions]
	local hits
	hits=$(grep -nE "#include \"($2)" "$1"/*.[ch] || true)
	[ -z "${3:-}" ] || hits=$(grep -vE "#include \"($3)\"" <<< "$hits" || true)
	if [ -n "$hits" ]; then echo "$1/ includes what it may not:"; echo "$hits"; bad=1; fi
}
check image  'crypto/|volume/|loader/|efi/|arch/'
check crypto 'volume/|loader/|efi/|arch/|image/(reader|swsusp|swsusp2004|lzo|lz4|lzcopy|crc32|e820|refusal)\.h' 'arch/cpu\.h'
check volume 'loader/|efi/|arch/|image/(reader|swsusp|swsusp2004|lzo|lz4|lzcopy|e820)\.h'
# arch/cpu.h, which crypto/ may include, is pure C: it includes image/freestanding.h only
hits=$(grep -n '#include' arch/cpu.h | grep -v '#include "image/freestanding.h"' || true)
if [ -n "$hits" ]; then echo "arch/cpu.h includes more than image/freestanding.h:"; echo "$hits"; bad=1; fi
# and every include names a file that exists
for f in image/*.[ch] crypto/*.[ch] volume/*.[ch]; do
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		[ -f "$inc" ] || [ -f "$(dirname "$f")/$inc" ] || { echo "$f: no such include $inc"; bad=1; }
	done
done
# efi/ is called by loader/, never the other way: no efi/ file includes a loader/ header but
# efi/main.c (the entry point hands over to er_loader_main); loader/ calls the firmware only
# through efi/ (no boot or runtime service, no system table)
hits=$(grep -n '#include "loader/' efi/*.[ch] | grep -v '^efi/main\.c:' || true)
if [ -n "$hits" ]; then echo "efi/ includes loader/ headers:"; echo "$hits"; bad=1; fi
hits=$(grep -nE '\b(BS|RT|ST|gBS|gRT)->|uefi_call_wrapper' loader/*.[ch] || true)
if [ -n "$hits" ]; then echo "loader/ calls the firmware directly:"; echo "$hits"; bad=1; fi
[ $bad = 0 ] && echo "layering: image/, crypto/, volume/ include only what they may; efi/ does not include loader/ (but main.c); loader/ calls no firmware service"
exit $bad
