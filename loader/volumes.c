/* Volumes: swap where Debian puts it. LVM2 logical volumes and LUKS containers
 * become block devices of their own (struct er_blockdev with ops), mapped onto the
 * devices below them, so that everything after this file (find, stale check, read,
 * the signature write at the commit) sees one device and goes through one mapping.
 *
 *   1. every Block I/O device is probed: a LUKS header (magic), an LVM2 label
 *   2. LUKS containers are unlocked only when an image is expected (a hint: see
 *      wanted()): the passphrase is asked on the console, 3 tries; the KDF's memory
 *      is given back before this returns (long before the plan claims frames)
 *   3. volume groups are assembled from every PV seen (partitions and unlocked
 *      containers); every linear LV becomes a device "LV vg/lv"
 * The pure parts (header, keyslots, metadata, mapping) are volume/luks.c and
 * volume/lvm.c; this file is their firmware glue. */
#include "loader/loader.h"
#include "loader/volumes.h"
#include "efi/mp.h"
#include "volume/luks.h"
#include "volume/lvm.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

#define MAX_MAPPED 64           /* LVs + containers */
#define MAX_VGS 8
#define MAX_PVS 32
#define MAX_LUKS 8
#define MDA_TEXT_MAX (1024 * 1024)
#define PASS_MAX 512            /* cryptsetup's interactive limit */
#define PASS_TRIES 3
#define PASS_IDLE_S 300         /* no key for 5 minutes: boot normally */
#define LANE_JOIN_US (120ull * 1000000)

/* ---- byte-granular reads for the LVM reader and the LUKS header reader */

static EFI_STATUS read_bytes(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len)
{
	UINT64 bs = d->block_size, start = off - off % bs;
	UINT64 end = off + len;
	if (len == 0)
		return EFI_SUCCESS;
	if (end < off || end > d->size)
		return EFI_END_OF_MEDIA;
	end = (end + bs - 1) / bs * bs;
	UINTN pages = (UINTN)((end - start + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE);
	UINT8 *bounce;
	EFI_STATUS err = er_alloc_pages(pages, (void **)&bounce);
	if (EFI_ERROR(err))
		return err;
	err = er_blockdev_probe(d, start, bounce, (UINTN)(end - start));
	if (!EFI_ERROR(err))
		er_memcpy(buf, bounce + (off - start), len);
	er_free_pages(bounce, pages);
	return err;
}

static int lvm_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return EFI_ERROR(read_bytes(ctx, off, buf, len)) ? -1 : 0;
}

static bool luks_read(void *ctx, uint64_t off, size_t len, void *buf)
{
	return !EFI_ERROR(read_bytes(ctx, off, buf, len));
}

static void *luks_alloc(void *ctx, uint64_t bytes)
{
	UINT64 addr = 0;
	(void)ctx;
	if (bytes == 0 || bytes > (UINTN)-1 - ER_PAGE_SIZE)
		return NULL;
	if (EFI_ERROR(er_alloc_any((UINTN)((bytes + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE), 0, &addr)))
		return NULL;
	return (void *)(UINTN)addr;
}

static BOOLEAN lanes_broken;    /* a helper CPU never came back: its memory is never given back */

static void luks_free(void *ctx, void *p, uint64_t bytes)
{
	(void)ctx;
	if (p && !lanes_broken)
		er_free_pages(p, (UINTN)((bytes + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE));
}

/* ---- argon2 lanes on the other CPUs (EFI MP services) */

struct lane_run {
	er_lane_fn fn;
	void *arg;
	uint32_t n;
	uint32_t next;          /* the next lane to take (atomic) */
};

static void lane_worker(void *p)
{
	struct lane_run *r = p;
	for (;;) {
		uint32_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_SEQ_CST);
		if (i >= r->n)
			break;
		r->fn(r->arg, i);
	}
}

static void lanes_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	static struct lane_run run;
	unsigned helpers = *(unsigned *)ctx, started[ER_MP_HELPERS], ns = 0;

	if (lanes_broken) {
		/* a CPU of an earlier run may still be in `run`: this one only on the boot
		 * CPU (its result is thrown away: see unlock()) */
		for (uint32_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	run.fn = fn;
	run.arg = arg;
	run.n = n;
	__atomic_store_n(&run.next, 0, __ATOMIC_SEQ_CST);
	for (unsigned h = 0; h < helpers && h + 1 < n; h++)
		if (er_mp_helper_start(NULL, h, lane_worker, &run) == 0)
			started[ns++] = h;
	lane_worker(&run);
	for (unsigned i = 0; i < ns; i++)
		if (er_mp_helper_join(NULL, started[i], LANE_JOIN_US) != 0)
			lanes_broken = TRUE;
}

/* ---- mapped devices */

struct lv_map {
	const struct er_lvm_vg *vg;
	unsigned lv;
	struct er_blockdev pv[ER_LVM_MAX_PVS];   /* the device holding each PV (by PV index) */
};

static EFI_STATUS lv_rw(const struct er_blockdev *d, UINT64 off, void *rbuf, const void *wbuf, UINTN len,
			BOOLEAN quiet)
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

static EFI_STATUS lv_read(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len, BOOLEAN quiet)
{
	return lv_rw(d, off, buf, NULL, len, quiet);
}

static EFI_STATUS lv_write(const struct er_blockdev *d, UINT64 off, const void *buf, UINTN len)
{
	return lv_rw(d, off, NULL, buf, len, FALSE);
}

static const struct er_blockdev_ops lv_ops = { lv_read, lv_write };

struct crypt_map {
	struct er_blockdev lower;
	struct er_luks_segment seg;
	struct er_aes_xts xts;       /* the volume key's schedule: wiped by er_volumes_close */
	BOOLEAN wiped;
};

static EFI_STATUS crypt_read(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len, BOOLEAN quiet)
{
	const struct crypt_map *m = d->ctx;
	if (m->wiped)
		return quiet ? EFI_ACCESS_DENIED : log_error_status(EFI_ACCESS_DENIED, L"%a: the volume key is wiped", d->id);
	EFI_STATUS err = quiet ? er_blockdev_probe(&m->lower, m->seg.offset + off, buf, len)
			       : er_blockdev_read(&m->lower, m->seg.offset + off, buf, len);
	if (EFI_ERROR(err))
		return err;
	if (!er_luks_segment_crypt(&m->seg, m->lower.size, &m->xts, off, buf, len, false)) {
		if (quiet)
			return EFI_INVALID_PARAMETER;
		return log_error_status(EFI_INVALID_PARAMETER, L"%a: cannot decrypt %ld bytes at %ld", d->id, (UINT64)len, off);
	}
	return EFI_SUCCESS;
}

static EFI_STATUS crypt_write(const struct er_blockdev *d, UINT64 off, const void *buf, UINTN len)
{
	const struct crypt_map *m = d->ctx;
	if (m->wiped)
		return log_error_status(EFI_ACCESS_DENIED, L"%a: the volume key is wiped", d->id);
	UINTN pages = (len + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
	UINT8 *bounce;
	EFI_STATUS err = er_alloc_pages(pages, (void **)&bounce);
	if (EFI_ERROR(err))
		return err;
	er_memcpy(bounce, buf, len);
	if (!er_luks_segment_crypt(&m->seg, m->lower.size, &m->xts, off, bounce, len, true))
		err = log_error_status(EFI_INVALID_PARAMETER, L"%a: cannot encrypt %ld bytes at %ld", d->id, (UINT64)len, off);
	else
		err = er_blockdev_write(&m->lower, m->seg.offset + off, bounce, len);
	er_wipe(bounce, len);
	er_free_pages(bounce, pages);
	return err;
}

static const struct er_blockdev_ops crypt_ops = { crypt_read, crypt_write };

/* ---- the state of this boot */

struct pvrec {
	UINTN dev;                  /* index in the device list */
	struct er_lvm_label label;
};

struct state {
	const struct er_config *cfg;
	const struct er_hint *hint;
	struct er_blockdev *list;   /* physical devices, then mapped ones */
	UINTN n, cap, nphys;
	struct pvrec pv[MAX_PVS];
	UINTN npv;
	UINTN luks[MAX_LUKS];       /* device indexes of LUKS containers */
	UINTN nluks;
	struct er_lvm_vg *vg[MAX_VGS];
	BOOLEAN vg_conflict[MAX_VGS];
	UINTN nvg;
	UINT8 *head;                /* one page of scratch */
};

/* mapped-device state of this boot, for er_volumes_close */
static struct crypt_map *crypts[MAX_LUKS];
static UINTN ncrypts;
static struct er_lvm_vg *vgs_kept[2 * MAX_VGS];
static UINTN nlocked;           /* containers an image may be in that stayed locked */
static UINTN nvgs_kept;

static struct er_blockdev *new_dev(struct state *s)
{
	if (s->n >= s->cap) {
		log_warn(L"more than %d mapped devices: the rest are ignored\n", (INTN)MAX_MAPPED);
		return NULL;
	}
	struct er_blockdev *d = &s->list[s->n];
	er_memset(d, 0, sizeof(*d));
	return d;
}

/* one PV or LUKS probe of device i (its first 4 KiB) */
static void probe(struct state *s, UINTN i)
{
	struct er_blockdev *d = &s->list[i];
	UINTN n = d->size < ER_PAGE_SIZE ? (UINTN)d->size : ER_PAGE_SIZE;
	n -= n % d->block_size;
	if (n < ER_LVM_LABEL_BYTES || EFI_ERROR(er_blockdev_probe(d, 0, s->head, n)))
		return;
	if (er_luks_probe(s->head, n)) {
		if (s->nluks < MAX_LUKS)
			s->luks[s->nluks++] = i;
		else
			log_warn(L"%a: more than %d LUKS containers: not looked at\n", d->id, (INTN)MAX_LUKS);
		return;
	}
	struct er_lvm_error e = { 0 };
	struct er_lvm_label l;
	enum er_lvm_status st = er_lvm_pv_probe(s->head, n, d->size, &l, &e);
	if (st == ER_LVM_NOT_PV)
		return;
	if (st != ER_LVM_OK) {
		log_warn(L"%a: LVM label: %a: %a\n", d->id, er_lvm_status_name(st), e.detail);
		return;
	}
	if (s->npv >= MAX_PVS) {
		log_warn(L"%a: more than %d LVM physical volumes: ignored\n", d->id, (INTN)MAX_PVS);
		return;
	}
	s->pv[s->npv].dev = i;
	s->pv[s->npv].label = l;
	s->npv++;
}

/* The VG metadata of one PV (the first area that has it), into vg. */
static enum er_lvm_status pv_metadata(struct state *s, const struct pvrec *r, char *text, struct er_lvm_vg *vg)
{
	struct er_blockdev *d = &s->list[r->dev];
	enum er_lvm_status st = ER_LVM_NO_METADATA;
	for (unsigned a = 0; a < r->label.n_mdas; a++) {
		struct er_lvm_error e = { 0 };
		size_t len = 0;
		st = er_lvm_mda_text(&r->label, a, lvm_read, d, text, MDA_TEXT_MAX, &len, NULL, &e);
		if (st == ER_LVM_OK)
			st = er_lvm_vg_parse(text, len, vg, &e);
		if (st == ER_LVM_OK)
			return st;
		if (st != ER_LVM_NO_METADATA)
			log_warn(L"%a: LVM metadata area %d: %a: %a\n", d->id, (INTN)a, er_lvm_status_name(st), e.detail);
	}
	return st;
}

static void free_vgs(struct state *s)
{
	for (UINTN i = 0; i < s->nvg; i++)
		er_free(s->vg[i]);
	s->nvg = 0;
}

/* Volume groups from every PV recorded; each newest copy kept (a conflict: refused). */
static EFI_STATUS assemble_vgs(struct state *s)
{
	struct er_lvm_vg *cand = NULL;
	char *text = NULL;
	EFI_STATUS err;

	free_vgs(s);
	if (s->npv == 0)
		return EFI_SUCCESS;
	err = er_alloc(MDA_TEXT_MAX, (void **)&text);
	if (EFI_ERROR(err))
		return err;
	for (UINTN p = 0; p < s->npv; p++) {
		if (!cand) {
			err = er_alloc(sizeof(*cand), (void **)&cand);
			if (EFI_ERROR(err))
				break;
		}
		if (pv_metadata(s, &s->pv[p], text, cand) != ER_LVM_OK)
			continue;
		UINTN k;
		for (k = 0; k < s->nvg; k++) {
			enum er_lvm_cmp c = er_lvm_vg_compare(s->vg[k], cand);
			if (c == ER_LVM_CMP_OTHER_VG)
				continue;
			if (c == ER_LVM_CMP_NEWER) {
				struct er_lvm_vg *t = s->vg[k];
				s->vg[k] = cand;
				cand = t;
				s->vg_conflict[k] = FALSE;   /* the newer copy settles it */
			} else if (c == ER_LVM_CMP_CONFLICT && !s->vg_conflict[k]) {
				s->vg_conflict[k] = TRUE;
				log_warn(L"VG %a: two copies of its metadata with seqno %ld differ; its volumes are not used\n",
					 s->vg[k]->name, s->vg[k]->seqno);
			}
			break;
		}
		if (k == s->nvg) {
			if (s->nvg == MAX_VGS) {
				log_warn(L"VG %a: more than %d volume groups: ignored\n", cand->name, (INTN)MAX_VGS);
				continue;
			}
			s->vg_conflict[s->nvg] = FALSE;
			s->vg[s->nvg++] = cand;
			cand = NULL;
		}
	}
	er_free(cand);
	er_free(text);
	/* which device holds each PV */
	for (UINTN k = 0; k < s->nvg; k++)
		for (UINTN p = 0; p < s->npv; p++) {
			struct er_lvm_error e = { 0 };
			struct er_blockdev *d = &s->list[s->pv[p].dev];
			if (er_lvm_vg_attach(s->vg[k], &s->pv[p].label, (int)s->pv[p].dev, d->size, &e) < 0 &&
			    e.status != ER_LVM_NOT_FOUND)
				log_warn(L"VG %a: %a: %a\n", s->vg[k]->name, d->id, e.detail);
		}
	return err;
}

static void set_name(struct er_blockdev *d, const char *a, const char *b, const char *c)
{
	er_snprintf(d->id, sizeof(d->id), "%s%s%s", a, b, c);
}

/* A device for every mappable visible LV. */
static void map_lvs(struct state *s)
{
	for (UINTN k = 0; k < s->nvg; k++) {
		struct er_lvm_vg *vg = s->vg[k];
		if (s->vg_conflict[k])
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
			struct er_blockdev *d = new_dev(s);
			if (!d || EFI_ERROR(er_alloc_zero(sizeof(*m), (void **)&m)))
				goto keep;
			m->vg = vg;
			m->lv = l;
			UINT32 bs = ER_LVM_SECTOR, align = 0;
			for (unsigned p = 0; p < vg->n_pvs; p++) {
				if (!vg->pv[p].present)
					continue;
				m->pv[p] = s->list[vg->pv[p].device];
				if (m->pv[p].encrypted)
					d->encrypted = TRUE;
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
			d->partition = TRUE;
			set_name(d, "LV ", vg->name, "/");
			UINTN used = er_strnlen(d->id, sizeof(d->id));
			er_snprintf(d->id + used, sizeof(d->id) - used, "%s", lv->name);
			s->n++;
		}
	}
keep:
	/* kept until er_volumes_close: the LVs point into them */
	for (UINTN k = 0; k < s->nvg; k++)
		if (nvgs_kept < sizeof(vgs_kept) / sizeof(vgs_kept[0]))
			vgs_kept[nvgs_kept++] = s->vg[k];
		else
			er_free(s->vg[k]);   /* never: at most 2 assemblies of MAX_VGS */
	s->nvg = 0;
}

/* ---- when to ask for a passphrase */

static BOOLEAN uuid_str_eq(const char *a, const char *b)
{
	UINTN i;
	for (i = 0; a[i] && b[i]; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return FALSE;
	}
	return a[i] == b[i];
}

/* Is the swap area (or, for a swap file, the filesystem) the hint names on one of
 * devices [0, n) — without unlocking anything? */
static BOOLEAN hint_visible(struct state *s, UINTN n)
{
	const struct er_location *h = &s->hint->loc;
	UINTN need = h->offset ? ER_FS_UUID_BYTES : ER_PAGE_SIZE, pages = (need + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
	UINT8 *buf, u[16];
	BOOLEAN found = FALSE;
	if (EFI_ERROR(er_alloc_pages(pages, (void **)&buf)))
		return FALSE;
	for (UINTN i = 0; i < n && !found; i++) {
		struct er_blockdev *d = &s->list[i];
		UINTN len = d->size < need ? (UINTN)d->size : need;
		len -= len % d->block_size;
		if (len < 2048 || EFI_ERROR(er_blockdev_probe(d, 0, buf, len)))
			continue;
		if (h->offset)
			found = er_fs_uuid(buf, len, u) && er_memcmp(u, h->uuid, 16) == 0;
		else if (len >= ER_PAGE_SIZE && er_swap_classify(buf) != ER_SWAP_NONE) {
			er_swap_uuid(buf, u);
			found = er_memcmp(u, h->uuid, 16) == 0;
		}
	}
	er_free_pages(buf, pages);
	return found;
}

/* ---- unlocking */

static const char *kdf_name(unsigned kdf)
{
	return kdf == ER_LUKS_KDF_ARGON2ID ? "argon2id" : kdf == ER_LUKS_KDF_ARGON2I ? "argon2i" : "pbkdf2";
}

/* Adds the decrypted view of container d. vk is wiped here. */
static void add_crypt(struct state *s, const struct er_blockdev *lower, const struct er_luks_header *hdr, UINT8 *vk,
		      UINTN vk_len)
{
	struct crypt_map *m = NULL;
	struct er_blockdev *d = new_dev(s);
	if (!d || ncrypts == MAX_LUKS || EFI_ERROR(er_alloc_zero(sizeof(*m), (void **)&m)))
		goto out;
	if (!er_aes_xts_init(&m->xts, vk, vk_len)) {
		log_warn(L"luks-%a: the volume key does not fit aes-xts\n", hdr->uuid);
		er_free(m);
		goto out;
	}
	m->lower = *lower;
	m->seg = hdr->seg;
	/* reads go to the disk below unchanged in offset and length: a 512-byte-sector
	 * container on a 4096-byte disk has the disk's block size */
	UINT32 bs = hdr->seg.sector_size > lower->block_size ? hdr->seg.sector_size : lower->block_size;
	UINT64 size = hdr->seg.dynamic ? lower->size - hdr->seg.offset : hdr->seg.size;
	size -= size % bs;
	d->ops = &crypt_ops;
	d->ctx = m;
	d->encrypted = TRUE;
	d->block_size = bs;
	d->io_align = lower->io_align;
	d->size = size;
	d->partition = TRUE;
	set_name(d, "luks-", hdr->uuid, "");
	crypts[ncrypts++] = m;
	s->n++;
	probe(s, s->n - 1);
out:
	er_wipe(vk, vk_len);
}

/* Container i: read the header, then up to 3 passphrases. */
static void unlock(struct state *s, UINTN i, struct er_luks_header *hdr)
{
	struct er_blockdev lower = s->list[i];
	struct er_luks_dev dev = { &lower, lower.size, luks_read };
	struct er_luks_mem mem = { NULL, luks_alloc, luks_free };
	struct er_luks_err e = { 0 };
	unsigned helpers = er_mp_helpers_available();
	struct er_lanes lanes = { &helpers, lanes_run };
	char *pw = NULL;
	UINT8 vk[ER_LUKS_MAX_KEY];
	size_t vk_len = 0;
	unsigned slot = 0;
	char summary[200];

	er_luks_summary(hdr, summary, sizeof(summary));
	log_info(L"luks-%a on %a: %a\n", hdr->uuid, lower.id, summary);
	if (EFI_ERROR(er_alloc_pages(1, (void **)&pw)))
		return;
	for (unsigned t = 1; t <= PASS_TRIES; t++) {
		log_info(L"passphrase for luks-%a on %a (try %d of %d, Esc: skip): ", hdr->uuid, lower.id, (INTN)t,
			 (INTN)PASS_TRIES);
		INTN n = er_read_secret(pw, PASS_MAX, PASS_IDLE_S);
		if (n < 0) {
			log_info(L"luks-%a: %a; booting normally (the initramfs will ask)\n", hdr->uuid,
				 n == -1 ? "skipped (Esc)" : n == -3 ? "no key for 5 minutes" : "the console cannot be read");
			break;
		}
		UINT64 t0 = er_time_us();
		enum er_luks_status st = er_luks_unlock(hdr, &dev, &mem, &lanes, NULL, (const UINT8 *)pw, (size_t)n, vk, &vk_len,
							&slot, &e);
		UINT64 ms = (er_time_us() - t0) / 1000;
		er_wipe(pw, PASS_MAX);
		if (lanes_broken) {
			er_wipe(vk, sizeof(vk));
			log_warn(L"luks-%a: a helper CPU did not finish its argon2 lane; not unlocked\n", hdr->uuid);
			break;
		}
		if (st == ER_LUKS_OK) {
			log_info(L"luks-%a: unlocked (keyslot %d, %a, %ld ms on %d CPU(s))\n", hdr->uuid, (INTN)slot,
				 kdf_name(hdr->ks[slot].kdf), ms, (INTN)(helpers + 1));
			add_crypt(s, &lower, hdr, vk, vk_len);
			break;
		}
		if (st == ER_LUKS_WRONG_PASSPHRASE) {
			log_info(L"luks-%a: wrong passphrase (%ld ms)\n", hdr->uuid, ms);
			if (t == PASS_TRIES)
				log_info(L"luks-%a: %d wrong passphrases; booting normally (the initramfs will ask)\n", hdr->uuid,
					 (INTN)PASS_TRIES);
			continue;
		}
		log_info(L"luks-%a: not unlocked: %a: %a\n", hdr->uuid, er_luks_status_name(st), e.detail);
		break;
	}
	er_wipe(vk, sizeof(vk));
	er_wipe(pw, ER_PAGE_SIZE);
	er_free_pages(pw, 1);
}

/* The containers an image may be in: those the hint names, or (a hint whose swap is
 * not visible) all of them; with no hint, none. */
/* Is the hint's swap on devices [0, s->n) or on an LV of theirs? The LVs are mapped
 * for the look only, then dropped (the final assembly comes after the unlocking). */
static BOOLEAN visible_now(struct state *s)
{
	UINTN n0 = s->n;
	BOOLEAN found = FALSE;
	if (!EFI_ERROR(assemble_vgs(s))) {
		map_lvs(s);
		found = hint_visible(s, s->n);
	}
	for (UINTN i = n0; i < s->n; i++)
		er_free(s->list[i].ctx);
	s->n = n0;
	return found;
}

static void unlock_wanted(struct state *s)
{
	struct er_luks_header *hdr;
	BOOLEAN named = s->hint->have && s->hint->loc.luks[0];
	BOOLEAN any = s->hint->have && !named;

	if (s->nluks == 0)
		return;
	if (EFI_ERROR(er_alloc(sizeof(*hdr), (void **)&hdr))) {
		if (s->hint->have)
			nlocked++;
		return;
	}
	if (any && visible_now(s)) {
		log_info(L"the swap %s names is not encrypted: no passphrase asked\n", s->hint->name);
		any = FALSE;
	}
	UINTN nluks = s->nluks;
	for (UINTN k = 0; k < nluks; k++) {
		UINTN i = s->luks[k];
		struct er_blockdev *d = &s->list[i];
		struct er_luks_dev dev = { d, d->size, luks_read };
		struct er_luks_mem mem = { NULL, luks_alloc, luks_free };
		struct er_luks_err e = { 0 };
		hdr->uuid[0] = 0;
		enum er_luks_status st = er_luks_open(hdr, &dev, &mem, &e);
		const char *uuid = hdr->uuid[0] ? hdr->uuid : "?";
		if (st == ER_LUKS_NOT_LUKS)
			continue;
		/* a header too broken to give its UUID may be the named one */
		BOOLEAN want = named ? !hdr->uuid[0] || uuid_str_eq(hdr->uuid, s->hint->loc.luks) : any;
		if (!want) {
			log_info(L"luks-%a on %a: encrypted (not unlocked: %a)\n", uuid, d->id,
				 named ? "not the container the location variable names" : "nothing to resume");
			continue;
		}
		if (st != ER_LUKS_OK) {
			log_info(L"luks-%a on %a: not unlocked: %a: %a; booting normally (the initramfs will ask)\n", uuid,
				 d->id, er_luks_status_name(st), e.detail);
			nlocked++;
			continue;
		}
		UINTN before = ncrypts;
		unlock(s, i, hdr);
		if (ncrypts == before)
			nlocked++;
		/* the hint's swap found in what was just unlocked: no further passphrase */
		else if (any && k + 1 < nluks && visible_now(s))
			any = FALSE;
	}
	er_wipe(hdr, sizeof(*hdr));
	er_free(hdr);
}

EFI_STATUS er_volumes_open(const struct er_config *cfg, const struct er_hint *hint, struct er_blockdev **devs,
			   UINTN *ndevs)
{
	struct state *s;
	EFI_STATUS err;

	err = er_alloc_zero(sizeof(*s), (void **)&s);
	if (EFI_ERROR(err))
		return err;
	s->cfg = cfg;
	s->hint = hint;
	s->nphys = s->n = *ndevs;
	s->cap = *ndevs + MAX_MAPPED;
	err = er_alloc_zero(s->cap * sizeof(*s->list), (void **)&s->list);
	if (EFI_ERROR(err))
		goto out;
	err = er_alloc_pages(1, (void **)&s->head);
	if (EFI_ERROR(err))
		goto out;
	er_memcpy(s->list, *devs, *ndevs * sizeof(**devs));
	for (UINTN i = 0; i < s->nphys; i++)
		probe(s, i);
	unlock_wanted(s);
	err = assemble_vgs(s);
	if (!EFI_ERROR(err))
		map_lvs(s);
	if (s->n > s->nphys)
		log_info(L"%d mapped device(s): LVM logical volumes and unlocked containers\n", (INTN)(s->n - s->nphys));
	er_free(*devs);
	*devs = s->list;
	*ndevs = s->n;
	s->list = NULL;
	err = EFI_SUCCESS;
out:
	free_vgs(s);
	if (s->head)
		er_free_pages(s->head, 1);
	er_free(s->list);
	er_free(s);
	return err;
}

void er_volumes_close(BOOLEAN quiet)
{
	for (UINTN i = 0; i < ncrypts; i++) {
		er_aes_xts_wipe(&crypts[i]->xts);
		crypts[i]->wiped = TRUE;
	}
	if (ncrypts && !quiet)
		log_info(L"%d volume key(s) wiped\n", (INTN)ncrypts);
	ncrypts = 0;
}

BOOLEAN er_volumes_locked(void)
{
	return nlocked > 0;
}

BOOLEAN er_volume_is_lv(const struct er_blockdev *d, const char *spec)
{
	if (d->ops != &lv_ops)
		return FALSE;
	const struct lv_map *m = d->ctx;
	struct er_lvm_error e = { 0 };
	return er_lvm_find_lv(m->vg, spec, &e) == (int)m->lv;
}
