// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/unlock.c: the passphrase dialogue for one LUKS container: up to 3 passphrases
 * on the console, the key derivation with its argon2 lanes on the other CPUs (the lane
 * scheduler is the caller's: see struct er_volumes in loader/volumes.c). */
#ifndef EFIRESUME_LOADER_UNLOCK_H
#define EFIRESUME_LOADER_UNLOCK_H

#include "loader/loader.h"
#include "loader/lanes.h"
#include "volume/luks.h"
#include "tpm/unseal.h"

/* The allocator for er_luks_open/er_luks_unlock: page allocations; nothing is given back
 * while a helper CPU of lanes is unconfirmed (it may still write there). */
struct er_luks_mem er_unlock_mem(struct er_lane_sched *lanes);

/* Tries the container's systemd-tpm2 tokens with the TPM first when tpm is not NULL (the
 * transport of EFI_TCG2_PROTOCOL: efi/tcg2.h; loader/tpmunlock.c; a tpm2-pin token asks its
 * PIN here), then asks for the passphrase of the container hdr on lower (read through dev)
 * and derives its volume key into vk[0..*vk_len) (vk has ER_LUKS_MAX_KEY bytes; the caller
 * wipes it). A TPM2-only container (er_luks_open: token-only) gets no passphrase prompt.
 * true when unlocked; false when it was not (each reason logged: skipped, wrong
 * passphrases, not enough memory, a helper CPU not confirmed back: then
 * er_lanes_unconfirmed(lanes) says so for the rest of the boot). The KDF's memory is given
 * back before this returns (unless a helper is unconfirmed). */
bool er_unlock(struct er_lane_sched *lanes, const struct er_tpm_io *tpm, const struct er_blockdev *lower,
	       const struct er_luks_dev *dev, const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len);

/* Whether hdr has a keyslot a systemd-tpm2 token names (then the TPM is worth opening). */
bool er_unlock_has_tpm2(const struct er_luks_header *hdr);

#endif
