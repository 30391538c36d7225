// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/twins.c: LUKS containers seen on more than one device (the members of an md
 * RAID1 with metadata 0.90/1.0 each show the one header). Twins are unlocked together
 * with the one passphrase, or none of them is: a member left locked would keep the
 * hibernation signature while the image is resumed from the other. Pure C. */
#ifndef EFIRESUME_LOADER_TWINS_H
#define EFIRESUME_LOADER_TWINS_H

#include "image/freestanding.h"
#include "volume/luks.h"

/* For containers h[0..n) (ok[k]: h[k] was read, er_luks_open said ER_LUKS_OK):
 * lead[k] is the first k' <= k whose header has the same UUID (k itself when it is the
 * first or not ok); refused[k] is true for every member of a group of two or more whose
 * headers differ in anything the unlock or the mapping uses (then none is unlocked). */
void er_luks_twins(const struct er_luks_header *h, const bool *ok, unsigned n, unsigned *lead, bool *refused);

/* UUIDs as text, ASCII case ignored. */
bool er_uuid_text_eq(const char *a, const char *b);

#endif
