// SPDX-License-Identifier: GPL-2.0-or-later
/* GUIDs as text: the 16 on-disk bytes (the first three groups little endian, as GPT and
 * EFI store them) <-> the 36 characters blkid, lsblk and Linux's PARTUUID= show. */
#ifndef EFIRESUME_VOLUME_GUID_H
#define EFIRESUME_VOLUME_GUID_H

#include "image/freestanding.h"

/* One hex digit, either case: 0..15, or -1 for any other character. */
int er_hexval(char ch);
bool er_guid_parse(const char *s, size_t n, uint8_t out[16]);
/* The same 36 characters (either case) -> 16 bytes in text order (libuuid's order, as
 * mkswap stores a swap UUID and HibernateLocation names it); false when malformed. */
bool er_uuid_text_parse(const char *s, size_t n, uint8_t out[16]);
void er_guid_format(const uint8_t g[16], char out[37]);

#endif
