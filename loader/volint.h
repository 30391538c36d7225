// SPDX-License-Identifier: GPL-2.0-or-later
/* Internal to the volume layer (loader/volumes.c, lvdev.c, cryptdev.c, unlock.c): the
 * device list being built during er_volumes_open. */
#ifndef EFIRESUME_LOADER_VOLINT_H
#define EFIRESUME_LOADER_VOLINT_H

#include "loader/loader.h"
#include "loader/vgs.h"
#include "volume/luks.h"

#define MAX_MAPPED 64           /* LVs + containers */
#define MAX_PVS 32
#define MAX_LUKS 8

struct state {
	const struct er_config *cfg;
	const struct er_hint *hint;
	struct er_blockdev *list;   /* physical devices, then mapped ones */
	UINTN n, cap, nphys;
	struct er_vgs_pv pv[MAX_PVS];
	UINTN npv;
	UINTN luks[MAX_LUKS];       /* device indexes of LUKS containers */
	UINTN nluks;
	UINT8 *head;                /* one page of scratch */
};

/* volumes.c */
EFI_STATUS er_vol_read_bytes(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len);
struct er_blockdev *er_vol_new_dev(struct state *s);
void er_vol_probe(struct state *s, UINTN i);
void er_vol_set_name(struct er_blockdev *d, const char *a, const char *b, const char *c);

/* lvdev.c: a temporary assembly with its "LV vg/lv" devices appended to s->list
 * (er_vol_lvs_drop takes them off again), or the final one (kept for the boot). */
EFI_STATUS er_vol_lvs_map(struct state *s, struct er_vgs **out);
void er_vol_lvs_drop(struct state *s, struct er_vgs *a, UINTN n0);
void er_vol_lvs_keep(struct er_vgs *a);

/* cryptdev.c: the decrypted view of the container lower (vk wiped here); the number
 * of containers unlocked in this boot */
BOOLEAN er_crypt_add(struct state *s, const struct er_blockdev *lower, const struct er_luks_header *hdr, UINT8 *vk,
		     UINTN vk_len, const char *suffix);
/* Room for n more containers (and their devices) */
BOOLEAN er_crypt_room(const struct state *s, UINTN n);
UINTN er_crypt_count(void);
/* The last n containers added: their keys wiped, their devices unreadable, no longer counted */
void er_crypt_undo(struct state *s, UINTN n);
void er_crypt_wipe_all(BOOLEAN quiet);

/* unlock.c: the passphrase dialogue for container i; its twins (the same header on
 * other devices: loader/twins.c) are unlocked with it, or none is */
void er_unlock(struct state *s, UINTN i, struct er_luks_header *hdr, const UINTN *twins, UINTN ntwins);
bool er_unlock_helpers_unconfirmed(void);
extern const struct er_luks_mem er_unlock_mem;

#endif
