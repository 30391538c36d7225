/* CPU facts both restore routines depend on: NX (execute-disable). Header-only, shared
 * by arch/x86_64 and arch/i386; runs before the point of no return. */
#ifndef EFIRESUME_ARCH_CPU_H
#define EFIRESUME_ARCH_CPU_H

#include "arch/handoff.h"

static inline void er_cpuid(UINT32 leaf, UINT32 sub, UINT32 *a, UINT32 *b, UINT32 *c, UINT32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline BOOLEAN er_cpu_is_intel(void)
{
	UINT32 a, b, c, d;
	er_cpuid(0, 0, &a, &b, &c, &d);
	return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;   /* "GenuineIntel" */
}

#define ER_MSR_MISC_ENABLE 0x1a0u
#define ER_MISC_XD_DISABLE (1ull << 34)

/* Intel's IA32_MISC_ENABLE.XD_DISABLE (bit 34) hides NX from CPUID; a firmware setup
 * option sets it. Linux clears it at every boot, so the image's page tables carry NX
 * bits regardless: clear it the same way. TRUE when it was set (and is now clear). */
static inline BOOLEAN er_cpu_clear_xd_disable(void)
{
	UINT32 lo, hi;
	if (!er_cpu_is_intel())
		return FALSE;   /* the MSR is Intel's; others fault on it */
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(ER_MSR_MISC_ENABLE));
	UINT64 v = ((UINT64)hi << 32) | lo;
	if (!(v & ER_MISC_XD_DISABLE))
		return FALSE;
	v &= ~ER_MISC_XD_DISABLE;
	__asm__ __volatile__("wrmsr" : : "a"((UINT32)v), "d"((UINT32)(v >> 32)), "c"(ER_MSR_MISC_ENABLE));
	return TRUE;
}

/* CPUID.80000001h:EDX.NX, read now (after er_cpu_clear_xd_disable). */
static inline BOOLEAN er_cpu_has_nx(void)
{
	UINT32 a, b, c, d;
	er_cpuid(0x80000000u, 0, &a, &b, &c, &d);
	if (a < 0x80000001u)
		return FALSE;
	er_cpuid(0x80000001u, 0, &a, &b, &c, &d);
	return (d & (1u << 20)) != 0;
}

#define ER_PTE_NX      (1ull << 63)
#define ER_PTE_ADDR    0x000ffffffffff000ull
#define ER_NX_WALK_MAX 8192u   /* page-table pages looked at, at most */

struct er_nx_walk {
	const struct er_handoff *h;
	UINT32 tables;
	BOOLEAN found, gave_up;
};

/* Does a present entry at this level or below carry NX? level 1 = page table; entries
 * with PS (bit 7) at levels 2 and 3 are leaves. 64-bit entries (x86_64, PAE). */
static inline void er_nx_walk_table(struct er_nx_walk *w, const UINT8 *t, UINTN first, UINTN count, int level)
{
	for (UINTN i = first; i < first + count && !w->found && !w->gave_up; i++) {
		UINT64 e = er_le64(t + 8 * i);
		if (!(e & 1))
			continue;
		if (e & ER_PTE_NX) {
			w->found = TRUE;
			return;
		}
		if (level == 1 || ((level == 2 || level == 3) && (e & 0x80)))
			continue;
		if (++w->tables > ER_NX_WALK_MAX) {
			w->gave_up = TRUE;
			return;
		}
		const UINT8 *next = w->h->frame_content(w->h->frame_ctx, (e & ER_PTE_ADDR) >> 12);
		if (next)
			er_nx_walk_table(w, next, 0, 512, level - 1);
	}
}

/* Whether the image kernel's page tables (at image_cr3) use NX: levels 4 (x86_64) or
 * 3 (PAE, whose 4 top entries sit at cr3 inside its page). Tables that cannot all be
 * looked at count as using NX. */
static inline BOOLEAN er_image_uses_nx(const struct er_handoff *h, int levels)
{
	struct er_nx_walk w = { h, 0, FALSE, FALSE };
	if (!h->cr3_page)
		return TRUE;
	if (levels == 3)
		er_nx_walk_table(&w, h->cr3_page, (h->image_cr3 & 0xfe0) / 8, 4, 3);
	else
		er_nx_walk_table(&w, h->cr3_page, 0, 512, 4);
	return w.found || w.gave_up;
}

#endif
