#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the efiresume test kernel: Debian's linux-source-6.12 (bookworm-backports) with the
# series kernel-patch/6.12/*.patch, configured by `make tinyconfig` + kernel-patch/6.12/config.
#   kernel-build.sh [--unpatched] [--keep]   -> prints the path of bzImage
#   kernel-build.sh [--unpatched] --dir      -> prints the cache directory only (no build)
#   env: EFIRESUME_CACHE (cache), KERNEL_JOBS (make -j, default 2)
# Result: $CACHE/kernel-<hash>/{bzImage,config,build.log,time}; <hash> covers the source
# package, the patches, the fragment and this script, so any change gives a new directory.
# --unpatched builds without the series (catches config problems apart from the patches).
# --keep keeps the tree and objects in $CACHE/kernel-<hash>/src (default: deleted).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

unpatched=0 keep=0 dironly=0
for a in "$@"; do
	case $a in
	--unpatched) unpatched=1 ;;
	--keep) keep=1 ;;
	--dir) dironly=1 ;;
	*) die "kernel-build.sh: unknown argument $a" ;;
	esac
done
jobs=${KERNEL_JOBS:-2}
series=$TOP/kernel-patch/6.12
patches=()
[ $unpatched = 1 ] || mapfile -t patches < <(ls "$series"/*.patch 2>/dev/null | sort)

src_pkg=$("$here/fetch.sh" linux-source-6.12 backports)
tarball=$(ls "$src_pkg"/usr/src/linux-source-6.12.tar.xz)
deb=$(ls "$CACHE"/debs/linux-source-6.12_*.deb | sort | tail -1)

hash=$( { echo "deb $(basename "$deb")"; echo "unpatched $unpatched"
	  for p in "${patches[@]}"; do echo "patch $(basename "$p")"; cat "$p"; done
	  cat "$series/config" "$0"; } | sha256sum | cut -c1-16)
out=$CACHE/kernel-$hash
if [ $dironly = 1 ]; then echo "$out"; exit 0; fi
if [ -f "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi

mkdir -p "$out"
exec 8> "$out/.lock"
flock 8
if [ -f "$out/bzImage" ]; then echo "$out/bzImage"; exit 0; fi

start=$(date +%s)
say "kernel-$hash: unpacking $(basename "$tarball")"
rm -rf "$out/src"; mkdir -p "$out/src"
tar -xJf "$tarball" -C "$out/src" --strip-components=1
for p in "${patches[@]}"; do
	say "applying $(basename "$p")"
	patch -p1 -d "$out/src" --no-backup-if-mismatch -s < "$p" || die "$(basename "$p") does not apply"
done
t_unpacked=$(date +%s)
log=$out/build.log
kmake() { make -C "$out/src" ARCH=x86_64 "$@" >> "$log" 2>&1; }
: > "$log"
kmake tinyconfig || die "tinyconfig failed (see $log)"
(cd "$out/src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m .config "$series/config") >> "$log" 2>&1 \
	|| die "merge_config failed (see $log)"
kmake olddefconfig || die "olddefconfig failed (see $log)"
# every setting of the fragment must have survived olddefconfig (a dependency missing drops it silently)
bad=0
while read -r line; do
	case $line in ''|'#'*) continue ;; esac
	grep -qxF "$line" "$out/src/.config" || { echo "config: $line not in .config" >&2; bad=1; }
done < "$series/config"
[ $bad = 0 ] || die "config fragment not fully applied"
say "kernel-$hash: make -j$jobs bzImage (log: $log)"
kmake -j"$jobs" bzImage || { tail -30 "$log" >&2; die "kernel build failed (see $log)"; }
end=$(date +%s)
cp "$out/src/arch/x86/boot/bzImage" "$out/bzImage.tmp"
cp "$out/src/.config" "$out/config"
echo "unpack+patch $((t_unpacked - start))s, config+build $((end - t_unpacked))s, -j$jobs, $(nproc) cpus" > "$out/time"
[ $keep = 1 ] || rm -rf "$out/src"
mv "$out/bzImage.tmp" "$out/bzImage"
say "kernel-$hash: $(cat "$out/time")"
echo "$out/bzImage"
