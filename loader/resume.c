// SPDX-License-Identifier: GPL-2.0-or-later
/* Resume: read and verify, plan and load, commit, hand off. Any refusal before the
 * commit leaves the disk untouched and returns, so that the caller boots normally. */
#include "loader/loader.h"
#include "loader/ondisk.h"
#include "loader/progress.h"
#include "loader/commit_fw.h"
#include "loader/volumes.h"
#include "loader/plan.h"
#include "loader/planmem.h"
#include "arch/handoff.h"
#include "image/e820.h"
#include "image/fmt.h"
#include "image/swsusp2004.h"
#include "loader/dec_cpus.h"
#include "loader/location.h"
#include "crypto/wipe.h"
#include "loader/auth_run.h"   /* Secure Boot (secboot) */

#define IO_PAGES 512   /* 2 MiB per read */
/* the read buffer as allocated: IO_PAGES, then (an encrypted image) the 16-byte tags of
 * the pages in it, which the helper CPUs read too: lent with it, kept with it */
#define IO_ALLOC_PAGES (IO_PAGES + IO_PAGES * 16 / ER_PAGE_SIZE)

/* I/O buffers go back wiped when they held what an encrypted device decrypted (the
 * hibernated system's memory, its own disk keys among it) */
static void free_io(const struct er_blockdev *dev, void *p, UINTN pages)
{
	if (dev->encrypted)
		er_wipe(p, pages * ER_PAGE_SIZE);
	er_free_pages(p, pages);
}

static EFI_STATUS refuse(const struct er_blockdev *dev, enum er_reason r, const char *detail)
{
	log_info(L"%a: image refused: %a: %a\n", dev->id, er_reason_text(r), detail);
	log_info(L"%a: reason-code %a; nothing was written, the image is left as it was\n", dev->id, er_reason_name(r));
	return EFI_ABORTED;
}

/* The stream ended: close the progress line; an Esc is not a refusal. */
static EFI_STATUS stream_end(struct er_progress *pr, const struct er_blockdev *dev, enum er_reason r, const char *detail)
{
	er_progress_close(pr);
	if (!r)
		return EFI_SUCCESS;
	if (pr->aborted) {
		log_info(L"%a: loading stopped at the user's request (Esc); nothing was written, the image is kept\n", dev->id);
		return EFI_ABORTED;
	}
	return refuse(dev, r, detail);
}

static const UINT8 *plan_content(const void *ctx, UINT64 pfn)
{
	return er_plan_content(ctx, pfn);
}


/* What the decompression jobs were lent: the read buffer (their input) and, when
 * the image is refused, the plan's frames (their output). */
struct lent {
	const struct er_blockdev *dev;
	UINT8 *io;
	struct er_plan *plan;   /* NULL: the image stays in its frames */
};

static void give_back(void *ctx)
{
	struct lent *lent = ctx;
	if (lent->plan)
		er_plan_undo(lent->plan);
	free_io(lent->dev, lent->io, IO_ALLOC_PAGES);
}

static void keep_pages(void *ctx, uint64_t addr, uint64_t pages)
{
	(void)ctx;
	(void)addr;
	(void)pages;
}

/* A helper CPU may still read the read buffer and write the plan's frames: both are
 * kept for good (never freed, so never reused by anyone). What an encrypted device
 * gave is wiped from them (a late job may still write its one chunk afterwards). */
static void keep(struct lent *lent)
{
	static struct er_plan_mem keep_mem;
	if (lent->dev->encrypted)
		er_wipe(lent->io, IO_ALLOC_PAGES * ER_PAGE_SIZE);
	if (lent->plan) {
		/* the plan's undo without giving its frames back: it wipes them (wipe_on_undo)
		 * and frees only its own arrays, which no helper sees */
		keep_mem = *lent->plan->mem;
		keep_mem.free_pages = keep_pages;
		lent->plan->mem = &keep_mem;
		er_plan_undo(lent->plan);
	}
	log_info(L"%a: the read buffer and the image's frames stay allocated until the machine resets\n", lent->dev->id);
}

/* What the format-specific loaders hand to the common tail. */
struct loaded {
	struct er_plan plan;
	UINT64 *pfns;          /* the PFN list the plan refers to: kept until the hand-off */
	UINT64 pfn_pages;
	struct er_handoff h;
	bool platform_mode;
	char orig_sig[11];
	const UINT8 *page0;         /* the swap header page, read once: what is parsed and authenticated */
	UINT64 nr_pfns;             /* entries of pfns */
	struct er_auth_run *auth;   /* Secure Boot: decryption and authentication */
	struct er_hibkey *hk;       /* Secure Boot: the keys of this boot */
	struct er_volumes *vols;    /* the volume layer: its keys are wiped at the commit */
};

/* Before loading: the image is for this loader's architecture and this machine (its
 * hardware signature, its e820 table). */
static EFI_STATUS check_machine(const struct er_blockdev *dev, const struct er_image *img)
{
	struct er_error e = { 0 };
	struct er_memmap m = { 0 };

	if (img->arch != ER_LOADER_ARCH) {
		er_snprintf(e.detail, sizeof(e.detail), "image is %s, this is efiresume for %s", er_arch_name(img->arch),
			    er_arch_name(ER_LOADER_ARCH));
		return refuse(dev, ER_R_ARCH, e.detail);
	}
	if (img->flags & ER_SF_HW_SIG) {
		UINT32 sig = 0;
		if (!er_acpi_hw_signature(&sig) || sig != img->hw_sig) {
			er_snprintf(e.detail, sizeof(e.detail), "image 0x%08x, this machine 0x%08x", img->hw_sig, sig);
			return refuse(dev, ER_R_HW_SIG, e.detail);
		}
	}
	if (EFI_ERROR(er_memmap_get(&m)))
		return EFI_ABORTED;
	/* The image does not say how its kernel was configured; where the configuration
	 * matters for this map (soft-reserved or unaccepted memory), any variant may match. */
	UINT32 e820 = 0, mask = 0;
	int er = er_e820_relevant_flags(m.buf, m.size, m.desc_size, m.version, &mask);
	for (UINT32 f = 0; er >= 0 && f <= mask; f++) {
		if (f & ~mask)
			continue;
		er = er_e820_checksum_from_efi_map(m.buf, m.size, m.desc_size, m.version, f, &e820);
		if (er >= 0 && e820 == (UINT32)img->e820_checksum)
			break;
	}
	er_memmap_free(&m);
	if (er < 0) {
		er_snprintf(e.detail, sizeof(e.detail), "cannot derive this machine's e820 table: %s", er_e820_strerror(er));
		return refuse(dev, ER_R_E820, e.detail);
	}
	if (e820 != (UINT32)img->e820_checksum) {
		er_snprintf(e.detail, sizeof(e.detail), "e820 checksum: image 0x%08llx, this machine 0x%08x",
			    (unsigned long long)img->e820_checksum, e820);
		return refuse(dev, ER_R_E820, e.detail);
	}
	return EFI_SUCCESS;
}

/* Plan and load: stream, decompress (on the other CPUs too), check the CRC,
 * place the pages. On success the image sits in the plan's frames. */
static EFI_STATUS stream_modern(const struct er_blockdev *dev, struct er_image *img, struct er_source *src,
				struct er_dev_source *sc, struct loaded *l, UINT64 t_start, UINT64 t_verify)
{
	struct er_error e = { 0 };
	UINT8 *io = NULL, *unc = NULL;
	UINT64 t_stream, read_verify_us = sc->read_us;   /* the reads of the verify phase */
	enum er_reason r;
	EFI_STATUS err = EFI_ABORTED;

	l->pfn_pages = (img->pfn_cap * sizeof(UINT64) + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
	if (EFI_ERROR(er_alloc_pages(IO_ALLOC_PAGES, (void **)&io)) ||
	    EFI_ERROR(er_alloc_pages(ER_CHUNK_PAGES, (void **)&unc)) ||
	    EFI_ERROR(er_alloc_pages(l->pfn_pages, (void **)&l->pfns))) {
		err = refuse(dev, ER_R_NOMEM, "no memory for the read buffers");
		goto out;
	}
	/* with more CPUs, they decompress (and checksum) chunks while this one reads */
	struct er_dec_cpus dp;
	bool par = img->comp != ER_COMP_NONE && er_dec_cpus_start(&dp);
	if (par)
		log_info(L"%a: decompressing on %ld more CPU(s)\n", dev->id, (UINT64)dp.nhelpers);
	/* an encrypted image: the tags of the pages in the read buffer, so that the pages of a
	 * compressed chunk are decrypted by the CPU that decompresses it */
	struct er_stream_buffers bufs = { io, IO_PAGES, unc, l->pfns, par ? &dp.engine : NULL,
					  img->crypt ? io + IO_PAGES * ER_PAGE_SIZE : NULL };
	struct er_progress pr;
	er_progress_init(&pr, &l->plan, img->image_pages);
	struct er_sink sink = er_progress_sink(&pr);
	r = er_image_stream(img, src, &bufs, &sink, &e);
	t_stream = er_time_us();
	if (par) {
		log_info(L"%a: %ld of %ld chunks decompressed by the helper CPU(s)\n", dev->id, (UINT64)dp.helper_jobs,
			 img->chunks);
		/* never commit while a helper CPU may still be writing (whatever else happened) */
		if (!er_dec_cpus_stop(&dp)) {
			if (r == ER_OK || pr.aborted)
				er_snprintf(e.detail, sizeof(e.detail), "a helper CPU did not confirm that it stopped");
			else
				er_snprintf(e.detail, sizeof(e.detail), "a helper CPU did not confirm that it stopped (%s)",
					    er_reason_name(r));
			r = ER_R_CPUS;
			pr.aborted = false;
		}
	}
	err = stream_end(&pr, dev, r, e.detail);
	if (!EFI_ERROR(err))
		err = er_auth_run_end(l->auth, l->page0);   /* Secure Boot: every page authenticated, the tag */
	struct lent lent = { dev, io, EFI_ERROR(err) ? &l->plan : NULL };
	io = NULL;
	if (!par)
		give_back(&lent);
	else if (!er_dec_cpus_give_back(give_back, &lent))
		keep(&lent);
	if (EFI_ERROR(err))
		goto out;
	if (img->crc_checked)
		log_info(L"%a: CRC32 0x%08x verified over %ld chunks\n", dev->id, img->crc_body, img->chunks);
	/* what is left of the stream phase once its reads, placing and planning are taken
	 * out (the verify phase's reads are not in it; clock noise may make it negative) */
	UINT64 others = (sc->read_us - read_verify_us) + pr.place_us + l->plan.t_plan_us;
	UINT64 decomp = t_stream - t_verify > others ? t_stream - t_verify - others : 0;
	log_info(L"timing: verify %ld ms, read %ld ms (%ld reads, %ld MiB), decompress+crc32 %ld ms, plan %ld ms, place %ld ms\n",
		 (t_verify - t_start) / 1000, sc->read_us / 1000, sc->reads, sc->bytes >> 20, decomp / 1000,
		 l->plan.t_plan_us / 1000, pr.place_us / 1000);
out:
	if (unc)
		free_io(dev, unc, ER_CHUNK_PAGES);
	if (io)
		free_io(dev, io, IO_ALLOC_PAGES);
	return err;
}

/* The modern format (kernels 2.6.x .. 6.x): verify, plan, stream. On success the
 * image sits in memory (planned frames, bounce frames) and *l is filled. */
static EFI_STATUS load_modern(const struct er_blockdev *dev, struct er_source *src, struct er_dev_source *sc,
			      UINT8 *page, struct loaded *l, UINT64 t_start)
{
	struct er_image img;
	struct er_error e = { 0 };
	UINT8 *map = NULL;
	UINT64 map_pages = 0;
	enum er_reason r;
	EFI_STATUS err;

	/* read and verify what can be verified before loading */
	r = er_image_open_at(&img, src, l->page0, page, er_auth_run_crypt(l->auth), &e);
	if (r)
		return refuse(dev, r, e.detail);
	log_info(L"%a: image of an %a kernel, %a, %ld pages + %ld meta, jump 0x%lx, cr3 0x%lx\n", dev->id,
		 er_arch_name(img.arch), img.comp == ER_COMP_NONE ? "uncompressed" : er_comp_name(img.comp),
		 img.image_pages, img.nr_meta_pages, img.jump_address, img.cr3);
	err = check_machine(dev, &img);
	if (EFI_ERROR(err))
		return err;
	map_pages = img.map_pages_max;
	if (EFI_ERROR(er_alloc_pages(map_pages, (void **)&map)))
		return refuse(dev, ER_R_NOMEM, "no memory for the map chain");
	r = er_image_load_map(&img, src, map, map_pages, &e);
	if (r) {
		err = refuse(dev, r, e.detail);
		goto out;
	}
	err = stream_modern(dev, &img, src, sc, l, t_start, er_time_us());
	if (EFI_ERROR(err))
		goto out;
	l->h.jump_address = img.jump_address;
	l->h.jump_address_phys = img.jump_address_phys;
	l->h.image_cr3 = img.cr3;
	l->platform_mode = (img.flags & ER_SF_PLATFORM_MODE) != 0;
	er_memcpy(l->orig_sig, img.orig_sig, sizeof(l->orig_sig));
	l->nr_pfns = img.nr_pfns;
out:
	er_free_pages(map, map_pages);
	return err;
}


static EFI_STATUS load_swsusp2004(const struct er_blockdev *dev, struct er_source *src, struct er_dev_source *sc,
			    UINT8 *page, struct loaded *l, UINT64 t_start)
{
	struct er_swsusp2004_image img;
	struct er_error e = { 0 };
	struct er_swsusp2004_expect exp = { ER_LOADER_ARCH, ER_PAGE_SIZE, 0, (UINT32)er_cpu_count() };
	UINT8 *pd = NULL, *io = NULL;
	UINT64 *swaps = NULL, pd_pages = 0, list_pages = 0, t_verify, t_stream;
	enum er_reason r;
	EFI_STATUS err = EFI_ABORTED;

	r = er_swsusp2004_open(&img, src, page, &exp, &e);
	if (r)
		return refuse(dev, r, e.detail);
	log_info(L"%a: 2004 swsusp image (firmware format %d) of %a %a, %ld pages in %ld pagedir pages, entry 0x%lx\n",
		 dev->id, (INTN)img.fw_version, img.sysname, img.release, img.image_pages, img.pagedir_pages, img.entry);
	pd_pages = img.pagedir_pages;
	list_pages = (img.image_pages * sizeof(UINT64) + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE;
	l->pfn_pages = list_pages;
	if (EFI_ERROR(er_alloc_pages(pd_pages, (void **)&pd)) || EFI_ERROR(er_alloc_pages(IO_PAGES, (void **)&io)) ||
	    EFI_ERROR(er_alloc_pages(list_pages, (void **)&l->pfns)) ||
	    EFI_ERROR(er_alloc_pages(list_pages, (void **)&swaps))) {
		err = refuse(dev, ER_R_NOMEM, "no memory for the pagedir");
		goto out;
	}
	r = er_swsusp2004_load_pagedir(&img, src, pd, pd_pages, &exp, &e);
	if (r) {
		err = refuse(dev, r, e.detail);
		goto out;
	}
	t_verify = er_time_us();
	struct er_swsusp2004_buffers bufs = { io, IO_PAGES, l->pfns, swaps };
	struct er_progress pr;
	er_progress_init(&pr, &l->plan, img.image_pages);
	struct er_swsusp2004_sink sink = er_progress_sink2004(&pr);
	r = er_swsusp2004_stream(&img, src, &bufs, &sink, &e);
	t_stream = er_time_us();
	err = stream_end(&pr, dev, r, e.detail);
	if (EFI_ERROR(err)) {
		er_plan_undo(&l->plan);
		goto out;
	}
	log_info(L"timing: verify %ld ms, read %ld ms (%ld reads, %ld MiB), plan %ld ms, place %ld ms (of %ld ms)\n",
		 (t_verify - t_start) / 1000, sc->read_us / 1000, sc->reads, sc->bytes >> 20, l->plan.t_plan_us / 1000,
		 pr.place_us / 1000, (t_stream - t_verify) / 1000);
	l->h.jump_address = img.entry;
	l->h.jump_address_phys = img.entry_phys;
	l->h.image_cr3 = img.cr3;
	l->h.firmware_unaware = TRUE;
	l->platform_mode = false;
	er_memcpy(l->orig_sig, img.orig_sig, sizeof(l->orig_sig));
	err = EFI_SUCCESS;
out:
	if (swaps)
		er_free_pages(swaps, list_pages);
	if (io)
		free_io(dev, io, IO_PAGES);
	if (pd)
		er_free_pages(pd, pd_pages);
	return err;
}

/* The hand-off, prepared now, while allocation is still possible: the restore routine,
 * its tables and the hand-off record. Refused: the plan is undone. */
static EFI_STATUS prepare_handoff(const struct er_blockdev *dev, struct loaded *l, UINT64 t_start)
{
	UINT64 t_loaded = er_time_us(), t_prep;
	struct er_handoff *h = &l->h;
	EFI_STATUS err;

	h->list_phys = (UINT64)(UINTN)l->plan.list;
	h->list_count = l->plan.list_n;
	h->ram_top = l->plan.ram_top;
	h->cr3_page = er_plan_content(&l->plan, h->image_cr3 / ER_PAGE_SIZE);
	h->frame_content = plan_content;
	h->frame_ctx = &l->plan;
	err = er_arch_prepare(h, er_plan_safe_alloc, &l->plan);
	if (EFI_ERROR(err)) {
		er_plan_undo(&l->plan);
		if (h->refusal[0])
			return refuse(dev, ER_R_CPUS, h->refusal);
		return refuse(dev, ER_R_OTHER, "the hand-off could not be prepared");
	}
	t_prep = er_time_us();
	log_info(L"timing: prepare %ld ms, total %ld ms\n", (t_prep - t_loaded) / 1000, (t_prep - t_start) / 1000);
	return EFI_SUCCESS;
}

/* The firmware facts the jump needs, the variables that have served, the point of no
 * return (loader/commit.c) and the jump. Returns only when it did not resume. */
static EFI_STATUS commit_and_jump(const struct er_swapdev *sd, struct loaded *l, const UINT8 *page0, UINT8 *page,
				  UINT64 t_start)
{
	const struct er_blockdev *dev = sd->dev;
	struct er_handoff *h = &l->h;
	struct er_memmap m = { 0 };
	EFI_STATUS err;

	/* the ACPI facts, read now: after ExitBootServices, and on ia32 after SetVirtualAddressMap,
	 * the firmware's tables and pointers are not to be used */
	struct er_acpi_mode acpi;
	er_acpi_mode_facts(&acpi);
	if (!l->platform_mode && acpi.valid && !acpi.sci_en)
		log_info(L"ACPI: the platform is in legacy mode; ACPI mode will be enabled after ExitBootServices (SMI_CMD 0x%x)\n",
			 (UINTN)acpi.smi_cmd);

	/* the location variable and the record of this image have served; deleted while
	 * boot services are there, put back if the commit does not happen */
	char *loc = NULL, *seen = NULL;
	UINTN loc_size = 0, seen_size = 0;
	if (sd->our_location && !EFI_ERROR(er_get_variable(ER_LOCATION_VAR, &er_vendor_guid, 4096, (void **)&loc, &loc_size)))
		er_location_done(sd);
	char *hibloc = NULL;
	UINTN hibloc_size = 0;
	er_hibloc_take(sd, &hibloc, &hibloc_size);
	if (!EFI_ERROR(er_get_variable(ER_SEEN_VAR, &er_vendor_guid, 4096, (void **)&seen, &seen_size)))
		er_stale_forget();

	/* the commit: the point of no return (loader/commit.c, loader/commit_fw.c) */
	log_info(L"%a: resetting the swap signature to %a and handing off to the image kernel (%ld ms since start)\n",
		 dev->id, l->orig_sig, (er_time_us() - t_start) / 1000);
	enum er_pnr_result pr = er_commit_image(sd, page0, page, &m);
	/* the signature is written (or put back): no volume key is needed any more, and
	 * none may reach the image kernel or the normal boot */
	er_volumes_close(l->vols, pr == ER_PNR_EXITED);
	if (pr == ER_PNR_EXITED) {
		__asm__ __volatile__("cli");
		er_arch_after_exit(h, &m);
		/* ACPI mode when the image does not expect the platform to do it: I/O ports only */
		if (!l->platform_mode)
			er_acpi_enable(&acpi);
		er_hibkey_forget(l->hk);   /* Secure Boot: no key left in efiresume's memory */
		er_arch_jump(h);
	}
	if (loc) {
		er_set_variable(ER_LOCATION_VAR, &er_vendor_guid, ER_VAR_NV_BS_RT, loc, loc_size);
		er_free(loc);
	}
	if (hibloc)
		er_hibloc_put_back(hibloc, hibloc_size);
	if (seen) {
		er_set_variable(ER_SEEN_VAR, &er_vendor_guid, ER_VAR_NV_BS_RT, seen, seen_size);
		er_free(seen);
	}
	/* Secure Boot: the key page is not needed (the image is kept, but its key is gone) */
	if (pr == ER_PNR_NOT_COMMITTED)
		er_auth_run_undo(l->auth);
	er_plan_undo(&l->plan);
	err = pr == ER_PNR_NOT_COMMITTED ? EFI_ABORTED : EFI_DEVICE_ERROR;
	if (pr == ER_PNR_NOT_COMMITTED)
		log_info(L"%a: not resumed; nothing was changed, the image is kept\n", dev->id);
	else
		log_error_status(err, L"%a: the swap signature is reset but the hand-off failed; the image is lost", dev->id);
	if (m.buf)
		er_memmap_free(&m);
	return err;
}

/* The one gate of the commit path: no image is committed while a helper CPU of any
 * step (decompression here; the argon2 lanes of the unlock, loader/volumes.c) may
 * still be running, whatever it was given. Its memory is kept for good by whoever
 * lent it; this load's own memory was not lent to it, so it may be given back. */
static bool helpers_all_confirmed(const struct er_volumes *vols)
{
	return !er_dec_cpus_unconfirmed() && !er_volumes_helpers_unconfirmed(vols);
}

EFI_STATUS er_resume(const struct er_config *cfg, const struct er_swapdev *sd, struct er_hibkey *hk,
		     struct er_volumes *vols)
{
	const struct er_blockdev *dev = sd->dev;
	struct er_dev_source sc;
	struct er_source src;
	struct loaded l = { 0 };
	UINT8 *page = NULL, *page0 = NULL;
	UINT64 t_start = er_time_us();
	EFI_STATUS err;
	struct er_auth_run ar = { 0 };   /* Secure Boot */

	er_dev_source_init(sd, &sc, &src);
	er_plan_init(&l.plan, &er_plan_efi_mem);
	l.plan.wipe_on_undo = dev->encrypted;
	if (EFI_ERROR(er_alloc_pages(1, (void **)&page)))
		return EFI_OUT_OF_RESOURCES;
	if (EFI_ERROR(er_alloc_pages(1, (void **)&page0))) {
		er_free_pages(page, 1);
		return EFI_OUT_OF_RESOURCES;
	}
	/* the swap header page is read once: the bytes authenticated are the bytes parsed */
	err = er_blockdev_read(dev, sd->header_page * ER_PAGE_SIZE, page0, ER_PAGE_SIZE);
	if (!EFI_ERROR(err))
		err = er_auth_run_begin(&ar, hk, sd, page0);   /* Secure Boot: refused unless encrypted with the previous key */
	/* its keys are derived (or it was refused): the previous boot's key is done with */
	er_hibkey_drop_prev(hk);
	l.page0 = page0;
	l.auth = &ar;
	l.hk = hk;
	l.vols = vols;
	if (EFI_ERROR(err))
		goto out;
	if (er_swsusp2004_signature(page0) && sd->header_page != 0)
		err = refuse(dev, ER_R_OTHER, "a 2004-format image in a swap file");
	else if (er_swsusp2004_signature(page0))
		err = load_swsusp2004(dev, &src, &sc, page, &l, t_start);
	else
		err = load_modern(dev, &src, &sc, page, &l, t_start);
	if (EFI_ERROR(err))
		goto out;
	if (!helpers_all_confirmed(vols)) {
		er_plan_undo(&l.plan);
		err = refuse(dev, ER_R_CPUS, "a helper CPU of an earlier step did not confirm that it stopped");
		goto out;
	}

	err = prepare_handoff(dev, &l, t_start);
	if (EFI_ERROR(err))
		goto out;

	if (cfg->dry_run) {
		log_info(L"%a: dry run: the image is resumable; not committing, booting normally\n", dev->id);
		er_plan_undo(&l.plan);
		err = EFI_ABORTED;
		goto out;
	}

	er_auth_run_keypage(&ar, hk, l.pfns, l.nr_pfns);   /* Secure Boot: this boot's key for the image kernel */
	err = commit_and_jump(sd, &l, page0, page, t_start);

out:
	er_auth_run_drop(&ar);
	if (l.pfns)
		er_free_pages(l.pfns, l.pfn_pages);
	er_free_pages(page0, 1);
	er_free_pages(page, 1);
	return err;
}

