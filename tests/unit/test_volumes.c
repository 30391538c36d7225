// SPDX-License-Identifier: GPL-2.0-or-later
/* The volume layer's VG assemblies (loader/vgs.c) on synthetic PVs in memory, with a
 * poisoning allocator: freed memory is filled with 0xA5 and never handed back to libc
 * until the test ends, so that a device still pointing into a freed VG reads poison
 * (in both builds), and every allocation is counted.
 *
 * The call sequence is loader/volumes.c's: visible_now() assembles and maps the LVs for
 * a look after every unlocked container (er_vgs_drop), er_volumes_open() once more for
 * the devices it hands out (er_vgs_keep). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loader/vgs.h"
#include "loader/twins.h"
#include "luks_fixture.h"  /* luks_hdr_fill */
#include "image/crc32.h"

#define NDEV 8
#define DEV_BYTES (1024 * 1024 + 4 * 4096)

static uint8_t *disk[NDEV];
static char ids[NDEV][16];

/* ---- the poisoning allocator */

struct blk {
	struct blk *next;
	size_t size;
	int freed;
	max_align_t pad[];
};
static struct blk *blocks;
static long live;

static void *p_alloc(void *ctx, size_t n)
{
	(void)ctx;
	struct blk *b = calloc(1, sizeof(*b) + n);
	assert_non_null(b);
	b->size = n;
	b->next = blocks;
	blocks = b;
	live++;
	return b->pad;
}

static void p_free(void *ctx, void *p)
{
	(void)ctx;
	if (!p)
		return;
	struct blk *b = (struct blk *)((char *)p - offsetof(struct blk, pad));
	assert_int_equal(b->freed, 0);
	b->freed = 1;
	memset(p, 0xA5, b->size);
	live--;
}

static void p_release_all(void)
{
	while (blocks) {
		struct blk *n = blocks->next;
		free(blocks);
		blocks = n;
	}
	live = 0;
}

static int d_read(void *ctx, unsigned dev, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	if (dev >= NDEV || !disk[dev] || off > DEV_BYTES || len > DEV_BYTES - off)
		return -1;
	memcpy(buf, disk[dev] + off, len);
	return 0;
}

static void d_log(void *ctx, bool warn, const char *line)
{
	(void)ctx;
	(void)warn;
	(void)line;
}

static const struct er_vgs_ops ops = { NULL, d_read, p_alloc, p_free, d_log };

/* ---- synthetic PVs: one VG "vg<i>" with one LV "swap" per device */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t lcrc(const void *p, size_t n) { return er_crc32_le(0xf597a6cfu, p, n); }

static void id32(char *out, char tag, unsigned i)
{
	for (unsigned k = 0; k < 32; k++)
		out[k] = (char)('a' + (k + i) % 26);
	out[0] = tag;
	out[1] = (char)('0' + i);
	out[32] = 0;
}

static void dashed(char *out, const char *id)
{
	static const int cut[] = { 6, 10, 14, 18, 22, 26 };
	unsigned o = 0, c = 0;
	for (unsigned k = 0; k < 32; k++) {
		if (c < 6 && (int)k == cut[c]) {
			out[o++] = '-';
			c++;
		}
		out[o++] = id[k];
	}
	out[o] = 0;
}

static void make_pv(unsigned i, struct er_vgs_pv *pv)
{
	uint8_t *d = calloc(1, DEV_BYTES);
	char pvid[33], vgid[33], lvid[33], pvd[40], vgd[40], lvd[40], text[2048];
	assert_non_null(d);
	id32(pvid, 'P', i);
	id32(vgid, 'V', i);
	id32(lvid, 'L', i);
	dashed(pvd, pvid);
	dashed(vgd, vgid);
	dashed(lvd, lvid);
	/* label in sector 1 */
	uint8_t *s = d + 512;
	memcpy(s, "LABELONE", 8);
	put64(s + 8, 1);
	put32(s + 20, 32);
	memcpy(s + 24, "LVM2 001", 8);
	memcpy(s + 32, pvid, 32);
	put64(s + 64, DEV_BYTES);
	put64(s + 72, 1024 * 1024);   /* data area */
	put64(s + 80, 0);
	/* s + 88: end of the data list */
	put64(s + 104, 4096);         /* metadata area */
	put64(s + 112, 1024 * 1024 - 4096);
	/* s + 120: end of the metadata list */
	put32(s + 16, lcrc(s + 20, 512 - 20));
	int n = snprintf(text, sizeof(text),
			 "vg%u {\nid = \"%s\"\nseqno = 1\nformat = \"lvm2\"\nstatus = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\n"
			 "flags = []\nextent_size = 8\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\n"
			 "physical_volumes {\npv0 {\nid = \"%s\"\ndevice = \"/dev/x\"\nstatus = [\"ALLOCATABLE\"]\n"
			 "flags = []\ndev_size = %u\npe_start = 2048\npe_count = 4\n}\n}\n"
			 "logical_volumes {\nswap {\nid = \"%s\"\nstatus = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\n"
			 "segment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\ntype = \"striped\"\n"
			 "stripe_count = 1\nstripes = [\n\"pv0\", 0\n]\n}\n}\n}\n}\n"
			 "contents = \"Text Format Volume Group\"\nversion = 1\n",
			 i, vgd, pvd, DEV_BYTES / 512, lvd);
	assert_true(n > 0 && n < (int)sizeof(text));
	uint8_t *h = d + 4096;
	memcpy(h + 4, " LVM2 x[5A%r0N*>", 16);
	put32(h + 20, 1);
	put64(h + 24, 4096);
	put64(h + 32, 1024 * 1024 - 4096);
	put64(h + 40, 512);
	put64(h + 48, (uint64_t)n);
	put32(h + 56, lcrc(text, (size_t)n));
	put32(h + 60, 0);
	put32(h, lcrc(h + 4, 512 - 4));
	memcpy(h + 512, text, (size_t)n);
	disk[i] = d;
	snprintf(ids[i], sizeof(ids[i]), "disk %u", i);
	memset(pv, 0, sizeof(*pv));
	pv->dev = i;
	pv->size = DEV_BYTES;
	pv->id = ids[i];
	struct er_lvm_error e = { 0 };
	assert_int_equal(er_lvm_pv_probe(d, 2048, DEV_BYTES, &pv->label, &e), ER_LVM_OK);
}

/* ---- the LV devices, as loader/lvdev.c makes them */

struct lvdev {
	const struct er_lvm_vg *vg;
	unsigned lv;
	char name[ER_LVM_NAME_MAX];
};

static unsigned map_lvs(struct er_vgs *a, struct lvdev **out, unsigned cap)
{
	unsigned n = 0;
	for (unsigned k = 0; k < a->n; k++)
		for (unsigned l = 0; l < a->vg[k]->n_lvs; l++) {
			struct er_lvm_error e = { 0 };
			if (a->conflict[k] || er_lvm_lv_check(a->vg[k], l, &e) != ER_LVM_OK)
				continue;
			struct lvdev *d = p_alloc(NULL, sizeof(*d));
			d->vg = a->vg[k];
			d->lv = l;
			snprintf(d->name, sizeof(d->name), "%s", a->vg[k]->name);
			assert_int_equal(er_vgs_add_dev(a, d), 0);
			if (out && n < cap)
				out[n] = d;
			n++;
		}
	return n;
}

static struct er_vgs_pv pvs[NDEV];

static int setup(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NDEV; i++)
		make_pv(i, &pvs[i]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NDEV; i++)
		free(disk[i]);
	return 0;
}

/* 6 VGs, 2 looks (2 containers unlocked), then the final assembly: every LV device
 * handed out must still see its VG (issue 15 defect 1: the 17th VG kept was freed). */
static void t_looks_then_final(void **state)
{
	(void)state;
	struct er_vgs_set set = { &ops, NULL };
	struct er_vgs *a;
	struct lvdev *devs[16];

	for (int look = 0; look < 2; look++) {
		assert_int_equal(er_vgs_assemble(&set, pvs, 6, &a), 0);
		assert_int_equal(a->n, 6);
		assert_int_equal(map_lvs(a, NULL, 0), 6);
		er_vgs_drop(&set, a);
	}
	assert_int_equal(er_vgs_assemble(&set, pvs, 6, &a), 0);
	unsigned n = map_lvs(a, devs, 16);
	assert_int_equal(n, 6);
	er_vgs_keep(&set, a);
	/* what find, the stale check, the image read and the signature write do */
	for (unsigned i = 0; i < n; i++) {
		struct er_lvm_extent ext;
		struct er_lvm_error e = { 0 };
		if ((uint8_t)devs[i]->vg->name[0] == 0xA5)
			fail_msg("LV device %u (VG %s) points into a freed VG", i, devs[i]->name);
		assert_string_equal(devs[i]->vg->name, devs[i]->name);
		assert_int_equal(er_lvm_map(devs[i]->vg, devs[i]->lv, 0, &ext, &e), ER_LVM_OK);
		assert_int_equal(ext.pv_sector, 2048);
		assert_int_equal(devs[i]->vg->pv[ext.pv].device, (int)(devs[i]->vg->name[2] - '0'));
	}
	p_release_all();
}

/* A look gives back everything it took: its VGs and its devices. */
static void t_look_frees_all(void **state)
{
	(void)state;
	struct er_vgs_set set = { &ops, NULL };
	struct er_vgs *a;
	for (int look = 0; look < 7; look++) {
		long before = live;
		assert_int_equal(er_vgs_assemble(&set, pvs, NDEV, &a), 0);
		assert_int_equal(a->n, ER_VGS_MAX);
		assert_int_equal(map_lvs(a, NULL, 0), ER_VGS_MAX);
		er_vgs_drop(&set, a);
		assert_int_equal(live, before);
	}
	p_release_all();
}

/* ---- LUKS twins (issue 15 defect 3): one header on two devices */

static void t_twins(void **state)
{
	(void)state;
	static struct er_luks_header h[4];
	bool ok[4] = { true, true, true, true }, refused[4];
	unsigned lead[4];
	const char *u = "6ce86568-1c76-4e86-844e-0579d53755ed", *U = "6CE86568-1C76-4E86-844E-0579D53755ED";

	/* md RAID1 0.90/1.0: the same header on both members (and a stranger) */
	luks_hdr_fill(&h[0], u);
	luks_hdr_fill(&h[1], "11111111-2222-3333-4444-555555555555");
	luks_hdr_fill(&h[2], U);
	/* padding and the copy used do not matter */
	h[2].copy = 1;
	h[2].secondary_ok = true;
	er_luks_twins(h, ok, 3, lead, refused);
	assert_int_equal(lead[0], 0);
	assert_int_equal(lead[1], 1);
	assert_int_equal(lead[2], 0);
	assert_false(refused[0] || refused[1] || refused[2]);

	/* one UUID, different keys: none of them */
	luks_hdr_fill(&h[3], u);
	h[3].digest.digest[5] ^= 1;
	er_luks_twins(h, ok, 4, lead, refused);
	assert_int_equal(lead[3], 0);
	assert_true(refused[0] && refused[2] && refused[3]);
	assert_false(refused[1]);
	luks_hdr_fill(&h[3], u);
	h[3].ks[0].area_offset += 4096;
	er_luks_twins(h, ok, 4, lead, refused);
	assert_true(refused[0] && refused[2] && refused[3]);

	/* a header that could not be read still has its UUID (the probe's): its group
	 * cannot be shown to be one header, none of it is unlocked (issue 24 finding 4) */
	luks_hdr_fill(&h[3], u);
	ok[0] = false;
	er_luks_twins(h, ok, 4, lead, refused);
	assert_int_equal(lead[0], 2);
	assert_int_equal(lead[2], 2);
	assert_int_equal(lead[3], 2);
	assert_true(refused[2] && refused[3]);
	assert_false(refused[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_looks_then_final),
		cmocka_unit_test(t_look_frees_all),
		cmocka_unit_test(t_twins),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
