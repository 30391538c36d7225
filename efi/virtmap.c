// SPDX-License-Identifier: GPL-2.0-or-later
/* SetVirtualAddressMap with an assignment made by someone else (see virtmap.h). */
#include "efi/virtmap.h"

EFI_STATUS er_virtmap_regions(struct er_virt_region *r, UINTN max, UINTN *n, UINTN *desc_size)
{
	struct er_memmap m = { 0 };
	EFI_STATUS err = er_memmap_get(&m);
	UINTN k = 0;

	*n = 0;
	if (EFI_ERROR(err))
		return err;
	*desc_size = m.desc_size;
	for (UINTN i = 0; i < m.count; i++) {
		EFI_MEMORY_DESCRIPTOR *d = ER_MD(&m, i);
		if (!(d->Attribute & EFI_MEMORY_RUNTIME) || d->NumberOfPages == 0)
			continue;
		if (k < max) {
			r[k].phys = d->PhysicalStart;
			r[k].pages = d->NumberOfPages;
			r[k].virt = d->PhysicalStart;
			r[k].type = d->Type;
			r[k].found = 0;
		}
		k++;
	}
	er_memmap_free(&m);
	*n = k;
	return k > max ? EFI_BUFFER_TOO_SMALL : EFI_SUCCESS;
}

EFI_STATUS er_virtmap_set(const struct er_memmap *m, const struct er_virt_region *r, UINTN n, void *buf, UINTN cap)
{
	UINT8 *out = buf;
	UINTN used = 0;

	for (UINTN i = 0; i < m->count; i++) {
		EFI_MEMORY_DESCRIPTOR *d = ER_MD(m, i), *o;
		if (!(d->Attribute & EFI_MEMORY_RUNTIME) || d->NumberOfPages == 0)
			continue;
		if (used + m->desc_size > cap)
			return EFI_BUFFER_TOO_SMALL;
		o = (EFI_MEMORY_DESCRIPTOR *)(out + used);
		er_memcpy(o, d, m->desc_size);
		o->VirtualStart = d->PhysicalStart;
		UINT64 end = d->PhysicalStart + d->NumberOfPages * EFI_PAGE_SIZE;
		for (UINTN k = 0; k < n; k++)
			if (r[k].phys <= d->PhysicalStart && end <= r[k].phys + r[k].pages * EFI_PAGE_SIZE) {
				o->VirtualStart = r[k].virt + (d->PhysicalStart - r[k].phys);
				break;
			}
		used += m->desc_size;
	}
	if (used == 0)
		return EFI_SUCCESS;
	return uefi_call_wrapper(RT->SetVirtualAddressMap, 4, used, m->desc_size, m->version,
				 (EFI_MEMORY_DESCRIPTOR *)out);
}
