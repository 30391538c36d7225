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
# tpm/ (tpm/README): <std*.h>, image/freestanding.h, image/fmt.h, crypto/, tpm/
hits=$(grep -n '#include' tpm/*.[ch] | grep -vE '#include <std[a-z]*\.h>|#include "(image/freestanding\.h|image/fmt\.h|crypto/[a-z0-9_]+\.h|tpm/[a-z0-9_]+\.h)"' || true)
if [ -n "$hits" ]; then echo "tpm/ includes what tpm/README forbids:"; echo "$hits"; bad=1; fi
hits=$(grep -nE '\b(BS|RT|ST|gBS|gRT)->|uefi_call_wrapper' tpm/*.[ch] || true)
if [ -n "$hits" ]; then echo "tpm/ calls the firmware:"; echo "$hits"; bad=1; fi
# and every include names a file that exists
for f in image/*.[ch] crypto/*.[ch] volume/*.[ch] tpm/*.[ch]; do
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
# loader/ says bool/true/false; BOOLEAN/TRUE/FALSE only where it implements an interface
# efi/ or arch/ declares that way (er_blockdev_ops' read, er_safe_alloc_fn, er_handoff)
hits=$(grep -nwE 'BOOLEAN|TRUE|FALSE' loader/*.[ch] |
	grep -vE '(crypt_read|lv_read|er_plan_safe_alloc)\(|code != FALSE|firmware_unaware = TRUE|BOOLEAN: the signature of' || true)
if [ -n "$hits" ]; then echo "loader/ mixes BOOLEAN with bool:"; echo "$hits"; bad=1; fi
# no comment of loader/, efi/ or image/ names a file that is not there: a path of this tree
# (efi/..., loader/..., tests/..., and so on, to a .c/.h/.S/.sh/.md/.py file; the kernel's
# own paths such as kernel/power/swap.c are not ours), a path outside it (../...), or a
# bare NAME.c that is not in the same folder
for f in loader/*.[ch] efi/*.[ch] efi/*.S image/*.[ch] image/README; do
	refs=$(grep -oE '(^|[^A-Za-z0-9_./-])(\.\./[A-Za-z0-9_./-]+|(efi|loader|image|crypto|volume|arch/x86_64|arch/i386|tools|tests|docs|packaging|kernel-patch)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(c|h|S|sh|md|py))([^A-Za-z0-9_/-]|$)' "$f" |
		sed -E 's/^[^A-Za-z0-9_.]//; s/[^A-Za-z0-9_-]$//' | sort -u)
	for r in $refs; do
		case $r in ../*) false ;; *) [ -e "$r" ] ;; esac || { echo "$f: names $r, which is not in the tree"; bad=1; }
	done
	for r in $(grep -oE '(^|[ `(])[A-Za-z0-9_-]+\.c\b' "$f" | sed -E 's/^[ `(]//' | sort -u); do
		[ -e "$(dirname "$f")/$r" ] || { echo "$f: names $r, which is not in $(dirname "$f")/"; bad=1; }
	done
done
[ $bad = 0 ] && echo "layering: image/, crypto/, volume/ include only what they may; efi/ does not include loader/ (but main.c); loader/ calls no firmware service and says bool; tpm/ includes only crypto/; every file loader/, efi/ and image/ name is there"
exit $bad
