# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume — build, test, demo, bench.
#   make            build/efiresume-x64.efi and build/efiresume-ia32.efi (+ host tools)
#   make test       install what is missing, then run every test; ends with "N passed, N failed"
#   make demo       hibernate a real kernel in QEMU and resume it through efiresume
#   make bench      benchmarks (medians and ratios)
#   make fuzz       libFuzzer targets for a bounded time (FUZZ_SECONDS, default 60 each)

BUILD   ?= build
# the version (0~git<count>.<hash>[+dirty]): $(BUILD)/version, rewritten on every run of make
# when it changed; the EFI binaries carry it and build-deb.sh names the .deb with it
VERSION := $(shell packaging/version.sh $(BUILD)/version)
HOSTCC  ?= gcc
CLANG   ?= clang
WARN     = -Wall -Wextra -Werror
SHELL    = /bin/bash

# ---------------------------------------------------------------- EFI binaries
# The pure-C libraries, built for the firmware and for the host alike (see each folder's README):
# image/ (the hibernation image format; its freestanding base is below everything),
# crypto/ (ciphers, hashes, KDFs, wiping) and volume/ (LVM2, LUKS, JSON, filesystem prints, GUIDs).
LIB_SRCS  = $(wildcard image/*.c) $(wildcard crypto/*.c) $(wildcard volume/*.c)
# tpm/ (TPM 2.0 command marshalling and session crypto, tpm/README)
LIB_SRCS += $(wildcard tpm/*.c)
EFI_SRCS  = $(wildcard efi/*.c) $(wildcard loader/*.c) $(LIB_SRCS)
EFI_INC   = -I. -I/usr/include/efi -I/usr/include/efi/protocol
EFI_CFLAGS = $(WARN) -O2 -g0 -std=gnu11 -fpic -ffreestanding -fno-stack-protector -fno-strict-aliasing \
	-fshort-wchar -fno-builtin -fno-tree-loop-distribute-patterns -DEFIRESUME_EFI -DEFIRESUME_VERSION=\"$(VERSION)\" $(EFI_INC)

# Per-arch settings: x64 <-> x86_64 gnu-efi, ia32 <-> ia32 gnu-efi.
x64_CFLAGS   = -DEFIRESUME_ARCH=\"x64\" -DEFIRESUME_ARCH_X64 -mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -I/usr/include/efi/x86_64
x64_LIBDIR   = /usr/lib
x64_CRT0     = crt0-efi-x86_64.o
x64_LDS      = elf_x86_64_efi.lds
x64_LDARCH   =
x64_TARGET   = efi-app-x86_64
x64_ARCHDIR  = arch/x86_64
x64_BADRELOC = R_X86_64_(64|32|32S|PC32|PLT32|GOTPCREL)[^A-Z]

ia32_CFLAGS   = -DEFIRESUME_ARCH=\"ia32\" -DEFIRESUME_ARCH_IA32 -m32 -malign-double -march=i686 -mno-sse -mno-mmx -I/usr/include/efi/ia32
ia32_LIBDIR   = /usr/lib32
ia32_CRT0     = crt0-efi-ia32.o
ia32_LDS      = elf_ia32_efi.lds
ia32_LDARCH   = -m elf_i386
ia32_TARGET   = efi-app-ia32
ia32_ARCHDIR  = arch/i386
ia32_BADRELOC = R_386_(32|PC32|GOT32|PLT32)[^A-Z]

ARCHES = x64 ia32

SEEDS = $(foreach a,$(ARCHES),$(BUILD)/seeds-writer-$(a).efi) $(BUILD)/seeds-check

all: $(foreach a,$(ARCHES),$(BUILD)/efiresume-$(a).efi) host $(SEEDS)

# link an EFI shared object for arch $(1) from $^, then the build check: no undefined
# symbols, no absolute (non-RELATIVE) relocations
define link_efi_so
$(LD) $($(1)_LDARCH) -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined \
	-T $($(1)_LIBDIR)/$($(1)_LDS) $($(1)_LIBDIR)/$($(1)_CRT0) $^ \
	-L$($(1)_LIBDIR) -lefi -lgnuefi $$($(CC) $($(1)_CFLAGS) -print-libgcc-file-name) -o $@
@if nm -u $@ | grep -q .; then echo "undefined symbols in $@:"; nm -u $@; rm -f $@; exit 1; fi
@if readelf -rW $@ | grep -E '$($(1)_BADRELOC)'; then echo "absolute relocations in $@"; rm -f $@; exit 1; fi
endef

define objcopy_efi
objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j .rel.* -j .rela.* \
	-j .reloc -j .sbat --target $($(1)_TARGET) --subsystem=10 $< $@
endef

# SBAT (shim 15.3+ refuses a binary without it; https://github.com/rhboot/shim/blob/main/SBAT.md):
# the generation number (field 2 of the efiresume line) goes up when a security fix must
# revoke every older efiresume. The section is page-aligned (efi/sbat.S) and kept by objcopy.
# 2: contract v2 (a v1 efiresume pushes its hibernation key to whatever it starts: a machine
# whose SBAT level asks for efiresume,2 refuses those binaries).
SBAT_GENERATION = 2
SBAT_URL = https://a-seed-7573cdee.example/efiresume
$(BUILD)/sbat.csv: FORCE
	@mkdir -p $(dir $@)
	printf 'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\nefiresume,%s,efiresume,efiresume,%s,%s\n' \
		'$(SBAT_GENERATION)' '$(VERSION)' '$(SBAT_URL)' > $@.tmp
	@if [ -f $@ ] && cmp -s $@ $@.tmp; then rm $@.tmp; else mv $@.tmp $@; fi
FORCE:
.PHONY: FORCE

define efi_arch
$(1)_SRCS = $$(EFI_SRCS) $$(wildcard $$($(1)_ARCHDIR)/*.c)
$(1)_ASRCS = $$(wildcard $$($(1)_ARCHDIR)/*.S)
$(1)_OBJS = $$(patsubst %.c,$(BUILD)/$(1)/%.o,$$($(1)_SRCS)) $$(patsubst %.S,$(BUILD)/$(1)/%.o,$$($(1)_ASRCS))

$(BUILD)/$(1)/%.o: %.c $$(wildcard */*.h) $$(wildcard arch/*/*.h)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(EFI_CFLAGS) $$($(1)_CFLAGS) -I$$($(1)_ARCHDIR) -c $$< -o $$@

$(BUILD)/$(1)/%.o: %.S
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) -I$$($(1)_ARCHDIR) -D__ASSEMBLY__ -c $$< -o $$@

# efi/main.c prints EFIRESUME_VERSION: rebuilt when the version changes
$(BUILD)/$(1)/efi/main.o: $(BUILD)/version

$(BUILD)/$(1)/sbat.o: efi/sbat.S $(BUILD)/sbat.csv
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) -DSBAT_CSV=\"$(BUILD)/sbat.csv\" -c $$< -o $$@

$(BUILD)/$(1)/efiresume.so: $$($(1)_OBJS) $(BUILD)/$(1)/sbat.o
	$$(call link_efi_so,$(1))

$(BUILD)/efiresume-$(1).efi: $(BUILD)/$(1)/efiresume.so
	$$(call objcopy_efi,$(1))

# The seeds' reference writer (tests/seeds/): an EFI program that plays a patched 2004 kernel
$(BUILD)/seeds/$(1)/writer.o: tests/seeds/writer.c tests/seeds/seeds.h image/swsusp2004.h image/freestanding.h image/reader.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$(EFI_CFLAGS) $$($(1)_CFLAGS) -c $$< -o $$@

$(BUILD)/seeds/$(1)/arch_$(1).o: tests/seeds/arch_$(1).S tests/seeds/seeds.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) -D__ASSEMBLY__ -c $$< -o $$@

$(BUILD)/seeds/$(1)/seeds-writer.so: $(BUILD)/seeds/$(1)/writer.o $(BUILD)/seeds/$(1)/arch_$(1).o
	$$(call link_efi_so,$(1))

$(BUILD)/seeds-writer-$(1).efi: $(BUILD)/seeds/$(1)/seeds-writer.so
	$$(call objcopy_efi,$(1))
endef
$(foreach a,$(ARCHES),$(eval $(call efi_arch,$(a))))

# ---------------------------------------------------------------- host side
HOST_CFLAGS = $(WARN) -O2 -g -std=gnu11 -I. -DEFIRESUME_HOST
SAN_FLAGS   = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HOST_LIB_SRCS = $(LIB_SRCS) loader/config.c loader/location.c loader/select.c loader/commit.c loader/parallel.c loader/seen.c loader/plan.c loader/vgs.c loader/lanes.c loader/twins.c loader/kdfbudget.c loader/auth.c loader/tpmunlock.c loader/hibkey_tpm.c
HOST_LIB_OBJS = $(patsubst %.c,$(BUILD)/host/%.o,$(HOST_LIB_SRCS))
HOST_SAN_OBJS = $(patsubst %.c,$(BUILD)/host-san/%.o,$(HOST_LIB_SRCS))
UNIT_SRCS   = $(wildcard tests/unit/test_*.c)
UNIT_BINS   = $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS)) \
	      $(patsubst tests/unit/%.c,$(BUILD)/unit-O2/%,$(UNIT_SRCS))
UNIT_LIBS   = -lcmocka -llzo2 -llz4 -lz -lcrypto -largon2 -lpthread
TOOL_SRCS   = $(wildcard tools/*.c)
TOOL_BINS   = $(patsubst tools/%.c,$(BUILD)/%,$(TOOL_SRCS))

host: $(TOOL_BINS) $(UNIT_BINS) $(BUILD)/hibkey-tpm-driver

$(BUILD)/host/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/host-san/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $(SAN_FLAGS) -c $< -o $@

# Unit tests run under ASan+UBSan.
$(BUILD)/unit/%: tests/unit/%.c $(HOST_SAN_OBJS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $(SAN_FLAGS) $< $(HOST_SAN_OBJS) $(UNIT_LIBS) -o $@

# ... and again optimised without sanitizers (miscompilation-prone code shows up here)
$(BUILD)/unit-O2/%: tests/unit/%.c $(HOST_LIB_OBJS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB_OBJS) $(UNIT_LIBS) -o $@

# loader/hibkey_tpm.c against swtpm (tests/host/test-tpm-seal.sh), under ASan+UBSan
$(BUILD)/hibkey-tpm-driver: tests/host/hibkey_tpm_driver.c $(HOST_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $(SAN_FLAGS) $< $(HOST_SAN_OBJS) $(UNIT_LIBS) -o $@

$(BUILD)/seeds-check: tests/seeds/check-image.c tests/seeds/seeds.h $(HOST_LIB_OBJS)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB_OBJS) -o $@

# swsusp-inspect ships in the .deb: it links nothing beyond libc
$(BUILD)/swsusp-inspect: tools/swsusp-inspect.c $(HOST_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB_OBJS) -o $@

# efiresume-efivar (the installer's reader of binary EFI variables) ships in the .deb: it
# links libc, libefiboot and libefivar (libefiboot-dev, libefivar-dev); its unit test and
# fuzz target compile it in (EFV_NO_MAIN)
EFIVAR_CFLAGS = $(shell pkg-config --cflags efiboot efivar 2>/dev/null || echo -I/usr/include/efivar)
EFIVAR_LIBS   = -lefiboot -lefivar
$(BUILD)/efiresume-efivar: tools/efiresume-efivar.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $(EFIVAR_CFLAGS) $< $(EFIVAR_LIBS) -o $@
$(BUILD)/unit/test_efivar_helper $(BUILD)/unit-O2/test_efivar_helper: tools/efiresume-efivar.c
$(BUILD)/unit/test_efivar_helper $(BUILD)/unit-O2/test_efivar_helper: private HOST_CFLAGS += $(EFIVAR_CFLAGS)
$(BUILD)/unit/test_efivar_helper $(BUILD)/unit-O2/test_efivar_helper: private UNIT_LIBS += $(EFIVAR_LIBS)
$(BUILD)/fuzz/fuzz_efivar_helper: tools/efiresume-efivar.c
$(BUILD)/fuzz/fuzz_efivar_helper: private FUZZ_CFLAGS += $(EFIVAR_CFLAGS) -Wl,--push-state,--no-as-needed $(EFIVAR_LIBS) -Wl,--pop-state

$(BUILD)/%: tools/%.c $(HOST_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LIB_OBJS) $(UNIT_LIBS) -o $@

# ---------------------------------------------------------------- fuzzing
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -g -O1 -I. -DEFIRESUME_HOST
# the library once (coverage-instrumented, no fuzzer main), then one link per target
FUZZ_LIB_OBJS = $(patsubst %.c,$(BUILD)/fuzzlib/%.o,$(HOST_LIB_SRCS))
$(BUILD)/fuzzlib/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS) $(wildcard tests/fuzz/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< $(FUZZ_LIB_OBJS) -o $@
fuzz-build: $(FUZZ_BINS)
fuzz: deps $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# ---------------------------------------------------------------- top-level jobs
deps:
	tests/lib/deps.sh

test: deps
	$(MAKE) -j$$(nproc) all fuzz-build
	$(MAKE) deb
	tests/run-all.sh

unit: all
	tests/run-all.sh unit

# the kernel tier (tests/e2e/cases-kernel): builds the test kernel when it is not cached (make
# test runs the tier only once it is), then runs it
test-kernel: deps
	$(MAKE) -j$$(nproc) all
	$(MAKE) deb
	tests/run-all.sh kernel

# the slow tier (tests/e2e/cases-slow): builds what it needs (the test kernel), then runs it
test-slow: deps
	$(MAKE) -j$$(nproc) all
	$(MAKE) kernel deb
	tests/run-all.sh slow

demo: deps
	$(MAKE) all
	tests/demo.sh

# the seeds' 2004 format alone: reference writer -> efiresume, both architectures
test-seeds: deps
	$(MAKE) all
	tests/run-all.sh seeds

bench: deps
	$(MAKE) all deb
	tests/bench.sh

# N hibernate/resume cycles through efiresume of one system writing an ext4 partition
CYCLES ?= 20
soak: deps
	$(MAKE) all
	tests/e2e/soak.sh $(CYCLES)

clean:
	rm -rf $(BUILD)

.PHONY: all host deps test test-kernel test-slow test-seeds unit demo bench soak fuzz fuzz-build clean
.SECONDARY:

# the Debian package: build/efiresume_<version>_amd64.deb (packaging/build-deb.sh)
deb: all
	packaging/build-deb.sh
$(BUILD)/version:
	@packaging/version.sh $@ >/dev/null
.PHONY: deb

# ---------------------------------------------------------------- test kernel (kernel-patch/6.12)
# make kernel: Debian's linux-source-6.12 + kernel-patch/6.12/*.patch, tinyconfig + kernel-patch/6.12/config,
# built once into $(EFIRESUME_CACHE)/kernel-<hash>/bzImage (tests/lib/kernel-build.sh; prints the path).
# KERNEL_JOBS: make -j of the kernel build (default 2). KERNEL_FLAGS=--unpatched: without the series.
KERNEL_JOBS  ?= 2
KERNEL_FLAGS ?=
kernel: deps
	KERNEL_JOBS=$(KERNEL_JOBS) tests/lib/kernel-build.sh $(KERNEL_FLAGS)
.PHONY: kernel

# Secure Boot: sign both EFI binaries with sbsign (sbsigntool):
#   make sign KEY=db.key CERT=db.crt  ->  build/efiresume-x64.signed.efi, -ia32.signed.efi
# KEY must be unencrypted (or an engine key sbsign understands); the unsigned binaries stay.
# Each signed binary is written under a temporary name, verified, then renamed: two tests
# signing at once (run-all runs two cases at a time) never read a half-written file.
SIGNED = $(foreach a,$(ARCHES),$(BUILD)/efiresume-$(a).signed.efi)
sign: $(foreach a,$(ARCHES),$(BUILD)/efiresume-$(a).efi)
	@[ -n "$(KEY)" ] && [ -n "$(CERT)" ] || { echo "usage: make sign KEY=<private key> CERT=<PEM certificate>"; exit 1; }
	@for a in $(ARCHES); do \
		t=$(BUILD)/efiresume-$$a.signed.efi.$$$$; \
		sbsign --key '$(KEY)' --cert '$(CERT)' --output $$t $(BUILD)/efiresume-$$a.efi || { rm -f $$t; exit 1; }; \
		sbverify --cert '$(CERT)' $$t || { rm -f $$t; exit 1; }; \
		mv -f $$t $(BUILD)/efiresume-$$a.signed.efi || exit 1; \
	done
.PHONY: sign
