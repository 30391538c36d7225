// SPDX-License-Identifier: GPL-2.0-or-later
/* efi/virtmap.c: SetVirtualAddressMap on behalf of a resumed OS.
 *
 * An OS that called SetVirtualAddressMap at its own boot keeps calling the runtime
 * services at the virtual addresses it chose then. When that OS is resumed from a
 * hibernation image by efiresume instead of booting, the firmware is fresh (physical
 * mode), so efiresume must call SetVirtualAddressMap itself, after ExitBootServices,
 * with the assignment the image's kernel made. 32-bit Linux has no 1:1 alias of the
 * runtime regions, so without this its first runtime call faults. */
#ifndef EFIRESUME_EFI_VIRTMAP_H
#define EFIRESUME_EFI_VIRTMAP_H

#include "efi/efi.h"

/* One EFI_MEMORY_RUNTIME descriptor of the firmware's map and the virtual address
 * the OS gave it. */
struct er_virt_region {
	UINT64 phys;      /* PhysicalStart */
	UINT64 pages;     /* NumberOfPages */
	UINT64 virt;      /* VirtualStart to hand to the firmware (phys when unknown) */
	UINT32 type;      /* EFI memory type */
	UINT32 found;     /* set by the caller: the OS maps it at virt */
};

/* Lists the EFI_MEMORY_RUNTIME descriptors of the current memory map into
 * r[0..max) with virt = phys. *n is the number of runtime descriptors (also when it
 * exceeds max: then EFI_BUFFER_TOO_SMALL; call with max = 0 to count), *desc_size
 * the firmware's descriptor size. */
EFI_STATUS er_virtmap_regions(struct er_virt_region *r, UINTN max, UINTN *n, UINTN *desc_size);

/* After ExitBootServices: copies each EFI_MEMORY_RUNTIME descriptor of the final
 * memory map m into buf (cap bytes, a preallocated buffer), with VirtualStart taken
 * from the region of r[0..n) that contains it (phys + the region's offset; phys when
 * none does), and calls SetVirtualAddressMap with that list. No allocation, no
 * output. Returns the firmware's status (EFI_BUFFER_TOO_SMALL: not called). */
EFI_STATUS er_virtmap_set(const struct er_memmap *m, const struct er_virt_region *r, UINTN n, void *buf, UINTN cap);

#endif
