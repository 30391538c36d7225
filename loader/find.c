/* Find: which block devices are swap, and which of them holds a hibernation image. */
#include "loader/loader.h"

EFI_STATUS er_find_image(const struct er_config *cfg, struct er_blockdev *devs, UINTN ndevs,
			 struct er_swapdev *image)
{
	UINT8 *page;
	UINTN nswap = 0;
	EFI_STATUS err;

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
		log_info(L"swap %a: %a\n", d->id, er_swap_kind_name(kind));
		if (kind == ER_SWAP_IMAGE && !image->dev) {
			image->dev = d;
			image->kind = kind;
		}
	}
	if (nswap == 0)
		log_info(L"no swap partition found\n");
	else if (cfg->have_resume && !image->dev)
		log_info(L"no image on the configured resume device\n");
	er_free_pages(page, 1);
	return EFI_SUCCESS;
}
