// SPDX-License-Identifier: GPL-2.0-or-later
/* The device list the volume layer builds (loader/volumes.c): the physical devices,
 * then the mapped ones (containers of loader/cryptdev.c, LVs of loader/lvdev.c). It has
 * a fixed capacity (the array is never moved: devices point at each other by copy, the
 * assemblies' reads by index). Header only. */
#ifndef EFIRESUME_LOADER_DEVLIST_H
#define EFIRESUME_LOADER_DEVLIST_H

#include "loader/loader.h"
#include "image/fmt.h"

#define ER_VOL_MAX_MAPPED 64    /* LVs + containers */

struct er_devlist {
	struct er_blockdev *d;  /* cap entries; the first n are listed */
	UINTN n, cap;
};

/* The next slot, zeroed (listed only when the caller does n++), or NULL when full. */
static inline struct er_blockdev *er_devlist_slot(struct er_devlist *l)
{
	if (l->n >= l->cap) {
		log_warn(L"more than %d mapped devices: the rest are ignored\n", (INTN)ER_VOL_MAX_MAPPED);
		return NULL;
	}
	struct er_blockdev *d = &l->d[l->n];
	er_memset(d, 0, sizeof(*d));
	return d;
}

static inline void er_devlist_set_name(struct er_blockdev *d, const char *a, const char *b, const char *c)
{
	er_snprintf(d->id, sizeof(d->id), "%s%s%s", a, b, c);
}

#endif
