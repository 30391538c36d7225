/* Plan and load: where each page of the image goes.
 *
 * Every frame the image names (data pages and all-zero pages) is claimed with
 * AllocatePages(AllocateAddress) where the firmware has it free: those pages are
 * written straight into their frame. Frames the firmware or efiresume occupy get a
 * bounce frame; the restore routine copies those after ExitBootServices. Bounce
 * frames, the bounce list, page tables and the restore routine live in "safe" pages:
 * frames that are in no PFN of the image. Nothing here is visible to anyone until
 * the hand-off: a refused image is undone with er_plan_undo(). */
#ifndef EFIRESUME_LOADER_PLAN_H
#define EFIRESUME_LOADER_PLAN_H

#include "loader/loader.h"
#include "image/reader.h"
#include "arch/handoff.h"

struct er_alloc_rec {
	UINT64 addr, pages;
};

struct er_plan {
	const struct er_image *img;
	const UINT64 *pfns;          /* the reader's PFN list (ER_PFN_ZERO flags); the caller keeps it
				      * alive until the hand-off: safe_alloc and content use it */
	UINT64 npfns;
	UINT8 *direct;               /* per PFN index: 1 = loaded into its own frame */
	UINT64 cursor;               /* PFN index of the next data page */
	UINT64 ram_top;
	/* counts */
	UINT64 n_direct, n_bounce, n_zero;
	/* bounce frames: ranges handed out in order */
	struct er_alloc_rec *bframes;
	UINT64 nbframes, bframe_idx, bframe_off;
	/* restore list (safe pages) */
	struct er_restore_entry *list;
	UINT64 list_n, list_cap, list_pages;
	/* everything allocated, for undo */
	struct er_alloc_rec *allocs;
	UINT64 nallocs, allocs_cap;
	UINT64 t_plan_us, t_place_us;
};

/* The sink for er_image_stream. */
struct er_sink er_plan_sink(struct er_plan *p);

/* Safe-page allocator (er_safe_alloc_fn). */
EFI_STATUS er_plan_safe_alloc(void *ctx, UINTN pages, BOOLEAN code, UINT64 *phys);

/* Where the loaded content of an image frame is now (its own frame, or its bounce
 * frame); NULL for an all-zero page or a frame the image does not hold. */
const UINT8 *er_plan_content(const struct er_plan *p, UINT64 pfn);

/* Release every page the plan took. */
void er_plan_undo(struct er_plan *p);

#endif
