// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/: the story of a resume — find, read, verify, plan, load, commit, hand off.
 * It calls the firmware only through efi/. */
#ifndef EFIRESUME_LOADER_LOADER_H
#define EFIRESUME_LOADER_LOADER_H

#include "efi/efi.h"
#include "loader/config.h"
#include "loader/location.h"

/* A swap device and what its page 0 says. */
struct er_swapdev {
	struct er_blockdev *dev;
	enum er_swap_kind kind;
	UINT64 header_page;     /* the swap header: page 0, or a swap file's resume_offset */
	bool our_location;   /* EfiresumeLocation is set: deleted once it has served */
	bool stale_location; /* the location variable names a place without an image */
	bool named;          /* the location variable names this image */
	struct er_location place; /* when named: what that variable says (uuid, offset) */
	char kernel[65];        /* kernelVersion from the location variable naming it, or "" */
};

/* efiresume's sleep hook writes it before hibernation (same JSON as HibernateLocation) */
#define ER_LOCATION_VAR L"EfiresumeLocation"

/* Where the last hibernation went: EfiresumeLocation (efiresume's sleep hook) or
 * HibernateLocation (systemd 254+), read once per boot (loader/find.c). */
struct er_hint {
	bool have;            /* a location variable was read and understood: loc */
	bool ours;            /* EfiresumeLocation is set (deleted once it has served) */
	const CHAR16 *name;      /* the variable loc came from */
	struct er_location loc;
};
void er_hint_read(struct er_hint *h);

/* loader/find.c: reports every swap device on the console (one line each) and
 * fills *image with the one to resume (kind == ER_SWAP_IMAGE), if any. */
EFI_STATUS er_find_image(const struct er_config *cfg, const struct er_hint *hint, struct er_blockdev *devs,
			 UINTN ndevs, struct er_swapdev *image);

/* loader/fallback.c: start cfg->fallback with cfg->options. Returns an error for the
 * firmware (so that its next boot option runs) when that is impossible. */
EFI_STATUS er_run_fallback(const struct er_config *cfg);

/* loader/resume.c: verify, load and hand off. Returns only when it refused the image
 * (nothing written) or was told to do a dry run; the caller then boots normally.
 * hk: this boot's Secure Boot keys (loader/hibkey.h); the previous key is used up. */
struct er_hibkey;
struct er_volumes;
EFI_STATUS er_resume(const struct er_config *cfg, const struct er_swapdev *sd, struct er_hibkey *hk,
		     struct er_volumes *vols);

/* loader/ondisk.h: the image as it lies in its swap area (identity, description, discard) */

/* loader/stale.c: on first sight of an image records the filesystems it can read
 * (EfiresumeSeen); on a later boot compares: *stale when one was mounted or written
 * since, with why ("ext4 <uuid> was mounted since the hibernation ...: resuming would
 * corrupt it"). er_stale_forget deletes the record (the image is gone). */
EFI_STATUS er_stale_check(struct er_blockdev *devs, UINTN ndevs, const struct er_swapdev *sd, char *why, UINTN cap,
			  bool *stale);
void er_stale_forget(void);
#define ER_SEEN_VAR L"EfiresumeSeen"

/* loader/find.c: deletes EfiresumeLocation (it has served, or it is stale). */
void er_location_done(const struct er_swapdev *sd);
/* systemd's HibernateLocation named the image about to be resumed, or EfiresumeLocation
 * did and HibernateLocation names the same place (er_location_same_place: both written at
 * one hibernation): deleted now (as systemd-hibernate-resume deletes it before the kernel
 * resumes), the bytes kept in *saved to be put back by er_hibloc_put_back if the commit
 * does not happen. false: nothing done. */
bool er_hibloc_take(const struct er_swapdev *sd, char **saved, UINTN *size);
void er_hibloc_put_back(char *saved, UINTN size);

/* loader/loader.c */
EFI_STATUS er_loader_main(void);

#endif
