// SPDX-License-Identifier: GPL-2.0-or-later
/* Reader for the firmware-resumable 2004 swsusp image; see swsusp2004.h and
 * kernel-patch/README. Every field is read through the offsets of the shared
 * structure definitions, so the reader cannot drift from what the patch writes. */
#include "image/swsusp2004.h"
#include "image/refusal.h"


#define ULL(x) ((unsigned long long)(x))
#define O32(f) __builtin_offsetof(struct swsusp_fw_info32, f)
#define O64(f) __builtin_offsetof(struct swsusp_fw_info64, f)
#define OT(f)  __builtin_offsetof(struct swsusp_fw_tail, f)
#define OPB32(f) __builtin_offsetof(struct swsusp_fw_pbe32, f)
#define OPB64(f) __builtin_offsetof(struct swsusp_fw_pbe64, f)

#define MIB2 (1ull << 21)
#define MIB4 (1ull << 22)
#define PAGE_MASK_LOW (ER_PAGE_SIZE - 1ull)



bool er_swsusp2004_signature(const uint8_t *page0)
{
	return er_memcmp(page0 + ER_SWSUSP2004_SIG_OFF, SWSUSP_FW_SIG, 10) == 0;
}

/* printable copy of a fixed-size field, always NUL-terminated (dst has n + 1 bytes) */
static void copy_printable(char *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i < n && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static bool canonical(uint64_t a)
{
	uint64_t top = a >> 47;
	return top == 0 || top == 0x1ffff;
}

/* KERNEL_VERSION(a, b, c) from the start of a release string; false if none */
static bool release_code(const char *s, uint32_t *code)
{
	uint32_t part[3] = { 0, 0, 0 };
	for (unsigned k = 0; k < 3; k++) {
		unsigned digits = 0;
		while (*s >= '0' && *s <= '9') {
			part[k] = part[k] * 10 + (uint32_t)(*s++ - '0');
			if (++digits > 3 || part[k] > 255)
				return false;
		}
		if (!digits)
			return false;
		if (k < 2 && *s++ != '.')
			return false;
	}
	*code = (part[0] << 16) | (part[1] << 8) | part[2];
	return true;
}

static bool machine_fits(enum er_arch arch, const char *m)
{
	if (arch == ER_ARCH_X86_64)
		return er_memcmp(m, "x86_64", 7) == 0;
	/* i386 kernels report the CPU family they run on: i386 .. i686 */
	return m[0] == 'i' && m[1] >= '3' && m[1] <= '6' && m[2] == '8' && m[3] == '6' && m[4] == 0;
}

struct attempt {
	enum er_reason r;
	struct er_error e;
};

/* The swsusp_info page by the page 0 entry for `word`; accepted when it carries the
 * magic and the architecture tag that goes with that word size. */
static enum er_reason try_word(struct er_swsusp2004_image *img, const struct er_source *src, uint64_t entry,
			       unsigned word, uint8_t *page, struct er_error *err)
{
	unsigned type = er_swsusp2004_swp_type(entry, word);
	uint64_t off = er_swsusp2004_swp_offset(entry, word);
	uint32_t want_arch = word == 8 ? SWSUSP_FW_ARCH_X86_64 : SWSUSP_FW_ARCH_I386;
	const uint8_t *tail = page + (word == 8 ? ER_SWSUSP2004_TAIL64 : ER_SWSUSP2004_TAIL32);
	enum er_reason r;

	if (off == 0 || off >= src->pages)
		FAIL(err, ER_R_MAP, "%u-byte swsusp_info entry 0x%llx: offset %llu outside the partition (%llu pages)",
		     word, ULL(entry), ULL(off), ULL(src->pages));
	r = er_source_read(src, off, 1, page, err);
	if (r)
		return r;
	if (er_le32(tail + OT(fw_magic)) != SWSUSP_FW_MAGIC)
		FAIL(err, ER_R_MAGIC, "swsusp_info page %llu: magic 0x%08x at %u, want 0x%08x (a kernel without kernel-patch/?)",
		     ULL(off), er_le32(tail + OT(fw_magic)), (unsigned)(tail - page), (unsigned)SWSUSP_FW_MAGIC);
	if (er_le32(tail + OT(fw_arch)) != want_arch)
		FAIL(err, ER_R_MAGIC, "swsusp_info page %llu: architecture tag %u with %u-byte words", ULL(off),
		     er_le32(tail + OT(fw_arch)), word);
	img->info_page = off;
	img->swap_type = type;
	img->word = word;
	img->pbe_size = 4 * word;
	img->arch = word == 8 ? ER_ARCH_X86_64 : ER_ARCH_I386;
	return ER_OK;
}

static enum er_reason check_info(struct er_swsusp2004_image *img, const struct er_source *src, const uint8_t *h,
				 const struct er_swsusp2004_expect *exp, struct er_error *err)
{
	bool w8 = img->word == 8;
	const uint8_t *tail = h + (w8 ? ER_SWSUSP2004_TAIL64 : ER_SWSUSP2004_TAIL32);
	const uint8_t *slots = h + (w8 ? ER_SWSUSP2004_SLOTS64 : ER_SWSUSP2004_SLOTS32);
	static const char *const uts_name[6] = { "sysname", "nodename", "release", "version", "machine", "domainname" };

	img->fw_version = er_le32(tail + OT(fw_version));
	img->fw_page_size = er_le32(tail + OT(fw_page_size));
	img->entry = er_le64(tail + OT(fw_entry));
	img->entry_phys = er_le64(tail + OT(fw_entry_phys));
	img->cr3 = er_le64(tail + OT(fw_cr3));
	img->page_offset = er_le64(tail + OT(fw_page_offset));
	img->nosave_begin = er_le64(tail + OT(fw_nosave_begin));
	img->nosave_end = er_le64(tail + OT(fw_nosave_end));
	if (w8) {
		img->version_code = er_le32(h + O64(version_code));
		img->num_physpages = er_le64(h + O64(num_physpages));
		img->cpus = er_le32(h + O64(cpus));
		img->image_pages = er_le64(h + O64(image_pages));
		img->pagedir_pages = er_le64(h + O64(pagedir_pages));
		img->suspend_pagedir = er_le64(h + O64(suspend_pagedir));
	} else {
		img->version_code = er_le32(h + O32(version_code));
		img->num_physpages = er_le32(h + O32(num_physpages));
		img->cpus = er_le32(h + O32(cpus));
		img->image_pages = er_le32(h + O32(image_pages));
		img->pagedir_pages = er_le32(h + O32(pagedir_pages));
		img->suspend_pagedir = er_le32(h + O32(suspend_pagedir));
	}
	for (unsigned i = 0; i < SWSUSP_FW_PAGEDIR_SLOTS; i++)
		img->pagedir[i] = er_le32(slots + 4 * i);

	if (img->fw_version != SWSUSP_FW_VERSION)
		FAIL(err, ER_R_MAGIC, "format version %u; this reader knows version %u", img->fw_version,
		     (unsigned)SWSUSP_FW_VERSION);
	if (exp && exp->arch != ER_ARCH_UNKNOWN && exp->arch != img->arch)
		FAIL(err, ER_R_ARCH, "the image was written by an %s kernel; this loader resumes %s",
		     er_arch_name(img->arch), er_arch_name(exp->arch));
	if (img->fw_page_size != ER_PAGE_SIZE)
		FAIL(err, ER_R_HEADER, "page size %u; the format has 4096-byte pages", img->fw_page_size);
	if (exp && exp->page_size && exp->page_size != img->fw_page_size)
		FAIL(err, ER_R_HEADER, "page size: image %u, this machine %u", img->fw_page_size, exp->page_size);

	/* padding the kernel's memset left zero */
	if (!all_zero(h + O32(pad0), 2) || (w8 && (!all_zero(h + O64(pad1), 4) || !all_zero(h + O64(pad2), 4))))
		FAIL(err, ER_R_HEADER, "swsusp_info padding is not zero");
	for (unsigned i = 0; i < 6; i++)
		if (er_strnlen((const char *)h + 65 * i, 65) == 65)
			FAIL(err, ER_R_HEADER, "uts.%s is not terminated", uts_name[i]);
	copy_printable(img->sysname, h + __builtin_offsetof(struct swsusp_fw_uts, sysname), 65);
	copy_printable(img->release, h + __builtin_offsetof(struct swsusp_fw_uts, release), 65);
	copy_printable(img->version, h + __builtin_offsetof(struct swsusp_fw_uts, version), 65);
	copy_printable(img->machine, h + __builtin_offsetof(struct swsusp_fw_uts, machine), 65);

	/* the seeds' sanity_check(), against what the firmware knows */
	if (er_memcmp(img->sysname, "Linux", 6) != 0)
		FAIL(err, ER_R_HEADER, "system type \"%s\", not Linux", img->sysname);
	if (!machine_fits(img->arch, img->machine))
		FAIL(err, ER_R_ARCH, "machine \"%s\" in an %s image", img->machine, er_arch_name(img->arch));
	uint32_t code = 0;
	if (!release_code(img->release, &code) || code != img->version_code)
		FAIL(err, ER_R_HEADER, "kernel version 0x%06x does not match release \"%s\"", img->version_code,
		     img->release);
	if ((int32_t)img->cpus < 1)
		FAIL(err, ER_R_HEADER, "%d CPUs", (int)(int32_t)img->cpus);
	if (exp && exp->cpus && exp->cpus != img->cpus)
		FAIL(err, ER_R_CPUS, "number of cpus: image %u, this machine %u", img->cpus, exp->cpus);
	uint64_t max_pages = w8 ? (1ull << 40) : (1ull << 24);   /* 52 / 36 physical address bits */
	if (img->num_physpages == 0 || img->num_physpages > max_pages)
		FAIL(err, ER_R_HEADER, "num_physpages %llu", ULL(img->num_physpages));
	if (exp && exp->mem_pages && exp->mem_pages != img->num_physpages)
		FAIL(err, ER_R_E820, "memory size: image %llu pages, this machine %llu", ULL(img->num_physpages),
		     ULL(exp->mem_pages));

	/* page counts and the pagedir slots */
	uint64_t need = ER_SWSUSP2004_PD_PAGES(img->image_pages, img->pbe_size);
	if (need > SWSUSP_FW_PAGEDIR_SLOTS)
		FAIL(err, ER_R_HEADER, "%llu image pages need %llu pagedir pages; swsusp_info has %u slots",
		     ULL(img->image_pages), ULL(need), (unsigned)SWSUSP_FW_PAGEDIR_SLOTS);
	if (img->image_pages == 0 || img->image_pages > img->num_physpages)
		FAIL(err, ER_R_HEADER, "image_pages %llu for %llu pages of memory", ULL(img->image_pages),
		     ULL(img->num_physpages));
	if (img->pagedir_pages != need)
		FAIL(err, ER_R_HEADER, "pagedir_pages %llu; %llu image pages need %llu", ULL(img->pagedir_pages),
		     ULL(img->image_pages), ULL(need));
	for (unsigned i = 0; i < SWSUSP_FW_PAGEDIR_SLOTS; i++) {
		uint32_t v = img->pagedir[i];
		if (i >= need) {
			if (v)
				FAIL(err, ER_R_HEADER, "pagedir slot %u = %u beyond pagedir_pages %llu", i, v, ULL(need));
			continue;
		}
		if (v == 0 || v >= src->pages || v == img->info_page)
			FAIL(err, ER_R_MAP, "pagedir slot %u = page %u: outside the partition (%llu pages) or the header",
			     i, v, ULL(src->pages));
		for (unsigned j = 0; j < i; j++)
			if (img->pagedir[j] == v)
				FAIL(err, ER_R_MAP, "pagedir slots %u and %u both name page %u", j, i, v);
	}

	/* what the loader enters the kernel with */
	uint64_t top = img->num_physpages * ER_PAGE_SIZE;
	if (img->page_offset == 0 || (w8 ? (img->page_offset & (MIB2 - 1)) || !canonical(img->page_offset)
				       : (img->page_offset & (MIB4 - 1)) || img->page_offset >= (1ull << 32)))
		FAIL(err, ER_R_HEADER, "PAGE_OFFSET 0x%llx", ULL(img->page_offset));
	if (img->entry_phys >= top || img->cr3 >= top || (img->cr3 & PAGE_MASK_LOW))
		FAIL(err, ER_R_HEADER, "entry 0x%llx or cr3 0x%llx outside memory (0x%llx) or cr3 not page aligned",
		     ULL(img->entry_phys), ULL(img->cr3), ULL(top));
	if (w8 ? !canonical(img->entry) || ((img->entry - img->entry_phys) & (MIB2 - 1))
	       : img->entry != img->page_offset + img->entry_phys || img->entry >= (1ull << 32))
		FAIL(err, ER_R_HEADER, "entry 0x%llx does not map to 0x%llx %s", ULL(img->entry), ULL(img->entry_phys),
		     w8 ? "through 2 MiB pages" : "through PAGE_OFFSET");
	if (img->nosave_begin > img->nosave_end || img->nosave_end > top ||
	    ((img->nosave_begin | img->nosave_end) & PAGE_MASK_LOW))
		FAIL(err, ER_R_HEADER, ".data.nosave [0x%llx, 0x%llx)", ULL(img->nosave_begin), ULL(img->nosave_end));
	if ((img->entry_phys >= img->nosave_begin && img->entry_phys < img->nosave_end) ||
	    (img->cr3 >= img->nosave_begin && img->cr3 < img->nosave_end))
		FAIL(err, ER_R_HEADER, "entry 0x%llx or cr3 0x%llx inside .data.nosave, which the image lacks",
		     ULL(img->entry_phys), ULL(img->cr3));
	if (img->suspend_pagedir < img->page_offset || (img->suspend_pagedir & PAGE_MASK_LOW))
		FAIL(err, ER_R_HEADER, "suspend_pagedir 0x%llx is no page of the direct map", ULL(img->suspend_pagedir));
	return ER_OK;
}

enum er_reason er_swsusp2004_open(struct er_swsusp2004_image *img, const struct er_source *src, uint8_t *page,
			    const struct er_swsusp2004_expect *exp, struct er_error *err)
{
	struct attempt at[2];
	unsigned words[2];
	enum er_reason r;

	er_memset(img, 0, sizeof(*img));
	if (err) {
		err->reason = ER_OK;
		err->detail[0] = 0;
	}
	/* page 0, swsusp_info, a pagedir page, a data page */
	if (src->pages < 4)
		FAIL(err, ER_R_NO_SIGNATURE, "the device has only %llu pages", ULL(src->pages));
	r = er_source_read(src, 0, 1, page, err);
	if (r)
		return r;
	if (!er_swsusp2004_signature(page)) {
		char sig[11];
		copy_printable(sig, page + ER_SWSUSP2004_SIG_OFF, 10);
		FAIL(err, ER_R_NO_SIGNATURE, "page 0 ends in \"%s\", not \"%s\"%s", sig, SWSUSP_FW_SIG,
		     er_memcmp(sig, "S1SUSPEND", 10) == 0 ? " (a stock or modern hibernation image)" : "");
	}
	copy_printable(img->orig_sig, page + ER_SWSUSP2004_ORIG_SIG_OFF, 10);
	if (er_memcmp(page + ER_SWSUSP2004_ORIG_SIG_OFF, "SWAPSPACE2", 10) != 0 &&
	    er_memcmp(page + ER_SWSUSP2004_ORIG_SIG_OFF, "SWAP-SPACE", 10) != 0)
		FAIL(err, ER_R_HEADER, "orig_sig \"%s\" is not a swap signature", img->orig_sig);
	uint64_t e32 = er_le32(page + ER_SWSUSP2004_HDR_ENTRY32), e64 = er_le64(page + ER_SWSUSP2004_HDR_ENTRY64);

	/* the word size is the image's: try the loader's first, then the other one, so
	 * that an image of the other architecture is named as such */
	words[0] = exp && exp->arch == ER_ARCH_X86_64 ? 8 : 4;
	words[1] = 12 - words[0];
	for (unsigned k = 0; k < 2; k++) {
		at[k].e.reason = ER_OK;
		at[k].e.detail[0] = 0;
		at[k].r = try_word(img, src, words[k] == 8 ? e64 : e32, words[k], page, &at[k].e);
		if (at[k].r == ER_R_IO) {
			if (err)
				*err = at[k].e;
			return ER_R_IO;
		}
		if (at[k].r == ER_OK)
			break;
	}
	if (at[0].r && at[1].r) {
		/* a found swsusp_info page without the magic says more than an offset */
		const struct attempt *a = at[0].r != ER_R_MAGIC && at[1].r == ER_R_MAGIC ? &at[1] : &at[0];
		if (err)
			*err = a->e;
		return a->r;
	}
	return check_info(img, src, page, exp, err);
}

enum er_reason er_swsusp2004_load_pagedir(struct er_swsusp2004_image *img, const struct er_source *src, uint8_t *pd_buf,
				    uint64_t cap_pages, const struct er_swsusp2004_expect *exp, struct er_error *err)
{
	uint64_t n = img->pagedir_pages, per_page, k = 0;
	unsigned w = img->word;
	uint64_t top_pfn = img->num_physpages;
	enum er_reason r;

	img->pd = NULL;
	if ((w != 4 && w != 8) || img->pbe_size != 4 * w)
		FAIL(err, ER_R_OTHER, "the image was not opened");
	per_page = ER_PAGE_SIZE / img->pbe_size;
	if (n == 0 || n > SWSUSP_FW_PAGEDIR_SLOTS || cap_pages < n)
		FAIL(err, ER_R_NOMEM, "%llu pagedir pages, buffer of %llu", ULL(n), ULL(cap_pages));
	for (uint64_t i = 0; i < n;) {
		uint64_t run = 1;
		while (i + run < n && img->pagedir[i + run] == img->pagedir[i] + run)
			run++;
		r = er_source_read(src, img->pagedir[i], run, pd_buf + i * ER_PAGE_SIZE, err);
		if (r)
			return r;
		i += run;
	}

	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *pg = pd_buf + i * ER_PAGE_SIZE;
		for (uint64_t j = 0; j < per_page; j++, k++) {
			const uint8_t *p = pg + j * img->pbe_size;
			uint64_t addr = er_get_word(p + (w == 8 ? OPB64(address) : OPB32(address)), w);
			uint64_t orig = er_get_word(p + (w == 8 ? OPB64(orig_address) : OPB32(orig_address)), w);
			uint64_t swap = er_get_word(p + (w == 8 ? OPB64(swap_address) : OPB32(swap_address)), w);
			uint64_t dummy = er_get_word(p + (w == 8 ? OPB64(dummy) : OPB32(dummy)), w);

			if (k >= img->image_pages) {
				if (addr | orig | swap | dummy)
					FAIL(err, ER_R_PFN, "pbe %llu beyond image_pages %llu is not empty", ULL(k),
					     ULL(img->image_pages));
				continue;
			}
			if (dummy)
				FAIL(err, ER_R_PFN, "pbe %llu: padding entry 0x%llx, not 0", ULL(k), ULL(dummy));
			if (orig < img->page_offset || ((orig - img->page_offset) & PAGE_MASK_LOW))
				FAIL(err, ER_R_PFN, "pbe %llu: orig_address 0x%llx is no page of the direct map at 0x%llx",
				     ULL(k), ULL(orig), ULL(img->page_offset));
			uint64_t pfn = (orig - img->page_offset) / ER_PAGE_SIZE;
			if (pfn >= top_pfn)
				FAIL(err, ER_R_PFN, "pbe %llu: PFN 0x%llx beyond the image's %llu pages of memory", ULL(k),
				     ULL(pfn), ULL(top_pfn));
			if (pfn * ER_PAGE_SIZE >= img->nosave_begin && pfn * ER_PAGE_SIZE < img->nosave_end)
				FAIL(err, ER_R_PFN, "pbe %llu: PFN 0x%llx lies in .data.nosave", ULL(k), ULL(pfn));
			if (exp && exp->mem_pages && pfn >= exp->mem_pages)
				FAIL(err, ER_R_PFN_NOT_RAM, "pbe %llu: PFN 0x%llx beyond this machine's %llu pages", ULL(k),
				     ULL(pfn), ULL(exp->mem_pages));
			if (addr < img->page_offset || (addr & PAGE_MASK_LOW))
				FAIL(err, ER_R_PFN, "pbe %llu: address 0x%llx is no page of the direct map", ULL(k), ULL(addr));
			unsigned type = er_swsusp2004_swp_type(swap, w);
			uint64_t off = er_swsusp2004_swp_offset(swap, w);
			if (type != img->swap_type)
				FAIL(err, ER_R_MAP, "pbe %llu: swap entry 0x%llx of type %u, the header's is %u", ULL(k),
				     ULL(swap), type, img->swap_type);
			if (off == 0 || off >= src->pages || off == img->info_page)
				FAIL(err, ER_R_MAP, "pbe %llu: data page %llu outside the partition (%llu pages) or the header",
				     ULL(k), ULL(off), ULL(src->pages));
		}
	}
	img->pd = pd_buf;
	return ER_OK;
}

/* heapsort of (pfn, swap) pairs by pfn */
static void sift(uint64_t *a, uint64_t *b, uint64_t root, uint64_t n)
{
	for (;;) {
		uint64_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		uint64_t t = a[root];
		a[root] = a[c];
		a[c] = t;
		t = b[root];
		b[root] = b[c];
		b[c] = t;
		root = c;
	}
}

static void sort_pairs(uint64_t *a, uint64_t *b, uint64_t n)
{
	for (uint64_t i = n / 2; i-- > 0;)
		sift(a, b, i, n);
	for (uint64_t end = n; end-- > 1;) {
		uint64_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		t = b[0];
		b[0] = b[end];
		b[end] = t;
		sift(a, b, 0, end);
	}
}

static bool contains(const uint64_t *a, uint64_t n, uint64_t v)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == v;
}

enum er_reason er_swsusp2004_stream(struct er_swsusp2004_image *img, const struct er_source *src,
			      const struct er_swsusp2004_buffers *buf, const struct er_swsusp2004_sink *sink,
			      struct er_error *err)
{
	uint64_t n = img->image_pages, per_page = ER_PAGE_SIZE / (img->pbe_size ? img->pbe_size : 1);
	unsigned w = img->word;
	uint64_t *pfns = buf->pfns, *swaps = buf->swaps;
	enum er_reason r;

	img->delivered = img->reads = 0;
	if (!img->pd)
		FAIL(err, ER_R_OTHER, "the pagedir was not loaded");
	if (!buf->io || buf->io_pages == 0 || !pfns || !swaps)
		FAIL(err, ER_R_NOMEM, "no stream buffers");

	img->ascending = true;
	for (uint64_t k = 0, i = 0; k < n; i++) {
		for (uint64_t j = 0; j < per_page && k < n; j++, k++) {
			const uint8_t *p = img->pd + i * ER_PAGE_SIZE + j * img->pbe_size;
			uint64_t orig = er_get_word(p + (w == 8 ? OPB64(orig_address) : OPB32(orig_address)), w);
			uint64_t swap = er_get_word(p + (w == 8 ? OPB64(swap_address) : OPB32(swap_address)), w);
			pfns[k] = (orig - img->page_offset) / ER_PAGE_SIZE;
			swaps[k] = er_swsusp2004_swp_offset(swap, w);
			if (k && pfns[k] <= pfns[k - 1])
				img->ascending = false;
		}
	}
	/* copy_data_pages() walks the zones of each node in PFN order; nodes need not be */
	if (!img->ascending)
		sort_pairs(pfns, swaps, n);
	for (uint64_t k = 1; k < n; k++)
		if (pfns[k] == pfns[k - 1])
			FAIL(err, ER_R_PFN, "PFN 0x%llx is saved twice", ULL(pfns[k]));
	if (!contains(pfns, n, img->entry_phys / ER_PAGE_SIZE))
		FAIL(err, ER_R_HEADER, "the entry routine's page (PFN 0x%llx) is not in the image",
		     ULL(img->entry_phys / ER_PAGE_SIZE));
	if (!contains(pfns, n, img->cr3 / ER_PAGE_SIZE))
		FAIL(err, ER_R_HEADER, "the page at cr3 (PFN 0x%llx) is not in the image", ULL(img->cr3 / ER_PAGE_SIZE));

	if (sink && sink->plan && sink->plan(sink->ctx, img, pfns, n, err))
		return err ? (err->reason = ER_R_SINK) : ER_R_SINK;

	for (uint64_t k = 0; k < n;) {
		uint64_t run = 1;
		while (k + run < n && run < buf->io_pages && swaps[k + run] == swaps[k] + run)
			run++;
		r = er_source_read(src, swaps[k], run, buf->io, err);
		if (r)
			return r;
		img->reads++;
		for (uint64_t j = 0; j < run; j++) {
			if (sink && sink->page && sink->page(sink->ctx, pfns[k + j], buf->io + j * ER_PAGE_SIZE, err))
				return err ? (err->reason = ER_R_SINK) : ER_R_SINK;
			img->delivered++;
		}
		k += run;
	}
	return ER_OK;
}
