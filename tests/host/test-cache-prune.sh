#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache is shared by every clone on a machine: a recipe that finishes a build removes the
# builds of other recipes (tests/lib/common.sh cache_prune), but not one another run used in
# the last CACHE_KEEP_HOURS. Seen before: a branch's Debian 13 volume build deleted the tree
# and disks main's run was copying. Here with guestinst.sh's real tree step (the mmdebstrap
# replaced by a mkdir) in a scratch cache:
#  - an old build of another recipe (2 days, never used since) is removed;
#  - another recipe's tree used an hour ago (its .used stamp) is kept;
#  - this recipe's tree is built and kept, and its reuse renews its stamp;
#  - control: CACHE_KEEP_HOURS=0 removes the used one too (the old behaviour).
#   tests/host/test-cache-prune.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

# run KEEP-HOURS: a fresh cache with two other recipes' trees, then this recipe's tree step
run() {
	local c=$t/cache-$1
	mkdir -p "$c/guestinst/rootfs-old0" "$c/guestinst/rootfs-used1"
	echo x > "$c/guestinst/rootfs-old0.done"; echo x > "$c/guestinst/rootfs-used1.done"
	touch -d '2 days ago' "$c/guestinst/rootfs-old0" "$c/guestinst/rootfs-old0.done" \
		"$c/guestinst/rootfs-used1" "$c/guestinst/rootfs-used1.done"
	touch -d '1 hour ago' "$c/guestinst/rootfs-used1.used"
	EFIRESUME_CACHE=$c CACHE_KEEP_HOURS=$1 bash -c '
		. "$1/tests/lib/guestinst.sh"
		_gi_key() { echo new2; }
		_gi_rootfs() { mkdir -p "$1/boot"; }
		_gi_tree_locked && _gi_tree_locked' _ "$top" > "$t/run-$1.log" 2>&1
	echo "$c/guestinst"
}

g=$(run 24)
check "the build of this recipe is there" '[ -f "$g/rootfs-new2.done" ] && [ -d "$g/rootfs-new2" ]'
check "an old build of another recipe (2 days, unused) removed" '[ ! -e "$g/rootfs-old0" ] && [ ! -e "$g/rootfs-old0.done" ]'
check "another recipe's tree used an hour ago kept" '[ -d "$g/rootfs-used1" ] && [ -f "$g/rootfs-used1.done" ]'
check "its keeping said" 'grep -q "rootfs-used1 kept (another recipe.s, used in the last 24 h)" "$t/run-24.log"'
check "the reuse of this recipe's tree renews its stamp" '[ -n "$(find "$g/rootfs-new2.used" -mmin -5 2>/dev/null)" ]'
g=$(run 0)
check "control, CACHE_KEEP_HOURS=0: the used tree removed too" '[ ! -e "$g/rootfs-used1" ] && [ -d "$g/rootfs-new2" ]'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
