# SPDX-License-Identifier: GPL-2.0-or-later
# The Secure Boot installer guest of tests/e2e/secboot-guest-install.sh (issue 17 item 1): a
# small Debian 13 "trixie" tree (mmdebstrap --variant=minbase) with Debian's signed kernel,
# initramfs-tools, efibootmgr, mokutil, sbsigntool, efitools, openssl, binutils (objcopy:
# efiresume-install reads shim's vendor certificate with it), shim-signed,
# shim-helpers-amd64-signed and grub-efi-amd64-signed. No systemd: the kernel runs
# /usr/local/sbin/efiresume-guest as init (after the initramfs mounted the root), which
# mounts efivarfs, runs the script QEMU hands over as fw_cfg opt/efiresume/script and
# powers off. Cached in $CACHE/guestinst/rootfs-<key> (a hash of this recipe).
#   gi_tree        builds or reuses the tree; sets GI_TREE
. "$(dirname "${BASH_SOURCE[0]}")/debian13.sh"  # deb13_sources, _deb_hook_essential, DEB_EXCLUDES

GI_TOP=$CACHE/guestinst
GI_PACKAGES=linux-image-amd64,initramfs-tools,zstd,kmod,udev,util-linux,mount,e2fsprogs,efibootmgr,mokutil,sbsigntool,efitools,openssl,binutils,shim-signed,shim-helpers-amd64-signed,grub-efi-amd64-signed

# the init of every boot (runs as PID 1 with the root mounted read-only by the initramfs)
_gi_init() {
	cat <<'INIT'
#!/bin/bash
# efiresume test guest: init= after initramfs-tools mounted the root
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
say() { printf 'EFIRESUME-TEST: %s\n' "$*"; }
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mountpoint -q /run || mount -t tmpfs tmpfs /run
mount -o remount,rw /
mount -t tmpfs tmpfs /tmp
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
modprobe qemu_fw_cfg
say "guest up: $(uname -r), cmdline $(cat /proc/cmdline)"
fw=/sys/firmware/qemu_fw_cfg/by_name/opt/efiresume
mkdir -p /run/in
for f in "$fw"/*; do [ -e "$f/raw" ] && cat "$f/raw" > "/run/in/${f##*/}"; done
if [ -s /run/in/script ]; then
	bash /run/in/script 2>&1
	say "script exit status $?"
else
	say "no script"
fi
sync
umount /boot/efi 2>/dev/null
mount -o remount,ro / 2>/dev/null
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 30
INIT
}

_gi_hook_customize() {
	local root=$1
	echo efiresume-guest > "$root/etc/hostname"
	mkdir -p "$root/boot/efi" "$root/usr/local/sbin"
	_gi_init > "$root/usr/local/sbin/efiresume-guest"
	chmod 755 "$root/usr/local/sbin/efiresume-guest"
	cat > "$root/etc/fstab" <<FSTAB
PARTUUID=$DEB_ROOT_PARTUUID / ext4 errors=remount-ro 0 1
FSTAB
	local v
	v=$(ls "$root"/lib/modules | head -1)
	[ -f "$root/boot/initrd.img-$v" ] || { echo "no initrd for $v" >&2; return 1; }
	[ -f "$root/usr/lib/shim/shimx64.efi.signed" ] && [ -f "$root/usr/lib/shim/mmx64.efi.signed" ] &&
		[ -f "$root/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ] ||
		{ echo "shim, MokManager or signed grub missing" >&2; return 1; }
}

_gi_rootfs() {
	local out=$1 debs=$GI_TOP/debs opts=() p src rc
	mkdir -p "$debs"
	src=$(mktemp -d)
	deb13_sources "$src/debian.sources" || return 1
	for p in $DEB_EXCLUDES; do opts+=(--dpkgopt="path-exclude=$p" --dpkgopt="path-exclude=/usr$p"); done
	nice mmdebstrap --variant=minbase --include="$GI_PACKAGES" "${opts[@]}" \
		--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"; cp $debs/*.deb \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
		--essential-hook="bash $TOP/tests/lib/guestinst.sh --hook essential \"\$1\"" \
		--customize-hook="bash $TOP/tests/lib/guestinst.sh --hook customize \"\$1\"" \
		--customize-hook="cp -u \"\$1\"/var/cache/apt/archives/*.deb $debs/ 2>/dev/null || true" \
		trixie "$out" "$src/debian.sources"
	rc=$?
	rm -rf "$src"
	return $rc
}

_gi_key() {
	{ echo "$GI_PACKAGES $DEB_EXCLUDES $DEB_ROOT_PARTUUID $DEB_SWAP_UUID"
	  declare -f _deb_hook_essential _gi_hook_customize _gi_init _gi_rootfs; } | md5sum | cut -c1-12
}

gi_tree() {
	mkdir -p "$GI_TOP"
	(
		flock 9
		_gi_tree_locked
	) 9> "$GI_TOP/.lock" || return 1
	GI_TREE=$GI_TOP/rootfs-$(_gi_key)
}

_gi_tree_locked() {
	local tree t0 t1 t
	tree=$GI_TOP/rootfs-$(_gi_key)
	[ -f "$tree.done" ] && { cache_used "$tree"; return 0; }
	say "guestinst: mmdebstrap trixie (minbase + shim, MokManager, grub, mokutil, efitools) into $tree"
	rm -rf "$tree" "$tree.done"
	t0=$(date +%s.%N)
	_gi_rootfs "$tree" > "$tree.log" 2>&1 ||
		{ echo "  mmdebstrap failed: see $tree.log"; tail -20 "$tree.log"; return 1; }
	t1=$(date +%s.%N)
	echo "rootfs_seconds=$(fmt_secs "$t0" "$t1")" > "$tree.done"
	say "guestinst: rootfs in $(fmt_secs "$t0" "$t1") s, $(du -sm "$tree" | cut -f1) MiB"
	# older trees of other recipes
	for t in "$GI_TOP"/rootfs-*.done; do
		t=${t%.done}
		[ "$t" = "$tree" ] || cache_prune "$t"
	done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	--hook)
		set -e
		case $2 in
		essential) _deb_hook_essential "$3" ;;
		customize) _gi_hook_customize "$3" ;;
		*) exit 2 ;;
		esac ;;
	--tree) gi_tree && echo "$GI_TREE" ;;
	--key) echo "$GI_TOP/rootfs-$(_gi_key)" ;;
	esac
fi
