// SPDX-License-Identifier: GPL-2.0-or-later
/* The hand-off contract between loader/ and arch/<arch>/: what the restore routine needs.
 * Implemented by arch/x86_64/handoff.c and arch/i386/handoff.c. */
#ifndef EFIRESUME_ARCH_HANDOFF_H
#define EFIRESUME_ARCH_HANDOFF_H

#include "efi/efi.h"

/* One page the restore routine writes after ExitBootServices: copied from src, or
 * zero-filled when src == 0. Lives in a frame the image does not use. */
struct er_restore_entry {
	UINT64 dst;
	UINT64 src;
};

/* Safe pages: frames that are in no PFN of the image (see loader/plan.c). */
typedef EFI_STATUS (*er_safe_alloc_fn)(void *ctx, UINTN pages, BOOLEAN code, UINT64 *phys);

struct er_handoff {
	/* from the image */
	UINT64 jump_address;        /* VA of the image kernel's restore_registers */
	UINT64 jump_address_phys;
	UINT64 image_cr3;
	const UINT8 *cr3_page;      /* the image's page at cr3 as loaded (NULL: all zero or absent);
				     * i386 looks at it to tell PAE from 2-level paging */
	/* where the loaded content of any image frame is (NULL: all-zero or not in the
	 * image); i386 walks the image kernel's page tables with it */
	const UINT8 *(*frame_content)(const void *ctx, UINT64 pfn);
	const void *frame_ctx;
	BOOLEAN firmware_unaware;   /* the image kernel never used EFI runtime services (the
				     * 2004 format): leave the firmware's address map alone */
	/* from the plan */
	UINT64 list_phys;           /* struct er_restore_entry[list_count] */
	UINT64 list_count;
	UINT64 ram_top;             /* highest RAM address + 1 (identity-mapped) */
	/* filled by er_arch_prepare */
	char refusal[160];          /* set when this machine's CPU cannot run the image (then
				     * prepare fails): the loader refuses with this detail */
	UINT64 code_phys;           /* restore routine, in its own safe page */
	UINT64 params_phys;
	UINT64 tables_pages;
};

/* Before ExitBootServices: page tables, GDT, stack and the restore routine, all in safe
 * pages. Logs and returns an error if it cannot; changes nothing else. */
EFI_STATUS er_arch_prepare(struct er_handoff *h, er_safe_alloc_fn alloc, void *ctx);

/* After ExitBootServices, before the jump: firmware-side work that must wait until
 * boot services are gone (i386: SetVirtualAddressMap with the image kernel's
 * assignment). m is the final memory map. Must not allocate or print. */
void er_arch_after_exit(struct er_handoff *h, struct er_memmap *m);

/* After ExitBootServices: jump to the restore routine. Never returns. */
void er_arch_jump(const struct er_handoff *h) __attribute__((noreturn));

/* The architecture this loader resumes. */
#define ER_LOADER_ARCH_X86_64 1
#define ER_LOADER_ARCH_I386   2

#endif
