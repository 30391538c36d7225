// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for arch/cpu.h, now pure C: er_cpuid against the compiler's <cpuid.h>,
 * and er_image_uses_nx (the walk of the image kernel's page tables for NX bits) on
 * page tables built here, 4-level and PAE. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cpuid.h>

#include "arch/cpu.h"

#define NPAGES 8
#define P 1ull          /* present */
#define PS 0x80ull      /* large page at levels 2, 3 */

/* frames 100..100+NPAGES-1 hold these pages; anything else is absent */
static uint8_t pages[NPAGES][4096] __attribute__((aligned(4096)));

static const uint8_t *content(const void *ctx, uint64_t pfn)
{
	(void)ctx;
	return pfn >= 100 && pfn < 100 + NPAGES ? pages[pfn - 100] : NULL;
}

static void set(unsigned page, unsigned i, uint64_t e)
{
	for (unsigned b = 0; b < 8; b++)
		pages[page][8 * i + b] = (uint8_t)(e >> (8 * b));
}

static uint64_t frame(unsigned page)
{
	return (100ull + page) << 12;
}

static void t_cpuid(void **state)
{
	(void)state;
	unsigned int a, b, c, d;
	uint32_t ea, eb, ec, ed;
	assert_true(__get_cpuid(0, &a, &b, &c, &d));
	er_cpuid(0, 0, &ea, &eb, &ec, &ed);
	assert_int_equal(ea, a);
	assert_int_equal(eb, b);
	assert_int_equal(ec, c);
	assert_int_equal(ed, d);
	assert_true(__get_cpuid(1, &a, &b, &c, &d));
	er_cpuid(1, 0, &ea, &eb, &ec, &ed);
	assert_int_equal(ec, c);
	assert_int_equal(ed, d);
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		er_cpuid(7, 0, &ea, &eb, &ec, &ed);
		assert_int_equal(eb, b);
		assert_int_equal(ec, c);
	}
}

/* 4 levels: PML4 (page 0) -> PDPT (1) -> PD (2) -> PT (3) */
static void t_nx_4level(void **state)
{
	(void)state;
	memset(pages, 0, sizeof(pages));
	set(0, 0, frame(1) | P | 2);
	set(1, 0, frame(2) | P);
	set(2, 0, frame(3) | P);
	set(2, 1, 0x40000000ull | PS | P);      /* a 2 MiB leaf: not followed */
	set(3, 5, 0x1000 | P);
	assert_false(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
	set(3, 6, 0x2000 | P | ER_PTE_NX);       /* NX in a page table entry */
	assert_true(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
	set(3, 6, 0x2000 | ER_PTE_NX);           /* not present: does not count */
	assert_false(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
	set(2, 1, 0x40000000ull | PS | P | ER_PTE_NX);   /* an NX large page */
	assert_true(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
	set(2, 1, 0x40000000ull | PS | P);
	set(0, 1, (frame(7) + (1000ull << 12)) | P);       /* a table the image does not hold: skipped */
	assert_false(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
	assert_true(er_image_uses_nx(NULL, frame(0), content, NULL, 4));   /* no cr3 page: assume NX */
}

/* More tables than ER_NX_WALK_MAX: gives up, which counts as NX */
static void t_nx_gives_up(void **state)
{
	(void)state;
	memset(pages, 0, sizeof(pages));
	for (unsigned i = 0; i < 512; i++) {
		set(0, i, frame(1) | P);
		set(1, i, frame(2) | P);
		set(2, i, frame(3) | P);
	}
	assert_true(er_image_uses_nx(pages[0], frame(0), content, NULL, 4));
}

/* PAE: the 4 PDPT entries sit at cr3's offset inside its page; the others are not looked at */
static void t_nx_pae(void **state)
{
	(void)state;
	memset(pages, 0, sizeof(pages));
	uint64_t cr3 = frame(0) | 0x20;          /* entries 4..7 */
	set(0, 0, frame(1) | P);                 /* outside the PDPT: ignored */
	set(1, 3, 0x200000 | PS | P | ER_PTE_NX);
	set(0, 4, frame(2) | P);
	set(2, 0, frame(3) | P);
	set(3, 0, 0x3000 | P);
	assert_false(er_image_uses_nx(pages[0], cr3, content, NULL, 3));
	set(3, 511, 0x4000 | P | ER_PTE_NX);
	assert_true(er_image_uses_nx(pages[0], cr3, content, NULL, 3));
	assert_false(er_image_uses_nx(pages[0], frame(0) | 0x40, content, NULL, 3));   /* entries 8..11: empty */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_cpuid),
		cmocka_unit_test(t_nx_4level),
		cmocka_unit_test(t_nx_gives_up),
		cmocka_unit_test(t_nx_pae),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
