// SPDX-License-Identifier: GPL-2.0-or-later
/* Reader for the 2004 swsusp image (the seeds' "Merge pmdisk and swsusp" format,
 * Linux 2.6.8/2.6.9) as written by a kernel with kernel-patch/ applied: the
 * firmware-resumable variant, format version 1. i386 (4-byte words, 16-byte pbe)
 * and x86_64 (8-byte words, 32-byte pbe).
 *
 * On the swap device:
 *   page 0             struct swsusp_header (mark_swapfiles): ..., swp_entry_t of the
 *                      swsusp_info page, orig_sig, sig = SWSUSP_FW_SIG
 *   swsusp_info page   sanity fields, pagedir_pages, pagedir[768] (swap offsets of the
 *                      pagedir pages), the fw tail (entry, cr3, PAGE_OFFSET, ...)
 *   pagedir pages      arrays of struct pbe; pbe k names image page k: orig_address
 *                      (kernel direct-map address: PFN = (orig - PAGE_OFFSET) / 4096)
 *                      and swap_address (swp_entry_t of the data page)
 *   data pages         one per pbe, uncompressed, no checksum
 * swp_entry_t is the arch-independent encoding of linux/swapops.h: type in the top
 * SWSUSP_FW_TYPE_BITS bits of the word, offset (in pages) below it.
 *
 * Use, like image/reader.h:
 *   er_swsusp2004_open()          page 0 + the swsusp_info page, checked against what the
 *                           caller knows of the machine (the seeds' sanity_check())
 *   er_swsusp2004_load_pagedir()  every pagedir page into a caller buffer, each pbe checked
 *   er_swsusp2004_stream()        data pages in ascending PFN order, through a sink
 * Pure and freestanding (image/freestanding.h only), no allocation, no mutable globals. */
#ifndef EFIRESUME_IMAGE_SWSUSP2004_H
#define EFIRESUME_IMAGE_SWSUSP2004_H

#include "image/freestanding.h"
#include "image/reader.h"

/* The on-disk layout. The text between the two marker lines is, byte for byte, the
 * text kernel-patch/ adds to kernel/power/power.h; tests/unit/test_swsusp2004.c
 * fails when the two differ. Kernel side, uint32_t/uint64_t/int32_t come from
 * linux/types.h; here from <stdint.h>. */
/* >>> swsusp-fw layout v1 >>> */
/*
 * The firmware-resumable swsusp image, format version 1.
 *
 * An i386 kernel (unsigned long = 4 bytes) writes the "32" structures, an
 * x86_64 kernel the "64" ones. Fixed-width types only: a firmware loader
 * compiles this same text (see kernel-patch/README in efiresume).
 *
 * swp_entry_t on disk is the arch-independent value of linux/swapops.h:
 * type << (bits per long - SWSUSP_FW_TYPE_BITS) | offset.
 */
#define SWSUSP_FW_SIG		"S1SUSPFW1"	/* swsusp_header.sig: 9 chars + NUL */
#define SWSUSP_FW_MAGIC		0x31574653	/* fw_magic: "SFW1" little-endian */
#define SWSUSP_FW_VERSION	1
#define SWSUSP_FW_ARCH_I386	1
#define SWSUSP_FW_ARCH_X86_64	2
#define SWSUSP_FW_PAGEDIR_SLOTS	768		/* pagedir pages an image may have */
#define SWSUSP_FW_TYPE_BITS	5		/* MAX_SWAPFILES_SHIFT */

/* struct new_utsname */
struct swsusp_fw_uts {
	char		sysname[65];
	char		nodename[65];
	char		release[65];
	char		version[65];
	char		machine[65];
	char		domainname[65];
};

/* What a loader needs to enter the kernel; the end of swsusp_info. */
struct swsusp_fw_tail {
	uint32_t	fw_magic;		/* SWSUSP_FW_MAGIC */
	uint32_t	fw_version;		/* SWSUSP_FW_VERSION */
	uint32_t	fw_arch;		/* SWSUSP_FW_ARCH_* */
	uint32_t	fw_page_size;		/* PAGE_SIZE */
	uint64_t	fw_entry;		/* virtual address of swsusp_fw_resume */
	uint64_t	fw_entry_phys;		/* its physical address */
	uint64_t	fw_cr3;			/* page-table root it loads (physical) */
	uint64_t	fw_page_offset;		/* PAGE_OFFSET */
	uint64_t	fw_nosave_begin;	/* .data.nosave, physical [begin, end): */
	uint64_t	fw_nosave_end;		/*   in no pbe, zeroed by swsusp_fw_restore */
};

/* swsusp_info as an i386 kernel writes it: one page */
struct swsusp_fw_info32 {
	struct swsusp_fw_uts	uts;		/*    0 */
	char		pad0[2];		/*  390 */
	uint32_t	version_code;		/*  392: LINUX_VERSION_CODE */
	uint32_t	num_physpages;		/*  396 */
	int32_t		cpus;			/*  400: num_online_cpus() */
	uint32_t	image_pages;		/*  404: nr_copy_pages = pbes */
	uint32_t	pagedir_pages;		/*  408: SUSPEND_PD_PAGES(image_pages) */
	uint32_t	suspend_pagedir;	/*  412: pagedir_nosave (kernel address) */
	uint32_t	pagedir[SWSUSP_FW_PAGEDIR_SLOTS]; /* 416: swap offsets */
	struct swsusp_fw_tail	fw;		/* 3488 */
} __attribute__((aligned(4096)));

/* swsusp_info as an x86_64 kernel writes it: one page */
struct swsusp_fw_info64 {
	struct swsusp_fw_uts	uts;		/*    0 */
	char		pad0[2];		/*  390 */
	uint32_t	version_code;		/*  392 */
	char		pad1[4];		/*  396 */
	uint64_t	num_physpages;		/*  400 */
	int32_t		cpus;			/*  408 */
	char		pad2[4];		/*  412 */
	uint64_t	image_pages;		/*  416 */
	uint64_t	pagedir_pages;		/*  424 */
	uint64_t	suspend_pagedir;	/*  432 */
	uint32_t	pagedir[SWSUSP_FW_PAGEDIR_SLOTS]; /* 440: swap offsets */
	struct swsusp_fw_tail	fw;		/* 3512 */
} __attribute__((aligned(4096)));

/* struct pbe (include/linux/suspend.h): 16 bytes on i386 */
struct swsusp_fw_pbe32 {
	uint32_t	address;		/* the copy (kernel address) */
	uint32_t	orig_address;		/* the page (kernel address) */
	uint32_t	swap_address;		/* swp_entry_t of its data page */
	uint32_t	dummy;			/* the padding entry: 0 */
};

/* struct pbe: 32 bytes on x86_64 */
struct swsusp_fw_pbe64 {
	uint64_t	address;
	uint64_t	orig_address;
	uint64_t	swap_address;
	uint64_t	dummy;
};

/* struct swsusp_header (kernel/power/swsusp.c): page 0 of the swap device */
struct swsusp_fw_header32 {
	char		reserved[4096 - 20 - 4];
	uint32_t	swsusp_info;		/* 4072: swp_entry_t of swsusp_info */
	char		orig_sig[10];		/* 4076 */
	char		sig[10];		/* 4086 */
} __attribute__((packed));

struct swsusp_fw_header64 {
	char		reserved[4096 - 20 - 8];
	uint64_t	swsusp_info;		/* 4068 */
	char		orig_sig[10];		/* 4076 */
	char		sig[10];		/* 4086 */
} __attribute__((packed));
/* <<< swsusp-fw layout v1 <<< */

/* The layout as the reader uses it (tests/unit/test_swsusp2004.c also checks these
 * with offsetof; _Static_assert keeps the header honest in every build, -m32 too). */
#define ER_SWSUSP2004_SIG_OFF        4086u
#define ER_SWSUSP2004_ORIG_SIG_OFF   4076u
#define ER_SWSUSP2004_HDR_ENTRY32    4072u
#define ER_SWSUSP2004_HDR_ENTRY64    4068u
#define ER_SWSUSP2004_TAIL32         3488u
#define ER_SWSUSP2004_TAIL64         3512u
#define ER_SWSUSP2004_SLOTS32        416u
#define ER_SWSUSP2004_SLOTS64        440u
_Static_assert(sizeof(struct swsusp_fw_uts) == 390, "uts");
_Static_assert(sizeof(struct swsusp_fw_tail) == 64, "tail");
_Static_assert(__builtin_offsetof(struct swsusp_fw_info32, pagedir) == ER_SWSUSP2004_SLOTS32, "info32");
_Static_assert(__builtin_offsetof(struct swsusp_fw_info32, fw) == ER_SWSUSP2004_TAIL32, "info32");
_Static_assert(__builtin_offsetof(struct swsusp_fw_info64, pagedir) == ER_SWSUSP2004_SLOTS64, "info64");
_Static_assert(__builtin_offsetof(struct swsusp_fw_info64, fw) == ER_SWSUSP2004_TAIL64, "info64");
_Static_assert(__builtin_offsetof(struct swsusp_fw_info64, num_physpages) == 400, "info64");
_Static_assert(sizeof(struct swsusp_fw_info32) == 4096 && sizeof(struct swsusp_fw_info64) == 4096, "one page");
_Static_assert(sizeof(struct swsusp_fw_pbe32) == 16 && sizeof(struct swsusp_fw_pbe64) == 32, "pbe");
_Static_assert(sizeof(struct swsusp_fw_header32) == 4096 && sizeof(struct swsusp_fw_header64) == 4096, "header");
_Static_assert(__builtin_offsetof(struct swsusp_fw_header32, swsusp_info) == ER_SWSUSP2004_HDR_ENTRY32, "header32");
_Static_assert(__builtin_offsetof(struct swsusp_fw_header64, swsusp_info) == ER_SWSUSP2004_HDR_ENTRY64, "header64");
_Static_assert(__builtin_offsetof(struct swsusp_fw_header64, sig) == ER_SWSUSP2004_SIG_OFF, "header64");

/* SUSPEND_PD_PAGES() of include/linux/suspend.h: pagedir pages for n pbes */
#define ER_SWSUSP2004_PD_PAGES(n, pbe_size) ((uint64_t)(n) * (pbe_size) / ER_PAGE_SIZE + 1)

/* swp_entry_t of linux/swapops.h for a word of `word` bytes */
static inline unsigned er_swsusp2004_swp_type(uint64_t e, unsigned word)
{
	return (unsigned)(e >> (word * 8 - SWSUSP_FW_TYPE_BITS)) & ((1u << SWSUSP_FW_TYPE_BITS) - 1);
}
static inline uint64_t er_swsusp2004_swp_offset(uint64_t e, unsigned word)
{
	return e & ((1ull << (word * 8 - SWSUSP_FW_TYPE_BITS)) - 1);
}
static inline uint64_t er_swsusp2004_swp_entry(unsigned type, uint64_t offset, unsigned word)
{
	return ((uint64_t)type << (word * 8 - SWSUSP_FW_TYPE_BITS)) | er_swsusp2004_swp_offset(offset, word);
}

/* What the loader knows of this machine: the seeds' sanity_check() compares the image
 * with the running kernel; the firmware compares it with these. */
struct er_swsusp2004_expect {
	enum er_arch arch;     /* the loader's; ER_ARCH_UNKNOWN accepts either (tools) */
	uint32_t page_size;    /* 4096; 0: not checked */
	uint64_t mem_pages;    /* num_physpages the kernel would compute here (highest RAM
	                        * PFN + 1 from the memory map); 0: not checked */
	uint32_t cpus;         /* processors the firmware reports; 0: not checked */
};

struct er_swsusp2004_image {
	/* page 0 */
	char orig_sig[11];
	uint64_t info_page;             /* swap offset of the swsusp_info page */
	unsigned swap_type;             /* type of every swp_entry_t: the resume device */
	/* swsusp_info */
	enum er_arch arch;
	unsigned word;                  /* 4 or 8 */
	unsigned pbe_size;              /* 16 or 32 */
	uint32_t version_code;
	char sysname[66], release[66], version[66], machine[66];
	uint64_t num_physpages, image_pages, pagedir_pages, suspend_pagedir;
	uint32_t cpus;
	uint32_t fw_version, fw_page_size;
	uint64_t entry, entry_phys, cr3, page_offset, nosave_begin, nosave_end;
	uint32_t pagedir[SWSUSP_FW_PAGEDIR_SLOTS];
	/* er_swsusp2004_load_pagedir */
	const uint8_t *pd;              /* pagedir_pages pages, as read */
	/* er_swsusp2004_stream */
	uint64_t delivered;             /* data pages handed to the sink */
	uint64_t reads;                 /* device reads for them */
	bool ascending;                 /* the pbes were already in ascending PFN order */
};

/* Page 0 carries SWSUSP_FW_SIG (for a loader choosing between readers). */
bool er_swsusp2004_signature(const uint8_t *page0);

/* Page 0 and the swsusp_info page; page_buf: one 4096-byte scratch page. */
enum er_reason er_swsusp2004_open(struct er_swsusp2004_image *img, const struct er_source *src, uint8_t *page_buf,
			    const struct er_swsusp2004_expect *exp, struct er_error *err);

/* The pagedir pages into pd_buf (cap_pages pages; img->pagedir_pages are needed),
 * every pbe checked: PFN in the image's memory, outside .data.nosave, below
 * exp->mem_pages when given, data page inside the partition, padding entry 0, the
 * unused tail of the last pagedir pages empty. */
enum er_reason er_swsusp2004_load_pagedir(struct er_swsusp2004_image *img, const struct er_source *src, uint8_t *pd_buf,
				    uint64_t cap_pages, const struct er_swsusp2004_expect *exp, struct er_error *err);

/* Receives the data pages. plan() sees every PFN, ascending, before the first page();
 * page() then gets each page with its PFN in that order. A non-zero return stops the
 * stream with ER_R_SINK (put the reason in err->detail). */
struct er_swsusp2004_sink {
	void *ctx;
	int (*plan)(void *ctx, const struct er_swsusp2004_image *img, const uint64_t *pfns, uint64_t n,
		    struct er_error *err);
	int (*page)(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err);
};

/* Caller-owned buffers for er_swsusp2004_stream:
 *   io:    io_pages (>= 1) pages of read buffer; runs of consecutive swap pages are
 *          read together up to this size
 *   pfns:  img->image_pages entries (handed to plan(), sorted)
 *   swaps: img->image_pages entries (the data pages' swap offsets, scratch) */
struct er_swsusp2004_buffers {
	uint8_t *io;
	uint64_t io_pages;
	uint64_t *pfns;
	uint64_t *swaps;
};

/* After er_swsusp2004_load_pagedir: sorts the pbes by PFN (refusing a PFN named twice and
 * an image without the entry routine's or cr3's page), then streams. */
enum er_reason er_swsusp2004_stream(struct er_swsusp2004_image *img, const struct er_source *src,
			      const struct er_swsusp2004_buffers *buf, const struct er_swsusp2004_sink *sink,
			      struct er_error *err);

#endif
