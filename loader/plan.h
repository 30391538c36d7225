// SPDX-License-Identifier: GPL-2.0-or-later
/* Plan and load: where each page of the image goes.
 *
 * Every frame the image names (data pages and all-zero pages) is claimed with
 * AllocatePages(AllocateAddress) where the firmware has it free: those pages are
 * written straight into their frame. Frames the firmware or efiresume occupy get a
 * bounce frame; the restore routine copies those after ExitBootServices. Bounce
 * frames, the bounce list, page tables and the restore routine live in "safe" pages:
 * frames that are in no PFN of the image. Nothing here is visible to anyone until
 * the hand-off: a refused image is undone with er_plan_undo().
 *
 * Pure logic, built into the loader and for the host (tests/unit/test_plan.c): the
 * firmware's memory operations come in through struct er_plan_mem (loader/planmem.c in
 * the loader, a fake allocator in the tests). */
#ifndef EFIRESUME_LOADER_PLAN_H
#define EFIRESUME_LOADER_PLAN_H

#include "image/freestanding.h"
#include "image/reader.h"

/* What the plan needs from the firmware. Statuses: 0 on success, otherwise the
 * backend's own code (in the loader the firmware's EFI_STATUS), handed back unchanged
 * by er_plan_safe_pages. */
struct er_plan_mem {
	void *ctx;
	/* The current memory map as GetMemoryMap returns it: *size bytes of descriptors
	 * *desc_size apart (EFI_MEMORY_DESCRIPTOR layout: type u32 at 0, PhysicalStart at
	 * 8, NumberOfPages at 24, Attribute at 32). Logs its own failure. put_map releases
	 * what get_map returned. */
	uintptr_t (*get_map)(void *ctx, const uint8_t **buf, size_t *size, size_t *desc_size);
	void (*put_map)(void *ctx, const uint8_t *buf);
	/* AllocatePages(AllocateAddress, EfiLoaderData): quiet, failure is expected */
	uintptr_t (*alloc_at)(void *ctx, uint64_t addr, uint64_t pages);
	/* AllocatePages(AllocateAnyPages, code ? EfiLoaderCode : EfiLoaderData) */
	uintptr_t (*alloc_any)(void *ctx, uint64_t pages, bool code, uint64_t *addr);
	void (*free_pages)(void *ctx, uint64_t addr, uint64_t pages);
	/* pool memory for the plan's own arrays; logs its own failure (*out = NULL) */
	uintptr_t (*pool_alloc)(void *ctx, size_t size, void **out);
	void (*pool_free)(void *ctx, void *p);
	/* where the CPU reaches len bytes at physical address addr (the identity in the
	 * loader); only ever asked for pages the plan holds */
	void *(*ptr)(void *ctx, uint64_t addr, uint64_t len);
	/* microseconds, for the plan's timing (may be NULL) */
	uint64_t (*now_us)(void *ctx);
	/* the first physical address the loader cannot reach (ia32 runs without paging:
	 * 4 GiB); 0 when it reaches everything */
	uint64_t reach;
	/* the status er_plan_safe_pages returns when the plan itself runs out */
	uintptr_t out_of_resources;
};

/* One page the restore routine writes after ExitBootServices: copied from src, or
 * zero-filled when src == 0 (the layout of arch/handoff.h's struct er_restore_entry;
 * loader/planmem.c checks that they agree). */
struct er_plan_entry {
	uint64_t dst;
	uint64_t src;
};

struct er_alloc_rec {
	uint64_t addr, pages;
};

struct er_plan {
	const struct er_plan_mem *mem;
	const struct er_image *img;
	const uint64_t *pfns;        /* the reader's PFN list (ER_PFN_ZERO flags); the caller keeps it
				      * alive until the hand-off: safe_alloc and content use it */
	uint64_t npfns;
	uint8_t *direct;             /* per PFN index: 1 = loaded into its own frame */
	uint64_t cursor;             /* PFN index of the next data page */
	uint64_t ram_top;
	/* counts */
	uint64_t n_direct, n_bounce, n_zero;
	/* bounce frames: ranges handed out in order */
	struct er_alloc_rec *bframes;
	uint64_t nbframes, bframe_idx, bframe_off;
	/* restore list (safe pages): list is where the CPU reaches it, list_phys where it is */
	struct er_plan_entry *list;
	uint64_t list_phys;
	uint64_t list_n, list_cap, list_pages;
	/* everything allocated, for undo */
	struct er_alloc_rec *allocs;
	uint64_t nallocs, allocs_cap;
	uint64_t t_plan_us, t_place_us;
	/* set by the caller after er_plan_init: the image is secret (it was read from an
	 * encrypted device); undo wipes every frame it gives back */
	bool wipe_on_undo;
};

/* Zeroes the plan and sets its memory operations (before er_plan_sink). */
void er_plan_init(struct er_plan *p, const struct er_plan_mem *mem);

/* The sink for er_image_stream / er_swsusp2004_stream. */
struct er_sink er_plan_sink(struct er_plan *p);

/* Safe pages: `pages` consecutive frames none of which is an image PFN, held until
 * er_plan_undo.
 * Returns 0 or a status (see struct er_plan_mem). loader/planmem.c wraps it as the
 * er_safe_alloc_fn of arch/handoff.h (er_plan_safe_alloc). */
uintptr_t er_plan_safe_pages(struct er_plan *p, uint64_t pages, bool code, uint64_t *phys);

/* Where the loaded content of an image frame is now (its own frame, or its bounce
 * frame); NULL for an all-zero page or a frame the image does not hold. */
const uint8_t *er_plan_content(const struct er_plan *p, uint64_t pfn);

/* Release every page the plan took. */
void er_plan_undo(struct er_plan *p);

#endif
