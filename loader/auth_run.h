// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot: checking an image's tag while it is loaded (loader/auth_run.c), on top
 * of loader/auth.c and the key holder (efi/secboot.c). */
#ifndef EFIRESUME_LOADER_AUTH_RUN_H
#define EFIRESUME_LOADER_AUTH_RUN_H

#include "loader/loader.h"
#include "loader/auth.h"
#include "loader/plan.h"
#include "image/reader.h"

struct er_auth_run {
	BOOLEAN active;             /* Secure Boot is on: the tag must verify */
	BOOLEAN header_fed;
	BOOLEAN verified;           /* er_auth_run_end matched */
	UINT64 nr_pfns;             /* the image's PFN list, for the key page check */
	struct er_auth_block blk;
	struct er_auth_mac mac;
	const char *dev_id;
	BOOLEAN rotated;            /* er_auth_run_rotate ran (the key was changed or deleted) */
	UINT64 slot_written;        /* the key page it wrote and allocated, 0 none */
};

/* Before loading (page0: the swap header page as read). Without Secure Boot: inactive,
 * EFI_SUCCESS. Under Secure Boot: EFI_ABORTED with a refusal line (nothing written, the
 * image kept) when there is no key, no or a malformed auth block, another key id, or
 * the 2004 format; otherwise the tag is started. */
EFI_STATUS er_auth_run_begin(struct er_auth_run *ar, const struct er_swapdev *sd, const UINT8 *page0);
/* The image's header page (swsusp_info), right after er_image_open read it. */
void er_auth_run_header(struct er_auth_run *ar, const UINT8 *header_page);
/* After the stream: the PFN pages and every placed data page (in stream order, read
 * back from where the plan put them), then the comparison. EFI_ABORTED with a refusal
 * line on a mismatch. Wipes the state either way. */
EFI_STATUS er_auth_run_end(struct er_auth_run *ar, const struct er_image *img, const UINT64 *pfns,
			   const struct er_plan *plan);
/* Wipe the tag state (a run that did not reach er_auth_run_end). */
void er_auth_run_drop(struct er_auth_run *ar);
/* A verified image is about to be committed: rotate the key (contract: K' in the
 * variable, and in the image kernel's key page when it can be written safely). */
void er_auth_run_rotate(struct er_auth_run *ar, const UINT64 *pfns);
/* The commit did not happen: the key page wiped and freed, the old key stored again
 * (the kept image still verifies on a later boot). */
void er_auth_run_unrotate(struct er_auth_run *ar);
/* Just before the jump (after ExitBootServices): efiresume's copies of the keys wiped. */
void er_auth_run_jump(struct er_auth_run *ar);

#endif
