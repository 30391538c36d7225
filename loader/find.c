/* Find: which block devices are swap, and which of them holds a hibernation image. */
#include "loader/loader.h"
#include "loader/hibloc.h"

/* systemd's vendor GUID, under which it stores HibernateLocation */
static const EFI_GUID systemd_guid = { 0x8cf2644b, 0x4b0b, 0x428f, { 0x93, 0x87, 0x6d, 0x87, 0x60, 0x50, 0xdc, 0x67 } };

/* HibernateLocation, when systemd left one: which swap UUID holds the image. */
static BOOLEAN read_hibloc(struct er_hibloc *h)
{
	char *data = NULL;
	UINTN size = 0;
	BOOLEAN ok = FALSE;
	if (EFI_ERROR(er_get_variable(L"HibernateLocation", &systemd_guid, 4096, (void **)&data, &size)))
		return FALSE;
	if (!er_hibloc_parse(data, size, h)) {
		log_warn(L"HibernateLocation is not the JSON systemd writes; ignored\n");
	} else if (h->offset != 0) {
		log_warn(L"HibernateLocation names a swap file (offset %ld): not supported, looking at swap partitions\n",
			 h->offset);
	} else {
		char u[37];
		er_uuid_format(h->uuid, u);
		log_info(L"HibernateLocation: swap UUID %a, kernel %a\n", u, h->kernel[0] ? h->kernel : "?");
		ok = TRUE;
	}
	er_free(data);
	return ok;
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
	err = er_alloc_pages(1, (void **)&page);
	if (EFI_ERROR(err))
		return err;

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
		if (cfg->have_resume && !(d->scheme == ER_PART_GPT && er_memcmp(d->partuuid, cfg->resume_partuuid, 16) == 0)) {
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
		if ((kind == ER_SWAP_IMAGE || kind == ER_SWAP_IMAGE_2004) && (!image->dev || (named && !uuid_found))) {
			image->dev = d;
			image->kind = kind;
			uuid_found = named;
		}
	}
	if (nswap == 0)
		log_info(L"no swap partition found\n");
	else if (cfg->have_resume && !image->dev)
		log_info(L"no image on the configured resume device\n");
	er_free_pages(page, 1);
	return EFI_SUCCESS;
}
