// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/volumes.c: LVM2 logical volumes and LUKS containers as block devices. */
#ifndef EFIRESUME_LOADER_VOLUMES_H
#define EFIRESUME_LOADER_VOLUMES_H

#include "loader/loader.h"

/* The volume layer of one boot: the devices it mapped, the unlocked containers (their
 * volume keys), the assembled volume groups, the argon2 lanes' scheduler. Opaque. */
struct er_volumes;

/* Replaces *devs (er_blockdev_list's array, freed here) with a larger one: the same
 * devices, then one per unlocked LUKS container ("luks-<uuid>") and per mappable
 * logical volume ("LV vg/lv"), whose reads and writes go through the mapping (and
 * the cipher); *out is the object that owns what they point into. Asks for
 * passphrases only as the hint allows (see volumes.c). On an error *devs is left as
 * it was and *out is NULL (every function below takes NULL: nothing mapped). */
EFI_STATUS er_volumes_open(const struct er_config *cfg, const struct er_hint *hint, struct er_blockdev **devs,
			   UINTN *ndevs, struct er_volumes **out);

/* Wipes every volume key (the containers cannot be read or written any more; again:
 * nothing). quiet: after ExitBootServices (no output, no firmware call). Called before
 * the hand-off and before the normal boot. */
void er_volumes_close(struct er_volumes *v, bool quiet);

/* Gives back v's memory (keys wiped first), once the device list er_volumes_open handed
 * out is freed (its devices point into v). While a helper CPU is unconfirmed (below) v
 * itself stays allocated, on purpose: that CPU may still use the lanes' state in it. */
void er_volumes_free(struct er_volumes *v);

/* An image was expected in a LUKS container that stayed locked (refused, skipped,
 * wrong passphrases): that no image was found says nothing about whether one is there. */
bool er_volumes_locked(const struct er_volumes *v);

/* A helper CPU of the argon2 lanes (loader/lanes.c) was never confirmed back: it may
 * still run code of ours and touch memory of ours. While this is true nothing may be
 * committed (no signature write, no hand-off): keep the image, boot the fallback. */
bool er_volumes_helpers_unconfirmed(const struct er_volumes *v);

/* d is the logical volume spec names ("vg/lv", "/dev/vg/lv", "/dev/mapper/vg-lv"). */
bool er_volume_is_lv(const struct er_blockdev *d, const char *spec);

#endif
