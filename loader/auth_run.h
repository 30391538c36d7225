// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot: an image's decryption and authentication while it is loaded (contract v2,
 * kernel-patch/6.12/README), on top of loader/auth.c (the contract's pure code) and
 * loader/hibkey.c (the keys). */
#ifndef EFIRESUME_LOADER_AUTH_RUN_H
#define EFIRESUME_LOADER_AUTH_RUN_H

#include "loader/loader.h"
#include "loader/auth.h"
#include "loader/hibkey.h"
#include "image/reader.h"

struct er_auth_run {
	bool active;             /* Secure Boot is on: the image is decrypted and authenticated */
	const char *dev_id;
	struct er_auth_block blk;
	struct er_auth_stream stream;
	struct er_crypt crypt;      /* what the reader opens pages through */
	UINT8 *tags;                /* the reader's tag page (one page) */
	UINT64 slot_written;        /* the key page written and allocated, 0 none */
};

/* Before loading (page0: the swap header page as read, the only copy that is parsed).
 * Without Secure Boot: inactive, EFI_SUCCESS, unless the image is encrypted (refused: it
 * cannot be read). Under Secure Boot: EFI_ABORTED with a refusal line (nothing written,
 * the image kept) when there is no previous key, no or a malformed auth block, another
 * key id, or the 2004 format; otherwise the stream is set up. */
EFI_STATUS er_auth_run_begin(struct er_auth_run *ar, const struct er_hibkey *hk, const struct er_swapdev *sd,
			     const UINT8 *page0);
/* What the reader decrypts through (NULL when inactive). */
struct er_crypt *er_auth_run_crypt(struct er_auth_run *ar);
/* After the stream: every page authenticated, the tag over them and the header fields
 * compared. EFI_ABORTED with a refusal line on a mismatch. */
EFI_STATUS er_auth_run_end(struct er_auth_run *ar, const UINT8 *page0);
/* A verified image is about to be committed: this boot's key into the image kernel's
 * key page, when that frame can be written safely. pfns: the image's sorted PFN list. */
void er_auth_run_keypage(struct er_auth_run *ar, const struct er_hibkey *hk, const UINT64 *pfns, UINT64 nr_pfns);
/* The commit did not happen: the key page wiped and freed. */
void er_auth_run_undo(struct er_auth_run *ar);
/* The state wiped and freed (every path). */
void er_auth_run_drop(struct er_auth_run *ar);

#endif
