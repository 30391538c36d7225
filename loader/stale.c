// SPDX-License-Identifier: GPL-2.0-or-later
/* An image that is no longer the truth: the first time efiresume sees an image it
 * records the image's identity and the fingerprint of every filesystem it can read
 * (EfiresumeSeen); before resuming that image on a later boot it compares. A filesystem
 * mounted or written in between (the user booted normally and kept the image, another
 * system used the disk) would be corrupted by the resume. Nothing is written to disk. */
#include "loader/loader.h"
#include "loader/seen.h"
#include "loader/ondisk.h"
#include "loader/location.h"
#include "image/fmt.h"

#define SEEN_VAR ER_SEEN_VAR

/* Fingerprints of the filesystems on every device the firmware shows (quietly: drives
 * without media fail their reads). */
static UINTN scan_filesystems(struct er_blockdev *devs, UINTN ndevs, struct er_fsprint *out, UINTN max)
{
	UINTN pages = ER_FSPRINT_BYTES / ER_PAGE_SIZE, n = 0;
	UINT8 *buf;
	if (EFI_ERROR(er_alloc_pages(pages, (void **)&buf)))
		return 0;
	for (UINTN i = 0; i < ndevs && n < max; i++) {
		struct er_blockdev *d = &devs[i];
		UINTN len;
		if (EFI_ERROR(er_blockdev_probe_head(d, buf, ER_FSPRINT_BYTES, 2048, &len)))
			continue;
		if (er_fsprint(buf, len, &out[n]))
			n++;
	}
	er_free_pages(buf, pages);
	return n;
}

EFI_STATUS er_stale_check(struct er_blockdev *devs, UINTN ndevs, const struct er_swapdev *sd, char *why, UINTN cap,
			  bool *stale)
{
	struct er_seen *now = NULL, *then = NULL;
	UINT8 *rec = NULL;
	UINTN size = 0;
	EFI_STATUS err;

	*stale = false;
	err = er_alloc_zero(sizeof(*now), (void **)&now);
	if (EFI_ERROR(err))
		return err;
	err = er_alloc_zero(sizeof(*then), (void **)&then);
	if (EFI_ERROR(err))
		goto out;
	err = er_image_identity(sd, now->swap_uuid, &now->image_id);
	if (EFI_ERROR(err))
		goto out;
	now->n = (UINT32)scan_filesystems(devs, ndevs, now->fs, ER_SEEN_MAX_FS);

	if (!EFI_ERROR(er_get_variable(SEEN_VAR, &er_vendor_guid, ER_SEEN_MAX_BYTES, (void **)&rec, &size)) &&
	    er_seen_decode(rec, size, then) && then->image_id == now->image_id &&
	    er_memcmp(then->swap_uuid, now->swap_uuid, 16) == 0) {
		char detail[128], u[37];
		int i = er_seen_compare(then, now->fs, now->n, detail, sizeof(detail));
		if (i >= 0) {
			er_uuid_format(then->fs[i].uuid, u);
			er_snprintf(why, cap, "%s %s %s: resuming would corrupt it", er_fs_kind_name(then->fs[i].kind), u,
				    detail);
			*stale = true;
		} else {
			log_info(L"%a: the %d filesystem(s) recorded when this image was first seen are unchanged\n", sd->dev->id,
				 (INTN)then->n);
		}
		goto out;
	}
	/* first sight of this image: record the filesystems as they are now */
	er_free(rec);
	rec = NULL;
	err = er_alloc(ER_SEEN_MAX_BYTES, (void **)&rec);
	if (EFI_ERROR(err))
		goto out;
	size = er_seen_encode(now, rec, ER_SEEN_MAX_BYTES);
	err = er_set_variable(SEEN_VAR, &er_vendor_guid, ER_VAR_NV_BS_RT, rec, size);
	if (!EFI_ERROR(err))
		log_info(L"%a: first sight of this image: %d filesystem(s) recorded in %s\n", sd->dev->id, (INTN)now->n,
			 SEEN_VAR);
out:
	er_free(rec);
	er_free(then);
	er_free(now);
	return err;
}

void er_stale_forget(void)
{
	void *rec = NULL;
	UINTN size = 0;
	if (EFI_ERROR(er_get_variable(SEEN_VAR, &er_vendor_guid, ER_SEEN_MAX_BYTES, &rec, &size)))
		return;
	er_free(rec);
	if (!EFI_ERROR(er_set_variable(SEEN_VAR, &er_vendor_guid, ER_VAR_NV_BS_RT, NULL, 0)))
		log_info(L"%s deleted\n", SEEN_VAR);
}
