# SPDX-License-Identifier: GPL-2.0-or-later
# A real Debian 12 system for the end-to-end tests: systemd, udev, initramfs-tools,
# Debian's generic 6.1 kernel (linux-image-amd64), efibootmgr. Sourced (after or
# instead of harness.sh) by tests/e2e/debian.sh; built once and cached.
#
#   deb_fixture                 builds (or reuses) $CACHE/debian/<key>/ and sets DEB_DIR:
#       disk.raw   GPT: 1 ESP (FAT32, \EFI\debian\vmlinuz.efi + initrd.img), 2 swap (mkswap,
#                  fixed UUID), 3 root ext4 (mke2fs -d from the mmdebstrap tree); nothing on
#                  the removable path \EFI\BOOT\BOOTX64.EFI
#       vars.fd    OVMF variables: Boot#### "Debian" (the kernel's EFI stub with its
#                  initramfs-tools initrd) first in BootOrder, made by a provisioning boot
#       facts      key=value (kernel, Debian entry, BootOrder, build and boot times)
#     The key is a hash of the recipe (the functions below, package list, guest files),
#     so a changed recipe rebuilds; the rootfs tree is a stage of its own.
#   deb_new DIR                 a private copy for one test: disk.raw (sparse copy, under a
#                               second: qemu-img is not needed) + vars.fd
#   deb_boot DIR NAME TIMEOUT SCRIPT [qemu args...]
#                               one boot of DIR's disk; the guest's test agent runs SCRIPT
#                               (bash, after tests/e2e/debian/lib.sh) and powers off.
#                               Files DIR/fwcfg/* reach the guest as /run/efiresume-test/in/*.
#                               Serial: DIR/NAME.log (+ .txt); sets DEB_RC and DEB_SECS.
#   deb_swap_sig DIR            the signature at the end of the swap partition's page 0
#   deb_esp DIR OUT             the ESP of DIR's disk as a FAT image file (for mtools)
#   deb_val DIR NAME KEY        the value of the last "EFIRESUME-TEST: KEY=VALUE" line of a boot
#
# Guest: tests/e2e/debian/agent (efiresume-test-agent.service) reads QEMU fw_cfg
# opt/efiresume/script at every fresh boot, runs it, logs to ttyS0 as "EFIRESUME-TEST: ...",
# powers off; tests/e2e/debian/sleep-hook tells a script waiting after `systemctl hibernate`
# that the sleep is over.
. "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"    # harness.sh, fmt_secs, fixture_fact

DEB_GUEST=$TOP/tests/e2e/debian
DEB_MEM=${DEB_MEM:-1024}
DEB_ESP_MB=128
DEB_SWAP_MB=1024
DEB_DISK_GUID=6b1c4e20-5a3d-4c8f-9e71-0d2f3a4b5c6d
DEB_ESP_PARTUUID=6b1c4e21-5a3d-4c8f-9e71-0d2f3a4b5c6d
DEB_SWAP_PARTUUID=6b1c4e22-5a3d-4c8f-9e71-0d2f3a4b5c6d
DEB_ROOT_PARTUUID=6b1c4e23-5a3d-4c8f-9e71-0d2f3a4b5c6d
DEB_SWAP_UUID=2c9d7e41-8b3a-4f6e-a1d5-3e7f9b0c2d14
DEB_ROOT_UUID=2c9d7e42-8b3a-4f6e-a1d5-3e7f9b0c2d14
DEB_ESP_SERIAL=3A7E51C9                 # the FAT volume id: UUID=3A7E-51C9
DEB_ESP_START=2048                      # sectors
DEB_SWAP_START=$((DEB_ESP_START + DEB_ESP_MB * 2048))
DEB_ROOT_START=$((DEB_SWAP_START + DEB_SWAP_MB * 2048))
DEB_CMDLINE="root=PARTUUID=$DEB_ROOT_PARTUUID ro console=ttyS0,115200 panic=-1"
DEB_QEMU_CPU=${QEMU_CPU_X64:-qemu64,-cx16}
DEB_PACKAGES=systemd,systemd-sysv,udev,dbus,initramfs-tools,zstd,linux-image-amd64,kmod,efibootmgr,util-linux,e2fsprogs,procps
# kept out of the tree (dpkg path-exclude): kernel modules no QEMU q35 guest without
# network, sound or graphics loads (excluding /usr/share/doc/* broke the unpacking of
# e2fsprogs' libraries here: "unable to create .../changelog.Debian.amd64.gz.dpkg-new")
DEB_EXCLUDES="/lib/modules/*/kernel/drivers/gpu/* /lib/modules/*/kernel/drivers/media/*
/lib/modules/*/kernel/drivers/net/* /lib/modules/*/kernel/drivers/infiniband/*
/lib/modules/*/kernel/drivers/staging/* /lib/modules/*/kernel/drivers/iio/*
/lib/modules/*/kernel/drivers/isdn/* /lib/modules/*/kernel/drivers/bluetooth/*
/lib/modules/*/kernel/drivers/mtd/* /lib/modules/*/kernel/drivers/usb/*
/lib/modules/*/kernel/drivers/scsi/* /lib/modules/*/kernel/drivers/hid/*
/lib/modules/*/kernel/drivers/input/* /lib/modules/*/kernel/drivers/watchdog/*
/lib/modules/*/kernel/sound/* /lib/modules/*/kernel/net/*"
DEB_TIMEOUT=${DEB_TIMEOUT:-600}     # one boot; under TCG on a loaded 2-core host a boot took up to 290 s

# --- build stages (run as mmdebstrap hooks: bash debian.sh --hook NAME ROOT) ---------

# before the kernel and initramfs-tools are installed: their first initrd already
# has this configuration
_deb_hook_essential() {
	local root=$1
	mkdir -p "$root/etc/initramfs-tools/conf.d" "$root/etc/initramfs-tools/hooks"
	# only what this guest needs (MODULES=most: every storage driver, 3x the size)
	echo "MODULES=list" > "$root/etc/initramfs-tools/conf.d/efiresume-test"
	# the kernel's own resume path (initramfs-tools' local-premount/resume)
	echo "RESUME=UUID=$DEB_SWAP_UUID" > "$root/etc/initramfs-tools/conf.d/resume"
	cat > "$root/etc/initramfs-tools/hooks/efiresume-test" <<'EOF'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
. /usr/share/initramfs-tools/hook-functions
manual_add_modules virtio_pci virtio_blk ext4 crc32c_generic
EOF
	chmod 755 "$root/etc/initramfs-tools/hooks/efiresume-test"
}

_deb_hook_customize() {
	local root=$1 u
	echo efiresume-debian > "$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tefiresume-debian\n' > "$root/etc/hosts"
	echo 5f1e2d3c4b5a69788796a5b4c3d2e1f0 > "$root/etc/machine-id"
	cat > "$root/etc/fstab" <<EOF
UUID=$DEB_ROOT_UUID / ext4 errors=remount-ro 0 1
UUID=$DEB_SWAP_UUID none swap sw 0 0
UUID=${DEB_ESP_SERIAL:0:4}-${DEB_ESP_SERIAL:4:4} /boot/efi vfat umask=0077 0 0
EOF
	mkdir -p "$root/boot/efi" "$root/usr/lib/efiresume-test" "$root/usr/lib/systemd/system-sleep"
	install -m 755 "$DEB_GUEST/agent" "$root/usr/lib/efiresume-test/agent"
	install -m 644 "$DEB_GUEST/efiresume-test-agent.service" "$root/etc/systemd/system/"
	install -m 755 "$DEB_GUEST/sleep-hook" "$root/usr/lib/systemd/system-sleep/efiresume-test"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/efiresume-test-agent.service "$root/etc/systemd/system/multi-user.target.wants/"
	# nothing that waits for a login or runs on a timer during a test
	for u in serial-getty@ttyS0.service getty@tty1.service getty.target apt-daily.timer \
		 apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer \
		 systemd-tmpfiles-clean.timer; do
		ln -sf /dev/null "$root/etc/systemd/system/$u"
	done
	# the initrd was made with the configuration of _deb_hook_essential: check it
	local v
	v=$(ls "$root"/lib/modules | head -1)
	[ -f "$root/boot/initrd.img-$v" ] || { echo "no initrd for $v" >&2; return 1; }
	chroot "$root" lsinitramfs "/boot/initrd.img-$v" > "$root/tmp/initrd.list"
	grep -q "conf/conf.d/resume" "$root/tmp/initrd.list" &&
		grep -q "virtio_blk.ko" "$root/tmp/initrd.list" &&
		grep -q "ext4.ko" "$root/tmp/initrd.list" ||
		{ echo "initrd lacks resume config / virtio_blk / ext4; regenerating" >&2
		  chroot "$root" update-initramfs -u -k "$v"; }
	rm -f "$root/tmp/initrd.list"
	# the Debian kernel has the firmware config interface the agent reads
	[ -n "$(find "$root/lib/modules/$v" -name 'qemu_fw_cfg.ko*')" ] ||
		grep -q '^CONFIG_FW_CFG_SYSFS=y' "$root/boot/config-$v" ||
		{ echo "kernel $v has no qemu_fw_cfg" >&2; return 1; }
}

# _deb_rootfs DIR: the tree, by mmdebstrap (root mode) from the machine's Debian mirror
_deb_rootfs() {
	local out=$1 debs=$CACHE/debian/debs opts=() p
	mkdir -p "$debs"
	for p in $DEB_EXCLUDES; do opts+=(--dpkgopt="path-exclude=$p" --dpkgopt="path-exclude=/usr$p"); done
	# keep the downloaded packages: a changed recipe does not download them again
	nice mmdebstrap --variant=minbase --include="$DEB_PACKAGES" "${opts[@]}" \
		--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"; cp $debs/*.deb \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
		--essential-hook="bash $TOP/tests/lib/debian.sh --hook essential \"\$1\"" \
		--customize-hook="bash $TOP/tests/lib/debian.sh --hook customize \"\$1\"" \
		--customize-hook="cp -u \"\$1\"/var/cache/apt/archives/*.deb $debs/ 2>/dev/null || true" \
		bookworm "$out" /etc/apt/sources.list.d/debian.sources
}

# _deb_disk TREE OUT: the raw disk
_deb_disk() {
	local tree=$1 out=$2 root_mb total v tmp
	root_mb=$(( $(du -sm "$tree" | cut -f1) * 13 / 10 + 256 ))
	total=$(( DEB_ROOT_START / 2048 + root_mb + 1 ))
	rm -f "$out"
	truncate -s "${total}M" "$out"
	sgdisk -U $DEB_DISK_GUID \
		-n1:$DEB_ESP_START:+${DEB_ESP_MB}M -t1:ef00 -u1:$DEB_ESP_PARTUUID -c1:ESP \
		-n2:$DEB_SWAP_START:+${DEB_SWAP_MB}M -t2:8200 -u2:$DEB_SWAP_PARTUUID -c2:swap \
		-n3:$DEB_ROOT_START:0 -t3:8300 -u3:$DEB_ROOT_PARTUUID -c3:root "$out" >/dev/null
	mformat -i "$out@@$((DEB_ESP_START * 512))" -F -T $((DEB_ESP_MB * 2048)) -N $DEB_ESP_SERIAL -v ESP ::
	mmd -i "$out@@$((DEB_ESP_START * 512))" ::/EFI ::/EFI/debian
	v=$(ls "$tree"/lib/modules | head -1)
	mcopy -i "$out@@$((DEB_ESP_START * 512))" "$tree/boot/vmlinuz-$v" ::/EFI/debian/vmlinuz.efi
	mcopy -i "$out@@$((DEB_ESP_START * 512))" "$tree/boot/initrd.img-$v" ::/EFI/debian/initrd.img
	tmp=$(mktemp -d)
	truncate -s "${DEB_SWAP_MB}M" "$tmp/swap"
	mkswap -q -U $DEB_SWAP_UUID -L swap "$tmp/swap" >/dev/null
	dd if="$tmp/swap" of="$out" bs=4096 count=1 seek=$((DEB_SWAP_START / 8)) conv=notrunc status=none
	truncate -s "${root_mb}M" "$tmp/root"
	mke2fs -q -F -t ext4 -U $DEB_ROOT_UUID -L root -d "$tree" "$tmp/root"
	dd if="$tmp/root" of="$out" bs=1M seek=$((DEB_ROOT_START / 2048)) conv=notrunc,sparse status=none
	rm -rf "$tmp"
	echo "$v"
}

# _deb_provision DIR: vars.fd with the "Debian" entry (boot 1: -kernel, the guest runs
# efibootmgr), then checks that the firmware starts it by itself (boot 2)
# (its text is part of the disk's cache key, _deb_key_disk: it keeps its echo "  ok: ..." lines, the
# same output as pass, so that a change of style does not rebuild the Debian disk)
_deb_provision() {
	local d=$1 v=$2 entry order cur
	new_vars x64 "$d/vars.fd"
	# a copy: disk.raw changes only when the whole provisioning succeeded
	cp "$d/disk.raw" "$d/prov.raw"
	mkdir -p "$d/prov"
	cat > "$d/prov/script" <<EOF
set -e
efibootmgr -c -d /dev/vda -p 1 -L Debian -l '\\EFI\\debian\\vmlinuz.efi' -u \\
	'initrd=\\EFI\\debian\\initrd.img $DEB_CMDLINE' | sed 's/^/EFIRESUME-TEST: efibootmgr: /'
EOF
	echo "efi_show" >> "$d/prov/script"
	say "debian fixture: provisioning boot (-kernel, efibootmgr -c)"
	_deb_qemu "$d/prov.raw" "$d/vars.fd" "$d/provision.log" "$d/prov" \
		-kernel "$d/vmlinuz" -initrd "$d/initrd.img" -append "$DEB_CMDLINE" || true
	echo "  provisioning boot: status $DEB_RC, $DEB_SECS s"
	expect "$d/provision.log" 'EFIRESUME-TEST: agent: script exit status 0' "efibootmgr -c succeeded" || return 1
	entry=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: Boot([0-9A-F]{4})\* Debian.*/\1/p' "$d/provision.log.txt" | tail -1)
	order=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: BootOrder: ([0-9A-F,]+).*/\1/p' "$d/provision.log.txt" | tail -1)
	[ -n "$entry" ] && [ "${order%%,*}" = "$entry" ] ||
		{ echo "  Debian entry '$entry' not first in BootOrder '$order'"; return 1; }
	echo "  ok: Boot$entry \"Debian\" first in BootOrder $order"
	say "debian fixture: first boot through the firmware's BootOrder"
	echo "efi_show" > "$d/prov/script"
	_deb_qemu "$d/prov.raw" "$d/vars.fd" "$d/firstboot.log" "$d/prov" || true
	echo "  first boot: status $DEB_RC, $DEB_SECS s"
	cur=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: BootCurrent: ([0-9A-F]{4}).*/\1/p' "$d/firstboot.log.txt" | tail -1)
	[ "$DEB_RC" = 0 ] && [ "$cur" = "$entry" ] ||
		{ echo "  first boot did not start Boot$entry by itself (BootCurrent '$cur', status $DEB_RC)"; return 1; }
	expect "$d/firstboot.log" "BdsDxe: starting Boot$entry \"Debian\"" "OVMF started Boot$entry \"Debian\"" || return 1
	order=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: BootOrder: ([0-9A-F,]+).*/\1/p' "$d/firstboot.log.txt" | tail -1)
	echo "  ok: BootCurrent $cur; BootOrder now $order"
	mv "$d/prov.raw" "$d/disk.raw"
	{
		echo "debian_entry=$entry"
		echo "boot_order=$order"
		echo "boot_entries=$(sed -nE 's/.*EFIRESUME-TEST: efibootmgr: (Boot[0-9A-F]{4}\*? [^\t]*).*/\1/p' "$d/firstboot.log.txt" | paste -sd';')"
		echo "firstboot_seconds=$DEB_SECS"
		echo "firstboot_agent_uptime=$(sed -nE 's/.*EFIRESUME-TEST: agent: booted .* uptime ([0-9.]+) s.*/\1/p' "$d/firstboot.log.txt" | head -1)"
	} >> "$d/facts"
}

# the recipe's hash: package list, excludes, layout, command line, stage functions, guest files
_deb_key_rootfs() {
	{ echo "$DEB_PACKAGES $DEB_EXCLUDES"; declare -f _deb_hook_essential _deb_hook_customize _deb_rootfs
	  # (licence lines do not change what is built)
	  cat "$DEB_GUEST/agent" "$DEB_GUEST/efiresume-test-agent.service" "$DEB_GUEST/sleep-hook" |
		grep -v 'SPDX-License-Identifier:'
	  echo "$DEB_SWAP_UUID $DEB_ROOT_UUID $DEB_ESP_SERIAL"; } | md5sum | cut -c1-12
}
_deb_key_disk() {
	{ _deb_key_rootfs; declare -f _deb_disk _deb_provision
	  echo "$DEB_CMDLINE $DEB_ESP_MB $DEB_SWAP_MB $DEB_MEM $DEB_QEMU_CPU $DEB_DISK_GUID"
	  echo "$DEB_ESP_PARTUUID $DEB_SWAP_PARTUUID $DEB_ROOT_PARTUUID"; } | md5sum | cut -c1-12
}

deb_fixture() {
	local top=${DEB_CACHE_TOP:-$CACHE/debian}
	mkdir -p "$top"
	(
		flock 9
		_deb_fixture_locked
	) 9> "$top/.lock" || return 1
	DEB_DIR=$top/$(_deb_key_disk)
}

_deb_fixture_locked() {
	local top=${DEB_CACHE_TOP:-$CACHE/debian} kr kd tree d t0 t1 v
	kr=$(_deb_key_rootfs) kd=$(_deb_key_disk)
	tree=$top/rootfs-$kr d=$top/$kd
	if [ -f "$d/.done" ]; then
		say "debian fixture: cached ($d)"
		cache_used "$d"
		return 0
	fi
	cache_used "$tree"
	if [ ! -f "$tree.done" ]; then
		say "debian fixture: mmdebstrap ${DEB_SUITE:-bookworm} into $tree (a few minutes)"
		rm -rf "$tree" "$tree.done"
		t0=$(date +%s.%N)
		_deb_rootfs "$tree" > "$top/rootfs-$kr.log" 2>&1 ||
			{ echo "  mmdebstrap failed: see $top/rootfs-$kr.log"; tail -20 "$top/rootfs-$kr.log"; return 1; }
		t1=$(date +%s.%N)
		echo "rootfs_seconds=$(fmt_secs "$t0" "$t1")" > "$tree.done"
		say "debian fixture: rootfs in $(fmt_secs "$t0" "$t1") s, $(du -sm "$tree" | cut -f1) MiB"
	fi
	rm -rf "$d"
	mkdir -p "$d"
	t0=$(date +%s.%N)
	v=$(_deb_disk "$tree" "$d/disk.raw") || return 1
	cp "$tree/boot/vmlinuz-$v" "$d/vmlinuz"
	cp "$tree/boot/initrd.img-$v" "$d/initrd.img"
	t1=$(date +%s.%N)
	{
		echo "kernel=$v"
		cat "$tree.done"
		echo "disk_seconds=$(fmt_secs "$t0" "$t1")"
		echo "disk_mib=$(( $(stat -c %s "$d/disk.raw") / 1048576 ))"
		echo "initrd_bytes=$(stat -c %s "$d/initrd.img")"
	} > "$d/facts"
	say "debian fixture: disk ($v) in $(fmt_secs "$t0" "$t1") s"
	_deb_provision "$d" "$v" || { echo "  debian fixture FAILED; see $d"; return 1; }
	echo "disk_used_mib=$(( $(du -k "$d/disk.raw" | cut -f1) / 1024 ))" >> "$d/facts"
	touch "$d/.done"
	# old builds of other recipes
	for t in "$top"/*/; do
		t=${t%/}
		case $t in "$d"|"$tree"|"$top/debs") ;; *) cache_prune "$t" ;; esac
	done
	say "debian fixture: done ($d)"
}

# deb_fwcfg FWDIR: qemu.sh options (array DEB_FWCFG) that make every file in FWDIR the fw_cfg
# file opt/efiresume/NAME (script: lib.sh + FWDIR/script, as FWDIR/.script)
deb_fwcfg() {
	local fw=$1 f
	cat "$DEB_GUEST/lib.sh" "$fw/script" > "$fw/.script"
	DEB_FWCFG=(fwcfg="script=$fw/.script")
	for f in "$fw"/*; do
		case ${f##*/} in script|lib.sh) continue ;; esac
		DEB_FWCFG+=(fwcfg="${f##*/}=$f")
	done
}

# deb_qemu_opts: the qemu.sh options of every Debian guest boot (no isa-debug-exit: systemd
# powers off)
deb_qemu_opts() { DEB_QEMU_OPTS=(cpu="$DEB_QEMU_CPU" mem="$DEB_MEM"); }

# _deb_qemu DISK VARS LOG FWDIR [qemu args]: one boot (serial log LOG, the guest's files from
# FWDIR: deb_fwcfg). Sets DEB_RC, DEB_SECS.
_deb_qemu() {
	local disk=$1 vars=$2 log=$3 fw=$4 t0 t1
	shift 4
	deb_fwcfg "$fw"
	deb_qemu_opts
	t0=$(date +%s.%N)
	DEB_RC=0
	qemu_run "$log" "${DEB_BOOT_TIMEOUT:-$DEB_TIMEOUT}" "${DEB_QEMU_OPTS[@]}" vars="$vars" disk="$disk" \
		"${DEB_FWCFG[@]}" -- "$@" || DEB_RC=$?
	t1=$(date +%s.%N)
	DEB_SECS=$(fmt_secs "$t0" "$t1")
	clean_log "$log" > "$log.txt"
}

deb_new() {
	local dir=$1
	[ -n "${DEB_DIR:-}" ] && [ -f "$DEB_DIR/.done" ] || { echo "deb_new: no fixture (deb_fixture)" >&2; return 1; }
	mkdir -p "$dir/fwcfg"
	cp --sparse=always "$DEB_DIR/disk.raw" "$dir/disk.raw"
	cp "$DEB_DIR/vars.fd" "$dir/vars.fd"
	cp "$DEB_DIR/facts" "$dir/facts"
}

# deb_boot DIR NAME TIMEOUT SCRIPT [qemu args]
deb_boot() {
	local dir=$1 name=$2 tmo=$3 script=$4
	shift 4
	cp "$script" "$dir/fwcfg/script"
	say "boot $name"
	DEB_BOOT_TIMEOUT=$tmo _deb_qemu "$dir/disk.raw" "$dir/vars.fd" "$dir/$name.log" "$dir/fwcfg" "$@"
	echo "  $name: QEMU status $DEB_RC after $DEB_SECS s"
	echo "$name=$DEB_SECS" >> "$dir/times"
}

# deb_val DIR NAME KEY: last value printed by the guest as "EFIRESUME-TEST: KEY=VALUE"
deb_val() {
	sed -nE "s/.*EFIRESUME-TEST: $3=([^ ]*).*/\\1/p" "$1/$2.log.txt" | tail -1
}

# deb_read DIR OFFSET COUNT OUT: COUNT 4 KiB pages of DIR's disk from OFFSET bytes
deb_read() {
	dd if="$1/disk.raw" of="$4" bs=4096 skip=$(($2 / 4096)) count="$3" status=none
}

# deb_swap_sig DIR [BYTES]: the signature at the end of the swap header at BYTES of the
# disk (default: the swap partition's page 0; a swap file: where its first page is)
deb_swap_sig() {
	local t
	t=$(mktemp)
	deb_read "$1" "${2:-$((DEB_SWAP_START * 512))}" 1 "$t"
	dd if="$t" bs=1 skip=4086 count=10 status=none | tr -d '\0'
	rm -f "$t"
}

deb_esp() {
	deb_read "$1" $((DEB_ESP_START * 512)) $((DEB_ESP_MB * 256)) "$2"
}

# Checks shared by the Debian tests (tests/e2e/debian.sh, debian-firmware.sh): each prints
# "ok:" or "WRONG:" (pass, fail: tests/lib/check.sh, which set ok=1 on a failure); $d is the
# caller's run directory.
# val_is NAME KEY WANT WHAT: the guest printed KEY=WANT in boot NAME
val_is() {
	local name=$1 key=$2 want=$3 what=$4 got
	got=$(deb_val "$d" "$name" "$key")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		pass "$what ($key=$got)"
	else
		fail "$what ($key='$got', expected '$want')"
	fi
}
# qemu_ok: the last boot powered off (DEB_RC 0)
qemu_ok() {
	[ "$DEB_RC" = 0 ] && pass "QEMU powered off (status 0)" ||
		fail "QEMU status $DEB_RC (124: timeout)"
}
# sig_is SIG WHAT: the swap signature on the run's disk (at byte $DEB_SIG_AT when set)
sig_is() {
	local s
	s=$(deb_swap_sig "$d" ${DEB_SIG_AT:-})
	[ "$s" = "$1" ] && pass "swap signature $s ($2)" || fail "swap signature '$s', expected $1 ($2)"
}
# boot 1's checks of a hibernation that wrote an image and powered off
check_hibernated() {
	local n=$1
	qemu_ok
	expect "$d/$n.log" 'EFIRESUME-TEST: token=[0-9a-f]{32}' "token in tmpfs" || ok=1
	expect "$d/$n.log" 'EFIRESUME-TEST: hibernating' "systemctl hibernate called" || ok=1
	expect "$d/$n.log" 'EFIRESUME-TEST: sleep-hook pre hibernate' "systemd-sleep ran the pre hooks" || ok=1
	expect "$d/$n.log" 'PM: hibernation: (Creating image|Allocated [0-9]+ pages)|PM: Creating hibernation image' "the kernel made an image" || ok=1
	expect "$d/$n.log" 'PM: hibernation: Wrote [0-9]+ kbytes' "the kernel wrote the image" || ok=1
	# systemd's default hibernate mode is "platform": ACPI S4, which ends QEMU like a poweroff
	expect "$d/$n.log" 'printk: Suspending console|reboot: Power down' "the kernel entered S4 / powered off" || ok=1
	expect_not "$d/$n.log" 'EFIRESUME-TEST: (hibernate-returned|agent: script exit)' "the script did not go on in this boot" || ok=1
	sig_is S1SUSPEND "image written"
}

# the resumed system's checks (the boot-1 script went on after systemctl hibernate)
# check_resumed N1 N2: N1 the boot that hibernated, N2 the one that resumed
check_resumed() {
	local n1=$1 n2=$2
	qemu_ok
	expect_not "$d/$n2.log" 'EFIRESUME-TEST: fresh-boot' "no fresh boot (the agent did not start again)" || ok=1
	val_is "$n2" hibernate-returned yes "systemctl hibernate's sleep ended in the resumed system"
	val_is "$n2" token-after "$(deb_val "$d" "$n1" token)" "same token in tmpfs"
	val_is "$n2" boot-id-after "$(deb_val "$d" "$n1" boot-id)" "same boot id"
	local c0 c1 c2
	c0=$(deb_val "$d" "$n1" counter-before) c1=$(deb_val "$d" "$n2" counter-after) c2=$(deb_val "$d" "$n2" counter-later)
	if [[ $c0 =~ ^[0-9]+$ ]] && [[ $c1 =~ ^[0-9]+$ ]] && [[ $c2 =~ ^[0-9]+$ ]] && [ "$c0" -gt 0 ] && [ "$c1" -ge "$c0" ] && [ "$c2" -gt "$c1" ]; then
		pass "the counter goes on ($c0 before, $c1 -> $c2 after)"
	else
		fail "counter $c0 before, $c1 -> $c2 after"
	fi
	val_is "$n2" swap-reusable yes "swapoff + swapon"
	val_is "$n2" efivars-read yes "EFI variables readable"
	expect "$d/$n2.log" 'EFIRESUME-TEST: sleep-hook post hibernate' "systemd-sleep ran the post hooks" || ok=1
	expect_not "$d/$n2.log" 'Kernel panic|BUG:|Oops' "no kernel error" || ok=1
	sig_is SWAPSPACE2 "the image was consumed"
}

# deb_file: the .deb under test (the newest build/efiresume_*_amd64.deb, or $EFIRESUME_DEB)
deb_file() {
	local f=${EFIRESUME_DEB:-}
	[ -n "$f" ] || f=$(ls -t "$BUILD"/efiresume_*_amd64.deb 2>/dev/null | head -1)
	[ -n "$f" ] && [ -f "$f" ] || { echo "no build/efiresume_*_amd64.deb: run make deb" >&2; return 1; }
	echo "$f"
}

# run as an mmdebstrap hook
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --hook ]; then
	set -e
	case $2 in
	essential) _deb_hook_essential "$3" ;;
	customize) _deb_hook_customize "$3" ;;
	*) exit 2 ;;
	esac
fi
