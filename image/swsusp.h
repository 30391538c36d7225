// SPDX-License-Identifier: GPL-2.0-or-later
/* Linux hibernation image: page 0 of the swap device (struct swsusp_header).
 * Layout: struct swsusp_header in the kernel's kernel/power/swap.c. */
#ifndef EFIRESUME_IMAGE_SWSUSP_H
#define EFIRESUME_IMAGE_SWSUSP_H

#include "image/freestanding.h"

#define ER_PAGE_SIZE 4096u

/* offsets inside page 0 */
#define ER_HDR_HW_SIG   4056u
#define ER_HDR_CRC32    4060u
#define ER_HDR_IMAGE    4064u
#define ER_HDR_FLAGS    4072u
#define ER_HDR_ORIG_SIG 4076u
#define ER_HDR_SIG      4086u
#define ER_SIG_LEN      10u

enum er_swap_kind {
	ER_SWAP_NONE = 0,      /* no swap signature at all */
	ER_SWAP_PLAIN,         /* SWAPSPACE2 (or the old SWAP-SPACE): swap, no image */
	ER_SWAP_IMAGE,         /* S1SUSPEND: a hibernation image is present */
	ER_SWAP_IMAGE_2004,    /* S1SUSPFW1: an image in the seeds' 2004 format (kernel-patch/) */
};

/* Classify page 0 of a device (ER_PAGE_SIZE bytes). */
enum er_swap_kind er_swap_classify(const uint8_t *page0);
const char *er_swap_kind_name(enum er_swap_kind k);

#endif
