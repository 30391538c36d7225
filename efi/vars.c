// SPDX-License-Identifier: GPL-2.0-or-later
/* EFI variables. */
#include "efi/efi.h"

EFI_STATUS er_get_variable(const CHAR16 *name, const EFI_GUID *guid, UINTN max, void **data, UINTN *size)
{
	UINTN n = 0;
	UINT32 attr;
	void *buf = NULL;
	EFI_STATUS err = RT->GetVariable((CHAR16 *)name, (EFI_GUID *)guid, &attr, &n, NULL);

	*data = NULL;
	*size = 0;
	if (err != EFI_BUFFER_TOO_SMALL)
		return err == EFI_SUCCESS ? EFI_NOT_FOUND : err;
	if (n > max)
		return log_error_status(EFI_BAD_BUFFER_SIZE, L"variable %s is %ld bytes", name, (UINT64)n);
	err = er_alloc(n + 1, &buf);
	if (EFI_ERROR(err))
		return err;
	err = RT->GetVariable((CHAR16 *)name, (EFI_GUID *)guid, &attr, &n, buf);
	if (EFI_ERROR(err)) {
		er_free(buf);
		return log_error_status(err, L"cannot read variable %s", name);
	}
	((UINT8 *)buf)[n] = 0;
	*data = buf;
	*size = n;
	return EFI_SUCCESS;
}

EFI_STATUS er_set_variable(const CHAR16 *name, const EFI_GUID *guid, UINT32 attr, const void *data, UINTN size)
{
	EFI_STATUS err = RT->SetVariable((CHAR16 *)name, (EFI_GUID *)guid, attr, size, (void *)data);
	if (EFI_ERROR(err) && !(size == 0 && err == EFI_NOT_FOUND))
		return log_error_status(err, L"cannot %s variable %s", size ? L"write" : L"delete", name);
	return EFI_SUCCESS;
}

/* 338ebdff-5bf8-4971-8760-45caada2d435: efiresume's vendor GUID (also in packaging/) */
const EFI_GUID er_vendor_guid = { 0x338ebdff, 0x5bf8, 0x4971, { 0x87, 0x60, 0x45, 0xca, 0xad, 0xa2, 0xd4, 0x35 } };
