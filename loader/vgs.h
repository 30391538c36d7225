// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/vgs.c: LVM2 volume groups assembled from the PVs seen, and who owns them.
 * Pure C (host-tested: tests/unit/test_volumes.c); the devices come in through
 * er_vgs_ops (loader/volumes.c on EFI Block I/O).
 *
 * An assembly (struct er_vgs) owns its VGs and the contexts of the devices mapped
 * onto them (the "LV vg/lv" devices of loader/lvdev.c point into its VGs). */
#ifndef EFIRESUME_LOADER_VGS_H
#define EFIRESUME_LOADER_VGS_H

#include "image/freestanding.h"
#include "volume/lvm.h"

#define ER_VGS_MAX 8            /* volume groups per assembly */
#define ER_VGS_MAX_DEVS 64      /* devices mapped onto one assembly */
#define ER_VGS_MDA_TEXT_MAX (1024 * 1024)

struct er_vgs_ops {
	void *ctx;
	/* len bytes at byte offset off of device dev (any alignment); 0 when read */
	int (*read)(void *ctx, unsigned dev, uint64_t off, void *buf, size_t len);
	void *(*alloc)(void *ctx, size_t bytes);   /* zeroed; NULL when there is none */
	void (*free)(void *ctx, void *p);          /* p may be NULL */
	void (*log)(void *ctx, bool warn, const char *line);
};

/* One PV seen: the device holding it, its size in bytes, its name, its label. */
struct er_vgs_pv {
	unsigned dev;
	uint64_t size;
	const char *id;
	struct er_lvm_label label;
};

struct er_vgs {
	struct er_lvm_vg *vg[ER_VGS_MAX];
	bool conflict[ER_VGS_MAX];          /* two copies with one seqno differ: not used */
	unsigned n;
	void *dev[ER_VGS_MAX_DEVS];         /* contexts of the devices mapped onto it */
	unsigned ndev;
	struct er_vgs *next;                /* in er_vgs_set.kept */
};

/* Every assembly of one boot (in the object of loader/volumes.c). An assembly is either
 * dropped (a look: freed at once with its VGs and its devices' contexts, after its
 * devices were taken off the list) or kept (its devices are handed out: it lives, whole,
 * until er_vgs_free_kept, after the device list is gone). Nothing of an assembly is ever
 * freed apart from the rest. */
struct er_vgs_set {
	const struct er_vgs_ops *ops;
	struct er_vgs *kept;
};

/* A new assembly from pv[0..npv) into *out (allocated): each VG's newest copy.
 * 0, or -1 when memory ran out (*out NULL). */
int er_vgs_assemble(struct er_vgs_set *set, const struct er_vgs_pv *pv, unsigned npv, struct er_vgs **out);

/* Registers the context of a device mapped onto a: freed with a. -1 when a has no
 * room (ctx is not taken). */
int er_vgs_add_dev(struct er_vgs *a, void *ctx);

/* A temporary assembly (a look): its devices are no longer listed. Frees a, its VGs
 * and its devices' contexts. */
void er_vgs_drop(struct er_vgs_set *set, struct er_vgs *a);

/* The final assembly: its devices are handed out for the rest of the boot; a is
 * kept in set, whole, until er_vgs_free_kept. */
void er_vgs_keep(struct er_vgs_set *set, struct er_vgs *a);

/* Frees every kept assembly (whole), once none of their devices is listed anywhere. */
void er_vgs_free_kept(struct er_vgs_set *set);

#endif
