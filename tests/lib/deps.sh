#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages the build and the tests need, only when missing.
set -euo pipefail
pkgs=(gnu-efi gcc-multilib qemu-system-x86 ovmf ovmf-ia32 mtools gdisk dosfstools busybox-static cpio
      libcmocka-dev liblzo2-dev liblz4-dev zlib1g-dev clang libclang-rt-14-dev xz-utils binutils
      e2fsprogs util-linux libssl-dev libargon2-dev cryptsetup-bin mmdebstrap lintian xfsprogs btrfs-progs lvm2 dmsetup efibootmgr python3-cryptography
      flex bison bc libelf-dev sbsigntool efitools mokutil
      swtpm swtpm-tools tpm2-tools libtss2-dev
      libefiboot-dev libefivar-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# 32-bit packages (busybox-static:i386, the 686 kernels) are only downloaded, never installed,
# but apt must know the architecture.
need_update=0
if ! dpkg --print-foreign-architectures | grep -qx i386; then
	dpkg --add-architecture i386
	need_update=1
fi
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "deps: need root to install: ${missing[*]}" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	[ ${#missing[@]} -gt 0 ] && apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
exit 0
