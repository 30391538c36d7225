// SPDX-License-Identifier: GPL-2.0-or-later
/* The seeds writer (tests/seeds/): what its C code, its assembly and the host checker
 * share. The writer plays a 2.6.8 kernel patched with kernel-patch/: it snapshots its
 * own working set with the seeds' swsusp algorithm, writes the firmware-resumable
 * 2004 image (image/swsusp2004.h) to the swap partition, and when efiresume enters
 * its swsusp_fw_resume it checks its memory and reports on the serial port.
 *
 * Included from C (EFI and host) and from the assembly (__ASSEMBLY__). */
#ifndef EFIRESUME_TESTS_SEEDS_H
#define EFIRESUME_TESTS_SEEDS_H

/* PAGE_OFFSET of the direct map the writer builds and records (fw_page_offset):
 * x86_64 0xffff888000000000 (4-level, 2 MiB pages), i386 0xC0000000 (2-level, 4 MiB) */
#define SEEDS_PAGE_OFFSET_X64  0xffff888000000000
#define SEEDS_PAGE_OFFSET_I386 0xc0000000

/* seeds_arch_suspend() returns what seeds_save() returned (0: snapshot taken);
 * through swsusp_fw_resume it returns SEEDS_RESUMED. */
#define SEEDS_RESUMED 1

/* Selectors of the writer's own GDT (the ones efiresume's hand-off uses too:
 * x86_64 __KERNEL_CS/__KERNEL_DS 0x10/0x18, i386 0x60/0x68). */
#define SEEDS_CS64 0x10
#define SEEDS_DS64 0x18
#define SEEDS_CS32 0x60
#define SEEDS_DS32 0x68
#define SEEDS_GDT_ENTRIES 16

/* The saved context (struct seeds_ctx in writer.c), word-sized slots. W = 8 / 4. */
#define SEEDS_CTX_SP(W)     (0 * (W))
#define SEEDS_CTX_BX(W)     (1 * (W))
#define SEEDS_CTX_BP(W)     (2 * (W))
#define SEEDS_CTX_SI(W)     (3 * (W))
#define SEEDS_CTX_DI(W)     (4 * (W))
#define SEEDS_CTX_R12(W)    (5 * (W))
#define SEEDS_CTX_R13(W)    (6 * (W))
#define SEEDS_CTX_R14(W)    (7 * (W))
#define SEEDS_CTX_R15(W)    (8 * (W))
#define SEEDS_CTX_FLAGS(W)  (9 * (W))
#define SEEDS_CTX_CR0(W)    (10 * (W))
#define SEEDS_CTX_CR3(W)    (11 * (W))   /* fw_cr3: the writer's own page tables */
#define SEEDS_CTX_CR4(W)    (12 * (W))
#define SEEDS_CTX_NOSB(W)   (13 * (W))   /* .data.nosave [begin, end), identity addresses */
#define SEEDS_CTX_NOSE(W)   (14 * (W))
#define SEEDS_CTX_GDTR(W)   (15 * (W))   /* u16 limit, then the base (W bytes) */
#define SEEDS_CTX_SIZE(W)   (15 * (W) + 16)

#ifndef __ASSEMBLY__
#include <stdint.h>

/* The test buffer's content: 64-bit word i of a buffer made with `seed`
 * (splitmix64 of seed + (i + 1) * golden ratio). */
static inline uint64_t seeds_pattern(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* checksum of n 64-bit words (FNV-1a over words) */
static inline uint64_t seeds_checksum(const volatile uint64_t *w, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}
#endif

#endif
