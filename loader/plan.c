/* Plan: claim the image's frames, bounce the rest; place pages as they stream. */
#include "loader/plan.h"
#include "image/fmt.h"

#define PAGE 4096ull

static BOOLEAN is_ram(UINT32 type)
{
	return type == EfiLoaderCode || type == EfiLoaderData || type == EfiBootServicesCode ||
	       type == EfiBootServicesData || type == EfiConventionalMemory;
}

static EFI_STATUS record(struct er_plan *p, UINT64 addr, UINT64 pages)
{
	if (p->nallocs > 0) {
		struct er_alloc_rec *last = &p->allocs[p->nallocs - 1];
		if (last->addr + last->pages * PAGE == addr) {
			last->pages += pages;
			return EFI_SUCCESS;
		}
	}
	if (p->nallocs == p->allocs_cap) {
		/* grow: allocation records are few (runs), so doubling is rare */
		UINT64 cap = p->allocs_cap ? p->allocs_cap * 2 : 1024;
		struct er_alloc_rec *n;
		EFI_STATUS err = er_alloc(cap * sizeof(*n), (void **)&n);
		if (EFI_ERROR(err))
			return err;
		if (p->allocs)
			er_memcpy(n, p->allocs, p->nallocs * sizeof(*n));
		er_free(p->allocs);
		p->allocs = n;
		p->allocs_cap = cap;
	}
	p->allocs[p->nallocs].addr = addr;
	p->allocs[p->nallocs].pages = pages;
	p->nallocs++;
	return EFI_SUCCESS;
}

void er_plan_undo(struct er_plan *p)
{
	for (UINT64 i = 0; i < p->nallocs; i++)
		BS->FreePages(p->allocs[i].addr, p->allocs[i].pages);
	p->nallocs = 0;
	er_free(p->allocs);
	er_free(p->direct);
	er_free(p->bframes);
	p->allocs = NULL;
	p->direct = NULL;
	p->bframes = NULL;
	p->list = NULL;
}

/* index of the first PFN >= pfn */
static UINT64 lower_bound(const struct er_plan *p, UINT64 pfn)
{
	UINT64 lo = 0, hi = p->npfns;
	while (lo < hi) {
		UINT64 mid = lo + (hi - lo) / 2;
		if ((p->pfns[mid] & ~ER_PFN_ZERO) < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

EFI_STATUS er_plan_safe_alloc(void *ctx, UINTN pages, BOOLEAN code, UINT64 *phys)
{
	struct er_plan *p = ctx;
	for (int tries = 0; tries < 256; tries++) {
		EFI_PHYSICAL_ADDRESS a = 0;
		EFI_STATUS err = BS->AllocatePages(AllocateAnyPages, code ? EfiLoaderCode : EfiLoaderData, pages, &a);
		if (EFI_ERROR(err))
			return err;
		err = record(p, a, pages);
		if (EFI_ERROR(err)) {
			BS->FreePages(a, pages);
			return err;
		}
		UINT64 first = a / PAGE, i = lower_bound(p, first);
		if (i >= p->npfns || (p->pfns[i] & ~ER_PFN_ZERO) >= first + pages) {
			*phys = a;
			return EFI_SUCCESS;
		}
		/* The range holds an image frame the firmware released after the plan: keep
		 * it (so it is not handed out again) and try elsewhere. */
	}
	return EFI_OUT_OF_RESOURCES;
}

const UINT8 *er_plan_content(const struct er_plan *p, UINT64 pfn)
{
	UINT64 i = lower_bound(p, pfn);
	if (i >= p->npfns || (p->pfns[i] & ~ER_PFN_ZERO) != pfn || (p->pfns[i] & ER_PFN_ZERO))
		return NULL;
	if (p->direct[i])
		return (const UINT8 *)(UINTN)(pfn * PAGE);
	for (UINT64 k = 0; k < p->list_n; k++)
		if (p->list[k].dst == pfn * PAGE)
			return p->list[k].src ? (const UINT8 *)(UINTN)p->list[k].src : NULL;
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

/* Sort indexes of the memory map by address (the map is small: insertion sort). */
static void sort_map(struct er_memmap *m, UINTN *idx)
{
	for (UINTN i = 0; i < m->count; i++) {
		UINTN v = idx[i] = i, j = i;
		while (j > 0 && ER_MD(m, idx[j - 1])->PhysicalStart > ER_MD(m, v)->PhysicalStart) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

static int plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct er_plan *p = ctx;
	struct er_memmap m = { 0 };
	UINTN *idx = NULL;
	UINT64 t0 = er_time_us();
	int ret = -1;

	p->img = img;
	p->pfns = pfns;
	p->npfns = n;
	if (EFI_ERROR(er_alloc_zero(n + 1, (void **)&p->direct)))
		return refuse(err, ER_R_NOMEM, "no memory for a plan of %llu pages", (unsigned long long)n);
	if (EFI_ERROR(er_memmap_get(&m)) || EFI_ERROR(er_alloc(m.count * sizeof(UINTN) + 1, (void **)&idx))) {
		refuse(err, ER_R_NOMEM, "cannot read the memory map");
		goto out;
	}
	/* the ia32 loader runs without paging: it reaches only the low 4 GiB */
	if (sizeof(UINTN) < 8 && n && (pfns[n - 1] & ~ER_PFN_ZERO) >= (1ull << 20)) {
		refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx is above 4 GiB, which the ia32 loader cannot reach",
		       (unsigned long long)(pfns[n - 1] & ~ER_PFN_ZERO));
		goto out;
	}
	sort_map(&m, idx);
	for (UINTN i = 0; i < m.count; i++) {
		EFI_MEMORY_DESCRIPTOR *d = ER_MD(&m, idx[i]);
		if (is_ram(d->Type) && d->PhysicalStart + d->NumberOfPages * PAGE > p->ram_top)
			p->ram_top = d->PhysicalStart + d->NumberOfPages * PAGE;
	}

	/* walk PFNs and descriptors together; claim runs inside conventional memory */
	UINTN di = 0;
	UINT64 k = 0;
	while (k < n) {
		UINT64 pfn = pfns[k] & ~ER_PFN_ZERO;
		EFI_MEMORY_DESCRIPTOR *d = NULL;
		while (di < m.count) {
			d = ER_MD(&m, idx[di]);
			if (d->PhysicalStart / PAGE + d->NumberOfPages > pfn)
				break;
			di++;
		}
		if (di >= m.count || d->PhysicalStart / PAGE > pfn) {
			refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx is in no memory of this machine (RAM ends at 0x%llx)",
			       (unsigned long long)pfn, (unsigned long long)p->ram_top);
			goto out;
		}
		if (!is_ram(d->Type)) {
			refuse(err, ER_R_PFN_NOT_RAM, "PFN 0x%llx lies in firmware memory of EFI type %u", (unsigned long long)pfn,
			       (unsigned)d->Type);
			goto out;
		}
		UINT64 dend = d->PhysicalStart / PAGE + d->NumberOfPages, run = 1;
		while (k + run < n && (pfns[k + run] & ~ER_PFN_ZERO) == pfn + run && pfn + run < dend)
			run++;
		if (d->Type == EfiConventionalMemory) {
			if (!EFI_ERROR(er_alloc_at(pfn * PAGE, run))) {
				if (EFI_ERROR(record(p, pfn * PAGE, run)))
					goto nomem;
				er_memset(p->direct + k, 1, run);
			} else {
				/* something took part of it since the map was read: page by page */
				for (UINT64 j = 0; j < run; j++)
					if (!EFI_ERROR(er_alloc_at((pfn + j) * PAGE, 1))) {
						if (EFI_ERROR(record(p, (pfn + j) * PAGE, 1)))
							goto nomem;
						p->direct[k + j] = 1;
					}
			}
		}
		k += run;
	}

	/* count, zero the direct zero pages, size the bounce needs */
	UINT64 bounce_data = 0;
	for (k = 0; k < n; k++) {
		BOOLEAN zero = (pfns[k] & ER_PFN_ZERO) != 0;
		if (zero)
			p->n_zero++;
		if (p->direct[k]) {
			p->n_direct++;
			if (zero)
				er_memset((void *)(UINTN)((pfns[k] & ~ER_PFN_ZERO) * PAGE), 0, PAGE);
		} else {
			p->n_bounce++;
			if (!zero)
				bounce_data++;
		}
	}

	/* restore list and bounce frames, in safe pages */
	p->list_cap = p->n_bounce;
	p->list_pages = (p->list_cap * sizeof(struct er_restore_entry) + PAGE - 1) / PAGE + 1;
	UINT64 lp;
	if (EFI_ERROR(er_plan_safe_alloc(p, p->list_pages, FALSE, &lp)))
		goto nomem;
	p->list = (struct er_restore_entry *)(UINTN)lp;
	for (k = 0; k < n; k++)
		if (!p->direct[k] && (pfns[k] & ER_PFN_ZERO)) {
			p->list[p->list_n].dst = (pfns[k] & ~ER_PFN_ZERO) * PAGE;
			p->list[p->list_n].src = 0;
			p->list_n++;
		}
	if (EFI_ERROR(er_alloc((bounce_data / 16 + 64) * sizeof(struct er_alloc_rec), (void **)&p->bframes)))
		goto nomem;
	UINT64 need = bounce_data, chunk = 512;
	while (need > 0) {
		UINT64 take = need < chunk ? need : chunk, a;
		if (p->nbframes >= bounce_data / 16 + 64)
			goto nomem;
		if (EFI_ERROR(er_plan_safe_alloc(p, take, FALSE, &a))) {
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
	p->t_plan_us = er_time_us() - t0;
	ret = 0;
	goto out;
nomem:
	refuse(err, ER_R_NOMEM, "cannot reserve frames for %llu bounced pages (%llu direct)",
	       (unsigned long long)p->n_bounce, (unsigned long long)p->n_direct);
out:
	er_free(idx);
	er_memmap_free(&m);
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
		er_memcpy((void *)(UINTN)(pfn * PAGE), data, PAGE);
	} else {
		if (p->bframe_idx >= p->nbframes || p->list_n >= p->list_cap)
			return refuse(err, ER_R_COUNTS, "more bounced pages than planned (PFN 0x%llx, %llu)",
				      (unsigned long long)pfn, (unsigned long long)p->list_n);
		UINT64 frame = p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE;
		if (++p->bframe_off == p->bframes[p->bframe_idx].pages) {
			p->bframe_idx++;
			p->bframe_off = 0;
		}
		er_memcpy((void *)(UINTN)frame, data, PAGE);
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
	UINT64 pfn0 = p->pfns[idx] & ~ER_PFN_ZERO;
	BOOLEAN direct = p->direct[idx] != 0;

	for (UINT64 i = 1; i < k; i++)
		if ((p->direct[idx + i] != 0) != direct || (direct && p->pfns[idx + i] != pfn0 + i))
			return NULL;
	if (direct)
		return (uint8_t *)(UINTN)(pfn0 * PAGE);
	if (p->bframe_idx >= p->nbframes || p->bframes[p->bframe_idx].pages - p->bframe_off < k ||
	    p->list_n + k > p->list_cap)
		return NULL;
	return (uint8_t *)(UINTN)(p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE);
}

static int commit(void *ctx, uint64_t idx, uint64_t k, struct er_error *err)
{
	struct er_plan *p = ctx;
	(void)err;
	if (!p->direct[idx]) {
		UINT64 frame = p->bframes[p->bframe_idx].addr + p->bframe_off * PAGE;
		for (UINT64 i = 0; i < k; i++) {
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
