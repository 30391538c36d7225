// SPDX-License-Identifier: GPL-2.0-or-later
/* i386 hand-off: paging mode of the image, temporary page tables, GDT, the restore
 * routine (trampoline.S), and the firmware's virtual map (efi/virtmap.c).
 *
 * Debian's 32-bit kernels page either with 2 levels (linux-image-686) or with PAE
 * (linux-image-686-pae); restore_registers loads the image's cr3 before it touches
 * CR4, so the paging mode at the jump must already be the image kernel's. It is read
 * from the image's page at cr3 (a page directory or a PDPT).
 *
 * 32-bit Linux calls the runtime services only through the virtual addresses it gave
 * them with SetVirtualAddressMap at its boot (the direct map or ioremap_cache, see
 * arch/x86/platform/efi/efi_32.c), so after ExitBootServices efiresume calls
 * SetVirtualAddressMap with that assignment. It is read from the image's own kernel
 * page tables: for each runtime region, the kernel virtual range that maps all of it. */
#include "arch/handoff.h"
#include "arch/cpu.h"
#include "image/fmt.h"
#include "efi/virtmap.h"

extern const UINT8 er_tramp32_start[], er_tramp32_end[];

#define PAGE      4096ull
#define GIB4      (1ull << 32)
#define MIB2      (1ull << 21)
#define MIB4      (1ull << 22)
#define PTE_P     0x001ull
#define PTE_W     0x002ull
#define PTE_PS    0x080ull
#define PAE_ADDR  0x000ffffffffff000ull   /* address bits of a PAE entry */
#define PAE_LADDR 0x000fffffffe00000ull   /* address bits of a 2 MiB PAE entry */
#define CR4_PSE   0x10u
#define CR4_PAE   0x20u

/* The params block the trampoline reads (offsets in trampoline.S). */
struct tramp_params {
	UINT32 stack_top;        /* 0 */
	UINT16 gdt_limit;        /* 4 */
	UINT32 gdt_base;         /* 6 */
	UINT16 pad0;             /* 10 */
	UINT32 cr3;              /* 12 */
	UINT32 cr4;              /* 16 */
	UINT32 list;             /* 20 */
	UINT32 count;            /* 24 */
	UINT32 image_cr3;        /* 28 */
	UINT32 jump;             /* 32 */
	UINT32 nxe;              /* 36 */
	UINT32 pad1[2];          /* 40 */
	UINT64 gdt[14];          /* 48: 0x60 = entry 12, 0x68 = entry 13 */
	/* not read by the trampoline: the virtual map for er_arch_after_exit */
	UINT32 vregions;         /* struct er_virt_region[nvregions] */
	UINT32 nvregions;
	UINT32 vbuf, vbuf_cap;   /* descriptor buffer for SetVirtualAddressMap */
	UINT32 svam_status;      /* what SetVirtualAddressMap returned (for a debugger) */
} __attribute__((packed));

_Static_assert(__builtin_offsetof(struct tramp_params, gdt_base) == 6, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, cr3) == 12, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, jump) == 32, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, nxe) == 36, "params layout");
_Static_assert(__builtin_offsetof(struct tramp_params, gdt) == 48, "params layout");

enum paging { PG_UNKNOWN = 0, PG_2LEVEL, PG_PAE };

/* The machine-facts rule: a present, writable entry at dword 768 of a page directory
 * means 2-level paging; four present PDPT entries that are neither writable nor user
 * nor large (bits 1, 2 and 7, reserved in a PDPTE) with zero high halves mean PAE.
 * (Linux's PDPTEs read 0x...001 or 0x...021: bit 5, accessed, can be set.)
 * Anything else: unsure. */
static enum paging paging_mode(const UINT8 *cr3_page, UINT64 cr3)
{
	const UINT32 *pd = (const UINT32 *)cr3_page;
	const UINT64 *pdpt = (const UINT64 *)(cr3_page + (cr3 & (PAGE - 1)));
	BOOLEAN two = (cr3 & (PAGE - 1)) == 0 && (pd[768] & (PTE_P | PTE_W)) == (PTE_P | PTE_W);
	BOOLEAN pae = (cr3 & 31) == 0;

	for (int i = 0; i < 4 && pae; i++)
		if (!(pdpt[i] & PTE_P) || (pdpt[i] & 0x86) || (pdpt[i] >> 52) || !(pdpt[i] & PAE_ADDR))
			pae = FALSE;
	if (two == pae)
		return PG_UNKNOWN;
	return two ? PG_2LEVEL : PG_PAE;
}

/* ---- where the image kernel maps the firmware's runtime regions */

struct cand {
	UINT32 region, delta;    /* virtual = phys + delta (mod 4 GiB) */
	UINT64 pages;            /* pages of the region mapped with this delta */
};

struct walk {
	void *ctx;
	struct er_virt_region *r;
	UINTN n;
	UINT64 lo, hi;           /* span of all regions */
	struct cand *c;
	UINTN nc, cap;
	BOOLEAN overflow;
};

/* one present leaf mapping: virtual va -> physical [pa, pa + len) */
static void leaf(struct walk *w, UINT32 va, UINT64 pa, UINT64 len)
{
	if (pa >= w->hi || pa + len <= w->lo)
		return;
	for (UINTN i = 0; i < w->n; i++) {
		UINT64 rs = w->r[i].phys, re = rs + w->r[i].pages * PAGE;
		UINT64 s = pa > rs ? pa : rs, e = pa + len < re ? pa + len : re;
		if (s >= e)
			continue;
		UINT32 delta = (UINT32)((UINT64)va - pa);
		UINTN k;
		for (k = 0; k < w->nc; k++)
			if (w->c[k].region == i && w->c[k].delta == delta)
				break;
		if (k == w->nc) {
			if (w->nc == w->cap) {
				w->overflow = TRUE;
				continue;
			}
			w->c[k].region = (UINT32)i;
			w->c[k].delta = delta;
			w->c[k].pages = 0;
			w->nc++;
		}
		w->c[k].pages += (e - s) / PAGE;
	}
}

static const UINT8 *content(struct walk *w, UINT64 phys)
{
	const struct er_handoff *h = w->ctx;
	return h->frame_content(h->frame_ctx, phys / PAGE);
}

static void walk_2level(struct walk *w, const UINT8 *cr3_page, UINT32 page_offset)
{
	const UINT32 *pd = (const UINT32 *)cr3_page;
	for (UINT32 i = page_offset >> 22; i < 1024; i++) {
		UINT32 e = pd[i], va = i << 22;
		if (!(e & PTE_P))
			continue;
		if (e & PTE_PS) {
			/* 4 MiB page; PSE-36 keeps physical bits 32..39 in bits 13..20 */
			leaf(w, va, (e & 0xffc00000u) | ((UINT64)((e >> 13) & 0xff) << 32), MIB4);
			continue;
		}
		const UINT32 *pt = (const UINT32 *)content(w, e & 0xfffff000u);
		if (!pt)
			continue;
		for (UINT32 j = 0; j < 1024; j++)
			if (pt[j] & PTE_P)
				leaf(w, va + (j << 12), pt[j] & 0xfffff000u, PAGE);
	}
}

static void walk_pae(struct walk *w, const UINT8 *cr3_page, UINT64 cr3, UINT32 page_offset)
{
	const UINT64 *pdpt = (const UINT64 *)(cr3_page + (cr3 & (PAGE - 1)));
	for (UINT32 g = 0; g < 4; g++) {
		if (((UINT64)(g + 1) << 30) <= page_offset || !(pdpt[g] & PTE_P))
			continue;
		const UINT64 *pd = (const UINT64 *)content(w, pdpt[g] & PAE_ADDR);
		if (!pd)
			continue;
		for (UINT32 i = 0; i < 512; i++) {
			UINT64 e = pd[i];
			UINT32 va = (g << 30) | (i << 21);
			if (!(e & PTE_P) || va + (MIB2 - 1) < page_offset)
				continue;
			if (e & PTE_PS) {
				leaf(w, va, e & PAE_LADDR, MIB2);
				continue;
			}
			const UINT64 *pt = (const UINT64 *)content(w, e & PAE_ADDR);
			if (!pt)
				continue;
			for (UINT32 j = 0; j < 512; j++)
				if (pt[j] & PTE_P)
					leaf(w, va + (j << 12), pt[j] & PAE_ADDR, PAGE);
		}
	}
}

/* Fills r[i].virt/found from the image's kernel page tables. Per region: a virtual
 * range that maps all of it, preferring the direct map (page_offset + phys, what
 * efi_map_region uses when the kernel's direct map covers the region), else the
 * lowest such range (ioremap_cache at boot comes before later aliases). */
static EFI_STATUS find_virtual(struct er_virt_region *r, UINTN n, void *ctx, enum paging mode,
			       const UINT8 *cr3_page, UINT64 cr3, UINT32 page_offset)
{
	struct walk w = { ctx, r, n, ~0ull, 0, NULL, 0, 256, FALSE };
	EFI_STATUS err;

	if (n == 0)
		return EFI_SUCCESS;
	for (UINTN i = 0; i < n; i++) {
		if (r[i].phys < w.lo)
			w.lo = r[i].phys;
		if (r[i].phys + r[i].pages * PAGE > w.hi)
			w.hi = r[i].phys + r[i].pages * PAGE;
	}
	err = er_alloc(w.cap * sizeof(*w.c), (void **)&w.c);
	if (EFI_ERROR(err))
		return err;
	if (mode == PG_PAE)
		walk_pae(&w, cr3_page, cr3, page_offset);
	else
		walk_2level(&w, cr3_page, page_offset);
	if (w.overflow)
		log_warn(L"i386: more than %ld candidate mappings of EFI runtime regions; some ignored\n", (UINT64)w.cap);

	UINTN direct = 0, other = 0, missing = 0;
	for (UINTN i = 0; i < n; i++) {
		const struct cand *best = NULL;
		UINTN full = 0;
		for (UINTN k = 0; k < w.nc; k++) {
			const struct cand *c = &w.c[k];
			if (c->region != i || c->pages < r[i].pages)
				continue;
			full++;
			if (!best || c->delta == page_offset ||
			    (best->delta != page_offset && (UINT32)(r[i].phys + c->delta) < (UINT32)(r[i].phys + best->delta)))
				best = c;
		}
		if (!best) {
			missing++;
			log_warn(L"i386: EFI runtime region 0x%lx (%ld pages, type %d) is not mapped by the image kernel\n",
				 r[i].phys, r[i].pages, (UINTN)r[i].type);
			continue;
		}
		if (full > 1)
			log_warn(L"i386: EFI runtime region 0x%lx is mapped %ld times by the image kernel; taking 0x%lx\n",
				 r[i].phys, (UINT64)full, (UINT64)(UINT32)(r[i].phys + best->delta));
		r[i].virt = (UINT32)(r[i].phys + best->delta);
		r[i].found = 1;
		if (best->delta == page_offset)
			direct++;
		else
			other++;
		log_info(L"i386: EFI runtime region 0x%lx (%ld pages, type %d) at virtual 0x%lx\n", r[i].phys, r[i].pages,
			 (UINTN)r[i].type, r[i].virt);
	}
	log_info(L"i386: %ld EFI runtime regions: %ld in the image kernel's direct map, %ld elsewhere, %ld unmapped\n",
		 (UINT64)n, (UINT64)direct, (UINT64)other, (UINT64)missing);
	er_free(w.c);
	return EFI_SUCCESS;
}

/* Runtime regions and their virtual addresses, in safe pages, plus the descriptor
 * buffer SetVirtualAddressMap will get after ExitBootServices. */
static EFI_STATUS prepare_virtmap(struct tramp_params *p, er_safe_alloc_fn alloc, void *ctx, enum paging mode,
				  const struct er_handoff *h, UINT32 page_offset)
{
	UINTN n = 0, desc_size = 0, got = 0;
	EFI_STATUS err = er_virtmap_regions(NULL, 0, &n, &desc_size);
	if (EFI_ERROR(err) && err != EFI_BUFFER_TOO_SMALL)
		return log_error_status(err, L"cannot read the memory map");
	/* room for a few more descriptors than now: the map is read again after ExitBootServices */
	UINT64 rbytes = (n + 8) * sizeof(struct er_virt_region), vbytes = (n + 8) * desc_size;
	UINT64 rpages = (rbytes + PAGE - 1) / PAGE, vpages = (vbytes + PAGE - 1) / PAGE, phys;
	err = alloc(ctx, rpages + vpages, FALSE, &phys);
	if (EFI_ERROR(err))
		return log_error_status(err, L"no safe pages for the virtual map");
	er_memset((void *)(UINTN)phys, 0, (rpages + vpages) * PAGE);
	struct er_virt_region *r = (struct er_virt_region *)(UINTN)phys;
	err = er_virtmap_regions(r, n + 8, &got, &desc_size);
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot list the EFI runtime regions");
	err = find_virtual(r, got, (void *)h, mode, h->cr3_page, h->image_cr3, page_offset);
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot read the image kernel's page tables");
	p->vregions = (UINT32)phys;
	p->nvregions = (UINT32)got;
	p->vbuf = (UINT32)(phys + rpages * PAGE);
	p->vbuf_cap = (UINT32)(vpages * PAGE);
	return EFI_SUCCESS;
}

EFI_STATUS er_arch_prepare(struct er_handoff *h, er_safe_alloc_fn alloc, void *ctx)
{
	UINTN code_len = (UINTN)(er_tramp32_end - er_tramp32_start);
	UINT32 a, b, c, d;
	enum paging mode;
	EFI_STATUS err;

	if (code_len > PAGE)
		return log_error_status(EFI_BAD_BUFFER_SIZE, L"restore routine larger than a page");
	if (!h->frame_content)
		return log_error_status(EFI_INVALID_PARAMETER, L"i386 hand-off needs the image's frames");
	if (!h->cr3_page)
		return log_error_status(EFI_UNSUPPORTED, L"the image's page at cr3 0x%lx is empty or missing: cannot tell PAE from 2-level paging",
					h->image_cr3);
	mode = paging_mode(h->cr3_page, h->image_cr3);
	if (mode == PG_UNKNOWN) {
		const UINT32 *pd = (const UINT32 *)h->cr3_page;
		return log_error_status(EFI_UNSUPPORTED,
					L"cannot tell PAE from 2-level paging from the image's page at cr3 0x%lx (dwords 0-3: %x %x %x %x, 768: %x)",
					h->image_cr3, (UINTN)pd[0], (UINTN)pd[1], (UINTN)pd[2], (UINTN)pd[3], (UINTN)pd[768]);
	}

	/* 32-bit code with paging off reaches only the low 4 GiB */
	if (h->ram_top > GIB4 || h->jump_address >= GIB4 || h->jump_address_phys >= GIB4 || h->image_cr3 >= GIB4)
		return log_error_status(EFI_UNSUPPORTED,
					L"memory above 4 GiB (RAM ends at 0x%lx) is not supported by the i386 hand-off", h->ram_top);
	const struct er_restore_entry *list = (const struct er_restore_entry *)(UINTN)h->list_phys;
	for (UINT64 i = 0; i < h->list_count; i++)
		if (list[i].dst >= GIB4 || list[i].src >= GIB4)
			return log_error_status(EFI_UNSUPPORTED, L"bounced page 0x%lx above 4 GiB", list[i].dst);

	UINT32 page_offset = (UINT32)(h->jump_address - h->jump_address_phys);
	UINT64 large = mode == PG_PAE ? MIB2 : MIB4;
	if (h->jump_address < h->jump_address_phys || (page_offset & (large - 1)) || page_offset == 0)
		return log_error_status(EFI_UNSUPPORTED, L"jump address 0x%lx / 0x%lx: not a kernel direct-map address",
					h->jump_address, h->jump_address_phys);

	/* the CPU must page the way the image kernel does */
	er_cpuid(0, 0, &a, &b, &c, &d);
	if (a < 1)
		return log_error_status(EFI_UNSUPPORTED, L"no CPUID leaf 1");
	er_cpuid(1, 0, &a, &b, &c, &d);
	if (mode == PG_PAE && !(d & (1u << 6)))
		return log_error_status(EFI_UNSUPPORTED, L"the image kernel uses PAE; this CPU has none");
	if (mode == PG_2LEVEL && !(d & (1u << 3)))
		return log_error_status(EFI_UNSUPPORTED, L"this CPU has no 4 MiB pages (PSE)");
	/* NX: clear Intel's XD_DISABLE as Linux does, then see what the CPU offers; PAE
	 * tables made on an NX CPU carry NX bits, reserved without EFER.NXE */
	BOOLEAN xd_cleared = er_cpu_clear_xd_disable(), nx = er_cpu_has_nx();
	UINT32 efer_lo = 0, efer_hi = 0;
	if (xd_cleared)
		log_info(L"i386: cleared IA32_MISC_ENABLE.XD_DISABLE (as Linux does): NX %a\n", nx ? "available" : "still missing");
	if (!nx && mode == PG_PAE && er_image_uses_nx(h->cr3_page, h->image_cr3, h->frame_content, h->frame_ctx, 3)) {
		er_snprintf(h->refusal, sizeof(h->refusal),
			    "the image's page tables use NX (execute-disable), which this CPU does not offer (disabled in firmware setup?)");
		return EFI_UNSUPPORTED;
	}
	/* for the log: whether the firmware already runs with EFER.NXE (then a missing
	 * NXE in the restore routine would go unnoticed here) */
	if (nx)
		__asm__ __volatile__("rdmsr" : "=a"(efer_lo), "=d"(efer_hi) : "c"(0xC0000080u));

	/* page tables: 2-level one page directory; PAE a PDPT page and 4 page directories */
	UINT64 tables = mode == PG_PAE ? 5 : 1, tphys, code;
	err = alloc(ctx, tables, FALSE, &tphys);
	if (EFI_ERROR(err))
		return log_error_status(err, L"no safe pages for page tables");
	/* code page, params page, two stack pages */
	err = alloc(ctx, 4, TRUE, &code);
	if (EFI_ERROR(err))
		return log_error_status(err, L"no safe pages for the restore routine");
	if (tphys >= GIB4 || code >= GIB4)
		return log_error_status(EFI_UNSUPPORTED, L"safe pages above 4 GiB");
	er_memset((void *)(UINTN)tphys, 0, tables * PAGE);
	er_memset((void *)(UINTN)code, 0, 4 * PAGE);
	UINT64 params = code + PAGE;

	/* identity map of [0, 4 GiB) with large pages, then jump_address -> jump_address_phys
	 * over two large pages (restore_registers and what follows it) */
	UINT64 jidx = h->jump_address / large, cidx = code / large, nidx = GIB4 / large;
	if (cidx == jidx || cidx == jidx + 1)
		return log_error_status(EFI_UNSUPPORTED, L"the restore routine at 0x%lx collides with the jump mapping of 0x%lx",
					code, h->jump_address);
	UINT64 cr3, jbase = h->jump_address_phys & ~(large - 1);
	if (mode == PG_PAE) {
		UINT64 *pdpt = (UINT64 *)(UINTN)tphys, *pd = (UINT64 *)(UINTN)(tphys + PAGE);
		for (UINT64 g = 0; g < 4; g++)
			pdpt[g] = (tphys + (1 + g) * PAGE) | PTE_P;
		for (UINT64 i = 0; i < nidx; i++)
			pd[i] = (i * large) | PTE_P | PTE_W | PTE_PS;
		pd[jidx] = jbase | PTE_P | PTE_W | PTE_PS;
		if (jidx + 1 < nidx)
			pd[jidx + 1] = (jbase + large) | PTE_P | PTE_W | PTE_PS;
		cr3 = tphys;
	} else {
		UINT32 *pd = (UINT32 *)(UINTN)tphys;
		for (UINT64 i = 0; i < nidx; i++)
			pd[i] = (UINT32)(i * large) | PTE_P | PTE_W | PTE_PS;
		pd[jidx] = (UINT32)jbase | PTE_P | PTE_W | PTE_PS;
		if (jidx + 1 < nidx)
			pd[jidx + 1] = (UINT32)(jbase + large) | PTE_P | PTE_W | PTE_PS;
		cr3 = tphys;
	}

	struct tramp_params *p = (struct tramp_params *)(UINTN)params;
	if (!h->firmware_unaware) {
		err = prepare_virtmap(p, alloc, ctx, mode, h, page_offset);
		if (EFI_ERROR(err))
			return err;
	}

	er_memcpy((void *)(UINTN)code, er_tramp32_start, code_len);
	p->gdt[12] = 0x00cf9a000000ffffull;   /* 0x60: flat 32-bit code (__KERNEL_CS) */
	p->gdt[13] = 0x00cf92000000ffffull;   /* 0x68: flat data (__KERNEL_DS) */
	p->gdt_limit = sizeof(p->gdt) - 1;
	p->gdt_base = (UINT32)(params + __builtin_offsetof(struct tramp_params, gdt));
	p->stack_top = (UINT32)(code + 4 * PAGE - 64);
	p->cr3 = (UINT32)cr3;
	p->cr4 = mode == PG_PAE ? CR4_PAE : CR4_PSE;
	p->list = (UINT32)h->list_phys;
	p->count = (UINT32)h->list_count;
	p->image_cr3 = (UINT32)h->image_cr3;
	p->jump = (UINT32)h->jump_address;
	p->nxe = !nx ? 0 : mode == PG_PAE ? 3 : 1;

	log_info(L"i386: image kernel pages with %a; restore routine at 0x%lx, jump 0x%lx -> 0x%lx%a%a\n",
		 mode == PG_PAE ? "PAE" : "2-level paging", code, h->jump_address, h->jump_address_phys,
		 p->nxe == 3 ? ", NX on" : p->nxe ? ", NX off" : "", !nx ? "" : (efer_lo & (1u << 11)) ? " (the firmware had EFER.NXE on)" : " (the firmware had EFER.NXE off)");
	h->code_phys = code;
	h->params_phys = params;
	h->tables_pages = tables;
	return EFI_SUCCESS;
}

void er_arch_after_exit(struct er_handoff *h, struct er_memmap *m)
{
	struct tramp_params *p = (struct tramp_params *)(UINTN)h->params_phys;
	if (h->firmware_unaware)
		return;
	/* The image kernel calls the runtime services at the virtual addresses it gave
	 * them at its boot; put the firmware there (no output from here on). */
	p->svam_status = (UINT32)er_virtmap_set(m, (const struct er_virt_region *)(UINTN)p->vregions, p->nvregions,
						(void *)(UINTN)p->vbuf, p->vbuf_cap);
}

void er_arch_jump(const struct er_handoff *h)
{
	void (*tramp)(UINT32 params) = (void (*)(UINT32))(UINTN)h->code_phys;
	tramp((UINT32)h->params_phys);
	__builtin_unreachable();
}
