// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/unlock.c: the passphrase dialogue for one LUKS container: up to 3 passphrases
 * on the console, the key derivation with its argon2 lanes on the other CPUs (the lane
 * scheduler is the caller's: see struct er_volumes in loader/volumes.c). */
#ifndef EFIRESUME_LOADER_UNLOCK_H
#define EFIRESUME_LOADER_UNLOCK_H

#include "loader/loader.h"
#include "loader/lanes.h"
#include "volume/luks.h"

/* The allocator for er_luks_open/er_luks_unlock: page allocations; nothing is given back
 * while a helper CPU of lanes is unconfirmed (it may still write there). */
struct er_luks_mem er_unlock_mem(struct er_lane_sched *lanes);

/* Asks for the passphrase of the container hdr on lower (read through dev) and derives
 * its volume key into vk[0..*vk_len) (vk has ER_LUKS_MAX_KEY bytes; the caller wipes it).
 * true when unlocked; false when it was not (each reason logged: skipped, wrong
 * passphrases, not enough memory, a helper CPU not confirmed back: then
 * er_lanes_unconfirmed(lanes) says so for the rest of the boot). The KDF's memory is given
 * back before this returns (unless a helper is unconfirmed). */
bool er_unlock(struct er_lane_sched *lanes, const struct er_blockdev *lower, const struct er_luks_dev *dev,
		  const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len);

#endif
