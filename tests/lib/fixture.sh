# SPDX-License-Identifier: GPL-2.0-or-later
# Hibernation fixtures: real Debian kernels hibernated once in QEMU + OVMF, kept
# in the cache and copied by the tests that resume them. Sourced (after or
# instead of harness.sh).
#
#   make_fixture NAME ARCH KPKG [backports] [-- KERNEL_ARGS...]
#       env MEM (MiB, default 512), SMP (default 1)
#       Builds $CACHE/fixtures/NAME/: a GPT disk with efiresume as the ESP's boot
#       program, the kernel as \vmlinuz.efi (efiresume's fallback), the test
#       initramfs (prelude.sh + hibernate.sh as /init, resumed.sh as /resumed.sh),
#       boots it once: efiresume finds no image, starts the kernel, the kernel
#       hibernates to the swap partition and powers off. Saved there:
#         disk.img     the hibernated disk (swap signature S1SUSPEND)
#         vars.fd      the OVMF variable store of that boot (reuse it to resume)
#         serial.log   boot 1's serial console (serial.log.txt: without ANSI escapes)
#         facts        key=value lines (see write_facts below)
#         efiresume.conf, initrd.gz, init: what went onto the disk
#       Reused as is when .done is newer than $BUILD/efiresume-ARCH.efi (or that
#       binary is byte for byte the one the fixture was built with) and the
#       parameters (ARCH, KPKG, suite, kernel version, MEM, SMP, arguments, init
#       scripts) are the same.
#   copy_fixture NAME DEST     copies disk.img, vars.fd (sparse) and facts into the directory DEST
#   fixture_dir NAME           prints $CACHE/fixtures/NAME
#   fixture_fact NAME|DIR KEY  prints one value from the facts file
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
. "$(dirname "${BASH_SOURCE[0]}")/volumes.sh"

FIXTURE_TIMEOUT=${FIXTURE_TIMEOUT:-300}

# Extra QEMU arguments of boot 1, recorded in facts as qemu_args: pass the same
# to the resume boot (run_qemu ... $(fixture_fact NAME qemu_args)).
# x64 default "-cpu qemu64,-cx16": QEMU 7.2's TCG sometimes corrupts RFLAGS after
# the kernel's per-CPU `cmpxchg16b %gs:(%rsi)` (SLUB fast path); Debian's 6.12
# then dies early with a double fault or a #DB in kmem_cache_alloc_noprof (seen
# here in 3 of 7 boots; 0 of 5 without CX16). A kernel that booted without CX16
# never uses the instruction, so such a fixture also resumes on a CPU with CX16.
# Set FIXTURE_QEMU_ARGS (even to "") to override.
# A LUKS fixture (efiresume_luks) gets AES-NI too (+aes, and the SSSE3/SSE4/PCLMULQDQ
# every AES-NI CPU has: the kernel's aesni_intel uses pshufb; with +aes alone its
# self-test dies with an invalid opcode): dm-crypt in the guest and efiresume's AES-XTS
# then run on QEMU's AES instructions instead of table/bitsliced AES.
# fixture_qemu_args ARCH [KERNEL_ARGS...]
fixture_qemu_args() {
	if [ -n "${FIXTURE_QEMU_ARGS+set}" ]; then
		echo "$FIXTURE_QEMU_ARGS"
	else
		local a=$1
		shift
		case $a/$(vol_kind "$@") in
		x64/luks) echo "-cpu qemu64,-cx16,+aes,+ssse3,+sse4.1,+sse4.2,+pclmulqdq" ;;
		x64/*) echo "-cpu qemu64,-cx16" ;;
		*) echo "" ;;
		esac
	fi
}
# vendor GUID of the variable resumed.sh writes (documented here for tests that look for leftovers)
FIXTURE_EFIVAR=EfiresumeTest-5e1f0c3a-7d4b-4b8e-9a61-2f3c4d5e6f70

fixture_dir() { echo "$CACHE/fixtures/$1"; }

fixture_fact() {
	local f=$1/facts
	[ -f "$f" ] || f=$(fixture_dir "$1")/facts
	sed -n "s/^$2=//p" "$f" 2>/dev/null | head -1
}

# the test /init: prelude, then /resumed.sh written out (a here-document, so the
# file exists in the rootfs of boot 1 and thus in the image), then hibernate.sh.
# fixture_init [KERNEL_ARGS...]: the blocks between "# >>> volumes" and "# <<< volumes"
# lines are only kept for a fixture with efiresume_lvm or efiresume_luks (so every
# other fixture's /init, and its cache key, is what it was before they existed)
fixture_init() {
	local init=$TOP/tests/e2e/init strip='/^# >>> volumes/,/^# <<< volumes/d'
	[ -z "$(vol_kind "$@")" ] || strip=
	cat "$init/prelude.sh"
	echo "cat > /resumed.sh <<'EFIRESUME_RESUMED_SH_EOF'"
	sed -e "$strip" "$init/resumed.sh"
	echo "EFIRESUME_RESUMED_SH_EOF"
	sed -e "$strip" "$init/hibernate.sh"
}

# Kernel modules beyond make_initramfs's list (virtio, efivarfs): the compressor
# named by hibernate.compressor=X (crypto/X.ko, a module in Debian's 6.12: without
# it hibernation fails with "X compression is not available"; the initramfs has
# no modprobe), plus $FIXTURE_MODULES. Prints them with their dependencies,
# dependencies first; built-in ones are absent from the package and skipped.
fixture_module_file() {
	find "$1"/lib/modules \( -name "$2.ko" -o -name "$2.ko.xz" -o -name "${2//_/-}.ko" -o -name "${2//_/-}.ko.xz" \) | head -1
}
fixture_module_deps() {
	local kdir=$1 m=$2 f d
	f=$(fixture_module_file "$kdir" "$m")
	[ -n "$f" ] || return 0
	for d in $(case $f in *.xz) xz -dc "$f" ;; *) cat "$f" ;; esac |
		   tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
		fixture_module_deps "$kdir" "$d"
	done
	echo "$m"
}
fixture_modules() {
	local kdir=$1 a m
	shift
	for a in "$@"; do
		case $a in hibernate.compressor=*) fixture_module_deps "$kdir" "${a#*=}" ;; esac
	done
	for m in ${FIXTURE_MODULES:-} $(vol_modules "$(vol_kind "$@")"); do fixture_module_deps "$kdir" "$m"; done
}

# fixture_add_modules KDIR INITRD MODULE...: appends a second cpio archive (the
# kernel unpacks concatenated ones) with the modules and a /lib/modules/order
# that lists make_initramfs's modules, then these (prelude.sh insmods in order)
fixture_add_modules() {
	local kdir=$1 initrd=$2 root m f
	shift 2
	[ $# -gt 0 ] || return 0
	root=$(mktemp -d)
	mkdir -p "$root/lib/modules"
	{
		gzip -dc "$initrd" | (cd "$root" && cpio -i --quiet --to-stdout lib/modules/order) || true
		printf '%s\n' "$@"
	} | awk 'NF && !seen[$0]++' > "$root/order"
	mv "$root/order" "$root/lib/modules/order"
	for m in "$@"; do
		f=$(fixture_module_file "$kdir" "$m")
		case $f in
		*.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
		*) cp "$f" "$root/lib/modules/$m.ko" ;;
		esac
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >> "$initrd"
	rm -rf "$root"
}

# make_fixture NAME ARCH KPKG [backports] [-- KERNEL_ARGS...]
make_fixture() {
	local name=$1 arch=$2 kpkg=$3 suite=
	shift 3
	if [ $# -gt 0 ] && [ "$1" = backports ]; then suite=backports; shift; fi
	if [ $# -gt 0 ] && [ "$1" = -- ]; then shift; fi
	local dir lock
	dir=$(fixture_dir "$name")
	lock="$CACHE/fixtures/.$name.lock"
	mkdir -p "$CACHE/fixtures"
	# one builder per fixture at a time (tests run in parallel)
	(
		flock 9
		_make_fixture_locked "$name" "$arch" "$kpkg" "$suite" "$dir" "$@"
	) 9> "$lock"
}

_make_fixture_locked() {
	local name=$1 arch=$2 kpkg=$3 suite=$4 dir=$5
	shift 5
	local args=("$@") mem=${MEM:-512} smp=${SMP:-1} efi kdir kimg conf params swap_mb mods qargs vol
	efi=$BUILD/efiresume-$arch.efi
	[ -f "$efi" ] || { echo "  no $efi (make $efi)" >&2; return 1; }
	kdir=$(kernel_dir "$kpkg" $suite) || { echo "  cannot fetch $kpkg $suite" >&2; return 1; }
	kimg=$(kernel_image "$kdir")
	vol=$(vol_kind "${args[@]}")
	qargs=$(fixture_qemu_args "$arch" "${args[@]}")
	mods=$(fixture_modules "$kdir" "${args[@]}" | awk '!seen[$0]++' | paste -sd' ')
	conf="# hibernation fixture $name
timeout 0
fallback \\vmlinuz.efi
options initrd=\\initrd.gz console=ttyS0 panic=-1 loglevel=7 ${args[*]}"
	params=$(
		echo "arch=$arch"
		echo "kpkg=$kpkg"
		echo "suite=$suite"
		echo "kernel=$(basename "$kdir")"
		echo "mem=$mem"
		echo "smp=$smp"
		echo "args=${args[*]}"
		echo "modules=$mods"
		echo "qemu_args=$qargs"
		echo "init=$(fixture_init "${args[@]}" | md5sum | cut -d' ' -f1)"
		echo "conf=$(echo "$conf" | md5sum | cut -d' ' -f1)"
		# (swap on LVM / in LUKS: the host tools copied into the initramfs)
		[ -z "$vol" ] || echo "volumes=$vol $(vol_params)"
	)
	# built by this efiresume: .done newer than the binary, or the same binary
	# content (make relinks it often without a change)
	# The image does not depend on efiresume (boot 1 only starts the fallback), so a
	# fixture is kept across efiresume rebuilds; FIXTURE_REBUILD=1 forces a new one.
	if [ -f "$dir/.done" ] && [ "$(cat "$dir/params" 2>/dev/null)" = "$params" ] &&
	   [ -z "${FIXTURE_REBUILD:-}" ]; then
		say "fixture $name: cached ($dir)"
		return 0
	fi

	say "fixture $name: building ($arch, $(basename "$kdir"), ${mem} MiB, $smp vCPU, args: ${args[*]}${qargs:+, qemu $qargs})"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$params" > "$dir/params"
	fixture_init "${args[@]}" > "$dir/init"
	echo "$conf" > "$dir/efiresume.conf"
	make_initramfs "$arch" "$kdir" "$dir/init" "$dir/initrd.gz"
	fixture_add_modules "$kdir" "$dir/initrd.gz" $mods
	[ -z "$vol" ] || vol_add_tools "$dir/initrd.gz"
	# the swap partition holds the whole image even when nothing can be freed
	# (efiresume_swapfile: an ext4 partition with a swap file of that size, plus room)
	swap_mb=$((mem + 64))
	# (efiresume_mbr: a DOS partition table instead of GPT)
	local swap_page=0 extra_mb=0 label=gpt swap_id=PARTUUID=$SWAP_PARTUUID
	case " ${args[*]} " in *" efiresume_swapfile "*) extra_mb=96 ;; esac
	case " ${args[*]} " in *" efiresume_mbr "*) label=mbr swap_id=PARTUUID=$MBR_SWAP_ID ;; esac
	make_disk "$dir/disk.img" $((swap_mb + extra_mb)) $label
	esp_put "$dir/disk.img" "$efi" "::/EFI/BOOT/$(efi_boot_name "$arch")"
	esp_put "$dir/disk.img" "$dir/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	esp_put "$dir/disk.img" "$kimg" ::/vmlinuz.efi
	esp_put "$dir/disk.img" "$dir/initrd.gz" ::/initrd.gz
	# efiresume_keepswap: the guest keeps the swap header made here on the host
	case " ${args[*]} " in *" efiresume_keepswap "*) mkswap_disk "$dir/disk.img" $SWAP_PARTUUID ;; esac
	# swap on LVM / in LUKS2: partition 2 typed as Debian's installer does (Linux LVM;
	# LUKS: Linux LUKS), not as swap: efiresume has to look inside it
	case $vol in
	lvm) sgdisk -t2:8e00 "$dir/disk.img" >/dev/null ;;
	luks) sgdisk -t2:8309 "$dir/disk.img" >/dev/null ;;
	esac
	if [ $extra_mb -gt 0 ]; then
		swap_page=$(make_swapfile_fs "$dir/disk.img") || return 1
		echo "  swap file: header at page $swap_page of partition 2 (ext4)"
	fi
	new_vars "$arch" "$dir/vars.fd"

	local rc=0 t0 t1 ok=0 log=$dir/serial.log
	t0=$(date +%s.%N)
	MEM=$mem SMP=$smp run_qemu "$arch" "$dir/disk.img" "$dir/vars.fd" "$log" "$FIXTURE_TIMEOUT" $qargs || rc=$?
	t1=$(date +%s.%N)
	echo "  boot 1: qemu exit status $rc after $(fmt_secs "$t0" "$t1") s"
	[ $rc -eq 0 ] || fail "QEMU did not power off cleanly (status $rc; 124 = timeout)"
	expect "$log" '^EFIRESUME-TEST: token=[0-9a-f]{32}$' "token printed" || ok=1
	expect "$log" '^EFIRESUME-TEST: md5=[0-9a-f]{32}$' "md5 printed" || ok=1
	expect "$log" '^EFIRESUME-TEST: hibernating$' "hibernating" || ok=1
	expect_not "$log" 'EFIRESUME-TEST: (hibernate failed|resumed)|Kernel panic|(mkswap|swapon|mount) failed' \
		"no failure in boot 1" || ok=1
	expect "$log" 'reboot: Power down' "kernel powered off" || ok=1
	local sig
	if [ -n "$vol" ]; then
		# swap on LV vg0/swap_1: its first page, found with lvm2 (pe_start, the LV's
		# first extent) on partition 2 or on the LUKS payload decrypted with the volume
		# key cryptsetup reports (tests/lib/volumes.sh)
		expect "$log" '^EFIRESUME-TEST: swap on LV vg0/swap_1 \([0-9]+:[0-9]+\)$' "guest swaps on LV vg0/swap_1" || ok=1
		expect_not "$log" '^EFIRESUME-TEST: .*failed' "no failed step in the guest" || ok=1
		if [ "$vol" = luks ]; then
			expect "$log" '^EFIRESUME-TEST: luks=[0-9a-f-]{36} ' "guest made a LUKS2 container" || ok=1
		fi
		vol_facts "$vol" "$dir/disk.img" > "$dir/facts" || fail "no LVM/LUKS facts from the host tools"
		sed 's/^luks_key=.*/luks_key=(volume key)/; s/^/  /' "$dir/facts"
		sig=$(vol_swap_sig "$dir" "$dir/disk.img")
	else
		sig=$(SWAP_PAGE=$swap_page swap_sig "$dir/disk.img")
	fi
	if [ "$sig" = S1SUSPEND ]; then pass "swap signature $sig"; else fail "swap signature '$sig'"; fi
	[ $ok -eq 0 ] || { echo "  fixture $name FAILED; see $dir" >&2; return 1; }

	[ -z "$vol" ] || mv "$dir/facts" "$dir/facts.vol"
	write_facts "$log.txt" > "$dir/facts" <<FACTS
name=$name
arch=$arch
kpkg=$kpkg
suite=$suite
kernel=$(basename "$kdir")
mem=$mem
smp=$smp
swap_mb=$swap_mb
swap_page=$swap_page
swap_id=$swap_id
args=${args[*]}
extra_modules=$mods
qemu_args=$qargs
boot_seconds=$(fmt_secs "$t0" "$t1")
efiresume=$(md5sum < "$efi" | cut -d' ' -f1)
FACTS
	[ -z "$vol" ] || { cat "$dir/facts.vol" >> "$dir/facts"; rm -f "$dir/facts.vol"; }
	touch "$dir/.done"
	say "fixture $name: done"
}

fmt_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# write_facts LOG.txt < fixed lines: the fixed lines, then what boot 1's log tells
write_facts() {
	local t=$1
	cat
	# first capture group of the first line matching an extended regex
	grab() { sed -nE "s|.*$1.*|\\1|p" "$t" | head -1; }
	echo "uname=$(grab 'EFIRESUME-TEST: booted (.*)$')"
	echo "token=$(grab 'EFIRESUME-TEST: token=([0-9a-f]+)')"
	echo "md5=$(grab 'EFIRESUME-TEST: md5=([0-9a-f]+)')"
	echo "allocated_pages=$(grab 'Allocated ([0-9]+) pages for snapshot')"
	echo "need_copy_pages=$(grab 'Need to copy ([0-9]+) pages')"
	echo "image_pages=$(grab 'Image created \(([0-9]+) pages copied')"
	# 6.12 leaves pages that are all zero out of the image ("N zero pages")
	echo "zero_pages=$(grab 'Image created \([0-9]+ pages copied, ([0-9]+) zero pages')"
	# data pages plus metadata (PFN) pages, as the swap writer counts them
	echo "saving_pages=$(sed -nE 's|.*[Ss]aving image data (pages )?\(([0-9]+) pages\).*|\2|p' "$t" | head -1)"
	local comp
	comp=$(grab 'for ([0-9a-z]+) compression')
	if [ -z "$comp" ]; then
		if grep -aq 'Compressing and saving image data' "$t"; then comp=lzo; else comp=none; fi
	fi
	echo "compressor=$comp"
	echo "wrote_kbytes=$(grab 'Wrote ([0-9]+) kbytes')"
	echo "wrote_seconds=$(grab 'Wrote [0-9]+ kbytes in ([0-9.]+) seconds')"
	echo "wrote_mbps=$(grab 'Wrote [0-9]+ kbytes in [0-9.]+ seconds \(([0-9.]+) MB/s\)')"
	echo "compressed_kbytes=$(grab 'Image size after compression: ([0-9]+) kbytes')"
}

# copy_fixture NAME DEST: a private, mutable copy of the hibernated disk and its variables
copy_fixture() {
	local src
	src=$(fixture_dir "$1")
	mkdir -p "$2"
	# under the fixture's lock: not while make_fixture is rebuilding it
	(
		flock 9
		[ -f "$src/.done" ] || { echo "  fixture $1 not built" >&2; exit 1; }
		cp --sparse=always "$src/disk.img" "$2/disk.img"
		cp --sparse=always "$src/vars.fd" "$2/vars.fd"
		cp "$src/facts" "$2/facts"
	) 9> "$CACHE/fixtures/.$1.lock"
}
