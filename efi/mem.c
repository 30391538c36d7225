// SPDX-License-Identifier: GPL-2.0-or-later
/* Checked allocations: every failure is logged where it happens and returned. */
#include "efi/efi.h"

EFI_STATUS er_alloc(UINTN size, void **out)
{
	EFI_STATUS err = BS->AllocatePool(EfiLoaderData, size, out);
	if (EFI_ERROR(err)) {
		*out = NULL;
		return log_error_status(err, L"cannot allocate %lu bytes", (UINT64)size);
	}
	return EFI_SUCCESS;
}

EFI_STATUS er_alloc_zero(UINTN size, void **out)
{
	EFI_STATUS err = er_alloc(size, out);
	if (!EFI_ERROR(err))
		er_memset(*out, 0, size);
	return err;
}

void er_free(void *p)
{
	if (p)
		BS->FreePool(p);
}

EFI_STATUS er_alloc_pages(UINTN pages, void **out)
{
	EFI_PHYSICAL_ADDRESS a = 0;
	EFI_STATUS err = BS->AllocatePages(AllocateAnyPages, EfiLoaderData, pages, &a);
	if (EFI_ERROR(err)) {
		*out = NULL;
		return log_error_status(err, L"cannot allocate %lu pages", (UINT64)pages);
	}
	*out = (void *)(UINTN)a;
	return EFI_SUCCESS;
}

void er_free_pages(void *p, UINTN pages)
{
	if (p)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)(UINTN)p, pages);
}
