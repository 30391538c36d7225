// SPDX-License-Identifier: GPL-2.0-or-later
/* Fallback: start the normal boot program with its command line. */
#include "loader/loader.h"

EFI_STATUS er_run_fallback(const struct er_config *cfg)
{
	CHAR16 *path = NULL, *opts = NULL;
	EFI_STATUS err;

	if (!cfg->fallback[0]) {
		/* not an error: with BootNext (efiresume-install's on-hibernate mode) the firmware
		 * goes on with BootOrder when a boot option returns an error */
		log_info(L"no fallback configured in %a: returning to the firmware, which goes on with its boot order\n",
			 ER_CONF_FILE);
		return EFI_NOT_FOUND;
	}
	err = er_alloc(ER_CONF_PATH_MAX * sizeof(CHAR16), (void **)&path);
	if (EFI_ERROR(err))
		return err;
	err = er_alloc(ER_CONF_OPTIONS_MAX * sizeof(CHAR16), (void **)&opts);
	if (EFI_ERROR(err))
		goto out_path;
	er_utf8_to_ucs2(cfg->fallback, path, ER_CONF_PATH_MAX);
	er_utf8_to_ucs2(cfg->options, opts, ER_CONF_OPTIONS_MAX);

	if (!er_file_exists(path)) {
		err = log_error_status(EFI_NOT_FOUND, L"fallback %s does not exist; returning to the firmware", path);
		goto out_opts;
	}
	err = er_start_image(path, opts);
	if (EFI_ERROR(err))
		log_info(L"returning to the firmware so that its next boot option runs\n");
out_opts:
	er_free(opts);
out_path:
	er_free(path);
	return err;
}
