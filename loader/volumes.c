// SPDX-License-Identifier: GPL-2.0-or-later
/* Volumes: swap where Debian puts it. LVM2 logical volumes and LUKS containers
 * become block devices of their own (struct er_blockdev with ops), mapped onto the
 * devices below them, so that everything after this file (find, stale check, read,
 * the signature write at the commit) sees one device and goes through one mapping.
 *
 *   1. every Block I/O device is probed: a LUKS header (magic), an LVM2 label
 *   2. LUKS containers are unlocked only when an image is expected (a hint: see
 *      wanted()): the passphrase is asked on the console, 3 tries (loader/unlock.c);
 *      the KDF's memory is given back before this returns (long before the plan
 *      claims frames); an unlocked container is a device of loader/cryptdev.c
 *   3. volume groups are assembled from every PV seen (partitions and unlocked
 *      containers: loader/vgs.c); every linear LV becomes a device "LV vg/lv"
 *      (loader/lvdev.c)
 * The pure parts (header, keyslots, metadata, mapping) are volume/luks.c and
 * volume/lvm.c; these files are their firmware glue.
 *
 * This file owns the volume layer's state: one struct er_volumes per boot, made by
 * er_volumes_open, passed to whoever asks about it, wiped by er_volumes_close and freed
 * by er_volumes_free. The other files each do one job on what they are given:
 * cryptdev.c a container's device (struct er_crypts: the volume keys), unlock.c the
 * passphrase dialogue (a lane scheduler in, a volume key out), lvdev.c the LV devices
 * of an assembly, vgs.c the assemblies, twins.c which containers are one. */
#include "loader/volumes.h"
#include "loader/devlist.h"
#include "loader/cryptdev.h"
#include "loader/lvdev.h"
#include "loader/unlock.h"
#include "loader/lanes.h"
#include "loader/twins.h"
#include "loader/vgs.h"
#include "efi/tcg2.h"
#include "volume/lvm.h"
#include "volume/luks.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

#define MAX_PVS 32
#define MAX_LUKS ER_VOL_MAX_LUKS    /* containers looked at (headers read, maybe unlocked) */
#define MAX_SEEN 32                 /* LUKS devices whose UUID is kept for the twin check */

struct er_volumes {
	/* for the rest of the boot (the devices handed out point into them) */
	struct er_crypts crypts;        /* the unlocked containers: their volume keys */
	struct er_vgs_set vgs;          /* the VG assemblies: the kept one backs the LV devices */
	struct er_vgs_ops vgs_ops;      /* vgs's: ctx is this object (set once, in open) */
	/* The argon2 lanes' scheduler. A helper CPU that was never confirmed back (it may
	 * enter er_lanes_run's helper code at any later time) reads and writes it: so it is
	 * here, in the object, and er_volumes_free leaves the object allocated (a deliberate
	 * leak, for the rest of the boot) while er_lanes_unconfirmed says so. The object is
	 * never on a stack and never reused. */
	struct er_lane_sched lanes;
	UINTN nlocked;                  /* containers an image may be in that stayed locked */
	/* the TPM (EFI_TCG2_PROTOCOL), opened at the first container with a systemd-tpm2
	 * token, closed when er_volumes_open returns */
	struct er_tcg2 tpm;
	bool tpm_tried, tpm_ok;
	/* while er_volumes_open runs */
	const struct er_config *cfg;
	const struct er_hint *hint;
	struct er_devlist list;         /* physical devices, then mapped ones */
	UINTN nphys;
	struct er_vgs_pv pv[MAX_PVS];
	UINTN npv;
	UINTN luks[MAX_SEEN + 1];       /* device indexes of LUKS devices (the first MAX_LUKS looked at) */
	char luks_uuid[MAX_SEEN][41];   /* their UUIDs as the probe saw them ("" unknown) */
	UINTN nluks;
	bool luks_lost;              /* more than MAX_SEEN: UUIDs not known */
	UINT8 *head;                    /* one page of scratch */
};

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

/* The one reader of LUKS headers and keyslots: byte ranges of the device d. */
static bool luks_read(void *ctx, uint64_t off, size_t len, void *buf)
{
	return !EFI_ERROR(read_bytes(ctx, off, buf, len));
}

static struct er_luks_dev luks_dev(struct er_blockdev *d)
{
	struct er_luks_dev dev = { d, d->size, luks_read };
	return dev;
}

/* ---- the firmware side of loader/vgs.c */

static int vgs_read(void *ctx, unsigned dev, uint64_t off, void *buf, size_t len)
{
	struct er_volumes *v = ctx;
	if (dev >= v->list.n)
		return -1;
	return EFI_ERROR(read_bytes(&v->list.d[dev], off, buf, len)) ? -1 : 0;
}

static void *vgs_alloc(void *ctx, size_t bytes)
{
	void *p = NULL;
	(void)ctx;
	return EFI_ERROR(er_alloc_zero(bytes, &p)) ? NULL : p;
}

static void vgs_free(void *ctx, void *p)
{
	(void)ctx;
	er_free(p);
}

static void vgs_log(void *ctx, bool warn, const char *line)
{
	(void)ctx;
	if (warn)
		log_warn(L"%a", line);
	else
		log_info(L"%a", line);
}

/* An assembly of every PV seen, with its "LV vg/lv" devices appended to the list: a
 * temporary one (lvs_drop takes its devices off again) or the final one (lvs_keep). */
static EFI_STATUS lvs_map(struct er_volumes *v, struct er_vgs **out)
{
	if (er_vgs_assemble(&v->vgs, v->pv, (unsigned)v->npv, out) != 0)
		return EFI_OUT_OF_RESOURCES;
	er_lvdev_map_all(*out, &v->list);
	return EFI_SUCCESS;
}

static void lvs_drop(struct er_volumes *v, struct er_vgs *a, UINTN n0)
{
	er_vgs_drop(&v->vgs, a);
	v->list.n = n0;
}

/* ---- probing */

/* one PV or LUKS probe of device i (its first 4 KiB) */
static void probe(struct er_volumes *s, UINTN i)
{
	struct er_blockdev *d = &s->list.d[i];
	UINTN n;
	if (EFI_ERROR(er_blockdev_probe_head(d, s->head, ER_PAGE_SIZE, ER_LVM_LABEL_BYTES, &n)))
		return;
	bool luks = er_luks_probe(s->head, n) != 0;
	if (!luks) {
		struct er_lvm_error e = { 0 };
		struct er_lvm_label l;
		enum er_lvm_status st = er_lvm_pv_probe(s->head, n, d->size, &l, &e);
		if (st == ER_LVM_OK) {
			if (s->npv >= MAX_PVS) {
				log_warn(L"%a: more than %d LVM physical volumes: ignored\n", d->id, (INTN)MAX_PVS);
				return;
			}
			s->pv[s->npv].dev = (unsigned)i;
			s->pv[s->npv].size = d->size;
			s->pv[s->npv].id = d->id;
			s->pv[s->npv].label = l;
			s->npv++;
			return;
		}
		if (st != ER_LVM_NOT_PV) {
			log_warn(L"%a: LVM label: %a: %a\n", d->id, er_lvm_status_name(st), e.detail);
			return;
		}
		/* neither: a LUKS2 container whose primary header is damaged is found by its
		 * secondary header (so that er_luks_open's recovery is reachable); a swap
		 * area is never one (it may hold an old container's bytes) */
		if (n >= ER_PAGE_SIZE && er_swap_classify(s->head) != ER_SWAP_NONE)
			return;
		struct er_luks_dev dev = luks_dev(d);
		luks = er_luks_probe_dev(&dev) != 0;
		if (luks)
			log_info(L"%a: no LUKS header at the start, a LUKS2 secondary header found\n", d->id);
	}
	if (!luks)
		return;
	if (s->nluks >= MAX_LUKS)
		log_warn(L"%a: more than %d LUKS containers: not looked at\n", d->id, (INTN)MAX_LUKS);
	if (s->nluks < MAX_SEEN) {
		er_luks_uuid_seen(s->head, n, s->luks_uuid[s->nluks]);
		s->luks[s->nluks++] = i;
	} else
		s->luks_lost = true;
}

/* ---- when to ask for a passphrase */

/* Is the swap area (or, for a swap file, the filesystem) the hint names on one of
 * devices [0, n) — without unlocking anything? */
static bool hint_visible(struct er_volumes *s, UINTN n)
{
	const struct er_location *h = &s->hint->loc;
	UINTN need = h->offset ? ER_FS_UUID_BYTES : ER_PAGE_SIZE, pages = (need + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
	UINT8 *buf, u[16];
	bool found = false;
	if (EFI_ERROR(er_alloc_pages(pages, (void **)&buf)))
		return false;
	for (UINTN i = 0; i < n && !found; i++) {
		struct er_blockdev *d = &s->list.d[i];
		UINTN len;
		if (EFI_ERROR(er_blockdev_probe_head(d, buf, need, 2048, &len)))
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

/* The containers an image may be in: those the hint names, or (a hint whose swap is
 * not visible) all of them; with no hint, none. */
/* Is the hint's swap on the devices listed or on an LV of theirs? The LVs are mapped
 * for the look only, then dropped (the final assembly comes after the unlocking). */
static bool visible_now(struct er_volumes *s)
{
	UINTN n0 = s->list.n;
	struct er_vgs *a = NULL;
	bool found = false;
	if (!EFI_ERROR(lvs_map(s, &a)))
		found = hint_visible(s, s->list.n);
	lvs_drop(s, a, n0);
	return found;
}

/* The container on device i and its twins (the one header: the one key) as devices,
 * all or none; the new devices probed (a PV in a container). vk is wiped. */
static void add_all(struct er_volumes *s, UINTN i, const struct er_luks_header *hdr, UINT8 *vk, UINTN vk_len,
		    const UINTN *twins, UINTN ntwins)
{
	UINT8 copy[ER_LUKS_MAX_KEY];
	UINTN added = 0;
	for (UINTN t = 0; t <= ntwins; t++) {
		char suffix[8];
		UINTN at = t ? twins[t - 1] : i;
		struct er_blockdev *d = er_devlist_slot(&s->list);
		er_memcpy(copy, vk, vk_len);
		er_snprintf(suffix, sizeof(suffix), t ? " #%u" : "", (unsigned)(t + 1));
		if (!d || !er_crypt_map(&s->crypts, d, &s->list.d[at], hdr, copy, vk_len, suffix))
			break;
		s->list.n++;
		probe(s, s->list.n - 1);
		if (t)
			log_info(L"luks-%a on %a: the same header: unlocked with the same key\n", hdr->uuid, s->list.d[at].id);
		added++;
	}
	er_wipe(copy, sizeof(copy));
	er_wipe(vk, vk_len);
	if (added != ntwins + 1) {
		/* a member left locked would keep the signature of an image resumed from another */
		log_warn(L"luks-%a: not every device holding it could be mapped; none is used\n", hdr->uuid);
		er_crypt_undo(&s->crypts, added);
	}
}

/* The passphrase dialogue for the container on device i (hdr) and its twins. */
static void unlock(struct er_volumes *s, UINTN i, const struct er_luks_header *hdr, const UINTN *twins, UINTN ntwins)
{
	struct er_blockdev lower = s->list.d[i];
	struct er_luks_dev dev = luks_dev(&lower);
	UINT8 vk[ER_LUKS_MAX_KEY];
	UINTN vk_len = 0;

	if (!er_crypt_room(&s->crypts, 1 + ntwins) || s->list.n + 1 + ntwins > s->list.cap) {
		log_warn(L"luks-%a: no room for %d more mapped device(s); not unlocked\n", hdr->uuid, (INTN)(1 + ntwins));
		return;
	}
	if (er_unlock_has_tpm2(hdr) && !s->tpm_tried) {
		s->tpm_tried = true;
		s->tpm_ok = !EFI_ERROR(er_tcg2_open(&s->tpm));
	}
	if (er_unlock(&s->lanes, s->tpm_ok ? &s->tpm.io : NULL, &lower, &dev, hdr, vk, &vk_len))
		add_all(s, i, hdr, vk, vk_len, twins, ntwins);
	er_wipe(vk, sizeof(vk));
}

/* Why the twin group of container k is refused (er_luks_twins said so): a member whose
 * header was not read, or a UUID not known, or headers that differ. */
static void log_refused(struct er_volumes *s, UINTN k, const char *uuid, UINTN nluks, UINTN nopen,
			const struct er_luks_header *hdrs, const bool *ok, const unsigned *lead)
{
	const char *on = s->list.d[s->luks[k]].id;
	for (UINTN m = 0; m < nluks; m++) {
		if (ok[m] || lead[m] != k || m == k)
			continue;
		log_info(L"luks-%a on %a: %a holds a container with this UUID whose header %a; the devices holding it "
			 L"cannot be shown to be one (RAID1 members?): none is unlocked, booting normally (the initramfs "
			 L"will ask)\n", uuid, on, s->list.d[s->luks[m]].id,
			 m >= nopen ? "was not looked at (too many LUKS devices)" : "could not be read");
		return;
	}
	for (UINTN m = 0; m < nluks; m++) {
		if (!ok[m] && m >= s->nluks) {
			log_info(L"luks-%a on %a: more than %d LUKS devices: one not looked at may hold this container too; "
				 L"not unlocked, booting normally (the initramfs will ask)\n", uuid, on, (INTN)MAX_SEEN);
			return;
		} else if (!ok[m] && !hdrs[m].uuid[0]) {
			log_info(L"luks-%a on %a: the header on %a could not be read, nor its UUID: it may hold this "
				 L"container too; not unlocked, booting normally (the initramfs will ask)\n", uuid, on,
				 s->list.d[s->luks[m]].id);
			return;
		}
	}
	log_info(L"luks-%a on %a: another device has a container with this UUID and a different header; "
		 L"neither is unlocked, booting normally (the initramfs will ask)\n", uuid, on);
}

static void unlock_wanted(struct er_volumes *s)
{
	struct er_luks_header *hdrs;
	bool named = s->hint->have && s->hint->loc.luks[0];
	bool any = s->hint->have && !named;
	/* one member more than the devices seen: "a LUKS device whose UUID is not known" */
	UINTN nluks = s->nluks + (s->luks_lost ? 1 : 0), nopen = s->nluks < MAX_LUKS ? s->nluks : MAX_LUKS;
	enum er_luks_status st[MAX_SEEN + 1];
	struct er_luks_err e[MAX_SEEN + 1];
	bool ok[MAX_SEEN + 1], refused[MAX_SEEN + 1];
	unsigned lead[MAX_SEEN + 1];

	if (nluks == 0)
		return;
	if (EFI_ERROR(er_alloc_zero(nluks * sizeof(*hdrs), (void **)&hdrs))) {
		if (s->hint->have)
			s->nlocked++;
		return;
	}
	if (s->luks_lost) {
		/* its index is never used to name a device */
		log_warn(L"more than %d LUKS devices: which containers are one cannot be told; none is unlocked\n",
			 (INTN)MAX_SEEN);
		s->luks[s->nluks] = s->luks[s->nluks - 1];
	}
	struct er_luks_mem mem = er_unlock_mem(&s->lanes);
	for (UINTN k = 0; k < nluks; k++) {
		er_memset(&e[k], 0, sizeof(e[k]));
		st[k] = ER_LUKS_IO;
		if (k < nopen) {
			struct er_luks_dev dev = luks_dev(&s->list.d[s->luks[k]]);
			st[k] = er_luks_open(&hdrs[k], &dev, &mem, &e[k]);
		}
		/* TPM2-only: the TPM may unlock it (loader/unlock.c) */
		if (st[k] == ER_LUKS_TOKEN_ONLY && er_unlock_has_tpm2(&hdrs[k]))
			st[k] = ER_LUKS_OK;
		ok[k] = st[k] == ER_LUKS_OK;
		/* not read: its UUID as the probe saw it (the twin check) */
		if (!ok[k] && !hdrs[k].uuid[0] && k < s->nluks)
			er_memcpy(hdrs[k].uuid, s->luks_uuid[k], sizeof(hdrs[k].uuid));
	}
	er_luks_twins(hdrs, ok, (unsigned)nluks, lead, refused);
	if (any && visible_now(s)) {
		log_info(L"the swap %s names is not encrypted: no passphrase asked\n", s->hint->name);
		any = false;
	}
	for (UINTN k = 0; k < nluks; k++) {
		UINTN i = s->luks[k];
		struct er_luks_header *hdr = &hdrs[k];
		struct er_blockdev *d = &s->list.d[i];
		const char *uuid = hdr->uuid[0] ? hdr->uuid : "?";
		if (k >= nopen) {
			/* not looked at (logged by the probe); its twins were refused above */
			if (k < s->nluks && (named ? er_uuid_text_eq(hdr->uuid, s->hint->loc.luks) : any))
				s->nlocked++;
			continue;
		}
		if (st[k] == ER_LUKS_NOT_LUKS)
			continue;
		if (lead[k] != k) {
			log_info(L"luks-%a on %a: the same container as on %a (one header on two devices: RAID1 members?)\n",
				 uuid, d->id, s->list.d[s->luks[lead[k]]].id);
			continue;
		}
		/* a header too broken to give its UUID may be the named one */
		bool want = named ? !hdr->uuid[0] || er_uuid_text_eq(hdr->uuid, s->hint->loc.luks) : any;
		if (!want) {
			log_info(L"luks-%a on %a: encrypted (not unlocked: %a)\n", uuid, d->id,
				 named ? "not the container the location variable names" : "nothing to resume");
			continue;
		}
		if (st[k] != ER_LUKS_OK) {
			log_info(L"luks-%a on %a: not unlocked: %a: %a; booting normally (the initramfs will ask)\n", uuid,
				 d->id, er_luks_status_name(st[k]), e[k].detail);
			s->nlocked++;
			continue;
		}
		if (refused[k]) {
			log_refused(s, k, uuid, nluks, nopen, hdrs, ok, lead);
			s->nlocked++;
			continue;
		}
		UINTN twins[MAX_LUKS], ntw = 0;
		for (UINTN j = k + 1; j < nopen; j++)
			if (lead[j] == k)
				twins[ntw++] = s->luks[j];
		UINTN before = er_crypt_count(&s->crypts);
		unlock(s, i, hdr, twins, ntw);
		if (er_crypt_count(&s->crypts) == before)
			s->nlocked++;
		/* the hint's swap found in what was just unlocked: no further passphrase */
		else if (any && k + 1 < nopen && visible_now(s))
			any = false;
	}
	er_wipe(hdrs, nluks * sizeof(*hdrs));
	er_free(hdrs);
}

EFI_STATUS er_volumes_open(const struct er_config *cfg, const struct er_hint *hint, struct er_blockdev **devs,
			   UINTN *ndevs, struct er_volumes **out)
{
	struct er_volumes *s;
	EFI_STATUS err;

	*out = NULL;
	err = er_alloc_zero(sizeof(*s), (void **)&s);
	if (EFI_ERROR(err))
		return err;
	s->vgs_ops = (struct er_vgs_ops){ s, vgs_read, vgs_alloc, vgs_free, vgs_log };
	s->vgs.ops = &s->vgs_ops;
	s->cfg = cfg;
	s->hint = hint;
	s->nphys = s->list.n = *ndevs;
	s->list.cap = *ndevs + ER_VOL_MAX_MAPPED;
	err = er_alloc_zero(s->list.cap * sizeof(*s->list.d), (void **)&s->list.d);
	if (EFI_ERROR(err))
		goto fail;
	err = er_alloc_pages(1, (void **)&s->head);
	if (EFI_ERROR(err))
		goto fail;
	er_memcpy(s->list.d, *devs, *ndevs * sizeof(**devs));
	for (UINTN i = 0; i < s->nphys; i++)
		probe(s, i);
	unlock_wanted(s);
	struct er_vgs *a = NULL;
	if (!EFI_ERROR(lvs_map(s, &a)))
		er_vgs_keep(&s->vgs, a);
	if (s->list.n > s->nphys)
		log_info(L"%d mapped device(s): LVM logical volumes and unlocked containers\n",
			 (INTN)(s->list.n - s->nphys));
	er_free(*devs);
	*devs = s->list.d;
	*ndevs = s->list.n;
	/* what was only for the build */
	if (s->tpm_ok)
		er_tcg2_close(&s->tpm);
	s->tpm_ok = false;
	er_free_pages(s->head, 1);
	s->head = NULL;
	s->list = (struct er_devlist){ NULL, 0, 0 };
	s->cfg = NULL;
	s->hint = NULL;
	*out = s;
	return EFI_SUCCESS;
fail:
	/* nothing was probed or unlocked yet */
	if (s->head)
		er_free_pages(s->head, 1);
	er_free(s->list.d);
	er_free(s);
	return err;
}

void er_volumes_close(struct er_volumes *v, bool quiet)
{
	if (v)
		er_crypt_wipe_all(&v->crypts, quiet);
}

void er_volumes_free(struct er_volumes *v)
{
	if (!v)
		return;
	er_crypt_free_all(&v->crypts);
	er_vgs_free_kept(&v->vgs);
	if (er_lanes_unconfirmed(&v->lanes))
		return;         /* kept for a helper CPU that may still come: see struct er_volumes */
	er_wipe(v, sizeof(*v));
	er_free(v);
}

bool er_volumes_helpers_unconfirmed(const struct er_volumes *v)
{
	return v && er_lanes_unconfirmed(&v->lanes) ? true : false;
}

bool er_volumes_locked(const struct er_volumes *v)
{
	return v && v->nlocked > 0;
}
