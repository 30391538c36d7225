// SPDX-License-Identifier: GPL-2.0-or-later
/* The image as it lies in its swap area; see ondisk.h. */
#include "loader/ondisk.h"
#include "loader/auth_run.h"   /* Secure Boot: an encrypted header page (er_auth_parse) */
#include "image/fmt.h"
#include "image/swsusp2004.h"
#include "image/crc32.h"

static int source_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct er_dev_source *s = ctx;
	UINT64 t0 = er_time_us();
	EFI_STATUS err = er_blockdev_read(s->dev, page * ER_PAGE_SIZE, buf, count * ER_PAGE_SIZE);
	s->read_us += er_time_us() - t0;
	s->reads++;
	s->bytes += count * ER_PAGE_SIZE;
	return EFI_ERROR(err) ? -1 : 0;
}

void er_dev_source_init(const struct er_swapdev *sd, struct er_dev_source *sc, struct er_source *src)
{
	sc->dev = sd->dev;
	sc->read_us = sc->reads = sc->bytes = 0;
	src->ctx = sc;
	src->pages = sd->dev->size / ER_PAGE_SIZE;
	src->read = source_read;
	src->header_page = sd->header_page;
}

EFI_STATUS er_discard(const struct er_swapdev *sd)
{
	UINT8 *page;
	EFI_STATUS err = er_alloc_pages(1, (void **)&page);
	if (EFI_ERROR(err))
		return err;
	err = er_blockdev_read(sd->dev, sd->header_page * ER_PAGE_SIZE, page, ER_PAGE_SIZE);
	enum er_swap_kind kind = er_swap_classify(page);
	if (!EFI_ERROR(err) && ((kind != ER_SWAP_IMAGE && kind != ER_SWAP_IMAGE_2004) ||
				(er_memcmp(page + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10) != 0 &&
				 er_memcmp(page + ER_HDR_ORIG_SIG, "SWAP-SPACE", 10) != 0)))
		err = log_error_status(EFI_VOLUME_CORRUPTED, L"%a: no image with a valid orig_sig to discard", sd->dev->id);
	if (!EFI_ERROR(err)) {
		er_memcpy(page + ER_HDR_SIG, page + ER_HDR_ORIG_SIG, ER_SIG_LEN);
		err = er_blockdev_write(sd->dev, sd->header_page * ER_PAGE_SIZE, page, ER_PAGE_SIZE);
	}
	if (!EFI_ERROR(err))
		log_info(L"%a: image discarded: swap signature restored\n", sd->dev->id);
	er_free_pages(page, 1);
	return err;
}

bool er_describe(const struct er_swapdev *sd, char *out, UINTN n)
{
	const struct er_blockdev *dev = sd->dev;
	struct er_dev_source sc;
	struct er_source src;
	struct er_error e = { 0 };
	UINT8 *page = NULL;
	bool ok = false;

	er_dev_source_init(sd, &sc, &src);
	if (EFI_ERROR(er_alloc_pages(1, (void **)&page)))
		return false;
	if (sd->kind == ER_SWAP_IMAGE_2004) {
		struct er_swsusp2004_image img;
		struct er_swsusp2004_expect exp = { ER_LOADER_ARCH, ER_PAGE_SIZE, 0, (UINT32)er_cpu_count() };
		if (er_swsusp2004_open(&img, &src, page, &exp, &e) == ER_OK) {
			er_snprintf(out, n, "a hibernated %s %s (2004 format) on %s: %llu MiB", img.sysname, img.release,
				    dev->id, (unsigned long long)(img.image_pages * ER_PAGE_SIZE >> 20));
			ok = true;
		}
	} else {
		struct er_image img;
		struct er_auth_block blk;
		if (!EFI_ERROR(er_blockdev_read(dev, sd->header_page * ER_PAGE_SIZE, page, ER_PAGE_SIZE)) &&
		    er_auth_parse(page, sd->header_page, &blk, NULL, 0) != ER_AUTH_NONE) {
			/* its header page is encrypted: described once it is authenticated */
			er_snprintf(out, n, "an encrypted hibernation image (Secure Boot) on %s: %llu stream pages", dev->id,
				    (unsigned long long)blk.enc_pages);
			ok = true;
		} else if (er_image_open(&img, &src, page, &e) == ER_OK) {
			/* x86 kernels keep their restore record where the header's uts would be */
			const char *rel = sd->kernel[0] ? sd->kernel : img.release[0] ? img.release : "(release not recorded)";
			er_snprintf(out, n, "a hibernated Linux %s (%s) on %s: %llu MiB in %llu pages", rel, er_arch_name(img.arch),
				    dev->id, (unsigned long long)(img.image_pages * ER_PAGE_SIZE >> 20),
				    (unsigned long long)img.image_pages);
			ok = true;
		}
	}
	if (!ok)
		er_snprintf(out, n, "an image on %s that cannot be read: %s", dev->id, e.detail);
	er_free_pages(page, 1);
	return ok;
}

EFI_STATUS er_image_identity(const struct er_swapdev *sd, UINT8 uuid[16], UINT32 *id)
{
	const struct er_blockdev *dev = sd->dev;
	struct er_dev_source sc;
	struct er_source src;
	struct er_error e = { 0 };
	UINT8 *page = NULL;
	er_dev_source_init(sd, &sc, &src);
	EFI_STATUS err = er_alloc_pages(1, (void **)&page);
	if (EFI_ERROR(err))
		return err;
	err = er_blockdev_read(dev, sd->header_page * ER_PAGE_SIZE, page, ER_PAGE_SIZE);
	if (!EFI_ERROR(err)) {
		er_swap_uuid(page, uuid);
		*id = er_crc32_zlib(0, page + ER_HDR_HW_SIG, ER_PAGE_SIZE - ER_HDR_HW_SIG);
		struct er_image img;
		/* the header page differs from one hibernation to the next (cr3, page counts) */
		if (sd->kind == ER_SWAP_IMAGE && er_image_open(&img, &src, page, &e) == ER_OK &&
		    !EFI_ERROR(er_blockdev_read(dev, img.header_swap_page * ER_PAGE_SIZE, page, ER_PAGE_SIZE)))
			*id = er_crc32_zlib(*id, page, ER_PAGE_SIZE);
	}
	er_free_pages(page, 1);
	return err;
}
