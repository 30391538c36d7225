// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/reader.c on synthetic hibernation images.
 *
 * A small image writer (below) lays out a swap device in memory the way the
 * kernel's kernel/power/swap.c does: page 0 (struct swsusp_header), swap_map_page
 * chain (511 entries + next_swap, a trailing empty map page when the last one is
 * full), header page (restore_data_record + swsusp_info, x86_64 or i386 word
 * size), PFN pages (ascending, ~0 terminator, bit BITS_PER_LONG-1 on all-zero
 * pages as 6.6+ does), then the data pages: raw (nocompress) or cut into 32-page
 * chunks compressed with liblzo2's lzo1x_1_compress / liblz4's
 * LZ4_compress_default, each stored as size_t cmp_len + data padded with garbage
 * to whole pages; CRC32 as the kernel's crc32_le(0, body), computed with zlib
 * (crc32_le(c, x) == ~crc32(~c, x)). Swap pages are allocated in kernel order or
 * scattered (runs and jumps) to exercise the reader's read-ahead window.
 *
 * The reader must deliver exactly the PFNs (plan) and the stored pages with their
 * contents in order (page, and dest/commit for the zero-copy path), fill in the
 * counters, and refuse every corruption with its stable reason.
 *
 * TEST_READER_SEEDS=DIR build/unit/test_reader writes small valid images there
 * (the fuzz_reader seeds in tests/fuzz/seeds/fuzz_reader/ come from it) and exits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lzo/lzo1x.h>
#include <lz4.h>
#include <zlib.h>

#include "image/reader.h"
#include "image/crc32.h"

#define PS ER_PAGE_SIZE

/* ------------------------------------------------------------ image writer */

struct image;

struct spec {
	unsigned word;             /* sizeof(long) of the image kernel: 8 or 4 */
	enum er_comp comp;
	bool crc;                  /* SF_CRC32_MODE and the CRC in page 0 */
	uint32_t extra_flags;      /* ORed into the flags (platform mode, hw sig ...) */
	uint64_t npfns;            /* PFNs listed, all-zero pages included */
	unsigned zero_every;       /* every zero_every-th PFN is an all-zero page (6.6+) */
	bool random_data;          /* incompressible page contents */
	bool scatter;              /* swap pages not allocated in order */
	const uint64_t *pfn_words; /* explicit PFN words (zero bit included) instead of generated ones */
	void (*body_hook)(struct image *im);   /* edits im->body before it is encoded */
	uint64_t extra_body_pages; /* pages after the body that the header does not count */
	unsigned tail_trim;        /* bytes cut from the last chunk's uncompressed data */
	uint64_t slack_pages;      /* unused pages at the end of the device */
};

struct image {
	struct spec sp;
	uint8_t *dev;
	uint64_t dev_pages;
	uint64_t first_map, header_page;
	uint64_t *map_locs, nmap;          /* device pages of the map chain, in order */
	uint64_t *stream_locs, nstream;    /* stream page -> device page */
	uint64_t *chunk_start, *chunk_len, nchunks;  /* stream page and cmp_len of each chunk */
	/* what the reader should find */
	uint64_t *pfns;                    /* npfns, ER_PFN_ZERO on all-zero pages */
	uint64_t image_pages, meta_pages, pages;
	uint8_t *body;                     /* meta + data + extra pages, uncompressed */
	uint64_t body_pages;
	uint32_t crc;
	uint64_t stored_bytes;
};

static uint64_t zero_bit(unsigned word)
{
	return word == 8 ? 1ull << 63 : 1ull << 31;
}

static void put_word(uint8_t *p, unsigned word, uint64_t v)
{
	if (word == 8)
		er_put_le64(p, v);
	else
		er_put_le32(p, (uint32_t)v);
}

static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Contents of the saved page of frame pfn: compressible (runs and a counter)
 * unless random; never all zero. */
static void fill_page(uint8_t *p, uint64_t pfn, bool random)
{
	if (random) {
		uint64_t s = pfn * 0x9E3779B97F4A7C15ull + 7;
		for (unsigned i = 0; i < PS; i += 8) {
			uint64_t v = xs(&s);
			memcpy(p + i, &v, 8);
		}
	} else {
		for (unsigned i = 0; i < PS; i++)
			p[i] = (uint8_t)(((pfn * 37) + (i / 64) * 3) ^ ((i % 64) < 8 ? (uint8_t)pfn : 0));
	}
	p[0] |= 1;
}

static uint32_t zlib_crc32_le(uint32_t c, const uint8_t *p, size_t n)
{
	return ~(uint32_t)crc32((uLong)(uint32_t)~c, p, (uInt)n);
}

/* the allocation index a (0-based, kernel order) -> device page (1..) */
static uint64_t place(const struct spec *sp, uint64_t a, uint64_t total)
{
	uint64_t block = a / 8;
	if (sp->scatter && (block & 1) && block * 8 + 7 < total)
		return 1 + block * 8 + (7 - a % 8);
	return 1 + a;
}

static void image_free(struct image *im)
{
	free(im->dev);
	free(im->map_locs);
	free(im->stream_locs);
	free(im->chunk_start);
	free(im->chunk_len);
	free(im->pfns);
	free(im->body);
	memset(im, 0, sizeof(*im));
}

static void build(struct image *im, const struct spec *sp)
{
	unsigned word = sp->word, per_page = PS / word;
	uint64_t n = sp->npfns;

	memset(im, 0, sizeof(*im));
	im->sp = *sp;

	/* PFN list */
	im->pfns = calloc(n ? n : 1, sizeof(uint64_t));
	uint64_t *words = calloc(n ? n : 1, sizeof(uint64_t));
	assert_non_null(im->pfns);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w;
		if (sp->pfn_words) {
			w = sp->pfn_words[i];
		} else {
			w = 0x100 + 3 * i + i / 7;
			if (sp->zero_every && i % sp->zero_every == sp->zero_every - 1)
				w |= zero_bit(word);
		}
		words[i] = w;
		bool z = (w & zero_bit(word)) != 0;
		im->pfns[i] = (w & ~zero_bit(word)) | (z ? ER_PFN_ZERO : 0);
		if (!z)
			im->image_pages++;
	}
	im->meta_pages = (n * word + PS - 1) / PS;
	im->pages = im->image_pages + im->meta_pages + 1;

	/* body: PFN pages, data pages, extra pages */
	im->body_pages = im->meta_pages + im->image_pages + sp->extra_body_pages;
	im->body = calloc(im->body_pages ? im->body_pages : 1, PS);
	assert_non_null(im->body);
	for (uint64_t i = 0; i < n; i++)
		put_word(im->body + i * word, word, words[i]);
	if (n % per_page)
		put_word(im->body + n * word, word, word == 8 ? ~0ull : 0xffffffffull);
	uint64_t d = im->meta_pages;
	for (uint64_t i = 0; i < n; i++)
		if (!(im->pfns[i] & ER_PFN_ZERO))
			fill_page(im->body + (d++) * PS, im->pfns[i] & ~ER_PFN_ZERO, sp->random_data);
	for (uint64_t k = 0; k < sp->extra_body_pages; k++)
		fill_page(im->body + (d++) * PS, 0xdead00 + k, sp->random_data);
	free(words);
	if (sp->body_hook)
		sp->body_hook(im);

	/* the stream: header page, then the body raw or in chunks */
	uint64_t cap = 1 + im->body_pages + (im->body_pages / ER_CHUNK_PAGES + 1) * (ER_CHUNK_STORED_PAGES_MAX + 1);
	uint8_t *stream = calloc(cap, PS);
	uint64_t ns = 1, total = im->meta_pages + im->image_pages;
	assert_non_null(stream);
	im->chunk_start = calloc(im->body_pages / ER_CHUNK_PAGES + 2, sizeof(uint64_t));
	im->chunk_len = calloc(im->body_pages / ER_CHUNK_PAGES + 2, sizeof(uint64_t));
	uint32_t c = 0;
	if (sp->comp == ER_COMP_NONE) {
		memcpy(stream + PS, im->body, im->body_pages * PS);
		ns += im->body_pages;
		c = zlib_crc32_le(0, im->body, total * PS);
		im->stored_bytes = total * PS;
	} else {
		static lzo_align_t wrk[(LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) / sizeof(lzo_align_t)];
		uint8_t *out = malloc(ER_CHUNK_BYTES * 2);
		assert_non_null(out);
		for (uint64_t off = 0; off < im->body_pages; off += ER_CHUNK_PAGES) {
			uint64_t pages = ER_MIN((uint64_t)ER_CHUNK_PAGES, im->body_pages - off);
			size_t len = pages * PS, clen = 0;
			if (off + pages == im->body_pages)
				len -= sp->tail_trim;
			const uint8_t *in = im->body + off * PS;
			if (sp->comp == ER_COMP_LZO) {
				lzo_uint ol = 0;
				assert_int_equal(lzo1x_1_compress(in, len, out, &ol, wrk), LZO_E_OK);
				clen = ol;
			} else {
				int r = LZ4_compress_default((const char *)in, (char *)out, (int)len, ER_CHUNK_BYTES * 2);
				assert_true(r > 0);
				clen = (size_t)r;
			}
			assert_true(clen <= ER_CHUNK_CMP_MAX);
			c = zlib_crc32_le(c, in, len);
			uint64_t stored = (word + clen + PS - 1) / PS;
			uint8_t *dst = stream + ns * PS;
			memset(dst, 0xa5, stored * PS);          /* the padding is garbage */
			put_word(dst, word, clen);
			memcpy(dst + word, out, clen);
			im->chunk_start[im->nchunks] = ns;
			im->chunk_len[im->nchunks++] = clen;
			im->stored_bytes += clen;
			ns += stored;
		}
		free(out);
	}
	im->crc = c;
	im->nstream = ns;

	/* header page */
	uint8_t *h = stream;
	uint64_t num_phys = 0x100 + 3 * n + n / 7 + 4096;
	if (sp->pfn_words)
		num_phys = 1ull << 20;
	if (word == 8) {
		er_put_le64(h + 0, 0xffffffff81a4c000ull);
		er_put_le64(h + 8, 0x01a4c000ull);
		er_put_le64(h + 16, 0x1e740000ull);
		er_put_le64(h + 24, ER_RESTORE_MAGIC_64);
		er_put_le64(h + 32, 0x233f18caull);
		er_put_le64(h + 400, num_phys);
		er_put_le64(h + 416, im->image_pages);
		er_put_le64(h + 424, im->pages);
		er_put_le64(h + 432, im->pages * PS);
	} else {
		er_put_le32(h + 0, 0xc1a4c010u);
		er_put_le32(h + 4, 0x01a4c010u);
		er_put_le32(h + 8, 0x01e74000u);
		er_put_le32(h + 12, ER_RESTORE_MAGIC_32);
		er_put_le32(h + 16, 0x233f18cau);
		er_put_le32(h + 396, (uint32_t)num_phys);
		er_put_le32(h + 404, (uint32_t)im->image_pages);
		er_put_le32(h + 408, (uint32_t)im->pages);
		er_put_le32(h + 412, (uint32_t)(im->pages * PS));
	}

	/* map pages; the kernel writes one more (empty) map page after a full last one */
	im->nmap = ns / ER_MAP_ENTRIES + 1;
	uint64_t used = 1 + im->nmap + ns;        /* page 0 + map pages + stream pages */
	im->dev_pages = used + sp->slack_pages;
	im->dev = calloc(im->dev_pages, PS);
	im->map_locs = calloc(im->nmap, sizeof(uint64_t));
	im->stream_locs = calloc(ns, sizeof(uint64_t));
	assert_non_null(im->dev);
	uint64_t a = 0;
	for (uint64_t m = 0; m < im->nmap; m++) {
		im->map_locs[m] = place(sp, a++, used - 1);
		for (uint64_t s = m * ER_MAP_ENTRIES; s < ns && s < (m + 1) * ER_MAP_ENTRIES; s++)
			im->stream_locs[s] = place(sp, a++, used - 1);
	}
	assert_int_equal(a, used - 1);
	for (uint64_t m = 0; m < im->nmap; m++) {
		uint8_t *mp = im->dev + im->map_locs[m] * PS;
		for (uint64_t s = m * ER_MAP_ENTRIES; s < ns && s < (m + 1) * ER_MAP_ENTRIES; s++)
			er_put_le64(mp + 8 * (s % ER_MAP_ENTRIES), im->stream_locs[s]);
		er_put_le64(mp + 8 * ER_MAP_ENTRIES, m + 1 < im->nmap ? im->map_locs[m + 1] : 0);
	}
	for (uint64_t s = 0; s < ns; s++)
		memcpy(im->dev + im->stream_locs[s] * PS, stream + s * PS, PS);
	free(stream);
	im->first_map = im->map_locs[0];
	im->header_page = im->stream_locs[0];

	/* page 0 */
	uint8_t *p0 = im->dev;
	memset(p0, 0, PS);
	er_put_le32(p0 + 1024, 1);                                  /* swap_header.version */
	er_put_le32(p0 + 1028, (uint32_t)(im->dev_pages - 1));      /* last_page */
	er_put_le32(p0 + ER_HDR_HW_SIG, (sp->extra_flags & ER_SF_HW_SIG) ? 0x1234abcd : 0);
	er_put_le32(p0 + ER_HDR_CRC32, sp->crc ? c : 0);
	er_put_le64(p0 + ER_HDR_IMAGE, im->first_map);
	uint32_t flags = sp->extra_flags | (sp->crc ? ER_SF_CRC32_MODE : 0) |
			 (sp->comp == ER_COMP_NONE ? ER_SF_NOCOMPRESS_MODE : sp->comp == ER_COMP_LZ4 ? ER_SF_LZ4 : 0);
	er_put_le32(p0 + ER_HDR_FLAGS, flags);
	memcpy(p0 + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10);
	memcpy(p0 + ER_HDR_SIG, "S1SUSPEND\0", 10);
}

/* byte pointers into the device */
static uint8_t *page0(struct image *im) { return im->dev; }
static uint8_t *hdr(struct image *im) { return im->dev + im->header_page * PS; }
static uint8_t *mapp(struct image *im, uint64_t m) { return im->dev + im->map_locs[m] * PS; }
static uint8_t *spage(struct image *im, uint64_t s) { return im->dev + im->stream_locs[s] * PS; }

/* ------------------------------------------------------------ reading it back */

struct memdev {
	struct image *im;
	uint64_t pages;            /* what the source claims (may be less than the image) */
	int64_t fail_page;         /* a read covering it fails (-1: none) */
	uint64_t reads;
};

static int mem_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct memdev *m = ctx;
	/* the reader must never ask beyond what the source says it has */
	if (page >= m->pages || count > m->pages - page || count == 0) {
		fprintf(stderr, "read of %llu+%llu beyond %llu pages\n", (unsigned long long)page,
			(unsigned long long)count, (unsigned long long)m->pages);
		abort();
	}
	if (m->fail_page >= 0 && (uint64_t)m->fail_page >= page && (uint64_t)m->fail_page < page + count)
		return -1;
	memcpy(buf, m->im->dev + page * PS, count * PS);
	m->reads++;
	return 0;
}

struct rec {
	struct image *im;
	uint64_t plans, nplan;
	bool plan_ok;
	uint64_t next;             /* index into im->pfns of the next stored page expected */
	uint64_t pages;            /* stored pages delivered (page + commit) */
	uint64_t bad;              /* deliveries out of order or with wrong contents */
	int64_t refuse_page;       /* page() fails at this delivery (-1: never) */
	bool refuse_plan;
	/* zero-copy path */
	bool use_dest;
	unsigned dest_decline_mod; /* decline every dest_decline_mod-th request (0: never) */
	uint64_t dest_calls, commits, commit_pages;
	uint8_t *dest_buf;
	uint64_t dest_idx, dest_k;
	/* with a decompression engine, commit() comes before the data: check it at the end */
	bool defer;
	struct { uint8_t *buf; uint64_t idx, k; } held[4096];
	unsigned nheld;
};

/* A decompression engine that runs each job only when it is waited for, from the
 * pointers it was given: a reader that touched a job's input before waiting (moved
 * its read window) would show up as changed input or wrong data. */
struct host_engine {
	struct er_dec_engine e;
	struct {
		enum er_comp comp;
		const uint8_t *in;
		size_t in_len;
		uint8_t *out;
		size_t cap;
		uint8_t *copy;
	} job[ER_DEC_MAX_JOBS];
	uint64_t submitted, waited;
	unsigned outstanding, max_outstanding;
	unsigned input_changed, out_of_order;
};

static unsigned he_submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	struct host_engine *h = ctx;
	unsigned t = (unsigned)(h->submitted++ % ER_DEC_MAX_JOBS);
	h->job[t].comp = comp;
	h->job[t].in = in;
	h->job[t].in_len = in_len;
	h->job[t].out = out;
	h->job[t].cap = cap;
	h->job[t].copy = malloc(in_len);
	memcpy(h->job[t].copy, in, in_len);
	if (++h->outstanding > h->max_outstanding)
		h->max_outstanding = h->outstanding;
	return t;
}

static int he_wait(void *ctx, unsigned t, size_t *out_len, uint32_t *crc)
{
	struct host_engine *h = ctx;
	if (t != h->waited++ % ER_DEC_MAX_JOBS)
		h->out_of_order++;
	h->outstanding--;
	if (memcmp(h->job[t].copy, h->job[t].in, h->job[t].in_len) != 0)
		h->input_changed++;
	free(h->job[t].copy);
	return er_dec_run(h->job[t].comp, h->job[t].in, h->job[t].in_len, h->job[t].out, h->job[t].cap, out_len, crc);
}

static void rec_check_page(struct rec *r, uint64_t pfn, const uint8_t *data)
{
	struct image *im = r->im;
	uint8_t want[PS];
	while (r->next < im->sp.npfns && (im->pfns[r->next] & ER_PFN_ZERO))
		r->next++;
	if (r->next >= im->sp.npfns || pfn != im->pfns[r->next]) {
		r->bad++;
	} else {
		fill_page(want, pfn, im->sp.random_data);
		if (memcmp(want, data, PS) != 0)
			r->bad++;
	}
	r->next++;
	r->pages++;
}

static int rec_plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct rec *r = ctx;
	(void)img;
	r->plans++;
	r->nplan = n;
	r->plan_ok = n == r->im->sp.npfns && memcmp(pfns, r->im->pfns, n * sizeof(uint64_t)) == 0;
	if (r->refuse_plan) {
		snprintf(err->detail, sizeof(err->detail), "plan refused by the test");
		return -1;
	}
	return 0;
}

static int rec_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct rec *r = ctx;
	if (r->refuse_page >= 0 && r->pages == (uint64_t)r->refuse_page) {
		snprintf(err->detail, sizeof(err->detail), "page refused by the test");
		return -1;
	}
	rec_check_page(r, pfn, data);
	return 0;
}

static uint8_t *rec_dest(void *ctx, uint64_t idx, uint64_t k)
{
	struct rec *r = ctx;
	free(r->dest_buf);          /* a buffer handed out but not committed is ours again */
	r->dest_buf = NULL;
	r->dest_calls++;
	if (r->dest_decline_mod && r->dest_calls % r->dest_decline_mod == 0)
		return NULL;
	r->dest_buf = malloc(k * PS);   /* exactly k pages: ASan sees any overflow */
	r->dest_idx = idx;
	r->dest_k = k;
	return r->dest_buf;
}

static int rec_commit(void *ctx, uint64_t idx, uint64_t k, struct er_error *err)
{
	struct rec *r = ctx;
	(void)err;
	if (!r->dest_buf || idx != r->dest_idx || k != r->dest_k) {
		r->bad++;
		return 0;
	}
	r->commits++;
	r->commit_pages += k;
	if (r->defer) {
		assert_true(r->nheld < ER_ARRAY_SIZE(r->held));
		r->held[r->nheld].buf = r->dest_buf;
		r->held[r->nheld].idx = idx;
		r->held[r->nheld].k = k;
		r->nheld++;
		r->dest_buf = NULL;
		/* order and PFNs now, contents when the stream is done */
		for (uint64_t i = 0; i < k; i++) {
			uint64_t pfn = r->im->pfns[idx + i];
			while (r->next < r->im->sp.npfns && (r->im->pfns[r->next] & ER_PFN_ZERO))
				r->next++;
			if ((pfn & ER_PFN_ZERO) || r->next >= r->im->sp.npfns || pfn != r->im->pfns[r->next])
				r->bad++;
			r->next++;
			r->pages++;
		}
		return 0;
	}
	for (uint64_t i = 0; i < k; i++) {
		uint64_t pfn = r->im->pfns[idx + i];
		if (pfn & ER_PFN_ZERO)
			r->bad++;
		rec_check_page(r, pfn, r->dest_buf + i * PS);
	}
	free(r->dest_buf);
	r->dest_buf = NULL;
	return 0;
}

/* the held chunks' contents (only meaningful when the stream succeeded) */
static void rec_check_held(struct rec *r, bool check)
{
	uint8_t want[PS];
	for (unsigned c = 0; c < r->nheld; c++) {
		for (uint64_t i = 0; check && i < r->held[c].k; i++) {
			uint64_t pfn = r->im->pfns[r->held[c].idx + i];
			fill_page(want, pfn, r->im->sp.random_data);
			if (memcmp(want, r->held[c].buf + i * PS, PS) != 0)
				r->bad++;
		}
		free(r->held[c].buf);
	}
	r->nheld = 0;
}

struct run {
	enum er_reason r;
	enum er_reason stage_r[3];   /* open, load_map, stream */
	int stage;                   /* the stage that refused (0..2), 3 when all passed */
	struct er_error err;
	struct er_image img;
	struct rec rec;
	struct memdev md;
	struct host_engine he;
};

struct opts {
	uint64_t src_pages;          /* 0: the whole device */
	int64_t fail_page;           /* -1: none; 0 is a valid page */
	bool fail_set;
	uint64_t io_pages;           /* 0: 2 * ER_CHUNK_STORED_PAGES_MAX */
	uint64_t map_cap;            /* 0: img.map_pages_max */
	bool use_dest;
	unsigned dest_decline_mod;
	int64_t refuse_page;
	bool refuse_plan;
	bool no_sink;
	uint64_t header_page;        /* where the swap header is (a swap file's resume_offset) */
	bool engine;                 /* through a (deferred) decompression engine */
};

static void run_reader(struct image *im, const struct opts *o, struct run *run)
{
	memset(run, 0, sizeof(*run));
	run->md.im = im;
	run->md.pages = o && o->src_pages ? o->src_pages : im->dev_pages;
	run->md.fail_page = o && o->fail_set ? o->fail_page : -1;
	run->rec.im = im;
	run->rec.refuse_page = o && o->refuse_page ? o->refuse_page : -1;
	run->rec.refuse_plan = o && o->refuse_plan;
	run->rec.use_dest = o && o->use_dest;
	run->rec.dest_decline_mod = o ? o->dest_decline_mod : 0;
	struct er_source src = { &run->md, run->md.pages, mem_read, o ? o->header_page : 0 };
	uint8_t *pg = malloc(PS);
	uint8_t *map = NULL, *io = NULL, *unc = NULL;
	uint64_t *pfns = NULL;

	run->stage = 0;
	run->r = er_image_open(&run->img, &src, pg, &run->err);
	if (run->r == ER_OK) {
		run->stage = 1;
		uint64_t cap = o && o->map_cap ? o->map_cap : run->img.map_pages_max;
		assert_true(run->img.map_pages_max >= 1);
		map = malloc(cap * PS);
		run->r = er_image_load_map(&run->img, &src, map, cap, &run->err);
	}
	if (run->r == ER_OK) {
		run->stage = 2;
		uint64_t io_pages = o && o->io_pages ? o->io_pages : 2 * ER_CHUNK_STORED_PAGES_MAX;
		io = malloc(io_pages * PS);
		unc = malloc(ER_CHUNK_BYTES);
		pfns = malloc((run->img.pfn_cap ? run->img.pfn_cap : 1) * sizeof(uint64_t));
		struct er_stream_buffers b = { io, io_pages, unc, pfns, NULL, NULL };
		struct er_sink sink = { .ctx = &run->rec, .plan = rec_plan, .page = rec_page };
		if (run->rec.use_dest) {
			sink.dest = rec_dest;
			sink.commit = rec_commit;
		}
		if (o && o->engine) {
			run->he.e.ctx = &run->he;
			run->he.e.submit = he_submit;
			run->he.e.wait = he_wait;
			b.dec = &run->he.e;
			run->rec.defer = true;
		}
		run->r = er_image_stream(&run->img, &src, &b, o && o->no_sink ? NULL : &sink, &run->err);
		rec_check_held(&run->rec, run->r == ER_OK);
		/* whatever happened, every job was waited for, in order, with its input intact */
		assert_int_equal(run->he.waited, run->he.submitted);
		assert_int_equal(run->he.out_of_order, 0);
		assert_int_equal(run->he.input_changed, 0);
		assert_true(run->he.max_outstanding <= ER_DEC_MAX_JOBS);
		if (run->r == ER_OK)
			run->stage = 3;
	}
	if (run->r != ER_OK) {
		/* every refusal says why, and err->reason agrees */
		assert_int_equal(run->err.reason, run->r);
		assert_true(run->err.detail[0] != 0);
	}
	free(run->rec.dest_buf);
	run->rec.dest_buf = NULL;
	free(pg);
	free(map);
	free(io);
	free(unc);
	free(pfns);
}

#define assert_refused(run, reason, at_stage)                                                     \
	do {                                                                                      \
		if ((run).r != (reason) || (run).stage != (at_stage))                             \
			print_error("got %s at stage %d (%s), want %s at stage %d\n",              \
				    er_reason_name((run).r), (run).stage, (run).err.detail,          \
				    er_reason_name(reason), (at_stage));                             \
		assert_int_equal((run).r, (reason));                                              \
		assert_int_equal((run).stage, (at_stage));                                        \
	} while (0)

/* everything the reader reports about a good image */
static void check_ok(struct image *im, struct run *run)
{
	const struct er_image *g = &run->img;
	if (run->r != ER_OK)
		print_error("refused: %s: %s\n", er_reason_name(run->r), run->err.detail);
	assert_int_equal(run->r, ER_OK);
	assert_int_equal(g->arch, im->sp.word == 8 ? ER_ARCH_X86_64 : ER_ARCH_I386);
	assert_int_equal(g->word, im->sp.word);
	assert_int_equal(g->comp, im->sp.comp);
	assert_int_equal(g->image_pages, im->image_pages);
	assert_int_equal(g->pages, im->pages);
	assert_int_equal(g->nr_meta_pages, im->meta_pages);
	assert_int_equal(g->nr_pfns, im->sp.npfns);
	assert_int_equal(g->nr_zero, im->sp.npfns - im->image_pages);
	assert_int_equal(g->first_map, im->first_map);
	assert_int_equal(g->header_swap_page, im->header_page);
	assert_int_equal(g->stream_pages, im->nstream);
	assert_int_equal(g->map_pages, im->nmap);
	assert_true(g->map_pages <= g->map_pages_max);
	assert_int_equal(g->chunks, im->nchunks);
	assert_int_equal(g->stored_bytes, im->stored_bytes);
	assert_int_equal(g->crc_checked, im->sp.crc);
	if (im->sp.crc) {
		assert_int_equal(g->crc_body, im->crc);
		assert_int_equal(g->crc32, im->crc);
		/* the reader's CRC is the kernel's crc32_le, zlib's crc with inversions */
		assert_int_equal(er_crc32_le(0, im->body, (im->meta_pages + im->image_pages) * PS), im->crc);
	}
	assert_string_equal(g->orig_sig, "SWAPSPACE2");
	assert_int_equal(run->rec.plans, 1);
	assert_true(run->rec.plan_ok);
	assert_int_equal(run->rec.pages, im->image_pages);
	assert_int_equal(run->rec.bad, 0);
}

/* ------------------------------------------------------------ good images */

static void t_ok_matrix(void **state)
{
	(void)state;
	static const unsigned words[] = { 8, 4 };
	static const enum er_comp comps[] = { ER_COMP_NONE, ER_COMP_LZO, ER_COMP_LZ4 };
	static const uint64_t counts[] = { 1, 77, 1300 };
	for (unsigned wi = 0; wi < 2; wi++)
		for (unsigned ci = 0; ci < 3; ci++)
			for (unsigned ni = 0; ni < 3; ni++)
				for (unsigned v = 0; v < 4; v++) {
					struct spec sp = { .word = words[wi], .comp = comps[ci], .npfns = counts[ni],
							   .crc = comps[ci] != ER_COMP_NONE,
							   .zero_every = (v & 1) && counts[ni] > 1 ? 5 : 0,
							   .scatter = (v & 2) != 0,
							   .random_data = ni == 2 && v == 3 };
					struct image im;
					struct run run;
					build(&im, &sp);
					run_reader(&im, NULL, &run);
					check_ok(&im, &run);
					image_free(&im);
				}
}

/* the kernel's ~0 terminator is absent when the list fills its last page exactly */
static void t_ok_full_meta_page(void **state)
{
	(void)state;
	for (unsigned w = 4; w <= 8; w += 4) {
		struct spec sp = { .word = w, .comp = ER_COMP_LZO, .crc = true, .npfns = PS / w };
		struct image im;
		struct run run;
		build(&im, &sp);
		assert_int_equal(im.meta_pages, 1);
		run_reader(&im, NULL, &run);
		check_ok(&im, &run);
		image_free(&im);
	}
}

/* 511 stream pages fill the first map page; the kernel then writes an empty second one */
static void t_ok_full_map_page(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_NONE, .npfns = 509 };
	struct image im;
	struct run run;
	build(&im, &sp);
	assert_int_equal(im.nstream, ER_MAP_ENTRIES);
	assert_int_equal(im.nmap, 2);
	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	image_free(&im);
}

/* incompressible chunks span 33 pages; every read-buffer size gives the same result */
static void t_ok_io_sizes(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 2 * ER_CHUNK_STORED_PAGES_MAX, 2 * ER_CHUNK_STORED_PAGES_MAX + 1, 97, 256, 4096 };
	for (unsigned c = 0; c < 2; c++)
		for (unsigned i = 0; i < ER_ARRAY_SIZE(sizes); i++) {
			struct spec sp = { .word = i & 1 ? 4 : 8, .comp = c ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true,
					   .npfns = 400, .zero_every = 9, .random_data = true, .scatter = i & 1 };
			struct opts o = { .io_pages = sizes[i] };
			struct image im;
			struct run run;
			build(&im, &sp);
			assert_true(im.nchunks > 1);
			run_reader(&im, &o, &run);
			check_ok(&im, &run);
			image_free(&im);
		}
}

static void t_ok_flags_and_crc_variants(void **state)
{
	(void)state;
	/* platform mode + hardware signature: accepted, hw_sig reported */
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 50,
			   .extra_flags = ER_SF_PLATFORM_MODE | ER_SF_HW_SIG };
	struct image im;
	struct run run;
	build(&im, &sp);
	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	assert_int_equal(run.img.hw_sig, 0x1234abcd);
	assert_int_equal(run.img.flags, ER_SF_PLATFORM_MODE | ER_SF_HW_SIG | ER_SF_CRC32_MODE);
	image_free(&im);

	/* compressed without CRC: nothing checked, CRC field ignored */
	sp = (struct spec){ .word = 4, .comp = ER_COMP_LZ4, .npfns = 50, .zero_every = 3 };
	build(&im, &sp);
	er_put_le32(page0(&im) + ER_HDR_CRC32, 0xdeadbeef);
	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	image_free(&im);

	/* uncompressed with CRC (the kernel never writes it, the reader checks it anyway) */
	sp = (struct spec){ .word = 8, .comp = ER_COMP_NONE, .crc = true, .npfns = 50, .zero_every = 4 };
	build(&im, &sp);
	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	image_free(&im);

	/* the old "SWAP-SPACE" signature */
	sp = (struct spec){ .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 20 };
	build(&im, &sp);
	memcpy(page0(&im) + ER_HDR_ORIG_SIG, "SWAP-SPACE", 10);
	run_reader(&im, NULL, &run);
	assert_int_equal(run.r, ER_OK);
	image_free(&im);

	/* unused pages after the image; no sink at all */
	sp = (struct spec){ .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 20, .slack_pages = 100 };
	build(&im, &sp);
	struct opts o = { .no_sink = true };
	run_reader(&im, &o, &run);
	assert_int_equal(run.r, ER_OK);
	assert_int_equal(run.img.nr_pfns, 20);
	image_free(&im);
}

/* the zero-copy path: whole chunks decompressed where the sink wants them */
static void t_ok_dest_commit(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 8; v++) {
		struct spec sp = { .word = v & 1 ? 4 : 8, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true,
				   .npfns = 700, .zero_every = v & 4 ? 0 : 40, .random_data = v == 5, .scatter = v & 1 };
		struct opts o = { .use_dest = true, .dest_decline_mod = v & 4 ? 3 : 0 };
		struct image im;
		struct run run;
		build(&im, &sp);
		run_reader(&im, &o, &run);
		check_ok(&im, &run);
		/* chunks past the PFN pages without zero pages went the direct way */
		assert_true(run.rec.dest_calls > 0);
		assert_true(run.rec.commits > 0);
		assert_true(run.rec.commit_pages < im.image_pages);
		image_free(&im);
	}
	/* a chunk that decompresses to fewer pages than asked for falls back to page() */
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 100, .tail_trim = PS };
	struct image im;
	struct run run;
	struct opts o = { .use_dest = true };
	build(&im, &sp);
	/* header counts are those of the untrimmed body: the trimmed last chunk comes up one
	 * page short and the stream needs pages the map does not list */
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_MAP, 2);
	assert_int_equal(run.rec.pages, im.image_pages - 1);
	image_free(&im);
}

/* the same images through a decompression engine: same pages, same CRC; small read
 * windows make the reader move its window often (it must drain the queue first) */
static void t_engine(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 16; v++) {
		struct spec sp = { .word = v & 1 ? 4 : 8, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true,
				   .npfns = 1500 + 37 * v, .zero_every = v & 4 ? 0 : 40, .random_data = v == 5 || v == 12,
				   .scatter = v & 1 };
		struct opts o = { .use_dest = true, .engine = true, .dest_decline_mod = v & 8 ? 3 : 0,
				  .io_pages = v & 4 ? 0 : 300 };
		struct image im;
		struct run ref, run;
		build(&im, &sp);
		struct opts o0 = o;
		o0.engine = false;
		run_reader(&im, &o0, &ref);
		check_ok(&im, &ref);
		run_reader(&im, &o, &run);
		check_ok(&im, &run);
		assert_int_equal(run.img.crc_body, ref.img.crc_body);
		assert_int_equal(run.img.chunks, ref.img.chunks);
		assert_int_equal(run.rec.commit_pages, ref.rec.commit_pages);
		assert_true(run.he.submitted > 0);
		assert_int_equal(run.he.submitted, run.rec.commits);
		if (!o.io_pages)
			assert_true(run.he.max_outstanding > 1);
		image_free(&im);
	}
}

/* corrupt data chunks through the engine: refused like without it */
static void t_engine_corrupt(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 4; v++) {
		struct spec sp = { .word = v & 1 ? 4 : 8, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true,
				   .npfns = 1200 };
		struct image im;
		struct run run, ref;
		build(&im, &sp);
		/* a data chunk in the middle: a byte of its payload, then its length */
		uint64_t c = im.nchunks / 2;
		uint8_t *pg = spage(&im, im.chunk_start[c]);
		uint8_t keep = pg[sp.word + 100];
		pg[sp.word + 100] ^= 0x5a;
		struct opts o = { .use_dest = true, .engine = true }, o0 = { .use_dest = true };
		run_reader(&im, &o0, &ref);
		run_reader(&im, &o, &run);
		assert_int_not_equal(run.r, ER_OK);
		assert_true(run.r == ER_R_CRC || run.r == ER_R_DECOMPRESS);
		if (ref.r == ER_R_CRC)
			assert_int_equal(run.r, ER_R_CRC);
		pg[sp.word + 100] = keep;
		/* the chunk's payload from byte 200 on overwritten: it no longer decompresses
		 * (the length stays, so the next chunk is still found) */
		memset(pg + sp.word + 200, 0xff, PS - sp.word - 200);
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_DECOMPRESS, 2);
		assert_non_null(strstr(run.err.detail, "chunk"));
		image_free(&im);
	}
}

/* ------------------------------------------------------------ refusals: page 0 */

static void t_no_signature(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 10 };
	struct image im;
	struct run run;
	build(&im, &sp);
	memcpy(page0(&im) + ER_HDR_SIG, "SWAPSPACE2", 10);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	memcpy(page0(&im) + ER_HDR_SIG, "S1SUSPENX\0", 10);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	memset(page0(&im) + ER_HDR_SIG, 0, 10);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	/* a device too small to hold an image */
	memcpy(page0(&im) + ER_HDR_SIG, "S1SUSPEND\0", 10);
	struct opts o = { .src_pages = 2 };
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	image_free(&im);
}

static void t_flags(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 10 };
	struct image im;
	struct run run;
	build(&im, &sp);
	uint32_t f = er_le32(page0(&im) + ER_HDR_FLAGS);
	static const uint32_t unknown[] = { 0x20, 0x100, 0x80000000u };
	for (unsigned i = 0; i < ER_ARRAY_SIZE(unknown); i++) {
		er_put_le32(page0(&im) + ER_HDR_FLAGS, f | unknown[i]);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_FLAGS, 0);
	}
	/* LZ4 on an uncompressed image */
	er_put_le32(page0(&im) + ER_HDR_FLAGS, ER_SF_NOCOMPRESS_MODE | ER_SF_LZ4);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_FLAGS, 0);
	image_free(&im);
}

static void t_orig_sig(void **state)
{
	(void)state;
	struct spec sp = { .word = 4, .comp = ER_COMP_LZO, .crc = true, .npfns = 10 };
	struct image im;
	struct run run;
	build(&im, &sp);
	memcpy(page0(&im) + ER_HDR_ORIG_SIG, "S1SUSPEND\0", 10);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_HEADER, 0);
	memset(page0(&im) + ER_HDR_ORIG_SIG, 0xff, 10);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_HEADER, 0);
	/* non-printable bytes are shown as '?' */
	assert_string_equal(run.img.orig_sig, "??????????");
	image_free(&im);
}

/* ------------------------------------------------------------ refusals: the map */

static void t_map_outside(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 300 };
	struct image im;
	struct run run;
	build(&im, &sp);
	uint8_t *m0 = mapp(&im, 0);

	/* first map page 0 or beyond the device */
	er_put_le64(page0(&im) + ER_HDR_IMAGE, 0);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 0);
	er_put_le64(page0(&im) + ER_HDR_IMAGE, im.dev_pages);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 0);
	er_put_le64(page0(&im) + ER_HDR_IMAGE, im.first_map | (1ull << 45));
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 0);
	er_put_le64(page0(&im) + ER_HDR_IMAGE, im.first_map);

	/* header page (entries[0]) beyond the device */
	er_put_le64(m0, im.dev_pages + 5);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 0);
	er_put_le64(m0, im.header_page);

	/* a stream entry beyond the device: its high bytes flipped, or one past the end */
	uint64_t e = er_le64(m0 + 8 * 7);
	m0[8 * 7 + 5] ^= 0x5a;
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m0 + 8 * 7, im.dev_pages);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m0 + 8 * 7, e);

	/* the source says the device is shorter than the image: entries point past its end */
	struct opts o = { .src_pages = im.dev_pages - 3 };
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_MAP, 1);

	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	image_free(&im);
}

static void t_map_loop_and_holes(void **state)
{
	(void)state;
	/* 1300 uncompressed pages: 3 map pages */
	struct spec sp = { .word = 8, .comp = ER_COMP_NONE, .npfns = 1300, .scatter = true };
	struct image im;
	struct run run;
	build(&im, &sp);
	assert_int_equal(im.nmap, 3);
	uint8_t *m0 = mapp(&im, 0), *m1 = mapp(&im, 1), *last = mapp(&im, im.nmap - 1);

	/* full map page pointing back to itself / to the first one */
	er_put_le64(m0 + 8 * ER_MAP_ENTRIES, im.map_locs[0]);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m0 + 8 * ER_MAP_ENTRIES, im.map_locs[1]);
	er_put_le64(m1 + 8 * ER_MAP_ENTRIES, im.map_locs[0]);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m1 + 8 * ER_MAP_ENTRIES, im.map_locs[2]);
	/* the last (partial) page pointing back to the first */
	er_put_le64(last + 8 * ER_MAP_ENTRIES, im.map_locs[0]);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(last + 8 * ER_MAP_ENTRIES, 0);
	/* next_swap outside */
	er_put_le64(m1 + 8 * ER_MAP_ENTRIES, im.dev_pages + 1);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m1 + 8 * ER_MAP_ENTRIES, im.map_locs[2]);

	/* a hole: an empty entry followed by a used one */
	uint64_t e = er_le64(m1 + 8 * 100);
	er_put_le64(m1 + 8 * 100, 0);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m1 + 8 * 100, e);
	/* a hole at the end of a full page followed by another map page */
	e = er_le64(m0 + 8 * (ER_MAP_ENTRIES - 1));
	er_put_le64(m0 + 8 * (ER_MAP_ENTRIES - 1), 0);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(m0 + 8 * (ER_MAP_ENTRIES - 1), e);

	/* a map buffer too small for the chain */
	struct opts o = { .map_cap = 2 };
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_MAP, 1);

	/* the map lists fewer pages than an uncompressed image has */
	uint64_t le = (im.nstream - 1) % ER_MAP_ENTRIES;
	e = er_le64(last + 8 * le);
	er_put_le64(last + 8 * le, 0);
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_MAP, 1);
	er_put_le64(last + 8 * le, e);

	run_reader(&im, NULL, &run);
	check_ok(&im, &run);
	image_free(&im);
}

/* ------------------------------------------------------------ refusals: the header page */

static void t_magic(void **state)
{
	(void)state;
	for (unsigned w = 4; w <= 8; w += 4) {
		struct spec sp = { .word = w, .comp = ER_COMP_LZO, .crc = true, .npfns = 10 };
		struct image im;
		struct run run;
		build(&im, &sp);
		unsigned off = w == 8 ? 24 : 12;
		hdr(&im)[off] ^= 0x01;
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAGIC, 0);
		hdr(&im)[off] ^= 0x01;
		/* both magics at once is no known layout either */
		if (w == 8)
			er_put_le32(hdr(&im) + 12, ER_RESTORE_MAGIC_32);
		else
			er_put_le64(hdr(&im) + 24, ER_RESTORE_MAGIC_64);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAGIC, 0);
		image_free(&im);
	}
}

static void t_header_counts(void **state)
{
	(void)state;
	for (unsigned w = 4; w <= 8; w += 4) {
		struct spec sp = { .word = w, .comp = ER_COMP_LZO, .crc = true, .npfns = 2000 };
		struct image im;
		struct run run;
		build(&im, &sp);
		uint8_t *h = hdr(&im);
		unsigned o_phys = w == 8 ? 400 : 396, o_img = w == 8 ? 416 : 404, o_pages = w == 8 ? 424 : 408,
			 o_size = w == 8 ? 432 : 412, o_cr3 = w == 8 ? 16 : 8, o_jphys = w == 8 ? 8 : 4;
		uint8_t save[PS];
		memcpy(save, h, PS);
#define SETW(off, v) put_word(h + (off), w, (v))
		/* image_pages 0 */
		SETW(o_img, 0);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		/* pages that leave no room for a PFN page */
		SETW(o_pages, im.image_pages + 1);
		SETW(o_size, (im.image_pages + 1) * PS);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		/* one page more than the counts add up to: size no longer pages * 4096 */
		SETW(o_pages, im.pages + 1);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		/* too few PFN pages for image_pages (size consistent) */
		SETW(o_img, im.image_pages + im.meta_pages - 1);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		/* far more PFN pages than the machine has frames */
		SETW(o_phys, 100);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		SETW(o_phys, 0);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		/* absurd page count */
		if (w == 8) {
			SETW(o_pages, 1ull << 41);
			SETW(o_size, (1ull << 41) * PS);
			run_reader(&im, NULL, &run);
			assert_refused(run, ER_R_HEADER, 0);
			memcpy(h, save, PS);
		}
		/* cr3 not page aligned; jump address and its physical address differ in the page */
		/* cr3 misaligned: within the page on x86_64, off 32 bytes on i386 (a PAE PDPT) */
		SETW(o_cr3, w == 8 ? 0x1e740800 : 0x01e74010);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
		SETW(o_jphys, 0x01a4c030);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_HEADER, 0);
		memcpy(h, save, PS);
#undef SETW
		run_reader(&im, NULL, &run);
		check_ok(&im, &run);
		image_free(&im);
	}
}

/* image_pages near 2^64 makes image_pages + 2 (and the PFN-page bound) wrap around:
 * nr_meta_pages + image_pages is then a small number of body pages, the stream ends
 * inside the PFN pages, plan() is never called and no data page is delivered, yet
 * the image must not be reported resumable. */
static void t_header_count_overflow(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 2; c++) {
		struct spec sp = { .word = 8, .comp = c ? ER_COMP_LZO : ER_COMP_NONE, .crc = c != 0, .npfns = 1 };
		struct image im;
		struct run run;
		build(&im, &sp);
		/* pages 2: one PFN page (nr_meta_pages = 2 - (2^64 - 1) - 1 = 2 mod 2^64) */
		er_put_le64(hdr(&im) + 416, ~0ull);
		er_put_le64(hdr(&im) + 424, 2);
		er_put_le64(hdr(&im) + 432, 2 * PS);
		run_reader(&im, NULL, &run);
		if (run.r == ER_OK)
			print_error("accepted: image_pages %llu, nr_meta_pages %llu, plan() calls %llu, pages delivered %llu\n",
				    (unsigned long long)run.img.image_pages, (unsigned long long)run.img.nr_meta_pages,
				    (unsigned long long)run.rec.plans, (unsigned long long)run.rec.pages);
		assert_int_not_equal(run.r, ER_OK);
		image_free(&im);
	}
}

/* ------------------------------------------------------------ refusals: the PFN list */

static uint64_t *pfn_list(uint64_t n)
{
	uint64_t *p = calloc(n, sizeof(uint64_t));
	for (uint64_t i = 0; i < n; i++)
		p[i] = 0x200 + 2 * i;
	return p;
}

static void t_pfns_not_ascending(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 6; v++) {
		unsigned w = v & 1 ? 4 : 8;
		enum er_comp c = v / 2 == 0 ? ER_COMP_NONE : v / 2 == 1 ? ER_COMP_LZO : ER_COMP_LZ4;
		uint64_t n = 1500;
		uint64_t *p = pfn_list(n);
		struct image im;
		struct run run;
		/* a repeated PFN */
		p[700] = p[699];
		struct spec sp = { .word = w, .comp = c, .crc = c != ER_COMP_NONE, .npfns = n, .pfn_words = p };
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_PFN, 2);
		assert_int_equal(run.rec.plans, 0);
		image_free(&im);
		/* a descending one, across a PFN page boundary (entry per_page) */
		p[700] = 0x200 + 2 * 700;
		p[PS / w] = 0x10;
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_PFN, 2);
		image_free(&im);
		/* a zero page's PFN counts too */
		p[PS / w] = 0x200 + 2 * (PS / w);
		p[11] = p[10] | zero_bit(w);
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_PFN, 2);
		image_free(&im);
		free(p);
	}
}

static void t_pfn_out_of_range(void **state)
{
	(void)state;
	for (unsigned w = 4; w <= 8; w += 4) {
		uint64_t n = 10;
		uint64_t *p = pfn_list(n);
		p[9] = w == 8 ? 1ull << 40 : 1ull << 24;   /* beyond 52 / 36 physical address bits */
		struct spec sp = { .word = w, .comp = ER_COMP_LZO, .crc = true, .npfns = n, .pfn_words = p };
		struct image im;
		struct run run;
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_PFN, 2);
		image_free(&im);
		free(p);
	}
}

/* the list ends early (a ~0 in the middle) */
static void hook_early_terminator(struct image *im)
{
	put_word(im->body + 5 * im->sp.word, im->sp.word, im->sp.word == 8 ? ~0ull : 0xffffffffull);
}

/* a stored page's PFN marked as a zero page */
static void hook_zero_bit(struct image *im)
{
	unsigned w = im->sp.word;
	uint64_t v = w == 8 ? er_le64(im->body + 3 * w) : er_le32(im->body + 3 * w);
	put_word(im->body + 3 * w, w, v | zero_bit(w));
}

/* more PFNs than image_pages: the terminator overwritten by one more PFN */
static void hook_extra_pfn(struct image *im)
{
	unsigned w = im->sp.word;
	uint64_t n = im->sp.npfns;
	put_word(im->body + n * w, w, 0x100000);
	put_word(im->body + (n + 1) * w, w, w == 8 ? ~0ull : 0xffffffffull);
}

static void t_pfn_count_mismatch(void **state)
{
	(void)state;
	void (*hooks[])(struct image *) = { hook_early_terminator, hook_zero_bit, hook_extra_pfn };
	for (unsigned hi = 0; hi < ER_ARRAY_SIZE(hooks); hi++)
		for (unsigned v = 0; v < 4; v++) {
			struct spec sp = { .word = v & 1 ? 4 : 8, .comp = v & 2 ? ER_COMP_LZO : ER_COMP_NONE,
					   .crc = v & 2, .npfns = 40, .body_hook = hooks[hi] };
			struct image im;
			struct run run;
			build(&im, &sp);
			run_reader(&im, NULL, &run);
			assert_refused(run, ER_R_PFN, 2);
			assert_int_equal(run.rec.plans, 0);
			assert_int_equal(run.rec.pages, 0);
			image_free(&im);
		}
}

/* ------------------------------------------------------------ refusals: chunks */

static void t_chunk_length(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 4; v++) {
		unsigned w = v & 1 ? 4 : 8;
		struct spec sp = { .word = w, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true, .npfns = 200 };
		struct image im;
		struct run run;
		build(&im, &sp);
		assert_true(im.nchunks >= 3);
		for (unsigned k = 0; k < 3; k++) {
			uint8_t *cp = spage(&im, im.chunk_start[k]);
			static const uint64_t bad[] = { 0, ER_CHUNK_CMP_MAX + 1, 0xffffffffull, 1ull << 40 };
			for (unsigned b = 0; b < ER_ARRAY_SIZE(bad); b++) {
				if (w == 4 && bad[b] > 0xffffffffull)
					continue;
				put_word(cp, w, bad[b]);
				run_reader(&im, NULL, &run);
				assert_refused(run, ER_R_CHUNK_LEN, 2);
			}
			put_word(cp, w, im.chunk_len[k]);
		}
		/* a length within range whose pages run past the end of the map */
		put_word(spage(&im, im.chunk_start[im.nchunks - 1]), w, ER_CHUNK_CMP_MAX);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAP, 2);
		put_word(spage(&im, im.chunk_start[im.nchunks - 1]), w, im.chunk_len[im.nchunks - 1]);
		run_reader(&im, NULL, &run);
		check_ok(&im, &run);
		image_free(&im);
	}
}

static void t_decompress_error(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 4; v++) {
		unsigned w = v & 1 ? 4 : 8;
		enum er_comp c = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO;
		struct spec sp = { .word = w, .comp = c, .crc = true, .npfns = 200, .zero_every = 6 };
		struct image im;
		struct run run;
		build(&im, &sp);
		unsigned k = 2;
		uint8_t *cp = spage(&im, im.chunk_start[k]);
		/* the stream cut short by one byte */
		put_word(cp, w, im.chunk_len[k] - 1);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_DECOMPRESS, 2);
		/* with the dest path too: it falls back and the ordinary path reports */
		struct opts o = { .use_dest = true };
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_DECOMPRESS, 2);
		put_word(cp, w, im.chunk_len[k]);
		if (c == ER_COMP_LZO) {
			/* garbage after the end marker: LZO says input not consumed */
			put_word(cp, w, im.chunk_len[k] + 1);
			run_reader(&im, NULL, &run);
			assert_refused(run, ER_R_DECOMPRESS, 2);
			put_word(cp, w, im.chunk_len[k]);
			/* the end marker's distance changed: a match, then the input runs out */
			uint8_t *last = im.dev + im.stream_locs[im.chunk_start[k] + (w + im.chunk_len[k] - 1) / PS] * PS +
					(w + im.chunk_len[k] - 1) % PS;
			assert_int_equal(*last, 0);
			*last = 0x5a;
			run_reader(&im, NULL, &run);
			assert_refused(run, ER_R_DECOMPRESS, 2);
			*last = 0;
		} else {
			/* a match offset of 0 */
			uint8_t *d = cp + w;
			unsigned lit = d[0] >> 4;
			assert_true(lit < 15);
			uint8_t s0 = d[1 + lit], s1 = d[2 + lit];
			d[1 + lit] = 0;
			d[2 + lit] = 0;
			run_reader(&im, NULL, &run);
			assert_refused(run, ER_R_DECOMPRESS, 2);
			d[1 + lit] = s0;
			d[2 + lit] = s1;
		}
		run_reader(&im, NULL, &run);
		check_ok(&im, &run);
		image_free(&im);
	}
	/* the last chunk decompresses to a number of bytes that is not whole pages */
	for (unsigned v = 0; v < 2; v++) {
		struct spec sp = { .word = 8, .comp = v ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true, .npfns = 50, .tail_trim = 100 };
		struct image im;
		struct run run;
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_DECOMPRESS, 2);
		image_free(&im);
	}
}

static void t_chunk_overflows_counts(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 4; v++) {
		/* 40 PFNs: 1 PFN page + 40 data pages + 3 extra = 44 body pages; the
		 * header says 41, the second chunk holds 12 pages where 9 remain */
		struct spec sp = { .word = v & 1 ? 4 : 8, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true,
				   .npfns = 40, .extra_body_pages = 3 };
		struct image im;
		struct run run;
		build(&im, &sp);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_COUNTS, 2);
		struct opts o = { .use_dest = true };
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_COUNTS, 2);
		image_free(&im);
	}
	/* extra pages that form a chunk of their own are never read (nor by the kernel) */
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .npfns = 63, .extra_body_pages = 5 };
	struct image im;
	struct run run;
	build(&im, &sp);
	assert_int_equal(im.meta_pages + im.image_pages, 64);
	run_reader(&im, NULL, &run);
	assert_int_equal(run.r, ER_OK);
	assert_int_equal(run.img.chunks, 2);
	image_free(&im);
}

static void t_crc_mismatch(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 6; v++) {
		unsigned w = v & 1 ? 4 : 8;
		enum er_comp c = v / 2 == 0 ? ER_COMP_NONE : v / 2 == 1 ? ER_COMP_LZO : ER_COMP_LZ4;
		struct spec sp = { .word = w, .comp = c, .crc = true, .npfns = 150, .zero_every = 7 };
		struct image im;
		struct run run;
		build(&im, &sp);
		/* the recorded CRC changed */
		page0(&im)[ER_HDR_CRC32 + 2] ^= 0x10;
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_CRC, 2);
		assert_true(run.img.crc_checked);
		assert_int_equal(run.img.crc_body, im.crc);
		assert_int_equal(run.rec.pages, im.image_pages);   /* found at the very end */
		page0(&im)[ER_HDR_CRC32 + 2] ^= 0x10;
		/* a data byte changed */
		if (c == ER_COMP_NONE) {
			spage(&im, im.nstream - 3)[1234] ^= 0x40;
		} else {
			/* the first literal of the chunk's LZO/LZ4 stream */
			uint8_t *d = spage(&im, im.chunk_start[2]) + w;
			unsigned pos = 1;
			if (c == ER_COMP_LZO) {
				/* state 0: 0 = long literal run (zero bytes, then a count byte),
				 * 1..15 = t + 3 literals, 18.. = t - 17 literals (16, 17: matches) */
				assert_true(d[0] != 16 && d[0] != 17);
				if (d[0] == 0) {
					while (d[pos] == 0)
						pos++;
					pos++;
				}
			} else {
				assert_true((d[0] >> 4) > 0);
				if ((d[0] >> 4) == 15)
					while (d[pos++] == 255)
						;
			}
			d[pos] ^= 0x40;
		}
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_CRC, 2);
		struct opts o = { .use_dest = true };
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_CRC, 2);
		image_free(&im);
	}
}

static void t_truncated_stream(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 4; v++) {
		unsigned w = v & 1 ? 4 : 8;
		struct spec sp = { .word = w, .comp = v & 2 ? ER_COMP_LZ4 : ER_COMP_LZO, .crc = true, .npfns = 700,
				   .random_data = v == 3, .scatter = v & 1 };
		struct image im;
		struct run run;
		build(&im, &sp);
		/* the map lists fewer stream pages than the chunks need */
		uint64_t last = im.nstream - 1, mi = last / ER_MAP_ENTRIES, ei = last % ER_MAP_ENTRIES;
		uint8_t *mp = mapp(&im, mi);
		uint64_t e = er_le64(mp + 8 * ei);
		er_put_le64(mp + 8 * ei, 0);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAP, 2);
		assert_true(run.rec.pages > 0);
		er_put_le64(mp + 8 * ei, e);
		/* whole chunks missing */
		uint64_t cut = im.chunk_start[im.nchunks / 2];
		uint8_t save[PS];
		memcpy(save, mapp(&im, cut / ER_MAP_ENTRIES), PS);
		for (uint64_t s = cut; s < (cut / ER_MAP_ENTRIES + 1) * ER_MAP_ENTRIES; s++)
			er_put_le64(mapp(&im, cut / ER_MAP_ENTRIES) + 8 * (s % ER_MAP_ENTRIES), 0);
		er_put_le64(mapp(&im, cut / ER_MAP_ENTRIES) + 8 * ER_MAP_ENTRIES, 0);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAP, 2);
		memcpy(mapp(&im, cut / ER_MAP_ENTRIES), save, PS);
		/* a map listing only the header page */
		memcpy(save, mapp(&im, 0), PS);
		memset(mapp(&im, 0) + 8, 0, PS - 8);
		run_reader(&im, NULL, &run);
		assert_refused(run, ER_R_MAP, 1);
		memcpy(mapp(&im, 0), save, PS);
		run_reader(&im, NULL, &run);
		check_ok(&im, &run);
		image_free(&im);
	}
}

/* ------------------------------------------------------------ refusals: the rest */

static void t_io_errors(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_NONE, .npfns = 1300, .scatter = true };
	struct image im;
	struct run run;
	build(&im, &sp);
	assert_true(im.nmap > 1);
	const uint64_t at[] = { 0, im.first_map, im.header_page, im.map_locs[im.nmap - 1],
				im.stream_locs[1], im.stream_locs[im.nstream - 1] };
	const int stage[] = { 0, 0, 0, 1, 2, 2 };
	for (unsigned i = 0; i < ER_ARRAY_SIZE(at); i++) {
		struct opts o = { .fail_set = true, .fail_page = (int64_t)at[i] };
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_IO, stage[i]);
	}
	image_free(&im);
}

static void t_sink_refusals(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 3; c++) {
		struct spec sp = { .word = 8, .comp = (enum er_comp)c, .crc = c != 0, .npfns = 100 };
		struct image im;
		struct run run;
		build(&im, &sp);
		struct opts o = { .refuse_page = 37 };
		run_reader(&im, &o, &run);
		assert_refused(run, ER_R_SINK, 2);
		assert_int_equal(run.rec.pages, 37);
		assert_string_equal(run.err.detail, "page refused by the test");
		struct opts o2 = { .refuse_plan = true };
		run_reader(&im, &o2, &run);
		assert_refused(run, ER_R_SINK, 2);
		assert_int_equal(run.rec.pages, 0);
		image_free(&im);
	}
}

/* A swap file: the swap header is not page 0 of the partition but page H (the
 * file's first block); map entries stay partition pages. Page 0 belongs to the
 * filesystem. */
static void t_swap_file_header_page(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 300, .scatter = true };
	struct image im;
	struct run run, ref;
	build(&im, &sp);
	run_reader(&im, NULL, &ref);
	assert_int_equal(ref.r, ER_OK);

	uint64_t h = im.dev_pages;
	im.dev = realloc(im.dev, (h + 1) * PS);
	assert_non_null(im.dev);
	memcpy(im.dev + h * PS, im.dev, PS);
	memset(im.dev, 0, PS);
	im.dev[1024 + 0x38] = 0x53;                  /* an ext4 superblock magic, 0xEF53 */
	im.dev[1024 + 0x39] = 0xEF;
	im.dev_pages = h + 1;

	struct opts o = { .header_page = h };
	run_reader(&im, &o, &run);
	assert_int_equal(run.r, ER_OK);
	assert_int_equal(run.img.nr_pfns, ref.img.nr_pfns);
	assert_int_equal(run.img.crc_body, ref.img.crc_body);
	assert_true(run.img.crc_checked);

	/* the same device read as a swap partition: page 0 is no swap header */
	run_reader(&im, NULL, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	/* a header page beyond the device */
	o.header_page = h + 1;
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_NO_SIGNATURE, 0);
	assert_non_null(strstr(run.err.detail, "beyond the device"));
	/* a map chain that starts at the swap header itself */
	o.header_page = h;
	er_put_le64(im.dev + h * PS + ER_HDR_IMAGE, h);
	run_reader(&im, &o, &run);
	assert_refused(run, ER_R_MAP, 0);
	image_free(&im);
}

static void t_api_misuse(void **state)
{
	(void)state;
	struct spec sp = { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 20 };
	struct image im;
	build(&im, &sp);
	struct memdev md = { &im, im.dev_pages, -1, 0 };
	struct er_source src = { &md, im.dev_pages, mem_read, 0 };
	struct er_image img;
	struct er_error err;
	uint8_t *pg = malloc(PS), *io = malloc(2 * ER_CHUNK_STORED_PAGES_MAX * PS), *unc = malloc(ER_CHUNK_BYTES);
	assert_int_equal(er_image_open(&img, &src, pg, &err), ER_OK);
	uint64_t *pfns = malloc(img.pfn_cap * sizeof(uint64_t));
	/* stream before the map was loaded */
	struct er_stream_buffers b = { io, 2 * ER_CHUNK_STORED_PAGES_MAX, unc, pfns, NULL, NULL };
	assert_int_equal(er_image_stream(&img, &src, &b, NULL, &err), ER_R_MAP);
	uint8_t *map = malloc(img.map_pages_max * PS);
	assert_int_equal(er_image_load_map(&img, &src, map, img.map_pages_max, &err), ER_OK);
	/* a read buffer below the minimum */
	b.io_pages = 2 * ER_CHUNK_STORED_PAGES_MAX - 1;
	assert_int_equal(er_image_stream(&img, &src, &b, NULL, &err), ER_R_NOMEM);
	assert_int_equal(err.reason, ER_R_NOMEM);
	/* NULL err is allowed */
	b.io_pages = 2 * ER_CHUNK_STORED_PAGES_MAX;
	assert_int_equal(er_image_stream(&img, &src, &b, NULL, NULL), ER_OK);
	/* streaming twice gives the same counters */
	assert_int_equal(er_image_stream(&img, &src, &b, NULL, &err), ER_OK);
	assert_int_equal(img.nr_pfns, 20);
	assert_int_equal(img.chunks, im.nchunks);
	page0(&im)[ER_HDR_SIG] = 'X';
	assert_int_equal(er_image_open(&img, &src, pg, NULL), ER_R_NO_SIGNATURE);
	free(pg);
	free(io);
	free(unc);
	free(pfns);
	free(map);
	image_free(&im);
}

static void t_reason_names(void **state)
{
	(void)state;
	for (int i = 0; i < ER_R_COUNT; i++) {
		assert_non_null(er_reason_name((enum er_reason)i));
		assert_non_null(er_reason_text((enum er_reason)i));
		assert_true(strlen(er_reason_name((enum er_reason)i)) > 0);
		for (int j = 0; j < i; j++)
			assert_true(strcmp(er_reason_name((enum er_reason)i), er_reason_name((enum er_reason)j)) != 0);
	}
	assert_string_equal(er_reason_name(ER_OK), "ok");
	assert_string_equal(er_reason_name(ER_R_CRC), "crc-mismatch");
	assert_string_equal(er_reason_name(ER_R_MAP), "bad-map");
	assert_string_equal(er_reason_name(ER_R_COUNT), "unknown");
	assert_string_equal(er_reason_name((enum er_reason)-1), "unknown");
	assert_string_equal(er_arch_name(ER_ARCH_X86_64), "x86_64");
	assert_string_equal(er_arch_name(ER_ARCH_I386), "i386");
	assert_string_equal(er_comp_name(ER_COMP_LZ4), "lz4");
	assert_string_equal(er_comp_name(ER_COMP_NONE), "none");
}

/* ------------------------------------------------------------ fuzz seeds */

static int write_seeds(const char *dir)
{
	static const struct {
		const char *name;
		struct spec sp;
	} seeds[] = {
		{ "x64-none-4", { .word = 8, .comp = ER_COMP_NONE, .npfns = 4 } },
		{ "x64-lzo-crc-6", { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 6 } },
		{ "x64-lz4-crc-zero-8", { .word = 8, .comp = ER_COMP_LZ4, .crc = true, .npfns = 8, .zero_every = 3 } },
		{ "i386-lzo-crc-zero-5", { .word = 4, .comp = ER_COMP_LZO, .crc = true, .npfns = 5, .zero_every = 2, .scatter = true } },
		{ "i386-none-crc-3", { .word = 4, .comp = ER_COMP_NONE, .crc = true, .npfns = 3 } },
		{ "x64-lzo-2chunks-40", { .word = 8, .comp = ER_COMP_LZO, .crc = true, .npfns = 40, .zero_every = 4 } },
	};
	lzo_init();
	for (unsigned i = 0; i < ER_ARRAY_SIZE(seeds); i++) {
		struct image im;
		struct run run;
		build(&im, &seeds[i].sp);
		run_reader(&im, NULL, &run);
		if (run.r != ER_OK) {
			fprintf(stderr, "seed %s refused: %s\n", seeds[i].name, run.err.detail);
			return 1;
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(im.dev, PS, im.dev_pages, f) != im.dev_pages || fclose(f) != 0) {
			perror(path);
			return 1;
		}
		printf("%s: %llu pages\n", path, (unsigned long long)im.dev_pages);
		image_free(&im);
	}
	return 0;
}

int main(void)
{
	const char *seeds = getenv("TEST_READER_SEEDS");
	if (seeds)
		return write_seeds(seeds);
	assert_true(lzo_init() == LZO_E_OK);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_ok_matrix),
		cmocka_unit_test(t_ok_full_meta_page),
		cmocka_unit_test(t_ok_full_map_page),
		cmocka_unit_test(t_ok_io_sizes),
		cmocka_unit_test(t_ok_flags_and_crc_variants),
		cmocka_unit_test(t_ok_dest_commit),
		cmocka_unit_test(t_no_signature),
		cmocka_unit_test(t_flags),
		cmocka_unit_test(t_orig_sig),
		cmocka_unit_test(t_map_outside),
		cmocka_unit_test(t_map_loop_and_holes),
		cmocka_unit_test(t_magic),
		cmocka_unit_test(t_header_counts),
		cmocka_unit_test(t_header_count_overflow),
		cmocka_unit_test(t_pfns_not_ascending),
		cmocka_unit_test(t_pfn_out_of_range),
		cmocka_unit_test(t_pfn_count_mismatch),
		cmocka_unit_test(t_chunk_length),
		cmocka_unit_test(t_decompress_error),
		cmocka_unit_test(t_chunk_overflows_counts),
		cmocka_unit_test(t_crc_mismatch),
		cmocka_unit_test(t_truncated_stream),
		cmocka_unit_test(t_io_errors),
		cmocka_unit_test(t_sink_refusals),
		cmocka_unit_test(t_swap_file_header_page),
		cmocka_unit_test(t_engine),
		cmocka_unit_test(t_engine_corrupt),
		cmocka_unit_test(t_api_misuse),
		cmocka_unit_test(t_reason_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
