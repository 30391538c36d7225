// SPDX-License-Identifier: GPL-2.0-or-later
/* The point of no return on this machine; see commit_fw.h. */
#include "loader/commit_fw.h"

/* Point of no return, part 1: put orig_sig back over the signature (as the kernel's
 * own resume does first thing), so that the image can never be resumed twice. Page 0
 * must be byte for byte what it was when the image was opened. */
static EFI_STATUS invalidate_signature(const struct er_swapdev *sd, const UINT8 *page0, UINT8 *page)
{
	UINT64 at = sd->header_page * ER_PAGE_SIZE;
	EFI_STATUS err = er_blockdev_read(sd->dev, at, page, ER_PAGE_SIZE);
	if (EFI_ERROR(err))
		return err;
	if (er_memcmp(page, page0, ER_PAGE_SIZE) != 0)
		return log_error_status(EFI_ABORTED, L"%a: the swap header changed while loading", sd->dev->id);
	er_memcpy(page + ER_HDR_SIG, page + ER_HDR_ORIG_SIG, ER_SIG_LEN);
	return er_blockdev_write(sd->dev, at, page, ER_PAGE_SIZE);
}

/* The point of no return (loader/commit.c): what it needs from the firmware and
 * from this resume. */
struct pnr_ctx {
	const struct er_swapdev *sd;
	const UINT8 *page0;       /* page 0 as it was opened (S1SUSPEND) */
	UINT8 *page;              /* scratch page */
	struct er_memmap *m;
	bool quiet;            /* ExitBootServices was called: no output any more */
};

static int pnr_get_map(void *ctx, bool may_grow)
{
	struct pnr_ctx *c = ctx;
	EFI_STATUS err = may_grow ? er_memmap_get(c->m) : er_memmap_refetch(c->m);
	if (err == EFI_BUFFER_TOO_SMALL)
		return ER_PNR_MAP_TOO_SMALL;
	return EFI_ERROR(err) ? -1 : 0;
}

static int pnr_exit_bs(void *ctx)
{
	struct pnr_ctx *c = ctx;
	EFI_STATUS err = er_exit_boot_services_once(c->m);
	c->quiet = true;
	if (err == EFI_INVALID_PARAMETER)
		return ER_PNR_STALE_KEY;
	return EFI_ERROR(err) ? -1 : 0;
}

static int pnr_commit(void *ctx)
{
	struct pnr_ctx *c = ctx;
	EFI_STATUS err = invalidate_signature(c->sd, c->page0, c->page);
	if (!EFI_ERROR(err))
		return 0;
	log_error_status(err, L"%a: the swap signature could not be reset", c->sd->dev->id);
	/* a failed write may have reached the disk in part: write page 0 back as it was */
	if (EFI_ERROR(er_blockdev_write(c->sd->dev, c->sd->header_page * ER_PAGE_SIZE, c->page0, ER_PAGE_SIZE)))
		log_warn(L"%a: page 0 could not be written back either; the image may not be resumable\n", c->sd->dev->id);
	return -1;
}

static int pnr_uncommit(void *ctx)
{
	struct pnr_ctx *c = ctx;
	EFI_STATUS err = er_blockdev_write(c->sd->dev, c->sd->header_page * ER_PAGE_SIZE, c->page0, ER_PAGE_SIZE);
	return EFI_ERROR(err) ? -1 : 0;
}

static void pnr_reset(void *ctx)
{
	(void)ctx;
	er_reset_system();
}

static void pnr_note(void *ctx, const char *what, int status)
{
	struct pnr_ctx *c = ctx;
	if (!c->quiet)
		log_info(L"%a: %a (%d)\n", c->sd->dev->id, what, (INTN)status);
}

enum er_pnr_result er_commit_image(const struct er_swapdev *sd, const UINT8 *page0, UINT8 *page, struct er_memmap *m)
{
	struct pnr_ctx pc = { sd, page0, page, m, false };
	struct er_pnr_ops ops = { &pc, pnr_get_map, pnr_exit_bs, pnr_commit, pnr_uncommit, pnr_reset, pnr_note };
	return er_point_of_no_return(&ops);
}
