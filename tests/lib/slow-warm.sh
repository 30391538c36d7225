#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Is the slow tier (tests/e2e/cases-slow) warm, that is, is what it needs in the cache
# already? Exit 0 if so; otherwise prints what is missing and exits 1. `make test` runs the
# slow tier only when warm; `make test-slow` builds what is missing.
#   - the patched 6.12 test kernel for the current series (tests/lib/kernel-build.sh --dir);
#   - a built Debian 13 root filesystem (tests/lib/debian13.sh, $CACHE/debian13/rootfs-*.done);
#   - the installer-layout disks of the current recipe (tests/lib/debian13-vol.sh,
#     $CACHE/debian1N-vol/<key>-<layout>/.done): Debian 13 lvm, crypt-lvm, btrfs; Debian 12
#     crypt-lvm;
#   - the Secure Boot installer guest's tree of the current recipe (tests/lib/guestinst.sh,
#     $CACHE/guestinst/rootfs-<key>.done).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
missing=()
kdir=$("$here/kernel-build.sh" --dir 2>/dev/null || true)
[ -n "$kdir" ] && [ -f "$kdir/bzImage" ] || missing+=("the test kernel (make kernel)")
compgen -G "$CACHE/debian13/rootfs-*.done" >/dev/null || missing+=("the Debian 13 system (tests/lib/debian13.sh)")
# the installer layouts' disks of the current recipe (made by an installer boot, 10+ min)
for l in 13/lvm 13/crypt-lvm 13/btrfs 12/crypt-lvm; do
	[ -f "$(EFIRESUME_DEBIAN=${l%/*} bash "$here/debian13-vol.sh" --dir ${l#*/})/.done" ] ||
		missing+=("the Debian ${l%/*} ${l#*/} disk (tests/lib/debian13-vol.sh)")
done
[ -f "$(bash "$here/guestinst.sh" --key 2>/dev/null).done" ] ||
	missing+=("the Secure Boot installer guest (tests/lib/guestinst.sh)")
[ ${#missing[@]} -eq 0 ] && exit 0
echo "not in the cache ($CACHE): ${missing[*]}"
exit 1
