// SPDX-License-Identifier: GPL-2.0-or-later
/* Starting another EFI program (the configured fallback). */
#include "efi/efi.h"

EFI_STATUS er_start_image(const CHAR16 *path, const CHAR16 *options)
{
	EFI_DEVICE_PATH *dp;
	EFI_HANDLE child = NULL;
	EFI_LOADED_IMAGE *li;
	EFI_STATUS err;
	UINTN exit_size = 0;
	CHAR16 *exit_data = NULL;

	dp = FileDevicePath(er_loaded_image->DeviceHandle, (CHAR16 *)path);
	if (!dp)
		return log_error_status(EFI_OUT_OF_RESOURCES, L"cannot build a device path for %s", path);
	/* Loaded from its device path (SourceBuffer NULL), never from a buffer of ours: the
	 * firmware reads the file itself and, under Secure Boot, checks its signature against
	 * db/dbx like any boot option (a buffer would be checked too on edk2, but the device
	 * path is what the firmware's policy and measurements expect). */
	err = BS->LoadImage(FALSE, er_image_handle, dp, NULL, 0, &child);
	FreePool(dp);
	if (err == EFI_SECURITY_VIOLATION || err == EFI_ACCESS_DENIED) {
		/* UEFI 2.3.1+: with EFI_SECURITY_VIOLATION the image may be loaded (a handle
		 * exists) but must not be started: unload it */
		if (child)
			BS->UnloadImage(child);
		return log_error_status(err, L"Secure Boot: the firmware refused to load %s (not signed by a key in db, or revoked in dbx)",
					path);
	}
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot load %s", path);

	err = BS->HandleProtocol(child, &gEfiLoadedImageProtocolGuid, (void **)&li);
	if (EFI_ERROR(err)) {
		BS->UnloadImage(child);
		return log_error_status(err, L"%s has no loaded-image protocol", path);
	}
	if (options && options[0]) {
		li->LoadOptions = (void *)options;
		li->LoadOptionsSize = (UINT32)((StrLen(options) + 1) * sizeof(CHAR16));
	}
	log_info(L"starting %s %s\n", path, options ? options : L"");
	err = BS->StartImage(child, &exit_size, &exit_data);
	if (EFI_ERROR(err)) {
		if (exit_data && exit_size > 0)
			log_warn(L"%s said: %s\n", path, exit_data);
		return log_error_status(err, L"%s failed", path);
	}
	log_info(L"%s returned\n", path);
	return EFI_SUCCESS;
}
