// SPDX-License-Identifier: GPL-2.0-or-later
/* Plan: claim the image's frames, bounce the rest; place pages as they stream.
 * Pure logic: every memory operation goes through p->mem (see plan.h). */
#include <stdarg.h>
#include "loader/plan.h"
#include "crypto/wipe.h"
#include "image/fmt.h"
#include "image/e820.h"

#define PAGE 4096ull
/* 52 physical address bits: no x86 frame number reaches this */
#define PFN_LIMIT (1ull << 40)

static bool is_ram(uint32_t type)
{
	return type == ER_EFI_LOADER_CODE || type == ER_EFI_LOADER_DATA || type == ER_EFI_BOOT_SERVICES_CODE ||
	       type == ER_EFI_BOOT_SERVICES_DATA || type == ER_EFI_CONVENTIONAL_MEMORY;
}

static void *at(const struct er_plan *p, uint64_t addr, uint64_t len)
{
	return p->mem->ptr(p->mem->ctx, addr, len);
}

static uint64_t now(const struct er_plan *p)
{
	return p->mem->now_us ? p->mem->now_us(p->mem->ctx) : 0;
}

static void pool_free(const struct er_plan *p, void *ptr)
{
	if (ptr)
		p->mem->pool_free(p->mem->ctx, ptr);
}

/* Pool memory of n elements of size sz, refused (not wrapped) when it cannot be sized. */
static uintptr_t pool_array(const struct er_plan *p, uint64_t n, uint64_t sz, void **out)
{
	*out = NULL;
	if (n > (uint64_t)SIZE_MAX / sz)
		return p->mem->out_of_resources;
	return p->mem->pool_alloc(p->mem->ctx, (size_t)(n * sz), out);
}

void er_plan_init(struct er_plan *p, const struct er_plan_mem *mem)
{
	er_memset(p, 0, sizeof(*p));
	p->mem = mem;
}

static uintptr_t record(struct er_plan *p, uint64_t addr, uint64_t pages)
{
	if (p->nallocs > 0) {
		struct er_alloc_rec *last = &p->allocs[p->nallocs - 1];
		if (last->addr + last->pages * PAGE == addr) {
			last->pages += pages;
			return 0;
		}
	}
	if (p->nallocs == p->allocs_cap) {
		/* grow: allocation records are few (runs), so doubling is rare */
		uint64_t cap = p->allocs_cap ? p->allocs_cap * 2 : 1024;
		void *n;
		uintptr_t err = pool_array(p, cap, sizeof(struct er_alloc_rec), &n);
		if (err)
			return err;
		if (p->allocs)
			er_memcpy(n, p->allocs, p->nallocs * sizeof(struct er_alloc_rec));
		pool_free(p, p->allocs);
		p->allocs = n;
		p->allocs_cap = cap;
	}
	p->allocs[p->nallocs].addr = addr;
	p->allocs[p->nallocs].pages = pages;
	p->nallocs++;
	return 0;
}

/* Pages taken: recorded for undo, or given back at once when they cannot be. */
static uintptr_t keep(struct er_plan *p, uint64_t addr, uint64_t pages)
{
	uintptr_t err = record(p, addr, pages);
	if (err)
		p->mem->free_pages(p->mem->ctx, addr, pages);
	return err;
}

void er_plan_undo(struct er_plan *p)
{
	if (!p->mem)
		return;
	for (uint64_t i = 0; i < p->nallocs; i++) {
		if (p->wipe_on_undo) {
			uint64_t len = p->allocs[i].pages * ER_PAGE_SIZE;
			void *q = p->mem->ptr(p->mem->ctx, p->allocs[i].addr, len);
			if (q)
				er_wipe(q, (size_t)len);
		}
		p->mem->free_pages(p->mem->ctx, p->allocs[i].addr, p->allocs[i].pages);
	}
	p->nallocs = 0;
	p->allocs_cap = 0;
	pool_free(p, p->allocs);
	pool_free(p, p->direct);
	pool_free(p, p->bframes);
	p->allocs = NULL;
	p->direct = NULL;
	p->bframes = NULL;
	p->nbframes = 0;
	p->list = NULL;
	p->list_phys = 0;
	p->list_n = p->list_cap = 0;
}

/* index of the first PFN >= pfn */
static uint64_t lower_bound(const struct er_plan *p, uint64_t pfn)
{
	uint64_t lo = 0, hi = p->npfns;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((p->pfns[mid] & ~ER_PFN_ZERO) < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uintptr_t er_plan_safe_pages(struct er_plan *p, uint64_t pages, bool code, uint64_t *phys)
{
	/* frames of the image that the firmware freed after the plan (the loader's own
	 * buffers, bounced) come back first: each such range is kept, so every try moves on */
	for (int tries = 0; tries < 8192; tries++) {
		uint64_t a = 0;
		uintptr_t err = p->mem->alloc_any(p->mem->ctx, pages, code, &a);
		if (err)
			return err;
		err = keep(p, a, pages);
		if (err)
			return err;
		uint64_t first = a / PAGE, i = lower_bound(p, first);
		if (i >= p->npfns || (p->pfns[i] & ~ER_PFN_ZERO) >= first + pages) {
			*phys = a;
			return 0;
		}
		/* The range holds an image frame the firmware released after the plan: keep
		 * it (so it is not handed out again) and try elsewhere. */
	}
	return p->mem->out_of_resources;
}

const uint8_t *er_plan_content(const struct er_plan *p, uint64_t pfn)
{
	uint64_t i = lower_bound(p, pfn);
	if (i >= p->npfns || (p->pfns[i] & ~ER_PFN_ZERO) != pfn || (p->pfns[i] & ER_PFN_ZERO))
		return NULL;
	if (p->direct[i])
		return at(p, pfn * PAGE, PAGE);
	for (uint64_t k = 0; k < p->list_n; k++)
		if (p->list[k].dst == pfn * PAGE)
			return p->list[k].src ? at(p, p->list[k].src, PAGE) : NULL;
	return NULL;
}

static int refuse(struct er_error *err, enum er_reason r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(struct er_error *err, enum er_reason r, const char *fmt, ...)
{
	va_list ap;
	err->reason = r;
	va_start(ap, fmt);
	er_vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
	return -1;
}

/* The firmware's map: descriptors desc_size apart, visited in address order through
 * idx (an index array as small as the map, so that the plan takes no more pool
 * memory than it always did: the pool's pages are frames the image may want). */
struct map {
	const uint8_t *buf;
	size_t size, desc_size, count;
	size_t *idx;
};

/* Descriptor i in address order; a descriptor reaching past 2^52 is cut there (no
 * frame lies beyond). */
static struct er_efi_md desc(const struct map *m, size_t i)
{
	const uint8_t *d = m->buf + m->idx[i] * m->desc_size;
	struct er_efi_md md = { er_le32(d), er_le64(d + 8), er_le64(d + 24), er_le64(d + 32) };
	if (md.phys / PAGE >= PFN_LIMIT)
		md.pages = 0;
	else if (md.pages > PFN_LIMIT - md.phys / PAGE)
		md.pages = PFN_LIMIT - md.phys / PAGE;
	return md;
}

static uint64_t phys_at(const struct map *m, size_t j)
{
	return er_le64(m->buf + j * m->desc_size + 8);
}

/* Sort the indexes by address (the map is small: insertion sort). */
static void sort_map(struct map *m)
{
	for (size_t i = 0; i < m->count; i++) {
		size_t v = m->idx[i] = i, j = i;
		while (j > 0 && phys_at(m, m->idx[j - 1]) > phys_at(m, v)) {
			m->idx[j] = m->idx[j - 1];
			j--;
		}
		m->idx[j] = v;
	}
}

static int read_map(struct er_plan *p, struct map *m)
{
	if (p->mem->get_map(p->mem->ctx, &m->buf, &m->size, &m->desc_size)) {
		m->buf = NULL;
		return -1;
	}
	if (m->desc_size < ER_EFI_MEMORY_DESC_MIN)
		return -1;
	m->count = m->size / m->desc_size;
	if (pool_array(p, m->count * sizeof(size_t) + 1, 1, (void **)&m->idx))
		return -1;
	sort_map(m);
	return 0;
}

static void put_map(struct er_plan *p, struct map *m)
{
	pool_free(p, m->idx);
	if (m->buf)
		p->mem->put_map(p->mem->ctx, m->buf);
}

static int plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct er_plan *p = ctx;
	struct map m = { 0 };
	uint64_t t0 = now(p);
	int ret = -1;

	p->img = img;
	p->pfns = pfns;
	p->npfns = n;
	/* the readers hand over ascending PFNs inside the physical address space; the
	 * walk, lower_bound and the frame arithmetic rely on it */
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		if (pfn >= PFN_LIMIT)
			return refuse(err, ER_R_PFN, "PFN 0x%llx (entry %llu) beyond the physical address space",
				      (unsigned long long)pfn, (unsigned long long)k);
		if (k > 0 && pfn <= (pfns[k - 1] & ~ER_PFN_ZERO))
			return refuse(err, ER_R_PFN, "PFN 0x%llx (entry %llu) follows 0x%llx: not ascending",
				      (unsigned long long)pfn, (unsigned long long)k,
				      (unsigned long long)(pfns[k - 1] & ~ER_PFN_ZERO));
	}
	if (pool_array(p, n + 1, 1, (void **)&p->direct))
		return refuse(err, ER_R_NOMEM, "no memory for a plan of %llu pages", (unsigned long long)n);
	er_memset(p->direct, 0, (size_t)(n + 1));
	if (read_map(p, &m)) {
		refuse(err, ER_R_NOMEM, "cannot read the memory map");
		goto out;
	}
	/* the ia32 loader runs without paging: it reaches only the low 4 GiB */
	if (p->mem->reach && n && (pfns[n - 1] & ~ER_PFN_ZERO) >= p->mem->reach / PAGE) {
		refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx is above 4 GiB, which the ia32 loader cannot reach",
		       (unsigned long long)(pfns[n - 1] & ~ER_PFN_ZERO));
		goto out;
	}
	for (size_t i = 0; i < m.count; i++) {
		struct er_efi_md d = desc(&m, i);
		if (is_ram(d.type) && d.phys + d.pages * PAGE > p->ram_top)
			p->ram_top = d.phys + d.pages * PAGE;
	}

	/* walk PFNs and descriptors together; claim runs inside conventional memory */
	size_t di = 0;
	uint64_t k = 0;
	while (k < n) {
		uint64_t pfn = pfns[k] & ~ER_PFN_ZERO;
		struct er_efi_md dd = { 0, 0, 0, 0 }, *d = &dd;
		while (di < m.count) {
			dd = desc(&m, di);
			if (d->phys / PAGE + d->pages > pfn)
				break;
			di++;
		}
		if (di >= m.count || d->phys / PAGE > pfn) {
			refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx is in no memory of this machine (RAM ends at 0x%llx)",
			       (unsigned long long)pfn, (unsigned long long)p->ram_top);
			goto out;
		}
		if (!is_ram(d->type)) {
			refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx lies in firmware memory of EFI type %u", (unsigned long long)pfn,
			       (unsigned)d->type);
			goto out;
		}
		uint64_t dend = d->phys / PAGE + d->pages, run = 1;
		while (k + run < n && (pfns[k + run] & ~ER_PFN_ZERO) == pfn + run && pfn + run < dend)
			run++;
		if (d->type == ER_EFI_CONVENTIONAL_MEMORY) {
			if (!p->mem->alloc_at(p->mem->ctx, pfn * PAGE, run)) {
				if (keep(p, pfn * PAGE, run))
					goto nomem;
				er_memset(p->direct + k, 1, (size_t)run);
			} else {
				/* something took part of it since the map was read: page by page */
				for (uint64_t j = 0; j < run; j++)
					if (!p->mem->alloc_at(p->mem->ctx, (pfn + j) * PAGE, 1)) {
						if (keep(p, (pfn + j) * PAGE, 1))
							goto nomem;
						p->direct[k + j] = 1;
					}
			}
		}
		k += run;
	}

	/* count, zero the direct zero pages, size the bounce needs */
	uint64_t bounce_data = 0;
	for (k = 0; k < n; k++) {
		bool zero = (pfns[k] & ER_PFN_ZERO) != 0;
		if (zero)
			p->n_zero++;
		if (p->direct[k]) {
			p->n_direct++;
			if (zero)
				er_memset(at(p, (pfns[k] & ~ER_PFN_ZERO) * PAGE, PAGE), 0, PAGE);
		} else {
			p->n_bounce++;
			if (!zero)
				bounce_data++;
		}
	}

	/* restore list and bounce frames, in safe pages */
	p->list_cap = p->n_bounce;
	p->list_pages = (p->list_cap * sizeof(struct er_plan_entry) + PAGE - 1) / PAGE + 1;
	if (er_plan_safe_pages(p, p->list_pages, false, &p->list_phys))
		goto nomem;
	p->list = at(p, p->list_phys, p->list_pages * PAGE);
	for (k = 0; k < n; k++)
		if (!p->direct[k] && (pfns[k] & ER_PFN_ZERO)) {
			p->list[p->list_n].dst = (pfns[k] & ~ER_PFN_ZERO) * PAGE;
			p->list[p->list_n].src = 0;
			p->list_n++;
		}
	uint64_t bcap = bounce_data / 16 + 64;
	if (pool_array(p, bcap, sizeof(struct er_alloc_rec), (void **)&p->bframes))
		goto nomem;
	uint64_t need = bounce_data, chunk = 512;
	while (need > 0) {
		uint64_t take = need < chunk ? need : chunk, a;
		if (p->nbframes >= bcap)
			goto nomem;
		if (er_plan_safe_pages(p, take, false, &a)) {
			if (chunk == 1)
				goto nomem;
			chunk /= 2;
			continue;
		}
		p->bframes[p->nbframes].addr = a;
		p->bframes[p->nbframes].pages = take;
		p->nbframes++;
		need -= take;
	}
	p->t_plan_us = now(p) - t0;
	ret = 0;
	goto out;
nomem:
	refuse(err, ER_R_NOMEM, "cannot reserve frames for %llu bounced pages (%llu direct)",
	       (unsigned long long)p->n_bounce, (unsigned long long)p->n_direct);
out:
	put_map(p, &m);
	return ret;
}

static int page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct er_plan *p = ctx;
	while (p->cursor < p->npfns && (p->pfns[p->cursor] & ER_PFN_ZERO))
		p->cursor++;
	if (p->cursor >= p->npfns || p->pfns[p->cursor] != pfn)
		return refuse(err, ER_R_COUNTS, "data page for PFN 0x%llx out of order (index %llu)",
			      (unsigned long long)pfn, (unsigned long long)p->cursor);
	if (p->direct[p->cursor]) {
		er_memcpy(at(p, pfn * PAGE, PAGE), data, PAGE);
	} else {
		if (p->bframe_idx >= p->nbframes || p->list_n >= p->list_cap)
			return refuse(err, ER_R_COUNTS, "more bounced pages than planned (PFN 0x%llx, %llu)",
				      (unsigned long long)pfn, (unsigned long long)p->list_n);
		uint64_t frame = p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE;
		if (++p->bframe_off == p->bframes[p->bframe_idx].pages) {
			p->bframe_idx++;
			p->bframe_off = 0;
		}
		er_memcpy(at(p, frame, PAGE), data, PAGE);
		p->list[p->list_n].dst = pfn * PAGE;
		p->list[p->list_n].src = frame;
		p->list_n++;
	}
	p->cursor++;
	return 0;
}

/* Zero-copy: k data pages at PFN indexes idx.. go either all into their own
 * (consecutive) frames, or all into consecutive bounce frames. */
static uint8_t *dest(void *ctx, uint64_t idx, uint64_t k)
{
	struct er_plan *p = ctx;
	uint64_t pfn0 = p->pfns[idx] & ~ER_PFN_ZERO;
	bool direct = p->direct[idx] != 0;

	for (uint64_t i = 1; i < k; i++)
		if ((p->direct[idx + i] != 0) != direct || (direct && p->pfns[idx + i] != pfn0 + i))
			return NULL;
	if (direct)
		return at(p, pfn0 * PAGE, k * PAGE);
	if (p->bframe_idx >= p->nbframes || p->bframes[p->bframe_idx].pages - p->bframe_off < k ||
	    p->list_n + k > p->list_cap)
		return NULL;
	return at(p, p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE, k * PAGE);
}

static int commit(void *ctx, uint64_t idx, uint64_t k, struct er_error *err)
{
	struct er_plan *p = ctx;
	(void)err;
	if (!p->direct[idx]) {
		uint64_t frame = p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE;
		for (uint64_t i = 0; i < k; i++) {
			p->list[p->list_n].dst = (p->pfns[idx + i] & ~ER_PFN_ZERO) * PAGE;
			p->list[p->list_n].src = frame + i * PAGE;
			p->list_n++;
		}
		p->bframe_off += k;
		if (p->bframe_off == p->bframes[p->bframe_idx].pages) {
			p->bframe_idx++;
			p->bframe_off = 0;
		}
	}
	p->cursor = idx + k;
	return 0;
}

struct er_sink er_plan_sink(struct er_plan *p)
{
	struct er_sink s = { p, plan, page, dest, commit };
	return s;
}
