// SPDX-License-Identifier: GPL-2.0-or-later
/* The image as it lies in its swap area, without loading it: reads through a block
 * device, its identity, one line describing it, and discarding it. Used by loader/loader.c
 * (describe, discard), loader/stale.c (identity) and loader/resume.c (the reads). */
#ifndef EFIRESUME_LOADER_ONDISK_H
#define EFIRESUME_LOADER_ONDISK_H

#include "loader/loader.h"
#include "image/reader.h"

#ifdef EFIRESUME_ARCH_X64
#define ER_LOADER_ARCH ER_ARCH_X86_64
#else
#define ER_LOADER_ARCH ER_ARCH_I386
#endif

/* An image's pages read from a block device (er_source of image/reader.h), timed */
struct er_dev_source {
	const struct er_blockdev *dev;
	UINT64 read_us, reads, bytes;
};
/* src reads sd's device through sc (page 0 of the image: sd->header_page) */
void er_dev_source_init(const struct er_swapdev *sd, struct er_dev_source *sc, struct er_source *src);

/* One line saying what would be resumed (kernel release, device, size), from the image's
 * header page (x86 kernels record no release there: it comes from the location variable
 * when one names the image). false when the header cannot be read. */
bool er_describe(const struct er_swapdev *sd, char *out, UINTN n);

/* The image's identity: its swap area's UUID and a CRC32 over page 0's swsusp_header
 * and the image's header page (different for every hibernation). */
EFI_STATUS er_image_identity(const struct er_swapdev *sd, UINT8 uuid[16], UINT32 *id);

/* Put orig_sig back without resuming (the user chose to discard). */
EFI_STATUS er_discard(const struct er_swapdev *sd);

#endif
