// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/twins.c: LUKS containers seen on more than one device (the members of an md
 * RAID1 with metadata 0.90/1.0 each show the one header). Twins are unlocked together
 * with the one passphrase, or none of them is: a member left locked would keep the
 * hibernation signature while the image is resumed from the other. Pure C. */
#ifndef EFIRESUME_LOADER_TWINS_H
#define EFIRESUME_LOADER_TWINS_H

#include "image/freestanding.h"
#include "volume/luks.h"

/* For the LUKS devices h[0..n) (ok[k]: h[k] was read, er_luks_open said ER_LUKS_OK; not
 * ok: h[k].uuid is the UUID as far as it is known (er_luks_uuid_seen), "" when it is not):
 * lead[k] is the first ok k' whose header has the same UUID (k itself when it is the first
 * ok one, or when there is none); refused[k] is true for every member of a group of two or
 * more that cannot be unlocked as one header: the headers differ in anything the unlock or
 * the mapping uses, or a member was not read (an I/O error, a container not looked at):
 * then none is unlocked (a twin left locked would keep the signature of an image resumed
 * from the other). A device not ok with no UUID known may be anyone's twin: every
 * container is refused. */
void er_luks_twins(const struct er_luks_header *h, const bool *ok, unsigned n, unsigned *lead, bool *refused);

/* The UUID of a LUKS1/LUKS2 binary header (at byte 168 of both) in the first len bytes of
 * a device, as the probe saw it: false (uuid "") when there is no LUKS magic at 0 or no
 * terminated, non-empty UUID. */
bool er_luks_uuid_seen(const void *head, size_t len, char uuid[41]);

/* UUIDs as text, ASCII case ignored. */
bool er_uuid_text_eq(const char *a, const char *b);

#endif
