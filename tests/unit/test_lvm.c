// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for volume/lvm.c (LVM2 labels, metadata areas, text metadata, mapping).
 *
 * The oracle is lvm2 itself: tests/lib/mklvm.sh builds physical volumes with the
 * real tools on loop devices (cached in $EFIRESUME_CACHE/lvm) and records what
 * pvck --dump headers / --dump metadata, vgs, pvs and lvs --segments report. Every
 * PV's label and metadata areas, the text (byte for byte against pvck's), the VG
 * model and the mapping of every LV segment (against lvs' PE ranges) must agree.
 * Corruptions are made on copies of those real devices; CRCs that a test has to
 * recompute use zlib's crc32, not the code under test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <zlib.h>
#include <cmocka.h>

#include "volume/lvm.h"

static char top[1024], dir[1200];

/* lvm2's calc_crc through zlib: zlib's crc32 is ~crc32_le(~c, ...) */
static uint32_t z_lvm_crc(const void *p, size_t n)
{
	return (uint32_t)crc32(ER_LVM_INITIAL_CRC ^ 0xffffffffu, p, (uInt)n) ^ 0xffffffffu;
}

static void find_top(void)
{
	const char *env = getenv("EFIRESUME_TOP");
	char guess[1024];
	if (env && *env) {
		snprintf(top, sizeof(top), "%s", env);
		return;
	}
	snprintf(guess, sizeof(guess), "%s", __FILE__);
	char *cut = strstr(guess, "tests/unit/");
	if (cut && cut != guess) {
		*cut = 0;
		snprintf(top, sizeof(top), "%s", guess);
		return;
	}
	snprintf(top, sizeof(top), ".");
}

/* ------------------------------------------------------------------ devices */

struct dev {
	uint8_t *data;
	size_t size;
	int fail_at;        /* >= 0: the read number that fails */
	int reads;
};

static int dev_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct dev *d = ctx;
	if (d->fail_at >= 0 && d->reads++ == d->fail_at)
		return -1;
	if (off > d->size || len > d->size - off)
		return -1;
	memcpy(buf, d->data + off, len);
	return 0;
}

/* A private mapping: pages are read as touched, and a test's corruptions stay in
 * memory (the PVs are up to 96 MiB, mostly holes). */
static bool load(const char *path, struct dev *d)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || st.st_size == 0) {
		close(fd);
		return false;
	}
	d->size = (size_t)st.st_size;
	d->data = mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(d->data != MAP_FAILED);
	d->fail_at = -1;
	d->reads = 0;
	return true;
}

static void unload(struct dev *d)
{
	munmap(d->data, d->size);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)sz + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* ------------------------------------------------------------------ the oracle */

#define MAXPV 8
#define MAXREC 512

struct orec {
	char kind[8];
	char f[8][160];
	int nf;
};

struct layout {
	const char *name;
	unsigned npv;
	struct dev pv[MAXPV];
	struct orec rec[MAXREC];
	unsigned nrec;
};

static void read_oracle(struct layout *L)
{
	char path[1400], line[1024];
	snprintf(path, sizeof(path), "%s/%s.oracle", dir, L->name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	L->nrec = 0;
	while (fgets(line, sizeof(line), f)) {
		struct orec *r = &L->rec[L->nrec];
		char *save = NULL, *tok = strtok_r(line, " \n", &save);
		if (!tok)
			continue;
		assert_true(L->nrec < MAXREC);
		memset(r, 0, sizeof(*r));
		snprintf(r->kind, sizeof(r->kind), "%s", tok);
		/* "seg" keeps the PE ranges (the rest of the line) as its last field */
		unsigned max = strcmp(r->kind, "seg") == 0 ? 6 : 8;
		while (r->nf < (int)max && (tok = strtok_r(NULL, r->nf + 1 == (int)max ? "\n" : " \n", &save)))
			snprintf(r->f[r->nf++], sizeof(r->f[0]), "%s", tok);
		L->nrec++;
	}
	fclose(f);
	for (L->npv = 0; L->npv < MAXPV; L->npv++) {
		snprintf(path, sizeof(path), "%s/%s.pv%u.img", dir, L->name, L->npv);
		if (!load(path, &L->pv[L->npv]))
			break;
	}
	assert_true(L->npv > 0);
}

static void free_layout(struct layout *L)
{
	for (unsigned i = 0; i < L->npv; i++)
		unload(&L->pv[i]);
	free(L);
}

static struct layout *get(const char *name)
{
	struct layout *L = calloc(1, sizeof(*L));
	assert_non_null(L);
	L->name = name;
	read_oracle(L);
	return L;
}

static const struct orec *find_rec(const struct layout *L, const char *kind, const char *f0, const char *f1)
{
	for (unsigned i = 0; i < L->nrec; i++) {
		const struct orec *r = &L->rec[i];
		if (strcmp(r->kind, kind) == 0 && (!f0 || strcmp(r->f[0], f0) == 0) && (!f1 || strcmp(r->f[1], f1) == 0))
			return r;
	}
	return NULL;
}

static unsigned long long num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static const char *layouts[] = { "debian", "segs", "span", "refuse", "wrap", "stale", "exotic", "sect4k" };

static int setup(void **state)
{
	(void)state;
	char cmd[2600];
	find_top();
	const char *cache = getenv("EFIRESUME_CACHE");
	if (cache && *cache)
		snprintf(dir, sizeof(dir), "%s/lvm", cache);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/lvm", top);
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/lib/mklvm.sh' '%s'", top, dir);
	int rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "test_lvm: %s failed (%d): the tests need root, loop devices and lvm2\n", cmd, rc);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ labels */

static void test_probe_real(void **state)
{
	(void)state;
	unsigned checked = 0, mdas = 0;
	for (unsigned k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		struct layout *L = get(layouts[k]);
		for (unsigned i = 0; i < L->npv; i++) {
			char n[16];
			snprintf(n, sizeof(n), "%u", i);
			const struct orec *lr = find_rec(L, "label", n, NULL);
			assert_non_null(lr);
			struct er_lvm_label lab;
			struct er_lvm_error err;
			assert_int_equal(er_lvm_pv_probe(L->pv[i].data, ER_LVM_LABEL_BYTES, L->pv[i].size, &lab, &err), ER_LVM_OK);
			assert_int_equal(lab.sector, num(lr->f[1]));
			assert_string_equal(lab.uuid, lr->f[2]);
			assert_int_equal(lab.dev_size, num(lr->f[3]));
			assert_int_equal(lab.data_offset, num(lr->f[4]));
			unsigned want = 0;
			for (unsigned m = 1; m <= 2; m++) {
				char ms[16];
				snprintf(ms, sizeof(ms), "%u", m);
				const struct orec *mr = find_rec(L, "mda", n, ms);
				if (!mr)
					continue;
				want++;
				assert_int_equal(lab.mda[m - 1].offset, num(mr->f[2]));
				/* the PV header's size of the area = the mda_header's size */
				assert_int_equal(lab.mda[m - 1].size, num(mr->f[3]));
				mdas++;
			}
			assert_int_equal(lab.n_mdas, want);
			checked++;
		}
		free_layout(L);
	}
	assert_true(checked >= 12);
	assert_true(mdas >= 11);
	/* not a PV: zeros, and the label's own sector taken away */
	uint8_t *z = calloc(1, ER_LVM_LABEL_BYTES);
	struct er_lvm_label lab;
	struct er_lvm_error err;
	assert_int_equal(er_lvm_pv_probe(z, ER_LVM_LABEL_BYTES, 0, &lab, &err), ER_LVM_NOT_PV);
	assert_int_equal(err.status, ER_LVM_NOT_PV);
	assert_int_equal(er_lvm_pv_probe(z, 1024, 0, &lab, &err), ER_LVM_NOT_PV);
	free(z);
}

/* label corruptions on the real Debian PV; recomputed CRCs come from zlib */
static void test_probe_corrupt(void **state)
{
	(void)state;
	struct layout *L = get("debian");
	uint8_t h[ER_LVM_LABEL_BYTES], c[ER_LVM_LABEL_BYTES];
	struct er_lvm_label lab, ref;
	struct er_lvm_error err;
	memcpy(h, L->pv[0].data, sizeof(h));
	assert_int_equal(er_lvm_pv_probe(h, sizeof(h), L->pv[0].size, &ref, &err), ER_LVM_OK);
	unsigned s = ref.sector;
	uint8_t *lh = c + 512 * s;

	/* the CRC as lvm2 computes it (zlib) is what the label carries */
	assert_int_equal(z_lvm_crc(h + 512 * s + 20, 492), *(uint32_t *)(h + 512 * s + 16));

	memcpy(c, h, sizeof(c));
	lh[100] ^= 1;   /* inside the PV header: CRC fails */
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), 0, &lab, &err), ER_LVM_CORRUPT);
	assert_non_null(strstr(err.detail, "CRC"));

	/* the label moved to sector 3 (sector field and CRC updated): found there */
	memcpy(c, h, sizeof(c));
	memset(lh, 0, 512);
	memcpy(c + 512 * 3, h + 512 * s, 512);
	c[512 * 3 + 8] = 3;
	uint32_t crc = z_lvm_crc(c + 512 * 3 + 20, 492);
	memcpy(c + 512 * 3 + 16, &crc, 4);
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), 0, &lab, &err), ER_LVM_OK);
	assert_int_equal(lab.sector, 3);
	assert_string_equal(lab.uuid, ref.uuid);
	/* ... but with its old sector number it is refused */
	c[512 * 3 + 8] = (uint8_t)s;
	crc = z_lvm_crc(c + 512 * 3 + 20, 492);
	memcpy(c + 512 * 3 + 16, &crc, 4);
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), 0, &lab, &err), ER_LVM_CORRUPT);

	/* a metadata area past the end of the device (valid CRC) */
	memcpy(c, h, sizeof(c));
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), ref.mda[0].offset + 1000, &lab, &err), ER_LVM_CORRUPT);
	/* area lists that never end inside the sector */
	memcpy(c, h, sizeof(c));
	uint32_t off = *(uint32_t *)(lh + 20);
	for (uint8_t *p = lh + off + 40; p + 16 <= lh + 512; p += 16) {
		memset(p, 0, 16);
		p[1] = 0x10;
		p[9] = 0x10;
	}
	crc = z_lvm_crc(lh + 20, 492);
	memcpy(lh + 16, &crc, 4);
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), 0, &lab, &err), ER_LVM_CORRUPT);
	/* a third metadata area: beyond the limit */
	memcpy(c, h, sizeof(c));
	uint8_t *m = lh + off + 40 + 16 * 2;   /* data area, end, then mda list */
	for (unsigned k = 0; k < 3; k++) {
		uint64_t o = 4096 + 8192 * k, z = 4096;
		memcpy(m + 16 * k, &o, 8);
		memcpy(m + 16 * k + 8, &z, 8);
	}
	memset(m + 48, 0, 16);
	crc = z_lvm_crc(lh + 20, 492);
	memcpy(lh + 16, &crc, 4);
	assert_int_equal(er_lvm_pv_probe(c, sizeof(c), 0, &lab, &err), ER_LVM_LIMIT);
	free_layout(L);
}

/* ------------------------------------------------------------------ metadata areas */

static void test_mda_text_real(void **state)
{
	(void)state;
	unsigned texts = 0, wraps = 0, empty = 0, ignored = 0;
	size_t cap = 1 << 20;
	char *text = malloc(cap);
	for (unsigned k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		struct layout *L = get(layouts[k]);
		for (unsigned i = 0; i < L->npv; i++) {
			struct er_lvm_label lab;
			struct er_lvm_error err;
			assert_int_equal(er_lvm_pv_probe(L->pv[i].data, ER_LVM_LABEL_BYTES, L->pv[i].size, &lab, &err), ER_LVM_OK);
			for (unsigned m = 0; m < lab.n_mdas; m++) {
				char n[16], ms[16], path[1400];
				snprintf(n, sizeof(n), "%u", i);
				snprintf(ms, sizeof(ms), "%u", m + 1);
				const struct orec *mr = find_rec(L, "mda", n, ms);
				assert_non_null(mr);
				size_t len = 12345;
				struct er_lvm_text_info info;
				enum er_lvm_status r = er_lvm_mda_text(&lab, m, dev_read, &L->pv[i], text, cap, &len, &info, &err);
				if (num(mr->f[5]) == 0) {
					assert_int_equal(r, ER_LVM_NO_METADATA);
					assert_int_equal(len, 0);
					empty++;
					continue;
				}
				if (num(mr->f[7]) & 1) {
					assert_int_equal(r, ER_LVM_NO_METADATA);
					assert_non_null(strstr(err.detail, "ignored"));
					ignored++;
					continue;
				}
				if (r != ER_LVM_OK)
					fail_msg("%s pv%u mda%u: %s", L->name, i, m + 1, err.detail);
				assert_int_equal(info.area_offset, num(mr->f[2]));
				assert_int_equal(info.text_offset, num(mr->f[4]));
				assert_int_equal(info.size, num(mr->f[5]));
				assert_int_equal(info.crc, num(mr->f[6]));
				assert_int_equal(len, num(mr->f[5]));
				/* pvck writes the text without lvm2's final NUL */
				snprintf(path, sizeof(path), "%s/%s.pv%u.mda%u.txt", dir, L->name, i, m + 1);
				size_t tl = 0;
				char *want = slurp(path, &tl);
				assert_non_null(want);
				assert_int_equal(len, tl + 1);
				assert_memory_equal(text, want, tl);
				assert_int_equal(text[tl], 0);
				free(want);
				if (info.wrap) {
					assert_true(info.text_offset + info.size > lab.mda[m].size);
					wraps++;
				}
				texts++;
			}
		}
		free_layout(L);
	}
	assert_true(texts >= 10);
	assert_true(wraps >= 1);    /* the wrap layout's first area */
	assert_int_equal(empty, 1); /* the orphan PV */
	assert_int_equal(ignored, 1);
	free(text);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void rehdr(uint8_t *h) { put32(h, z_lvm_crc(h + 4, 508)); }

static void test_mda_corrupt(void **state)
{
	(void)state;
	struct layout *L = get("wrap");
	struct dev *d = &L->pv[0];
	struct er_lvm_label lab;
	struct er_lvm_error err;
	struct er_lvm_text_info info;
	size_t cap = 1 << 16, len;
	char *text = malloc(cap);
	assert_int_equal(er_lvm_pv_probe(d->data, ER_LVM_LABEL_BYTES, d->size, &lab, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, &info, &err), ER_LVM_OK);
	assert_true(info.wrap > 0);
	uint8_t *h = d->data + lab.mda[0].offset, save[512];
	memcpy(save, h, 512);

	/* the header's CRC */
	h[300] ^= 0x40;
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	/* magic, version, start: CRC right, field wrong */
	h[5] ^= 1; rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	put32(h + 20, 2); rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_UNSUPPORTED);
	memcpy(h, save, 512);
	put64(h + 24, lab.mda[0].offset + 512); rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	put64(h + 32, lab.mda[0].size + 512); rehdr(h);   /* bigger than the area */
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	/* raw_locn: offset inside the header, size larger than the buffer area,
	 * a wrap that would overlap the start of the text, unknown flags */
	put64(h + 40, 256); rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	put64(h + 48, lab.mda[0].size); rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	memcpy(h, save, 512);
	put64(h + 40, lab.mda[0].size - 1024);
	put64(h + 48, lab.mda[0].size - 511); rehdr(h);   /* one byte more than the buffer holds */
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	assert_non_null(strstr(err.detail, "outside"));
	memcpy(h, save, 512);
	put32(h + 60, 2); rehdr(h);
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_UNSUPPORTED);
	memcpy(h, save, 512);
	/* the text: one byte in the wrapped part, one in the first part */
	d->data[lab.mda[0].offset + 512 + info.wrap - 1] ^= 0x20;
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	assert_non_null(strstr(err.detail, "CRC"));
	d->data[lab.mda[0].offset + 512 + info.wrap - 1] ^= 0x20;
	d->data[lab.mda[0].offset + info.text_offset] ^= 0x20;
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_CORRUPT);
	d->data[lab.mda[0].offset + info.text_offset] ^= 0x20;
	/* buffer too small, read errors at each of the three reads */
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, info.size - 1, &len, NULL, &err), ER_LVM_LIMIT);
	for (int f = 0; f < 3; f++) {
		d->fail_at = f;
		d->reads = 0;
		assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_IO);
	}
	d->fail_at = -1;
	assert_int_equal(er_lvm_mda_text(&lab, 0, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_mda_text(&lab, 2, dev_read, d, text, cap, &len, NULL, &err), ER_LVM_NO_METADATA);
	free(text);
	free_layout(L);
}

/* ------------------------------------------------------------------ VG model and mapping */

/* Builds the VG of a layout as the loader would: every PV's areas, newest copy. */
static struct er_lvm_vg *assemble(struct layout *L, unsigned use_mask, unsigned *older_seen)
{
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg)), *cand = calloc(1, sizeof(*cand));
	size_t cap = 1 << 20, len;
	char *text = malloc(cap);
	bool have = false;
	struct er_lvm_label lab[MAXPV];
	struct er_lvm_error err;
	for (unsigned i = 0; i < L->npv; i++) {
		assert_int_equal(er_lvm_pv_probe(L->pv[i].data, ER_LVM_LABEL_BYTES, L->pv[i].size, &lab[i], &err), ER_LVM_OK);
		for (unsigned m = 0; m < lab[i].n_mdas; m++) {
			if (er_lvm_mda_text(&lab[i], m, dev_read, &L->pv[i], text, cap, &len, NULL, &err) != ER_LVM_OK)
				continue;
			if (er_lvm_vg_parse(text, len, cand, &err) != ER_LVM_OK)
				fail_msg("%s pv%u: %s", L->name, i, err.detail);
			enum er_lvm_cmp c = have ? er_lvm_vg_compare(vg, cand) : ER_LVM_CMP_NEWER;
			assert_int_not_equal(c, ER_LVM_CMP_CONFLICT);
			assert_int_not_equal(c, ER_LVM_CMP_OTHER_VG);
			if (c == ER_LVM_CMP_NEWER) {
				if (have && older_seen)
					(*older_seen)++;
				memcpy(vg, cand, sizeof(*vg));
				have = true;
			} else if (c == ER_LVM_CMP_OLDER && older_seen) {
				(*older_seen)++;
			}
		}
	}
	assert_true(have);
	for (unsigned i = 0; i < L->npv; i++)
		if (use_mask & (1u << i))
			er_lvm_vg_attach(vg, &lab[i], (int)i, L->pv[i].size, NULL);
	free(text);
	free(cand);
	return vg;
}

/* what lvs says about an LV: linear and nothing but public */
static bool lv_usable(const struct layout *L, const char *lv)
{
	const struct orec *r = find_rec(L, "lv", lv, NULL);
	assert_non_null(r);
	return strcmp(r->f[1], "linear") == 0 && strcmp(r->f[2], "public") == 0;
}

static void check_layout(const char *name)
{
	struct layout *L = get(name);
	unsigned older = 0;
	struct er_lvm_vg *vg = assemble(L, ~0u, &older);
	struct er_lvm_error err;
	const struct orec *vr = find_rec(L, "vg", NULL, NULL);
	assert_non_null(vr);
	assert_string_equal(vg->name, vr->f[0]);
	assert_string_equal(vg->uuid, vr->f[1]);
	assert_int_equal(vg->extent_size, num(vr->f[2]));
	assert_int_equal(vg->seqno, num(vr->f[3]));
	if (strcmp(name, "stale") == 0)
		assert_true(older >= 1);   /* pv1's copy was older, and not used */

	/* PVs: ids, pe_start, pe_count as pvs reports them; attached to their device */
	unsigned in_vg = 0;
	for (unsigned i = 0; i < L->nrec; i++) {
		const struct orec *r = &L->rec[i];
		if (strcmp(r->kind, "pv") || num(r->f[3]) == 0)
			continue;   /* pe_count 0: an orphan */
		bool found = false;
		for (unsigned p = 0; p < vg->n_pvs; p++)
			if (strcmp(vg->pv[p].uuid, r->f[1]) == 0) {
				assert_int_equal(vg->pv[p].pe_start, num(r->f[2]));
				assert_int_equal(vg->pv[p].pe_count, num(r->f[3]));
				assert_true(vg->pv[p].present);
				assert_int_equal(vg->pv[p].device, (int)num(r->f[0]));
				found = true;
			}
		assert_true(found);
		in_vg++;
	}
	assert_int_equal(vg->n_pvs, in_vg);

	/* every LV lvs lists: usable exactly when lvs calls it linear and public (not a
	 * snapshot's origin or store, not a sub-LV); a refusal names the reason */
	unsigned nlv = 0, usable = 0;
	for (unsigned i = 0; i < L->nrec; i++) {
		const struct orec *r = &L->rec[i];
		if (strcmp(r->kind, "lv"))
			continue;
		nlv++;
		int l = er_lvm_find_lv(vg, r->f[0], &err);
		assert_true(l >= 0);
		enum er_lvm_status st = er_lvm_lv_check(vg, (unsigned)l, &err);
		if (lv_usable(L, r->f[0])) {
			if (st != ER_LVM_OK)
				fail_msg("%s/%s: %s", name, r->f[0], err.detail);
			usable++;
			continue;
		}
		if (st != ER_LVM_UNSUPPORTED)
			fail_msg("%s/%s (%s %s): %s", name, r->f[0], r->f[1], r->f[2], err.detail);
		const struct orec *sr = find_rec(L, "seg", r->f[0], NULL);
		assert_non_null(sr);
		const char *why = strstr(r->f[2], "origin") ? "origin of" : strstr(r->f[2], "snapshot") ? "copy-on-write"
				: strcmp(sr->f[3], "linear") == 0 ? "internal" : strcmp(sr->f[3], "striped") == 0 ? "striped over"
				: sr->f[3];
		if (!strstr(err.detail, why))
			fail_msg("%s/%s: \"%s\" does not say \"%s\"", name, r->f[0], err.detail, why);
	}
	assert_true(usable >= 1);
	/* LVs lvs does not list (snapshotN) are refused too */
	assert_true(vg->n_lvs >= nlv);
	for (unsigned l = 0; l < vg->n_lvs; l++)
		if (!find_rec(L, "lv", vg->lv[l].name, NULL))
			assert_int_equal(er_lvm_lv_check(vg, l, &err), ER_LVM_UNSUPPORTED);

	/* every segment: start, middle and last sector, against lvs' PE ranges */
	unsigned maps = 0;
	uint64_t es = vg->extent_size;
	for (unsigned i = 0; i < L->nrec; i++) {
		const struct orec *r = &L->rec[i];
		if (strcmp(r->kind, "seg") || !lv_usable(L, r->f[0]))
			continue;
		int l = er_lvm_find_lv(vg, r->f[0], &err);
		assert_true(l >= 0);
		unsigned opv, a, b;
		assert_int_equal(sscanf(r->f[5], "pv%u:%u-%u", &opv, &a, &b), 3);
		uint64_t start = num(r->f[1]), size = num(r->f[2]);
		assert_int_equal(b - a + 1, size);
		const struct orec *pr = NULL;
		char n[16];
		snprintf(n, sizeof(n), "%u", opv);
		pr = find_rec(L, "pv", n, NULL);
		assert_non_null(pr);
		uint64_t probes[4] = { 0, size * es / 2 + 3, size * es - 1, es + 1 };
		for (unsigned q = 0; q < 4; q++) {
			uint64_t off = probes[q];
			if (off >= size * es)
				continue;
			struct er_lvm_extent x;
			if (er_lvm_map(vg, (unsigned)l, start * es + off, &x, &err) != ER_LVM_OK)
				fail_msg("%s/%s: %s", name, r->f[0], err.detail);
			assert_string_equal(vg->pv[x.pv].uuid, pr->f[1]);
			assert_int_equal(vg->pv[x.pv].device, (int)opv);
			assert_int_equal(x.pv_sector, num(pr->f[2]) + a * es + off);
			assert_int_equal(x.run, size * es - off);
			assert_true(x.pv_sector + x.run <= L->pv[opv].size / 512);
			maps++;
		}
	}
	assert_true(maps >= 4);
	/* past the end of each linear LV */
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		struct er_lvm_extent x;
		if (er_lvm_lv_check(vg, l, NULL) == ER_LVM_OK) {
			assert_int_equal(er_lvm_map(vg, l, er_lvm_lv_sectors(vg, l), &x, &err), ER_LVM_RANGE);
			assert_int_equal(er_lvm_map(vg, l, er_lvm_lv_sectors(vg, l) - 1, &x, &err), ER_LVM_OK);
			assert_int_equal(x.run, 1);
		}
	}
	free(vg);
	free_layout(L);
}

static void test_layout_debian(void **s) { (void)s; check_layout("debian"); }
static void test_layout_segs(void **s) { (void)s; check_layout("segs"); }
static void test_layout_span(void **s) { (void)s; check_layout("span"); }
static void test_layout_refuse(void **s) { (void)s; check_layout("refuse"); }
static void test_layout_wrap(void **s) { (void)s; check_layout("wrap"); }
static void test_layout_stale(void **s) { (void)s; check_layout("stale"); }
static void test_layout_exotic(void **s) { (void)s; check_layout("exotic"); }
static void test_layout_sect4k(void **s) { (void)s; check_layout("sect4k"); }

/* a VG over two PVs with only one of them present */
static void test_missing_pv(void **state)
{
	(void)state;
	struct layout *L = get("span");
	struct er_lvm_vg *vg = assemble(L, 1u, NULL);
	struct er_lvm_error err;
	struct er_lvm_extent x;
	int small = er_lvm_find_lv(vg, "span-vg/small", &err), big = er_lvm_find_lv(vg, "big", &err),
	    onb = er_lvm_find_lv(vg, "/dev/span-vg/onb", &err);
	assert_true(small >= 0 && big >= 0 && onb >= 0);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)small, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)big, &err), ER_LVM_MISSING_PV);
	assert_non_null(strstr(err.detail, "no device"));
	assert_int_equal(er_lvm_map(vg, (unsigned)big, 0, &x, &err), ER_LVM_MISSING_PV);
	assert_int_equal(er_lvm_map(vg, (unsigned)onb, 0, &x, &err), ER_LVM_MISSING_PV);
	/* a device too small for the PV's extents is not attached */
	struct er_lvm_label lab;
	assert_int_equal(er_lvm_pv_probe(L->pv[1].data, ER_LVM_LABEL_BYTES, 0, &lab, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_attach(vg, &lab, 1, 4 << 20, &err), -1);
	assert_int_equal(err.status, ER_LVM_CORRUPT);
	assert_true(er_lvm_vg_attach(vg, &lab, 1, L->pv[1].size, &err) >= 0);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)big, &err), ER_LVM_OK);
	/* attaching the same device again is harmless; another device with the same PV
	 * (a clone) makes the LVs on it refused */
	assert_true(er_lvm_vg_attach(vg, &lab, 1, L->pv[1].size, &err) >= 0);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)onb, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_attach(vg, &lab, 5, L->pv[1].size, &err), -1);
	assert_non_null(strstr(err.detail, "two devices"));
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)onb, &err), ER_LVM_CORRUPT);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)big, &err), ER_LVM_CORRUPT);
	assert_int_equal(er_lvm_lv_check(vg, (unsigned)small, &err), ER_LVM_OK);
	/* a PV of another VG */
	struct layout *D = get("debian");
	assert_int_equal(er_lvm_pv_probe(D->pv[0].data, ER_LVM_LABEL_BYTES, 0, &lab, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_attach(vg, &lab, 7, D->pv[0].size, &err), -1);
	assert_int_equal(err.status, ER_LVM_NOT_FOUND);
	free_layout(D);
	free(vg);
	free_layout(L);
}

static void test_find_lv(void **state)
{
	(void)state;
	struct layout *L = get("debian");
	struct er_lvm_vg *vg = assemble(L, 1u, NULL);
	struct er_lvm_error err;
	int l = er_lvm_find_lv(vg, "debian-vg/swap_1", &err);
	assert_true(l >= 0);
	assert_string_equal(vg->lv[l].name, "swap_1");
	assert_true(vg->lv[l].visible);
	assert_int_equal(er_lvm_find_lv(vg, "/dev/debian-vg/swap_1", &err), l);
	assert_int_equal(er_lvm_find_lv(vg, "/dev/mapper/debian--vg-swap_1", &err), l);
	assert_int_equal(er_lvm_find_lv(vg, "swap_1", &err), l);
	assert_int_not_equal(er_lvm_find_lv(vg, "debian-vg/root", &err), l);
	const char *bad[] = { "other-vg/swap_1", "/dev/mapper/debian-vg-swap_1", "debian-vg/swap", "debian-vg/swap_1/x",
			      "/dev/swap_1", "", "/dev/mapper/", "debian-vg/", "/dev/mapper/debian--vg" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(er_lvm_find_lv(vg, bad[i], &err), -1);
		assert_int_equal(err.status, ER_LVM_NOT_FOUND);
	}
	free(vg);
	free_layout(L);
}

/* ------------------------------------------------------------------ text edits */

/* The Debian PV's real text with one edit: replace the first `from` after `after`. */
static char *edited(const char *base, const char *after, const char *from, const char *to)
{
	const char *a = after ? strstr(base, after) : base;
	assert_non_null(a);
	const char *p = strstr(a, from);
	assert_non_null(p);
	size_t bl = strlen(base), fl = strlen(from), tl = strlen(to);
	char *o = malloc(bl - fl + tl + 1);
	memcpy(o, base, (size_t)(p - base));
	memcpy(o + (p - base), to, tl);
	memcpy(o + (p - base) + tl, p + fl, bl - (size_t)(p - base) - fl + 1);
	return o;
}

static char *debian_text(void)
{
	char path[1400];
	size_t n = 0;
	snprintf(path, sizeof(path), "%s/debian.pv0.mda1.txt", dir);
	char *t = slurp(path, &n);
	assert_non_null(t);
	t = realloc(t, n + 1);
	t[n] = 0;
	return t;
}

static enum er_lvm_status parse_str(const char *t, struct er_lvm_vg *vg, struct er_lvm_error *err)
{
	return er_lvm_vg_parse(t, strlen(t) + 1, vg, err);
}

static bool root_fine = true;   /* lv_status: root must stay usable when swap_1 is refused */

static void lv_status(const char *t, const char *lv, enum er_lvm_status want, const char *msg)
{
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg));
	struct er_lvm_error err;
	if (parse_str(t, vg, &err) != ER_LVM_OK)
		fail_msg("parse: %s", err.detail);
	int l = er_lvm_find_lv(vg, lv, &err);
	assert_true(l >= 0);
	vg->pv[0].present = true;
	enum er_lvm_status st = er_lvm_lv_check(vg, (unsigned)l, &err);
	if (st != want)
		fail_msg("%s: status %s, want %s (%s)", lv, er_lvm_status_name(st), er_lvm_status_name(want), err.detail);
	if (msg && !strstr(err.detail, msg))
		fail_msg("%s: \"%s\" lacks \"%s\"", lv, err.detail, msg);
	/* root (or whatever else) is still usable when swap_1 is refused */
	if (root_fine && strcmp(lv, "swap_1") == 0 && want != ER_LVM_OK && want != ER_LVM_MISSING_PV) {
		l = er_lvm_find_lv(vg, "root", &err);
		assert_int_equal(er_lvm_lv_check(vg, (unsigned)l, &err), ER_LVM_OK);
	}
	free(vg);
}

static void test_text_layouts(void **state)
{
	(void)state;
	char *base = debian_text(), *t;
	lv_status(base, "swap_1", ER_LVM_OK, NULL);
	const char *types[] = { "thin", "thin-pool", "raid1", "raid5", "mirror", "snapshot", "cache", "cache-pool",
				"vdo", "error", "zero", "writecache", "integrity" };
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char to[64];
		snprintf(to, sizeof(to), "type = \"%s\"", types[i]);
		t = edited(base, "swap_1 {", "type = \"striped\"", to);
		lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, types[i]);
		free(t);
	}
	/* "linear" is lvm2's other name of the same segment type */
	t = edited(base, "swap_1 {", "type = \"striped\"", "type = \"linear\"");
	lv_status(t, "swap_1", ER_LVM_OK, NULL);
	free(t);
	/* no type: lvm2 reads "striped"; no stripe_count; no start_extent */
	t = edited(base, "swap_1 {", "type = \"striped\"", "");
	lv_status(t, "swap_1", ER_LVM_OK, NULL);
	free(t);
	t = edited(base, "swap_1 {", "stripe_count = 1", "");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "stripe_count");
	free(t);
	t = edited(base, "swap_1 {", "start_extent = 0", "");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "follow");
	free(t);
	/* two stripes */
	char *t2 = edited(base, "swap_1 {", "stripe_count = 1", "stripe_count = 2\nstripe_size = 128");
	t = edited(t2, "swap_1 {", "\"pv0\", 15", "\"pv0\", 15, \"pv0\", 19");
	lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, "striped over 2");
	free(t);
	free(t2);
	/* a stripes list that does not fit stripe_count */
	t = edited(base, "swap_1 {", "\"pv0\", 15", "\"pv0\", 15, \"pv0\", 19");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "stripes list of 4");
	free(t);
	/* stacked on an LV (pvmove) */
	t = edited(base, "swap_1 {", "\"pv0\", 15", "\"pvmove0\", 0");
	lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, "pvmove0");
	free(t);
	t = edited(base, "swap_1 {", "\"VISIBLE\"", "\"VISIBLE\", \"LOCKED\"");
	lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, "pvmove");
	free(t);
	/* the origin of a snapshot */
	t = edited(base, "logical_volumes {",
		   "swap_1 {", "snap { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\" status = [\"READ\"] segment_count = 1 "
		   "segment1 { start_extent = 0 extent_count = 1 type = \"snapshot\" chunk_size = 8 origin = \"swap_1\" "
		   "cow_store = \"root\" } }\nswap_1 {");
	root_fine = false;
	lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, "origin of snap");
	lv_status(t, "root", ER_LVM_UNSUPPORTED, "copy-on-write store of snap");
	root_fine = true;
	lv_status(t, "snap", ER_LVM_UNSUPPORTED, "snapshot");
	free(t);
	/* an LV without VISIBLE is a sub-LV */
	t = edited(base, "swap_1 {", "\"VISIBLE\"", "\"X\"");
	lv_status(t, "swap_1", ER_LVM_UNSUPPORTED, "internal");
	free(t);
	/* a PV flagged missing */
	t = edited(base, "pv0 {", "status = [\"ALLOCATABLE\"]", "status = [\"ALLOCATABLE\", \"MISSING\"]");
	lv_status(t, "swap_1", ER_LVM_MISSING_PV, "missing");
	free(t);
	/* segments that leave a gap, or overlap, or a wrong segment_count */
	t = edited(base, "swap_1 {", "start_extent = 0", "start_extent = 1");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "follow");
	free(t);
	t = edited(base, "swap_1 {", "segment_count = 1", "segment_count = 2");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "segment_count");
	free(t);
	/* extents past the PV's pe_count */
	t = edited(base, "swap_1 {", "\"pv0\", 15", "\"pv0\", 16");
	lv_status(t, "swap_1", ER_LVM_CORRUPT, "beyond");
	free(t);
	/* two segments given in reverse order are put in logical order */
	t = edited(base, "swap_1 {", "segment_count = 1", "segment_count = 2");
	t2 = edited(t, "swap_1 {", "extent_count = 8", "extent_count = 5");
	free(t);
	t = edited(t2, "swap_1 {", "segment1 {", "segment2 { start_extent = 5 extent_count = 3 type = \"striped\" "
		   "stripe_count = 1 stripes = [\"pv0\", 20] }\nsegment1 {");
	free(t2);
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg));
	struct er_lvm_error err;
	struct er_lvm_extent x;
	assert_int_equal(parse_str(t, vg, &err), ER_LVM_OK);
	vg->pv[0].present = true;
	int l = er_lvm_find_lv(vg, "swap_1", &err);
	assert_int_equal(vg->lv[l].n_segs, 2);
	assert_int_equal(er_lvm_map(vg, (unsigned)l, 5 * 8192 + 7, &x, &err), ER_LVM_OK);
	assert_int_equal(x.pv_sector, 2048 + 20 * 8192 + 7);
	assert_int_equal(x.run, 3 * 8192 - 7);
	assert_int_equal(er_lvm_map(vg, (unsigned)l, 4 * 8192, &x, &err), ER_LVM_OK);
	assert_int_equal(x.pv_sector, 2048 + 19 * 8192);
	assert_int_equal(x.run, 8192);
	free(t);
	free(vg);
	free(base);
}

static enum er_lvm_status vg_status(const char *t, const char *msg)
{
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg));
	struct er_lvm_error err = { 0, "" };
	enum er_lvm_status r = parse_str(t, vg, &err);
	if (r != ER_LVM_OK) {
		assert_int_equal(err.status, r);
		if (msg && !strstr(err.detail, msg))
			fail_msg("\"%s\" lacks \"%s\"", err.detail, msg);
		/* nothing half-parsed is left behind */
		assert_int_equal(vg->n_lvs, 0);
		assert_int_equal(vg->n_pvs, 0);
	}
	free(vg);
	return r;
}

static void test_text_syntax(void **state)
{
	(void)state;
	char *base = debian_text(), *t, *big;
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg));
	struct er_lvm_error err;
	assert_int_equal(vg_status(base, NULL), ER_LVM_OK);

	/* comments, escaped quotes, single quotes, floats, bare words, empty lists,
	 * unknown keys and sections are all accepted and ignored */
	t = edited(base, NULL, "contents = ", "# a comment { [ \" \n"
		   "quoted = \"a \\\"b\\\" \\\\ c # not a comment\"\nsq = 'x \\ y' f = 1.5 g = .5 bare = word\n"
		   "lst = [] lst2 = [1, \"two\", 3.0] other_section { k = 1 }\ncontents = ");
	assert_int_equal(vg_status(t, NULL), ER_LVM_OK);
	free(t);
	t = edited(base, "swap_1 {", "segment_count", "tags = [\"a\", \"b\"] # x\nhistorical { x = 1 }\nsegment_count");
	assert_int_equal(vg_status(t, NULL), ER_LVM_OK);
	free(t);
	/* a quoted section name, and a key in quotes */
	t = edited(base, "logical_volumes {", "root {", "\"root\" {");
	assert_int_equal(parse_str(t, vg, &err), ER_LVM_OK);
	assert_true(er_lvm_find_lv(vg, "root", &err) >= 0);
	free(t);
	/* only the first top-level section is the VG */
	size_t bl = strlen(base);
	big = malloc(bl + 64);
	snprintf(big, bl + 64, "%sanother-vg { id = \"x\" }\n", base);
	assert_int_equal(parse_str(big, vg, &err), ER_LVM_OK);
	assert_string_equal(vg->name, "debian-vg");
	free(big);
	/* the text stops at len or at a NUL, whichever comes first */
	assert_int_equal(er_lvm_vg_parse(base, strlen(base) - 3, vg, &err), ER_LVM_OK);
	const char *vge = strstr(base, "logical_volumes");
	assert_int_equal(er_lvm_vg_parse(base, (size_t)(vge - base), vg, &err), ER_LVM_CORRUPT);

	struct { const char *after, *from, *to, *msg; enum er_lvm_status st; } bad[] = {
		{ "swap_1 {", "extent_count = 8", "extent_count = 08", "leading zero", ER_LVM_CORRUPT },
		{ "swap_1 {", "extent_count = 8", "extent_count = -8", "negative", ER_LVM_CORRUPT },
		{ "swap_1 {", "extent_count = 8", "extent_count = 99999999999999999999", "too large", ER_LVM_CORRUPT },
		{ "swap_1 {", "extent_count = 8", "extent_count = \"8\"", "not an integer", ER_LVM_CORRUPT },
		{ NULL, "seqno = ", "seqno = [1]\nx = ", "seqno is a list", ER_LVM_CORRUPT },
		{ "swap_1 {", "type = ", "type = [\"striped\"]\nx = ", "type is a list", ER_LVM_CORRUPT },
		{ "swap_1 {", "stripes = [", "stripes = \"pv0\"\nx = [", "not a list", ER_LVM_CORRUPT },
		{ "swap_1 {", "\"pv0\", 15", "15, \"pv0\"", "not a name", ER_LVM_CORRUPT },
		{ NULL, "extent_size = ", "extent_sise = ", "extent_size", ER_LVM_CORRUPT },
		{ NULL, "extent_size = 8192", "extent_size = 0", "extent_size", ER_LVM_CORRUPT },
		{ "debian-vg {", "id = \"", "id = \"!", "id", ER_LVM_CORRUPT },
		{ "pv0 {", "id = \"", "id = \"x", "id", ER_LVM_CORRUPT },
		{ "pv0 {", "id = \"", "idx = \"", "no id", ER_LVM_CORRUPT },
		{ "debian-vg {", "seqno", "seqno = = ", "expected a value", ER_LVM_CORRUPT },
		{ "debian-vg {", "seqno", "seqno { } x", "no seqno", ER_LVM_CORRUPT },
		{ "pv0 {", "pe_start", "pe_begin", "lacks pe_start", ER_LVM_CORRUPT },
		{ "pv0 {", "pe_count", "pe_cnt", "lacks pe_start", ER_LVM_CORRUPT },
		{ "swap_1 {", "status = [", "status = [\"A\" [", "expected a value", ER_LVM_CORRUPT },
		{ "swap_1 {", "status = [", "status = [,", "expected a value", ER_LVM_CORRUPT },
		{ "swap_1 {", "status = [", "status = [ ]] x = [", "expected", ER_LVM_CORRUPT },
		{ NULL, "debian-vg {", "debian vg {", "expected", ER_LVM_CORRUPT },
		{ NULL, "debian-vg {", "-debian-vg {", "not a valid", ER_LVM_CORRUPT },
		{ "logical_volumes {", "root {", "r@@t {", "not a valid", ER_LVM_CORRUPT },
		{ "logical_volumes {", "root {", "swap_1 {", "listed twice", ER_LVM_CORRUPT },
		{ "physical_volumes {", "}", "} pv0 { id = \"x\" }", "listed twice", ER_LVM_CORRUPT },
		{ NULL, "physical_volumes {", "x = 1 }\n}\n} y {", "unexpected", ER_LVM_CORRUPT },
		{ "swap_1 {", "segment1 {", "a { b { c { d { e { f { } } } } } } segment1 {", "deeper", ER_LVM_LIMIT },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = edited(base, bad[i].after, bad[i].from, bad[i].to);
		enum er_lvm_status r = vg_status(t, bad[i].msg);
		if (r != bad[i].st)
			fail_msg("case %u (%s): %s, want %s", i, bad[i].to, er_lvm_status_name(r), er_lvm_status_name(bad[i].st));
		free(t);
	}
	/* an unterminated string at the very end; trailing garbage */
	assert_int_equal(vg_status("vg { id = \"abc", "unterminated"), ER_LVM_CORRUPT);
	assert_int_equal(vg_status("vg { id = 'abc", "unterminated"), ER_LVM_CORRUPT);
	assert_int_equal(vg_status("", "without a volume group"), ER_LVM_CORRUPT);
	assert_int_equal(vg_status("x = 1\n", "without a volume group"), ER_LVM_CORRUPT);
	assert_int_equal(vg_status("vg {", "ends inside"), ER_LVM_CORRUPT);
	free(vg);
	free(base);
}

/* the fixed limits: 16 PVs, 64 LVs per VG, 16 segments per LV */
static void test_text_limits(void **state)
{
	(void)state;
	char *base = debian_text();
	size_t cap = 1 << 20;
	char *t = malloc(cap), *extra = malloc(cap);
	struct er_lvm_vg *vg = calloc(1, sizeof(*vg));
	struct er_lvm_error err;

	for (unsigned n = 15; n <= 16; n++) {
		size_t o = 0;
		for (unsigned i = 1; i <= n; i++)
			o += (size_t)snprintf(extra + o, cap - o, "pv%u { id = \"%06u-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\" "
					      "pe_start = 2048 pe_count = 10 }\n", i, i);
		char *e = edited(base, "physical_volumes {", "pv0 {", "PLACEHOLDER pv0 {");
		char *f = edited(e, NULL, "PLACEHOLDER", extra);
		enum er_lvm_status r = parse_str(f, vg, &err);
		assert_int_equal(r, n == 15 ? ER_LVM_OK : ER_LVM_LIMIT);
		if (r == ER_LVM_OK)
			assert_int_equal(vg->n_pvs, 16);
		free(e);
		free(f);
	}
	for (unsigned n = 62; n <= 63; n++) {
		size_t o = 0;
		for (unsigned i = 0; i < n; i++)
			o += (size_t)snprintf(extra + o, cap - o, "lv%u { id = \"%06u-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\" "
					      "status = [\"VISIBLE\"] segment_count = 1 segment1 { start_extent = 0 "
					      "extent_count = 1 type = \"striped\" stripe_count = 1 stripes = [\"pv0\", %u] } }\n",
					      i, i, i % 23);
		char *f = edited(base, "logical_volumes {", "root {", "PLACEHOLDER root {");
		char *g = edited(f, NULL, "PLACEHOLDER", extra);
		enum er_lvm_status r = parse_str(g, vg, &err);
		assert_int_equal(r, n == 62 ? ER_LVM_OK : ER_LVM_LIMIT);
		if (r == ER_LVM_OK) {
			assert_int_equal(vg->n_lvs, 64);
			assert_int_equal(er_lvm_lv_check(vg, 63, &err), ER_LVM_MISSING_PV);   /* not attached */
		}
		free(f);
		free(g);
	}
	for (unsigned n = 16; n <= 17; n++) {
		size_t o = 0;
		for (unsigned i = 0; i < n; i++)
			o += (size_t)snprintf(extra + o, cap - o, "segment%u { start_extent = %u extent_count = 1 type = "
					      "\"striped\" stripe_count = 1 stripes = [\"pv0\", %u] }\n", i + 1, i, 22 - i);
		char head[64];
		snprintf(head, sizeof(head), "segment_count = %u\nPLACEHOLDER", n);
		char *f = edited(base, "swap_1 {", "segment_count = 1", head);
		char *g = edited(f, "swap_1 {", "segment1 {", "segmentX {");
		char *h = edited(g, NULL, "PLACEHOLDER", extra);
		/* drop the original segment1 (every LV subsection is a segment) */
		char *s1 = strstr(h, "segmentX {");
		char *e1 = strchr(strchr(s1, ']'), '}');
		memmove(s1, e1 + 1, strlen(e1 + 1) + 1);
		assert_int_equal(parse_str(h, vg, &err), ER_LVM_OK);
		int l = er_lvm_find_lv(vg, "swap_1", &err);
		vg->pv[0].present = true;
		enum er_lvm_status st = er_lvm_lv_check(vg, (unsigned)l, &err);
		if (st != (n == 16 ? ER_LVM_OK : ER_LVM_LIMIT))
			fail_msg("%u segments: %s", n, err.detail);
		if (n == 16) {
			struct er_lvm_extent x;
			assert_int_equal(er_lvm_map(vg, (unsigned)l, 15 * 8192, &x, &err), ER_LVM_OK);
			assert_int_equal(x.pv_sector, 2048 + 7 * 8192);
		}
		/* root is not affected */
		assert_int_equal(er_lvm_lv_check(vg, (unsigned)er_lvm_find_lv(vg, "root", &err), &err), ER_LVM_OK);
		free(f);
		free(g);
		free(h);
	}
	/* a name of 127 characters fits, 128 does not */
	char name[160];
	memset(name, 'n', 128);
	name[127] = 0;
	char to[200];
	snprintf(to, sizeof(to), "%s {", name);
	char *f = edited(base, "logical_volumes {", "root {", to);
	assert_int_equal(parse_str(f, vg, &err), ER_LVM_OK);
	free(f);
	snprintf(to, sizeof(to), "%sn {", name);
	f = edited(base, "logical_volumes {", "root {", to);
	assert_int_equal(parse_str(f, vg, &err), ER_LVM_CORRUPT);
	free(f);
	free(vg);
	free(t);
	free(extra);
	free(base);
}

static void test_compare(void **state)
{
	(void)state;
	char *base = debian_text();
	struct er_lvm_vg *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct er_lvm_error err;
	assert_int_equal(parse_str(base, a, &err), ER_LVM_OK);
	assert_int_equal(parse_str(base, b, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_compare(a, b), ER_LVM_CMP_SAME);
	char *t = edited(base, "debian-vg {", "seqno = 3", "seqno = 4");
	assert_int_equal(parse_str(t, b, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_compare(a, b), ER_LVM_CMP_NEWER);
	assert_int_equal(er_lvm_vg_compare(b, a), ER_LVM_CMP_OLDER);
	free(t);
	t = edited(base, "swap_1 {", "extent_count = 8", "extent_count = 7");
	assert_int_equal(parse_str(t, b, &err), ER_LVM_OK);
	assert_int_equal(er_lvm_vg_compare(a, b), ER_LVM_CMP_CONFLICT);
	free(t);
	struct layout *L = get("span");
	struct er_lvm_vg *c = assemble(L, 0, NULL);
	assert_int_equal(er_lvm_vg_compare(a, c), ER_LVM_CMP_OTHER_VG);
	free(c);
	free_layout(L);
	free(a);
	free(b);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_real),
		cmocka_unit_test(test_probe_corrupt),
		cmocka_unit_test(test_mda_text_real),
		cmocka_unit_test(test_mda_corrupt),
		cmocka_unit_test(test_layout_debian),
		cmocka_unit_test(test_layout_segs),
		cmocka_unit_test(test_layout_span),
		cmocka_unit_test(test_layout_refuse),
		cmocka_unit_test(test_layout_wrap),
		cmocka_unit_test(test_layout_stale),
		cmocka_unit_test(test_layout_exotic),
		cmocka_unit_test(test_layout_sect4k),
		cmocka_unit_test(test_missing_pv),
		cmocka_unit_test(test_find_lv),
		cmocka_unit_test(test_text_layouts),
		cmocka_unit_test(test_text_syntax),
		cmocka_unit_test(test_text_limits),
		cmocka_unit_test(test_compare),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
