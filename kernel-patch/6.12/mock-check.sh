#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host check of kernel/power/hibernate_auth.c without a kernel tree: extracts the file
# (and include/linux/hibernation_key.h) from 0001 + 0003, compiles it against mock/
# (kernel API shims; HMAC from OpenSSL; -Wno-pointer-sign as the kernel), runs mock/mock-test.c, then lets
# tests/e2e/kernel/verify-tag.py (Python's hmac, written from the contract) check the
# tag of the swap area it wrote, and refuse it with one data byte flipped.
#   mock-check.sh [--control]   --control: the same with image/flags swapped in the
#                               tag's header fields (a wrong message): must FAIL
# env MOCK_DISK=FILE: keep the swap area written by the mock (header, map page, 6 pages)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# only the hunks of the two files, applied to an empty tree, patch by patch
mkdir -p "$w/tree"
for p in "$here"/0001-*.patch "$here"/0003-*.patch; do
	python3 - "$p" > "$w/only.patch" <<'PY'
import re, sys
for part in re.split(r'(?m)^(?=diff --git )', open(sys.argv[1]).read()):
    first = part.split('\n')[0]
    if part.startswith('diff --git') and ('kernel/power/hibernate_auth.c' in first or
                                          'include/linux/hibernation_key.h' in first):
        sys.stdout.write(part.split('\n-- \n')[0])
PY
	patch -p1 -s -d "$w/tree" < "$w/only.patch"
done
src=$w/tree/kernel/power/hibernate_auth.c
if [ "${1:-}" = --control ]; then
	sed -i 's/fields.image = cpu_to_le64(image);/fields.image = cpu_to_le64(flags);/' "$src"
	echo "control: image field replaced by flags in the tag"
fi
mkdir -p "$w/inc/linux"
cp "$w/tree/include/linux/hibernation_key.h" "$w/inc/linux/"
gcc -Wall -Wextra -Werror -Wno-deprecated-declarations -Wno-unused-parameter -Wno-pointer-sign -std=gnu11 -O1 -DCONFIG_HIBERNATION \
	-I"$w/inc" -I"$here/mock" -I"$w/tree/kernel/power" "$here/mock/mock-test.c" -lcrypto -o "$w/mock-test"
rc=0
"$w/mock-test" "$w/disk.img" || rc=1
# MOCK_DISK=FILE keeps the swap area (e.g. for efiresume's own tag check)
[ -z "${MOCK_DISK:-}" ] || cp "$w/disk.img" "$MOCK_DISK"
echo "verify-tag.py on the mock's swap area:"
python3 "$top/tests/e2e/kernel/verify-tag.py" "$w/disk.img" 0 \
	000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f || rc=1
flipped=$(python3 "$top/tests/e2e/kernel/verify-tag.py" "$w/disk.img" 0 \
	000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f --flip || true)
if grep -q 'WRONG: tag' <<< "$flipped"; then
	echo "  ok: one flipped data byte is refused"
else
	echo "  WRONG: a flipped data byte is accepted"; rc=1
fi
[ $rc = 0 ] && echo "mock-check: PASS" || echo "mock-check: FAIL"
exit $rc
