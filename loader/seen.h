// SPDX-License-Identifier: GPL-2.0-or-later
/* What efiresume saw of an image the first time: the image's identity and the
 * fingerprints of every filesystem it could read (volume/fsprint.h). Kept in the
 * non-volatile variable EfiresumeSeen while the image is on disk; compared before the
 * image is resumed on a later boot. Pure C (host-tested). */
#ifndef EFIRESUME_LOADER_SEEN_H
#define EFIRESUME_LOADER_SEEN_H

#include "volume/fsprint.h"

#define ER_SEEN_MAX_FS 32
#define ER_SEEN_ENTRY_BYTES 48
#define ER_SEEN_MAX_BYTES (32 + ER_SEEN_MAX_FS * ER_SEEN_ENTRY_BYTES + 4)

struct er_seen {
	uint8_t swap_uuid[16];
	uint32_t image_id;        /* CRC32 over page 0's swsusp_header and the image's header page */
	uint32_t n;
	struct er_fsprint fs[ER_SEEN_MAX_FS];
};

/* bytes written (0 when cap is too small) */
size_t er_seen_encode(const struct er_seen *s, uint8_t *buf, size_t cap);
/* false for anything that is not a record this code wrote (bounds, magic, CRC) */
bool er_seen_decode(const uint8_t *buf, size_t n, struct er_seen *s);
/* The first recorded filesystem that changed among those visible now: its index in
 * then->fs (why says how), or -1. Filesystems not visible now are not judged. */
int er_seen_compare(const struct er_seen *then, const struct er_fsprint *now, size_t n, char *why, size_t cap);

#endif
