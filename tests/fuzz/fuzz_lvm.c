// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for volume/lvm.c (LVM2 label, metadata area, text metadata, mapping).
 *
 * Input byte 0 selects the mode (mod 3), the rest is the body:
 *   0  text: the body is VG metadata text for er_lvm_vg_parse
 *   1  device: the body is the start of a device, read as it is (probe, every
 *      metadata area, parse)
 *   2  device with the checksums fixed up after mutation: the label CRC, each
 *      metadata area header's CRC and its text CRC are recomputed, so mutations reach
 *      the bounds checks, the circular-buffer read and the parser behind them
 * Every buffer is an exact heap allocation so that ASan sees any overrun. Checked on
 * whatever parses: the model's invariants (counts, names, contiguous segments inside
 * their PVs), find_lv finding every LV by name, and every mapping of a usable LV
 * landing inside its PV's extents with a run that ends where the segment does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volume/lvm.h"
#include "image/crc32.h"

struct dev {
	uint8_t *data;
	size_t size;
};

static int dev_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct dev *d = ctx;
	if (off > d->size || len > d->size - off)
		return -1;
	memcpy(buf, d->data + off, len);
	return 0;
}

static size_t cstrlen(const char *s, size_t cap)
{
	size_t n = 0;
	while (n < cap && s[n])
		n++;
	if (n == cap)
		abort();   /* not NUL-terminated */
	return n;
}

static void check_model(struct er_lvm_vg *vg)
{
	struct er_lvm_error err;
	if (vg->n_pvs > ER_LVM_MAX_PVS || vg->n_lvs > ER_LVM_MAX_LVS || vg->extent_size == 0)
		abort();
	cstrlen(vg->name, sizeof(vg->name));
	if (cstrlen(vg->uuid, sizeof(vg->uuid)) != ER_LVM_UUID_LEN)
		abort();
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		cstrlen(vg->pv[i].name, sizeof(vg->pv[i].name));
		if (cstrlen(vg->pv[i].uuid, sizeof(vg->pv[i].uuid)) != ER_LVM_UUID_LEN)
			abort();
		vg->pv[i].present = true;     /* as if every PV were found */
		vg->pv[i].device = (int)i;
	}
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct er_lvm_lv *lv = &vg->lv[l];
		size_t nl = cstrlen(lv->name, sizeof(lv->name));
		cstrlen(lv->why, sizeof(lv->why));
		if (er_lvm_find_lv(vg, lv->name, &err) != (int)l)
			abort();
		char spec[2 * ER_LVM_NAME_MAX + 2];
		size_t vn = cstrlen(vg->name, sizeof(vg->name));
		memcpy(spec, vg->name, vn);
		spec[vn] = '/';
		memcpy(spec + vn + 1, lv->name, nl + 1);
		if (er_lvm_find_lv(vg, spec, &err) != (int)l)
			abort();
		enum er_lvm_status st = er_lvm_lv_check(vg, l, &err);
		if (st != ER_LVM_OK) {
			if (err.status != st || (lv->layout == ER_LVM_OK && st != ER_LVM_MISSING_PV))
				abort();
			continue;
		}
		if (lv->n_segs == 0 || lv->n_segs > ER_LVM_MAX_SEGS || lv->extents == 0)
			abort();
		uint64_t le = 0;
		for (unsigned i = 0; i < lv->n_segs; i++) {
			const struct er_lvm_seg *sg = &lv->seg[i];
			if (sg->start_extent != le || sg->pv < 0 || (unsigned)sg->pv >= vg->n_pvs ||
			    sg->pv_extent + sg->extent_count > vg->pv[sg->pv].pe_count)
				abort();
			le += sg->extent_count;
		}
		if (le != lv->extents)
			abort();
		uint64_t total = er_lvm_lv_sectors(vg, l);
		uint64_t probes[5] = { 0, total - 1, total / 2, total / 3 + 1, vg->extent_size };
		for (unsigned q = 0; q < 5; q++) {
			struct er_lvm_extent x;
			if (probes[q] >= total)
				continue;
			if (er_lvm_map(vg, l, probes[q], &x, &err) != ER_LVM_OK)
				abort();
			const struct er_lvm_pv *pv = &vg->pv[x.pv];
			if (x.pv >= vg->n_pvs || x.run == 0 || x.run > total - probes[q] || x.pv_sector < pv->pe_start ||
			    x.pv_sector + x.run > pv->pe_start + pv->pe_count * vg->extent_size)
				abort();
			/* the run really continues on the same PV: the sector before its end maps there too */
			struct er_lvm_extent y;
			if (er_lvm_map(vg, l, probes[q] + x.run - 1, &y, &err) != ER_LVM_OK || y.pv != x.pv ||
			    y.pv_sector != x.pv_sector + x.run - 1 || y.run != 1)
				abort();
		}
		struct er_lvm_extent x;
		if (er_lvm_map(vg, l, total, &x, &err) != ER_LVM_RANGE)
			abort();
	}
}

/* the model (about 94 KiB) is an output only: one static copy keeps the runs fast */
static struct er_lvm_vg the_vg;

static void text(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct er_lvm_vg *vg = &the_vg;
	struct er_lvm_error err;
	enum er_lvm_status r = er_lvm_vg_parse(t, size, vg, &err);
	if (r == ER_LVM_OK)
		check_model(vg);
	else if (err.status != r || r >= ER_LVM_COUNT)
		abort();
	free(t);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void fix_mda(struct dev *d, uint64_t at, uint64_t area)
{
	if (at > d->size || d->size - at < 512)
		return;
	uint8_t *h = d->data + at;
	uint64_t size = get64(h + 32), off = get64(h + 40), n = get64(h + 48);
	if (size > 512 && size <= area && off >= 512 && off < size && n && n <= size - 512) {
		uint64_t wrap = off + n > size ? off + n - size : 0;
		if (at + off + (n - wrap) <= d->size && at + 512 + wrap <= d->size) {
			uint32_t c = er_crc32_le(ER_LVM_INITIAL_CRC, d->data + at + off, (size_t)(n - wrap));
			c = er_crc32_le(c, d->data + at + 512, (size_t)wrap);
			put32(h + 56, c);
		}
	}
	put32(h, er_crc32_le(ER_LVM_INITIAL_CRC, h + 4, 508));
}

static void device(const uint8_t *data, size_t size, bool fix)
{
	struct dev d = { malloc(size ? size : 1), size };
	memcpy(d.data, data, size);
	uint8_t head[ER_LVM_LABEL_BYTES];
	memset(head, 0, sizeof(head));
	memcpy(head, d.data, size < sizeof(head) ? size : sizeof(head));
	if (fix) {
		for (unsigned s = 0; s < 4; s++) {
			uint8_t *sec = head + 512 * s;
			if (memcmp(sec, "LABELONE", 8))
				continue;
			memset(sec + 8, 0, 8);
			sec[8] = (uint8_t)s;
			put32(sec + 16, er_crc32_le(ER_LVM_INITIAL_CRC, sec + 20, 492));
		}
		memcpy(d.data, head, size < sizeof(head) ? size : sizeof(head));
	}
	struct er_lvm_label lab;
	struct er_lvm_error err;
	enum er_lvm_status r = er_lvm_pv_probe(head, sizeof(head), 0, &lab, &err);
	if (r != ER_LVM_OK) {
		if (err.status != r)
			abort();
		free(d.data);
		return;
	}
	if (lab.n_mdas > ER_LVM_PV_MDAS || lab.sector > 3 || strlen(lab.uuid) != ER_LVM_UUID_LEN)
		abort();
	size_t cap = 1 << 16;
	for (unsigned m = 0; m < lab.n_mdas; m++) {
		if (lab.mda[m].offset % 512 || lab.mda[m].size <= 512)
			abort();
		if (fix)
			fix_mda(&d, lab.mda[m].offset, lab.mda[m].size);
		char *t = malloc(cap);
		size_t len = 0;
		struct er_lvm_text_info info;
		r = er_lvm_mda_text(&lab, m, dev_read, &d, t, cap, &len, &info, &err);
		if (r == ER_LVM_OK) {
			if (len == 0 || len > cap || info.size != len || info.wrap >= len ||
			    info.text_offset + len - info.wrap > lab.mda[m].size)
				abort();
			char *exact = malloc(len);
			memcpy(exact, t, len);
			struct er_lvm_vg *vg = &the_vg;
			r = er_lvm_vg_parse(exact, len, vg, &err);
			if (r == ER_LVM_OK) {
				check_model(vg);
				if (er_lvm_vg_compare(vg, vg) != ER_LVM_CMP_SAME)
					abort();
				er_lvm_vg_attach(vg, &lab, 0, size, &err);
			} else if (err.status != r) {
				abort();
			}
			free(exact);
		} else if (err.status != r || len != 0) {
			abort();
		}
		free(t);
	}
	free(d.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: text(data + 1, size - 1); break;
	case 1: device(data + 1, size - 1, false); break;
	default: device(data + 1, size - 1, true); break;
	}
	return 0;
}
