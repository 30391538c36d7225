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
# only what an x86_64 build of this configuration reads: every Kconfig and Makefile (kconfig
# parses them all, other architectures' too), no documentation but its Kconfig, no sources or
# device trees of other architectures, no sources of the subsystems it does not build (a file
# of them wanted would fail the build, not change it)
top=$(basename "$tarball" .tar.xz)
excl=("$top/Documentation/[!K]*" "$top/tools/perf" "$top/tools/testing" "$top/tools/power")
for a in alpha arc arm arm64 csky hexagon loongarch m68k microblaze mips nios2 openrisc parisc \
	 powerpc riscv s390 sh sparc um xtensa; do
	excl+=("$top/arch/$a/*.[chS]" "$top/arch/$a/*.dts" "$top/arch/$a/*.dtsi" "$top/arch/$a/*.dtso")
done
for d in sound net drivers/gpu drivers/net drivers/media drivers/staging drivers/infiniband \
	 drivers/accel drivers/iio drivers/scsi drivers/usb drivers/pinctrl drivers/clk drivers/crypto \
	 drivers/md drivers/soc drivers/phy drivers/mmc drivers/mtd drivers/hwmon drivers/platform \
	 drivers/hid drivers/input drivers/thermal drivers/misc fs/bcachefs fs/xfs fs/btrfs fs/ext4 \
	 fs/ocfs2 fs/smb fs/nfs fs/f2fs fs/ntfs3; do
	excl+=("$top/$d/*.[chS]" "$top/$d/*.rst" "$top/$d/*.txt")
done
tar -xJf "$tarball" -C "$out/src" --strip-components=1 --anchored "${excl[@]/#/--exclude=}"
[ -f "$out/src/Makefile" ] && [ -f "$out/src/arch/x86/Kconfig" ] || die "$(basename "$tarball"): not unpacked as $top/"
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
# and every "# CONFIG_X is not set" of it is not set (something selecting X would keep it)
while read -r line; do
	case $line in
	'# CONFIG_'*' is not set')
		sym=${line#'# '}; sym=${sym%' is not set'}
		! grep -q "^$sym=" "$out/src/.config" || { echo "config: $sym still set" >&2; bad=1; } ;;
	''|'#'*) ;;
	*) grep -qxF "$line" "$out/src/.config" || { echo "config: $line not in .config" >&2; bad=1; } ;;
	esac
done < "$series/config"
[ $bad = 0 ] || die "config fragment not fully applied"
say "kernel-$hash: make -j$jobs bzImage (log: $log)"
kmake -j"$jobs" bzImage || { tail -30 "$log" >&2; die "kernel build failed (see $log)"; }
end=$(date +%s)
# the CPU time of everything it ran (tar, make and the compilers: the children waited for,
# user + sys, /proc/PID/stat fields 16 and 17 in clock ticks)
read -r -a st < "/proc/$BASHPID/stat"
cpu=$(( (st[15] + st[16]) / $(getconf CLK_TCK) ))
cp "$out/src/arch/x86/boot/bzImage" "$out/bzImage.tmp"
cp "$out/src/.config" "$out/config"
echo "unpack+patch $((t_unpacked - start))s, config+build $((end - t_unpacked))s, -j$jobs, $(nproc) cpus, cpu ${cpu}s (user+sys), $(grep -c '^  CC ' "$log") C files" > "$out/time"
[ $keep = 1 ] || rm -rf "$out/src"
mv "$out/bzImage.tmp" "$out/bzImage"
say "kernel-$hash: $(cat "$out/time")"
echo "$out/bzImage"
