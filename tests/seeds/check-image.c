// SPDX-License-Identifier: GPL-2.0-or-later
/* seeds-check: the writer side of the seeds test, on the host. Reads the image the
 * seeds writer (tests/seeds/writer.c) left on a swap partition with efiresume's own
 * reader (image/swsusp2004.h: er_swsusp2004_open, er_swsusp2004_load_pagedir, er_swsusp2004_stream)
 * and checks what only the writer knows:
 *   - the reader accepts it for ARCH (sanity checks, pagedir, every pbe, the stream)
 *   - page counts, when given
 *   - the test buffer's pages are in the image with the pattern of its seed
 *   - the page at fw_cr3 is the writer's root: i386 PD[768] = 4 MiB page at 0,
 *     present, writable (efiresume's 2-level test); x86_64 PML4[273] (PAGE_OFFSET)
 *     and PML4[0] lead, through saved pages, to a 2 MiB page at 0
 *   - the byte at fw_entry_phys is the entry's first instruction (cli)
 *   - fw_page_offset / fw_entry are those of the writer's direct map
 *
 *   seeds-check ARCH DISK OFFSET SIZE [BUF_PHYS BUF_PAGES SEED [IMAGE_PAGES PD_PAGES]]
 * ARCH x64|ia32; OFFSET/SIZE: the swap partition in DISK, in bytes; numbers in C
 * notation (0x.. or decimal). Exit status 0: all good. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/swsusp2004.h"
#include "tests/seeds/seeds.h"

#define PAGE 4096u

struct fdsrc {
	int fd;
	uint64_t offset;
};

static int fd_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct fdsrc *s = ctx;
	size_t len = count * PAGE, done = 0;
	while (done < len) {
		ssize_t n = pread(s->fd, (char *)buf + done, len - done, (off_t)(s->offset + page * PAGE + done));
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* the stream, kept: PFNs ascending, page contents */
struct keep {
	uint64_t *pfn;
	uint8_t *data;
	uint64_t n, cap;
};

static int k_plan(void *ctx, const struct er_swsusp2004_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct keep *k = ctx;
	(void)img;
	(void)pfns;
	k->cap = n;
	k->pfn = calloc(n, sizeof(uint64_t));
	k->data = malloc(n * PAGE);
	if (!k->pfn || !k->data) {
		snprintf(err->detail, sizeof(err->detail), "out of memory");
		return -1;
	}
	return 0;
}

static int k_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct keep *k = ctx;
	if (k->n >= k->cap) {
		snprintf(err->detail, sizeof(err->detail), "more pages than planned");
		return -1;
	}
	k->pfn[k->n] = pfn;
	memcpy(k->data + k->n * PAGE, data, PAGE);
	k->n++;
	return 0;
}

static const uint8_t *page_of(const struct keep *k, uint64_t pfn)
{
	uint64_t lo = 0, hi = k->n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (k->pfn[mid] < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->pfn[lo] == pfn ? k->data + lo * PAGE : NULL;
}

static int failures;
#define CHECK(cond, ...)                                  \
	do {                                              \
		if (cond) {                               \
			printf("  ok: ");                 \
		} else {                                  \
			printf("  FAILED: ");             \
			failures++;                       \
		}                                         \
		printf(__VA_ARGS__);                      \
		printf("\n");                             \
	} while (0)

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);
	if (!*s || *end) {
		fprintf(stderr, "seeds-check: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 8 && argc != 10) {
		fprintf(stderr, "usage: seeds-check ARCH DISK OFFSET SIZE [BUF_PHYS BUF_PAGES SEED [IMAGE_PAGES PD_PAGES]]\n");
		return 2;
	}
	int x64 = strcmp(argv[1], "x64") == 0;
	if (!x64 && strcmp(argv[1], "ia32") != 0) {
		fprintf(stderr, "seeds-check: ARCH is x64 or ia32\n");
		return 2;
	}
	struct fdsrc fs = { open(argv[2], O_RDONLY), num(argv[3]) };
	if (fs.fd < 0) {
		perror(argv[2]);
		return 2;
	}
	struct er_source src = { &fs, num(argv[4]) / PAGE, fd_read, 0 };
	struct er_swsusp2004_expect exp = { x64 ? ER_ARCH_X86_64 : ER_ARCH_I386, PAGE, 0, 0 };
	struct er_swsusp2004_image img;
	struct er_error err = { 0 };
	static uint8_t page[PAGE];
	uint64_t page_offset = x64 ? (uint64_t)SEEDS_PAGE_OFFSET_X64 : (uint64_t)SEEDS_PAGE_OFFSET_I386;

	printf("seeds-check (%s) %s at %s:\n", argv[1], argv[2], argv[3]);
	enum er_reason r = er_swsusp2004_open(&img, &src, page, &exp, &err);
	CHECK(r == ER_OK, "er_swsusp2004_open: %s%s%s", er_reason_name(r), r ? ": " : "", r ? err.detail : "");
	if (r)
		return 1;
	printf("  image: %s %s %s, orig_sig %s, swsusp_info at page %llu (type %u), %u cpu(s), num_physpages %llu\n",
	       img.sysname, img.release, img.machine, img.orig_sig, (unsigned long long)img.info_page, img.swap_type,
	       img.cpus, (unsigned long long)img.num_physpages);
	printf("  image_pages %llu, pagedir_pages %llu, entry 0x%llx (phys 0x%llx), cr3 0x%llx, PAGE_OFFSET 0x%llx, "
	       "nosave [0x%llx, 0x%llx)\n",
	       (unsigned long long)img.image_pages, (unsigned long long)img.pagedir_pages, (unsigned long long)img.entry,
	       (unsigned long long)img.entry_phys, (unsigned long long)img.cr3, (unsigned long long)img.page_offset,
	       (unsigned long long)img.nosave_begin, (unsigned long long)img.nosave_end);

	uint8_t *pd = malloc(img.pagedir_pages * PAGE);
	r = er_swsusp2004_load_pagedir(&img, &src, pd, img.pagedir_pages, &exp, &err);
	CHECK(r == ER_OK, "er_swsusp2004_load_pagedir: %s%s%s", er_reason_name(r), r ? ": " : "", r ? err.detail : "");
	if (r)
		return 1;
	struct keep keep = { 0 };
	uint64_t n = img.image_pages;
	struct er_swsusp2004_buffers b = { malloc(64 * PAGE), 64, malloc(n * 8), malloc(n * 8) };
	struct er_swsusp2004_sink sink = { &keep, k_plan, k_page };
	r = er_swsusp2004_stream(&img, &src, &b, &sink, &err);
	CHECK(r == ER_OK && keep.n == n, "er_swsusp2004_stream: %s%s%s (%llu pages delivered, %llu reads)", er_reason_name(r),
	      r ? ": " : "", r ? err.detail : "", (unsigned long long)keep.n, (unsigned long long)img.reads);
	if (r)
		return 1;

	CHECK(img.page_offset == page_offset && img.entry == page_offset + img.entry_phys,
	      "fw_page_offset 0x%llx, fw_entry = PAGE_OFFSET + fw_entry_phys", (unsigned long long)img.page_offset);
	CHECK(img.nosave_end == img.nosave_begin + PAGE && !page_of(&keep, img.nosave_begin / PAGE),
	      ".data.nosave is one page, not in the image");
	if (argc == 10) {
		uint64_t want_n = num(argv[8]), want_pd = num(argv[9]);
		CHECK(img.image_pages == want_n && img.pagedir_pages == want_pd,
		      "page counts as the writer reported (%llu pages, %llu pagedir pages)", (unsigned long long)want_n,
		      (unsigned long long)want_pd);
	}

	const uint8_t *ep = page_of(&keep, img.entry_phys / PAGE);
	CHECK(ep && ep[img.entry_phys % PAGE] == 0xfa, "the entry's page is saved and starts with cli");

	const uint8_t *root = page_of(&keep, img.cr3 / PAGE);
	if (!x64) {
		uint32_t e0 = root ? er_le32(root) : 0, e768 = root ? er_le32(root + 768 * 4) : 0;
		CHECK(root && e0 == 0x83 && e768 == 0x83,
		      "cr3: 2-level page directory, PD[0] = PD[768] = 0x83 (4 MiB page at 0, present, writable): 0x%x 0x%x",
		      e0, e768);
	} else {
		uint64_t l4 = root ? er_le64(root + ((page_offset >> 39) & 511) * 8) : 0;
		uint64_t l0 = root ? er_le64(root) : 0;
		const uint8_t *pdpt = (l4 & 1) ? page_of(&keep, (l4 & 0x000ffffffffff000ull) / PAGE) : NULL;
		uint64_t e3 = pdpt ? er_le64(pdpt + ((page_offset >> 30) & 511) * 8) : 0;
		const uint8_t *pdir = (e3 & 1) ? page_of(&keep, (e3 & 0x000ffffffffff000ull) / PAGE) : NULL;
		uint64_t e2 = pdir ? er_le64(pdir) : 0;
		CHECK(root && (l0 & 1) && pdpt && pdir && e2 == 0x83,
		      "cr3: PML4[0] and PML4[273] lead through saved pages to a 2 MiB page at 0 (0x%llx 0x%llx 0x%llx 0x%llx)",
		      (unsigned long long)l0, (unsigned long long)l4, (unsigned long long)e3, (unsigned long long)e2);
	}

	if (argc >= 8) {
		uint64_t phys = num(argv[5]), pages = num(argv[6]), seed = num(argv[7]);
		uint64_t missing = 0, bad = 0;
		for (uint64_t p = 0; p < pages; p++) {
			const uint8_t *d = page_of(&keep, phys / PAGE + p);
			if (!d) {
				missing++;
				continue;
			}
			for (uint64_t i = 0; i < PAGE / 8; i++)
				if (er_le64(d + i * 8) != seeds_pattern(seed, p * (PAGE / 8) + i)) {
					bad++;
					break;
				}
		}
		CHECK(!missing && !bad, "test buffer: %llu pages at 0x%llx, %llu missing, %llu with another content",
		      (unsigned long long)pages, (unsigned long long)phys, (unsigned long long)missing,
		      (unsigned long long)bad);
	}
	free(keep.pfn);
	free(keep.data);
	free(b.io);
	free(b.pfns);
	free(b.swaps);
	free(pd);
	close(fs.fd);
	printf("seeds-check: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
