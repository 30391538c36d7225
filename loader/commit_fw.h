// SPDX-License-Identifier: GPL-2.0-or-later
/* The point of no return on this machine: the operations loader/commit.c orders (the
 * final memory map, the swap signature reset, ExitBootServices, the reset), done through
 * efi/ and on the image's swap device. Used by loader/resume.c. */
#ifndef EFIRESUME_LOADER_COMMIT_FW_H
#define EFIRESUME_LOADER_COMMIT_FW_H

#include "loader/loader.h"
#include "loader/commit.h"

/* page0: sd's swap header page as it was when the image was opened (the signature is
 * reset only while the disk still holds exactly that); page: a scratch page; m: the
 * memory map, filled with the final one when boot services are gone (ER_PNR_EXITED). */
enum er_pnr_result er_commit_image(const struct er_swapdev *sd, const UINT8 *page0, UINT8 *page, struct er_memmap *m);

#endif
