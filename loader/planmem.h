// SPDX-License-Identifier: GPL-2.0-or-later
/* The plan's memory operations (loader/plan.h) on the firmware's boot services, through
 * efi/efi.h (this file calls no firmware service itself). */
#ifndef EFIRESUME_LOADER_PLANMEM_H
#define EFIRESUME_LOADER_PLANMEM_H

#include "efi/efi.h"
#include "loader/plan.h"

/* AllocatePages/FreePages, GetMemoryMap, AllocatePool/FreePool; physical addresses
 * are where the CPU reaches them (identity); ia32 reaches the low 4 GiB only. */
extern const struct er_plan_mem er_plan_efi_mem;

/* er_plan_safe_pages as the er_safe_alloc_fn of arch/handoff.h (ctx: the plan). */
EFI_STATUS er_plan_safe_alloc(void *ctx, UINTN pages, BOOLEAN code, UINT64 *phys);

#endif
