// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot: an image decrypted and authenticated before anything is committed
 * (loader/auth_run.h; contract v2 in kernel-patch/6.12/README). */
#include "loader/auth_run.h"
#include "image/swsusp2004.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

static EFI_STATUS refuse_auth(const char *dev_id, const char *why)
{
	log_info(L"%a: image refused: Secure Boot: %a\n", dev_id, why);
	log_info(L"%a: reason-code auth; nothing was written, the image is kept (it cannot be resumed: boot normally, it is discarded when swap is used again)\n",
		 dev_id);
	return EFI_ABORTED;
}

EFI_STATUS er_auth_run_begin(struct er_auth_run *ar, const struct er_hibkey *hk, const struct er_swapdev *sd,
			     const UINT8 *page0)
{
	const UINT8 *key, *key_id = NULL;
	const char *no_key = NULL;
	char why[200];
	enum er_auth_status st;

	er_memset(ar, 0, sizeof(*ar));
	ar->dev_id = sd->dev->id;
	st = er_auth_parse(page0, sd->header_page, &ar->blk, why, sizeof(why));
	if (!hk->on) {
		if (st != ER_AUTH_NONE)
			return refuse_auth(ar->dev_id, "the image is encrypted (written under Secure Boot) and Secure Boot is off now: there is no key to read it");
		return EFI_SUCCESS;
	}
	ar->active = true;
	if (er_swsusp2004_signature(page0))
		return refuse_auth(ar->dev_id, "the 2004 format is never encrypted");
	if (st != ER_AUTH_OK)
		return refuse_auth(ar->dev_id, why);
	key = er_hibkey_image_key(hk, &key_id, &no_key);
	if (!key)
		return refuse_auth(ar->dev_id, no_key);
	if (!er_ct_equal(ar->blk.key_id, key_id, ER_KEY_ID_LEN))
		return refuse_auth(ar->dev_id, "written with another key: another machine, an earlier boot (an image is resumable in the next boot only), or Secure Boot was switched off since");
	if (EFI_ERROR(er_alloc_pages(1, (void **)&ar->tags)))
		return refuse_auth(ar->dev_id, "no memory for the tag page");
	er_auth_stream_init(&ar->stream, key, &ar->blk);
	ar->crypt.ctx = &ar->stream;
	ar->crypt.n = ar->blk.enc_pages;
	ar->crypt.feed = er_auth_stream_feed;
	ar->crypt.open = er_auth_stream_open;
	ar->crypt.tags = ar->tags;
	ar->crypt.tag_group = 0;
	log_info(L"%a: encrypted image (contract v2, %ld stream pages); each page is decrypted and authenticated as it is read (%s)\n",
		 ar->dev_id, ar->blk.enc_pages,
		 er_gcm_hw(&ar->stream.gcm) ? L"AES-NI and PCLMULQDQ" : L"portable AES-GCM: this CPU has no AES-NI or PCLMULQDQ");
	return EFI_SUCCESS;
}

struct er_crypt *er_auth_run_crypt(struct er_auth_run *ar)
{
	return ar->active ? &ar->crypt : NULL;
}

EFI_STATUS er_auth_run_end(struct er_auth_run *ar, const UINT8 *page0)
{
	if (!ar->active)
		return EFI_SUCCESS;
	UINT64 fed = ar->stream.fed, n = ar->stream.n;
	bool ok = er_auth_stream_end(&ar->stream, page0, ar->blk.tag);
	if (!ok && fed != n) {
		char why[120];
		er_snprintf(why, sizeof(why), "only %llu of the %llu encrypted pages were read", (unsigned long long)fed,
			    (unsigned long long)n);
		return refuse_auth(ar->dev_id, why);
	}
	if (!ok)
		return refuse_auth(ar->dev_id, "the tag does not match: the image or its header was changed after the kernel wrote it");
	log_info(L"%a: Secure Boot: %ld pages decrypted and authenticated, tag verified\n", ar->dev_id, n);
	return EFI_SUCCESS;
}

/* After the verification, before the point of no return: this boot's key in the image
 * kernel's key page when that frame can be taken safely: free in the firmware's map
 * (AllocateAddress succeeds: nothing of the firmware's or efiresume's is there, and
 * nothing else will be put there) and not one of the image's frames (the restore would
 * overwrite it). */
void er_auth_run_keypage(struct er_auth_run *ar, const struct er_hibkey *hk, const UINT64 *pfns, UINT64 nr_pfns)
{
	struct er_key_table t;
	UINT64 slot = ar->blk.key_slot_phys, pfn = slot / ER_PAGE_SIZE;

	if (!ar->active)
		return;
	if (!slot) {
		log_info(L"%a: Secure Boot: the image names no key page: the resumed kernel gets no key\n", ar->dev_id);
		return;
	}
	UINT64 lo = 0, hi = nr_pfns;
	while (lo < hi) {
		UINT64 mid = lo + (hi - lo) / 2;
		if ((pfns[mid] & ~ER_PFN_ZERO) < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nr_pfns && (pfns[lo] & ~ER_PFN_ZERO) == pfn) {
		log_warn(L"%a: Secure Boot: key page 0x%lx is one of the image's pages: not written; the resumed kernel gets no key\n",
			 ar->dev_id, slot);
		return;
	}
	if (!er_hibkey_page_table(hk, &t)) {
		log_info(L"%a: Secure Boot: no key for this boot: the resumed kernel gets none\n", ar->dev_id);
		return;
	}
	if (EFI_ERROR(er_alloc_at(slot, 1))) {
		log_warn(L"%a: Secure Boot: key page 0x%lx is in use in this boot: not written; the resumed kernel gets no key\n",
			 ar->dev_id, slot);
	} else {
		er_memcpy((void *)(UINTN)slot, &t, sizeof(t));
		ar->slot_written = slot;
		log_info(L"%a: Secure Boot: this boot's key written to the image kernel's key page 0x%lx\n", ar->dev_id, slot);
	}
	er_wipe(&t, sizeof(t));
}

void er_auth_run_undo(struct er_auth_run *ar)
{
	if (!ar->slot_written)
		return;
	er_wipe((void *)(UINTN)ar->slot_written, ER_PAGE_SIZE);
	er_free_pages((void *)(UINTN)ar->slot_written, 1);
	ar->slot_written = 0;
}

void er_auth_run_drop(struct er_auth_run *ar)
{
	er_auth_stream_wipe(&ar->stream);
	if (ar->tags) {
		er_wipe(ar->tags, ER_PAGE_SIZE);
		er_free_pages(ar->tags, 1);
		ar->tags = NULL;
	}
	er_memset(&ar->crypt, 0, sizeof(ar->crypt));
}
