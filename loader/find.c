// SPDX-License-Identifier: GPL-2.0-or-later
/* Find: which block devices are swap, and which of them holds a hibernation image.
 *
 * A swap partition carries its swap header in page 0. A swap file carries it in
 * the file's first block, at some page N of the partition that holds the
 * filesystem (the kernel's resume_offset); nothing on the disk says where, so a
 * swap file is only looked at when it is named: by `resume PARTUUID=...` with
 * `resume-offset N` in efiresume.conf, or by systemd's HibernateLocation variable
 * (the filesystem's UUID and the offset). */
#include "loader/loader.h"
#include "loader/location.h"
#include "loader/select.h"
#include "loader/volumes.h"
#include "image/fmt.h"

/* systemd's vendor GUID, under which it stores HibernateLocation */
static const EFI_GUID systemd_guid = { 0x8cf2644b, 0x4b0b, 0x428f, { 0x93, 0x87, 0x6d, 0x87, 0x60, 0x50, 0xdc, 0x67 } };

static bool read_location(const CHAR16 *name, const EFI_GUID *guid, enum er_location_enc enc,
			  struct er_location *h, bool *present)
{
	char *data = NULL;
	const char *why;
	UINTN size = 0;
	bool ok = false;
	if (EFI_ERROR(er_get_variable(name, guid, ER_LOCATION_MAX, (void **)&data, &size)))
		return false;
	*present = true;
	if (!er_location_read(data, size, enc, h, &why)) {
		log_warn(L"%s is not the %a JSON its writer produces (%a); ignored\n", name,
			 enc == ER_LOC_UTF16LE ? "UTF-16LE" : "UTF-8", why);
	} else {
		char u[37];
		er_uuid_format(h->uuid, u);
		if (h->offset)
			log_info(L"%s: swap file at page %ld of the filesystem UUID %a, kernel %a\n", name, h->offset, u,
				 h->kernel[0] ? h->kernel : "?");
		else
			log_info(L"%s: swap UUID %a, kernel %a\n", name, u, h->kernel[0] ? h->kernel : "?");
		ok = true;
	}
	er_free(data);
	return ok;
}

/* Where the last hibernation went: efiresume's own sleep hook writes EfiresumeLocation
 * (systemd before 254 writes nothing), systemd 254 and later HibernateLocation. Both
 * have one shape; ours is read first. */
static const CHAR16 *loc_name = L"HibernateLocation";

void er_hint_read(struct er_hint *h)
{
	bool theirs = false;
	er_memset(h, 0, sizeof(*h));
	h->name = loc_name = ER_LOCATION_VAR;
	if (read_location(ER_LOCATION_VAR, &er_vendor_guid, ER_LOC_UTF8, &h->loc, &h->ours)) {
		h->have = true;
		return;
	}
	h->name = loc_name = L"HibernateLocation";
	h->have = read_location(L"HibernateLocation", &systemd_guid, ER_LOC_UTF16LE, &h->loc, &theirs);
}

/* Is "LV <vg/lv>" among the devices (loader/lvdev.c names them so)? */
static bool lv_mapped(const struct er_blockdev *devs, UINTN ndevs, const char *lv)
{
	char want[sizeof(devs->id)];   /* named as lvdev.c names it, cut where it cuts */
	er_snprintf(want, sizeof(want), "LV %s", lv);
	UINTN n = er_strnlen(want, sizeof(want));
	for (UINTN i = 0; i < ndevs; i++)
		if (er_strnlen(devs[i].id, sizeof(devs[i].id)) == n && er_memcmp(devs[i].id, want, n) == 0)
			return true;
	return false;
}

static bool configured(const struct er_config *cfg)
{
	return cfg->have_resume || cfg->have_resume_lv || cfg->have_resume_uuid;
}

/* The device `resume PARTUUID=` or `resume LV=` names (UUID= names a swap area or a
 * filesystem, not a device: see is_resume_uuid). */
static bool is_resume_dev(const struct er_config *cfg, const struct er_blockdev *d)
{
	if (cfg->have_resume_lv)
		return er_volume_is_lv(d, cfg->resume_lv);
	if (!cfg->have_resume)
		return false;
	if (cfg->resume_mbr_part)
		return d->scheme == ER_PART_MBR && er_memcmp(d->partuuid, cfg->resume_partuuid, 4) == 0 &&
		       d->part_number == cfg->resume_mbr_part;
	return d->scheme == ER_PART_GPT && er_memcmp(d->partuuid, cfg->resume_partuuid, 16) == 0;
}

/* A swap file at page `at` of d: reported, and taken when it holds an image. */
static void try_swap_file(struct er_blockdev *d, UINT64 at, const CHAR16 *why, UINT8 *page, struct er_swapdev *image)
{
	enum er_swap_kind kind = ER_SWAP_NONE;
	if (at >= d->size / ER_PAGE_SIZE) {
		log_warn(L"swap file at page %ld of %a (%s): beyond the partition (%ld pages)\n", at, d->id, why,
			 d->size / ER_PAGE_SIZE);
		return;
	}
	if (!EFI_ERROR(er_blockdev_read(d, at * ER_PAGE_SIZE, page, ER_PAGE_SIZE)))
		kind = er_swap_classify(page);
	log_info(L"swap file at page %ld of %a (%s): %a\n", at, d->id, why, er_swap_kind_name(kind));
	if (kind == ER_SWAP_IMAGE_2004)
		log_warn(L"%a: a 2004-format image in a swap file is not supported\n", d->id);
	if (kind != ER_SWAP_IMAGE)
		return;
	image->dev = d;
	image->kind = kind;
	image->header_page = at;
}

/* HibernateLocation names a swap file: the partition whose filesystem has that UUID
 * (only the configured one, when `resume` names one; only when its swap area is the one
 * `resume UUID=` names, when the configuration names a swap area that way). */
static void find_location_file(const struct er_config *cfg, const struct er_location *hl, struct er_blockdev *devs,
			     UINTN ndevs, struct er_swapdev *image)
{
	UINTN pages = (ER_FS_UUID_BYTES + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE, matched = 0;
	bool excluded = false;
	UINT8 *buf;
	if (EFI_ERROR(er_alloc_pages(pages, (void **)&buf)))
		return;
	for (UINTN i = 0; i < ndevs; i++) {
		struct er_blockdev *d = &devs[i];
		UINT8 u[16];
		if ((cfg->have_resume || cfg->have_resume_lv) && !is_resume_dev(cfg, d))
			continue;
		UINTN n;
		/* quietly: removable drives without media fail here */
		if (EFI_ERROR(er_blockdev_probe_head(d, buf, ER_FS_UUID_BYTES, 2048, &n)))
			continue;
		const char *fs = er_fs_uuid(buf, n, u);
		if (!fs || er_memcmp(u, hl->uuid, 16) != 0)
			continue;
		/* two devices with one UUID (RAID1 members, say): the signature would be reset
		 * on one of them only, so neither is used */
		if (++matched > 1) {
			log_warn(L"%a: a second filesystem with the UUID %s names; not resuming from either\n", d->id,
				 loc_name);
			image->dev = NULL;
			break;
		}
		log_info(L"%a: %a filesystem named by %s\n", d->id, fs, loc_name);
		try_swap_file(d, hl->offset, loc_name, buf, image);
		/* `resume UUID=` without resume-offset names a swap area: the configuration wins
		 * (buf holds the swap file's header page: its swap area's UUID); one naming the
		 * filesystem that holds the file (Debian's RESUME=UUID=) names this place too */
		if (image->dev && cfg->have_resume_uuid && !cfg->resume_offset) {
			er_swap_uuid(buf, u);
			if (er_memcmp(u, cfg->resume_uuid, 16) != 0 && er_memcmp(hl->uuid, cfg->resume_uuid, 16) != 0) {
				excluded = true;
				image->dev = NULL;
			}
		}
		if (image->dev) {
			er_memcpy(image->kernel, hl->kernel, sizeof(image->kernel));
			image->named = true;
			image->place = *hl;
		}
	}
	if (matched == 0)
		log_info(L"no filesystem the firmware can read has the UUID %s names%a; not taking another image\n",
			 loc_name, cfg->have_resume || cfg->have_resume_lv ? " on the configured resume device" : "");
	else if (matched > 1)   /* the image may well be there: the variable is not stale */
		log_warn(L"the location %s names is ambiguous (more than one filesystem with its UUID): refused, not "
			 L"taking another image\n", loc_name);
	else if (excluded)
		log_warn(L"the swap file %s names holds an image the resume configuration excludes (resume UUID= names "
			 L"another swap area); not taking another (an older) image\n", loc_name);
	else if (!image->dev) {
		log_info(L"no image in the swap file %s names\n", loc_name);
		image->stale_location = true;
	}
	er_free_pages(buf, pages);
}

/* Swap partitions: page 0 of each, then the choice (loader/select.c). */
static EFI_STATUS find_partition(const struct er_config *cfg, const struct er_location *hl, struct er_blockdev *devs,
				 UINTN ndevs, UINT8 *page, struct er_swapdev *image)
{
	struct er_candidate *cand = NULL;
	UINTN *dev_of = NULL, n = 0;
	EFI_STATUS err;

	err = er_alloc_zero(ndevs * sizeof(*cand) + 1, (void **)&cand);
	if (EFI_ERROR(err))
		return err;
	err = er_alloc_zero(ndevs * sizeof(*dev_of) + 1, (void **)&dev_of);
	if (EFI_ERROR(err))
		goto out;
	for (UINTN i = 0; i < ndevs; i++) {
		struct er_blockdev *d = &devs[i];
		enum er_swap_kind kind = ER_SWAP_NONE;

		if (d->size < ER_PAGE_SIZE)
			continue;
		if (!EFI_ERROR(er_blockdev_probe(d, 0, page, ER_PAGE_SIZE)))
			kind = er_swap_classify(page);
		else if (!d->type_swap)
			continue;
		else
			log_warn(L"%a: cannot read page 0 of a swap partition\n", d->id);

		/* A whole disk that carries a partition table also shows its partitions;
		 * report a disk only when it is swap itself (no table, signature on it). */
		if (!d->type_swap && kind == ER_SWAP_NONE)
			continue;
		struct er_candidate *c = &cand[n];
		c->kind = (UINT8)kind;
		if (kind != ER_SWAP_NONE) {
			er_swap_uuid(page, c->uuid);
			er_memcpy(c->tail, page + ER_HDR_HW_SIG, sizeof(c->tail));
		}
		if (cfg->have_resume_uuid)
			c->eligible = kind != ER_SWAP_NONE && er_memcmp(c->uuid, cfg->resume_uuid, 16) == 0;
		else
			c->eligible = !configured(cfg) || is_resume_dev(cfg, d);
		bool named = hl && kind != ER_SWAP_NONE && er_memcmp(c->uuid, hl->uuid, 16) == 0;
		log_info(L"swap %a: %a%s%s%s\n", d->id, er_swap_kind_name(kind), named ? L" (" : L"", named ? loc_name : L"",
			 named ? L")" : L"", c->eligible ? L"" : L" (not the configured resume device)");
		dev_of[n++] = i;
	}
	if (n == 0) {
		log_info(L"no swap partition found\n");
		goto out;
	}
	struct er_selection sel;
	er_select_image(cand, n, hl ? hl->uuid : NULL, &sel);
	switch (sel.why) {
	case ER_SEL_TWIN:
		log_warn(L"%a and %a hold %a image of one swap area (RAID1 members or a cloned disk?): resuming one would "
			 L"leave the other to be resumed later over filesystems that moved on; not resuming (both kept)\n",
			 devs[dev_of[sel.subject]].id, devs[dev_of[sel.twin]].id, sel.identical ? "the same" : "an");
		break;
	case ER_SEL_HINT_MISSING:
		log_warn(L"the swap area %s names is not visible to the firmware; not taking another image\n", loc_name);
		if (hl->lv[0])   /* the sleep hook's "lv": say which layer is missing */
			log_warn(L"%s says the swap is on LV %a: %a\n", loc_name, hl->lv,
				 lv_mapped(devs, ndevs, hl->lv) ? "that LV is mapped but holds no swap area with that UUID"
								: "no such LV was assembled (its volume group, or the container "
								  "holding it, is missing or still locked)");
		break;
	case ER_SEL_HINT_EXCLUDED:
		log_warn(L"the swap area %s names holds an image the resume configuration excludes; not taking another "
			 L"(an older) image\n", loc_name);
		break;
	case ER_SEL_HINT_STALE:
		log_info(L"the swap area %s names holds no image (a stale variable); not taking another (an older) "
			 L"image\n", loc_name);
		break;
	default:
		break;
	}
	image->stale_location = sel.why == ER_SEL_HINT_STALE;
	if (sel.index >= 0) {
		image->dev = &devs[dev_of[sel.index]];
		image->kind = cand[sel.index].kind;
		if (sel.why == ER_SEL_HINT) {
			er_memcpy(image->kernel, hl->kernel, sizeof(image->kernel));
			image->named = true;
			image->place = *hl;
		}
	} else if (configured(cfg) && sel.why == ER_SEL_NONE) {
		log_info(L"no image on the configured resume device\n");
	}
out:
	er_free(dev_of);
	er_free(cand);
	return err;
}

EFI_STATUS er_find_image(const struct er_config *cfg, const struct er_hint *hint, struct er_blockdev *devs,
			 UINTN ndevs, struct er_swapdev *image)
{
	UINT8 *page;
	EFI_STATUS err;
	bool have_hl = hint->have;

	er_memset(image, 0, sizeof(*image));
	image->kind = ER_SWAP_NONE;
	image->our_location = hint->ours;
	loc_name = hint->name;
	err = er_alloc_pages(1, (void **)&page);
	if (EFI_ERROR(err))
		return err;

	/* 1. a swap file named in the configuration: that and nothing else */
	if (cfg->resume_offset && cfg->have_resume_uuid) {
		/* UUID= with resume-offset: the filesystem holding the swap file (Debian's
		 * RESUME=UUID=... with RESUME_OFFSET=...), found as the location variable's */
		struct er_location conf;
		er_memset(&conf, 0, sizeof(conf));
		er_memcpy(conf.uuid, cfg->resume_uuid, 16);
		conf.offset = cfg->resume_offset;
		loc_name = L"resume UUID= in efiresume.conf";
		find_location_file(cfg, &conf, devs, ndevs, image);
		goto out;
	}
	if (cfg->resume_offset) {
		bool named = cfg->have_resume || cfg->have_resume_lv;
		if (!named)
			log_warn(L"resume-offset without resume PARTUUID=, LV= or UUID=: ignored\n");
		for (UINTN i = 0; named && i < ndevs; i++)
			if (is_resume_dev(cfg, &devs[i])) {
				try_swap_file(&devs[i], cfg->resume_offset, L"resume-offset", page, image);
				goto out;
			}
		if (named) {
			log_info(L"the configured resume device is not on this machine\n");
			goto out;
		}
	}
	/* 2. a swap file named by the location variable: that and nothing else (when it is
	 * not there, another image would be an older one) */
	if (have_hl && hint->loc.offset) {
		find_location_file(cfg, &hint->loc, devs, ndevs, image);
		goto out;
	}
	/* 3. swap partitions, logical volumes, unlocked containers */
	err = find_partition(cfg, have_hl ? &hint->loc : NULL, devs, ndevs, page, image);
out:
	er_free_pages(page, 1);
	return err;
}

bool er_hibloc_take(const struct er_swapdev *sd, char **saved, UINTN *size)
{
	*saved = NULL;
	*size = 0;
	if (!sd->named)
		return false;
	if (EFI_ERROR(er_get_variable(L"HibernateLocation", &systemd_guid, ER_LOCATION_MAX, (void **)saved, size)))
		return false;
	/* EfiresumeLocation named the image: systemd 254+ wrote HibernateLocation at the same
	 * hibernation. Left behind, it would name this image's swap after the resume (no
	 * systemd-hibernate-resume runs, and systemd-hibernate-clear only on a normal boot
	 * after the initramfs): the next boot through efiresume would find a stale hint, and
	 * ask for a passphrase when the swap is encrypted. Deleted too when it names the
	 * same place; one naming another place is not this image's and is left alone. */
	if (sd->our_location) {
		struct er_location theirs;
		if (!er_location_read(*saved, *size, ER_LOC_UTF16LE, &theirs, NULL) ||
		    !er_location_same_place(&theirs, &sd->place)) {
			er_free(*saved);
			*saved = NULL;
			*size = 0;
			return false;
		}
	}
	if (EFI_ERROR(er_set_variable(L"HibernateLocation", &systemd_guid, ER_VAR_NV_BS_RT, NULL, 0))) {
		er_free(*saved);
		*saved = NULL;
		return false;
	}
	log_info(L"HibernateLocation deleted (it named this image; systemd-hibernate-resume does the same)\n");
	return true;
}

void er_hibloc_put_back(char *saved, UINTN size)
{
	er_set_variable(L"HibernateLocation", &systemd_guid, ER_VAR_NV_BS_RT, saved, size);
	er_free(saved);
}

void er_location_done(const struct er_swapdev *sd)
{
	if (sd->our_location && !EFI_ERROR(er_set_variable(ER_LOCATION_VAR, &er_vendor_guid, ER_VAR_NV_BS_RT, NULL, 0)))
		log_info(L"%s deleted\n", ER_LOCATION_VAR);
}
