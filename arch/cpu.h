// SPDX-License-Identifier: GPL-2.0-or-later
/* CPU facts: CPUID (the one helper), and the NX facts both restore routines depend
 * on. Header-only and pure C (no EFI type): arch/x86_64, arch/i386 and crypto/ (the
 * AES-NI and SHA-NI probes) include it; it includes only image/freestanding.h. The
 * MSR and NX parts run in the loader before the point of no return. */
#ifndef EFIRESUME_ARCH_CPU_H
#define EFIRESUME_ARCH_CPU_H

#include "image/freestanding.h"

/* CPUID leaf, subleaf: eax, ebx, ecx, edx */
static inline void er_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

/* CPUID.1 has every bit of ecx_bits in ECX and of edx_bits in EDX, and SSE instructions run
 * (in the EFI build: CR4.OSFXSR, which the firmware sets; without it they fault with #UD).
 * The one probe of the SIMD paths (AES-NI, PCLMULQDQ, ...). */
static inline bool er_cpu_has_sse_features(uint32_t ecx_bits, uint32_t edx_bits)
{
	uint32_t a, b, c, d;

	er_cpuid(0, 0, &a, &b, &c, &d);
	if (a < 1)
		return false;
	er_cpuid(1, 0, &a, &b, &c, &d);
	if ((c & ecx_bits) != ecx_bits || (d & edx_bits) != edx_bits)
		return false;
#ifdef EFIRESUME_EFI
	{
		unsigned long cr4;
		__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
		if (!(cr4 & (1ul << 9)))
			return false;
	}
#endif
	return true;
}

static inline bool er_cpu_is_intel(void)
{
	uint32_t a, b, c, d;
	er_cpuid(0, 0, &a, &b, &c, &d);
	return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;   /* "GenuineIntel" */
}

#define ER_MSR_MISC_ENABLE 0x1a0u
#define ER_MISC_XD_DISABLE (1ull << 34)

/* Intel's IA32_MISC_ENABLE.XD_DISABLE (bit 34) hides NX from CPUID; a firmware setup
 * option sets it. Linux clears it at every boot, so the image's page tables carry NX
 * bits regardless: clear it the same way. TRUE when it was set (and is now clear). */
static inline bool er_cpu_clear_xd_disable(void)
{
	uint32_t lo, hi;
	if (!er_cpu_is_intel())
		return false;   /* the MSR is Intel's; others fault on it */
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(ER_MSR_MISC_ENABLE));
	uint64_t v = ((uint64_t)hi << 32) | lo;
	if (!(v & ER_MISC_XD_DISABLE))
		return false;
	v &= ~ER_MISC_XD_DISABLE;
	__asm__ __volatile__("wrmsr" : : "a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "c"(ER_MSR_MISC_ENABLE));
	return true;
}

/* CPUID.80000001h:EDX.NX, read now (after er_cpu_clear_xd_disable). */
static inline bool er_cpu_has_nx(void)
{
	uint32_t a, b, c, d;
	er_cpuid(0x80000000u, 0, &a, &b, &c, &d);
	if (a < 0x80000001u)
		return false;
	er_cpuid(0x80000001u, 0, &a, &b, &c, &d);
	return (d & (1u << 20)) != 0;
}

#define ER_PTE_NX      (1ull << 63)
#define ER_PTE_ADDR    0x000ffffffffff000ull
#define ER_NX_WALK_MAX 8192u   /* page-table pages looked at, at most */

/* content(ctx, pfn): where the loaded content of an image frame is (NULL: all zero or absent) */
struct er_nx_walk {
	const uint8_t *(*content)(const void *ctx, uint64_t pfn);
	const void *ctx;
	uint32_t tables;
	bool found, gave_up;
};

/* Does a present entry at this level or below carry NX? level 1 = page table; entries
 * with PS (bit 7) at levels 2 and 3 are leaves. 64-bit entries (x86_64, PAE). */
static inline void er_nx_walk_table(struct er_nx_walk *w, const uint8_t *t, size_t first, size_t count, int level)
{
	for (size_t i = first; i < first + count && !w->found && !w->gave_up; i++) {
		uint64_t e = er_le64(t + 8 * i);
		if (!(e & 1))
			continue;
		if (e & ER_PTE_NX) {
			w->found = true;
			return;
		}
		if (level == 1 || ((level == 2 || level == 3) && (e & 0x80)))
			continue;
		if (++w->tables > ER_NX_WALK_MAX) {
			w->gave_up = true;
			return;
		}
		const uint8_t *next = w->content(w->ctx, (e & ER_PTE_ADDR) >> 12);
		if (next)
			er_nx_walk_table(w, next, 0, 512, level - 1);
	}
}

/* Whether the image kernel's page tables (at image_cr3, whose page's content is
 * cr3_page) use NX: levels 4 (x86_64) or 3 (PAE, whose 4 top entries sit at cr3
 * inside its page). Tables that cannot all be looked at count as using NX. */
static inline bool er_image_uses_nx(const uint8_t *cr3_page, uint64_t image_cr3,
				    const uint8_t *(*content)(const void *ctx, uint64_t pfn), const void *ctx, int levels)
{
	struct er_nx_walk w = { content, ctx, 0, false, false };
	if (!cr3_page)
		return true;
	if (levels == 3)
		er_nx_walk_table(&w, cr3_page, (image_cr3 & 0xfe0) / 8, 4, 3);
	else
		er_nx_walk_table(&w, cr3_page, 0, 512, 4);
	return w.found || w.gave_up;
}

#endif
