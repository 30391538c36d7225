// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot: the tag of an image, checked before anything is committed
 * (loader/auth_run.h; the contract v1 is in the notes). */
#include "loader/auth_run.h"
#include "efi/secboot.h"
#include "image/swsusp2004.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

static EFI_STATUS refuse_auth(const char *dev_id, const char *why)
{
	log_info(L"%a: image refused: Secure Boot: %a\n", dev_id, why);
	log_info(L"%a: reason-code auth; nothing was written, the image is kept (boot normally and discard it, or resume it with Secure Boot off)\n",
		 dev_id);
	return EFI_ABORTED;
}

EFI_STATUS er_auth_run_begin(struct er_auth_run *ar, const struct er_swapdev *sd, const UINT8 *page0)
{
	char why[200];

	er_memset(ar, 0, sizeof(*ar));
	ar->dev_id = sd->dev->id;
	if (!er_sb.on)
		return EFI_SUCCESS;
	ar->active = TRUE;
	if (er_swsusp2004_signature(page0))
		return refuse_auth(ar->dev_id, "the 2004 format carries no tag");
	switch (er_auth_parse(page0, sd->header_page, &ar->blk, why, sizeof(why))) {
	case ER_AUTH_OK:
		break;
	case ER_AUTH_NONE:
		return refuse_auth(ar->dev_id, why);
	default:
		return refuse_auth(ar->dev_id, why);
	}
	if (!er_sb.have_key)
		return refuse_auth(ar->dev_id, "efiresume holds no hibernation key (see the lines above)");
	if (!er_ct_equal(ar->blk.key_id, er_sb.key_id, ER_KEY_ID_LEN)) {
		const UINT8 *i = ar->blk.key_id;
		er_snprintf(why, sizeof(why),
			    "tagged with another key (key id %02x%02x%02x%02x%02x%02x%02x%02x): another machine, or a key rotated since (an image already resumed)",
			    i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
		return refuse_auth(ar->dev_id, why);
	}
	er_auth_begin(&ar->mac, er_sb.key, page0);
	log_info(L"%a: auth block found (key id matches, key page 0x%lx); the tag is checked while loading\n", ar->dev_id,
		 ar->blk.key_slot_phys);
	return EFI_SUCCESS;
}

void er_auth_run_header(struct er_auth_run *ar, const UINT8 *header_page)
{
	if (!ar->active)
		return;
	er_auth_page(&ar->mac, header_page);
	ar->header_fed = TRUE;
}

void er_auth_run_drop(struct er_auth_run *ar)
{
	er_wipe(&ar->mac, sizeof(ar->mac));
}

/* After the verification, before the point of no return: K' in the variable, and in
 * the image kernel's key page when that frame can be taken safely: free in the
 * firmware's map (AllocateAddress succeeds: nothing of the firmware's or efiresume's is
 * there, and nothing else will be put there) and not one of the image's frames (the
 * restore would overwrite it). */
void er_auth_run_rotate(struct er_auth_run *ar, const UINT64 *pfns)
{
	struct er_key_table t;
	UINT64 slot = ar->blk.key_slot_phys, pfn = slot / ER_PAGE_SIZE;

	if (!ar->active || !ar->verified)
		return;
	ar->rotated = TRUE;
	if (!er_secboot_rotate(&t))
		return;
	if (!slot) {
		log_info(L"%a: Secure Boot: the image names no key page: the resumed kernel gets no key\n", ar->dev_id);
		goto out;
	}
	UINT64 lo = 0, hi = ar->nr_pfns;
	while (lo < hi) {
		UINT64 mid = lo + (hi - lo) / 2;
		if ((pfns[mid] & ~ER_PFN_ZERO) < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ar->nr_pfns && (pfns[lo] & ~ER_PFN_ZERO) == pfn) {
		log_warn(L"%a: Secure Boot: key page 0x%lx is one of the image's pages: not written; the resumed kernel gets no key\n",
			 ar->dev_id, slot);
		goto out;
	}
	if (EFI_ERROR(er_alloc_at(slot, 1))) {
		log_warn(L"%a: Secure Boot: key page 0x%lx is in use in this boot: not written; the resumed kernel gets no key\n",
			 ar->dev_id, slot);
		goto out;
	}
	er_memcpy((void *)(UINTN)slot, &t, sizeof(t));
	ar->slot_written = slot;
	log_info(L"%a: Secure Boot: new key written to the image kernel's key page 0x%lx\n", ar->dev_id, slot);
out:
	er_wipe(&t, sizeof(t));
}

void er_auth_run_unrotate(struct er_auth_run *ar)
{
	if (!ar->rotated)
		return;
	if (ar->slot_written) {
		er_wipe((void *)(UINTN)ar->slot_written, ER_PAGE_SIZE);
		er_free_pages((void *)(UINTN)ar->slot_written, 1);
		ar->slot_written = 0;
	}
	er_secboot_unrotate();
	ar->rotated = FALSE;
}

void er_auth_run_jump(struct er_auth_run *ar)
{
	if (ar->active)
		er_secboot_forget();
}

EFI_STATUS er_auth_run_end(struct er_auth_run *ar, const struct er_image *img, const UINT64 *pfns,
			   const struct er_plan *plan)
{
	const char *dev_id = ar->dev_id;
	UINT64 t0 = er_time_us(), fed = 0;
	BOOLEAN ok;

	if (!ar->active)
		return EFI_SUCCESS;
	if (!ar->header_fed) {
		er_auth_run_drop(ar);
		return refuse_auth(dev_id, "internal: the header page was not hashed");
	}
	er_auth_pfn_pages(&ar->mac, pfns, img->nr_pfns, img->word, img->nr_meta_pages);
	for (UINT64 k = 0; k < img->nr_pfns; k++) {
		if (pfns[k] & ER_PFN_ZERO)
			continue;
		const UINT8 *p = er_plan_content(plan, pfns[k]);
		if (!p) {
			er_auth_run_drop(ar);
			return refuse_auth(dev_id, "internal: a placed page cannot be found again");
		}
		er_auth_page(&ar->mac, p);
		fed++;
	}
	ok = fed == img->image_pages && er_auth_end(&ar->mac, ar->blk.tag);
	er_auth_run_drop(ar);
	ar->verified = ok;
	ar->nr_pfns = img->nr_pfns;
	if (!ok)
		return refuse_auth(dev_id, "the tag does not match: the image was changed after the kernel wrote it, or not written by it");
	log_info(L"%a: Secure Boot: tag verified over %ld pages (%ld ms)\n", dev_id, fed + 1 + img->nr_meta_pages,
		 (er_time_us() - t0) / 1000);
	return EFI_SUCCESS;
}
