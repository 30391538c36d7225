# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian installer's guided layouts on a real installed Debian system (issue 16), for
# tests/e2e/debian13.sh lvm, crypt-lvm and btrfs; Debian 13 "trixie" by default, Debian 12
# "bookworm" with EFIRESUME_DEBIAN=12 (same recipe, its own cache, $CACHE/debian12-vol):
#   lvm        GPT: 1 ESP, 2 one LVM PV; VG efiresume-debian-vg with LVs root (ext4)
#              and swap_1, as "Guided - use entire disk and set up LVM" makes them
#   crypt-lvm  the same VG inside LUKS2 on partition 2 with cryptsetup's defaults (the
#              installer passes none: argon2id, aes-xts-plain64, 512-bit key), named
#              vda2_crypt in /etc/crypttab; cryptsetup-initramfs asks for the passphrase
#   btrfs      GPT: 1 ESP, 2 Btrfs (the installer's Btrfs root: subvolume @rootfs), no swap
#              partition; a swap file made the Btrfs way as a user adds one afterwards
#              (btrfs subvolume create /swap, btrfs filesystem mkswapfile), its resume_offset
#              from btrfs inspect-internal map-swapfile -r on the kernel's command line
#              (resume=UUID=<fs> resume_offset=N) and in initramfs-tools' conf.d/resume
# The host has no device-mapper and no loop devices, so the layout is made in a guest:
#   1. a second tree: the fixture's mmdebstrap recipe (same hooks) plus lvm2, cryptsetup,
#      cryptsetup-initramfs, btrfs-progs ($CACHE/debian1N-vol/rootfs-<key>);
#   2. an "installer" boot of that tree (its kernel by -kernel under OVMF, root an ext4
#      image of the tree, opened copy-on-write; the same image read-only as the source):
#      luksFormat, pvcreate, vgcreate, lvcreate, mkswap, mkfs.ext4 (or mkfs.btrfs and the
#      subvolumes), the tree copied into the root, fstab/crypttab/initramfs resume written,
#      update-initramfs run in the chroot with the volumes open (so the hooks see them, as in
#      the installer's in-target step), kernel and initrd put on the ESP, and efibootmgr -c
#      making the firmware's Boot#### "Debian" for the new disk (the guest's own variables file).
#   The result, $CACHE/debian1N-vol/<key>-<layout>/{disk.raw,vars.fd,facts,.done}, is
#   keyed by a hash of all of its inputs; a test only copies it (deb_new).
#   d13v_fixture LAYOUT     builds or reuses it; sets DEB_DIR (deb_new/deb_boot work)
#   d13v_boot DIR NAME TIMEOUT SCRIPT TYPIST [QEMU-ARG...]: deb_boot with the serial console on a pipe
#                           pair; TYPIST (a command, "" for none) runs as `TYPIST LOG`
#                           and what it prints is typed into the console
# (mmdebstrap's hooks of a Debian 12 tree run "bash debian13-vol.sh --debian12 --hook ...")
[ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --debian12 ] && { EFIRESUME_DEBIAN=12; shift; }
DEBV_RELEASE=${EFIRESUME_DEBIAN:-13}
case $DEBV_RELEASE in
13)
	. "$(dirname "${BASH_SOURCE[0]}")/debian13.sh"
	DEBV_LIB=$TOP/tests/lib/debian13.sh DEBV_SUITE=trixie DEBV_DEBS=$CACHE/debian13/debs
	# systemd-cryptenroll --tpm2-device= (tests/e2e/tpm.sh): trixie moved it to
	# systemd-cryptsetup (with libcryptsetup's systemd-tpm2 token plugin); systemd dlopens
	# the TSS2 libraries, which nothing depends on
	DEBV_TPM=systemd-cryptsetup,libtss2-esys-3.0.2-0t64,libtss2-rc0t64,libtss2-mu-4.0.1-0t64 ;;
12)
	DEB_TIMEOUT=${DEB_TIMEOUT:-1200}
	. "$(dirname "${BASH_SOURCE[0]}")/debian.sh"
	DEBV_LIB="$TOP/tests/lib/debian13-vol.sh --debian12" DEBV_SUITE=bookworm DEBV_DEBS=$CACHE/debian/debs
	# systemd 252 has no systemd.default_device_timeout_sec= (254 has; the line below is
	# ignored): on a loaded host the ESP's device outlasted its 90 s, the installer boot went
	# to emergency mode ("Job dev-disk-by\x2duuid-3A7E\x2d51C... (1min 35s / 1min 30s)") and
	# waited there until QEMU's timeout. Its system.conf setting instead, in the tree (the
	# installer copies it to the target): debian.sh's customize hook, then the drop-in
	eval "_d13v_customize12() $(declare -f _deb_hook_customize | tail -n +2)"
	_deb_hook_customize() {
		_d13v_customize12 "$1" || return
		mkdir -p "$1/etc/systemd/system.conf.d"
		printf '[Manager]\nDefaultDeviceTimeoutSec=900\n' > "$1/etc/systemd/system.conf.d/efiresume-test.conf"
	}
	# as on Debian 13 (tests/lib/debian13.sh): udev's waits on a loaded host, modules
	# this guest cannot use
	DEB_CMDLINE="$DEB_CMDLINE systemd.default_device_timeout_sec=900 modprobe.blacklist=kvm_amd,kvm_intel,kvm,ahci,libata,parport_pc,ppdev" ;;
*)
	echo "debian13-vol.sh: EFIRESUME_DEBIAN=$DEBV_RELEASE: 12 or 13" >&2; exit 2 ;;
esac

D13V_TOP=$CACHE/debian$DEBV_RELEASE-vol
D13V_PACKAGES="$DEB_PACKAGES,lvm2,cryptsetup,cryptsetup-initramfs,btrfs-progs${DEBV_TPM:+,$DEBV_TPM}"
D13V_VG=efiresume-debian-vg                 # the installer's "<hostname>-vg"
D13V_VGM=efiresume--debian--vg              # the same in /dev/mapper names
D13V_CRYPT=vda2_crypt                       # the installer's "<partition>_crypt"
D13V_PASS='efiresume trixie 13'             # the LUKS passphrase (tests only)
D13V_LUKS_UUID=7d3e9a10-4c2b-4f1e-9a8d-5b6c7d8e9f01
D13V_PV_PARTUUID=6b1c4e24-5a3d-4c8f-9e71-0d2f3a4b5c6d
D13V_SWAP_MB=1024
D13V_SWAPFILE_MB=512                        # btrfs: the swap file
# AES-NI, as on the machines the installer runs on (QEMU's TCG has it): the kernel's dm-crypt
# and efiresume's AES-XTS use it (without it efiresume reads an image 13x slower)
# (with SSSE3 and SSE4.1, which aesni_intel also uses: with +aes alone its self-test hit an
# invalid opcode, pshufb, and dm-crypt failed with "Error allocating crypto tfm (-ETIMEDOUT)")
D13V_QEMU_CPU=${D13V_QEMU_CPU:-$DEB_QEMU_CPU,+aes,+pclmulqdq,+ssse3,+sse4.1,+sse4.2}
D13V_CMDLINE="root=/dev/mapper/$D13V_VGM-root ro console=ttyS0,115200 panic=-1 ${DEB_CMDLINE#*panic=-1 }"

# _d13v_rootfs DIR: the fixture's tree plus the volume tools (the packages downloaded
# for the fixture's tree are offered to apt first; new ones kept in $D13V_TOP/debs)
_d13v_rootfs() {
	local out=$1 debs=$D13V_TOP/debs opts=() p src
	mkdir -p "$debs"
	src=$(mktemp -d)
	if [ "$DEBV_RELEASE" = 13 ]; then
		deb13_sources "$src/debian.sources" || return 1
	else
		cp /etc/apt/sources.list.d/debian.sources "$src/debian.sources" || return 1
	fi
	sed 's/^/  sources: /' "$src/debian.sources"
	for p in $DEB_EXCLUDES; do opts+=(--dpkgopt="path-exclude=$p" --dpkgopt="path-exclude=/usr$p"); done
	nice mmdebstrap --variant=minbase --include="$D13V_PACKAGES" "${opts[@]}" \
		--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"; cp $DEBV_DEBS/*.deb $debs/*.deb \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
		--essential-hook="bash $DEBV_LIB --hook essential \"\$1\"" \
		--customize-hook="bash $DEBV_LIB --hook customize \"\$1\"" \
		--customize-hook="cp -u \"\$1\"/var/cache/apt/archives/*.deb $debs/ 2>/dev/null || true" \
		$DEBV_SUITE "$out" "$src/debian.sources"
	local rc=$?
	rm -rf "$src"
	return $rc
}

_d13v_key_rootfs() {
	{ echo "$D13V_PACKAGES $DEB_EXCLUDES $DEBV_RELEASE $DEBV_SUITE $DEB_CMDLINE"; declare -f _deb_hook_essential _deb_hook_customize _d13v_customize12 _d13v_rootfs
	  cat "$DEB_GUEST/agent" "$DEB_GUEST/efiresume-test-agent.service" "$DEB_GUEST/sleep-hook" |
		grep -v 'SPDX-License-Identifier:'
	  echo "$DEB_SWAP_UUID $DEB_ROOT_UUID $DEB_ESP_SERIAL"; } | md5sum | cut -c1-12
}

# d13v_tree: builds or reuses the tree (under $D13V_TOP/.lock); sets D13V_TREE
d13v_tree() {
	mkdir -p "$D13V_TOP"
	(
		flock 9
		_d13v_tree_locked
	) 9> "$D13V_TOP/.lock" || return 1
	D13V_TREE=$D13V_TOP/rootfs-$(_d13v_key_rootfs)
}

_d13v_tree_locked() {
	local kr tree t0 t1
	kr=$(_d13v_key_rootfs)
	tree=$D13V_TOP/rootfs-$kr
	[ -f "$tree.done" ] && return 0
	say "debian$DEBV_RELEASE-vol: mmdebstrap $DEBV_SUITE (+ lvm2 cryptsetup cryptsetup-initramfs btrfs-progs) into $tree"
	rm -rf "$tree" "$tree.done"
	t0=$(date +%s.%N)
	_d13v_rootfs "$tree" > "$tree.log" 2>&1 ||
		{ echo "  mmdebstrap failed: see $tree.log"; tail -20 "$tree.log"; return 1; }
	t1=$(date +%s.%N)
	echo "rootfs_seconds=$(fmt_secs "$t0" "$t1")" > "$tree.done"
	say "debian$DEBV_RELEASE-vol: rootfs in $(fmt_secs "$t0" "$t1") s, $(du -sm "$tree" | cut -f1) MiB"
}


# _d13v_disk TREE LAYOUT OUT SRC: OUT, the target disk: GPT, 1 ESP (FAT32, empty \EFI\debian),
# 2 the rest (type Linux LVM, or Linux filesystem under LUKS as the installer leaves it);
# SRC, the tree as an ext4 image (the installer's root and its source)
_d13v_disk() {
	local tree=$1 layout=$2 out=$3 src=$4 root_mb p2_mb type
	root_mb=$(( $(du -sm "$tree" | cut -f1) * 13 / 10 + 256 ))
	# the root LV, swap_1, LVM metadata and extent rounding, the LUKS2 header (16 MiB);
	# btrfs: the root, the swap file and room for Btrfs' metadata (DUP) chunks
	p2_mb=$(( root_mb + D13V_SWAP_MB + 40 ))
	case $layout in
	lvm) type=8e00 ;;
	crypt-lvm) type=8300 ;;
	btrfs) type=8300 p2_mb=$(( root_mb + D13V_SWAPFILE_MB + 384 )) ;;
	esac
	rm -f "$out" "$src"
	truncate -s "$(( DEB_ESP_START / 2048 + DEB_ESP_MB + p2_mb + 1 ))M" "$out"
	sgdisk -U $DEB_DISK_GUID \
		-n1:$DEB_ESP_START:+${DEB_ESP_MB}M -t1:ef00 -u1:$DEB_ESP_PARTUUID -c1:ESP \
		-n2:0:0 -t2:$type -u2:$D13V_PV_PARTUUID "$out" >/dev/null
	mformat -i "$out@@$((DEB_ESP_START * 512))" -F -T $((DEB_ESP_MB * 2048)) -N $DEB_ESP_SERIAL -v ESP ::
	mmd -i "$out@@$((DEB_ESP_START * 512))" ::/EFI ::/EFI/debian
	truncate -s "${root_mb}M" "$src"
	mke2fs -q -F -t ext4 -U $DEB_ROOT_UUID -L root -d "$tree" "$src"
	echo "$root_mb"
}

# _d13v_install_script LAYOUT ROOT_MB: the installer's commands (bash in the guest, after
# tests/e2e/debian/lib.sh); vda: the tree (copy-on-write), vdb: the target, vdc: the tree
_d13v_install_script() {
	local layout=$1 root_mb=$2
	cat <<EOF
LAYOUT=$layout ROOT_MB=$root_mb VG=$D13V_VG VGM=$D13V_VGM CRYPT=$D13V_CRYPT
LUKS_UUID=$D13V_LUKS_UUID SWAP_UUID=$D13V_SWAP_UUID LVROOT_UUID=$D13V_ROOT_UUID
ESP_UUID=${DEB_ESP_SERIAL:0:4}-${DEB_ESP_SERIAL:4:4} SWAPFILE_MB=$D13V_SWAPFILE_MB
CMDLINE='$D13V_CMDLINE'
CMDLINE_TAIL='${D13V_CMDLINE#root=* }'
EOF
	cat <<'EOF'
set -eo pipefail
trap 'say "installer: FAILED at line $LINENO: $BASH_COMMAND"' ERR
say "installer: $(uname -r); $(lsblk -ndo NAME,SIZE | paste -sd' ')"
[ "$(blkid -o value -s TYPE /dev/vdb1)" = vfat ] && [ "$(blkid -o value -s TYPE /dev/vdc)" = ext4 ]
if [ $LAYOUT = btrfs ]; then
	# the installer's Btrfs root: the file system on the partition, the system in @rootfs
	modprobe btrfs
	mkfs.btrfs -q -f -U $LVROOT_UUID -L root /dev/vdb2
	mkdir -p /target /src
	mount /dev/vdb2 /target
	btrfs subvolume create /target/@rootfs
	umount /target
	mount -o subvol=@rootfs /dev/vdb2 /target
else
	if [ $LAYOUT = crypt-lvm ]; then
		# the installer passes no cipher, key size or PBKDF: cryptsetup's defaults
		printf %s "$(cat $IN/pass)" | cryptsetup luksFormat --batch-mode --type luks2 --uuid $LUKS_UUID --key-file - /dev/vdb2
		cryptsetup luksDump /dev/vdb2 | sed 's/^/EFIRESUME-TEST: luksdump: /'
		# under TCG the kernel's AES-XTS self-tests can outlast the crypto API's 60 s wait
		# ("crypt: Error allocating crypto tfm (-ETIMEDOUT)", seen here): loaded first, retried
		modprobe -a dm_crypt xts aesni_intel 2>/dev/null || true
		for i in 1 2 3; do
			printf %s "$(cat $IN/pass)" | cryptsetup open --key-file - /dev/vdb2 $CRYPT && break
			say "installer: cryptsetup open failed (try $i)"
			[ $i = 3 ] && false
			sleep 5
		done
		pv=/dev/mapper/$CRYPT
	else
		pv=/dev/vdb2
	fi
	pvcreate -y $pv
	vgcreate $VG $pv
	lvcreate -y -n root -L ${ROOT_MB}M $VG
	lvcreate -y -n swap_1 -l 100%FREE $VG
	lvs -o lv_name,lv_size,seg_pe_ranges --noheadings $VG | sed 's/^/EFIRESUME-TEST: lvs: /'
	# "0 SECTORS linear MAJ:MIN START": where swap_1 starts in the PV's device
	say "swap-lv-start=$(dmsetup table $VGM-swap_1 | awk '$3 == "linear" { print $5 }')"
	mkswap -U $SWAP_UUID /dev/mapper/$VGM-swap_1
	mkfs.ext4 -q -F -U $LVROOT_UUID /dev/mapper/$VGM-root
	mkdir -p /target /src
	mount /dev/mapper/$VGM-root /target
fi
mount -o ro,noload /dev/vdc /src
t0=$(cut -d' ' -f1 /proc/uptime)
cp -a /src/. /target/
say "installer: tree copied in $(awk -v t=$t0 '{ print $1 - t }' /proc/uptime) s ($(du -sm /target | cut -f1) MiB)"
umount /src
if [ $LAYOUT = btrfs ]; then
	# a swap file the Btrfs way (btrfs(5) SWAPFILE SUPPORT): in a subvolume of its own (no
	# snapshot of / can include it), NOCOW and preallocated by mkswapfile; the kernel's
	# resume_offset from map-swapfile -r (the file's first page on the device, in pages)
	btrfs subvolume create /target/swap
	btrfs filesystem mkswapfile --size ${SWAPFILE_MB}m /target/swap/swapfile
	OFF=$(btrfs inspect-internal map-swapfile -r /target/swap/swapfile)
	say "swapfile-offset=$OFF"
	say "swapfile-map=$(btrfs inspect-internal map-swapfile /target/swap/swapfile | tr -s ' \t' ' ' | paste -sd';')"
	cat > /target/etc/fstab <<EOT
# <file system> <mount point> <type> <options> <dump> <pass>
UUID=$LVROOT_UUID / btrfs defaults,subvol=@rootfs 0 0
UUID=$ESP_UUID /boot/efi vfat umask=0077 0 1
/swap/swapfile none swap defaults 0 0
EOT
	printf 'RESUME=UUID=%s\nRESUME_OFFSET=%s\n' $LVROOT_UUID $OFF > /target/etc/initramfs-tools/conf.d/resume
	# the root file system's module (the fixture's initramfs lists its modules)
	echo btrfs >> /target/etc/initramfs-tools/modules
	CMDLINE="root=UUID=$LVROOT_UUID rootflags=subvol=@rootfs $CMDLINE_TAIL resume=UUID=$LVROOT_UUID resume_offset=$OFF"
else
	cat > /target/etc/fstab <<EOT
# <file system> <mount point> <type> <options> <dump> <pass>
/dev/mapper/$VGM-root / ext4 errors=remount-ro 0 1
UUID=$ESP_UUID /boot/efi vfat umask=0077 0 1
/dev/mapper/$VGM-swap_1 none swap sw 0 0
EOT
	if [ $LAYOUT = crypt-lvm ]; then
		echo "$CRYPT UUID=$LUKS_UUID none luks,discard" > /target/etc/crypttab
	fi
	echo "RESUME=/dev/mapper/$VGM-swap_1" > /target/etc/initramfs-tools/conf.d/resume
fi
for m in dev dev/pts proc sys sys/firmware/efi/efivars run; do mount --bind /$m /target/$m; done
mountpoint -q /boot/efi && umount /boot/efi
mount /dev/vdb1 /target/boot/efi
v=$(ls /target/lib/modules | head -1)
chroot /target update-initramfs -u -k $v 2>&1 | sed 's/^/EFIRESUME-TEST: update-initramfs: /'
chroot /target lsinitramfs /boot/initrd.img-$v > /run/initrd.list
say "initrd-lvm=$(grep -qE '(^|/)s?bin/lvm$' /run/initrd.list && echo yes || echo no)"
say "initrd-dm-mod=$(grep -qE '/dm-mod\.ko' /run/initrd.list && echo yes || echo no)"
say "initrd-cryptroot=$(grep -qE '^cryptroot/crypttab$' /run/initrd.list && echo yes || echo no)"
say "initrd-dm-crypt=$(grep -qE '/dm-crypt\.ko' /run/initrd.list && echo yes || echo no)"
say "initrd-cryptsetup=$(grep -qE '(^|/)s?bin/cryptsetup$' /run/initrd.list && echo yes || echo no)"
say "initrd-resume=$(grep -qE '^conf/conf.d/resume$' /run/initrd.list && echo yes || echo no)"
say "initrd-btrfs=$(grep -qE '/btrfs\.ko' /run/initrd.list && echo yes || echo no)"
cp /target/boot/vmlinuz-$v /target/boot/efi/EFI/debian/vmlinuz.efi
cp /target/boot/initrd.img-$v /target/boot/efi/EFI/debian/initrd.img
efibootmgr -c -d /dev/vdb -p 1 -L Debian -l '\EFI\debian\vmlinuz.efi' \
	-u "initrd=\\EFI\\debian\\initrd.img $CMDLINE" | sed 's/^/EFIRESUME-TEST: efibootmgr: /'
efi_show
sync
umount /target/boot/efi
for m in run sys/firmware/efi/efivars sys proc dev/pts dev; do umount /target/$m; done
umount /target
if [ $LAYOUT != btrfs ]; then
	vgchange -an $VG
	[ $LAYOUT = crypt-lvm ] && cryptsetup close $CRYPT
fi
say "kernel=$v"
say "installer-done=yes"
EOF
}

D13V_SWAP_UUID=2c9d7e43-8b3a-4f6e-a1d5-3e7f9b0c2d14
D13V_ROOT_UUID=2c9d7e44-8b3a-4f6e-a1d5-3e7f9b0c2d14

# _d13v_qemu VARS LOG FWDIR TYPIST [qemu args: the drives, -kernel ...]: one boot with the
# serial console on a pipe pair (LOG.ser.in/.out, qemu.sh's qemu_run_typed); TYPIST as for
# d13v_boot. The guest's files from FWDIR (deb_fwcfg). Sets DEB_RC, DEB_SECS.
_d13v_qemu() {
	local vars=$1 log=$2 fw=$3 typist=$4 t0 t1
	shift 4
	deb_fwcfg "$fw"
	t0=$(date +%s.%N)
	DEB_RC=0
	qemu_run_typed "$log" "${DEB_BOOT_TIMEOUT:-$DEB_TIMEOUT}" "$typist" cpu="$D13V_QEMU_CPU" mem="$DEB_MEM" \
		vars="$vars" "${DEB_FWCFG[@]}" -- "$@" || DEB_RC=$?
	t1=$(date +%s.%N)
	DEB_SECS=$(fmt_secs "$t0" "$t1")
	clean_log "$log" > "$log.txt"
}

# d13v_boot DIR NAME TIMEOUT SCRIPT TYPIST [QEMU-ARG...]: deb_boot (DIR's disk.raw and
# vars.fd) with the serial console typed into by TYPIST; the QEMU-ARGs after the disk (a
# device added there must name its PCI address, or the disk's, which the Boot#### entries
# made by the installer boot name, moves)
d13v_boot() {
	local dir=$1 name=$2 tmo=$3 script=$4 typist=$5
	shift 5
	cp "$script" "$dir/fwcfg/script"
	say "boot $name"
	DEB_BOOT_TIMEOUT=$tmo _d13v_qemu "$dir/vars.fd" "$dir/$name.log" "$dir/fwcfg" "$typist" \
		-drive file="$dir/disk.raw",format=raw,if=virtio,cache=unsafe "$@"
	echo "  $name: QEMU status $DEB_RC after $DEB_SECS s"
	echo "$name=$DEB_SECS" >> "$dir/times"
}

# d13v_type LOG: the typist of d13v_boot, answering what the console asks.
# D13V_ANSWERS: one "REGEX<TAB>TEXT1<TAB>TEXT2..." per question: each time one more line
# of LOG matches REGEX (grep -E), the next TEXT (the last one again when none is left) is
# typed one key at a time, as a user types, then Enter (CR on a serial terminal); TEXT
# "ESC": the Esc key alone; "POWERCUT": the machine's power cut there (this boot's QEMU
# killed with SIGKILL, found by its serial pipe's path). The typed texts are logged in LOG.typed.
d13v_type() {
	local log=$1 i j c t f k
	local -a n
	for i in "${!D13V_ANSWERS[@]}"; do n[i]=0; done
	while :; do
		for i in "${!D13V_ANSWERS[@]}"; do
			IFS=$'\t' read -r -a f <<< "${D13V_ANSWERS[i]}"
			c=$(grep -acE -- "${f[0]}" "$log" 2>/dev/null || true)
			[ "${c:-0}" -gt "${n[i]}" ] || continue
			j=$(( n[i] + 1 )); [ $j -lt ${#f[@]} ] || j=$(( ${#f[@]} - 1 ))
			t=${f[j]}
			n[i]=$(( n[i] + 1 ))
			sleep 0.5
			echo "$(date +%T) /${f[0]}/ #${n[i]}: $t" >> "$log.typed"
			if [ "$t" = ESC ]; then printf '\033'; continue; fi
			if [ "$t" = POWERCUT ]; then pkill -KILL -f -- "path=$log.ser( |$)"; continue; fi
			for ((k = 0; k < ${#t}; k++)); do printf '%s' "${t:$k:1}"; sleep 0.02; done
			printf '\r'
		done
		sleep 0.2
	done
}

_d13v_key_disk() {
	{ _d13v_key_rootfs; declare -f _d13v_disk _d13v_install_script _d13v_install _d13v_qemu deb_fwcfg qemu_argv
	  cat "$DEB_GUEST/lib.sh"
	  echo "$1 $D13V_CMDLINE $DEB_ESP_MB $D13V_SWAP_MB $DEB_MEM $D13V_QEMU_CPU $DEB_DISK_GUID"
	  echo "$DEB_ESP_PARTUUID $D13V_PV_PARTUUID $D13V_VG $D13V_CRYPT $D13V_PASS $D13V_LUKS_UUID"
	  echo "$D13V_SWAP_UUID $D13V_ROOT_UUID"; } | md5sum | cut -c1-12
}

# d13v_dir LAYOUT: where the layout's disk is (or will be) cached
d13v_dir() { echo "$D13V_TOP/$(_d13v_key_disk "$1")-$1"; }

# _d13v_install LAYOUT DIR: the target disk and its variables, by the installer boot
_d13v_install() {
	local layout=$1 d=$2 root_mb entry order p2 s
	root_mb=$(_d13v_disk "$D13V_TREE" "$layout" "$d/disk.raw" "$d/src.raw") || return 1
	new_vars x64 "$d/vars.fd"
	mkdir -p "$d/inst"
	_d13v_install_script "$layout" "$root_mb" > "$d/inst/script"
	printf %s "$D13V_PASS" > "$d/inst/pass"
	say "debian$DEBV_RELEASE-vol: installer boot ($layout)"
	DEB_BOOT_TIMEOUT=$DEB_TIMEOUT _d13v_qemu "$d/vars.fd" "$d/install.log" "$d/inst" "" \
		-drive file="$d/src.raw",format=raw,if=virtio,snapshot=on \
		-drive file="$d/disk.raw",format=raw,if=virtio,cache=unsafe \
		-drive file="$d/src.raw",format=raw,if=virtio,readonly=on \
		-kernel "$(ls "$D13V_TREE"/boot/vmlinuz-* | head -1)" -initrd "$(ls "$D13V_TREE"/boot/initrd.img-* | head -1)" \
		-append "root=/dev/vda ro console=ttyS0,115200 panic=-1 noresume systemd.swap=0 ${DEB_CMDLINE#*panic=-1 }"
	echo "  installer boot: status $DEB_RC, $DEB_SECS s"
	rm -f "$d/src.raw"
	grep -a 'EFIRESUME-TEST: \(installer\|lvs\|initrd-\|swapfile-\)' "$d/install.log.txt" | sed 's/^/  | /'
	expect "$d/install.log" 'EFIRESUME-TEST: installer-done=yes' "the installer finished" || return 1
	expect "$d/install.log" 'EFIRESUME-TEST: agent: script exit status 0' "its script exited 0" || return 1
	entry=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: Boot([0-9A-F]{4})\* Debian.*/\1/p' "$d/install.log.txt" | tail -1)
	order=$(sed -nE 's/.*EFIRESUME-TEST: bootorder=([0-9A-F,]+).*/\1/p' "$d/install.log.txt" | tail -1)
	[ -n "$entry" ] && [ "${order%%,*}" = "$entry" ] ||
		{ echo "  Debian entry '$entry' not first in BootOrder '$order'"; return 1; }
	{
		echo "kernel=$(sed -nE 's/.*EFIRESUME-TEST: kernel=([^ ]+).*/\1/p' "$d/install.log.txt" | tail -1 | tr -d '\r')"
		cat "$D13V_TREE.done"
		echo "installer_seconds=$DEB_SECS"
		echo "debian_entry=$entry"
		echo "boot_order=$order"
		echo "root_mb=$root_mb"
		# swap_1's first byte on the disk (lvm: partition 2 + the LV's start in the PV;
		# crypt-lvm: in the LUKS payload, encrypted)
		p2=$(sgdisk -i 2 "$d/disk.raw" | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
		s=$(sed -nE 's/.*EFIRESUME-TEST: swap-lv-start=([0-9]+).*/\1/p' "$d/install.log.txt" | tail -1)
		echo "p2_start=$p2"
		echo "swap_lv_start=$s"
		[ "$layout" = lvm ] && echo "swap_lv_byte=$(( (p2 + s) * 512 ))"
		# btrfs: the swap file's first page (resume_offset pages into partition 2)
		s=$(sed -nE 's/.*EFIRESUME-TEST: swapfile-offset=([0-9]+).*/\1/p' "$d/install.log.txt" | tail -1)
		[ "$layout" = btrfs ] && echo "swapfile_offset=$s" && echo "swapfile_byte=$(( p2 * 512 + s * 4096 ))"
		echo "disk_mib=$(( $(stat -c %s "$d/disk.raw") / 1048576 ))"
		echo "disk_used_mib=$(( $(du -k "$d/disk.raw" | cut -f1) / 1024 ))"
	} > "$d/facts"
}

# d13v_fixture LAYOUT (lvm | crypt-lvm | btrfs): builds or reuses the layout's disk; sets DEB_DIR
d13v_fixture() {
	local layout=$1
	case $layout in lvm|crypt-lvm|btrfs) ;; *) echo "d13v_fixture: unknown layout $layout" >&2; return 1 ;; esac
	d13v_tree || return 1
	mkdir -p "$D13V_TOP"
	(
		flock 9
		_d13v_fixture_locked "$layout"
	) 9> "$D13V_TOP/.lock" || return 1
	DEB_DIR=$(d13v_dir "$layout")
}

_d13v_fixture_locked() {
	local layout=$1 d t
	d=$(d13v_dir "$layout")
	if [ -f "$d/.done" ]; then
		say "debian$DEBV_RELEASE-vol fixture: cached ($d)"
		cache_used "$d"
		return 0
	fi
	cache_used "$D13V_TREE"
	rm -rf "$d"
	mkdir -p "$d"
		_d13v_install "$layout" "$d" || { echo "  debian13-vol fixture ($layout) FAILED; see $d"; return 1; }
	touch "$d/.done"
	# old builds of this layout (exactly <hash>-<layout>: "*-lvm" also matched the crypt-lvm
	# disk, and an lvm build removed it) and old trees
	for t in "$D13V_TOP"/*-"$layout"/ "$D13V_TOP"/rootfs-*/; do
		t=${t%/}
		[[ ${t##*/} =~ ^[0-9a-f]+-$layout$ || ${t##*/} == rootfs-* ]] || continue
		case $t in "$d"|"$D13V_TREE") ;; *) cache_prune "$t" ;; esac
	done
	say "debian$DEBV_RELEASE-vol fixture: done ($d)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	--tree) d13v_tree && echo "$D13V_TREE" ;;
	--dir) d13v_dir "$2" ;;
	--hook)
		set -e
		case $2 in
		essential) _deb_hook_essential "$3" ;;
		customize) _deb_hook_customize "$3" ;;
		*) exit 2 ;;
		esac ;;
	esac
fi
