// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/cryptdev.c: unlocked LUKS containers as block devices ("luks-<uuid>"): reads
 * decrypted, writes encrypted. A struct er_crypts holds the volume keys' schedules of
 * one boot (the object of loader/volumes.c has one): er_crypt_wipe_all wipes them,
 * er_crypt_free_all gives their memory back once no device points at them. */
#ifndef EFIRESUME_LOADER_CRYPTDEV_H
#define EFIRESUME_LOADER_CRYPTDEV_H

#include "loader/devlist.h"
#include "volume/luks.h"

#define ER_VOL_MAX_LUKS 8       /* containers unlocked in one boot */

struct er_crypt_map;

struct er_crypts {
	/* every map made (each one is a listed device, so at most as many as those); an
	 * undone one stays (its device still points at it) until er_crypt_free_all */
	struct er_crypt_map *m[ER_VOL_MAX_MAPPED];
	UINTN nalloc;
	UINTN n;                /* those of m[0..nalloc) not undone or wiped: unlocked */
};

/* Makes d the decrypted view of the container on lower (hdr's segment, the volume key
 * vk, which is wiped here in every case), named "luks-<uuid><suffix>". false when c is
 * full, memory ran out or the key does not fit aes-xts (d is then untouched). */
bool er_crypt_map(struct er_crypts *c, struct er_blockdev *d, const struct er_blockdev *lower,
		     const struct er_luks_header *hdr, UINT8 *vk, UINTN vk_len, const char *suffix);

/* Room for n more containers (at most ER_VOL_MAX_LUKS unlocked) */
bool er_crypt_room(const struct er_crypts *c, UINTN n);

/* Containers unlocked (and not undone) so far */
UINTN er_crypt_count(const struct er_crypts *c);

/* The last n containers mapped: their keys wiped, their devices unreadable (they stay
 * listed: nothing may point at freed memory), no longer counted. */
void er_crypt_undo(struct er_crypts *c, UINTN n);

/* Every volume key wiped (idempotent); quiet: after ExitBootServices, no output. */
void er_crypt_wipe_all(struct er_crypts *c, bool quiet);

/* Frees every map (after er_crypt_wipe_all, once no device of c is listed anywhere). */
void er_crypt_free_all(struct er_crypts *c);

#endif
