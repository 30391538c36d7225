// SPDX-License-Identifier: GPL-2.0-or-later
/* The seeds writer: an EFI program (x64 and ia32) that plays a 2004 Linux kernel
 * patched with kernel-patch/, because such a kernel cannot run here.
 *
 * It snapshots its own working set with the seeds' swsusp algorithm and writes the
 * firmware-resumable 2004 image (format version 1, image/swsusp2004.h, used
 * unchanged) to the swap partition, then powers off:
 *   count_data_pages()    its loaded image (minus .data.nosave), its page tables, a
 *                         test buffer of N pages, the pages around its stack pointer
 *   calc_order()          verbatim, the pagedir pages counted as saveable; more than
 *                         768 pagedir pages: refused before anything is allocated
 *                         or written (the patch's write_pagedir() limit)
 *   alloc_pagedir()       2^order zeroed pages; alloc_image_pages(): the copies
 *   swsusp_arch_suspend   (asm) registers -> seeds_ctx, then copy_data_pages()
 *   write_suspend_image() init_header() with the fw tail, data_write(),
 *                         write_pagedir(), close_swap() = the swsusp_info page, then
 *                         mark_swapfiles(): orig_sig, sig = SWSUSP_FW_SIG
 * Its page tables: identity map of low RAM plus the kernel direct map PAGE_OFFSET +
 * phys -> phys (x86_64: 0xffff888000000000, 4-level, 2 MiB pages; i386: 0xC0000000,
 * 2-level, 4 MiB pages). fw_cr3 = their root, fw_entry = PAGE_OFFSET + the physical
 * address of swsusp_fw_resume (arch_*.S).
 *
 * Resumed by efiresume (boot services gone), it checks the test buffer, a counter
 * and values on its stack, prints "SEEDS-TEST: resumed: ..." on COM1 and leaves QEMU
 * through isa-debug-exit (0x10: all good, 0x11: something differs).
 *
 * \seeds.conf on the ESP (optional), one setting a line:
 *   pages N       test buffer pages (default 2048)
 *   probe yes     only print "SEEDS-TEST: probe" and power off
 *   swaptype N    the swp_entry_t type written (the resume device's index; default 0)
 */
#include <efi.h>
#include <efilib.h>
#include "image/swsusp2004.h"
#include "tests/seeds/seeds.h"

#define PAGE 4096ull
#define GIB (1ull << 30)

#if defined(EFIRESUME_ARCH_X64)
#define WORD 8
#define PAGE_OFFSET ((UINT64)SEEDS_PAGE_OFFSET_X64)
#define FW_ARCH SWSUSP_FW_ARCH_X86_64
#define MACHINE "x86_64"
#define ARCH_NAME "x64"
#define ALLOC_MAX 0xffffffffull          /* below the identity map's 4 GiB */
#define DIRECT_MAX (512 * GIB)           /* one PDPT */
typedef struct swsusp_fw_pbe64 pbe_t;
typedef struct swsusp_fw_info64 info_t;
typedef struct swsusp_fw_header64 header_t;
#elif defined(EFIRESUME_ARCH_IA32)
#define WORD 4
#define PAGE_OFFSET ((UINT64)SEEDS_PAGE_OFFSET_I386)
#define FW_ARCH SWSUSP_FW_ARCH_I386
#define MACHINE "i686"
#define ARCH_NAME "ia32"
#define ALLOC_MAX 0x3fffffffull          /* the direct map at 0xC0000000 holds 1 GiB */
#define DIRECT_MAX GIB
typedef struct swsusp_fw_pbe32 pbe_t;
typedef struct swsusp_fw_info32 info_t;
typedef struct swsusp_fw_header32 header_t;
#else
#error "EFIRESUME_ARCH_X64 or EFIRESUME_ARCH_IA32"
#endif

#define PTE_P  0x001ull
#define PTE_W  0x002ull
#define PTE_PS 0x080ull
#define DEFAULT_PAGES 2048
#define STACK_BELOW (64 * 1024)
#define STACK_ABOVE (16 * 1024)
#define COUNTER_WANT 3            /* seeds_counter++ at three points before the snapshot */
#define VERSION_CODE 0x020608     /* KERNEL_VERSION(2, 6, 8), matches RELEASE */
#define RELEASE "2.6.8-seeds"
#define WRITE_CHUNK 256           /* pages per WriteBlocks */

/* ------------------------------------------------------------------ state */

/* The saved context (offsets in seeds.h, used by arch_*.S); in .data, so in the image. */
struct seeds_ctx {
	UINTN w[15];
	UINT8 gdtr[16];
};
_Static_assert(sizeof(struct seeds_ctx) == SEEDS_CTX_SIZE(WORD), "seeds_ctx layout");
__attribute__((visibility("hidden"))) struct seeds_ctx seeds_ctx;
#define CTX(slot) seeds_ctx.w[SEEDS_CTX_##slot(WORD) / WORD]

int seeds_arch_suspend(void) __attribute__((visibility("hidden")));
int seeds_save(void) __attribute__((visibility("hidden")));
extern char swsusp_fw_resume[] __attribute__((visibility("hidden")));

/* .data.nosave: one page of the loaded image that is not saved; swsusp_fw_resume
 * zeroes it, so in_suspend reads 0 after a resume (kernel/power/disk.c's in_suspend). */
struct nosave {
	volatile UINTN in_suspend;
	UINT8 pad[PAGE - sizeof(UINTN)];
};
static struct nosave nosave __attribute__((section(".data.nosave"), aligned(4096)));

static UINT64 gdt[SEEDS_GDT_ENTRIES] __attribute__((aligned(16)));

/* what the resumed program checks */
static volatile UINT64 seeds_counter;
static volatile UINT64 seeds_nonce;
static volatile UINT64 buf_seed, buf_sum;
static volatile uint64_t *buf;
static UINT64 buf_pages;

/* the working set: PFN ranges, sorted and disjoint before the copy */
struct range {
	UINT64 pfn, pages;
	const char *what;
};
#define MAX_RANGES 8
static struct range ranges[MAX_RANGES];
static UINTN nranges;

/* the snapshot */
static pbe_t *pagedir;           /* 2^order pages, zeroed */
static UINT64 pagedir_phys, pagedir_alloc;
static UINT64 copies_phys;       /* n pages */
static UINT64 nr_copy_pages;     /* n = image_pages */
static UINT64 copied;            /* pbes copy_data_pages() filled */
static UINT64 stack_lo, stack_hi;
static int save_error;

/* the machine */
static UINT64 ram_top;
static UINT32 cpus = 1;
static UINT64 tables_phys, tables_pages, root_phys;

/* configuration */
static UINT64 conf_pages = DEFAULT_PAGES;
static BOOLEAN conf_probe;
static unsigned conf_swaptype;

/* the swap partition */
static EFI_BLOCK_IO *swap_bio;
static UINT64 swap_pages;
static char swap_name[48] = "?";
static UINT8 *page0;             /* one page of scratch for page 0 */

/* ------------------------------------------------------------------ small helpers */

static void copy_bytes(void *dst, const void *src, UINTN n)
{
	UINT8 *d = dst;
	const UINT8 *s = src;
	while (n--)
		*d++ = *s++;
}

static void zero_bytes(void *dst, UINTN n)
{
	volatile UINT8 *d = dst;
	while (n--)
		*d++ = 0;
}

static BOOLEAN same(const void *a, const void *b, UINTN n)
{
	const UINT8 *x = a, *y = b;
	for (UINTN i = 0; i < n; i++)
		if (x[i] != y[i])
			return FALSE;
	return TRUE;
}

static void copy_str(char *dst, const char *src, UINTN cap)
{
	UINTN i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

static inline void outb(UINT16 port, UINT8 v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline UINT8 inb(UINT16 port)
{
	UINT8 v;
	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline UINT64 rdtsc(void)
{
	UINT32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((UINT64)hi << 32) | lo;
}

static inline UINTN current_sp(void)
{
	UINTN sp;
#ifdef EFIRESUME_ARCH_X64
	__asm__ __volatile__("movq %%rsp, %0" : "=r"(sp));
#else
	__asm__ __volatile__("movl %%esp, %0" : "=r"(sp));
#endif
	return sp;
}

static inline UINTN read_cr3(void)
{
	UINTN v;
	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* interrupts off; returns whether they were on */
static inline BOOLEAN irq_save(void)
{
	UINTN f;
#ifdef EFIRESUME_ARCH_X64
	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(f) : : "memory");
#else
	__asm__ __volatile__("pushfl; popl %0; cli" : "=r"(f) : : "memory");
#endif
	return (f & 0x200) != 0;
}

static inline void irq_restore(BOOLEAN on)
{
	if (on)
		__asm__ __volatile__("sti" : : : "memory");
}

/* ------------------------------------------------------------------ output */

/* One line of ASCII, built piecewise, then sent to the console (boot services) or
 * to COM1 (after the resume). */
struct line {
	char s[200];
	UINTN n;
};

static void put(struct line *l, const char *s)
{
	while (*s && l->n + 1 < sizeof(l->s))
		l->s[l->n++] = *s++;
	l->s[l->n] = 0;
}

static void put_dec(struct line *l, UINT64 v)
{
	char tmp[24];
	int i = 0;
	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i--) {
		char c[2] = { tmp[i], 0 };
		put(l, c);
	}
}

static void put_hex(struct line *l, UINT64 v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[20];
	int i = 0;
	do {
		tmp[i++] = hex[v & 15];
		v >>= 4;
	} while (v);
	put(l, "0x");
	while (i--) {
		char c[2] = { tmp[i], 0 };
		put(l, c);
	}
}

static void con_line(const struct line *l)
{
	CHAR16 w[sizeof(l->s) + 3];
	UINTN i = 0;
	for (; i < l->n; i++)
		w[i] = (CHAR16)(UINT8)l->s[i];
	w[i++] = L'\r';
	w[i++] = L'\n';
	w[i] = 0;
	ST->ConOut->OutputString(ST->ConOut, w);
}

#define COM1 0x3f8
static void serial_char(char c)
{
	for (UINT32 spin = 0; spin < 1000000 && !(inb(COM1 + 5) & 0x20); spin++)
		;
	outb(COM1, (UINT8)c);
}

static void serial_line(const struct line *l)
{
	for (UINTN i = 0; i < l->n; i++)
		serial_char(l->s[i]);
	serial_char('\r');
	serial_char('\n');
}

static void say(const char *s)
{
	struct line l = { .n = 0 };
	put(&l, s);
	con_line(&l);
}

static void __attribute__((noreturn)) power_off(void)
{
	RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

static void __attribute__((noreturn)) fail(const char *what, EFI_STATUS st)
{
	struct line l = { .n = 0 };
	put(&l, "SEEDS-TEST: error: ");
	put(&l, what);
	if (st) {
		put(&l, " (status ");
		put_hex(&l, (UINT64)st);
		put(&l, ")");
	}
	con_line(&l);
	power_off();
}

/* ------------------------------------------------------------------ configuration */

static BOOLEAN word_at(const char *s, UINTN n, const char *w)
{
	UINTN i = 0;
	for (; w[i]; i++)
		if (i >= n || s[i] != w[i])
			return FALSE;
	return i == n;
}

static BOOLEAN parse_num(const char *s, UINTN n, UINT64 *out)
{
	UINT64 v = 0;
	if (n == 0 || n > 18)
		return FALSE;
	for (UINTN i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return FALSE;
		v = v * 10 + (UINT64)(s[i] - '0');
	}
	*out = v;
	return TRUE;
}

static void read_conf(EFI_LOADED_IMAGE *li)
{
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL, f = NULL;
	static char data[1024];
	UINTN size = sizeof(data) - 1;

	if (EFI_ERROR(BS->HandleProtocol(li->DeviceHandle, &gEfiSimpleFileSystemProtocolGuid, (void **)&fs)) || !fs)
		return;
	if (EFI_ERROR(fs->OpenVolume(fs, &root)))
		return;
	if (EFI_ERROR(root->Open(root, &f, L"\\seeds.conf", EFI_FILE_MODE_READ, 0))) {
		root->Close(root);
		return;
	}
	if (EFI_ERROR(f->Read(f, &size, data)))
		size = 0;
	f->Close(f);
	root->Close(root);
	data[size] = 0;

	for (UINTN i = 0; i < size;) {
		UINTN e = i;
		while (e < size && data[e] != '\n')
			e++;
		UINTN a = i, b = e;
		while (a < b && (data[a] == ' ' || data[a] == '\t'))
			a++;
		while (b > a && (data[b - 1] == '\r' || data[b - 1] == ' ' || data[b - 1] == '\t'))
			b--;
		UINTN k = a;
		while (k < b && data[k] != ' ' && data[k] != '\t')
			k++;
		UINTN v = k;
		while (v < b && (data[v] == ' ' || data[v] == '\t'))
			v++;
		UINT64 num = 0;
		BOOLEAN ok = TRUE;
		if (a == b || data[a] == '#')
			;
		else if (word_at(data + a, k - a, "pages") && parse_num(data + v, b - v, &num) && num >= 1)
			conf_pages = num;
		else if (word_at(data + a, k - a, "probe"))
			conf_probe = word_at(data + v, b - v, "yes");
		else if (word_at(data + a, k - a, "swaptype") && parse_num(data + v, b - v, &num) && num < 32)
			conf_swaptype = (unsigned)num;
		else
			ok = FALSE;
		if (!ok) {
			struct line l = { .n = 0 };
			put(&l, "SEEDS-TEST: seeds.conf: ignoring line ");
			char c[2] = { 0, 0 };
			for (UINTN j = a; j < b && j < a + 60; j++) {
				c[0] = data[j];
				put(&l, c);
			}
			con_line(&l);
		}
		i = e + 1;
	}
}

/* ------------------------------------------------------------------ the machine */

/* UEFI lays out UINT64 members on 8 bytes on IA32 too: the Makefile builds ia32 with
 * -malign-double so that gnu-efi's structs match (efi/blockdev.c asserts it). */
static UINT64 image_size(const EFI_LOADED_IMAGE *li)
{
	return li->ImageSize;
}

static UINT64 last_block(const EFI_BLOCK_IO_MEDIA *m)
{
	return m->LastBlock;
}

static BOOLEAN is_ram(UINT32 type)
{
	/* as efiresume's loader/plan.c counts RAM */
	return type == EfiLoaderCode || type == EfiLoaderData || type == EfiBootServicesCode ||
	       type == EfiBootServicesData || type == EfiConventionalMemory;
}

/* num_physpages (highest RAM PFN + 1) and the stack range, clipped to the
 * memory-map entry that holds the stack pointer */
static void scan_memory(UINTN sp)
{
	UINTN entries = 0, key = 0, dsize = 0;
	UINT32 dver = 0;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&entries, &key, &dsize, &dver);
	BOOLEAN found = FALSE;

	if (!map)
		fail("cannot read the memory map", 0);
	stack_lo = ((UINT64)sp - STACK_BELOW) & ~(PAGE - 1);
	stack_hi = ((UINT64)sp + STACK_ABOVE + PAGE - 1) & ~(PAGE - 1);
	for (UINTN i = 0; i < entries; i++) {
		EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + i * dsize);
		UINT64 end = d->PhysicalStart + d->NumberOfPages * PAGE;
		if (is_ram(d->Type) && end > ram_top)
			ram_top = end;
		if ((UINT64)sp >= d->PhysicalStart && (UINT64)sp < end) {
			if (!is_ram(d->Type))
				fail("the stack is not in RAM", 0);
			if (stack_lo < d->PhysicalStart)
				stack_lo = d->PhysicalStart;
			if (stack_hi > end)
				stack_hi = end;
			found = TRUE;
		}
	}
	FreePool(map);
	if (!found)
		fail("the stack pointer is in no memory-map entry", 0);
}

/* EFI_MP_SERVICES_PROTOCOL (only its first member): num_online_cpus() */
static EFI_GUID mp_guid = { 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } };
struct mp_services {
	EFI_STATUS(EFIAPI *GetNumberOfProcessors)(struct mp_services *This, UINTN *total, UINTN *enabled);
};

static void count_cpus(void)
{
	struct mp_services *mp = NULL;
	UINTN total = 0, enabled = 0;
	if (!EFI_ERROR(BS->LocateProtocol(&mp_guid, NULL, (void **)&mp)) && mp &&
	    !EFI_ERROR(mp->GetNumberOfProcessors(mp, &total, &enabled)) && enabled)
		cpus = (UINT32)enabled;
}

static UINT64 alloc_pages(UINT64 pages, const char *what)
{
	EFI_PHYSICAL_ADDRESS a = ALLOC_MAX;
	EFI_STATUS st = BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, (UINTN)pages, &a);
	if (EFI_ERROR(st)) {
		struct line l = { .n = 0 };
		put(&l, "SEEDS-TEST: error: cannot allocate ");
		put_dec(&l, pages);
		put(&l, " pages for ");
		put(&l, what);
		con_line(&l);
		power_off();
	}
	return a;
}

/* ------------------------------------------------------------------ the swap partition */

/* EFI_PARTITION_INFO_PROTOCOL (UEFI 2.7; not in gnu-efi 3.0.15) */
static EFI_GUID partition_info_guid = { 0x8cf2f62c, 0xbc9b, 0x4821, { 0x80, 0x8d, 0xec, 0x9e, 0xc4, 0x21, 0xa1, 0xa0 } };
struct partition_info {
	UINT32 revision;
	UINT32 type;        /* 2: GPT */
	UINT8 system;
	UINT8 reserved[7];
	UINT8 info[128];    /* EFI_PARTITION_ENTRY: type GUID first */
} __attribute__((packed));
static const UINT8 gpt_linux_swap[16] = { 0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43,
					  0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f };

static void name_partition(EFI_HANDLE h, char *out)
{
	static const UINT8 order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const char hex[] = "0123456789abcdef";
	EFI_DEVICE_PATH *dp = NULL;
	if (EFI_ERROR(BS->HandleProtocol(h, &gEfiDevicePathProtocolGuid, (void **)&dp)) || !dp)
		return;
	for (; !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_HARDDRIVE_DP ||
		    DevicePathNodeLength(dp) < 42 || ((const UINT8 *)dp)[41] != 2)
			continue;
		const UINT8 *g = (const UINT8 *)dp + 24;
		UINTN o = 0;
		copy_str(out, "PARTUUID=", 10);
		o = 9;
		for (UINTN b = 0; b < 16; b++) {
			if (b == 4 || b == 6 || b == 8 || b == 10)
				out[o++] = '-';
			out[o++] = hex[g[order[b]] >> 4];
			out[o++] = hex[g[order[b]] & 15];
		}
		out[o] = 0;
	}
}

static EFI_STATUS swap_io(BOOLEAN write, UINT64 page, UINT64 pages, void *buf)
{
	UINT32 bs = swap_bio->Media->BlockSize;
	EFI_LBA lba = page * (PAGE / bs);
	UINTN len = (UINTN)(pages * PAGE);
	if (write)
		return swap_bio->WriteBlocks(swap_bio, swap_bio->Media->MediaId, lba, len, buf);
	return swap_bio->ReadBlocks(swap_bio, swap_bio->Media->MediaId, lba, len, buf);
}

static BOOLEAN swap_signature(const UINT8 *p)
{
	return same(p + 4086, "SWAPSPACE2", 10) || same(p + 4086, "SWAP-SPACE", 10);
}

/* A logical partition with the GPT Linux swap type or a swap signature in page 0
 * (the type wins); it must carry the signature: mark_swapfiles() refuses otherwise. */
static void find_swap(void)
{
	EFI_HANDLE *handles = NULL;
	UINTN n = 0;
	int best = -1;
	EFI_STATUS st = BS->LocateHandleBuffer(ByProtocol, &gEfiBlockIoProtocolGuid, NULL, &n, &handles);
	if (EFI_ERROR(st))
		fail("no block devices", st);
	page0 = (UINT8 *)(UINTN)alloc_pages(1, "page 0");
	for (UINTN i = 0; i < n; i++) {
		EFI_BLOCK_IO *bio = NULL;
		struct partition_info *pi = NULL;
		if (EFI_ERROR(BS->HandleProtocol(handles[i], &gEfiBlockIoProtocolGuid, (void **)&bio)) || !bio)
			continue;
		if (!bio->Media->MediaPresent || !bio->Media->LogicalPartition || bio->Media->ReadOnly ||
		    bio->Media->BlockSize == 0 || bio->Media->BlockSize > PAGE || PAGE % bio->Media->BlockSize)
			continue;
		UINT64 pages = (last_block(bio->Media) + 1) * bio->Media->BlockSize / PAGE;
		if (pages < 16)
			continue;
		BOOLEAN typed = !EFI_ERROR(BS->HandleProtocol(handles[i], &partition_info_guid, (void **)&pi)) && pi &&
				pi->type == 2 && same(pi->info, gpt_linux_swap, 16);
		if (EFI_ERROR(bio->ReadBlocks(bio, bio->Media->MediaId, 0, PAGE, page0)))
			continue;
		BOOLEAN sig = swap_signature(page0);
		if (!typed && !sig)
			continue;
		int score = (typed ? 2 : 0) + (sig ? 1 : 0);
		if (score > best) {
			best = score;
			swap_bio = bio;
			swap_pages = pages;
			swap_name[0] = 0;
			copy_str(swap_name, "?", sizeof(swap_name));
			name_partition(handles[i], swap_name);
		}
	}
	FreePool(handles);
	if (!swap_bio)
		fail("no swap partition (GPT type Linux swap or SWAPSPACE2 in page 0)", 0);
	st = swap_io(FALSE, 0, 1, page0);
	if (EFI_ERROR(st))
		fail("cannot read page 0 of the swap partition", st);
	if (!swap_signature(page0)) {
		struct line l = { .n = 0 };
		char sig[11];
		copy_bytes(sig, page0 + 4086, 10);
		sig[10] = 0;
		for (int i = 0; i < 10; i++)
			if (sig[i] && (sig[i] < 0x20 || sig[i] > 0x7e))
				sig[i] = '?';
		put(&l, "SEEDS-TEST: error: ");
		put(&l, swap_name);
		put(&l, " is not swap space (page 0 ends in \"");
		put(&l, sig);
		put(&l, "\")");
		con_line(&l);
		power_off();
	}
	/* mkswap's last_page (union swap_header: info.version at 1024, last_page at 1028) */
	UINT32 last = er_le32(page0 + 1028);
	UINT64 part_pages = swap_pages;
	if (last && (UINT64)last + 1 < swap_pages)
		swap_pages = (UINT64)last + 1;
	struct line l = { .n = 0 };
	put(&l, "SEEDS-TEST: swap ");
	put(&l, swap_name);
	put(&l, ": ");
	put_dec(&l, swap_pages);
	put(&l, " pages (partition ");
	put_dec(&l, part_pages);
	put(&l, ", last_page ");
	put_dec(&l, last);
	put(&l, ")");
	con_line(&l);
}

/* ------------------------------------------------------------------ page tables */

/* x86_64: PML4, one PDPT shared by the identity map (PML4[0]) and the direct map
 * (PML4[273] = PAGE_OFFSET), G page directories of 2 MiB pages: 0 .. G GiB both ways.
 * i386: one page directory, 4 MiB pages: 0-767 identity (0-3 GiB), 768-1023 the
 * direct map 0xC0000000 -> 0 .. 1 GiB (entry 768 present and writable: efiresume's
 * i386 hand-off recognises 2-level paging by it). */
static UINT64 tables_needed(void)
{
#ifdef EFIRESUME_ARCH_X64
	UINT64 g = (ram_top + GIB - 1) / GIB;
	if (g < 4)
		g = 4;
	return 2 + g;
#else
	return 1;
#endif
}

static void build_tables(void)
{
	tables_pages = tables_needed();
	tables_phys = alloc_pages(tables_pages, "page tables");
	zero_bytes((void *)(UINTN)tables_phys, (UINTN)(tables_pages * PAGE));
#ifdef EFIRESUME_ARCH_X64
	UINT64 *pml4 = (UINT64 *)(UINTN)tables_phys, *pdpt = pml4 + 512;
	UINT64 g = tables_pages - 2;
	if (g * GIB > DIRECT_MAX)
		fail("more RAM than one PDPT maps", 0);
	for (UINT64 k = 0; k < g; k++) {
		UINT64 *pd = pml4 + 512 * (2 + k);
		for (UINT64 i = 0; i < 512; i++)
			pd[i] = (k * GIB + i * (2ull << 20)) | PTE_P | PTE_W | PTE_PS;
		pdpt[k] = (tables_phys + (2 + k) * PAGE) | PTE_P | PTE_W;
	}
	pml4[0] = (tables_phys + PAGE) | PTE_P | PTE_W;
	pml4[(PAGE_OFFSET >> 39) & 511] = (tables_phys + PAGE) | PTE_P | PTE_W;
	_Static_assert(((SEEDS_PAGE_OFFSET_X64 >> 30) & 511) == 0, "the direct map starts a PDPT");
#else
	UINT32 *pd = (UINT32 *)(UINTN)tables_phys;
	for (UINT32 i = 0; i < 768; i++)
		pd[i] = (i << 22) | (UINT32)(PTE_P | PTE_W | PTE_PS);
	for (UINT32 j = 0; j < 256; j++)
		pd[768 + j] = (j << 22) | (UINT32)(PTE_P | PTE_W | PTE_PS);
#endif
	root_phys = tables_phys;
}

/* ------------------------------------------------------------------ the seeds' algorithm */

static unsigned fls64(UINT64 x)
{
	unsigned n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* calc_order() of the seeds (patch 6/25), verbatim arithmetic (get_bitmask_order = fls) */
static void calc_order(UINT64 *nr, unsigned *order_out)
{
	int diff, order = (int)fls64(ER_SWSUSP2004_PD_PAGES(*nr, sizeof(pbe_t)));
	*nr += 1ull << order;
	do {
		diff = (int)fls64(ER_SWSUSP2004_PD_PAGES(*nr, sizeof(pbe_t))) - order;
		if (diff) {
			order += diff;
			*nr += 1ull << diff;
		}
	} while (diff);
	*order_out = (unsigned)order;
}

static void add_range(UINT64 phys, UINT64 end, const char *what)
{
	if (end <= phys)
		return;
	if (nranges >= MAX_RANGES)
		fail("too many ranges", 0);
	ranges[nranges].pfn = phys / PAGE;
	ranges[nranges].pages = (end - phys + PAGE - 1) / PAGE;
	ranges[nranges].what = what;
	nranges++;
}

/* sort by PFN; refuse overlaps (every page is counted once: the seeds count PFNs) */
static UINT64 sort_ranges(void)
{
	UINT64 total = 0;
	for (UINTN i = 1; i < nranges; i++)
		for (UINTN j = i; j > 0 && ranges[j].pfn < ranges[j - 1].pfn; j--) {
			struct range t = ranges[j];
			ranges[j] = ranges[j - 1];
			ranges[j - 1] = t;
		}
	for (UINTN i = 0; i < nranges; i++) {
		if (i && ranges[i].pfn < ranges[i - 1].pfn + ranges[i - 1].pages) {
			struct line l = { .n = 0 };
			put(&l, "SEEDS-TEST: error: the working set overlaps: ");
			put(&l, ranges[i - 1].what);
			put(&l, " and ");
			put(&l, ranges[i].what);
			con_line(&l);
			power_off();
		}
		if ((ranges[i].pfn + ranges[i].pages) * PAGE > DIRECT_MAX) {
			struct line l = { .n = 0 };
			put(&l, "SEEDS-TEST: error: ");
			put(&l, ranges[i].what);
			put(&l, " lies beyond the direct map");
			con_line(&l);
			power_off();
		}
		total += ranges[i].pages;
	}
	return total;
}

/* copy_data_pages(), from swsusp_arch_suspend with interrupts off: no firmware
 * calls, no allocation. The pagedir pages are in the working set: their copies are
 * the pagedir as it is at that moment (partly filled), as in the seeds. */
int seeds_save(void)
{
	UINT64 k = 0;
	if (CTX(SP) < stack_lo || CTX(SP) >= stack_hi - 256)
		return save_error = -2;
	for (UINTN r = 0; r < nranges; r++)
		for (UINT64 j = 0; j < ranges[r].pages; j++, k++) {
			UINT64 pfn = ranges[r].pfn + j;
			if (k >= nr_copy_pages)
				return save_error = -1;   /* the seeds write past the pagedir here */
			pagedir[k].orig_address = PAGE_OFFSET + pfn * PAGE;
			const UINT64 *src = (const UINT64 *)(UINTN)(pfn * PAGE);
			UINT64 *dst = (UINT64 *)(UINTN)(copies_phys + k * PAGE);
			for (UINTN i = 0; i < PAGE / 8; i++)
				dst[i] = src[i];
		}
	copied = k;
	return save_error = (k == nr_copy_pages ? 0 : -1);
}

/* ------------------------------------------------------------------ after the resume */

static UINT64 stack_word(UINT64 nonce, UINTN i, UINTN addr)
{
	return seeds_pattern(nonce ^ 0x57ac57ac57ac57acull, i) ^ addr;
}

static void __attribute__((noreturn)) resumed(int ret, volatile UINT64 *canary, UINTN ncanary, UINT64 want_counter,
					     UINT64 want_sum, UINT64 nonce)
{
	UINT64 words = buf_pages * PAGE / 8, bad = 0, first_bad = 0;
	for (UINT64 i = 0; i < words; i++)
		if (buf[i] != seeds_pattern(buf_seed, i)) {
			if (!bad)
				first_bad = i;
			bad++;
		}
	UINT64 sum = seeds_checksum(buf, words);
	BOOLEAN buf_ok = !bad && sum == want_sum && sum == buf_sum;
	BOOLEAN counter_ok = seeds_counter == want_counter && seeds_counter == COUNTER_WANT;
	UINTN stack_bad = 0;
	for (UINTN i = 0; i < ncanary; i++)
		if (canary[i] != stack_word(nonce, i, (UINTN)&canary[i]))
			stack_bad++;
	BOOLEAN stack_ok = !stack_bad && nonce == seeds_nonce;
	BOOLEAN entry_ok = ret == SEEDS_RESUMED && nosave.in_suspend == 0;
	BOOLEAN cr3_ok = (read_cr3() & ~(UINTN)0xfff) == (UINTN)root_phys;

	struct line l = { .n = 0 };
	put(&l, "SEEDS-TEST: resumed (" ARCH_NAME "): entry returned ");
	put_dec(&l, (UINT64)ret);
	put(&l, ", in_suspend ");
	put_dec(&l, nosave.in_suspend);
	put(&l, ", cr3 ");
	put_hex(&l, read_cr3());
	put(&l, cr3_ok ? " (own tables)" : " (NOT the writer's tables)");
	put(&l, ", sp ");
	put_hex(&l, current_sp());
	serial_line(&l);

	l.n = 0;
	put(&l, "SEEDS-TEST: resumed: buffer ");
	if (buf_ok) {
		put(&l, "ok");
	} else {
		put(&l, "BAD (");
		put_dec(&l, bad);
		put(&l, " words differ, first ");
		put_dec(&l, first_bad);
		put(&l, ", checksum ");
		put_hex(&l, sum);
		put(&l, " want ");
		put_hex(&l, want_sum);
		put(&l, ")");
	}
	put(&l, ", counter ");
	put_dec(&l, seeds_counter);
	if (!counter_ok) {
		put(&l, " (want ");
		put_dec(&l, want_counter);
		put(&l, ")");
	}
	put(&l, ", stack ");
	if (stack_ok) {
		put(&l, "ok");
	} else {
		put(&l, "BAD (");
		put_dec(&l, stack_bad);
		put(&l, " values differ)");
	}
	if (!entry_ok)
		put(&l, ", entry BAD (not returned through swsusp_fw_resume, or .data.nosave not zeroed)");
	serial_line(&l);

	BOOLEAN ok = buf_ok && counter_ok && stack_ok && entry_ok && cr3_ok;
	outb(0xf4, ok ? 0x10 : 0x11);   /* isa-debug-exit: QEMU exits with (v << 1) | 1 */
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* ------------------------------------------------------------------ write_suspend_image() */

static void write_or_fail(UINT64 page, UINT64 pages, void *buf, const char *what)
{
	EFI_STATUS st = swap_io(TRUE, page, pages, buf);
	if (EFI_ERROR(st)) {
		struct line l = { .n = 0 };
		put(&l, "SEEDS-TEST: error: writing ");
		put(&l, what);
		put(&l, " at swap page ");
		put_dec(&l, page);
		put(&l, " failed (status ");
		put_hex(&l, (UINT64)st);
		put(&l, ")");
		con_line(&l);
		power_off();
	}
}

static void fill_uts(struct swsusp_fw_uts *u)
{
	copy_str(u->sysname, "Linux", sizeof(u->sysname));
	copy_str(u->nodename, "seeds-writer", sizeof(u->nodename));
	copy_str(u->release, RELEASE, sizeof(u->release));
	copy_str(u->version, "#1 SEEDS-TEST writer (" ARCH_NAME ")", sizeof(u->version));
	copy_str(u->machine, MACHINE, sizeof(u->machine));
	copy_str(u->domainname, "(none)", sizeof(u->domainname));
}

static void write_suspend_image(UINT64 pd_pages)
{
	UINT64 n = nr_copy_pages, next = 1;
	unsigned type = conf_swaptype;
	info_t *info = (info_t *)(UINTN)alloc_pages(1, "swsusp_info");

	/* init_header() */
	zero_bytes(info, sizeof(*info));
	fill_uts(&info->uts);
	info->version_code = VERSION_CODE;
	info->num_physpages = ram_top / PAGE;
	info->cpus = (int32_t)cpus;
	info->image_pages = n;
	info->suspend_pagedir = PAGE_OFFSET + pagedir_phys;
	info->fw.fw_magic = SWSUSP_FW_MAGIC;
	info->fw.fw_version = SWSUSP_FW_VERSION;
	info->fw.fw_arch = FW_ARCH;
	info->fw.fw_page_size = PAGE;
	info->fw.fw_entry = PAGE_OFFSET + (UINT64)(UINTN)swsusp_fw_resume;
	info->fw.fw_entry_phys = (UINT64)(UINTN)swsusp_fw_resume;
	info->fw.fw_cr3 = root_phys;
	info->fw.fw_page_offset = PAGE_OFFSET;
	info->fw.fw_nosave_begin = (UINT64)(UINTN)&nosave;
	info->fw.fw_nosave_end = (UINT64)(UINTN)&nosave + sizeof(nosave);

	/* data_write(): each copy to the next swap page, its swp_entry_t into the pbe */
	for (UINT64 k = 0; k < n; k += WRITE_CHUNK) {
		UINT64 c = n - k < WRITE_CHUNK ? n - k : WRITE_CHUNK;
		for (UINT64 j = 0; j < c; j++)
			pagedir[k + j].swap_address = er_swsusp2004_swp_entry(type, next + j, WORD);
		write_or_fail(next, c, (void *)(UINTN)(copies_phys + k * PAGE), "data pages");
		next += c;
	}

	/* write_pagedir() (the 768-slot limit was checked before anything was written) */
	info->pagedir_pages = pd_pages;
	for (UINT64 i = 0; i < pd_pages; i++)
		info->pagedir[i] = (uint32_t)(next + i);
	write_or_fail(next, pd_pages, pagedir, "the pagedir");
	next += pd_pages;

	/* close_swap(): write_header() = the swsusp_info page, then mark_swapfiles() */
	UINT64 info_off = next++;
	write_or_fail(info_off, 1, info, "swsusp_info");
	swap_bio->FlushBlocks(swap_bio);

	EFI_STATUS st = swap_io(FALSE, 0, 1, page0);
	if (EFI_ERROR(st))
		fail("cannot read page 0 again", st);
	if (!swap_signature(page0))
		fail("page 0 lost its swap signature", 0);
	header_t *h = (header_t *)page0;
	copy_bytes(h->orig_sig, h->sig, 10);
	copy_bytes(h->sig, SWSUSP_FW_SIG, 10);
	h->swsusp_info = er_swsusp2004_swp_entry(type, info_off, WORD);
	write_or_fail(0, 1, page0, "page 0");
	swap_bio->FlushBlocks(swap_bio);
}

/* ------------------------------------------------------------------ main */

static void say_kv(const char *a, UINT64 v1, const char *b, UINT64 v2, const char *c, UINT64 v3, const char *d)
{
	struct line l = { .n = 0 };
	put(&l, a);
	put_hex(&l, v1);
	if (b) {
		put(&l, b);
		put_hex(&l, v2);
	}
	if (c) {
		put(&l, c);
		put_hex(&l, v3);
	}
	if (d)
		put(&l, d);
	con_line(&l);
}

/* The snapshot and the image; after a resume, the check. Its frame (the canaries)
 * lies above the saved stack pointer, inside the saved stack range. */
static void __attribute__((noinline)) suspend_and_check(UINT64 pd_pages)
{
	volatile UINT64 canary[16];
	UINT64 nonce = seeds_nonce;
	for (UINTN i = 0; i < 16; i++)
		canary[i] = stack_word(nonce, i, (UINTN)&canary[i]);
	seeds_counter++;
	volatile UINT64 want_counter = seeds_counter, want_sum = buf_sum;

	BOOLEAN irq = irq_save();
	nosave.in_suspend = 1;
	int r = seeds_arch_suspend();
	if (r == SEEDS_RESUMED || nosave.in_suspend == 0)
		resumed(r, canary, 16, want_counter, want_sum, nonce);
	irq_restore(irq);
	if (r != 0) {
		struct line l = { .n = 0 };
		put(&l, "SEEDS-TEST: error: the snapshot failed: ");
		put(&l, save_error == -2 ? "the saved stack pointer is outside the saved stack range"
					 : "copy_data_pages() found ");
		if (save_error != -2) {
			put_dec(&l, copied);
			put(&l, " saveable pages for ");
			put_dec(&l, nr_copy_pages);
			put(&l, " pbes (calc_order() miscounted)");
		}
		con_line(&l);
		power_off();
	}

	write_suspend_image(pd_pages);

	struct line l = { .n = 0 };
	put(&l, "SEEDS-TEST: image written: ");
	put_dec(&l, nr_copy_pages);
	put(&l, " pages, ");
	put_dec(&l, pd_pages);
	put(&l, " pagedir pages");
	con_line(&l);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_STATUS st;
	UINTN sp = current_sp();

	InitializeLib(image, systab);
	say("SEEDS-TEST: writer (" ARCH_NAME ") started");
	st = BS->HandleProtocol(image, &gEfiLoadedImageProtocolGuid, (void **)&li);
	if (EFI_ERROR(st) || !li)
		fail("no loaded image protocol", st);
	read_conf(li);
	if (conf_probe) {
		say("SEEDS-TEST: probe");
		power_off();
	}
	BS->SetWatchdogTimer(0, 0, 0, NULL);
	seeds_nonce = rdtsc() * 0x9e3779b97f4a7c15ull ^ (UINT64)sp;
	find_swap();
	count_cpus();
	scan_memory(sp);

	/* the working set, as count_data_pages() will see it; the test buffer and the
	 * page tables are counted before they are allocated so that an image too large
	 * for the 768 slots is refused before anything else happens */
	UINT64 img_lo = (UINT64)(UINTN)li->ImageBase, img_hi = (img_lo + image_size(li) + PAGE - 1) & ~(PAGE - 1);
	UINT64 ns_lo = (UINT64)(UINTN)&nosave, ns_hi = ns_lo + sizeof(nosave);
	if ((img_lo & (PAGE - 1)) || (ns_lo & (PAGE - 1)) || ns_lo < img_lo || ns_hi > img_hi)
		fail("the loaded image or its .data.nosave page is not page aligned", 0);
	add_range(img_lo, ns_lo, "the loaded image");
	add_range(ns_hi, img_hi, "the loaded image (after .data.nosave)");
	add_range(stack_lo, stack_hi, "the stack");
	UINT64 saveable = 0;
	for (UINTN i = 0; i < nranges; i++)
		saveable += ranges[i].pages;
	saveable += tables_needed() + conf_pages;
	seeds_counter++;

	/* swsusp_alloc(): calc_order() in alloc_pagedir() */
	UINT64 n = saveable;
	unsigned order;
	calc_order(&n, &order);
	UINT64 pd_pages = ER_SWSUSP2004_PD_PAGES(n, sizeof(pbe_t));
	if (pd_pages > SWSUSP_FW_PAGEDIR_SLOTS) {
		struct line l = { .n = 0 };
		put(&l, "SEEDS-TEST: refused: image needs ");
		put_dec(&l, pd_pages);
		put(&l, " pagedir pages, more than ");
		put_dec(&l, SWSUSP_FW_PAGEDIR_SLOTS);
		con_line(&l);
		l.n = 0;
		put(&l, "SEEDS-TEST: (");
		put_dec(&l, n);
		put(&l, " pbes of ");
		put_dec(&l, sizeof(pbe_t));
		put(&l, " bytes; nothing was written)");
		con_line(&l);
		power_off();
	}
	if (1 + n + pd_pages + 1 > swap_pages) {
		struct line l = { .n = 0 };
		put(&l, "SEEDS-TEST: refused: not enough swap: the image needs ");
		put_dec(&l, 2 + n + pd_pages);
		put(&l, " pages, the partition has ");
		put_dec(&l, swap_pages);
		con_line(&l);
		power_off();
	}

	/* the page tables and the test buffer */
	build_tables();
	buf_pages = conf_pages;
	UINT64 buf_phys = alloc_pages(buf_pages, "the test buffer");
	buf = (volatile uint64_t *)(UINTN)buf_phys;
	buf_seed = seeds_nonce ^ 0x5eed5eed5eed5eedull;
	for (UINT64 i = 0; i < buf_pages * PAGE / 8; i++)
		buf[i] = seeds_pattern(buf_seed, i);
	buf_sum = seeds_checksum(buf, buf_pages * PAGE / 8);
	add_range(tables_phys, tables_phys + tables_pages * PAGE, "the page tables");
	add_range(buf_phys, buf_phys + buf_pages * PAGE, "the test buffer");

	/* alloc_pagedir(): 2^order pages, zeroed, themselves saveable; then
	 * alloc_image_pages(): the copies, not saveable */
	pagedir_alloc = 1ull << order;
	pagedir_phys = alloc_pages(pagedir_alloc, "the pagedir");
	pagedir = (pbe_t *)(UINTN)pagedir_phys;
	zero_bytes(pagedir, (UINTN)(pagedir_alloc * PAGE));
	add_range(pagedir_phys, pagedir_phys + pagedir_alloc * PAGE, "the pagedir");
	nr_copy_pages = n;
	copies_phys = alloc_pages(n, "the copies");
	for (UINT64 k = 0; k < n; k++)
		pagedir[k].address = PAGE_OFFSET + copies_phys + k * PAGE;
	UINT64 total = sort_ranges();
	if (total != saveable + pagedir_alloc)
		fail("the working set is not what was counted", 0);

	/* the context swsusp_fw_resume restores, besides the registers */
	CTX(CR3) = (UINTN)root_phys;
	CTX(NOSB) = (UINTN)ns_lo;
	CTX(NOSE) = (UINTN)ns_hi;
	zero_bytes(gdt, sizeof(gdt));
#ifdef EFIRESUME_ARCH_X64
	gdt[SEEDS_CS64 / 8] = 0x00af9a000000ffffull;   /* 64-bit code */
	gdt[SEEDS_DS64 / 8] = 0x00cf92000000ffffull;   /* flat data */
#else
	gdt[SEEDS_CS32 / 8] = 0x00cf9a000000ffffull;   /* flat 32-bit code */
	gdt[SEEDS_DS32 / 8] = 0x00cf92000000ffffull;   /* flat data */
#endif
	UINT16 limit = sizeof(gdt) - 1;
	UINTN base = (UINTN)gdt;
	copy_bytes(seeds_ctx.gdtr, &limit, 2);
	copy_bytes(seeds_ctx.gdtr + 2, &base, sizeof(base));

	say_kv("SEEDS-TEST: buffer at ", buf_phys, ", pages ", buf_pages, ", seed ", buf_seed, NULL);
	say_kv("SEEDS-TEST: fw_entry ", PAGE_OFFSET + (UINT64)(UINTN)swsusp_fw_resume, " phys ",
	       (UINT64)(UINTN)swsusp_fw_resume, ", fw_cr3 ", root_phys, NULL);
	say_kv("SEEDS-TEST: image ", img_lo, "-", img_hi, ", nosave ", ns_lo, NULL);
	say_kv("SEEDS-TEST: stack ", stack_lo, "-", stack_hi, ", sp ", (UINT64)sp, NULL);
	struct line l = { .n = 0 };
	put(&l, "SEEDS-TEST: num_physpages ");
	put_dec(&l, ram_top / PAGE);
	put(&l, ", cpus ");
	put_dec(&l, cpus);
	put(&l, ", saveable ");
	put_dec(&l, saveable);
	put(&l, " + pagedir 2^");
	put_dec(&l, order);
	put(&l, " = ");
	put_dec(&l, n);
	put(&l, " pbes, swap type ");
	put_dec(&l, conf_swaptype);
	con_line(&l);

	seeds_counter++;
	suspend_and_check(pd_pages);
	power_off();
}
