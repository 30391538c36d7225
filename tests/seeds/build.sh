#!/usr/bin/env bash
# Builds the seeds writer (tests/seeds/) into build/seeds-writer-x64.efi and
# build/seeds-writer-ia32.efi with the Makefile's EFI flags, linker script, link line,
# build checks (no undefined symbols, no absolute relocations) and objcopy, and the
# host checker build/seeds-check (against build/host/image/*.o; `make host` first).
# Stand-in until the Makefile has rules for it (the commands below are those rules).
#   tests/seeds/build.sh [x64] [ia32] [check]     (default: all three)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
LD=${LD:-ld}
HOSTCC=${HOSTCC:-gcc}
VERSION=$(git describe --always --dirty 2>/dev/null || echo unknown)
WARN=(-Wall -Wextra -Werror)
EFI_CFLAGS=("${WARN[@]}" -O2 -g0 -std=gnu11 -fpic -ffreestanding -fno-stack-protector -fno-strict-aliasing
	-fshort-wchar -fno-builtin -fno-tree-loop-distribute-patterns -DEFIRESUME_EFI "-DEFIRESUME_VERSION=\"$VERSION\""
	-I. -I/usr/include/efi -I/usr/include/efi/protocol)

build_arch() {
	local a=$1 cflags libdir crt0 lds ldarch target badreloc out so
	case $a in
	x64)
		cflags=("-DEFIRESUME_ARCH=\"x64\"" -DEFIRESUME_ARCH_X64 -mno-red-zone -maccumulate-outgoing-args
			-DGNU_EFI_USE_MS_ABI -I/usr/include/efi/x86_64)
		libdir=/usr/lib crt0=crt0-efi-x86_64.o lds=elf_x86_64_efi.lds ldarch=() target=efi-app-x86_64
		badreloc='R_X86_64_(64|32|32S|PC32|PLT32|GOTPCREL)[^A-Z]' ;;
	ia32)
		cflags=("-DEFIRESUME_ARCH=\"ia32\"" -DEFIRESUME_ARCH_IA32 -m32 -march=i686 -mno-sse -mno-mmx
			-I/usr/include/efi/ia32)
		libdir=/usr/lib32 crt0=crt0-efi-ia32.o lds=elf_ia32_efi.lds ldarch=(-m elf_i386) target=efi-app-ia32
		badreloc='R_386_(32|PC32|GOT32|PLT32)[^A-Z]' ;;
	esac
	out=$BUILD/seeds/$a
	so=$out/seeds-writer.so
	mkdir -p "$out"
	# the Makefile's %.o: %.c and %.o: %.S rules
	$CC "${EFI_CFLAGS[@]}" "${cflags[@]}" -c tests/seeds/writer.c -o "$out/writer.o"
	$CC "${cflags[@]}" -D__ASSEMBLY__ -c "tests/seeds/arch_$a.S" -o "$out/arch_$a.o"
	# the Makefile's .so rule, with its build checks
	$LD "${ldarch[@]}" -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined \
		-T "$libdir/$lds" "$libdir/$crt0" "$out/writer.o" "$out/arch_$a.o" \
		-L"$libdir" -lefi -lgnuefi "$($CC "${cflags[@]}" -print-libgcc-file-name)" -o "$so"
	if nm -u "$so" | grep -q .; then echo "undefined symbols in $so:"; nm -u "$so"; rm -f "$so"; exit 1; fi
	if readelf -rW "$so" | grep -E "$badreloc"; then echo "absolute relocations in $so"; rm -f "$so"; exit 1; fi
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' -j '.rela.*' \
		-j .reloc --target "$target" --subsystem=10 "$so" "$BUILD/seeds-writer-$a.efi"
	echo "built $BUILD/seeds-writer-$a.efi"
}

build_check() {
	ls "$BUILD"/host/image/*.o >/dev/null 2>&1 || { echo "build/host/image/*.o missing: make host first" >&2; exit 1; }
	$HOSTCC "${WARN[@]}" -O2 -g -std=gnu11 -I. -DEFIRESUME_HOST tests/seeds/check-image.c "$BUILD"/host/image/*.o \
		-o "$BUILD/seeds-check"
	echo "built $BUILD/seeds-check"
}

what=("$@")
[ ${#what[@]} -gt 0 ] || what=(x64 ia32 check)
for w in "${what[@]}"; do
	case $w in
	x64|ia32) build_arch "$w" ;;
	check) build_check ;;
	*) echo "unknown target $w" >&2; exit 2 ;;
	esac
done
