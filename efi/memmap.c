// SPDX-License-Identifier: GPL-2.0-or-later
/* The firmware memory map, page allocations at fixed addresses, ExitBootServices. */
#include "efi/efi.h"

EFI_STATUS er_memmap_get(struct er_memmap *m)
{
	EFI_STATUS err;

	for (int tries = 0; tries < 8; tries++) {
		UINTN size = m->cap;
		err = BS->GetMemoryMap(&size, (EFI_MEMORY_DESCRIPTOR *)m->buf, &m->key, &m->desc_size, &m->version);
		if (err == EFI_BUFFER_TOO_SMALL) {
			/* room for the descriptors our own allocation adds, and some */
			UINTN want = size + 16 * (m->desc_size ? m->desc_size : sizeof(EFI_MEMORY_DESCRIPTOR));
			er_free(m->buf);
			m->buf = NULL;
			m->cap = 0;
			err = er_alloc(want, (void **)&m->buf);
			if (EFI_ERROR(err))
				return err;
			m->cap = want;
			continue;
		}
		if (EFI_ERROR(err))
			return log_error_status(err, L"GetMemoryMap failed");
		if (m->desc_size < sizeof(EFI_MEMORY_DESCRIPTOR))
			return log_error_status(EFI_UNSUPPORTED, L"memory descriptors of %d bytes", (INTN)m->desc_size);
		m->size = size;
		m->count = size / m->desc_size;
		return EFI_SUCCESS;
	}
	return log_error_status(EFI_BUFFER_TOO_SMALL, L"the memory map keeps growing");
}

void er_memmap_free(struct er_memmap *m)
{
	er_free(m->buf);
	m->buf = NULL;
	m->cap = m->size = m->count = 0;
}

/* GetMemoryMap into the buffer as it is (after ExitBootServices was called once: no
 * allocation). */
EFI_STATUS er_memmap_refetch(struct er_memmap *m)
{
	UINTN size = m->cap;
	EFI_STATUS err = BS->GetMemoryMap(&size, (EFI_MEMORY_DESCRIPTOR *)m->buf, &m->key, &m->desc_size, &m->version);
	if (EFI_ERROR(err))
		return err;
	m->size = size;
	m->count = size / m->desc_size;
	return EFI_SUCCESS;
}

EFI_STATUS er_exit_boot_services_once(struct er_memmap *m)
{
	return BS->ExitBootServices(er_image_handle, m->key);
}

void er_reset_system(void)
{
	RT->ResetSystem(EfiResetCold, EFI_ABORTED, 0, NULL);
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

EFI_STATUS er_alloc_at(UINT64 addr, UINTN pages)
{
	EFI_PHYSICAL_ADDRESS a = addr;
	return BS->AllocatePages(AllocateAddress, EfiLoaderData, pages, &a);
}

EFI_STATUS er_alloc_any(UINTN pages, UINT64 max_addr, UINT64 *addr)
{
	EFI_PHYSICAL_ADDRESS a = max_addr;
	EFI_STATUS err = BS->AllocatePages(max_addr ? AllocateMaxAddress : AllocateAnyPages, EfiLoaderData, pages, &a);
	*addr = a;
	return err;
}

EFI_STATUS er_alloc_any_code(UINTN pages, BOOLEAN code, UINT64 *addr)
{
	EFI_PHYSICAL_ADDRESS a = 0;
	EFI_STATUS err = BS->AllocatePages(AllocateAnyPages, code ? EfiLoaderCode : EfiLoaderData, pages, &a);
	*addr = a;
	return err;
}

void er_free_at(UINT64 addr, UINTN pages)
{
	BS->FreePages(addr, pages);
}
