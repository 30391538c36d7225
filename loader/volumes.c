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
 * volume/lvm.c; these files are their firmware glue. */
#include "loader/volint.h"
#include "loader/volumes.h"
#include "loader/twins.h"
#include "volume/lvm.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

static UINTN nlocked;           /* containers an image may be in that stayed locked */

/* ---- byte-granular reads for the LVM reader and the LUKS header reader */

EFI_STATUS er_vol_read_bytes(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len)
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

static bool luks_read(void *ctx, uint64_t off, size_t len, void *buf)
{
	return !EFI_ERROR(er_vol_read_bytes(ctx, off, buf, len));
}

struct er_blockdev *er_vol_new_dev(struct state *s)
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
void er_vol_probe(struct state *s, UINTN i)
{
	struct er_blockdev *d = &s->list[i];
	UINTN n;
	if (EFI_ERROR(er_blockdev_probe_head(d, s->head, ER_PAGE_SIZE, ER_LVM_LABEL_BYTES, &n)))
		return;
	BOOLEAN luks = er_luks_probe(s->head, n) != 0;
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
		struct er_luks_dev dev = { d, d->size, luks_read };
		luks = er_luks_probe_dev(&dev) != 0;
		if (luks)
			log_info(L"%a: no LUKS header at the start, a LUKS2 secondary header found\n", d->id);
	}
	if (!luks)
		return;
	if (s->nluks < MAX_LUKS)
		s->luks[s->nluks++] = i;
	else
		log_warn(L"%a: more than %d LUKS containers: not looked at\n", d->id, (INTN)MAX_LUKS);
}

void er_vol_set_name(struct er_blockdev *d, const char *a, const char *b, const char *c)
{
	er_snprintf(d->id, sizeof(d->id), "%s%s%s", a, b, c);
}

/* ---- when to ask for a passphrase */

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
/* Is the hint's swap on devices [0, s->n) or on an LV of theirs? The LVs are mapped
 * for the look only, then dropped (the final assembly comes after the unlocking). */
static BOOLEAN visible_now(struct state *s)
{
	UINTN n0 = s->n;
	struct er_vgs *a = NULL;
	BOOLEAN found = FALSE;
	if (!EFI_ERROR(er_vol_lvs_map(s, &a)))
		found = hint_visible(s, s->n);
	er_vol_lvs_drop(s, a, n0);
	return found;
}

static void unlock_wanted(struct state *s)
{
	struct er_luks_header *hdrs;
	BOOLEAN named = s->hint->have && s->hint->loc.luks[0];
	BOOLEAN any = s->hint->have && !named;
	UINTN nluks = s->nluks;
	enum er_luks_status st[MAX_LUKS];
	struct er_luks_err e[MAX_LUKS];
	bool ok[MAX_LUKS], refused[MAX_LUKS];
	unsigned lead[MAX_LUKS];

	if (nluks == 0)
		return;
	if (EFI_ERROR(er_alloc_zero(nluks * sizeof(*hdrs), (void **)&hdrs))) {
		if (s->hint->have)
			nlocked++;
		return;
	}
	for (UINTN k = 0; k < nluks; k++) {
		struct er_blockdev *d = &s->list[s->luks[k]];
		struct er_luks_dev dev = { d, d->size, luks_read };
		er_memset(&e[k], 0, sizeof(e[k]));
		st[k] = er_luks_open(&hdrs[k], &dev, &er_unlock_mem, &e[k]);
		ok[k] = st[k] == ER_LUKS_OK;
	}
	er_luks_twins(hdrs, ok, (unsigned)nluks, lead, refused);
	if (any && visible_now(s)) {
		log_info(L"the swap %s names is not encrypted: no passphrase asked\n", s->hint->name);
		any = FALSE;
	}
	for (UINTN k = 0; k < nluks; k++) {
		UINTN i = s->luks[k];
		struct er_luks_header *hdr = &hdrs[k];
		struct er_blockdev *d = &s->list[i];
		const char *uuid = hdr->uuid[0] ? hdr->uuid : "?";
		if (st[k] == ER_LUKS_NOT_LUKS)
			continue;
		if (lead[k] != k) {
			log_info(L"luks-%a on %a: the same container as on %a (one header on two devices: RAID1 members?)\n",
				 uuid, d->id, s->list[s->luks[lead[k]]].id);
			continue;
		}
		/* a header too broken to give its UUID may be the named one */
		BOOLEAN want = named ? !hdr->uuid[0] || er_uuid_text_eq(hdr->uuid, s->hint->loc.luks) : any;
		if (!want) {
			log_info(L"luks-%a on %a: encrypted (not unlocked: %a)\n", uuid, d->id,
				 named ? "not the container the location variable names" : "nothing to resume");
			continue;
		}
		if (st[k] != ER_LUKS_OK) {
			log_info(L"luks-%a on %a: not unlocked: %a: %a; booting normally (the initramfs will ask)\n", uuid,
				 d->id, er_luks_status_name(st[k]), e[k].detail);
			nlocked++;
			continue;
		}
		if (refused[k]) {
			log_info(L"luks-%a on %a: another device has a container with this UUID and a different header; "
				 L"neither is unlocked, booting normally (the initramfs will ask)\n", uuid, d->id);
			nlocked++;
			continue;
		}
		UINTN twins[MAX_LUKS], ntw = 0;
		for (UINTN j = k + 1; j < nluks; j++)
			if (lead[j] == k)
				twins[ntw++] = s->luks[j];
		UINTN before = er_crypt_count();
		er_unlock(s, i, hdr, twins, ntw);
		if (er_crypt_count() == before)
			nlocked++;
		/* the hint's swap found in what was just unlocked: no further passphrase */
		else if (any && k + 1 < nluks && visible_now(s))
			any = FALSE;
	}
	er_wipe(hdrs, nluks * sizeof(*hdrs));
	er_free(hdrs);
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
		er_vol_probe(s, i);
	unlock_wanted(s);
	struct er_vgs *a = NULL;
	if (!EFI_ERROR(er_vol_lvs_map(s, &a)))
		er_vol_lvs_keep(a);
	if (s->n > s->nphys)
		log_info(L"%d mapped device(s): LVM logical volumes and unlocked containers\n", (INTN)(s->n - s->nphys));
	er_free(*devs);
	*devs = s->list;
	*ndevs = s->n;
	s->list = NULL;
	err = EFI_SUCCESS;
out:
	if (s->head)
		er_free_pages(s->head, 1);
	er_free(s->list);
	er_free(s);
	return err;
}

void er_volumes_close(BOOLEAN quiet)
{
	er_crypt_wipe_all(quiet);
}

BOOLEAN er_volumes_helpers_unconfirmed(void)
{
	return er_unlock_helpers_unconfirmed() ? TRUE : FALSE;
}

BOOLEAN er_volumes_locked(void)
{
	return nlocked > 0;
}
