// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for image/swsusp2004.c (the firmware-resumable 2004 swsusp image).
 *
 * Input byte 0 selects the mode:
 *  bit 0 = 0: raw. The rest of the input is the swap device (zero-padded to whole
 *        pages, at most 48 pages), read as it is.
 *  bit 0 = 1: mutated. A valid image is built first (bytes 1..3: word size, pages,
 *        swap type, order of the pbes), then every following 4 bytes patch it:
 *        u16 position (scaled over the device), u8 value, u8 how (set / xor).
 *        This reaches the pagedir and stream checks that raw bytes rarely do.
 *  bits 1..2: the loader's architecture (i386, x86_64, either); bits 3..4: io_pages.
 * Every buffer is an exact heap allocation so that ASan sees any overrun. Checked:
 * an accepted image keeps the format's invariants, the sink sees every PFN once,
 * ascending, below num_physpages, and gets exactly image_pages pages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/swsusp2004.h"

#define PAGE 4096u
#define MAX_PAGES 48u

struct dev {
	uint8_t *data;
	uint64_t pages;
};

static int dev_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct dev *d = ctx;
	if (page >= d->pages || count > d->pages - page)
		abort();   /* the reader bounds-checks before reading */
	memcpy(buf, d->data + page * PAGE, count * PAGE);
	return 0;
}

struct seen {
	const struct er_swsusp2004_image *img;
	uint64_t planned, got, last;
	const uint64_t *pfns;
};

static int s_plan(void *ctx, const struct er_swsusp2004_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct seen *s = ctx;
	(void)err;
	if (n != img->image_pages)
		abort();
	for (uint64_t k = 0; k < n; k++)
		if (pfns[k] >= img->num_physpages || (k && pfns[k] <= pfns[k - 1]))
			abort();
	s->planned = n;
	s->pfns = pfns;
	return 0;
}

static int s_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct seen *s = ctx;
	(void)err;
	if (s->got >= s->planned || pfn != s->pfns[s->got])
		abort();
	volatile uint8_t x = data[0] ^ data[PAGE - 1];   /* the whole page is readable */
	(void)x;
	s->got++;
	return 0;
}

static void put_word(uint8_t *p, unsigned word, uint64_t v)
{
	if (word == 8)
		er_put_le64(p, v);
	else
		er_put_le32(p, (uint32_t)v);
}

/* A small valid image: data pages 1..n, then the pagedir, then swsusp_info. */
static uint64_t build(uint8_t *dev, const uint8_t *cfg)
{
	unsigned word = (cfg[0] & 1) ? 8 : 4, pbe = 4 * word;
	uint64_t n = 2 + cfg[1] % 36;             /* image pages, >= 2: entry and cr3 */
	unsigned type = cfg[2] % 32;
	bool reverse = cfg[0] & 2;
	uint64_t pd_pages = ER_SWSUSP2004_PD_PAGES(n, pbe), info = 1 + n + pd_pages;
	uint64_t po = word == 8 ? 0x0000010000000000ull : 0xc0000000ull, phys = n + 10;

	memset(dev, 0, (info + 1) * PAGE);
	memcpy(dev + 4076, "SWAPSPACE2", 10);
	memcpy(dev + 4086, SWSUSP_FW_SIG, 10);
	put_word(dev + (word == 8 ? ER_SWSUSP2004_HDR_ENTRY64 : ER_SWSUSP2004_HDR_ENTRY32), word, er_swsusp2004_swp_entry(type, info, word));
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pfn = reverse ? n - k : k + 1;
		uint8_t *p = dev + (1 + n) * PAGE + k * pbe;
		memset(dev + (1 + k) * PAGE, (int)pfn, PAGE);
		put_word(p, word, po + (phys + k) * PAGE);
		put_word(p + word, word, po + pfn * PAGE);
		put_word(p + 2 * word, word, er_swsusp2004_swp_entry(type, 1 + k, word));
	}
	uint8_t *h = dev + info * PAGE;
	memcpy(h, "Linux", 6);
	memcpy(h + 130, "2.6.9", 6);
	memcpy(h + 260, word == 8 ? "x86_64" : "i586\0\0", 7);
	er_put_le32(h + 392, 0x020609);
	if (word == 8) {
		er_put_le64(h + offsetof(struct swsusp_fw_info64, num_physpages), phys + n);
		er_put_le32(h + offsetof(struct swsusp_fw_info64, cpus), 1);
		er_put_le64(h + offsetof(struct swsusp_fw_info64, image_pages), n);
		er_put_le64(h + offsetof(struct swsusp_fw_info64, pagedir_pages), pd_pages);
		er_put_le64(h + offsetof(struct swsusp_fw_info64, suspend_pagedir), po);
	} else {
		er_put_le32(h + offsetof(struct swsusp_fw_info32, num_physpages), (uint32_t)(phys + n));
		er_put_le32(h + offsetof(struct swsusp_fw_info32, cpus), 1);
		er_put_le32(h + offsetof(struct swsusp_fw_info32, image_pages), (uint32_t)n);
		er_put_le32(h + offsetof(struct swsusp_fw_info32, pagedir_pages), (uint32_t)pd_pages);
		er_put_le32(h + offsetof(struct swsusp_fw_info32, suspend_pagedir), (uint32_t)po);
	}
	uint8_t *slots = h + (word == 8 ? ER_SWSUSP2004_SLOTS64 : ER_SWSUSP2004_SLOTS32);
	for (uint64_t i = 0; i < pd_pages; i++)
		er_put_le32(slots + 4 * i, (uint32_t)(1 + n + i));
	uint8_t *t = h + (word == 8 ? ER_SWSUSP2004_TAIL64 : ER_SWSUSP2004_TAIL32);
	er_put_le32(t + offsetof(struct swsusp_fw_tail, fw_magic), SWSUSP_FW_MAGIC);
	er_put_le32(t + offsetof(struct swsusp_fw_tail, fw_version), SWSUSP_FW_VERSION);
	er_put_le32(t + offsetof(struct swsusp_fw_tail, fw_arch), word == 8 ? SWSUSP_FW_ARCH_X86_64 : SWSUSP_FW_ARCH_I386);
	er_put_le32(t + offsetof(struct swsusp_fw_tail, fw_page_size), PAGE);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_entry), (word == 8 ? 0xffffffff80000000ull : po) + PAGE + 0x40);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_entry_phys), PAGE + 0x40);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_cr3), 2 * PAGE);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_page_offset), po);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_nosave_begin), (n + 2) * PAGE);
	er_put_le64(t + offsetof(struct swsusp_fw_tail, fw_nosave_end), (n + 3) * PAGE);
	return info + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	uint8_t mode = data[0];
	static const enum er_arch arches[4] = { ER_ARCH_I386, ER_ARCH_X86_64, ER_ARCH_UNKNOWN, ER_ARCH_I386 };
	struct er_swsusp2004_expect exp = { arches[(mode >> 1) & 3], PAGE, 0, 0 };
	uint64_t io_pages = 1 + ((mode >> 3) & 3) * 3;
	struct dev d;

	if (!(mode & 1)) {
		size_t body = size - 1;
		d.pages = (body + PAGE - 1) / PAGE;
		if (d.pages > MAX_PAGES)
			return 0;
		d.data = calloc(d.pages ? d.pages : 1, PAGE);
		memcpy(d.data, data + 1, body);
	} else {
		d.data = malloc(MAX_PAGES * PAGE);
		d.pages = build(d.data, data + 1);
		for (size_t i = 4; i + 4 <= size; i += 4) {
			uint64_t pos = (((uint64_t)data[i] << 8) | data[i + 1]) * (d.pages * PAGE) / 65536;
			if (data[i + 3] & 1)
				d.data[pos] ^= data[i + 2];
			else
				d.data[pos] = data[i + 2];
		}
		/* trim to the exact size so ASan sees reads past the device */
		uint8_t *exact = malloc(d.pages * PAGE);
		memcpy(exact, d.data, d.pages * PAGE);
		free(d.data);
		d.data = exact;
	}

	struct er_source src = { &d, d.pages, dev_read, 0 };
	struct er_swsusp2004_image img;
	struct er_error err;
	uint8_t *page = malloc(PAGE);
	enum er_reason r = er_swsusp2004_open(&img, &src, page, &exp, &err);
	if (r == ER_OK) {
		if ((img.word != 4 && img.word != 8) || img.pbe_size != 4 * img.word || img.pagedir_pages == 0 ||
		    img.pagedir_pages > SWSUSP_FW_PAGEDIR_SLOTS || img.image_pages == 0 ||
		    img.image_pages > img.num_physpages || img.info_page == 0 || img.info_page >= d.pages ||
		    (exp.arch != ER_ARCH_UNKNOWN && img.arch != exp.arch))
			abort();
		uint8_t *pd = malloc(img.pagedir_pages * PAGE);
		r = er_swsusp2004_load_pagedir(&img, &src, pd, img.pagedir_pages, &exp, &err);
		if (r == ER_OK) {
			struct er_swsusp2004_buffers b = { malloc(io_pages * PAGE), io_pages, malloc(img.image_pages * 8),
						     malloc(img.image_pages * 8) };
			struct seen s = { &img, 0, 0, 0, NULL };
			struct er_swsusp2004_sink sink = { &s, s_plan, s_page };
			r = er_swsusp2004_stream(&img, &src, &b, &sink, &err);
			if (r == ER_OK && (s.got != img.image_pages || img.delivered != img.image_pages))
				abort();
			if (r != ER_OK && err.reason != r)
				abort();
			free(b.io);
			free(b.pfns);
			free(b.swaps);
		} else if (err.reason != r) {
			abort();
		}
		free(pd);
	} else if (err.reason != r || r >= ER_R_COUNT) {
		abort();
	}
	free(page);
	free(d.data);
	return 0;
}
