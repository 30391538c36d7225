// SPDX-License-Identifier: GPL-2.0-or-later
/* x86_64 hand-off: page tables, GDT and the restore routine (trampoline.S). */
#include "arch/handoff.h"
#include "arch/cpu.h"
#include "image/fmt.h"

extern const UINT8 er_tramp64_start[], er_tramp64_end[];

#define PTE_P   0x001ull
#define PTE_W   0x002ull
#define PTE_PS  0x080ull
#define PAGE    4096ull
#define GIB     (1ull << 30)
#define MIB2    (1ull << 21)

/* The params block the trampoline reads (offsets in trampoline.S). */
struct tramp_params {
	UINT64 stack_top;        /* 0 */
	UINT16 gdt_limit;        /* 8 */
	UINT64 gdt_base;         /* 10 */
	UINT8 pad[6];            /* 18 */
	UINT64 cr3;              /* 24 */
	UINT64 list;             /* 32 */
	UINT64 count;            /* 40 */
	UINT64 image_cr3;        /* 48 */
	UINT64 jump;             /* 56 */
	UINT64 gdt[4];           /* 64 */
	UINT64 nxe;              /* 96: set EFER.NXE (the CPU has NX) */
} __attribute__((packed));

_Static_assert(__builtin_offsetof(struct tramp_params, cr3) == 24, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, jump) == 56, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, nxe) == 96, "params layout");

static UINT64 *table(UINT64 phys)
{
	return (UINT64 *)(UINTN)phys;
}

EFI_STATUS er_arch_prepare(struct er_handoff *h, er_safe_alloc_fn alloc, void *ctx)
{
	UINTN code_len = (UINTN)(er_tramp64_end - er_tramp64_start);
	UINT64 top = h->ram_top < 4 * GIB ? 4 * GIB : h->ram_top;
	UINT64 gib = (top + GIB - 1) / GIB;
	UINT64 pd_pages = gib, pdpt_pages = (gib + 511) / 512;
	/* PML4, identity PDPTs and PDs, then PDPT + PD + PT for the jump mapping */
	UINT64 tables = 1 + pdpt_pages + pd_pages + 3, tphys, code, params;
	EFI_STATUS err;

	/* 4-level paging only: a CPU with LA57 lets a Debian kernel (CONFIG_X86_5LEVEL=y)
	 * run 5-level paging, whose cr3 this 4-level restore routine cannot load */
	UINT32 a, b, c, d;
	er_cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 7) {
		er_cpuid(7, 0, &a, &b, &c, &d);
		if (c & (1u << 16)) {
			er_snprintf(h->refusal, sizeof(h->refusal),
				    "the CPU has 5-level paging (LA57): the image kernel may use it, which this loader cannot enter");
			return EFI_UNSUPPORTED;
		}
	}
	/* NX: the image's page tables carry NX bits whenever its CPU had NX; without
	 * EFER.NXE they are reserved bits and the first access after the jump faults */
	BOOLEAN xd_cleared = er_cpu_clear_xd_disable(), nx = er_cpu_has_nx();
	if (xd_cleared)
		log_info(L"x86_64: cleared IA32_MISC_ENABLE.XD_DISABLE (as Linux does): NX %a\n", nx ? "available" : "still missing");
	if (!nx && er_image_uses_nx(h->cr3_page, h->image_cr3, h->frame_content, h->frame_ctx, 4)) {
		er_snprintf(h->refusal, sizeof(h->refusal),
			    "the image's page tables use NX (execute-disable), which this CPU does not offer (disabled in firmware setup?)");
		return EFI_UNSUPPORTED;
	}
	if (pdpt_pages > 1)
		return log_error_status(EFI_UNSUPPORTED, L"RAM above 512 GiB is not supported");
	if (code_len > PAGE)
		return log_error_status(EFI_BAD_BUFFER_SIZE, L"restore routine larger than a page");
	err = alloc(ctx, tables, FALSE, &tphys);
	if (EFI_ERROR(err))
		return log_error_status(err, L"no safe pages for page tables");
	/* code page, params page, two stack pages */
	err = alloc(ctx, 4, TRUE, &code);
	if (EFI_ERROR(err))
		return log_error_status(err, L"no safe pages for the restore routine");
	params = code + PAGE;
	er_memset((void *)(UINTN)tphys, 0, tables * PAGE);
	er_memset((void *)(UINTN)code, 0, 4 * PAGE);

	UINT64 pml4 = tphys, pdpt = tphys + PAGE, pd = pdpt + PAGE;
	UINT64 jpdpt = pd + pd_pages * PAGE, jpd = jpdpt + PAGE, jpt = jpd + PAGE;

	/* identity map [0, top) with 2 MiB pages */
	table(pml4)[0] = pdpt | PTE_P | PTE_W;
	for (UINT64 g = 0; g < gib; g++) {
		table(pdpt)[g] = (pd + g * PAGE) | PTE_P | PTE_W;
		for (UINT64 i = 0; i < 512; i++)
			table(pd + g * PAGE)[i] = (g * GIB + i * MIB2) | PTE_P | PTE_W | PTE_PS;
	}

	/* jump_address -> jump_address_phys, two 4 KiB pages (restore_registers is small; the second page covers a routine that crosses a page end) */
	UINT64 va = h->jump_address;
	UINTN i4 = (va >> 39) & 511, i3 = (va >> 30) & 511, i2 = (va >> 21) & 511, i1 = (va >> 12) & 511;
	if (i4 == 0)
		return log_error_status(EFI_UNSUPPORTED, L"jump address 0x%lx is in the identity-mapped range", va);
	if (i1 == 511)
		return log_error_status(EFI_UNSUPPORTED, L"jump address 0x%lx at the end of a page table", va);
	table(pml4)[i4] = jpdpt | PTE_P | PTE_W;
	table(jpdpt)[i3] = jpd | PTE_P | PTE_W;
	table(jpd)[i2] = jpt | PTE_P | PTE_W;
	table(jpt)[i1] = (h->jump_address_phys & ~(PAGE - 1)) | PTE_P | PTE_W;
	table(jpt)[i1 + 1] = ((h->jump_address_phys & ~(PAGE - 1)) + PAGE) | PTE_P | PTE_W;

	er_memcpy((void *)(UINTN)code, er_tramp64_start, code_len);
	struct tramp_params *p = (struct tramp_params *)(UINTN)params;
	p->gdt[0] = 0;
	p->gdt[1] = 0x00cf9a000000ffffull;   /* 0x08: 32-bit code (__KERNEL32_CS) */
	p->gdt[2] = 0x00af9a000000ffffull;   /* 0x10: 64-bit code (__KERNEL_CS) */
	p->gdt[3] = 0x00cf92000000ffffull;   /* 0x18: data (__KERNEL_DS) */
	p->gdt_limit = sizeof(p->gdt) - 1;
	p->gdt_base = params + __builtin_offsetof(struct tramp_params, gdt);
	p->stack_top = code + 4 * PAGE - 64;
	p->cr3 = pml4;
	p->list = h->list_phys;
	p->count = h->list_count;
	p->image_cr3 = h->image_cr3;
	p->jump = h->jump_address;
	p->nxe = nx;

	h->code_phys = code;
	h->params_phys = params;
	h->tables_pages = tables;
	return EFI_SUCCESS;
}

void er_arch_after_exit(struct er_handoff *h, struct er_memmap *m)
{
	/* x86_64: the firmware stays in physical mode; the image kernel reaches it through
	 * its 1:1 mappings of the runtime regions (see README, "EFI runtime services"). */
	(void)h;
	(void)m;
}

void er_arch_jump(const struct er_handoff *h)
{
	void (*tramp)(UINT64 params) = (void (*)(UINT64))(UINTN)h->code_phys;
	tramp(h->params_phys);
	__builtin_unreachable();
}
