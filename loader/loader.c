// SPDX-License-Identifier: GPL-2.0-or-later
/* The story of a boot through efiresume. */
#include "loader/loader.h"
#include "loader/volumes.h"
#include "loader/hibkey.h"
#include "loader/ondisk.h"

#define CONF_MAX_SIZE (64 * 1024)

static void conf_warn(void *ctx, unsigned line, const char *key, const char *reason)
{
	log_warn(L"%s line %d: '%a': %a; ignored\n", (const CHAR16 *)ctx, line, key, reason);
}

static EFI_STATUS load_config(struct er_config *cfg)
{
	CHAR16 *path = NULL;
	char *text = NULL;
	UINTN size = 0;
	EFI_STATUS err;

	er_config_defaults(cfg);
	err = er_self_file(ER_CONF_FILE, &path);
	if (EFI_ERROR(err))
		return err;
	err = er_read_file(path, CONF_MAX_SIZE, &text, &size);
	if (err == EFI_NOT_FOUND) {
		log_info(L"no %s, using defaults\n", path);
		err = EFI_SUCCESS;
	} else if (!EFI_ERROR(err)) {
		er_config_parse(cfg, text, size, conf_warn, path);
		log_info(L"configuration %s read\n", path);
		er_free(text);
	}
	er_free(path);
	return err;
}

/* An image whose filesystems changed since it was first seen: never resumed; the user
 * may discard it (the prompt waits at least STALE_PROMPT_S seconds). */
#define STALE_PROMPT_S 10
static char ask_stale(const struct er_config *cfg, const struct er_swapdev *image)
{
	UINTN t = cfg->timeout > STALE_PROMPT_S ? cfg->timeout : STALE_PROMPT_S;
	log_info(L"%a: D: discard the image (it can never be resumed safely now); any other key or %d s: boot normally and keep it\n",
		 image->dev->id, (INTN)t);
	INT32 k = er_wait_key(t);
	return k == 'd' || k == 'D' ? 'd' : 'n';
}

/* The prompt (timeout > 0): resume now / boot normally / discard the image. */
static char ask(const struct er_config *cfg, const struct er_swapdev *image)
{
	if (cfg->timeout == 0)
		return 'r';
	log_info(L"%a: resuming in %d s. Enter: resume now, Esc: boot normally (keep the image), D: discard the image\n",
		 image->dev->id, (INTN)cfg->timeout);
	INT32 k = er_wait_key(cfg->timeout);
	if (k == 27)
		return 'n';
	if (k == 'd' || k == 'D')
		return 'd';
	return 'r';
}

EFI_STATUS er_loader_main(void)
{
	struct er_config cfg;
	struct er_blockdev *devs = NULL;
	struct er_swapdev image;
	struct er_hint hint;
	struct er_hibkey hk;   /* Secure Boot: this boot's keys; wiped and closed below, last */
	UINTN ndevs = 0;
	struct er_volumes *vols = NULL;
	EFI_STATUS err;

	/* A broken configuration file still leaves the defaults in place: go on. */
	load_config(&cfg);
	er_hibkey_open(&hk);

	er_hint_read(&hint);
	err = er_blockdev_list(&devs, &ndevs);
	/* LVM logical volumes and LUKS containers: devices of their own (a failure here
	 * leaves the plain devices) */
	if (!EFI_ERROR(err))
		er_volumes_open(&cfg, &hint, &devs, &ndevs, &vols);
	if (!EFI_ERROR(err))
		err = er_find_image(&cfg, &hint, devs, ndevs, &image);
	if (!EFI_ERROR(err) && image.stale_location)
		er_location_done(&image);
	if (!EFI_ERROR(err) && image.dev) {
		char what[256], why[256];
		bool stale = false;
		er_describe(&image, what, sizeof(what));
		log_info(L"found %a\n", what);
		er_stale_check(devs, ndevs, &image, why, sizeof(why), &stale);
		if (stale)
			log_warn(L"%a: image refused: %a\n", image.dev->id, why);
		switch (stale ? ask_stale(&cfg, &image) : ask(&cfg, &image)) {
		case 'd':
			if (!EFI_ERROR(er_discard(&image))) {
				er_location_done(&image);
				er_stale_forget();
			}
			break;
		case 'n':
			if (stale)
				log_info(L"%a: booting normally; the image is kept but will not be resumed\n", image.dev->id);
			else
				log_info(L"%a: booting normally at the user's request; the image is kept\n", image.dev->id);
			break;
		default:
			er_resume(&cfg, &image, &hk, vols);
		}
	}
	/* the image it recorded is gone (unless it may be in a container left locked) */
	if (!EFI_ERROR(err) && !image.dev && !er_volumes_locked(vols))
		er_stale_forget();
	/* the volume keys go before anything else runs */
	er_volumes_close(vols, false);
	er_free(devs);
	er_volumes_free(vols);
	/* Secure Boot: this boot's key for a kernel that asks (the patched EFI stub), wiped at
	 * ExitBootServices; and whatever returns to the firmware finds no key */
	er_hibkey_offer(&hk);
	err = er_run_fallback(&cfg);
	er_hibkey_close(&hk);
	return err;
}
