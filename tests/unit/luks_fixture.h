// SPDX-License-Identifier: GPL-2.0-or-later
/* A parsed LUKS2 header for the tests of loader/twins.c (test_twins.c, test_volumes.c):
 * luks_hdr_fill(h, uuid) makes *h a usable header with UUID uuid, one Argon2id keyslot (4000
 * stripes at 32 KiB) and a dynamic segment at 16 MiB; two headers filled with the same UUID
 * are the same header (twins). Include after "loader/twins.h" and
 * <stdio.h>, <string.h>. */
#ifndef EFIRESUME_TESTS_LUKS_FIXTURE_H
#define EFIRESUME_TESTS_LUKS_FIXTURE_H

static void luks_hdr_fill(struct er_luks_header *h, const char *uuid)
{
	memset(h, 0, sizeof(*h));
	h->version = 2;
	snprintf(h->uuid, sizeof(h->uuid), "%s", uuid);
	h->seg.offset = 16 << 20;
	h->seg.dynamic = true;
	h->seg.sector_size = 512;
	h->seg.key_size = 64;
	h->digest.hash = 1;
	h->digest.iterations = 1000;
	h->digest.salt_len = 32;
	h->digest.digest_len = 32;
	memset(h->digest.salt, 7, 32);
	memset(h->digest.digest, 9, 32);
	h->n_order = 1;
	h->order[0] = 0;
	h->ks[0].usable = true;
	h->ks[0].kdf = 3;
	h->ks[0].salt_len = 32;
	memset(h->ks[0].salt, 5, 32);
	h->ks[0].key_size = 64;
	h->ks[0].stripes = 4000;
	h->ks[0].area_offset = 32768;
}

#endif
