// SPDX-License-Identifier: GPL-2.0-or-later
/* Entry point: the firmware starts efiresume here. */
#include "efi/efi.h"
#include "loader/loader.h"

EFI_HANDLE er_image_handle;
EFI_LOADED_IMAGE *er_loaded_image;

/* gnu-efi's crt0 calls this with the SysV ABI (not EFIAPI). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_STATUS err;

	InitializeLib(image, systab);
	er_timer_init();
	er_image_handle = image;
	err = BS->HandleProtocol(image, &gEfiLoadedImageProtocolGuid, (void **)&er_loaded_image);
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot find our own loaded image");
	log_info(L"efiresume %a (%a) started\n", EFIRESUME_VERSION, EFIRESUME_ARCH);
	return er_loader_main();
}
