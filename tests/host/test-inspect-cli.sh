#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# swsusp-inspect's command line (issue 15): --help prints the usage on stdout with status 0;
# a PATH that is a directory or another special file is refused with a message and
# status 2 (it used to be read as a 4 KiB "raw device"); an unknown option is a usage
# error (status 2). Prints "ok:"/"FAIL:" lines and "N passed, N failed".
#   tests/host/test-inspect-cli.sh     (needs build/swsusp-inspect; INSPECT=... another one)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
INSPECT=${INSPECT:-$TOP/build/swsusp-inspect}
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
[ -x "$INSPECT" ] || { echo "no $INSPECT (make build/swsusp-inspect)"; exit 1; }
W=$(mktemp -d /tmp/inspect-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT

for h in --help -h; do
	"$INSPECT" "$h" >"$W/out" 2>"$W/err"; rc=$?
	check "$h: status" "$rc" 0
	check "$h: the usage on stdout" "$(head -c 22 "$W/out")" "usage: swsusp-inspect "
	check "$h: nothing on stderr" "$(cat "$W/err")" ""
done
"$INSPECT" --no-such-option "$W" >"$W/out" 2>"$W/err"; rc=$?
check "unknown option: status 2" "$rc" 2
check "unknown option: the usage on stderr" "$(grep -c '^usage: swsusp-inspect' "$W/err")" 1
check "no PATH: status 2" "$("$INSPECT" >/dev/null 2>&1; echo $?)" 2

mkdir "$W/dir"
"$INSPECT" "$W/dir" >"$W/out" 2>"$W/err"; rc=$?
check "a directory: status 2" "$rc" 2
check "a directory: says so" "$(cat "$W/err")" "swsusp-inspect: $W/dir: a directory, not a block device or a disk image file"
check "a directory: no verdict on stdout" "$(cat "$W/out")" ""
"$INSPECT" --json "$W/dir" >"$W/out" 2>"$W/err"; rc=$?
check "a directory, --json: status 2, no JSON" "$rc:$(cat "$W/out")" "2:"
"$INSPECT" /dev/null >"$W/out" 2>"$W/err"; rc=$?
check "a character device (/dev/null): status 2" "$rc" 2
check "a character device: says so" "$(cat "$W/err")" "swsusp-inspect: /dev/null: a special file, not a block device or a disk image file"
# a regular file still works: an empty swap area has no image 
truncate -s 1M "$W/swap" && mkswap "$W/swap" >/dev/null 2>&1
"$INSPECT" --json "$W/swap" >"$W/out" 2>&1; rc=$?
check "a swap image file: no-signature" "$(sed -n 's/^  "reason": "\(.*\)",$/\1/p' "$W/out")" no-signature
check "a swap image file: status 10 + reason (no-signature is 2)" "$rc" 12

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
