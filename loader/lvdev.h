// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/lvdev.c: LVM2 logical volumes as block devices ("LV vg/lv"), mapped onto the
 * devices holding their PVs. */
#ifndef EFIRESUME_LOADER_LVDEV_H
#define EFIRESUME_LOADER_LVDEV_H

#include "loader/devlist.h"
#include "loader/vgs.h"

/* Appends to l a device for every mappable visible LV of the assembly a (whose PVs'
 * device indexes are indexes into l). The devices' contexts are registered with a
 * (er_vgs_add_dev): they live and die with it. */
void er_lvdev_map_all(struct er_vgs *a, struct er_devlist *l);

#endif
