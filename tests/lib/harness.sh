# SPDX-License-Identifier: GPL-2.0-or-later
# The end-to-end harness: kernels, initramfs images, disks, QEMU runs, serial matching.
# Sourced by tests/e2e/*.sh, tests/demo.sh and tests/bench.sh.
#
#   kernel_dir PKG [backports]     -> unpacked Debian package dir (cached)
#   make_initramfs ARCH KDIR INIT OUT   busybox + virtio/efivarfs modules + INIT script
#   make_disk OUT [SWAP_MB] [mbr]  GPT (or DOS): ESP (96 MiB FAT32) + Linux swap, fixed PARTUUIDs
#   esp_put DISK SRC DEST          copy a file onto the ESP (DEST like ::/EFI/BOOT/BOOTX64.EFI)
#   new_vars ARCH OUT              fresh copy of the OVMF variable store
#   run_qemu ARCH DISK VARS LOG TIMEOUT [qemu args...]   one boot, headless, TCG
#   serial_boot ARCH DISK VARS LOG TIMEOUT TYPIST [qemu args...]   the same, typing into the console
#   (qemu.sh: the command line; check.sh: pass, fail, check, expect)
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$(dirname "${BASH_SOURCE[0]}")/qemu.sh"      # the QEMU command line
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"     # pass, fail, check*, expect

ESP_MB=96
ESP_START=2048                         # sectors
SWAP_START=$((ESP_START + ESP_MB * 2048))
SWAP_PARTUUID=5f0a9a56-3c7e-4d52-9b8e-1d2c3b4a5968
ESP_PARTUUID=0e5c8a35-1b6f-4f4a-8d7e-6a5b4c3d2e1f
GPT_SWAP_TYPE=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F

kernel_dir() {
	"$TOP/tests/lib/fetch.sh" "$@"
}

# vmlinuz inside an unpacked linux-image package
kernel_image() {
	ls "$1"/boot/vmlinuz-* | head -1
}

busybox_for() {
	case $1 in
	x64) [ -x /bin/busybox ] || die "busybox-static missing (make deps)"; echo /bin/busybox ;;
	ia32) echo "$(kernel_dir busybox-static:i386)/bin/busybox" ;;
	esac
}

# make_initramfs ARCH KDIR INIT OUT
make_initramfs() {
	local arch=$1 kdir=$2 init=$3 out=$4 root m f
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,lib/modules,run}
	cp "$(busybox_for "$arch")" "$root/bin/busybox"
	for a in sh mount umount mkswap swapon swapoff insmod poweroff cat echo sleep md5sum dd head \
		 grep sed awk ls mkdir rm cp sync tr od hexdump date wc printf reboot true false seq \
		 kill ps uname cut test expr stat mknod chmod; do
		ln -s busybox "$root/bin/$a"
	done
	# modules in load order; those built into the kernel are simply absent
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk efivarfs; do
		f=$(find "$kdir"/lib/modules -name "$m.ko" -o -name "$m.ko.xz" | head -1)
		[ -n "$f" ] || continue
		case $f in
		*.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
		*) cp "$f" "$root/lib/modules/$m.ko" ;;
		esac
		echo "$m" >> "$root/lib/modules/order"
	done
	cp "$init" "$root/init"
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
	rm -rf "$root"
}

# make_disk OUT [SWAP_MB] [gpt|mbr]: ESP formatted, swap partition left zero. GPT by
# default; mbr: a DOS table (ESP type 0xef, swap type 0x82, disk signature MBR_DISK_ID,
# which Linux and efiresume show as PARTUUID=$MBR_SWAP_ID)
MBR_DISK_ID=5f0a9a56
MBR_SWAP_ID=$MBR_DISK_ID-02
make_disk() {
	local out=$1 swap_mb=${2:-1024} label=${3:-gpt} total
	total=$(( (SWAP_START / 2048) + swap_mb + 1 ))
	rm -f "$out"
	truncate -s "${total}M" "$out"
	if [ "$label" = mbr ]; then
		write_mbr "$out" $((total * 2048))
	else
		sgdisk -n1:$ESP_START:+${ESP_MB}M -t1:ef00 -u1:$ESP_PARTUUID \
			-n2:$SWAP_START:0 -t2:8200 -u2:$SWAP_PARTUUID "$out" >/dev/null
	fi
	mformat -i "$out@@$((ESP_START * 512))" -F -T $((ESP_MB * 2048)) -v ESP ::
	mmd -i "$out@@$((ESP_START * 512))" ::/EFI ::/EFI/BOOT
}

esp_put() {
	mcopy -o -i "$1@@$((ESP_START * 512))" "$2" "$3"
}

# byte offset and size of the swap partition
swap_offset() { echo $((SWAP_START * 512)); }
swap_size() {
	local end
	if [ "$(od -An -tx1 -j 450 -N1 "$1" | tr -d ' ')" = ee ]; then
		end=$(sgdisk -i 2 "$1" | awk '/Last sector/{print $3}')
		echo $(( (end - SWAP_START + 1) * 512 ))
	else
		# DOS table: sector count of entry 2 (bytes 462 + 12)
		echo $(( $(od -An -tu4 -j 474 -N4 "$1" | tr -d ' ') * 512 ))
	fi
}

# write_mbr DISK SECTORS: a DOS partition table (no boot code), partitions as in
# make_disk: 1 = ESP (0xef), 2 = Linux swap (0x82) to the end of the disk
write_mbr() {
	local disk=$1 sectors=$2
	_mbr_le32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)))"; }
	# entry: status, CHS start (unused: 0xfe 0xff 0xff), type, CHS end, LBA start, sectors
	_mbr_entry() { printf '\000\376\377\377'; printf "$(printf '\\%03o' $1)"; printf '\376\377\377'; _mbr_le32 $2; _mbr_le32 $3; }
	{
		head -c 440 /dev/zero
		_mbr_le32 $((0x$MBR_DISK_ID))
		printf '\000\000'
		_mbr_entry 239 $ESP_START $((ESP_MB * 2048))
		_mbr_entry 130 $SWAP_START $((sectors - SWAP_START))
		head -c 32 /dev/zero
		printf '\125\252'
	} | dd of="$disk" bs=512 count=1 iflag=fullblock conv=notrunc status=none
}

# mkswap the swap partition from the host (no root: work on an extracted copy)
mkswap_disk() {
	local disk=$1 tmp size
	tmp=$(mktemp)
	size=$(swap_size "$disk")
	truncate -s "$size" "$tmp"
	mkswap -q -U "${2:-clear}" "$tmp" >/dev/null 2>&1 || mkswap "$tmp" >/dev/null
	dd if="$tmp" of="$disk" bs=4096 count=1 seek=$((SWAP_START * 512 / 4096)) conv=notrunc status=none
	rm -f "$tmp"
}

# make_swapfile_fs DISK: partition 2 becomes an ext4 filesystem (type 8300) with a
# swap file /swapfile filling most of it, and /swapfile.offset: the page of the
# file's first block in the partition (the kernel's resume_offset). Prints that page.
SWAPFILE_FS_UUID=3d1b7a52-6c0e-4f28-9a35-7e4d2c1b0a96
make_swapfile_fs() {
	local disk=$1 tmp size off
	tmp=$(mktemp -d)
	size=$(swap_size "$disk")
	mkdir "$tmp/root"
	# not zeros: mke2fs -d leaves all-zero blocks out, and swapon refuses a file with holes
	yes efiresume | head -c $((size - 64 * 1048576)) > "$tmp/root/swapfile"
	chmod 600 "$tmp/root/swapfile"
	mkswap -q "$tmp/root/swapfile" >/dev/null
	echo 0 > "$tmp/root/swapfile.offset"
	truncate -s "$size" "$tmp/fs.img"
	mkfs.ext4 -q -F -b 4096 -U $SWAPFILE_FS_UUID -d "$tmp/root" "$tmp/fs.img"
	off=$(debugfs -R "bmap /swapfile 0" "$tmp/fs.img" 2>/dev/null)
	[ -n "$off" ] && [ "$off" -gt 0 ] || { echo "make_swapfile_fs: no block for /swapfile" >&2; rm -rf "$tmp"; return 1; }
	echo "$off" > "$tmp/off"
	debugfs -w -R "rm /swapfile.offset" "$tmp/fs.img" >/dev/null 2>&1
	debugfs -w -R "write $tmp/off swapfile.offset" "$tmp/fs.img" >/dev/null 2>&1
	dd if="$tmp/fs.img" of="$disk" bs=1M seek=$((SWAP_START / 2048)) conv=notrunc,sparse status=none
	sgdisk -t2:8300 "$disk" >/dev/null
	rm -rf "$tmp"
	echo "$off"
}

# SWAP_PAGE: where the swap header is in partition 2 (0; a swap file's resume_offset)
swap_hdr_offset() { echo $((SWAP_START * 512 + ${SWAP_PAGE:-0} * 4096)); }

# the swap header page, as a file
swap_page0() {
	dd if="$1" of="$2" bs=4096 count=1 skip=$(($(swap_hdr_offset) / 4096)) status=none
}

# the 10-byte signature at the end of the swap header page
swap_sig() {
	dd if="$1" bs=1 count=10 skip=$(($(swap_hdr_offset) + 4086)) status=none | tr -d '\0'
}

# set_swap_sig DISK SIG: SIG is written NUL-padded to 10 bytes
set_swap_sig() {
	{ printf '%s' "$2"; head -c $((10 - ${#2})) /dev/zero; } | dd of="$1" bs=1 seek=$(($(swap_hdr_offset) + 4086)) conv=notrunc status=none
}

new_vars() {
	case $1 in
	x64) cp /usr/share/OVMF/OVMF_VARS_4M.fd "$2" ;;
	ia32) cp /usr/share/OVMF/OVMF32_VARS_4M.fd "$2" ;;
	esac
}

efi_boot_name() {
	case $1 in
	x64) echo BOOTX64.EFI ;;
	ia32) echo BOOTIA32.EFI ;;
	esac
}

# run_qemu ARCH DISK VARS LOG TIMEOUT [extra qemu args]: one boot of a test guest (qemu.sh's
# qemu_run with DISK, isa-debug-exit and LOG as the serial log): returns QEMU's status (124 on
# timeout). MEM and SMP come from the environment (default 512, 1); QEMU_SERIAL replaces
# "-serial file:LOG", QEMU_DRIVE the disk's -drive (qemu.sh).
run_qemu() {
	local arch=$1 disk=$2 vars=$3 log=$4 tmo=$5
	shift 5
	qemu_run "$log" "$tmo" arch="$arch" vars="$vars" disk="$disk" mem="${MEM:-512}" smp="${SMP:-1}" \
		debug_exit=1 -- "$@"
}

# serial_boot ARCH DISK VARS LOG TIMEOUT TYPIST [extra qemu args]: run_qemu with the serial
# console on a pipe pair, TYPIST typing into it (qemu.sh's qemu_run_typed). Returns QEMU's
# status. QEMU_DRIVE, MEM and SMP as for run_qemu.
serial_boot() {
	local arch=$1 disk=$2 vars=$3 log=$4 tmo=$5 typist=$6
	shift 6
	qemu_run_typed "$log" "$tmo" "$typist" arch="$arch" vars="$vars" disk="$disk" \
		mem="${MEM:-512}" smp="${SMP:-1}" debug_exit=1 -- "$@"
}

# the serial log without ANSI escapes and carriage returns
clean_log() {
	sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[()][A-Z0-9]//g' -e 's/\r//g' "$1"
}

# A scratch directory for one test under the cache; kept after the run for inspection.
# Under tests/run-all.sh the case's name is part of it (EFIRESUME_CASE): two cases that
# run one script with one fixture (resume-x64-swapfile and -swapfile-conf) run side by
# side and must not remove each other's disks.
scratch() {
	local n=$1
	[ -z "${EFIRESUME_CASE:-}" ] || n="$1@${EFIRESUME_CASE//\//_}"
	local d="${EFIRESUME_RUN:-$CACHE/run}/$n"   # EFIRESUME_RUN: another place for scratch runs
	rm -rf "$d"
	mkdir -p "$d"
	echo "$d"
}

# vars_add_db VARS DIR: a new self-signed certificate (key and PEM in DIR) appended to db in
# the variable store VARS by virt-fw-vars, as the firmware's setup or a db update would: PCR 7,
# which measures db, changes; DIR/vfw.log says what failed
vars_add_db() {
	local vars=$1 dir=$2 vfw
	vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/db.key" -out "$dir/db.crt" -days 30 \
		-subj "/CN=efiresume test db/" > "$dir/vfw.log" 2>&1 &&
	PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$vars" -o "$vars.new" \
		--add-db a0baa8a3-041d-48a8-bc87-c36d121b5e3d "$dir/db.crt" >> "$dir/vfw.log" 2>&1 &&
		mv "$vars.new" "$vars"
}
