#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host check of kernel/power/hibernate_auth.c without a kernel tree: applies the series'
# hunks of that file (and include/linux/hibernation_key.h) to an empty tree, compiles it
# against mock/ (kernel API shims; HMAC-SHA256 and AES-256-GCM from OpenSSL, every other
# AEAD request completing "asynchronously"), runs mock/mock-test.c (key intake and the
# lockdown decision, the kexec wipe, the key page, the v2 write side over a 600-page
# stream driven as swap.c drives it), then lets tests/e2e/kernel/verify-tag.py (python3-
# cryptography, written from the contract) decrypt and verify the swap area it wrote, and
# refuse it with a flipped ciphertext byte, two swapped pages and a truncated enc_pages.
#   mock-check.sh [--control]   --control: the same with the GCM IV's last word 1 instead
#                               of 0 in the kernel code (off the contract): must FAIL
# env MOCK_DISK=FILE: keep the swap area written by the mock
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# only the hunks of the two files, applied to an empty tree, patch by patch
mkdir -p "$w/tree"
for p in "$here"/*.patch; do
	python3 - "$p" > "$w/only.patch" <<'PY'
import re, sys
for part in re.split(r'(?m)^(?=diff --git )', open(sys.argv[1]).read()):
    first = part.split('\n')[0]
    if part.startswith('diff --git') and ('kernel/power/hibernate_auth.c' in first or
                                          'include/linux/hibernation_key.h' in first):
        sys.stdout.write(part.split('\n-- \n')[0])
PY
	[ -s "$w/only.patch" ] && patch -p1 -s -d "$w/tree" < "$w/only.patch"
done
src=$w/tree/kernel/power/hibernate_auth.c
if [ "${1:-}" = --control ]; then
	grep -q 'put_unaligned_le32(0, e->iv + 8);' "$src"
	sed -i 's/put_unaligned_le32(0, e->iv + 8);/put_unaligned_le32(1, e->iv + 8);/' "$src"
	echo "control: the GCM IV's last word is 1 (the contract says 0)"
fi
mkdir -p "$w/inc/linux"
cp "$w/tree/include/linux/hibernation_key.h" "$w/inc/linux/"
gcc -Wall -Wextra -Werror -Wno-deprecated-declarations -Wno-unused-parameter -Wno-pointer-sign -std=gnu11 -O1 -DCONFIG_HIBERNATION \
	-I"$w/inc" -I"$here/mock" -I"$w/tree/kernel/power" "$here/mock/mock-test.c" -lcrypto -o "$w/mock-test"
rc=0
"$w/mock-test" "$w/disk.img" | grep -v '^  ok: page encrypted$' || rc=1
[ -z "${MOCK_DISK:-}" ] || cp "$w/disk.img" "$MOCK_DISK"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
echo "verify-tag.py on the mock's swap area:"
python3 "$top/tests/e2e/kernel/verify-tag.py" "$w/disk.img" 0 $key || rc=1
for c in flip swap truncate; do
	if python3 "$top/tests/e2e/kernel/verify-tag.py" "$w/disk.img" 0 $key --$c > "$w/c.txt"; then
		echo "  WRONG: --$c accepted"; rc=1
	else
		echo "  ok: --$c refused: $(grep -m1 WRONG "$w/c.txt" | sed 's/^ *//')"
	fi
done
[ $rc = 0 ] && echo "mock-check: PASS" || echo "mock-check: FAIL"
exit $rc
