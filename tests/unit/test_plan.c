// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/plan.c: where each page of the image goes, against a fake
 * firmware allocator built from real OVMF memory maps (x64 and ia32, the maps of
 * tests/unit/test_e820.c: `memmap` in the UEFI shell on the e2e machines).
 *
 * The fake firmware keeps a state per 4 KiB page below 4 GiB: conventional memory
 * is free, boot-services and loader code/data are occupied (the firmware's and
 * efiresume's own pages), runtime/ACPI/MMIO/reserved are not allocatable, holes are
 * nothing. AllocatePages(AllocateAddress) takes free pages only; AllocateAnyPages
 * hands out the highest free range (or first a preferred range: pages the firmware
 * released); FreePages must give back pages the plan holds, and the plan may reach
 * (ptr) only pages it holds. Its books (page states, pool allocations, maps) must be
 * as they were after er_plan_undo.
 *
 * Oracles, independent of the plan's code: the class of every PFN computed by a
 * linear search of the descriptor table and the page states (free conventional =
 * direct, other RAM = bounced, the rest refused); the final memory after the restore
 * routine's copies (simulated from the restore list) must equal the image, page for
 * page; every page the plan uses as safe memory is checked against a bitmap of the
 * image's PFNs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "loader/plan.h"
#include "image/e820.h"

#include "ovmf_maps.h"


#define PG 4096ull
#define NPAGES (1u << 20)         /* page states below 4 GiB */
#define DESC 48                   /* OVMF's descriptor size */
#define MAXD 512
#define ST_NONE 0                 /* no memory */
#define ST_FREE 1                 /* conventional, free */
#define ST_FW   2                 /* occupied by the firmware (or not allocatable) */
#define ST_PLAN 3                 /* held by the plan */

struct fake {
	const struct er_efi_md *md;
	size_t nmd;
	uint8_t *state;               /* NPAGES */
	uint8_t *initial;             /* state before the plan */
	uint8_t *ram;                 /* ram_top bytes, lazily backed */
	uint64_t ram_pages;
	uint8_t map[MAXD * DESC];
	size_t map_size, desc_size;
	long pools, maps;             /* outstanding */
	uint64_t pool_limit;          /* largest pool allocation (0: no limit) */
	int pool_fail_at, pool_calls; /* fail the pool_fail_at-th allocation (1-based; 0: never) */
	uint64_t pref_lo, pref_hi;    /* AllocateAnyPages tries this page range first */
	int alloc_any_calls;
	struct er_plan_mem mem;
};

static uintptr_t f_get_map(void *ctx, const uint8_t **buf, size_t *size, size_t *desc_size)
{
	struct fake *f = ctx;
	uint8_t *b = malloc(f->map_size);
	assert_non_null(b);
	memcpy(b, f->map, f->map_size);
	*buf = b;
	*size = f->map_size;
	*desc_size = f->desc_size;
	f->maps++;
	return 0;
}

static void f_put_map(void *ctx, const uint8_t *buf)
{
	struct fake *f = ctx;
	assert_non_null(buf);
	free((void *)buf);
	f->maps--;
}

static bool range_is(const struct fake *f, uint64_t first, uint64_t pages, uint8_t st)
{
	if (pages == 0 || first >= NPAGES || pages > NPAGES - first)
		return false;
	for (uint64_t i = first; i < first + pages; i++)
		if (f->state[i] != st)
			return false;
	return true;
}

static uintptr_t f_alloc_at(void *ctx, uint64_t addr, uint64_t pages)
{
	struct fake *f = ctx;
	assert_int_equal(addr % PG, 0);
	if (!range_is(f, addr / PG, pages, ST_FREE))
		return 14;   /* EFI_NOT_FOUND */
	memset(f->state + addr / PG, ST_PLAN, pages);
	return 0;
}

static bool take_any(struct fake *f, uint64_t lo, uint64_t hi, uint64_t pages, bool top_down, uint64_t *addr)
{
	if (hi > f->ram_pages)
		hi = f->ram_pages;
	if (hi < lo || hi - lo < pages)
		return false;
	uint64_t run = 0;
	if (top_down) {
		for (uint64_t i = hi; i-- > lo;) {
			run = f->state[i] == ST_FREE ? run + 1 : 0;
			if (run == pages) {
				*addr = i * PG;
				return true;
			}
		}
	} else {
		for (uint64_t i = lo; i < hi; i++) {
			run = f->state[i] == ST_FREE ? run + 1 : 0;
			if (run == pages) {
				*addr = (i + 1 - pages) * PG;
				return true;
			}
		}
	}
	return false;
}

static uintptr_t f_alloc_any(void *ctx, uint64_t pages, bool code, uint64_t *addr)
{
	struct fake *f = ctx;
	uint64_t a;
	(void)code;
	f->alloc_any_calls++;
	if (pages == 0)
		return 2;    /* EFI_INVALID_PARAMETER */
	if (!(f->pref_hi > f->pref_lo && take_any(f, f->pref_lo, f->pref_hi, pages, false, &a)) &&
	    !take_any(f, 0, f->ram_pages, pages, true, &a))
		return 9;    /* EFI_OUT_OF_RESOURCES */
	memset(f->state + a / PG, ST_PLAN, pages);
	*addr = a;
	return 0;
}

static void f_free_pages(void *ctx, uint64_t addr, uint64_t pages)
{
	struct fake *f = ctx;
	if (!range_is(f, addr / PG, pages, ST_PLAN))
		fail_msg("FreePages(0x%llx, %llu): pages the plan does not hold", (unsigned long long)addr,
			 (unsigned long long)pages);
	memset(f->state + addr / PG, ST_FREE, pages);
}

static uintptr_t f_pool_alloc(void *ctx, size_t size, void **out)
{
	struct fake *f = ctx;
	f->pool_calls++;
	*out = NULL;
	if (f->pool_fail_at == f->pool_calls || (f->pool_limit && size > f->pool_limit))
		return 9;
	*out = malloc(size ? size : 1);
	assert_non_null(*out);
	memset(*out, 0x5a, size);   /* pool memory is not zeroed */
	f->pools++;
	return 0;
}

static void f_pool_free(void *ctx, void *p)
{
	struct fake *f = ctx;
	assert_non_null(p);
	free(p);
	f->pools--;
}

static void *f_ptr(void *ctx, uint64_t addr, uint64_t len)
{
	struct fake *f = ctx;
	if (addr % PG || len % PG || !range_is(f, addr / PG, len / PG, ST_PLAN) || addr / PG + len / PG > f->ram_pages)
		fail_msg("the plan reaches 0x%llx+%llu, which it does not hold", (unsigned long long)addr,
			 (unsigned long long)len);
	return f->ram + addr;
}

static uint64_t f_now(void *ctx)
{
	(void)ctx;
	return 0;
}

static bool is_ram_type(uint32_t t)
{
	return t == LC || t == LD || t == BC || t == BD || t == CONV;
}

static struct fake *fake_new_ds(const struct er_efi_md *md, size_t n, uint64_t reach, size_t desc_size)
{
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->md = md;
	f->nmd = n;
	f->state = calloc(NPAGES, 1);
	f->initial = calloc(NPAGES, 1);
	assert_non_null(f->state);
	assert_non_null(f->initial);
	assert_true(n <= MAXD);
	assert_true(desc_size >= 8 && desc_size <= DESC);
	f->desc_size = desc_size;
	memset(f->map, 0xa5, n * DESC);   /* padding and VirtualStart are garbage */
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = f->map + i * desc_size;
		memcpy(p, &md[i].type, 4);
		memcpy(p + 8, &md[i].phys, 8);
		if (desc_size >= 40) {
			memcpy(p + 24, &md[i].pages, 8);
			memcpy(p + 32, &md[i].attr, 8);
		}
		uint64_t end = md[i].pages > NPAGES ? NPAGES : md[i].phys / PG + md[i].pages;   /* saturated */
		for (uint64_t k = md[i].phys / PG; k < end && k < NPAGES; k++)
			f->state[k] = md[i].type == CONV ? ST_FREE : ST_FW;
		if (is_ram_type(md[i].type) && end > f->ram_pages)
			f->ram_pages = end;
	}
	f->map_size = n * desc_size;
	if (f->ram_pages > NPAGES)
		f->ram_pages = NPAGES;
	f->ram = mmap(NULL, f->ram_pages * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(f->ram != MAP_FAILED);
	struct er_plan_mem m = { f, f_get_map, f_put_map, f_alloc_at, f_alloc_any, f_free_pages, f_pool_alloc,
				 f_pool_free, f_ptr, f_now, reach, 9 };
	f->mem = m;
	return f;
}

static struct fake *fake_new(const struct er_efi_md *md, size_t n, uint64_t reach)
{
	return fake_new_ds(md, n, reach, DESC);
}

/* Call before the plan, after any change the test makes to the firmware's pages. */
static void fake_snapshot(struct fake *f)
{
	memcpy(f->initial, f->state, NPAGES);
}

/* The books balance: every page back as it was, no pool memory or map outstanding. */
static void assert_books_balance(const struct fake *f)
{
	for (uint64_t i = 0; i < NPAGES; i++)
		if (f->state[i] != f->initial[i])
			fail_msg("page 0x%llx: state %u after undo, %u before the plan", (unsigned long long)i, f->state[i],
				 f->initial[i]);
	assert_int_equal(f->pools, 0);
	assert_int_equal(f->maps, 0);
}

static void fake_free(struct fake *f)
{
	munmap(f->ram, f->ram_pages * PG);
	free(f->state);
	free(f->initial);
	free(f);
}

/* ------------------------------------------------------------ the oracle */

enum cls { C_DIRECT, C_BOUNCE, C_REFUSE };

/* By a linear search of the descriptors (in map order, unsorted) and the page state
 * the firmware has when the plan starts. */
static enum cls classify(const struct fake *f, uint64_t pfn)
{
	for (size_t i = 0; i < f->nmd; i++) {
		const struct er_efi_md *d = &f->md[i];
		if (pfn >= d->phys / PG && pfn - d->phys / PG < d->pages) {
			if (!is_ram_type(d->type))
				return C_REFUSE;
			if (d->type == CONV && f->initial[pfn] == ST_FREE)
				return C_DIRECT;
			return C_BOUNCE;
		}
	}
	return C_REFUSE;
}

static void fill(uint8_t *p, uint64_t pfn)
{
	for (unsigned i = 0; i < PG / 8; i++) {
		uint64_t v = (pfn + 1) * 0x9e3779b97f4a7c15ull + i * 0x2545f4914f6cdd1dull;
		memcpy(p + i * 8, &v, 8);
	}
}

static bool matches(const uint8_t *p, uint64_t pfn)
{
	uint8_t want[PG];
	fill(want, pfn);
	return memcmp(p, want, PG) == 0;
}

/* A bitmap of the image's PFNs (below 4 GiB), built from the list alone. */
static uint8_t *pfn_bitmap(const uint64_t *pfns, uint64_t n)
{
	uint8_t *b = calloc(NPAGES / 8, 1);
	assert_non_null(b);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		if (pfn < NPAGES)
			b[pfn / 8] |= (uint8_t)(1u << (pfn % 8));
	}
	return b;
}

static bool in_image(const uint8_t *bm, uint64_t pfn)
{
	return pfn < NPAGES && (bm[pfn / 8] >> (pfn % 8)) & 1;
}

/* Safe memory: held by the plan, and no page of it is an image frame. */
static void assert_safe(const struct fake *f, const uint8_t *bm, uint64_t addr, uint64_t pages, const char *what)
{
	assert_int_equal(addr % PG, 0);
	for (uint64_t i = addr / PG; i < addr / PG + pages; i++) {
		if (in_image(bm, i))
			fail_msg("%s: page 0x%llx is an image frame", what, (unsigned long long)i);
		if (i >= NPAGES || f->state[i] != ST_PLAN)
			fail_msg("%s: page 0x%llx is not held by the plan", what, (unsigned long long)i);
	}
}

/* ------------------------------------------------------------ driving the sink */

/* chunks that went through dest/commit, into their own frames or bounce frames */
static uint64_t dest_direct, dest_bounced;

/* Streams every data page as the readers do: chunks of 32 through dest/commit when
 * use_dest and the plan accepts, page() otherwise. */
static int stream(struct er_plan *p, const uint64_t *pfns, uint64_t n, bool use_dest, struct er_error *e)
{
	struct er_sink s = er_plan_sink(p);
	int r = s.plan(s.ctx, NULL, pfns, n, e);
	if (r)
		return r;
	uint8_t buf[PG];
	uint64_t cur = 0;
	while (cur < n) {
		while (cur < n && (pfns[cur] & ER_PFN_ZERO))
			cur++;
		if (cur >= n)
			break;
		uint64_t k = 0;
		while (k < 32 && cur + k < n && !(pfns[cur + k] & ER_PFN_ZERO))
			k++;
		uint8_t *d = use_dest && k == 32 ? s.dest(s.ctx, cur, k) : NULL;
		if (d) {
			for (uint64_t i = 0; i < k; i++)
				fill(d + i * PG, pfns[cur + i]);
			if (p->direct[cur])
				dest_direct++;
			else
				dest_bounced++;
			if (s.commit(s.ctx, cur, k, e))
				return -1;
			cur += k;
			continue;
		}
		fill(buf, pfns[cur]);
		if (s.page(s.ctx, pfns[cur], buf, e))
			return -1;
		cur++;
	}
	return 0;
}

/* Everything the plan promised, for an accepted list. */
static void check_plan(struct fake *f, struct er_plan *p, const uint64_t *pfns, uint64_t n)
{
	uint8_t *bm = pfn_bitmap(pfns, n);
	uint64_t want_direct = 0, want_bounce = 0, want_zero = 0;

	/* placement against the oracle */
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		enum cls c = classify(f, pfn);
		assert_int_not_equal(c, C_REFUSE);
		if ((c == C_DIRECT) != (p->direct[k] != 0))
			fail_msg("PFN 0x%llx: %s, the oracle says %s", (unsigned long long)pfn,
				 p->direct[k] ? "direct" : "bounced", c == C_DIRECT ? "direct" : "bounced");
		want_direct += c == C_DIRECT;
		want_bounce += c == C_BOUNCE;
		want_zero += (pfns[k] & ER_PFN_ZERO) != 0;
	}
	assert_int_equal(p->n_direct, want_direct);
	assert_int_equal(p->n_bounce, want_bounce);
	assert_int_equal(p->n_zero, want_zero);

	/* er_plan_content: the right place, the right bytes */
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		const uint8_t *c = er_plan_content(p, pfn);
		if (pfns[k] & ER_PFN_ZERO) {
			assert_null(c);
			continue;
		}
		assert_non_null(c);
		assert_true(matches(c, pfn));
		if (p->direct[k])
			assert_ptr_equal(c, f->ram + pfn * PG);
		else
			assert_safe(f, bm, (uint64_t)(c - f->ram), 1, "bounce frame");
	}
	/* frames the image does not hold have no content */
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = (pfns[k] & ~ER_PFN_ZERO) + 1;
		if (!in_image(bm, pfn) && pfn < NPAGES)
			assert_null(er_plan_content(p, pfn));
	}

	/* the restore list: every bounced PFN once; sources distinct safe frames */
	assert_int_equal(p->list_n, p->n_bounce);
	assert_ptr_equal(p->list, f->ram + p->list_phys);
	assert_safe(f, bm, p->list_phys, p->list_pages, "restore list");
	assert_true(p->list_pages * PG >= p->list_n * sizeof(struct er_plan_entry));
	uint8_t *seen = calloc(NPAGES / 8, 1), *src_seen = calloc(NPAGES / 8, 1);
	assert_non_null(seen);
	assert_non_null(src_seen);
	for (uint64_t i = 0; i < p->list_n; i++) {
		uint64_t dst = p->list[i].dst, src = p->list[i].src;
		assert_int_equal(dst % PG, 0);
		assert_true(in_image(bm, dst / PG));
		assert_false((seen[dst / PG / 8] >> (dst / PG % 8)) & 1);
		seen[dst / PG / 8] |= (uint8_t)(1u << (dst / PG % 8));
		assert_int_equal(classify(f, dst / PG), C_BOUNCE);
		if (src) {
			assert_safe(f, bm, src, 1, "bounce frame");
			assert_false((src_seen[src / PG / 8] >> (src / PG % 8)) & 1);
			src_seen[src / PG / 8] |= (uint8_t)(1u << (src / PG % 8));
		}
	}
	for (uint64_t i = 0; i < p->nbframes; i++)
		assert_safe(f, bm, p->bframes[i].addr, p->bframes[i].pages, "bounce frames");
	free(seen);
	free(src_seen);

	/* the restore routine's copies, then memory must be the image */
	for (uint64_t i = 0; i < p->list_n; i++) {
		if (p->list[i].src)
			memcpy(f->ram + p->list[i].dst, f->ram + p->list[i].src, PG);
		else
			memset(f->ram + p->list[i].dst, 0, PG);
	}
	static const uint8_t zero[PG];
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		const uint8_t *frame = f->ram + pfn * PG;
		if (pfns[k] & ER_PFN_ZERO ? memcmp(frame, zero, PG) != 0 : !matches(frame, pfn))
			fail_msg("after the restore, frame 0x%llx does not hold the image's page", (unsigned long long)pfn);
	}
	free(bm);
}

/* Garbage in every image frame before the plan: zero pages must really be zeroed. */
static void dirty_frames(struct fake *f, const uint64_t *pfns, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		memset(f->ram + (pfns[k] & ~ER_PFN_ZERO) * PG, 0xa5, PG);
}

/* ------------------------------------------------------------ PFN lists */

struct list {
	uint64_t *v;
	uint64_t n, cap;
};

static void add(struct list *l, uint64_t pfn)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = pfn;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a & ~ER_PFN_ZERO, y = *(const uint64_t *)b & ~ER_PFN_ZERO;
	return x < y ? -1 : x > y;
}

static void sort_unique(struct list *l)
{
	qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	uint64_t w = 0;
	for (uint64_t i = 0; i < l->n; i++)
		if (w == 0 || (l->v[i] & ~ER_PFN_ZERO) != (l->v[w - 1] & ~ER_PFN_ZERO))
			l->v[w++] = l->v[i];
	l->n = w;
}

/* A realistic image: from every RAM descriptor its first pages (runs that reach into
 * the neighbours), its last page and a sparse sample; every 5th page all-zero. */
static struct list mixed_list(const struct er_efi_md *md, size_t nmd, unsigned zero_every)
{
	struct list l = { 0 };
	for (size_t i = 0; i < nmd; i++) {
		if (!is_ram_type(md[i].type))
			continue;
		uint64_t s = md[i].phys / PG, np = md[i].pages;
		for (uint64_t k = 0; k < np && k < 40; k++)
			add(&l, s + k);
		add(&l, s + np - 1);
		for (uint64_t k = 0; k < np; k += 97)
			add(&l, s + k);
		/* a long run in big conventional descriptors (zero-copy chunks) */
		if (md[i].type == CONV && np > 3000)
			for (uint64_t k = 1000; k < 2000; k++)
				add(&l, s + k);
	}
	sort_unique(&l);
	for (uint64_t k = 0; zero_every && k < l.n; k++)
		if (k % zero_every == 3 && (k / 512) % 2 == 0)   /* and stretches without: chunks */
			l.v[k] |= ER_PFN_ZERO;
	return l;
}

/* ------------------------------------------------------------ tests */

static void run_mixed(const struct er_efi_md *md, size_t nmd, uint64_t reach, bool use_dest)
{
	struct fake *f = fake_new(md, nmd, reach);
	fake_snapshot(f);
	struct list l = mixed_list(md, nmd, 5);
	dirty_frames(f, l.v, l.n);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	dest_direct = dest_bounced = 0;
	int r = stream(&p, l.v, l.n, use_dest, &e);
	if (r)
		fail_msg("refused: %s", e.detail);
	assert_true(p.n_direct > 1000 && p.n_bounce > 1000 && p.n_zero > 100);   /* every path really taken */
	if (use_dest)
		assert_true(dest_direct > 10 && dest_bounced > 10);
	printf("  %llu PFNs: %llu direct, %llu bounced, %llu all-zero; zero-copy chunks %llu direct, %llu bounced\n",
	       (unsigned long long)l.n, (unsigned long long)p.n_direct, (unsigned long long)p.n_bounce,
	       (unsigned long long)p.n_zero, (unsigned long long)dest_direct, (unsigned long long)dest_bounced);
	check_plan(f, &p, l.v, l.n);
	uint64_t ram_top = 0;
	for (size_t i = 0; i < nmd; i++)
		if (is_ram_type(md[i].type) && md[i].phys + md[i].pages * PG > ram_top)
			ram_top = md[i].phys + md[i].pages * PG;
	assert_int_equal(p.ram_top, ram_top);
	er_plan_undo(&p);
	assert_books_balance(f);
	free(l.v);
	fake_free(f);
}

static void test_mixed_x64(void **state)
{
	(void)state;
	run_mixed(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0, false);
}
static void test_mixed_x64_zero_copy(void **state)
{
	(void)state;
	run_mixed(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0, true);
}
static void test_mixed_ia32(void **state)
{
	(void)state;
	run_mixed(ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), 1ull << 32, false);
}
static void test_mixed_ia32_zero_copy(void **state)
{
	(void)state;
	run_mixed(ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), 1ull << 32, true);
}

/* An image read from an encrypted device: undo gives every frame back wiped (and only
 * then: the same plan without the flag leaves the image's content in them). */
static void test_wipe_on_undo(void **state)
{
	(void)state;
	for (int wipe = 0; wipe < 2; wipe++) {
		struct fake *f = fake_new(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0);
		fake_snapshot(f);
		struct list l = mixed_list(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 5);
		dirty_frames(f, l.v, l.n);
		struct er_plan p;
		struct er_error e = { 0 };
		er_plan_init(&p, &f->mem);
		p.wipe_on_undo = wipe;
		if (stream(&p, l.v, l.n, false, &e))
			fail_msg("refused: %s", e.detail);
		uint64_t n = p.nallocs, pages = 0, dirty = 0;
		struct er_alloc_rec *a = malloc(n * sizeof(*a) + 1);
		assert_non_null(a);
		memcpy(a, p.allocs, n * sizeof(*a));
		er_plan_undo(&p);
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t k = 0; k < a[i].pages; k++, pages++) {
				const uint8_t *q = f->ram + a[i].addr + k * PG;
				for (size_t b = 0; b < PG; b++)
					if (q[b]) {
						dirty++;
						break;
					}
			}
		printf("  wipe_on_undo %d: %llu of the %llu pages given back hold data\n", wipe, (unsigned long long)dirty,
		       (unsigned long long)pages);
		if (wipe)
			assert_int_equal(dirty, 0);
		else
			assert_true(dirty > 1000);
		assert_books_balance(f);
		free(a);
		free(l.v);
		fake_free(f);
	}
}

/* Plans a list that must be refused with reason r (and, when given, a detail
 * containing what); nothing is left behind after undo. */
static void expect_refusal(const struct er_efi_md *md, size_t nmd, uint64_t reach, const uint64_t *pfns, uint64_t n,
			   enum er_reason r, const char *what)
{
	struct fake *f = fake_new(md, nmd, reach);
	fake_snapshot(f);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	struct er_sink s = er_plan_sink(&p);
	assert_int_not_equal(s.plan(s.ctx, NULL, pfns, n, &e), 0);
	if (e.reason != r || (what && !strstr(e.detail, what)))
		fail_msg("refused with %d \"%s\", expected %d \"%s\"", e.reason, e.detail, r, what ? what : "");
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
}

#define X64 ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0
#define IA32 ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), 1ull << 32

static void test_outside_ram(void **state)
{
	(void)state;
	/* a hole (0xa0000..0xfffff), runtime data, ACPI NVS, MMIO, above RAM */
	const uint64_t hole[] = { 0x10, 0xa0 }, rd[] = { 0x1eaa0 }, nvs[] = { 0x806 }, mmio[] = { 0xffc00 },
		       above[] = { 0x20000 }, rsv_ia32[] = { 0x2f, 0x30 };
	expect_refusal(X64, hole, 2, ER_R_PFN_NOT_RAM, "in no memory");
	expect_refusal(X64, rd, 1, ER_R_PFN_NOT_RAM, "EFI type 6");
	expect_refusal(X64, nvs, 1, ER_R_PFN_NOT_RAM, "EFI type 10");
	expect_refusal(X64, mmio, 1, ER_R_PFN_NOT_RAM, "EFI type 11");
	expect_refusal(X64, above, 1, ER_R_PFN_NOT_RAM, "in no memory");
	/* ia32's map lists this reserved range last (unsorted): still found */
	expect_refusal(IA32, rsv_ia32, 2, ER_R_PFN_NOT_RAM, "EFI type 0");
	/* ia32 reaches the low 4 GiB only; x64 finds no memory there */
	const uint64_t high[] = { 0x100, 0x100000 };
	expect_refusal(IA32, high, 2, ER_R_PFN_NOT_RAM, "above 4 GiB");
	expect_refusal(X64, high, 2, ER_R_PFN_NOT_RAM, "in no memory");
}

static void test_hostile_lists(void **state)
{
	(void)state;
	const uint64_t desc[] = { 0x200, 0x100 }, dup[] = { 0x200, 0x200 }, dupz[] = { 0x200, 0x200 | ER_PFN_ZERO },
		       big[] = { 0x100, 1ull << 40 }, huge[] = { 0x100, (1ull << 62) | ER_PFN_ZERO },
		       top[] = { 0x100, 0xffffffffffull }, late[] = { 0x100, 0x101, 0x5000, 0x4fff };
	expect_refusal(X64, desc, 2, ER_R_PFN, "not ascending");
	expect_refusal(X64, dup, 2, ER_R_PFN, "not ascending");
	expect_refusal(X64, dupz, 2, ER_R_PFN, "not ascending");
	expect_refusal(X64, late, 4, ER_R_PFN, "not ascending");
	expect_refusal(X64, big, 2, ER_R_PFN, "beyond the physical address space");
	expect_refusal(X64, huge, 2, ER_R_PFN, "beyond the physical address space");
	expect_refusal(IA32, huge, 2, ER_R_PFN, "beyond the physical address space");
	expect_refusal(X64, top, 2, ER_R_PFN_NOT_RAM, "in no memory");
}

/* 2^20 consecutive PFNs from 1 MiB: thousands of frames are claimed before the walk
 * meets ACPI NVS; all of them go back. */
static void test_enormous_run(void **state)
{
	(void)state;
	struct list l = { 0 };
	for (uint64_t k = 0; k < (1u << 20); k++)
		add(&l, 0x100 + k);
	expect_refusal(X64, l.v, l.n, ER_R_PFN_NOT_RAM, "EFI type 10");
	/* the firmware's pool cannot hold the plan's per-page array */
	struct fake *f = fake_new(X64);
	f->pool_limit = 512 * 1024;
	fake_snapshot(f);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	struct er_sink s = er_plan_sink(&p);
	assert_int_not_equal(s.plan(s.ctx, NULL, l.v, l.n, &e), 0);
	assert_int_equal(e.reason, ER_R_NOMEM);
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
	free(l.v);
}

/* The image names every page of RAM (or every free page): there is no room for the
 * restore list or bounce frames. Refused cleanly, everything given back. */
static void cover_all(const struct er_efi_md *md, size_t nmd, uint64_t reach, bool conv_only)
{
	struct list l = { 0 };
	for (size_t i = 0; i < nmd; i++)
		if (conv_only ? md[i].type == CONV : is_ram_type(md[i].type))
			for (uint64_t k = 0; k < md[i].pages; k++)
				add(&l, md[i].phys / PG + k);
	sort_unique(&l);
	struct fake *f = fake_new(md, nmd, reach);
	fake_snapshot(f);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	struct er_sink s = er_plan_sink(&p);
	assert_int_not_equal(s.plan(s.ctx, NULL, l.v, l.n, &e), 0);
	assert_int_equal(e.reason, ER_R_NOMEM);
	/* every free page was claimed for the image before the plan ran out */
	for (uint64_t i = 0; i < NPAGES; i++)
		if (f->initial[i] == ST_FREE)
			assert_int_equal(f->state[i], ST_PLAN);
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
	free(l.v);
}

static void test_cover_all_memory(void **state)
{
	(void)state;
	cover_all(X64, false);
	cover_all(X64, true);
	cover_all(IA32, false);
	cover_all(IA32, true);
}

/* Only all-zero pages, direct and bounced; and an empty list. */
static void test_all_zero_pages(void **state)
{
	(void)state;
	struct fake *f = fake_new(X64);
	fake_snapshot(f);
	struct list l = mixed_list(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0);
	for (uint64_t k = 0; k < l.n; k++)
		l.v[k] |= ER_PFN_ZERO;
	dirty_frames(f, l.v, l.n);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	if (stream(&p, l.v, l.n, true, &e))
		fail_msg("refused: %s", e.detail);
	assert_int_equal(p.n_zero, l.n);
	assert_int_equal(p.nbframes, 0);
	check_plan(f, &p, l.v, l.n);
	for (uint64_t i = 0; i < p.list_n; i++)
		assert_int_equal(p.list[i].src, 0);
	er_plan_undo(&p);
	assert_books_balance(f);
	free(l.v);

	/* nothing at all */
	er_plan_init(&p, &f->mem);
	if (stream(&p, NULL, 0, true, &e))
		fail_msg("refused: %s", e.detail);
	assert_int_equal(p.n_direct + p.n_bounce + p.list_n, 0);
	assert_null(er_plan_content(&p, 0x100));
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
}

/* The firmware took free pages after the map was read (the map still says
 * conventional): the run is claimed page by page, the taken ones are bounced. */
static void test_taken_since_the_map(void **state)
{
	(void)state;
	struct fake *f = fake_new(X64);
	/* inside the long run mixed_list takes from the big conventional range at 0x1500000 */
	for (uint64_t i = 0x1500 + 1200; i < 0x1500 + 1210; i++)
		f->state[i] = ST_FW;
	f->state[0x1500 + 1500] = ST_FW;
	fake_snapshot(f);
	struct list l = mixed_list(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 5);
	dirty_frames(f, l.v, l.n);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	if (stream(&p, l.v, l.n, true, &e))
		fail_msg("refused: %s", e.detail);
	check_plan(f, &p, l.v, l.n);
	assert_int_equal(classify(f, 0x1500 + 1205), C_BOUNCE);
	assert_int_equal(classify(f, 0x1500 + 1210), C_DIRECT);
	er_plan_undo(&p);
	assert_books_balance(f);
	free(l.v);
	fake_free(f);
}

/* After the plan the firmware (or efiresume) releases pages that are image frames
 * (bounced ones: its own buffers). Safe allocations (page tables, the restore
 * routine) must not land there, although the firmware offers those pages first. */
static void run_released(const struct er_efi_md *md, size_t nmd, uint64_t reach, uint64_t lo, uint64_t hi)
{
	struct fake *f = fake_new(md, nmd, reach);
	fake_snapshot(f);
	struct list l = mixed_list(md, nmd, 5);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	if (stream(&p, l.v, l.n, true, &e))
		fail_msg("refused: %s", e.detail);
	uint8_t *bm = pfn_bitmap(l.v, l.n);
	uint64_t released = 0, image_frames = 0;
	for (uint64_t i = lo; i < hi; i++) {
		assert_int_equal(f->state[i], ST_FW);
		f->state[i] = ST_FREE;
		f->initial[i] = ST_FREE;   /* after undo they stay free */
		released++;
		image_frames += in_image(bm, i);
	}
	assert_true(image_frames > 0 && image_frames < released);
	f->pref_lo = lo;
	f->pref_hi = hi;
	int calls0 = f->alloc_any_calls;
	/* page tables and restore routine as arch/ asks for them, and then some */
	const struct { uint64_t pages; bool code; } asks[] = { { 5, false }, { 4, true }, { 1, false }, { 3, false },
								 { 16, false }, { 1, true } };
	for (size_t i = 0; i < ER_ARRAY_SIZE(asks); i++) {
		uint64_t a = 0;
		assert_int_equal(er_plan_safe_pages(&p, asks[i].pages, asks[i].code, &a), 0);
		assert_safe(f, bm, a, asks[i].pages, "safe allocation");
		assert_true(a / PG >= lo && a / PG < hi);   /* from the released pages */
	}
	/* the firmware offered image frames first: the plan had to try again */
	assert_true(f->alloc_any_calls - calls0 > (int)ER_ARRAY_SIZE(asks));
	printf("  %llu of %llu released pages are image frames; %d AllocateAnyPages for %zu safe allocations\n",
	       (unsigned long long)image_frames, (unsigned long long)released, f->alloc_any_calls - calls0,
	       ER_ARRAY_SIZE(asks));
	/* every page of the released range is now the plan's: the safe allocations took
	 * the released frames that are no image frames, and kept the others out of reach */
	check_plan(f, &p, l.v, l.n);
	er_plan_undo(&p);
	assert_books_balance(f);
	free(bm);
	free(l.v);
	fake_free(f);
}

static void test_released_image_frames(void **state)
{
	(void)state;
	/* BD 0x1eba2000 + 0x400 pages (x64), BD 0x1e33a000 + 0x400 (ia32) */
	run_released(X64, 0x1eba2, 0x1eba2 + 0x400);
	run_released(IA32, 0x1e33a, 0x1e33a + 0x400);
}

/* Safe allocations come out of the firmware one after another; the plan refuses when
 * the firmware has nothing left and gives back what it holds. */
static void test_pool_failures(void **state)
{
	(void)state;
	struct list l = mixed_list(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 5);
	/* how many pool allocations a clean plan makes */
	struct fake *f = fake_new(X64);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	assert_int_equal(stream(&p, l.v, l.n, false, &e), 0);
	int calls = f->pool_calls;
	er_plan_undo(&p);
	fake_free(f);
	assert_true(calls >= 4);   /* per-page array, map copy, records (grown), bounce ranges */
	printf("  a clean plan makes %d pool allocations; each one failed in turn\n", calls);
	for (int at = 1; at <= calls; at++) {
		f = fake_new(X64);
		f->pool_fail_at = at;
		fake_snapshot(f);
		er_plan_init(&p, &f->mem);
		e.reason = ER_OK;
		assert_int_not_equal(stream(&p, l.v, l.n, false, &e), 0);
		assert_int_equal(e.reason, ER_R_NOMEM);
		er_plan_undo(&p);
		assert_books_balance(f);
		fake_free(f);
	}
	free(l.v);
}

/* The sink refuses data pages it did not plan for. */
static void test_out_of_order_pages(void **state)
{
	(void)state;
	struct fake *f = fake_new(X64);
	fake_snapshot(f);
	const uint64_t pfns[] = { 0x100, 0x101 | ER_PFN_ZERO, 0x102, 0x900 };
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	struct er_sink s = er_plan_sink(&p);
	assert_int_equal(s.plan(s.ctx, NULL, pfns, 4, &e), 0);
	uint8_t buf[PG];
	fill(buf, 0x100);
	assert_int_equal(s.page(s.ctx, 0x100, buf, &e), 0);
	assert_int_not_equal(s.page(s.ctx, 0x900, buf, &e), 0);   /* 0x102 comes first */
	assert_int_equal(e.reason, ER_R_COUNTS);
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
}

/* A map the plan cannot use, and one with a descriptor that runs past 2^64. */
static void test_hostile_map(void **state)
{
	(void)state;
	const uint64_t pfns[] = { 0x100, 0x250, 0x350, 0x5000 | ER_PFN_ZERO, 0x5001 };
	struct fake *f = fake_new_ds(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 0, 24);
	fake_snapshot(f);
	struct er_plan p;
	struct er_error e = { 0 };
	er_plan_init(&p, &f->mem);
	struct er_sink s = er_plan_sink(&p);
	assert_int_not_equal(s.plan(s.ctx, NULL, pfns, 5, &e), 0);
	assert_int_equal(e.reason, ER_R_NOMEM);
	assert_non_null(strstr(e.detail, "memory map"));
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);

	static const struct er_efi_md wrap[] = {
		{ CONV, 0x300000, 0xffffffffffffff00ull, WB }, { CONV, 0x100000, 0x100, WB }, { BD, 0x200000, 0x100, WB },
	};
	f = fake_new(wrap, ER_ARRAY_SIZE(wrap), 0);
	fake_snapshot(f);
	dirty_frames(f, pfns, 5);
	er_plan_init(&p, &f->mem);
	if (stream(&p, pfns, 5, false, &e))
		fail_msg("refused: %s", e.detail);
	assert_int_equal(p.ram_top, 1ull << 52);   /* the descriptor is cut at 2^52 */
	assert_int_equal(p.n_bounce, 1);
	check_plan(f, &p, pfns, 5);
	er_plan_undo(&p);
	assert_books_balance(f);
	fake_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_x64),
		cmocka_unit_test(test_mixed_x64_zero_copy),
		cmocka_unit_test(test_mixed_ia32),
		cmocka_unit_test(test_mixed_ia32_zero_copy),
		cmocka_unit_test(test_outside_ram),
		cmocka_unit_test(test_hostile_lists),
		cmocka_unit_test(test_enormous_run),
		cmocka_unit_test(test_cover_all_memory),
		cmocka_unit_test(test_all_zero_pages),
		cmocka_unit_test(test_taken_since_the_map),
		cmocka_unit_test(test_released_image_frames),
		cmocka_unit_test(test_pool_failures),
		cmocka_unit_test(test_out_of_order_pages),
		cmocka_unit_test(test_hostile_map),
		cmocka_unit_test(test_wipe_on_undo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
