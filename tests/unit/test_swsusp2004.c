// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/swsusp2004.c, the reader of the firmware-resumable 2004
 * swsusp image (kernel-patch/).
 *
 * A host-side writer plays the patched 2.6.8 kernel with the seeds' algorithm:
 * count the saveable pages, calc_order() (the pagedir is itself saved, so the count
 * grows by its pages), alloc_pagedir(), alloc_image_pages(), copy_data_pages()
 * (zone order, optionally two nodes listed high first), then write_suspend_image():
 * init_header(), data_write(), write_pagedir() (refusing more than 768 pagedir
 * pages, as the patch does), close_swap() = the swsusp_info page, then
 * mark_swapfiles() on page 0. It lays pages out through the shared structure
 * definitions of image/swsusp2004.h. The reader must give back every page at its
 * PFN, and refuse corruptions with the right reason.
 *
 * The drift test compares the layout block of image/swsusp2004.h with the block
 * a kernel-patch/ patch adds to kernel/power/power.h, line for line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <cmocka.h>

#include "image/swsusp2004.h"

#define PAGE 4096u
#define KTEXT64 0xffffffff80000000ull

/* ------------------------------------------------------------------ the writer */

enum { M_FREE = 0, M_SAVE, M_NOSAVE_SECTION, M_COPY };

struct wcfg {
	unsigned word;              /* 4: i386, 8: x86_64 */
	uint64_t num_physpages;
	uint64_t save_lo, save_hi;  /* PFNs in use (saveable) before the snapshot */
	uint64_t nosave_lo, nosave_hi; /* .data.nosave: in use, never saved */
	uint64_t node_split;        /* != 0: node 1 = [split, max) is listed before node 0 */
	uint64_t entry_pfn, cr3_pfn;
	unsigned swap_type;
	uint32_t cpus;
	uint64_t dev_extra;         /* free swap pages after the image */
	bool dry;                   /* no page contents: counts and refusals only */
	uint64_t dry_saveable;      /* dry: saveable pages to pretend */
};

struct wimg {
	unsigned word, pbe;
	uint64_t page_offset;
	uint8_t *dev;
	uint64_t dev_pages;
	uint64_t n;                 /* nr_copy_pages = image_pages */
	uint64_t *pfn;              /* per pbe */
	uint8_t *copy;              /* per pbe: the page as copied */
	uint64_t pd_pages;
	uint32_t slots[SWSUSP_FW_PAGEDIR_SLOTS];
	uint64_t info_off;
	uint64_t entry, entry_phys, cr3, nosave_begin, nosave_end;
	int rc;                     /* 0, or -EFBIG when write_pagedir refused */
};

static unsigned fls64(uint64_t x)
{
	unsigned n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* calc_order() of the seeds (patch 6/25), verbatim arithmetic */
static void calc_order(uint64_t *nr_copy_pages, unsigned pbe, unsigned *order_out)
{
	int diff, order = (int)fls64(ER_SWSUSP2004_PD_PAGES(*nr_copy_pages, pbe));
	*nr_copy_pages += 1ull << order;
	do {
		diff = (int)fls64(ER_SWSUSP2004_PD_PAGES(*nr_copy_pages, pbe)) - order;
		if (diff) {
			order += diff;
			*nr_copy_pages += 1ull << diff;
		}
	} while (diff);
	*order_out = (unsigned)order;
}

static void pattern(uint8_t *p, uint64_t pfn)
{
	for (unsigned i = 0; i < PAGE; i++)
		p[i] = (uint8_t)(pfn * 131 + i * 7 + (i >> 8));
	memcpy(p, &pfn, sizeof(pfn));
}

static void put_word(uint8_t *p, unsigned word, uint64_t v)
{
	if (word == 8)
		er_put_le64(p, v);
	else
		er_put_le32(p, (uint32_t)v);
}

static uint8_t *pbe_at(uint8_t *pd, unsigned pbe, uint64_t k)
{
	return pd + k * pbe;
}

#define PBE_OFF(word, f) ((word) == 8 ? offsetof(struct swsusp_fw_pbe64, f) : offsetof(struct swsusp_fw_pbe32, f))

static void fill_uts(struct swsusp_fw_uts *u, unsigned word)
{
	memset(u, 0, sizeof(*u));
	strcpy(u->sysname, "Linux");
	strcpy(u->nodename, "laptop");
	strcpy(u->release, "2.6.8-1-686");
	strcpy(u->version, "#1 Sat Aug 14 03:00:00 UTC 2004");
	strcpy(u->machine, word == 8 ? "x86_64" : "i686");
	strcpy(u->domainname, "(none)");
}

/* The snapshot and write_suspend_image() of a patched kernel. */
static void write_image(const struct wcfg *c, struct wimg *w)
{
	unsigned word = c->word, pbe = 4 * word;
	uint64_t max = c->num_physpages;
	uint8_t *state = calloc(max ? max : 1, 1);
	unsigned order;

	memset(w, 0, sizeof(*w));
	w->word = word;
	w->pbe = pbe;
	w->page_offset = word == 8 ? 0x0000010000000000ull : 0xc0000000ull;
	assert_non_null(state);
	for (uint64_t p = c->save_lo; p < c->save_hi && p < max; p++)
		state[p] = M_SAVE;
	for (uint64_t p = c->nosave_lo; p < c->nosave_hi && p < max; p++)
		state[p] = M_NOSAVE_SECTION;

	/* count_data_pages(), then swsusp_alloc(): calc_order() in alloc_pagedir() */
	uint64_t saveable = 0;
	for (uint64_t p = 0; p < max; p++)
		saveable += state[p] == M_SAVE;
	if (c->dry)
		saveable = c->dry_saveable;
	uint64_t n = saveable;
	calc_order(&n, pbe, &order);
	w->n = n;
	w->pd_pages = ER_SWSUSP2004_PD_PAGES(n, pbe);
	if (c->dry) {
		/* write_pagedir() is where the patch refuses */
		w->rc = w->pd_pages > SWSUSP_FW_PAGEDIR_SLOTS ? -EFBIG : 0;
		free(state);
		return;
	}

	uint64_t pd_count = 1ull << order;
	uint8_t *pd = calloc(pd_count, PAGE);
	uint64_t *pd_pfn = calloc(pd_count, sizeof(uint64_t));
	uint64_t *copy_pfn = calloc(n, sizeof(uint64_t));
	w->pfn = calloc(n, sizeof(uint64_t));
	w->copy = malloc(n * PAGE);
	assert_true(pd && pd_pfn && copy_pfn && w->pfn && w->copy);

	/* alloc_pagedir(): the pagedir pages are ordinary, hence saveable; then
	 * alloc_image_pages(): the copies are Nosave */
	uint64_t p = 0;
	for (uint64_t j = 0; j < pd_count; j++) {
		while (p < max && state[p] != M_FREE)
			p++;
		assert_true(p < max);
		state[p] = M_SAVE;
		pd_pfn[j] = p;
	}
	for (uint64_t k = 0; k < n; k++) {
		while (p < max && state[p] != M_FREE)
			p++;
		assert_true(p < max);
		state[p] = M_COPY;
		copy_pfn[k] = p;
		put_word(pbe_at(pd, pbe, k) + PBE_OFF(word, address), word, w->page_offset + p * PAGE);
	}

	/* copy_data_pages(): zones in PFN order, nodes as listed */
	uint64_t k = 0;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t lo = c->node_split ? (pass ? 0 : c->node_split) : (pass ? max : 0);
		uint64_t hi = c->node_split ? (pass ? c->node_split : max) : max;
		for (uint64_t q = lo; q < hi; q++) {
			if (state[q] != M_SAVE)
				continue;
			assert_true(k < n);   /* the seeds overflow here when calc_order undercounts */
			put_word(pbe_at(pd, pbe, k) + PBE_OFF(word, orig_address), word, w->page_offset + q * PAGE);
			w->pfn[k] = q;
			uint64_t j = 0;
			while (j < pd_count && pd_pfn[j] != q)
				j++;
			if (j < pd_count)
				memcpy(w->copy + k * PAGE, pd + j * PAGE, PAGE);   /* the pagedir, as it is now */
			else
				pattern(w->copy + k * PAGE, q);
			k++;
		}
	}
	assert_int_equal(k, n);

	/* the swap device: mkswap's page 0, then write_suspend_image() */
	w->dev_pages = 1 + n + w->pd_pages + 1 + c->dev_extra;
	w->dev = calloc(w->dev_pages, PAGE);
	assert_non_null(w->dev);
	er_put_le32(w->dev + 1024, 1);
	er_put_le32(w->dev + 1028, (uint32_t)(w->dev_pages - 1));
	memcpy(w->dev + 4086, "SWAPSPACE2", 10);
	uint64_t next = 1;

	/* init_header() */
	w->entry_phys = c->entry_pfn * PAGE + 0x340;
	w->entry = word == 8 ? KTEXT64 + w->entry_phys : w->page_offset + w->entry_phys;
	w->cr3 = c->cr3_pfn * PAGE;
	w->nosave_begin = c->nosave_lo * PAGE;
	w->nosave_end = c->nosave_hi * PAGE;
	struct swsusp_fw_tail tail = {
		.fw_magic = SWSUSP_FW_MAGIC, .fw_version = SWSUSP_FW_VERSION,
		.fw_arch = word == 8 ? SWSUSP_FW_ARCH_X86_64 : SWSUSP_FW_ARCH_I386, .fw_page_size = PAGE,
		.fw_entry = w->entry, .fw_entry_phys = w->entry_phys, .fw_cr3 = w->cr3,
		.fw_page_offset = w->page_offset, .fw_nosave_begin = w->nosave_begin, .fw_nosave_end = w->nosave_end,
	};
	void *info = aligned_alloc(PAGE, PAGE);
	assert_non_null(info);
	memset(info, 0, PAGE);

	/* data_write() */
	for (k = 0; k < n; k++) {
		uint64_t off = next++;
		memcpy(w->dev + off * PAGE, w->copy + k * PAGE, PAGE);
		put_word(pbe_at(pd, pbe, k) + PBE_OFF(word, swap_address), word, er_swsusp2004_swp_entry(c->swap_type, off, word));
	}
	/* write_pagedir() */
	if (w->pd_pages > SWSUSP_FW_PAGEDIR_SLOTS) {
		w->rc = -EFBIG;
	} else {
		for (uint64_t i = 0; i < w->pd_pages; i++) {
			uint64_t off = next++;
			memcpy(w->dev + off * PAGE, pd + i * PAGE, PAGE);
			w->slots[i] = (uint32_t)off;
		}
		/* close_swap(): write_header(), mark_swapfiles() */
		if (word == 8) {
			struct swsusp_fw_info64 *h = info;
			fill_uts(&h->uts, word);
			h->version_code = 0x020608;
			h->num_physpages = max;
			h->cpus = (int32_t)c->cpus;
			h->image_pages = n;
			h->pagedir_pages = w->pd_pages;
			h->suspend_pagedir = w->page_offset + pd_pfn[0] * PAGE;
			memcpy(h->pagedir, w->slots, sizeof(h->pagedir));
			h->fw = tail;
		} else {
			struct swsusp_fw_info32 *h = info;
			fill_uts(&h->uts, word);
			h->version_code = 0x020608;
			h->num_physpages = (uint32_t)max;
			h->cpus = (int32_t)c->cpus;
			h->image_pages = (uint32_t)n;
			h->pagedir_pages = (uint32_t)w->pd_pages;
			h->suspend_pagedir = (uint32_t)(w->page_offset + pd_pfn[0] * PAGE);
			memcpy(h->pagedir, w->slots, sizeof(h->pagedir));
			h->fw = tail;
		}
		w->info_off = next++;
		memcpy(w->dev + w->info_off * PAGE, info, PAGE);

		uint8_t *p0 = w->dev;
		assert_true(memcmp(p0 + 4086, "SWAPSPACE2", 10) == 0 || memcmp(p0 + 4086, "SWAP-SPACE", 10) == 0);
		if (word == 8) {
			struct swsusp_fw_header64 hdr;
			memcpy(&hdr, p0, sizeof(hdr));
			memcpy(hdr.orig_sig, hdr.sig, 10);
			memcpy(hdr.sig, SWSUSP_FW_SIG, 10);
			hdr.swsusp_info = er_swsusp2004_swp_entry(c->swap_type, w->info_off, 8);
			memcpy(p0, &hdr, sizeof(hdr));
		} else {
			struct swsusp_fw_header32 hdr;
			memcpy(&hdr, p0, sizeof(hdr));
			memcpy(hdr.orig_sig, hdr.sig, 10);
			memcpy(hdr.sig, SWSUSP_FW_SIG, 10);
			hdr.swsusp_info = (uint32_t)er_swsusp2004_swp_entry(c->swap_type, w->info_off, 4);
			memcpy(p0, &hdr, sizeof(hdr));
		}
	}
	free(info);
	free(pd);
	free(pd_pfn);
	free(copy_pfn);
	free(state);
}

static void free_image(struct wimg *w)
{
	free(w->dev);
	free(w->pfn);
	free(w->copy);
	memset(w, 0, sizeof(*w));
}

/* a machine of `pages` pages: kernel + data in use below half, .data.nosave inside */
static struct wcfg cfg(unsigned word, uint64_t pages)
{
	struct wcfg c = { 0 };
	c.word = word;
	c.num_physpages = pages;
	c.save_lo = 1;
	c.save_hi = pages / 2 - 8;
	c.nosave_lo = 40;
	c.nosave_hi = 42;
	c.entry_pfn = 20;
	c.cr3_pfn = 21;
	c.swap_type = 1;
	c.cpus = 1;
	c.dev_extra = 3;
	return c;
}

/* ------------------------------------------------------------------ the reader, end to end */

struct memdev {
	const uint8_t *data;
	uint64_t pages;
	int64_t fail_page;      /* a read touching this page fails; -1: none */
	uint64_t reads;
};

static int mem_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct memdev *d = ctx;
	d->reads++;
	if (d->fail_page >= 0 && (uint64_t)d->fail_page >= page && (uint64_t)d->fail_page < page + count)
		return -1;
	memcpy(buf, d->data + page * PAGE, count * PAGE);
	return 0;
}

struct collect {
	const struct wimg *w;
	uint64_t planned, got;
	uint64_t last;
	int refuse_plan;
	int64_t refuse_page;
	bool order_ok, content_ok;
};

static int c_plan(void *ctx, const struct er_swsusp2004_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct collect *c = ctx;
	(void)img;
	c->planned = n;
	for (uint64_t k = 1; k < n; k++)
		if (pfns[k] <= pfns[k - 1])
			c->order_ok = false;
	if (c->refuse_plan) {
		snprintf(err->detail, sizeof(err->detail), "no room");
		return -1;
	}
	return 0;
}

static int c_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct collect *c = ctx;
	if (c->refuse_page >= 0 && c->got == (uint64_t)c->refuse_page) {
		snprintf(err->detail, sizeof(err->detail), "frame busy");
		return -1;
	}
	if (c->got && pfn <= c->last)
		c->order_ok = false;
	c->last = pfn;
	uint64_t k = 0;
	while (k < c->w->n && c->w->pfn[k] != pfn)
		k++;
	if (k == c->w->n || memcmp(data, c->w->copy + k * PAGE, PAGE) != 0)
		c->content_ok = false;
	c->got++;
	return 0;
}

struct run {
	struct er_swsusp2004_image img;
	struct er_error err;
	struct collect col;
	struct memdev dev;
};

/* open + load_pagedir + stream; fail_page / refusals set in r before the call */
static enum er_reason run_reader(const struct wimg *w, const struct er_swsusp2004_expect *exp, struct run *r,
				 uint64_t io_pages)
{
	uint8_t page[PAGE];
	struct er_source src = { &r->dev, w->dev_pages, mem_read, 0 };
	enum er_reason rc;

	r->dev.data = w->dev;
	r->dev.pages = w->dev_pages;
	r->col.w = w;
	rc = er_swsusp2004_open(&r->img, &src, page, exp, &r->err);
	if (rc)
		return rc;
	uint8_t *pd = malloc(r->img.pagedir_pages * PAGE);
	assert_non_null(pd);
	rc = er_swsusp2004_load_pagedir(&r->img, &src, pd, r->img.pagedir_pages, exp, &r->err);
	if (!rc) {
		uint64_t n = r->img.image_pages;
		struct er_swsusp2004_buffers b = { malloc(io_pages * PAGE), io_pages, malloc(n * 8), malloc(n * 8) };
		struct er_swsusp2004_sink sink = { &r->col, c_plan, c_page };
		assert_true(b.io && b.pfns && b.swaps);
		rc = er_swsusp2004_stream(&r->img, &src, &b, &sink, &r->err);
		free(b.io);
		free(b.pfns);
		free(b.swaps);
	}
	free(pd);
	return rc;
}

static void fresh(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->dev.fail_page = -1;
	r->col.refuse_page = -1;
	r->col.order_ok = r->col.content_ok = true;
}

static const struct er_swsusp2004_expect exp_i386 = { ER_ARCH_I386, 4096, 0, 0 };
static const struct er_swsusp2004_expect exp_x64 = { ER_ARCH_X86_64, 4096, 0, 0 };

static void expect_ok(const struct wimg *w, const struct er_swsusp2004_expect *exp, struct run *r, uint64_t io)
{
	fresh(r);
	enum er_reason rc = run_reader(w, exp, r, io);
	if (rc)
		fail_msg("refused: %s: %s", er_reason_name(rc), r->err.detail);
	assert_int_equal(r->img.image_pages, w->n);
	assert_int_equal(r->img.pagedir_pages, w->pd_pages);
	assert_int_equal(r->col.planned, w->n);
	assert_int_equal(r->col.got, w->n);
	assert_int_equal(r->img.delivered, w->n);
	assert_true(r->col.order_ok);
	assert_true(r->col.content_ok);
	assert_int_equal(r->img.entry, w->entry);
	assert_int_equal(r->img.entry_phys, w->entry_phys);
	assert_int_equal(r->img.cr3, w->cr3);
	assert_int_equal(r->img.page_offset, w->page_offset);
	assert_int_equal(r->img.info_page, w->info_off);
	assert_string_equal(r->img.orig_sig, "SWAPSPACE2");
}

static void expect_refusal(const struct wimg *w, const struct er_swsusp2004_expect *exp, enum er_reason want,
			   const char *detail_part)
{
	struct run r;
	fresh(&r);
	enum er_reason rc = run_reader(w, exp, &r, 8);
	if (rc != want)
		fail_msg("want %s, got %s: %s", er_reason_name(want), er_reason_name(rc), r.err.detail);
	assert_int_equal(r.err.reason, want);
	if (detail_part && !strstr(r.err.detail, detail_part))
		fail_msg("detail \"%s\" lacks \"%s\"", r.err.detail, detail_part);
	/* a refusal before streaming hands nothing to the sink */
	if (want != ER_R_SINK && want != ER_R_IO)
		assert_int_equal(r.col.got, 0);
}

/* ------------------------------------------------------------------ layout */

static void test_layout_offsets(void **state)
{
	(void)state;
	/* i386: the seeds' swsusp_info up to pagedir, unchanged; then the fw tail */
	assert_int_equal(offsetof(struct swsusp_fw_info32, uts), 0);
	assert_int_equal(offsetof(struct swsusp_fw_info32, version_code), 392);
	assert_int_equal(offsetof(struct swsusp_fw_info32, num_physpages), 396);
	assert_int_equal(offsetof(struct swsusp_fw_info32, cpus), 400);
	assert_int_equal(offsetof(struct swsusp_fw_info32, image_pages), 404);
	assert_int_equal(offsetof(struct swsusp_fw_info32, pagedir_pages), 408);
	assert_int_equal(offsetof(struct swsusp_fw_info32, suspend_pagedir), 412);
	assert_int_equal(offsetof(struct swsusp_fw_info32, pagedir), 416);
	assert_int_equal(offsetof(struct swsusp_fw_info32, fw), 3488);
	assert_int_equal(offsetof(struct swsusp_fw_info32, fw) + sizeof(struct swsusp_fw_tail), 3552);
	/* x86_64: the seeds' offsets up to pagedir (8-byte longs), 4-byte slots */
	assert_int_equal(offsetof(struct swsusp_fw_info64, version_code), 392);
	assert_int_equal(offsetof(struct swsusp_fw_info64, num_physpages), 400);
	assert_int_equal(offsetof(struct swsusp_fw_info64, cpus), 408);
	assert_int_equal(offsetof(struct swsusp_fw_info64, image_pages), 416);
	assert_int_equal(offsetof(struct swsusp_fw_info64, pagedir_pages), 424);
	assert_int_equal(offsetof(struct swsusp_fw_info64, suspend_pagedir), 432);
	assert_int_equal(offsetof(struct swsusp_fw_info64, pagedir), 440);
	assert_int_equal(offsetof(struct swsusp_fw_info64, fw), 3512);
	assert_int_equal(offsetof(struct swsusp_fw_info64, fw) + sizeof(struct swsusp_fw_tail), 3576);
	assert_int_equal(sizeof(struct swsusp_fw_info32), 4096);
	assert_int_equal(sizeof(struct swsusp_fw_info64), 4096);
	/* the tail is the same for both */
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_magic), 0);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_version), 4);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_arch), 8);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_page_size), 12);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_entry), 16);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_entry_phys), 24);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_cr3), 32);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_page_offset), 40);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_nosave_begin), 48);
	assert_int_equal(offsetof(struct swsusp_fw_tail, fw_nosave_end), 56);
	/* struct pbe: address, orig_address, swap_address, the padding entry */
	assert_int_equal(offsetof(struct swsusp_fw_pbe32, orig_address), 4);
	assert_int_equal(offsetof(struct swsusp_fw_pbe32, swap_address), 8);
	assert_int_equal(offsetof(struct swsusp_fw_pbe32, dummy), 12);
	assert_int_equal(sizeof(struct swsusp_fw_pbe32), 16);
	assert_int_equal(offsetof(struct swsusp_fw_pbe64, orig_address), 8);
	assert_int_equal(offsetof(struct swsusp_fw_pbe64, swap_address), 16);
	assert_int_equal(offsetof(struct swsusp_fw_pbe64, dummy), 24);
	assert_int_equal(sizeof(struct swsusp_fw_pbe64), 32);
	/* page 0: char reserved[PAGE_SIZE - 20 - sizeof(swp_entry_t)], entry, orig_sig, sig */
	assert_int_equal(offsetof(struct swsusp_fw_header32, swsusp_info), 4072);
	assert_int_equal(offsetof(struct swsusp_fw_header32, orig_sig), 4076);
	assert_int_equal(offsetof(struct swsusp_fw_header32, sig), 4086);
	assert_int_equal(offsetof(struct swsusp_fw_header64, swsusp_info), 4068);
	assert_int_equal(offsetof(struct swsusp_fw_header64, orig_sig), 4076);
	assert_int_equal(offsetof(struct swsusp_fw_header64, sig), 4086);
	assert_int_equal(sizeof(SWSUSP_FW_SIG), 10);
	/* SUSPEND_PD_PAGES: 256 (i386) / 128 (x86_64) pbes per page, always +1 */
	assert_int_equal(ER_SWSUSP2004_PD_PAGES(255, 16), 1);
	assert_int_equal(ER_SWSUSP2004_PD_PAGES(256, 16), 2);
	assert_int_equal(ER_SWSUSP2004_PD_PAGES(128, 32), 2);
	assert_int_equal(ER_SWSUSP2004_PD_PAGES(768 * 256 - 1, 16), 768);
	assert_int_equal(ER_SWSUSP2004_PD_PAGES(768 * 256, 16), 769);
}

static void test_swp_entry_encoding(void **state)
{
	(void)state;
	/* linux/swapops.h: type in the top 5 bits, offset below */
	assert_int_equal(er_swsusp2004_swp_entry(3, 12345, 4), (3ull << 27) | 12345);
	assert_int_equal(er_swsusp2004_swp_type((3ull << 27) | 12345, 4), 3);
	assert_int_equal(er_swsusp2004_swp_offset((3ull << 27) | 12345, 4), 12345);
	assert_int_equal(er_swsusp2004_swp_type(0xffffffffull, 4), 31);
	assert_int_equal(er_swsusp2004_swp_offset(0xffffffffull, 4), (1ull << 27) - 1);
	assert_int_equal(er_swsusp2004_swp_entry(3, 12345, 8), (3ull << 59) | 12345);
	assert_int_equal(er_swsusp2004_swp_type((31ull << 59) | 7, 8), 31);
	assert_int_equal(er_swsusp2004_swp_offset((31ull << 59) | 7, 8), 7);
	assert_int_equal(er_swsusp2004_swp_entry(0, 1ull << 40, 8), 1ull << 40);
}

/* ------------------------------------------------------------------ drift */

static char top[1024];

static bool exists(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

static void find_top(void)
{
	const char *env = getenv("EFIRESUME_TOP");
	char guess[1024];
	if (env && *env) {
		snprintf(top, sizeof(top), "%s", env);
		return;
	}
	/* __FILE__ is tests/unit/test_swsusp2004.c, relative to where make ran */
	snprintf(guess, sizeof(guess), "%s", __FILE__);
	char *cut = strstr(guess, "tests/unit/");
	if (cut && cut != guess) {
		*cut = 0;
		snprintf(top, sizeof(top), "%s", guess);
		return;
	}
	const char *cands[] = { ".", "..", "../..", "../../.." };
	for (unsigned i = 0; i < 4; i++) {
		snprintf(guess, sizeof(guess), "%s/image/swsusp2004.h", cands[i]);
		if (exists(guess)) {
			snprintf(top, sizeof(top), "%s", cands[i]);
			return;
		}
	}
	snprintf(top, sizeof(top), ".");
}

#define MAXL 400
struct block {
	char *line[MAXL];
	unsigned n;
};

static const char *BEGIN = "/* >>> swsusp-fw layout v1 >>> */";
static const char *END = "/* <<< swsusp-fw layout v1 <<< */";

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* the marked block of the header, markers included */
static bool header_block(const char *path, struct block *b)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	bool in = false, done = false;
	if (!f)
		return false;
	b->n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		chomp(buf);
		if (!in && strcmp(buf, BEGIN) == 0)
			in = true;
		if (in && b->n < MAXL)
			b->line[b->n++] = strdup(buf);
		if (in && strcmp(buf, END) == 0) {
			done = true;
			break;
		}
	}
	fclose(f);
	return done;
}

/* the block a patch adds to kernel/power/power.h: '+' lines only, markers included.
 * Returns 0 if absent, 1 if found, -1 if the block is not purely added. */
static int patch_block(const char *path, struct block *b, char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	bool power_h = false, in = false;
	int found = 0;
	if (!f)
		return 0;
	b->n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		chomp(buf);
		if (strncmp(buf, "+++ ", 4) == 0) {
			power_h = strstr(buf, "kernel/power/power.h") != NULL;
			continue;
		}
		if (!power_h)
			continue;
		if (!in && buf[0] == '+' && strcmp(buf + 1, BEGIN) == 0)
			in = true;
		if (!in)
			continue;
		if (buf[0] != '+') {
			snprintf(why, why_len, "line \"%s\" inside the block is not an added line", buf);
			fclose(f);
			return -1;
		}
		if (b->n < MAXL)
			b->line[b->n++] = strdup(buf + 1);
		if (strcmp(buf + 1, END) == 0) {
			found = 1;
			in = false;
			power_h = false;
		}
	}
	fclose(f);
	return found;
}

static void free_block(struct block *b)
{
	for (unsigned i = 0; i < b->n; i++)
		free(b->line[i]);
	b->n = 0;
}

static void test_drift_patch_vs_header(void **state)
{
	(void)state;
	char path[1200], why[300] = "";
	struct block h = { 0 }, p = { 0 };
	unsigned patches = 0, with_block = 0;

	find_top();
	snprintf(path, sizeof(path), "%s/image/swsusp2004.h", top);
	if (!header_block(path, &h))
		fail_msg("no marked layout block in %s", path);
	assert_true(h.n > 20);

	snprintf(path, sizeof(path), "%s/kernel-patch", top);
	DIR *d = opendir(path);
	if (!d)
		fail_msg("cannot open %s: %s (set EFIRESUME_TOP to the repository)", path, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 7 || strcmp(e->d_name + len - 6, ".patch") != 0)
			continue;
		patches++;
		snprintf(path, sizeof(path), "%s/kernel-patch/%s", top, e->d_name);
		int rc = patch_block(path, &p, why, sizeof(why));
		if (rc < 0)
			fail_msg("%s: %s", e->d_name, why);
		if (rc == 0)
			continue;
		with_block++;
		for (unsigned i = 0; i < h.n || i < p.n; i++) {
			const char *a = i < h.n ? h.line[i] : "(end of block)";
			const char *b = i < p.n ? p.line[i] : "(end of block)";
			if (strcmp(a, b) != 0)
				fail_msg("layout drift at block line %u:\n  image/swsusp2004.h: %s\n  %s: %s", i + 1, a,
					 e->d_name, b);
		}
		free_block(&p);
	}
	closedir(d);
	assert_true(patches >= 1);
	assert_int_equal(with_block, 1);   /* exactly one patch defines the layout */
	free_block(&h);
}

/* The test itself must catch drift: a one-character change is reported. */
static void test_drift_detects_change(void **state)
{
	(void)state;
	char path[1200], tmp[] = "/tmp/swsusp2004-drift-XXXXXX", why[300] = "";
	struct block h = { 0 }, p = { 0 };

	find_top();
	snprintf(path, sizeof(path), "%s/image/swsusp2004.h", top);
	assert_true(header_block(path, &h));
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "+++ b/kernel/power/power.h\n@@ -1,1 +1,%u @@\n", h.n);
	for (unsigned i = 0; i < h.n; i++) {
		const char *l = h.line[i];
		if (strstr(l, "fw_cr3;"))
			fprintf(f, "+%s\n", "\tuint64_t\tfw_cr4;\t\t\t/* drifted */");
		else
			fprintf(f, "+%s\n", l);
	}
	fclose(f);
	assert_int_equal(patch_block(tmp, &p, why, sizeof(why)), 1);
	unsigned diffs = 0;
	for (unsigned i = 0; i < h.n && i < p.n; i++)
		diffs += strcmp(h.line[i], p.line[i]) != 0;
	assert_int_equal(diffs, 1);
	remove(tmp);
	free_block(&h);
	free_block(&p);
}

/* ------------------------------------------------------------------ round trips */

static void test_roundtrip_i386(void **state)
{
	(void)state;
	struct wcfg c = cfg(4, 1200);
	struct wimg w;
	struct run r;
	write_image(&c, &w);
	assert_int_equal(w.rc, 0);
	assert_true(w.pd_pages >= 3);
	expect_ok(&w, &exp_i386, &r, 8);
	assert_int_equal(r.img.arch, ER_ARCH_I386);
	assert_int_equal(r.img.word, 4);
	assert_int_equal(r.img.pbe_size, 16);
	assert_int_equal(r.img.swap_type, 1);
	assert_int_equal(r.img.version_code, 0x020608);
	assert_string_equal(r.img.release, "2.6.8-1-686");
	assert_string_equal(r.img.machine, "i686");
	assert_true(r.img.ascending);
	/* consecutive swap pages are read together */
	assert_true(r.img.reads < w.n / 4);
	/* page by page works too, and so does a machine check that agrees */
	struct er_swsusp2004_expect e = { ER_ARCH_I386, 4096, 1200, 1 };
	expect_ok(&w, &e, &r, 1);
	assert_int_equal(r.img.reads, w.n);
	free_image(&w);
}

static void test_roundtrip_x86_64(void **state)
{
	(void)state;
	struct wcfg c = cfg(8, 1500);
	c.swap_type = 0;
	c.cpus = 2;
	struct wimg w;
	struct run r;
	write_image(&c, &w);
	assert_int_equal(w.rc, 0);
	assert_true(w.pd_pages >= 5);
	expect_ok(&w, &exp_x64, &r, 16);
	assert_int_equal(r.img.arch, ER_ARCH_X86_64);
	assert_int_equal(r.img.word, 8);
	assert_int_equal(r.img.pbe_size, 32);
	assert_int_equal(r.img.swap_type, 0);
	assert_int_equal(r.img.cpus, 2);
	assert_true(r.img.entry >= KTEXT64);
	/* a tool that does not know the architecture */
	struct er_swsusp2004_expect any = { ER_ARCH_UNKNOWN, 0, 0, 0 };
	expect_ok(&w, &any, &r, 3);
	assert_int_equal(r.img.arch, ER_ARCH_X86_64);
	free_image(&w);
}

/* two nodes: copy_data_pages() lists node 1 (high PFNs) first */
static void test_roundtrip_nodes_unsorted(void **state)
{
	(void)state;
	for (unsigned word = 4; word <= 8; word += 4) {
		struct wcfg c = cfg(word, 1000);
		c.node_split = 300;
		c.swap_type = 2;
		struct wimg w;
		struct run r;
		write_image(&c, &w);
		assert_int_equal(w.rc, 0);
		assert_true(w.pfn[0] >= 300);
		expect_ok(&w, word == 8 ? &exp_x64 : &exp_i386, &r, 5);
		assert_false(r.img.ascending);
		free_image(&w);
	}
}

/* nr_copy_pages a multiple of the pbes per page: SUSPEND_PD_PAGES adds an empty page */
static void test_pagedir_exact_multiple(void **state)
{
	(void)state;
	for (unsigned word = 4; word <= 8; word += 4) {
		unsigned pbe = 4 * word, per = PAGE / pbe, order;
		uint64_t m = 0, n = 0;
		for (m = 100; m < 4000; m++) {
			n = m;
			calc_order(&n, pbe, &order);
			if (n % per == 0)
				break;
		}
		assert_true(n % per == 0);
		struct wcfg c = cfg(word, 2 * m + 600);
		c.save_lo = 1;
		c.save_hi = 1 + m + 2;   /* + the two nosave pages inside */
		struct wimg w;
		struct run r;
		write_image(&c, &w);
		assert_int_equal(w.n, n);
		assert_int_equal(w.pd_pages, n / per + 1);
		expect_ok(&w, word == 8 ? &exp_x64 : &exp_i386, &r, 8);
		free_image(&w);
	}
}

/* ------------------------------------------------------------------ corruptions */

static uint8_t *info_of(struct wimg *w)
{
	return w->dev + w->info_off * PAGE;
}

static uint8_t *tail_of(struct wimg *w)
{
	return info_of(w) + (w->word == 8 ? offsetof(struct swsusp_fw_info64, fw) : offsetof(struct swsusp_fw_info32, fw));
}

static uint8_t *pbe_of(struct wimg *w, uint64_t k)
{
	uint64_t per = PAGE / w->pbe;
	return w->dev + (uint64_t)w->slots[k / per] * PAGE + (k % per) * w->pbe;
}

static void put_pbe(struct wimg *w, uint64_t k, size_t off32, size_t off64, uint64_t v)
{
	put_word(pbe_of(w, k) + (w->word == 8 ? off64 : off32), w->word, v);
}

#define SET_PBE(w, k, f, v) put_pbe(w, k, offsetof(struct swsusp_fw_pbe32, f), offsetof(struct swsusp_fw_pbe64, f), v)
#define INFO_OFF(w, f) ((w)->word == 8 ? offsetof(struct swsusp_fw_info64, f) : offsetof(struct swsusp_fw_info32, f))

static void set_info_word(struct wimg *w, size_t off, uint64_t v)
{
	put_word(info_of(w) + off, w->word, v);
}

typedef void (*corrupt_fn)(struct wimg *w);

struct corruption {
	const char *name;
	corrupt_fn fn;
	enum er_reason want;
	const char *detail;
};

static void c_sig(struct wimg *w) { memcpy(w->dev + 4086, "S1SUSPFW2", 10); }
static void c_sig_stock(struct wimg *w) { memcpy(w->dev + 4086, "S1SUSPEND", 10); }
static void c_orig_sig(struct wimg *w) { memcpy(w->dev + 4076, "garbage!!!", 10); }
static void c_hdr_entry(struct wimg *w)
{
	if (w->word == 8)
		er_put_le64(w->dev + 4068, er_swsusp2004_swp_entry(1, w->dev_pages + 5, 8));
	else
		er_put_le32(w->dev + 4072, (uint32_t)er_swsusp2004_swp_entry(1, w->dev_pages + 5, 4));
}
static void c_magic(struct wimg *w) { er_put_le32(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_magic), 0x12345678); }
static void c_version(struct wimg *w) { er_put_le32(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_version), 2); }
static void c_fw_page_size(struct wimg *w) { er_put_le32(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_page_size), 8192); }
static void c_machine(struct wimg *w) { strcpy((char *)info_of(w) + offsetof(struct swsusp_fw_uts, machine), w->word == 8 ? "i686" : "x86_64"); }
static void c_sysname(struct wimg *w) { strcpy((char *)info_of(w), "FreeBSD"); }
static void c_uts_unterminated(struct wimg *w) { memset(info_of(w) + offsetof(struct swsusp_fw_uts, version), 'x', 65); }
static void c_version_code(struct wimg *w) { er_put_le32(info_of(w) + INFO_OFF(w, version_code), 0x020609); }
static void c_padding(struct wimg *w) { info_of(w)[390] = 1; }
static void c_cpus_zero(struct wimg *w) { er_put_le32(info_of(w) + INFO_OFF(w, cpus), 0); }
static void c_pagedir_pages(struct wimg *w) { set_info_word(w, INFO_OFF(w, pagedir_pages), w->pd_pages + 1); }
static void c_image_pages_big(struct wimg *w) { set_info_word(w, INFO_OFF(w, image_pages), 50000); }
static void c_too_many_pagedir_pages(struct wimg *w)
{
	/* an image of 768 * 256 (i386) / 768 * 128 (x86_64) pbes: 769 pagedir pages */
	uint64_t n = 768ull * (PAGE / w->pbe);
	set_info_word(w, INFO_OFF(w, num_physpages), 1ull << 20);
	set_info_word(w, INFO_OFF(w, image_pages), n);
	set_info_word(w, INFO_OFF(w, pagedir_pages), 769);
}
static uint8_t *slot(struct wimg *w, unsigned i) { return info_of(w) + INFO_OFF(w, pagedir) + 4 * i; }
static void c_slot_outside(struct wimg *w) { er_put_le32(slot(w, 1), (uint32_t)w->dev_pages); }
static void c_slot_zero(struct wimg *w) { er_put_le32(slot(w, 0), 0); }
static void c_slot_header(struct wimg *w) { er_put_le32(slot(w, 0), (uint32_t)w->info_off); }
static void c_slot_twice(struct wimg *w) { er_put_le32(slot(w, 2), w->slots[0]); }
static void c_slot_beyond(struct wimg *w) { er_put_le32(slot(w, (unsigned)w->pd_pages), 7); }
static void c_page_offset(struct wimg *w) { er_put_le64(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_page_offset), w->page_offset + 4096); }
static void c_entry(struct wimg *w) { er_put_le64(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_entry), w->entry + 0x1000); }
static void c_cr3_unaligned(struct wimg *w) { er_put_le64(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_cr3), w->cr3 + 32); }
static void c_entry_in_nosave(struct wimg *w)
{
	er_put_le64(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_nosave_begin), w->entry_phys & ~4095ull);
	er_put_le64(tail_of(w) + offsetof(struct swsusp_fw_tail, fw_nosave_end), (w->entry_phys & ~4095ull) + 4096);
}
static void c_pbe_swap_outside(struct wimg *w) { SET_PBE(w, 5, swap_address, er_swsusp2004_swp_entry(1, w->dev_pages + 100, w->word)); }
static void c_pbe_swap_zero(struct wimg *w) { SET_PBE(w, 6, swap_address, er_swsusp2004_swp_entry(1, 0, w->word)); }
static void c_pbe_swap_type(struct wimg *w) { SET_PBE(w, 7, swap_address, er_swsusp2004_swp_entry(4, 9, w->word)); }
static void c_pbe_swap_pte_encoding(struct wimg *w)
{
	/* the pte encoding (type << 1 | offset << 8) is not what swsusp stores */
	SET_PBE(w, 8, swap_address, (1ull << 1) | (9ull << 8));
}
static void c_pbe_orig_low(struct wimg *w) { SET_PBE(w, 3, orig_address, 0); }
static void c_pbe_orig_unaligned(struct wimg *w) { SET_PBE(w, 3, orig_address, w->page_offset + 10 * PAGE + 8); }
static void c_pbe_orig_beyond(struct wimg *w) { SET_PBE(w, 4, orig_address, w->page_offset + 5000ull * PAGE); }
static void c_pbe_orig_nosave(struct wimg *w) { SET_PBE(w, 4, orig_address, w->page_offset + 41ull * PAGE); }
static void c_pbe_orig_twice(struct wimg *w) { SET_PBE(w, 9, orig_address, w->page_offset + w->pfn[2] * PAGE); }
static void c_pbe_address(struct wimg *w) { SET_PBE(w, 1, address, 0x1000); }
static void c_pbe_dummy(struct wimg *w) { SET_PBE(w, 2, dummy, 1); }
static void c_pbe_tail(struct wimg *w) { SET_PBE(w, w->n, orig_address, w->page_offset); }

static void run_corruptions(unsigned word, const struct corruption *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct wcfg c = cfg(word, 1200);
		struct wimg w;
		write_image(&c, &w);
		assert_int_equal(w.rc, 0);
		cs[i].fn(&w);
		print_message("  %s %s\n", word == 8 ? "x86_64" : "i386", cs[i].name);
		expect_refusal(&w, word == 8 ? &exp_x64 : &exp_i386, cs[i].want, cs[i].detail);
		free_image(&w);
	}
}

static const struct corruption corruptions[] = {
	{ "signature", c_sig, ER_R_NO_SIGNATURE, "S1SUSPFW2" },
	{ "stock signature", c_sig_stock, ER_R_NO_SIGNATURE, "stock or modern" },
	{ "orig_sig", c_orig_sig, ER_R_HEADER, "orig_sig" },
	{ "page 0 entry outside", c_hdr_entry, ER_R_MAP, "outside the partition" },
	{ "info magic", c_magic, ER_R_MAGIC, "magic" },
	{ "info version", c_version, ER_R_MAGIC, "format version 2" },
	{ "info page size", c_fw_page_size, ER_R_HEADER, "page size 8192" },
	{ "info machine", c_machine, ER_R_ARCH, "machine" },
	{ "info sysname", c_sysname, ER_R_HEADER, "system type" },
	{ "info uts unterminated", c_uts_unterminated, ER_R_HEADER, "uts.version" },
	{ "info version_code", c_version_code, ER_R_HEADER, "kernel version" },
	{ "info padding", c_padding, ER_R_HEADER, "padding" },
	{ "info cpus 0", c_cpus_zero, ER_R_HEADER, "CPUs" },
	{ "info pagedir_pages", c_pagedir_pages, ER_R_HEADER, "pagedir_pages" },
	{ "info image_pages > memory", c_image_pages_big, ER_R_HEADER, "image_pages" },
	{ "more than 768 pagedir pages", c_too_many_pagedir_pages, ER_R_HEADER, "769 pagedir pages; swsusp_info has 768 slots" },
	{ "pagedir slot outside the partition", c_slot_outside, ER_R_MAP, "pagedir slot 1" },
	{ "pagedir slot 0", c_slot_zero, ER_R_MAP, "pagedir slot 0" },
	{ "pagedir slot = header", c_slot_header, ER_R_MAP, "pagedir slot 0" },
	{ "pagedir slot twice", c_slot_twice, ER_R_MAP, "both name" },
	{ "pagedir slot beyond pagedir_pages", c_slot_beyond, ER_R_HEADER, "beyond pagedir_pages" },
	{ "PAGE_OFFSET", c_page_offset, ER_R_HEADER, "PAGE_OFFSET" },
	{ "entry", c_entry, ER_R_HEADER, "entry" },
	{ "cr3 unaligned", c_cr3_unaligned, ER_R_HEADER, "cr3" },
	{ "entry in .data.nosave", c_entry_in_nosave, ER_R_HEADER, "nosave" },
	{ "pbe data page outside the partition", c_pbe_swap_outside, ER_R_MAP, "pbe 5" },
	{ "pbe data page 0", c_pbe_swap_zero, ER_R_MAP, "pbe 6" },
	{ "pbe swap type", c_pbe_swap_type, ER_R_MAP, "type 4" },
	{ "pbe swap entry in pte encoding", c_pbe_swap_pte_encoding, ER_R_MAP, "pbe 8" },
	{ "pbe orig_address 0", c_pbe_orig_low, ER_R_PFN, "pbe 3" },
	{ "pbe orig_address unaligned", c_pbe_orig_unaligned, ER_R_PFN, "pbe 3" },
	{ "pbe PFN beyond memory", c_pbe_orig_beyond, ER_R_PFN, "beyond" },
	{ "pbe PFN in .data.nosave", c_pbe_orig_nosave, ER_R_PFN, "nosave" },
	{ "pbe PFN twice", c_pbe_orig_twice, ER_R_PFN, "twice" },
	{ "pbe address", c_pbe_address, ER_R_PFN, "pbe 1" },
	{ "pbe padding entry", c_pbe_dummy, ER_R_PFN, "padding entry" },
	{ "pbe after image_pages", c_pbe_tail, ER_R_PFN, "not empty" },
};

static void test_corruptions_i386(void **state)
{
	(void)state;
	run_corruptions(4, corruptions, ER_ARRAY_SIZE(corruptions));
}

static void test_corruptions_x86_64(void **state)
{
	(void)state;
	run_corruptions(8, corruptions, ER_ARRAY_SIZE(corruptions));
}

/* ------------------------------------------------------------------ refusals of the machine check */

static void test_sanity_mismatches(void **state)
{
	(void)state;
	struct wcfg c = cfg(4, 1200);
	struct wimg w;
	write_image(&c, &w);

	struct er_swsusp2004_expect e = exp_i386;
	e.mem_pages = 1300;   /* the seeds' "memory size" */
	expect_refusal(&w, &e, ER_R_E820, "memory size: image 1200 pages, this machine 1300");
	e = exp_i386;
	e.cpus = 2;           /* "number of cpus" */
	expect_refusal(&w, &e, ER_R_CPUS, "number of cpus: image 1, this machine 2");
	e = exp_i386;
	e.page_size = 8192;
	expect_refusal(&w, &e, ER_R_HEADER, "page size");
	/* machine: an i386 image on the x86_64 loader, and the reverse */
	expect_refusal(&w, &exp_x64, ER_R_ARCH, "written by an i386 kernel; this loader resumes x86_64");
	free_image(&w);

	c = cfg(8, 1200);
	write_image(&c, &w);
	expect_refusal(&w, &exp_i386, ER_R_ARCH, "written by an x86_64 kernel; this loader resumes i386");
	free_image(&w);
}

/* a saved page the firmware does not have as RAM: the loader's memory is smaller */
static void test_pfn_beyond_machine(void **state)
{
	(void)state;
	struct wcfg c = cfg(4, 1200);
	struct wimg w;
	write_image(&c, &w);
	/* num_physpages unchecked (0), but this machine has only 500 pages */
	struct er_swsusp2004_expect e = { ER_ARCH_I386, 4096, 0, 0 };
	struct run r;
	fresh(&r);
	uint8_t page[PAGE];
	struct er_source src = { &r.dev, w.dev_pages, mem_read, 0 };
	r.dev.data = w.dev;
	r.dev.pages = w.dev_pages;
	assert_int_equal(er_swsusp2004_open(&r.img, &src, page, &e, &r.err), ER_OK);
	e.mem_pages = 500;
	uint8_t *pd = malloc(r.img.pagedir_pages * PAGE);
	assert_int_equal(er_swsusp2004_load_pagedir(&r.img, &src, pd, r.img.pagedir_pages, &e, &r.err), ER_R_PFN_NOT_RAM);
	assert_non_null(strstr(r.err.detail, "this machine's 500 pages"));
	/* too small a buffer for the pagedir */
	assert_int_equal(er_swsusp2004_load_pagedir(&r.img, &src, pd, r.img.pagedir_pages - 1, NULL, &r.err), ER_R_NOMEM);
	free(pd);
	free_image(&w);
}

/* the image lacks the entry routine's page (or cr3's): nothing to jump to */
static void test_entry_page_not_saved(void **state)
{
	(void)state;
	for (int which = 0; which < 2; which++) {
		struct wcfg c = cfg(8, 1200);
		if (which)
			c.cr3_pfn = 1100;     /* a free page: not in the image */
		else
			c.entry_pfn = 1100;
		struct wimg w;
		write_image(&c, &w);
		expect_refusal(&w, &exp_x64, ER_R_HEADER, which ? "page at cr3" : "entry routine's page");
		free_image(&w);
	}
}

/* ------------------------------------------------------------------ > 768 pagedir pages */

static void test_writer_refuses_769_pagedir_pages(void **state)
{
	(void)state;
	/* i386: 256 pbes per pagedir page; the largest image calc_order() leaves at 768 */
	for (unsigned word = 4; word <= 8; word += 4) {
		unsigned pbe = 4 * word, per = PAGE / pbe;
		struct wcfg c = { 0 };
		struct wimg w;
		c.word = word;
		c.dry = true;
		/* 767 * per + per - 1 pbes fit 768 pages; the +2^order of calc_order counts */
		uint64_t ok = 0, bad = 0;
		for (uint64_t m = 700ull * per; m < 770ull * per; m++) {
			c.dry_saveable = m;
			write_image(&c, &w);
			if (w.rc == 0)
				ok = m;
			else if (!bad)
				bad = m;
		}
		assert_true(ok && bad && bad == ok + 1);
		c.dry_saveable = bad;
		write_image(&c, &w);
		assert_int_equal(w.rc, -EFBIG);
		assert_int_equal(w.pd_pages, 769);
		c.dry_saveable = ok;
		write_image(&c, &w);
		assert_int_equal(w.rc, 0);
		assert_int_equal(w.pd_pages, 768);
	}
}

/* ------------------------------------------------------------------ I/O and the sink */

static void test_io_errors(void **state)
{
	(void)state;
	struct wcfg c = cfg(4, 1200);
	struct wimg w;
	struct run r;
	write_image(&c, &w);
	int64_t pages[] = { 0, (int64_t)w.info_off, (int64_t)w.slots[1], 3 };
	for (unsigned i = 0; i < ER_ARRAY_SIZE(pages); i++) {
		fresh(&r);
		r.dev.fail_page = pages[i];
		enum er_reason rc = run_reader(&w, &exp_i386, &r, 8);
		if (rc != ER_R_IO)
			fail_msg("page %lld: %s %s", (long long)pages[i], er_reason_name(rc), r.err.detail);
	}
	free_image(&w);
}

static void test_sink_refusals(void **state)
{
	(void)state;
	struct wcfg c = cfg(8, 1200);
	struct wimg w;
	struct run r;
	write_image(&c, &w);

	fresh(&r);
	r.col.refuse_plan = 1;
	assert_int_equal(run_reader(&w, &exp_x64, &r, 8), ER_R_SINK);
	assert_string_equal(r.err.detail, "no room");
	assert_int_equal(r.col.got, 0);

	fresh(&r);
	r.col.refuse_page = 17;
	assert_int_equal(run_reader(&w, &exp_x64, &r, 8), ER_R_SINK);
	assert_string_equal(r.err.detail, "frame busy");
	assert_int_equal(r.col.got, 17);
	assert_int_equal(r.img.delivered, 17);
	free_image(&w);
}

static void test_small_and_plain_devices(void **state)
{
	(void)state;
	uint8_t dev[4 * PAGE], page[PAGE];
	struct memdev md = { dev, 3, -1, 0 };
	struct er_source src = { &md, 3, mem_read, 0 };
	struct er_swsusp2004_image img;
	struct er_error err;

	memset(dev, 0, sizeof(dev));
	memcpy(dev + 4086, "SWAPSPACE2", 10);
	assert_int_equal(er_swsusp2004_open(&img, &src, page, &exp_i386, &err), ER_R_NO_SIGNATURE);
	src.pages = md.pages = 4;
	assert_int_equal(er_swsusp2004_open(&img, &src, page, &exp_i386, &err), ER_R_NO_SIGNATURE);
	assert_non_null(strstr(err.detail, "SWAPSPACE2"));
	assert_false(er_swsusp2004_signature(dev));
	memcpy(dev + 4086, SWSUSP_FW_SIG, 10);
	assert_true(er_swsusp2004_signature(dev));
	/* the signature alone, the rest empty */
	memcpy(dev + 4076, "SWAPSPACE2", 10);
	assert_int_equal(er_swsusp2004_open(&img, &src, page, &exp_i386, &err), ER_R_MAP);
	/* stream and load without open */
	memset(&img, 0, sizeof(img));
	assert_int_equal(er_swsusp2004_load_pagedir(&img, &src, dev, 4, NULL, &err), ER_R_OTHER);
	struct er_swsusp2004_buffers b = { page, 1, NULL, NULL };
	assert_int_equal(er_swsusp2004_stream(&img, &src, &b, NULL, &err), ER_R_OTHER);
}

/* a stock 2.6.8 image: S1SUSPEND, no tail. Refused, never misread. */
static void test_unpatched_kernel_image(void **state)
{
	(void)state;
	struct wcfg c = cfg(4, 1200);
	struct wimg w;
	write_image(&c, &w);
	memset(tail_of(&w), 0, sizeof(struct swsusp_fw_tail));
	expect_refusal(&w, &exp_i386, ER_R_MAGIC, "without kernel-patch");
	memcpy(w.dev + 4086, "S1SUSPEND", 10);
	expect_refusal(&w, &exp_i386, ER_R_NO_SIGNATURE, "S1SUSPEND");
	free_image(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_offsets),
		cmocka_unit_test(test_swp_entry_encoding),
		cmocka_unit_test(test_drift_patch_vs_header),
		cmocka_unit_test(test_drift_detects_change),
		cmocka_unit_test(test_roundtrip_i386),
		cmocka_unit_test(test_roundtrip_x86_64),
		cmocka_unit_test(test_roundtrip_nodes_unsorted),
		cmocka_unit_test(test_pagedir_exact_multiple),
		cmocka_unit_test(test_corruptions_i386),
		cmocka_unit_test(test_corruptions_x86_64),
		cmocka_unit_test(test_sanity_mismatches),
		cmocka_unit_test(test_pfn_beyond_machine),
		cmocka_unit_test(test_entry_page_not_saved),
		cmocka_unit_test(test_writer_refuses_769_pagedir_pages),
		cmocka_unit_test(test_io_errors),
		cmocka_unit_test(test_sink_refusals),
		cmocka_unit_test(test_small_and_plain_devices),
		cmocka_unit_test(test_unpatched_kernel_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
