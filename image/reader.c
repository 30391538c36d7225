// SPDX-License-Identifier: GPL-2.0-or-later
/* Linux hibernation image reader; see reader.h. */
#include "image/reader.h"
#include "image/crc32.h"
#include "image/refusal.h"
#include "image/lz4.h"
#include "image/lzo.h"

static const struct {
	const char *name, *text;
} reasons[ER_R_COUNT] = {
	[ER_OK] = { "ok", "the image is resumable" },
	[ER_R_IO] = { "io-error", "the swap device could not be read" },
	[ER_R_NO_SIGNATURE] = { "no-signature", "no hibernation image signature (S1SUSPEND) in the swap header" },
	[ER_R_FLAGS] = { "unsupported-flags", "the swsusp header carries flag bits this loader does not understand" },
	[ER_R_MAP] = { "bad-map", "the swap map chain is invalid (entry outside the partition, loop, or truncated)" },
	[ER_R_MAGIC] = { "bad-arch-magic", "the image header has no known architecture magic" },
	[ER_R_ARCH] = { "wrong-arch", "the image was written for another architecture than this loader" },
	[ER_R_HEADER] = { "bad-header", "the image header's page counts are inconsistent" },
	[ER_R_PFN] = { "bad-pfn-list", "the list of saved page frames is invalid" },
	[ER_R_PFN_NOT_RAM] = { "pfn-outside-ram", "a saved page lies outside this machine's RAM" },
	[ER_R_CHUNK_LEN] = { "bad-chunk-length", "a compressed chunk has an impossible length" },
	[ER_R_DECOMPRESS] = { "decompression-error", "a compressed chunk does not decompress" },
	[ER_R_COUNTS] = { "page-count-mismatch", "the image data does not add up to its page counts" },
	[ER_R_CRC] = { "crc-mismatch", "the CRC32 of the image data differs from the one recorded" },
	[ER_R_E820] = { "memory-map-differs", "this machine's memory map differs from the one the image was made on" },
	[ER_R_HW_SIG] = { "hw-signature-differs", "the ACPI hardware signature differs from the image's" },
	[ER_R_NOMEM] = { "no-memory", "not enough free memory to load the image" },
	[ER_R_SINK] = { "load-refused", "the loader could not place a page" },
	[ER_R_CPUS] = { "cpu-mismatch", "this machine's CPUs do not fit the image" },
	[ER_R_OTHER] = { "other", "the image cannot be resumed" },
	[ER_R_AUTH] = { "auth-failed", "an encrypted page of the image failed its authentication: changed, moved or not written by the kernel holding the key" },
};

const char *er_reason_name(enum er_reason r)
{
	return (unsigned)r < ER_R_COUNT ? reasons[r].name : "unknown";
}

const char *er_reason_text(enum er_reason r)
{
	return (unsigned)r < ER_R_COUNT ? reasons[r].text : "unknown reason";
}

const char *er_arch_name(enum er_arch a)
{
	return a == ER_ARCH_X86_64 ? "x86_64" : a == ER_ARCH_I386 ? "i386" : "unknown";
}

enum er_reason er_source_read(const struct er_source *src, uint64_t page, uint64_t n, void *buf,
			      struct er_error *err)
{
	if (page >= src->pages || n > src->pages - page)
		FAIL(err, ER_R_MAP, "page %llu+%llu is beyond the partition's %llu pages",
		     (unsigned long long)page, (unsigned long long)n, (unsigned long long)src->pages);
	if (src->read(src->ctx, page, n, buf) != 0)
		FAIL(err, ER_R_IO, "reading %llu page(s) at page %llu failed", (unsigned long long)n,
		     (unsigned long long)page);
	return ER_OK;
}

const char *er_comp_name(enum er_comp c)
{
	return c == ER_COMP_LZO ? "lzo" : c == ER_COMP_LZ4 ? "lz4" : "none";
}




/* A uts field (65 bytes, NUL-padded) as printable ASCII: anything else becomes '?'. */
static void copy_uts(char out[65], const uint8_t *p)
{
	size_t i;
	for (i = 0; i < 64 && p[i]; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[i] = 0;
}

static enum er_reason parse_header_page(struct er_image *img, const uint8_t *h, struct er_error *err)
{
	bool is64 = er_le64(h + 24) == ER_RESTORE_MAGIC_64;
	bool is32 = er_le32(h + 12) == ER_RESTORE_MAGIC_32;

	if (is64 == is32)
		FAIL(err, ER_R_MAGIC, "magic at offset 24 is 0x%llx (x86_64 wants 0x%llx), at 12 is 0x%x (i386 wants 0x%x)",
		     (unsigned long long)er_le64(h + 24), (unsigned long long)ER_RESTORE_MAGIC_64,
		     er_le32(h + 12), ER_RESTORE_MAGIC_32);
	/* restore_data_record: five longs from offset 0; swsusp_info after uts (390 bytes,
	 * overwritten by that record on x86): version_code at 392, then num_physpages,
	 * cpus, image_pages, pages, size, each one long apart */
	unsigned w = is64 ? 8 : 4;
	img->arch = is64 ? ER_ARCH_X86_64 : ER_ARCH_I386;
	img->word = w;
	img->jump_address = er_get_word(h + 0 * w, w);
	img->jump_address_phys = er_get_word(h + 1 * w, w);
	img->cr3 = er_get_word(h + 2 * w, w);
	img->magic = er_get_word(h + 3 * w, w);
	img->e820_checksum = er_get_word(h + 4 * w, w);
	img->version_code = er_le32(h + 392);
	img->num_physpages = er_get_word(h + 392 + 1 * w, w);
	img->cpus = er_le32(h + 392 + 2 * w);
	img->image_pages = er_get_word(h + 392 + 3 * w, w);
	img->pages = er_get_word(h + 392 + 4 * w, w);
	img->size = er_get_word(h + 392 + 5 * w, w);
	/* uts.nodename at 65 and uts.release at 130 survive the restore record */
	copy_uts(img->nodename, h + 65);
	copy_uts(img->release, h + 130);

	/* pages = image_pages + nr_meta_pages + 1, nr_meta_pages holding every PFN
	 * (zero pages included, 6.6+), so nr_meta_pages >= ceil(image_pages * word / 4096). */
	uint64_t per_page = ER_PAGE_SIZE / img->word;
	if (img->image_pages == 0 || img->image_pages > (1ull << 40) || img->pages < img->image_pages + 2 ||
	    img->pages > (1ull << 40))
		FAIL(err, ER_R_HEADER, "image_pages %llu, pages %llu", (unsigned long long)img->image_pages,
		     (unsigned long long)img->pages);
	img->nr_meta_pages = img->pages - img->image_pages - 1;
	img->pfn_cap = img->nr_meta_pages * per_page;
	if (img->nr_meta_pages < (img->image_pages + per_page - 1) / per_page)
		FAIL(err, ER_R_HEADER, "%llu meta pages cannot list %llu PFNs", (unsigned long long)img->nr_meta_pages,
		     (unsigned long long)img->image_pages);
	if (img->size != img->pages * ER_PAGE_SIZE && !(img->word == 4 && img->size == (uint32_t)(img->pages * ER_PAGE_SIZE)))
		FAIL(err, ER_R_HEADER, "size %llu is not pages %llu * 4096", (unsigned long long)img->size,
		     (unsigned long long)img->pages);
	if (img->num_physpages == 0 || img->pfn_cap > img->num_physpages + per_page)
		FAIL(err, ER_R_HEADER, "%llu meta pages for %llu physical pages", (unsigned long long)img->nr_meta_pages,
		     (unsigned long long)img->num_physpages);
	/* restore_registers is page aligned up to 6.1 but not in later kernels; its virtual
	 * and physical addresses must agree within the page */
	/* cr3: a page on x86_64; i386 PAE needs only 32-byte alignment (a PDPT) */
	if (img->cr3 & (img->word == 8 ? ER_PAGE_SIZE - 1 : 31) ||
	    (img->jump_address ^ img->jump_address_phys) & (ER_PAGE_SIZE - 1))
		FAIL(err, ER_R_HEADER, "cr3 0x%llx misaligned, or jump address 0x%llx / 0x%llx differ within the page",
		     (unsigned long long)img->cr3, (unsigned long long)img->jump_address,
		     (unsigned long long)img->jump_address_phys);
	return ER_OK;
}

uint64_t er_crypt_stored(uint64_t i)
{
	return i + i / ER_ENC_GROUP;
}

uint64_t er_crypt_tag_pos(uint64_t n, uint64_t g)
{
	uint64_t in_group = n - g * ER_ENC_GROUP;
	return g * (ER_ENC_GROUP + 1) + ER_MIN((uint64_t)ER_ENC_GROUP, in_group);
}

uint64_t er_crypt_stored_total(uint64_t n)
{
	return n + (n + ER_ENC_GROUP - 1) / ER_ENC_GROUP;
}

/* Stream page i of an encrypted stream, read into page (stored at map position `at`),
 * decrypted and authenticated in place; tag_at(g) gives group g's tag page position. */
static enum er_reason crypt_open(struct er_crypt *c, const struct er_source *src, uint64_t i, uint8_t *page,
				 uint64_t tag_swap_page, struct er_error *err)
{
	uint64_t g = i / ER_ENC_GROUP;
	enum er_reason r;

	if (i >= c->n)
		FAIL(err, ER_R_MAP, "stream page %llu beyond the %llu encrypted pages", (unsigned long long)i,
		     (unsigned long long)c->n);
	if (c->tag_group != g + 1) {
		c->tag_group = 0;
		r = er_source_read(src, tag_swap_page, 1, c->tags, err);
		if (r)
			return r;
		c->tag_group = g + 1;
	}
	if (c->feed(c->ctx, i, c->tags + (i % ER_ENC_GROUP) * 16) != 0)
		FAIL(err, ER_R_AUTH, "stream page %llu: out of order", (unsigned long long)i);
	if (page && c->open(c->ctx, i, page, c->tags + (i % ER_ENC_GROUP) * 16) != 0)
		FAIL(err, ER_R_AUTH, "stream page %llu (group %llu): its GCM tag does not match", (unsigned long long)i,
		     (unsigned long long)g);
	return ER_OK;
}

int er_open_pages_run(const struct er_open_pages *o)
{
	for (uint64_t k = 0; k < o->n; k++)
		if (o->crypt->open(o->crypt->ctx, o->first + k, o->pages + k * ER_PAGE_SIZE, o->tags + k * 16) != 0)
			return ER_DEC_E_AUTH;
	return 0;
}

enum er_reason er_image_open(struct er_image *img, const struct er_source *src, uint8_t *page,
			     struct er_error *err)
{
	enum er_reason r;

	if (src->header_page >= src->pages) {
		er_memset(img, 0, sizeof(*img));
		FAIL(err, ER_R_NO_SIGNATURE, "swap header at page %llu, beyond the device (%llu pages)",
		     (unsigned long long)src->header_page, (unsigned long long)src->pages);
	}
	r = er_source_read(src, src->header_page, 1, page, err);
	if (r) {
		er_memset(img, 0, sizeof(*img));
		return r;
	}
	return er_image_open_at(img, src, page, page, NULL, err);
}

enum er_reason er_image_open_at(struct er_image *img, const struct er_source *src, const uint8_t *page0,
				uint8_t *page, struct er_crypt *crypt, struct er_error *err)
{
	enum er_reason r;

	er_memset(img, 0, sizeof(*img));
	if (err) {
		err->reason = ER_OK;
		err->detail[0] = 0;
	}
	if (src->pages < 3)
		FAIL(err, ER_R_NO_SIGNATURE, "the device has only %llu pages", (unsigned long long)src->pages);
	if (src->header_page >= src->pages)
		FAIL(err, ER_R_NO_SIGNATURE, "swap header at page %llu, beyond the device (%llu pages)",
		     (unsigned long long)src->header_page, (unsigned long long)src->pages);
	switch (er_swap_classify(page0)) {
	case ER_SWAP_IMAGE:
		break;
	case ER_SWAP_IMAGE_2004:
		FAIL(err, ER_R_NO_SIGNATURE, "the swap header carries S1SUSPFW1: an image in the 2004 format (image/swsusp2004.h)");
	case ER_SWAP_PLAIN:
		FAIL(err, ER_R_NO_SIGNATURE, "the swap header ends in \"SWAPSPACE2\": swap without an image");
	default:
		FAIL(err, ER_R_NO_SIGNATURE, "the swap header page has no swap signature");
	}

	img->hw_sig = er_le32(page0 + ER_HDR_HW_SIG);
	img->crc32 = er_le32(page0 + ER_HDR_CRC32);
	img->first_map = er_le64(page0 + ER_HDR_IMAGE);
	img->flags = er_le32(page0 + ER_HDR_FLAGS);
	for (unsigned i = 0; i < 10; i++) {
		uint8_t ch = page0[ER_HDR_ORIG_SIG + i];
		img->orig_sig[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	img->orig_sig[10] = 0;

	if (img->flags & ~ER_SF_KNOWN)
		FAIL(err, ER_R_FLAGS, "flags 0x%x has unknown bits 0x%x", img->flags, img->flags & ~ER_SF_KNOWN);
	if ((img->flags & ER_SF_NOCOMPRESS_MODE) && (img->flags & ER_SF_LZ4))
		FAIL(err, ER_R_FLAGS, "flags 0x%x: LZ4 on an uncompressed image", img->flags);
	img->comp = (img->flags & ER_SF_NOCOMPRESS_MODE) ? ER_COMP_NONE
		  : (img->flags & ER_SF_LZ4) ? ER_COMP_LZ4 : ER_COMP_LZO;
	/* the swap signature must be restorable: orig_sig is what swapon will look for */
	if (er_memcmp(page0 + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10) != 0 &&
	    er_memcmp(page0 + ER_HDR_ORIG_SIG, "SWAP-SPACE", 10) != 0)
		FAIL(err, ER_R_HEADER, "orig_sig \"%s\" is not a swap signature", img->orig_sig);
	if (img->first_map == 0 || img->first_map == src->header_page || img->first_map >= src->pages)
		FAIL(err, ER_R_MAP, "first map page %llu outside the partition (%llu pages)",
		     (unsigned long long)img->first_map, (unsigned long long)src->pages);

	/* page0 is not needed after this point: page may be the same buffer */
	r = er_source_read(src, img->first_map, 1, page, err);
	if (r)
		return r;
	img->header_swap_page = er_le64(page);
	if (img->header_swap_page == 0 || img->header_swap_page == src->header_page ||
	    img->header_swap_page >= src->pages)
		FAIL(err, ER_R_MAP, "header page %llu outside the partition", (unsigned long long)img->header_swap_page);
	uint64_t tag_swap_page = 0;
	if (crypt) {
		/* group 0's tag page lies at position min(256, n): in the first map page */
		if (crypt->n == 0)
			FAIL(err, ER_R_MAP, "an encrypted stream of 0 pages");
		tag_swap_page = er_le64(page + 8 * er_crypt_tag_pos(crypt->n, 0));
		if (tag_swap_page == 0 || tag_swap_page == src->header_page || tag_swap_page >= src->pages)
			FAIL(err, ER_R_MAP, "tag page %llu outside the partition", (unsigned long long)tag_swap_page);
		crypt->tag_group = 0;
	}
	r = er_source_read(src, img->header_swap_page, 1, page, err);
	if (r)
		return r;
	if (crypt && (r = crypt_open(crypt, src, 0, page, tag_swap_page, err)))
		return r;
	img->crypt = crypt;
	r = parse_header_page(img, page, err);
	if (r)
		return r;

	/* the longest stream this header allows, hence the map pages it can need */
	uint64_t body = img->pages - 1, stream_max;
	if (img->comp == ER_COMP_NONE)
		stream_max = img->pages;
	else
		stream_max = 1 + (body + ER_CHUNK_PAGES - 1) / ER_CHUNK_PAGES * ER_CHUNK_STORED_PAGES_MAX;
	if (crypt)
		stream_max = er_crypt_stored_total(stream_max);
	if (stream_max > src->pages)
		stream_max = src->pages;
	img->map_pages_max = stream_max / ER_MAP_ENTRIES + 2;
	return ER_OK;
}

enum er_reason er_image_load_map(struct er_image *img, const struct er_source *src, uint8_t *map_buf,
				 uint64_t cap_pages, struct er_error *err)
{
	uint64_t at = img->first_map, n = 0, used = 0;
	bool ended = false;
	enum er_reason r;

	for (;;) {
		if (n >= cap_pages || n >= img->map_pages_max)
			FAIL(err, ER_R_MAP, "map chain longer than %llu pages (a loop?)", (unsigned long long)n);
		if (at == 0 || at >= src->pages)
			FAIL(err, ER_R_MAP, "map page %llu points outside the partition (page %llu)",
			     (unsigned long long)n, (unsigned long long)at);
		uint8_t *mp = map_buf + n * ER_PAGE_SIZE;
		r = er_source_read(src, at, 1, mp, err);
		if (r)
			return r;
		for (unsigned k = 0; k < ER_MAP_ENTRIES; k++) {
			uint64_t e = er_le64(mp + 8 * k);
			if (e == 0) {
				ended = true;
				continue;
			}
			if (ended)
				FAIL(err, ER_R_MAP, "map page %llu entry %u follows an empty entry", (unsigned long long)n, k);
			if (e >= src->pages)
				FAIL(err, ER_R_MAP, "map page %llu entry %u = %llu outside the partition (%llu pages)",
				     (unsigned long long)n, k, (unsigned long long)e, (unsigned long long)src->pages);
			used++;
		}
		n++;
		at = er_le64(mp + 8 * ER_MAP_ENTRIES);
		if (at == 0)
			break;
		if (ended)
			FAIL(err, ER_R_MAP, "map page %llu is not full but the chain goes on", (unsigned long long)n - 1);
	}
	img->map = map_buf;
	img->map_pages = n;
	if (img->crypt) {
		/* the stored stream: exactly n pages and their tag pages */
		if (used != er_crypt_stored_total(img->crypt->n))
			FAIL(err, ER_R_MAP, "the map lists %llu pages; %llu encrypted pages and their tag pages are %llu",
			     (unsigned long long)used, (unsigned long long)img->crypt->n,
			     (unsigned long long)er_crypt_stored_total(img->crypt->n));
		used = img->crypt->n;
	}
	img->stream_pages = used;
	if (used < 2)
		FAIL(err, ER_R_MAP, "the map lists only %llu page(s)", (unsigned long long)used);
	/* each stored page of a compressed stream yields at most one chunk of 32 pages:
	 * this bounds what the header may claim (and what a caller allocates for PFNs)
	 * by what the partition can hold */
	if (img->comp != ER_COMP_NONE && img->pages - 1 > (used - 1) * ER_CHUNK_PAGES)
		FAIL(err, ER_R_MAP, "%llu stored pages cannot hold an image of %llu pages", (unsigned long long)used,
		     (unsigned long long)img->pages);
	if (img->comp == ER_COMP_NONE && used < img->pages)
		FAIL(err, ER_R_MAP, "the map lists %llu pages, the image has %llu", (unsigned long long)used,
		     (unsigned long long)img->pages);
	return ER_OK;
}

/* ------------------------------------------------------------------ streaming */

struct window {
	const struct er_image *img;
	const struct er_source *src;
	uint8_t *io;
	uint64_t cap, start, count;
	uint8_t *tags;      /* encrypted, deferred: the tags of the pages in io (else NULL) */
};

static uint64_t map_pos(const struct er_image *img, uint64_t pos)
{
	return er_le64(img->map + (pos / ER_MAP_ENTRIES) * ER_PAGE_SIZE + (pos % ER_MAP_ENTRIES) * 8);
}

/* where stream page s is stored */
static uint64_t map_entry(const struct er_image *img, uint64_t s)
{
	return map_pos(img, img->crypt ? er_crypt_stored(s) : s);
}

/* Encrypted stream: the pages [first, first+n) just read into p (at window slot at):
 * their tags fed in order, and each opened in place now, or (deferred) its tag kept
 * beside it for whoever opens it with its chunk. */
static enum er_reason window_open(struct window *w, uint64_t first, uint64_t n, uint8_t *p, uint64_t at,
				  struct er_error *err)
{
	struct er_crypt *c = w->img->crypt;
	enum er_reason r;

	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = first + k;
		uint64_t tag_swap_page = map_pos(w->img, er_crypt_tag_pos(c->n, i / ER_ENC_GROUP));
		if ((r = crypt_open(c, w->src, i, w->tags ? NULL : p + k * ER_PAGE_SIZE, tag_swap_page, err)))
			return r;
		if (w->tags)
			er_memcpy(w->tags + (at + k) * 16, c->tags + (i % ER_ENC_GROUP) * 16, 16);
	}
	return ER_OK;
}

/* Deferred: window pages [s, s+n) opened in place now (the boot CPU's share). */
static enum er_reason window_open_now(struct window *w, uint64_t s, uint64_t n, struct er_error *err)
{
	struct er_open_pages o = { w->img->crypt, s, n, w->io + (s - w->start) * ER_PAGE_SIZE,
				   w->tags + (s - w->start) * 16 };
	if (!w->tags || !n)
		return ER_OK;
	if (er_open_pages_run(&o) != 0)
		FAIL(err, ER_R_AUTH, "stream pages %llu..%llu: a GCM tag does not match", (unsigned long long)s,
		     (unsigned long long)(s + n - 1));
	return ER_OK;
}

/* Make stream pages [s, s+n) available; reads ahead as far as the buffer allows,
 * one read per run of consecutive swap pages. */
static enum er_reason window_get(struct window *w, uint64_t s, uint64_t n, const uint8_t **out,
				 struct er_error *err)
{
	const struct er_image *img = w->img;
	enum er_reason r;

	if (n > w->cap || s > img->stream_pages || n > img->stream_pages - s)
		FAIL(err, ER_R_MAP, "the image needs stream pages %llu..%llu, the map lists %llu",
		     (unsigned long long)s, (unsigned long long)(s + n - 1), (unsigned long long)img->stream_pages);
	if (s >= w->start && s + n <= w->start + w->count) {
		*out = w->io + (s - w->start) * ER_PAGE_SIZE;
		return ER_OK;
	}
	uint64_t keep = 0;
	if (s >= w->start && s < w->start + w->count) {
		keep = w->start + w->count - s;
		er_memmove(w->io, w->io + (s - w->start) * ER_PAGE_SIZE, keep * ER_PAGE_SIZE);
		if (w->tags)
			er_memmove(w->tags, w->tags + (s - w->start) * 16, keep * 16);
	}
	w->start = s;
	w->count = keep;
	uint64_t want = ER_MIN(w->cap, img->stream_pages - s);
	while (w->count < want) {
		uint64_t first = s + w->count, dev = map_entry(img, first), run = 1;
		while (w->count + run < want && map_entry(img, first + run) == dev + run)
			run++;
		r = er_source_read(w->src, dev, run, w->io + w->count * ER_PAGE_SIZE, err);
		if (!r && img->crypt)
			r = window_open(w, first, run, w->io + w->count * ER_PAGE_SIZE, w->count, err);
		if (r)
			return r;
		w->count += run;
	}
	*out = w->io;
	return ER_OK;
}

struct body {
	struct er_image *img;
	const struct er_sink *sink;
	uint64_t *pfns;
	uint64_t done;      /* body pages delivered */
	uint64_t total;     /* nr_meta_pages + image_pages */
	uint64_t nonzero;   /* non-zero PFNs listed */
	uint64_t cursor;    /* next PFN index for a data page */
	uint64_t last_pfn;
	bool have_last;
};

static enum er_reason body_page(struct body *b, const uint8_t *p, struct er_error *err)
{
	struct er_image *img = b->img;
	unsigned word = img->word;
	uint64_t end = word == 8 ? ~0ull : 0xffffffffull;
	uint64_t zero_bit = word == 8 ? (1ull << 63) : (1ull << 31);
	uint64_t max_pfn = word == 8 ? (1ull << 40) : (1ull << 24);   /* 52 / 36 physical address bits */

	if (b->done >= b->total)
		FAIL(err, ER_R_COUNTS, "more data than %llu body pages", (unsigned long long)b->total);
	if (b->done < img->nr_meta_pages) {
		for (unsigned k = 0; k < ER_PAGE_SIZE / word; k++) {
			uint64_t v = er_get_word(p + k * word, word);
			if (v == end)
				break;
			bool zero = (v & zero_bit) != 0;
			uint64_t pfn = v & ~zero_bit;
			if (pfn >= max_pfn)
				FAIL(err, ER_R_PFN, "PFN 0x%llx (entry %llu) beyond the physical address space",
				     (unsigned long long)pfn, (unsigned long long)img->nr_pfns);
			if (b->have_last && pfn <= b->last_pfn)
				FAIL(err, ER_R_PFN, "PFN 0x%llx follows 0x%llx: not ascending", (unsigned long long)pfn,
				     (unsigned long long)b->last_pfn);
			if (img->nr_pfns >= img->pfn_cap)
				FAIL(err, ER_R_PFN, "more than %llu PFNs", (unsigned long long)img->pfn_cap);
			b->last_pfn = pfn;
			b->have_last = true;
			b->pfns[img->nr_pfns++] = pfn | (zero ? ER_PFN_ZERO : 0);
			if (zero)
				img->nr_zero++;
			else
				b->nonzero++;
		}
		b->done++;
		if (b->done == img->nr_meta_pages) {
			if (b->nonzero != img->image_pages)
				FAIL(err, ER_R_PFN, "the PFN list names %llu stored pages, the header %llu",
				     (unsigned long long)b->nonzero, (unsigned long long)img->image_pages);
			if (b->sink && b->sink->plan && b->sink->plan(b->sink->ctx, img, b->pfns, img->nr_pfns, err))
				return err ? (err->reason = ER_R_SINK) : ER_R_SINK;
		}
		return ER_OK;
	}
	while (b->cursor < img->nr_pfns && (b->pfns[b->cursor] & ER_PFN_ZERO))
		b->cursor++;
	if (b->cursor >= img->nr_pfns)
		FAIL(err, ER_R_COUNTS, "data page %llu has no PFN", (unsigned long long)(b->done - img->nr_meta_pages));
	if (b->sink && b->sink->page && b->sink->page(b->sink->ctx, b->pfns[b->cursor], p, err))
		return err ? (err->reason = ER_R_SINK) : ER_R_SINK;
	b->cursor++;
	b->done++;
	return ER_OK;
}

/* direct_chunk(): "take the ordinary path" (never a refusal reason) */
#define NOT_DIRECT ER_R_COUNT

static int decompress(enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap, size_t *out_len)
{
	if (comp == ER_COMP_LZO)
		return er_lzo1x_decompress(in, in_len, out, cap, out_len);
	return er_lz4_decompress(in, in_len, out, cap, out_len);
}

int er_dec_run(enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap, size_t *out_len,
	       uint32_t *crc)
{
	*out_len = 0;
	int r = decompress(comp, in, in_len, out, cap, out_len);
	*crc = r == 0 ? er_crc32_le(0, out, *out_len) : 0;
	return r;
}

static const char *dec_strerror(enum er_comp comp, int r)
{
	if (r == ER_DEC_E_AUTH)
		return "a page's GCM tag does not match";
	if (r <= -1000)   /* the parallel engine's own codes (loader/parallel.h) */
		return "not decompressed: a helper CPU failed (see the warning above)";
	return comp == ER_COMP_LZO ? er_lzo_strerror(r) : er_lz4_strerror(r);
}

/* Zero-copy: where the sink wants the next chunk of data pages (k of them from PFN
 * index *idx), or NULL when this chunk must take the ordinary path. */
static uint8_t *direct_dest(struct body *b, const struct er_sink *sink, uint64_t *idx_out, uint64_t *k_out)
{
	struct er_image *img = b->img;
	uint64_t k = ER_MIN((uint64_t)ER_CHUNK_PAGES, b->total - b->done), idx = b->cursor;

	if (!sink || !sink->dest || !sink->commit || b->done < img->nr_meta_pages)
		return NULL;
	while (idx < img->nr_pfns && (b->pfns[idx] & ER_PFN_ZERO))
		idx++;
	if (idx + k > img->nr_pfns)
		return NULL;
	for (uint64_t i = idx; i < idx + k; i++)
		if (b->pfns[i] & ER_PFN_ZERO)
			return NULL;
	*idx_out = idx;
	*k_out = k;
	return sink->dest(sink->ctx, idx, k);
}

static enum er_reason commit_direct(struct body *b, const struct er_sink *sink, uint64_t idx, uint64_t k,
				    struct er_error *err)
{
	if (sink->commit(sink->ctx, idx, k, err))
		return err ? (err->reason = ER_R_SINK) : ER_R_SINK;
	b->cursor = idx + k;
	b->done += k;
	return ER_OK;
}

/* Zero-copy, inline: ER_OK when done, NOT_DIRECT when this chunk must take the
 * ordinary path. */
static enum er_reason direct_chunk(struct body *b, const struct er_sink *sink, const uint8_t *in, size_t in_len,
				   uint32_t *crc, struct er_error *err)
{
	uint64_t idx = 0, k = 0;
	size_t out_len = 0;
	uint8_t *out = direct_dest(b, sink, &idx, &k);

	if (!out)
		return NOT_DIRECT;
	/* a chunk that does not come out as exactly k pages is redone the ordinary way,
	 * which reports what is wrong with it; the frames written meanwhile are the sink's */
	if (decompress(b->img->comp, in, in_len, out, k * ER_PAGE_SIZE, &out_len) != 0 || out_len != k * ER_PAGE_SIZE)
		return NOT_DIRECT;
	if (crc)
		*crc = er_crc32_le(*crc, out, out_len);
	return commit_direct(b, sink, idx, k, err);
}

/* Chunks queued on a decompression engine, in stream order. Their input stays in
 * the read window and their output in the sink's frames until drained. */
struct queued {
	unsigned ticket;
	uint64_t chunk, s, k;
};

struct pipeline {
	const struct er_dec_engine *eng;
	struct queued q[ER_DEC_MAX_JOBS];
	unsigned n;
};

/* What a queued chunk's job reported. */
static enum er_reason check_job(const struct queued *q, enum er_comp comp, int dr, size_t out_len,
				struct er_error *err)
{
	if (dr == ER_DEC_E_AUTH)
		FAIL(err, ER_R_AUTH, "chunk %llu (stream page %llu): %s", (unsigned long long)q->chunk,
		     (unsigned long long)q->s, dec_strerror(comp, dr));
	if (dr != 0)
		FAIL(err, ER_R_DECOMPRESS, "chunk %llu (stream page %llu): %s", (unsigned long long)q->chunk,
		     (unsigned long long)q->s, dec_strerror(comp, dr));
	if (out_len != q->k * ER_PAGE_SIZE)
		FAIL(err, ER_R_DECOMPRESS, "chunk %llu (stream page %llu): decompressed to %llu bytes, the PFN list wants %llu pages",
		     (unsigned long long)q->chunk, (unsigned long long)q->s, (unsigned long long)out_len,
		     (unsigned long long)q->k);
	return ER_OK;
}

/* Wait for every queued chunk, in order, and check each: the CRC pieces join in order.
 * After a failure the rest are only waited for (the engine must be idle on return). */
static enum er_reason drain(struct pipeline *pl, enum er_comp comp, uint32_t *crc, struct er_error *err)
{
	enum er_reason r = ER_OK;
	for (unsigned i = 0; i < pl->n; i++) {
		size_t out_len = 0;
		uint32_t c = 0;
		int dr = pl->eng->wait(pl->eng->ctx, pl->q[i].ticket, &out_len, &c);
		if (!r)
			r = check_job(&pl->q[i], comp, dr, out_len, err);
		if (!r && crc)
			*crc = er_crc32_le_combine(*crc, c, out_len);
	}
	pl->n = 0;
	return r;
}

static bool window_has(const struct window *w, uint64_t s, uint64_t n)
{
	return s >= w->start && n <= w->count && s - w->start <= w->count - n;
}

/* The chunk at stream page s (p: its first page): its compressed length. */
static enum er_reason chunk_len(const struct er_image *img, const uint8_t *p, uint64_t s, uint64_t *cmp_len,
				struct er_error *err)
{
	*cmp_len = er_get_word(p, img->word);
	if (*cmp_len == 0 || *cmp_len > ER_CHUNK_CMP_MAX)
		FAIL(err, ER_R_CHUNK_LEN, "chunk %llu (stream page %llu): length %llu, allowed 1..%u",
		     (unsigned long long)img->chunks, (unsigned long long)s, (unsigned long long)*cmp_len, ER_CHUNK_CMP_MAX);
	return ER_OK;
}

/* The ordinary path: a chunk decompressed into unc and handed over page by page. */
static enum er_reason unc_chunk(struct body *b, const uint8_t *in, size_t in_len, uint64_t s, uint8_t *unc,
				uint32_t *crc, struct er_error *err)
{
	struct er_image *img = b->img;
	size_t unc_len = 0;
	enum er_reason r;
	int dr = decompress(img->comp, in, in_len, unc, ER_CHUNK_BYTES, &unc_len);

	if (dr != 0)
		FAIL(err, ER_R_DECOMPRESS, "chunk %llu (stream page %llu): %s", (unsigned long long)img->chunks,
		     (unsigned long long)s, dec_strerror(img->comp, dr));
	if (unc_len == 0 || unc_len % ER_PAGE_SIZE)
		FAIL(err, ER_R_DECOMPRESS, "chunk %llu (stream page %llu): decompressed to %llu bytes, not whole pages",
		     (unsigned long long)img->chunks, (unsigned long long)s, (unsigned long long)unc_len);
	if (unc_len / ER_PAGE_SIZE > b->total - b->done)
		FAIL(err, ER_R_COUNTS, "chunk %llu holds %llu pages, only %llu remain", (unsigned long long)img->chunks,
		     (unsigned long long)(unc_len / ER_PAGE_SIZE), (unsigned long long)(b->total - b->done));
	if (crc)
		*crc = er_crc32_le(*crc, unc, unc_len);
	for (uint64_t off = 0; off < unc_len; off += ER_PAGE_SIZE) {
		r = body_page(b, unc + off, err);
		if (r)
			return r;
	}
	return ER_OK;
}

/* The compressed body: chunk by chunk, each either queued on the engine (zero-copy
 * data chunks), decompressed into the sink's frames here, or decompressed into unc
 * and handed over page by page. Queued chunks are drained before the read window
 * moves (their input lives there) and before any chunk that is done here (order). */
static enum er_reason stream_compressed(struct er_image *img, struct window *w, struct body *b,
					const struct er_stream_buffers *buf, const struct er_sink *sink,
					uint32_t *crc, struct er_error *err)
{
	struct pipeline pl = { buf->dec, { { 0, 0, 0, 0 } }, 0 };
	uint64_t s = 1;     /* stream page 0 is the header page */
	const uint8_t *p;
	enum er_reason r = ER_OK;

	while (b->done < b->total) {
		uint64_t cmp_len, stored;

		if (pl.n && !window_has(w, s, 1) && (r = drain(&pl, img->comp, crc, err)))
			break;
		/* (deferred decryption: the chunk's first page opened here, for its length) */
		if ((r = window_get(w, s, 1, &p, err)) || (r = window_open_now(w, s, 1, err)) ||
		    (r = chunk_len(img, p, s, &cmp_len, err)))
			break;
		stored = (img->word + cmp_len + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
		if (pl.n && !window_has(w, s, stored) && (r = drain(&pl, img->comp, crc, err)))
			break;
		if ((r = window_get(w, s, stored, &p, err)))
			break;
		/* the rest of the chunk's pages: opened by its job when the engine can, else here */
		struct er_open_pages rest = { img->crypt, s + 1, stored - 1, w->io + (s + 1 - w->start) * ER_PAGE_SIZE,
					      w->tags ? w->tags + (s + 1 - w->start) * 16 : NULL };
		bool job_opens = w->tags && stored > 1 && pl.eng && pl.eng->submit_open;

		/* queued on the engine (asked once: a declined chunk goes the ordinary way) */
		uint64_t idx = 0, k = 0;
		uint8_t *out = pl.eng ? direct_dest(b, sink, &idx, &k) : NULL;
		if (!(out && job_opens) && (r = window_open_now(w, s + 1, stored - 1, err)))
			break;
		if (out) {
			if (pl.n == ER_DEC_MAX_JOBS && (r = drain(&pl, img->comp, crc, err)))
				break;
			struct queued *q = &pl.q[pl.n++];
			if (job_opens)
				q->ticket = pl.eng->submit_open(pl.eng->ctx, &rest, img->comp, p + img->word, (size_t)cmp_len,
								out, k * ER_PAGE_SIZE);
			else
				q->ticket = pl.eng->submit(pl.eng->ctx, img->comp, p + img->word, (size_t)cmp_len, out,
							   k * ER_PAGE_SIZE);
			q->chunk = img->chunks;
			q->s = s;
			q->k = k;
			r = commit_direct(b, sink, idx, k, err);
		} else {
			/* done here, after what is queued */
			if (pl.n && (r = drain(&pl, img->comp, crc, err)))
				break;
			r = pl.eng ? NOT_DIRECT : direct_chunk(b, sink, p + img->word, (size_t)cmp_len, crc, err);
			if (r == NOT_DIRECT)
				r = unc_chunk(b, p + img->word, (size_t)cmp_len, s, buf->unc, crc, err);
		}
		if (r)
			break;
		img->chunks++;
		img->stored_bytes += cmp_len;
		s += stored;
	}
	/* on a refusal too: nothing may still be running when the caller gets control back */
	if (pl.n) {
		struct er_error ignored;
		enum er_reason r2 = drain(&pl, img->comp, crc, r ? &ignored : err);
		if (!r)
			r = r2;
	}
	return r;
}

enum er_reason er_image_stream(struct er_image *img, const struct er_source *src,
			       const struct er_stream_buffers *buf, const struct er_sink *sink,
			       struct er_error *err)
{
	/* pages of compressed chunks opened with their chunk (on the engine's CPUs) when the
	 * caller gave room for their tags */
	struct window w = { img, src, buf->io, buf->io_pages, 0, 0,
			    img->crypt && img->comp != ER_COMP_NONE ? buf->io_tags : NULL };
	struct body b = { img, sink, buf->pfns, 0, img->nr_meta_pages + img->image_pages, 0, 0, 0, false };
	bool crc = (img->flags & ER_SF_CRC32_MODE) != 0;
	uint32_t c = 0;
	enum er_reason r;

	if (!img->map)
		FAIL(err, ER_R_MAP, "the map chain was not loaded");
	if (buf->io_pages < 2 * ER_CHUNK_STORED_PAGES_MAX)
		FAIL(err, ER_R_NOMEM, "read buffer of %llu pages is too small", (unsigned long long)buf->io_pages);
	img->nr_pfns = img->nr_zero = img->chunks = img->stored_bytes = 0;

	if (img->comp == ER_COMP_NONE) {
		uint64_t s = 1;
		const uint8_t *p;
		while (b.done < b.total) {
			r = window_get(&w, s, 1, &p, err);
			if (r)
				return r;
			if (crc)
				c = er_crc32_le(c, p, ER_PAGE_SIZE);
			r = body_page(&b, p, err);
			if (r)
				return r;
			s++;
		}
		img->stored_bytes = b.total * ER_PAGE_SIZE;
	} else {
		r = stream_compressed(img, &w, &b, buf, sink, crc ? &c : NULL, err);
		if (r)
			return r;
	}
	img->crc_body = c;
	if (crc) {
		img->crc_checked = true;
		if (c != img->crc32)
			FAIL(err, ER_R_CRC, "the header records 0x%08x, the data gives 0x%08x", img->crc32, c);
	}
	return ER_OK;
}
