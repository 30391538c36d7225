// SPDX-License-Identifier: GPL-2.0-or-later
/* LVM2 logical volumes as block devices ("LV vg/lv"), mapped onto the devices holding
 * their PVs; see lvdev.h. The VGs they point into belong to an assembly of loader/vgs.c;
 * so do the devices' contexts. */
#include "loader/lvdev.h"
#include "loader/volumes.h"
#include "image/fmt.h"

struct lv_map {
	const struct er_lvm_vg *vg;
	unsigned lv;
	struct er_blockdev pv[ER_LVM_MAX_PVS];   /* the device holding each PV (by PV index) */
};

static EFI_STATUS lv_rw(const struct er_blockdev *d, UINT64 off, void *rbuf, const void *wbuf, UINTN len,
			bool quiet)
{
	const struct lv_map *m = d->ctx;
	UINT8 *p = rbuf ? rbuf : (UINT8 *)(UINTN)wbuf;
	while (len > 0) {
		struct er_lvm_extent ext;
		struct er_lvm_error e = { 0 };
		if (er_lvm_map(m->vg, m->lv, off / ER_LVM_SECTOR, &ext, &e) != ER_LVM_OK) {
			if (quiet)
				return EFI_END_OF_MEDIA;
			return log_error_status(EFI_END_OF_MEDIA, L"%a: sector %ld: %a", d->id, off / ER_LVM_SECTOR, e.detail);
		}
		UINT64 n = ext.run * ER_LVM_SECTOR;
		if (n > len)
			n = len;
		const struct er_blockdev *pv = &m->pv[ext.pv];
		UINT64 at = ext.pv_sector * ER_LVM_SECTOR;
		EFI_STATUS err = rbuf ? (quiet ? er_blockdev_probe(pv, at, p, (UINTN)n) : er_blockdev_read(pv, at, p, (UINTN)n))
				      : er_blockdev_write(pv, at, p, (UINTN)n);
		if (EFI_ERROR(err))
			return err;
		p += n;
		off += n;
		len -= (UINTN)n;
	}
	return EFI_SUCCESS;
}

/* (BOOLEAN: the signature of er_blockdev_ops, efi/efi.h) */
static EFI_STATUS lv_read(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len, BOOLEAN quiet)
{
	return lv_rw(d, off, buf, NULL, len, quiet);
}

static EFI_STATUS lv_write(const struct er_blockdev *d, UINT64 off, const void *buf, UINTN len)
{
	return lv_rw(d, off, NULL, buf, len, false);
}

static const struct er_blockdev_ops lv_ops = { lv_read, lv_write };

void er_lvdev_map_all(struct er_vgs *a, struct er_devlist *list)
{
	for (unsigned k = 0; k < a->n; k++) {
		struct er_lvm_vg *vg = a->vg[k];
		if (a->conflict[k])
			continue;
		for (unsigned l = 0; l < vg->n_lvs; l++) {
			struct er_lvm_lv *lv = &vg->lv[l];
			struct er_lvm_error e = { 0 };
			if (!lv->visible)
				continue;
			enum er_lvm_status st = er_lvm_lv_check(vg, l, &e);
			if (st != ER_LVM_OK) {
				log_info(L"LV %a/%a: not mapped: %a: %a\n", vg->name, lv->name, er_lvm_status_name(st), e.detail);
				continue;
			}
			struct lv_map *m;
			struct er_blockdev *d = er_devlist_slot(list);
			if (!d || EFI_ERROR(er_alloc_zero(sizeof(*m), (void **)&m)))
				return;
			if (er_vgs_add_dev(a, m) < 0) {
				er_free(m);
				return;
			}
			m->vg = vg;
			m->lv = l;
			UINT32 bs = ER_LVM_SECTOR, align = 0;
			for (unsigned p = 0; p < vg->n_pvs; p++) {
				if (!vg->pv[p].present)
					continue;
				m->pv[p] = list->d[vg->pv[p].device];
				if (m->pv[p].encrypted)
					d->encrypted = true;
				if (m->pv[p].block_size > bs)
					bs = m->pv[p].block_size;
				if (m->pv[p].io_align > align)
					align = m->pv[p].io_align;
			}
			d->ops = &lv_ops;
			d->ctx = m;
			d->block_size = bs;
			d->io_align = align;
			d->size = er_lvm_lv_sectors(vg, l) * ER_LVM_SECTOR;
			d->partition = true;
			er_devlist_set_name(d, "LV ", vg->name, "/");
			UINTN used = er_strnlen(d->id, sizeof(d->id));
			er_snprintf(d->id + used, sizeof(d->id) - used, "%s", lv->name);
			list->n++;
		}
	}
}

bool er_volume_is_lv(const struct er_blockdev *d, const char *spec)
{
	if (d->ops != &lv_ops)
		return false;
	const struct lv_map *m = d->ctx;
	struct er_lvm_error e = { 0 };
	return er_lvm_find_lv(m->vg, spec, &e) == (int)m->lv;
}
