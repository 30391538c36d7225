// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the whole image reader (image/reader.c) on a small swap device.
 *
 * The input is the device itself, padded with zeros to whole 4 KiB pages (seeds:
 * tests/fuzz/seeds/fuzz_reader/, small valid images written by
 * TEST_READER_SEEDS=DIR build/unit/test_reader). er_image_open, er_image_load_map
 * and er_image_stream run with exactly-sized heap buffers (ASan sees any access
 * outside them) and a sink that checks what the reader promises:
 *   - plan() comes once, before any data page, with strictly ascending PFNs (the
 *     zero-page bit aside) that fit the PFN buffer and name image_pages stored pages;
 *   - page()/commit() deliver stored pages in PFN-list order, never a zero page;
 *   - a resumable verdict means every stored page was delivered and the CRC (when
 *     the flags ask for one) was checked; a refusal carries its reason and a detail.
 * Inputs of odd length also offer the zero-copy dest()/commit() path. Inputs whose length
 * is 2 mod 3 are read as an encrypted stream (contract v2: the tag pages' layout) through
 * an er_crypt whose open() accepts every page as it is, so the hostile layout reaches the
 * reader's crypt code: pages are opened in order, never one past the n it was given. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/reader.h"

#define MAX_DEV_PAGES 512u       /* 2 MiB of device */
#define MAX_MAP_PAGES 16u
#define MAX_PFNS      (1u << 16)

#define CHECK(c)                                                                  \
	do {                                                                      \
		if (!(c)) {                                                       \
			fprintf(stderr, "fuzz_reader: check failed: %s (line %d)\n", #c, __LINE__); \
			abort();                                                  \
		}                                                                 \
	} while (0)

struct dev {
	const uint8_t *data;
	size_t size;
	uint64_t pages;
};

static int dev_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct dev *d = ctx;
	CHECK(count > 0 && page < d->pages && count <= d->pages - page);
	uint8_t *out = buf;
	for (uint64_t i = 0; i < count; i++) {
		size_t off = (size_t)(page + i) * ER_PAGE_SIZE;
		size_t have = off < d->size ? d->size - off : 0;
		if (have > ER_PAGE_SIZE)
			have = ER_PAGE_SIZE;
		memcpy(out + i * ER_PAGE_SIZE, d->data + off, have);
		memset(out + i * ER_PAGE_SIZE + have, 0, ER_PAGE_SIZE - have);
	}
	return 0;
}

struct sink {
	const struct er_image *img;
	uint64_t pfn_buf_len;
	const uint64_t *pfns;     /* the reader's list, as plan() saw it */
	uint64_t n, plans, next, delivered;
	uint32_t sum;
	uint8_t *dest;
	uint64_t dest_idx, dest_k;
};

static int s_plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct sink *s = ctx;
	uint64_t stored = 0;
	(void)err;
	CHECK(s->plans == 0 && s->delivered == 0);
	CHECK(img == s->img && n <= s->pfn_buf_len && n == img->nr_pfns);
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			CHECK((pfns[i] & ~ER_PFN_ZERO) > (pfns[i - 1] & ~ER_PFN_ZERO));
		if (!(pfns[i] & ER_PFN_ZERO))
			stored++;
	}
	CHECK(stored == img->image_pages);
	CHECK(n - stored == img->nr_zero);
	s->plans++;
	s->pfns = pfns;
	s->n = n;
	return 0;
}

/* the next stored page in list order must be pfn */
static void expect_next(struct sink *s, uint64_t pfn, const uint8_t *data)
{
	CHECK(s->plans == 1);
	while (s->next < s->n && (s->pfns[s->next] & ER_PFN_ZERO))
		s->next++;
	CHECK(s->next < s->n && s->pfns[s->next] == pfn);
	s->next++;
	s->delivered++;
	for (unsigned i = 0; i < ER_PAGE_SIZE; i += 64)
		s->sum += data[i] + data[i + 63];
}

static int s_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	(void)err;
	expect_next(ctx, pfn, data);
	return 0;
}

static uint8_t *s_dest(void *ctx, uint64_t idx, uint64_t k)
{
	struct sink *s = ctx;
	CHECK(s->plans == 1 && k >= 1 && k <= ER_CHUNK_PAGES && idx + k <= s->n);
	free(s->dest);
	s->dest = malloc(k * ER_PAGE_SIZE);
	s->dest_idx = idx;
	s->dest_k = k;
	return s->dest;
}

static int s_commit(void *ctx, uint64_t idx, uint64_t k, struct er_error *err)
{
	struct sink *s = ctx;
	(void)err;
	CHECK(s->dest && idx == s->dest_idx && k == s->dest_k);
	for (uint64_t i = 0; i < k; i++) {
		CHECK(!(s->pfns[idx + i] & ER_PFN_ZERO));
		expect_next(s, s->pfns[idx + i], s->dest + i * ER_PAGE_SIZE);
	}
	free(s->dest);
	s->dest = NULL;
	return 0;
}

/* A decompression engine that runs each job as it is queued (so commit() can check
 * the data at once) and hands the results back when waited for. */
struct eager {
	struct er_dec_engine e;
	struct { int status; size_t out_len; uint32_t crc; } job[ER_DEC_MAX_JOBS];
	uint64_t submitted, waited;
};

static unsigned e_submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	struct eager *g = ctx;
	unsigned t = (unsigned)(g->submitted++ % ER_DEC_MAX_JOBS);
	CHECK(g->submitted - g->waited <= ER_DEC_MAX_JOBS);
	g->job[t].status = er_dec_run(comp, in, in_len, out, cap, &g->job[t].out_len, &g->job[t].crc);
	return t;
}

static int e_wait(void *ctx, unsigned t, size_t *out_len, uint32_t *crc)
{
	struct eager *g = ctx;
	CHECK(t == g->waited++ % ER_DEC_MAX_JOBS);
	*out_len = g->job[t].out_len;
	*crc = g->job[t].crc;
	return g->job[t].status;
}

/* the encrypted mode: every tag fed once, in order, within n; every page opened after
 * its tag was fed, at most once, and accepted as it is */
struct ident {
	uint64_t next, n;
	uint8_t tags[ER_PAGE_SIZE];
	uint8_t opened[2 * MAX_DEV_PAGES + 1];
};
static int id_feed(void *ctx, uint64_t i, const uint8_t tag[16])
{
	struct ident *c = ctx;
	(void)tag;
	CHECK(i < c->n && i == c->next);
	c->next++;
	return 0;
}
static int id_open(void *ctx, uint64_t i, uint8_t *page, const uint8_t tag[16])
{
	struct ident *c = ctx;
	(void)page;
	(void)tag;
	CHECK(i < c->n && i < c->next && !c->opened[i]);
	c->opened[i] = 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dev d = { data, size, (size + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE };
	if (d.pages > MAX_DEV_PAGES)
		return 0;
	struct er_source src = { &d, d.pages, dev_read, 0 };
	struct er_image img;
	struct er_error err;
	uint8_t *page = malloc(ER_PAGE_SIZE), *page0 = malloc(ER_PAGE_SIZE);
	static struct ident id;
	memset(&id, 0, sizeof(id));
	struct er_crypt crypt = { &id, 0, id_feed, id_open, id.tags, 0 };
	if (d.pages)
		dev_read(&d, 0, 1, page0);
	else
		memset(page0, 0, ER_PAGE_SIZE);
	if (size % 3 == 2) {
		crypt.n = er_le64(page0 + 600) % (2 * MAX_DEV_PAGES + 1);
		id.n = crypt.n;
	}
	enum er_reason r = er_image_open_at(&img, &src, page0, page, size % 3 == 2 ? &crypt : NULL, &err);
	free(page);
	free(page0);
	if (r != ER_OK) {
		CHECK(err.reason == r && err.detail[0]);
		return 0;
	}
	CHECK(img.word == 8 || img.word == 4);
	CHECK(img.first_map < d.pages && img.header_swap_page < d.pages);
	CHECK(img.pages == img.image_pages + img.nr_meta_pages + 1);

	uint64_t map_cap = img.map_pages_max < MAX_MAP_PAGES ? img.map_pages_max : MAX_MAP_PAGES;
	uint8_t *map = malloc(map_cap * ER_PAGE_SIZE);
	r = er_image_load_map(&img, &src, map, map_cap, &err);
	if (r != ER_OK) {
		CHECK(err.reason == r && err.detail[0]);
		free(map);
		return 0;
	}
	CHECK(img.map == map && img.map_pages <= map_cap && img.stream_pages <= img.map_pages * ER_MAP_ENTRIES);
	if (img.pfn_cap > MAX_PFNS) {
		free(map);
		return 0;
	}

	uint64_t io_pages = 2 * ER_CHUNK_STORED_PAGES_MAX + size % 7;
	uint8_t *io = malloc(io_pages * ER_PAGE_SIZE);
	uint8_t *unc = malloc(ER_CHUNK_BYTES);
	uint64_t *pfns = malloc((img.pfn_cap ? img.pfn_cap : 1) * sizeof(uint64_t));
	uint8_t *io_tags = img.crypt ? malloc(io_pages * 16) : NULL;   /* encrypted: the deferred path */
	struct er_stream_buffers b = { io, io_pages, unc, pfns, NULL, io_tags };
	struct sink s = { .img = &img, .pfn_buf_len = img.pfn_cap };
	struct er_sink sink = { .ctx = &s, .plan = s_plan, .page = s_page };
	if (size & 1) {
		sink.dest = s_dest;
		sink.commit = s_commit;
	}
	struct eager g = { { &g, e_submit, e_wait }, { { 0, 0, 0 } }, 0, 0 };
	if ((size & 3) == 3)
		b.dec = &g.e;
	r = er_image_stream(&img, &src, &b, &sink, &err);
	CHECK(g.waited == g.submitted);   /* nothing left running, refused or not */
	if (r == ER_OK) {
		CHECK(s.plans == 1);
		CHECK(s.delivered == img.image_pages);
		CHECK(img.nr_pfns - img.nr_zero == img.image_pages);
		CHECK(img.crc_checked == ((img.flags & ER_SF_CRC32_MODE) != 0));
		CHECK(img.crc_body == img.crc32 || !img.crc_checked);
		CHECK((img.comp == ER_COMP_NONE) == (img.chunks == 0));
	} else {
		CHECK(err.reason == r && err.detail[0]);
		CHECK(s.delivered <= img.image_pages);
	}
	free(s.dest);
	free(io);
	free(io_tags);
	free(unc);
	free(pfns);
	free(map);
	return 0;
}
