/* Find: which block devices are swap, and which of them holds a hibernation image.
 *
 * A swap partition carries its swap header in page 0. A swap file carries it in
 * the file's first block, at some page N of the partition that holds the
 * filesystem (the kernel's resume_offset); nothing on the disk says where, so a
 * swap file is only looked at when it is named: by `resume PARTUUID=...` with
 * `resume-offset N` in efiresume.conf, or by systemd's HibernateLocation variable
 * (the filesystem's UUID and the offset). */
#include "loader/loader.h"
#include "loader/hibloc.h"

/* systemd's vendor GUID, under which it stores HibernateLocation */
static const EFI_GUID systemd_guid = { 0x8cf2644b, 0x4b0b, 0x428f, { 0x93, 0x87, 0x6d, 0x87, 0x60, 0x50, 0xdc, 0x67 } };

/* HibernateLocation, when systemd left one: which swap area holds the image. */
static BOOLEAN read_hibloc(struct er_hibloc *h)
{
	char *data = NULL;
	UINTN size = 0;
	BOOLEAN ok = FALSE;
	if (EFI_ERROR(er_get_variable(L"HibernateLocation", &systemd_guid, 4096, (void **)&data, &size)))
		return FALSE;
	if (!er_hibloc_parse(data, size, h)) {
		log_warn(L"HibernateLocation is not the JSON systemd writes; ignored\n");
	} else {
		char u[37];
		er_uuid_format(h->uuid, u);
		if (h->offset)
			log_info(L"HibernateLocation: swap file at page %ld of the filesystem UUID %a, kernel %a\n",
				 h->offset, u, h->kernel[0] ? h->kernel : "?");
		else
			log_info(L"HibernateLocation: swap UUID %a, kernel %a\n", u, h->kernel[0] ? h->kernel : "?");
		ok = TRUE;
	}
	er_free(data);
	return ok;
}

static BOOLEAN is_image(enum er_swap_kind k)
{
	return k == ER_SWAP_IMAGE || k == ER_SWAP_IMAGE_2004;
}

static BOOLEAN is_resume_dev(const struct er_config *cfg, const struct er_blockdev *d)
{
	if (cfg->resume_mbr_part)
		return d->scheme == ER_PART_MBR && er_memcmp(d->partuuid, cfg->resume_partuuid, 4) == 0 &&
		       d->part_number == cfg->resume_mbr_part;
	return d->scheme == ER_PART_GPT && er_memcmp(d->partuuid, cfg->resume_partuuid, 16) == 0;
}

/* A swap file at page `at` of d: reported, and taken when it holds an image. */
static void try_swap_file(struct er_blockdev *d, UINT64 at, const char *why, UINT8 *page, struct er_swapdev *image)
{
	enum er_swap_kind kind = ER_SWAP_NONE;
	if (at >= d->size / ER_PAGE_SIZE) {
		log_warn(L"swap file at page %ld of %a (%a): beyond the partition (%ld pages)\n", at, d->id, why,
			 d->size / ER_PAGE_SIZE);
		return;
	}
	if (!EFI_ERROR(er_blockdev_read(d, at * ER_PAGE_SIZE, page, ER_PAGE_SIZE)))
		kind = er_swap_classify(page);
	log_info(L"swap file at page %ld of %a (%a): %a\n", at, d->id, why, er_swap_kind_name(kind));
	if (kind == ER_SWAP_IMAGE_2004)
		log_warn(L"%a: a 2004-format image in a swap file is not supported\n", d->id);
	if (kind != ER_SWAP_IMAGE)
		return;
	image->dev = d;
	image->kind = kind;
	image->header_page = at;
}

/* HibernateLocation names a swap file: the partition whose filesystem has that UUID
 * (only the configured one, when `resume` names one). */
static void find_hibloc_file(const struct er_config *cfg, const struct er_hibloc *hl, struct er_blockdev *devs,
			     UINTN ndevs, struct er_swapdev *image)
{
	UINTN pages = (ER_FS_UUID_BYTES + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE, matched = 0;
	UINT8 *buf;
	if (EFI_ERROR(er_alloc_pages(pages, (void **)&buf)))
		return;
	for (UINTN i = 0; i < ndevs; i++) {
		struct er_blockdev *d = &devs[i];
		UINT8 u[16];
		if (cfg->have_resume && !is_resume_dev(cfg, d))
			continue;
		UINTN n = d->size < ER_FS_UUID_BYTES ? (UINTN)d->size : ER_FS_UUID_BYTES;
		n -= n % d->block_size;
		/* quietly: removable drives without media fail here */
		if (n < 2048 || EFI_ERROR(d->bio->ReadBlocks(d->bio, d->bio->Media->MediaId, 0, n, buf)))
			continue;
		const char *fs = er_fs_uuid(buf, n, u);
		if (!fs || er_memcmp(u, hl->uuid, 16) != 0)
			continue;
		/* two devices with one UUID (RAID1 members, say): the signature would be reset
		 * on one of them only, so neither is used */
		if (++matched > 1) {
			log_warn(L"%a: a second filesystem with the UUID HibernateLocation names; not resuming from either\n",
				 d->id);
			image->dev = NULL;
			break;
		}
		log_info(L"%a: %a filesystem named by HibernateLocation\n", d->id, fs);
		try_swap_file(d, hl->offset, "HibernateLocation", buf, image);
	}
	if (matched == 0)
		log_info(L"no filesystem the firmware can read has the UUID HibernateLocation names%a\n",
			 cfg->have_resume ? " on the configured resume partition" : "");
	else if (!image->dev)
		log_info(L"no image in the swap file HibernateLocation names\n");
	er_free_pages(buf, pages);
}

EFI_STATUS er_find_image(const struct er_config *cfg, struct er_blockdev *devs, UINTN ndevs,
			 struct er_swapdev *image)
{
	UINT8 *page;
	UINTN nswap = 0;
	EFI_STATUS err;

	struct er_hibloc hl;
	BOOLEAN want_uuid = read_hibloc(&hl), uuid_found = FALSE;

	image->dev = NULL;
	image->kind = ER_SWAP_NONE;
	image->header_page = 0;
	err = er_alloc_pages(1, (void **)&page);
	if (EFI_ERROR(err))
		return err;

	/* 1. a swap file named in the configuration: that and nothing else */
	if (cfg->resume_offset) {
		if (!cfg->have_resume)
			log_warn(L"resume-offset without resume PARTUUID=...: ignored\n");
		for (UINTN i = 0; cfg->have_resume && i < ndevs; i++)
			if (is_resume_dev(cfg, &devs[i])) {
				try_swap_file(&devs[i], cfg->resume_offset, "resume-offset", page, image);
				goto out;
			}
		if (cfg->have_resume) {
			log_info(L"the configured resume partition is not on this machine\n");
			goto out;
		}
	}
	/* 2. a swap file named by HibernateLocation */
	if (want_uuid && hl.offset) {
		find_hibloc_file(cfg, &hl, devs, ndevs, image);
		want_uuid = FALSE;
		if (image->dev)
			goto out;
	}

	/* 3. swap partitions */
	for (UINTN i = 0; i < ndevs; i++) {
		struct er_blockdev *d = &devs[i];
		enum er_swap_kind kind = ER_SWAP_NONE;

		if (d->size < ER_PAGE_SIZE)
			continue;
		if (!EFI_ERROR(d->bio->ReadBlocks(d->bio, d->bio->Media->MediaId, 0, ER_PAGE_SIZE, page)))
			kind = er_swap_classify(page);
		else if (!d->type_swap)
			continue;
		else
			log_warn(L"%a: cannot read page 0 of a swap partition\n", d->id);

		/* A whole disk that carries a partition table also shows its partitions;
		 * report a disk only when it is swap itself (no table, signature on it). */
		if (!d->type_swap && kind == ER_SWAP_NONE)
			continue;
		nswap++;
		if (cfg->have_resume && !is_resume_dev(cfg, d)) {
			log_info(L"swap %a: %a (not the configured resume device)\n", d->id, er_swap_kind_name(kind));
			continue;
		}
		BOOLEAN named = FALSE;
		if (want_uuid && kind != ER_SWAP_NONE) {
			UINT8 u[16];
			er_swap_uuid(page, u);
			named = er_memcmp(u, hl.uuid, 16) == 0;
		}
		log_info(L"swap %a: %a%a\n", d->id, er_swap_kind_name(kind), named ? " (HibernateLocation)" : "");
		/* the first image wins, unless HibernateLocation names another one */
		if (is_image(kind) && (!image->dev || (named && !uuid_found))) {
			image->dev = d;
			image->kind = kind;
			uuid_found = named;
		}
	}
	if (nswap == 0)
		log_info(L"no swap partition found\n");
	else if (cfg->have_resume && !image->dev)
		log_info(L"no image on the configured resume device\n");
out:
	er_free_pages(page, 1);
	return EFI_SUCCESS;
}
