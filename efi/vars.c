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
