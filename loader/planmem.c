// SPDX-License-Identifier: GPL-2.0-or-later
/* The plan's memory operations on the firmware (see loader/plan.h). */
#include "loader/planmem.h"
#include "arch/handoff.h"

/* the plan writes the restore routine's list */
_Static_assert(sizeof(struct er_plan_entry) == sizeof(struct er_restore_entry), "restore entry size");
_Static_assert(__builtin_offsetof(struct er_plan_entry, dst) == __builtin_offsetof(struct er_restore_entry, dst),
	       "restore entry dst");
_Static_assert(__builtin_offsetof(struct er_plan_entry, src) == __builtin_offsetof(struct er_restore_entry, src),
	       "restore entry src");
/* the plan reads descriptors at these offsets */
_Static_assert(__builtin_offsetof(EFI_MEMORY_DESCRIPTOR, Type) == 0, "descriptor Type");
_Static_assert(__builtin_offsetof(EFI_MEMORY_DESCRIPTOR, PhysicalStart) == 8, "descriptor PhysicalStart");
_Static_assert(__builtin_offsetof(EFI_MEMORY_DESCRIPTOR, NumberOfPages) == 24, "descriptor NumberOfPages");
_Static_assert(__builtin_offsetof(EFI_MEMORY_DESCRIPTOR, Attribute) == 32, "descriptor Attribute");

static uintptr_t get_map(void *ctx, const uint8_t **buf, size_t *size, size_t *desc_size)
{
	struct er_memmap m = { 0 };
	(void)ctx;
	EFI_STATUS err = er_memmap_get(&m);   /* logs its failure */
	if (EFI_ERROR(err)) {
		er_memmap_free(&m);
		*buf = NULL;
		return err;
	}
	*buf = m.buf;
	*size = m.size;
	*desc_size = m.desc_size;
	return EFI_SUCCESS;
}

static void put_map(void *ctx, const uint8_t *buf)
{
	(void)ctx;
	er_free((void *)buf);
}

static uintptr_t alloc_at(void *ctx, uint64_t addr, uint64_t pages)
{
	(void)ctx;
	if ((UINTN)pages != pages)
		return EFI_OUT_OF_RESOURCES;
	return er_alloc_at(addr, (UINTN)pages);
}

static uintptr_t alloc_any(void *ctx, uint64_t pages, bool code, uint64_t *addr)
{
	(void)ctx;
	if ((UINTN)pages != pages)
		return EFI_OUT_OF_RESOURCES;
	return er_alloc_any_code((UINTN)pages, code, addr);
}

static void free_pages(void *ctx, uint64_t addr, uint64_t pages)
{
	(void)ctx;
	er_free_at(addr, (UINTN)pages);
}

static uintptr_t pool_alloc(void *ctx, size_t size, void **out)
{
	(void)ctx;
	return er_alloc(size, out);   /* logs its failure */
}

static void pool_free(void *ctx, void *p)
{
	(void)ctx;
	er_free(p);
}

static void *ptr(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	(void)len;
	return (void *)(UINTN)addr;
}

static uint64_t now_us(void *ctx)
{
	(void)ctx;
	return er_time_us();
}

const struct er_plan_mem er_plan_efi_mem = {
	.ctx = NULL,
	.get_map = get_map,
	.put_map = put_map,
	.alloc_at = alloc_at,
	.alloc_any = alloc_any,
	.free_pages = free_pages,
	.pool_alloc = pool_alloc,
	.pool_free = pool_free,
	.ptr = ptr,
	.now_us = now_us,
	/* the ia32 loader runs without paging */
	.reach = sizeof(UINTN) < 8 ? 1ull << 32 : 0,
	.out_of_resources = EFI_OUT_OF_RESOURCES,
};

EFI_STATUS er_plan_safe_alloc(void *ctx, UINTN pages, BOOLEAN code, UINT64 *phys)
{
	return er_plan_safe_pages(ctx, pages, code != FALSE, phys);
}
