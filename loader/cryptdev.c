// SPDX-License-Identifier: GPL-2.0-or-later
/* Unlocked LUKS containers as block devices; see cryptdev.h. */
#include "loader/cryptdev.h"
#include "loader/devlist.h"
#include "crypto/wipe.h"

struct er_crypt_map {
	struct er_blockdev lower;
	struct er_luks_segment seg;
	struct er_aes_xts xts;       /* the volume key's schedule: wiped by er_crypt_wipe_all */
	bool wiped;
};

/* (BOOLEAN: the signature of er_blockdev_ops, efi/efi.h) */
static EFI_STATUS crypt_read(const struct er_blockdev *d, UINT64 off, void *buf, UINTN len, BOOLEAN quiet)
{
	const struct er_crypt_map *m = d->ctx;
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
	const struct er_crypt_map *m = d->ctx;
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

bool er_crypt_room(const struct er_crypts *c, UINTN n)
{
	return c->n + n <= ER_VOL_MAX_LUKS && c->nalloc + n <= ER_VOL_MAX_MAPPED;
}

bool er_crypt_map(struct er_crypts *c, struct er_blockdev *d, const struct er_blockdev *lower,
		     const struct er_luks_header *hdr, UINT8 *vk, UINTN vk_len, const char *suffix)
{
	bool added = false;
	struct er_crypt_map *m = NULL;
	if (!er_crypt_room(c, 1) || EFI_ERROR(er_alloc_zero(sizeof(*m), (void **)&m)))
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
	er_memset(d, 0, sizeof(*d));
	d->ops = &crypt_ops;
	d->ctx = m;
	d->encrypted = true;
	d->block_size = bs;
	d->io_align = lower->io_align;
	d->size = size;
	d->partition = true;
	er_devlist_set_name(d, "luks-", hdr->uuid, suffix);
	c->m[c->nalloc++] = m;
	c->n++;
	added = true;
out:
	er_wipe(vk, vk_len);
	return added;
}

UINTN er_crypt_count(const struct er_crypts *c)
{
	return c->n;
}

static void wipe_map(struct er_crypt_map *m)
{
	if (m->wiped)
		return;
	er_aes_xts_wipe(&m->xts);
	m->wiped = true;
}

void er_crypt_wipe_all(struct er_crypts *c, bool quiet)
{
	for (UINTN i = 0; i < c->nalloc; i++)
		wipe_map(c->m[i]);
	if (c->n && !quiet)
		log_info(L"%d volume key(s) wiped\n", (INTN)c->n);
	c->n = 0;
}

void er_crypt_undo(struct er_crypts *c, UINTN n)
{
	/* the devices stay listed (nothing may point at freed memory) but cannot be read */
	for (UINTN i = c->nalloc; n > 0 && i > 0;) {
		struct er_crypt_map *m = c->m[--i];
		if (m->wiped)
			continue;
		wipe_map(m);
		c->n--;
		n--;
	}
}

void er_crypt_free_all(struct er_crypts *c)
{
	er_crypt_wipe_all(c, true);
	for (UINTN i = 0; i < c->nalloc; i++) {
		er_wipe(c->m[i], sizeof(*c->m[i]));
		er_free(c->m[i]);
		c->m[i] = NULL;
	}
	c->nalloc = 0;
}
