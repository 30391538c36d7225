// SPDX-License-Identifier: GPL-2.0-or-later
/* Predicting a hibernation image's e820 checksum from the EFI memory map.
 *
 * What the kernel does (Linux 6.1 and 6.12; read from the kernel sources)
 * =======================================================================
 *
 * The checksum (arch/x86/power/hibernate.c; it replaced an MD5 digest in
 * 2021, when RESTORE_MAGIC became 0x23456789ABCDEF02 / 0x12345679):
 *
 *	static inline u32 compute_e820_crc32(struct e820_table *table)
 *	{
 *		int size = offsetof(struct e820_table, entries) +
 *			sizeof(struct e820_entry) * table->nr_entries;
 *		return ~crc32_le(~0, (unsigned char const *)table, size);
 *	}
 *	...
 *	rdr->e820_checksum = compute_e820_crc32(e820_table_firmware);
 *
 *   crc32_le() is the raw reflected CRC (poly 0xEDB88320) with no inversion of
 *   its own; seeding with ~0 and inverting the result makes it the standard
 *   CRC-32, i.e. zlib's crc32(0, buf, len) == er_crc32_zlib(0, ...) ==
 *   ~er_crc32_le(~0, ...). (The v1 patch used crc32_le(0, ...); review asked
 *   for the inversions and the merged version has them.) The bytes are
 *   struct e820_table { __u32 nr_entries; struct e820_entry entries[]; } where
 *   e820_entry is __attribute__((packed)) { u64 addr; u64 size; enum e820_type
 *   type; }: 4 + 20 * nr_entries bytes, little endian, no padding (offsetof
 *   entries == 4 because the packed entries have alignment 1). The record
 *   stores it in an unsigned long (zero-extended on x86_64). The same value is
 *   recomputed by the loading kernel in arch_hibernation_header_restore() and
 *   compared; on mismatch "Hibernate inconsistent memory map detected!".
 *
 * The table: e820_table_firmware (arch/x86/kernel/e820.c). It is written in
 *   exactly two places, both copies of e820_table (e820__reallocate_tables()
 *   later only moves it to a kmemdup'ed copy):
 *   - e820__memory_setup(): who = x86_init.resources.memory_setup() (that is
 *     e820__memory_setup_default() on EFI-booted PCs and QEMU), then
 *     memcpy(e820_table_firmware, e820_table, ...);
 *   - e820__memory_setup_extended(), called from parse_setup_data() for a
 *     SETUP_E820_EXT node: __append_e820_table(ext entries);
 *     e820__update_table(e820_table); memcpy to _kexec and _firmware.
 *   setup_arch() runs e820__memory_setup(); parse_setup_data(); and only then
 *   parse_early_param(), e820__reserve_setup_data(), e820__finish_early_params()
 *   and efi_init(). So none of these reach the firmware table:
 *   - memmap= / mem= (parse_memmap_one, parse_memopt: e820_table only);
 *   - e820__reserve_setup_data() (e820__range_update on e820_table, and in
 *     some versions e820_table_kexec; never _firmware);
 *   - efi_arch_mem_reserve() (arch/x86/platform/efi/quirks.c, via
 *     efi_mem_reserve(): e820__range_update(..., E820_TYPE_RAM,
 *     E820_TYPE_RESERVED) + e820__update_table(e820_table): the "e820: update
 *     [mem ...] usable ==> reserved" lines are not in the checksum);
 *   - efi_reserve_boot_services() / EFI boot services regions (memblock only),
 *     add_efi_memmap, efi_fake_mem, soft-reserved handling (e820_table only),
 *     e820__memblock_alloc_reserved (e820_table_kexec only).
 *   There is no e820__range_update_firmware() in 6.1 or 6.12 (one was proposed
 *   in an RFC in 2024 for the TPM log and not merged; the stub-side fix below
 *   was taken instead). So e820_table_firmware is what the kernel printed as
 *   the "BIOS-e820:" lines (plus "extended:" lines when > 128 entries).
 *
 * How e820_table is built before the copy:
 *   e820__memory_setup_default(): append_e820_table(boot_params.e820_table,
 *   boot_params.e820_entries): if fewer than 2 entries, or an entry with
 *   start > start + size - 1 and size != 0 (64-bit wrap), it fails and the
 *   kernel *fakes* a map (0..640K and 1M..1M+alt_mem_k KiB: "BIOS-e801";
 *   the stub sets alt_mem_k = 32 MiB). Each entry goes through
 *   e820__range_add(), which drops entries beyond E820_MAX_ENTRIES (128 +
 *   3 * MAX_NUMNODES: config dependent, 131 without NUMA) with "too many
 *   entries; ignoring". Then e820__update_table(e820_table) (return value
 *   ignored). The SETUP_E820_EXT part is appended afterwards the same way
 *   (__append_e820_table: stops at a wrapping entry, return ignored) and the
 *   whole table sanitized again. Sanitizing twice is not the same as once for
 *   SOFT_RESERVED/PRAM, whose split points depend on the input boundaries, so
 *   the two phases are reproduced as they happen.
 *
 * The sanitizer, e820__update_table() (identical in 6.1 and 6.12):
 *   returns -1 leaving the table untouched if nr_entries < 2 or if any entry
 *   has addr + size < addr (so one ending exactly at 2^64 disables it too).
 *   Otherwise: a start and an end change point per non-empty entry, sorted by
 *   address with sort() (heapsort, unstable) and cpcompare() putting start
 *   points before end points at equal addresses; a sweep keeps the set of
 *   entries covering the current point, current_type = the numerically
 *   highest type in the set (unsigned: enum e820_type holds 0xefffffff), and
 *   a new entry is started whenever current_type changes or is a "nomerge"
 *   type (E820_TYPE_PRAM 12, E820_TYPE_SOFT_RESERVED), zero-size results are
 *   discarded, and the loop stops once max_nr_entries entries are complete.
 *   The order among equal change points does not matter: at one address the
 *   starts (set only grows) come before the ends (set only shrinks), so if the
 *   type after the address equals the type before, every intermediate type
 *   equals it too, and any intermediate change only produces zero-size
 *   entries that are discarded. So any correct sort reproduces the kernel.
 *
 * The EFI stub, setup_e820() (drivers/firmware/efi/libstub/x86-stub.c, run
 *   after ExitBootServices on the final map the stub obtained for it):
 *	Reserved, RuntimeServicesCode/Data, MMIO, MMIOPortSpace, PalCode
 *						-> E820_TYPE_RESERVED (2)
 *	UnusableMemory				-> E820_TYPE_UNUSABLE (5)
 *	ACPIReclaimMemory			-> E820_TYPE_ACPI (3)
 *	LoaderCode/Data, BootServicesCode/Data, ConventionalMemory
 *						-> E820_TYPE_RAM (1), or
 *		E820_TYPE_SOFT_RESERVED if efi_soft_reserve_enabled()
 *		(CONFIG_EFI_SOFT_RESERVE and no efi=nosoftreserve) and the
 *		descriptor has EFI_MEMORY_SP (all five types, not only Conventional)
 *	ACPIMemoryNVS				-> E820_TYPE_NVS (4)
 *	PersistentMemory			-> E820_TYPE_PMEM (7)
 *	UnacceptedMemory (6.5+)			-> RAM with CONFIG_UNACCEPTED_MEMORY,
 *						   else skipped; 6.1: skipped
 *	anything else (OEM/OS types)		-> skipped ("continue": does not
 *						   reset the merge candidate)
 *   A descriptor is merged into the previous emitted entry when the types are
 *   equal and prev->addr + prev->size == d->phys_addr (u64 arithmetic, sizes
 *   num_pages << 12 modulo 2^64); otherwise it becomes a new entry; entries
 *   129.. go into the SETUP_E820_EXT node; boot_params.e820_entries = the
 *   rest (<= 128). No sorting, no other merging.
 *
 * What makes the prediction from the loader's view risky
 * ======================================================
 * The image's checksum was taken from the map the image kernel's own stub
 * saw at ExitBootServices on the boot *before* hibernation; we see today's
 * map, earlier in boot, and without that stub's allocations.
 *  - Allocations of RAM-class types (LoaderCode/Data, BootServicesCode/Data
 *    carved out of ConventionalMemory) never change the result, by ours or by
 *    anyone else's: they keep the e820 type (RAM), the stub merges contiguous
 *    same-type descriptors and the sanitizer merges any remaining adjacent RAM
 *    (RAM is not a nomerge type). The result depends only on which e820 type
 *    covers each address, so how the firmware splits or orders RAM-class
 *    descriptors is irrelevant. (Caveat: EFI_MEMORY_SP memory, whose split
 *    points survive; only on HMAT machines with specific-purpose memory.)
 *  - Allocations of non-RAM types before ExitBootServices do change it. The
 *    image kernel's stub itself makes some: the TPM event log copy
 *    (efi_retrieve_tcg2_eventlog: EFI_ACPI_RECLAIM_MEMORY since upstream
 *    77d48d39e991 in v6.12, CVE-2024-49858, backported to stable series;
 *    EFI_LOADER_DATA before), the LINUX_EFI_RANDOM_SEED table when an
 *    EFI_RNG_PROTOCOL exists (EFI_ACPI_RECLAIM_MEMORY since 7d866e38c7e9,
 *    v6.1-rc4; EFI_RUNTIME_SERVICES_DATA before), the unaccepted-memory
 *    bitmap (ACPI reclaim, confidential VMs only). Boot loaders may add more
 *    (systemd-boot's random seed table is ACPI reclaim too). On EDK2-based
 *    firmware (OVMF, most PCs) such pool allocations normally come out of the
 *    memory-type-information bins, whose free part GetMemoryMap already
 *    reports with the bin's type, so the map does not change; when a bin
 *    overflows the allocation lands elsewhere and splits RAM: one real
 *    ThinkPad moved its ACPI-data TPM log by a few pages across reboots and
 *    the kernel's own resume failed the same way. None of these are in the
 *    map efiresume sees. A mismatch is therefore an expected, safe outcome
 *    (refuse to resume, boot normally), never something to override.
 *  - Firmware-side changes between the two boots: different RAM size,
 *    memory-type bins resized (EDK2 stores them in a variable), MMIO windows
 *    or runtime regions moved (firmware update, devices added, setup options).
 *  - The image kernel's configuration: soft reservation and unaccepted memory
 *    (ER_E820_F_*), and E820_MAX_ENTRIES (we refuse maps whose tables would
 *    exceed the smallest, 131 entries).
 *  - Image kernels not started through the EFI stub (a boot loader building
 *    its own e820, kexec, Xen) used a different conversion: not predicted.
 *
 * Checked against reality (tests/unit/test_e820.c): the UEFI shell's
 * `memmap` on fresh OVMF boots (q35, 512 MiB; x64 and ia32) run through
 * er_e820_checksum_from_efi_map gives exactly the "BIOS-e820:" tables the
 * Debian kernels printed on those machines and the e820_checksum stored in
 * their hibernation images: 0x233f18ca for 6.1 and 6.12 cloud-amd64 alike,
 * 0x4fdf729f for 6.1 686 (whose map is not even sorted). So on OVMF neither
 * the shell's nor the stubs' own allocations moved anything.
 */
#include "image/e820.h"
#include "image/crc32.h"

/* ------------------------------------------------------------------ stub */

struct stub_conv {
	struct er_e820_entry *out;
	size_t cap, n;
	size_t prev; /* index of the last emitted entry; valid when n > 0 */
	uint32_t flags;
};

/* setup_e820's switch: returns false for "continue" (descriptor skipped). */
static bool stub_type(const struct er_efi_md *d, uint32_t flags, uint32_t *type)
{
	switch (d->type) {
	case ER_EFI_RESERVED_TYPE:
	case ER_EFI_RUNTIME_SERVICES_CODE:
	case ER_EFI_RUNTIME_SERVICES_DATA:
	case ER_EFI_MEMORY_MAPPED_IO:
	case ER_EFI_MEMORY_MAPPED_IO_PORT:
	case ER_EFI_PAL_CODE:
		*type = ER_E820_RESERVED;
		return true;
	case ER_EFI_UNUSABLE_MEMORY:
		*type = ER_E820_UNUSABLE;
		return true;
	case ER_EFI_ACPI_RECLAIM_MEMORY:
		*type = ER_E820_ACPI;
		return true;
	case ER_EFI_LOADER_CODE:
	case ER_EFI_LOADER_DATA:
	case ER_EFI_BOOT_SERVICES_CODE:
	case ER_EFI_BOOT_SERVICES_DATA:
	case ER_EFI_CONVENTIONAL_MEMORY:
		if (!(flags & ER_E820_F_NO_SOFT_RESERVE) && (d->attr & ER_EFI_MEMORY_SP))
			*type = ER_E820_SOFT_RESERVED;
		else
			*type = ER_E820_RAM;
		return true;
	case ER_EFI_ACPI_MEMORY_NVS:
		*type = ER_E820_NVS;
		return true;
	case ER_EFI_PERSISTENT_MEMORY:
		*type = ER_E820_PMEM;
		return true;
	case ER_EFI_UNACCEPTED_MEMORY:
		if (!(flags & ER_E820_F_UNACCEPTED_RAM))
			return false;
		*type = ER_E820_RAM;
		return true;
	default:
		return false;
	}
}

static int stub_add(struct stub_conv *s, const struct er_efi_md *d)
{
	uint32_t type;

	if (!stub_type(d, s->flags, &type))
		return ER_E820_OK;
	if (s->n > 0) {
		struct er_e820_entry *prev = &s->out[s->prev];
		if (prev->type == type && prev->addr + prev->size == d->phys) {
			prev->size += d->pages << 12;
			return ER_E820_OK;
		}
	}
	if (s->n >= s->cap)
		return ER_E820_E_TOO_MANY;
	s->out[s->n].addr = d->phys;
	s->out[s->n].size = d->pages << 12;
	s->out[s->n].type = type;
	s->prev = s->n++;
	return ER_E820_OK;
}

int er_e820_from_efi_ex(const struct er_efi_md *md, size_t n, uint32_t flags, struct er_e820_entry *out,
			size_t cap, size_t *out_n)
{
	struct stub_conv s = { .out = out, .cap = cap, .n = 0, .prev = 0, .flags = flags };

	if (!out_n || (!md && n) || (!out && cap))
		return ER_E820_E_INVALID_ARG;
	*out_n = 0;
	for (size_t i = 0; i < n; i++) {
		int r = stub_add(&s, &md[i]);
		if (r < 0)
			return r;
	}
	*out_n = s.n;
	return ER_E820_OK;
}

int er_e820_from_efi(const struct er_efi_md *md, size_t n, struct er_e820_entry *out, size_t cap, size_t *out_n)
{
	return er_e820_from_efi_ex(md, n, 0, out, cap, out_n);
}

/* ------------------------------------------------------------- sanitizer */

/* A change point is encoded as entry index * 2 + (1 for the end point). */
static uint64_t cp_addr(const struct er_e820_entry *t, uint16_t cp)
{
	const struct er_e820_entry *e = &t[cp >> 1];
	return (cp & 1) ? e->addr + e->size : e->addr;
}

/* cpcompare(): by address, then start points before end points. */
static bool cp_less(const struct er_e820_entry *t, uint16_t a, uint16_t b)
{
	uint64_t x = cp_addr(t, a), y = cp_addr(t, b);
	if (x != y)
		return x < y;
	return (a & 1) < (b & 1);
}

static void cp_sift(const struct er_e820_entry *t, uint16_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && cp_less(t, v[child], v[child + 1]))
			child++;
		if (!cp_less(t, v[root], v[child]))
			return;
		uint16_t tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

static void cp_sort(const struct er_e820_entry *t, uint16_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		cp_sift(t, v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint16_t tmp = v[0];
		v[0] = v[end];
		v[end] = tmp;
		cp_sift(t, v, 0, end);
	}
}

static bool e820_nomerge(uint32_t type)
{
	return type == ER_E820_PRAM || type == ER_E820_SOFT_RESERVED;
}

int er_e820_sanitize(struct er_e820_entry *t, size_t *n, size_t cap)
{
	uint16_t cp[2 * ER_E820_MAX];
	uint16_t overlap[ER_E820_MAX];
	struct er_e820_entry nw[ER_E820_MAX];
	size_t nr, chg_nr = 0, n_overlap = 0, n_new = 0;
	uint32_t last_type = 0;
	uint64_t last_addr = 0;

	if (!n || cap > ER_E820_MAX || *n > cap || (!t && *n))
		return ER_E820_E_INVALID_ARG;
	nr = *n;
	if (nr < 2)
		return ER_E820_UNCHANGED;
	for (size_t i = 0; i < nr; i++)
		if (t[i].addr + t[i].size < t[i].addr)
			return ER_E820_UNCHANGED;

	for (size_t i = 0; i < nr; i++) {
		if (t[i].size != 0) {
			cp[chg_nr++] = (uint16_t)(i << 1);
			cp[chg_nr++] = (uint16_t)((i << 1) | 1);
		}
	}
	cp_sort(t, cp, chg_nr);

	/* The kernel stops once max_nr_entries entries are complete; here the
	 * sweep runs to the end, storing only the first cap entries, so that
	 * a truncation can be reported. The stored entries are the same. */
	for (size_t k = 0; k < chg_nr; k++) {
		uint16_t c = cp[k];
		uint16_t idx = (uint16_t)(c >> 1);
		uint64_t addr = cp_addr(t, c);
		uint32_t current_type = 0;

		if (!(c & 1)) {
			overlap[n_overlap++] = idx;
		} else {
			for (size_t i = 0; i < n_overlap; i++)
				if (overlap[i] == idx)
					overlap[i] = overlap[n_overlap - 1];
			n_overlap--;
		}
		for (size_t i = 0; i < n_overlap; i++)
			if (t[overlap[i]].type > current_type)
				current_type = t[overlap[i]].type;

		if (current_type != last_type || e820_nomerge(current_type)) {
			if (last_type) {
				uint64_t size = addr - last_addr;
				if (n_new < cap)
					nw[n_new].size = size;
				if (size != 0)
					n_new++;
			}
			if (current_type) {
				if (n_new < cap) {
					nw[n_new].addr = addr;
					nw[n_new].type = current_type;
				}
				last_addr = addr;
			}
			last_type = current_type;
		}
	}

	size_t keep = n_new < cap ? n_new : cap;
	er_memcpy(t, nw, keep * sizeof(*t));
	*n = keep;
	return n_new > cap ? ER_E820_TRUNCATED : ER_E820_OK;
}

/* -------------------------------------------------------------- checksum */

uint32_t er_e820_checksum(const struct er_e820_entry *t, size_t n)
{
	uint8_t b[20];
	uint32_t crc;

	er_put_le32(b, (uint32_t)n);
	crc = er_crc32_zlib(0, b, 4);
	for (size_t i = 0; t && i < n; i++) {
		er_put_le64(b, t[i].addr);
		er_put_le64(b + 8, t[i].size);
		er_put_le32(b + 16, t[i].type);
		crc = er_crc32_zlib(crc, b, 20);
	}
	return crc;
}

/* ------------------------------------------------------- whole pipeline */

/* __append_e820_table() + e820__range_add() into a table of kcap entries,
 * refusing whatever the kernel would fake, drop or cut short. */
static int kernel_append(struct er_e820_entry *tab, size_t *nt, size_t kcap, const struct er_e820_entry *src,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t start = src[i].addr, size = src[i].size;
		if (start > start + size - 1 && size)
			return ER_E820_E_WRAP;
		if (*nt >= kcap)
			return ER_E820_E_TOO_MANY;
		tab[(*nt)++] = src[i];
	}
	return ER_E820_OK;
}

static int check_map(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version)
{
	if (!map && map_size)
		return ER_E820_E_INVALID_ARG;
	if (desc_size < ER_EFI_MEMORY_DESC_MIN)
		return ER_E820_E_DESC_SIZE;
	if (desc_version != ER_EFI_MEMORY_DESC_VERSION)
		return ER_E820_E_DESC_VERSION;
	return ER_E820_OK;
}

/* Descriptor i of a raw map (the caller checked i < map_size / desc_size). */
static void read_desc(const uint8_t *map, size_t desc_size, size_t i, struct er_efi_md *d)
{
	const uint8_t *p = map + i * desc_size;
	d->type = er_le32(p);       /* UINT32 Type; 4 bytes padding */
	d->phys = er_le64(p + 8);   /* EFI_PHYSICAL_ADDRESS PhysicalStart */
	d->pages = er_le64(p + 24); /* after VirtualStart: UINT64 NumberOfPages */
	d->attr = er_le64(p + 32);  /* UINT64 Attribute */
}

int er_e820_relevant_flags(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
			   uint32_t *mask)
{
	int r;

	if (!mask)
		return ER_E820_E_INVALID_ARG;
	*mask = 0;
	r = check_map(map, map_size, desc_size, desc_version);
	if (r < 0)
		return r;
	for (size_t i = 0; i < map_size / desc_size; i++) {
		struct er_efi_md d;
		uint32_t with, without;
		read_desc(map, desc_size, i, &d);
		if (stub_type(&d, 0, &with) != stub_type(&d, ER_E820_F_UNACCEPTED_RAM, &without))
			*mask |= ER_E820_F_UNACCEPTED_RAM;
		if (stub_type(&d, 0, &with) && stub_type(&d, ER_E820_F_NO_SOFT_RESERVE, &without) && with != without)
			*mask |= ER_E820_F_NO_SOFT_RESERVE;
	}
	return ER_E820_OK;
}

int er_e820_table_from_efi_map(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
			       uint32_t flags, struct er_e820_entry *out, size_t cap, size_t *out_n)
{
	struct er_e820_entry conv[ER_E820_MAX];
	struct er_e820_entry tab[ER_E820_KERNEL_MIN_TABLE];
	struct stub_conv s = { .out = conv, .cap = ER_E820_MAX, .n = 0, .prev = 0, .flags = flags };
	const size_t kcap = ER_E820_KERNEL_MIN_TABLE;
	size_t nt = 0, n0;
	int r;

	if (!out_n || (!out && cap))
		return ER_E820_E_INVALID_ARG;
	*out_n = 0;
	r = check_map(map, map_size, desc_size, desc_version);
	if (r < 0)
		return r;

	/* EFI stub: nr_desc = efi_memmap_size / efi_memdesc_size. */
	size_t nr_desc = map_size / desc_size;
	for (size_t i = 0; i < nr_desc; i++) {
		struct er_efi_md d;
		read_desc(map, desc_size, i, &d);
		r = stub_add(&s, &d);
		if (r < 0)
			return r;
	}

	/* e820__memory_setup_default(): boot_params.e820_table. */
	n0 = s.n < ER_E820_ZEROPAGE ? s.n : ER_E820_ZEROPAGE;
	if (n0 < 2)
		return ER_E820_E_FEW_ENTRIES;
	r = kernel_append(tab, &nt, kcap, conv, n0);
	if (r < 0)
		return r;
	if (er_e820_sanitize(tab, &nt, kcap) == ER_E820_TRUNCATED)
		return ER_E820_E_TOO_MANY;

	/* parse_setup_data() -> e820__memory_setup_extended(): SETUP_E820_EXT. */
	if (s.n > ER_E820_ZEROPAGE) {
		r = kernel_append(tab, &nt, kcap, conv + ER_E820_ZEROPAGE, s.n - ER_E820_ZEROPAGE);
		if (r < 0)
			return r;
		if (er_e820_sanitize(tab, &nt, kcap) == ER_E820_TRUNCATED)
			return ER_E820_E_TOO_MANY;
	}

	if (nt > cap)
		return ER_E820_E_TOO_MANY;
	er_memcpy(out, tab, nt * sizeof(*out));
	*out_n = nt;
	return ER_E820_OK;
}

int er_e820_checksum_from_efi_map(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
				  uint32_t flags, uint32_t *crc)
{
	struct er_e820_entry tab[ER_E820_KERNEL_MIN_TABLE];
	size_t n;
	int r;

	if (!crc)
		return ER_E820_E_INVALID_ARG;
	r = er_e820_table_from_efi_map(map, map_size, desc_size, desc_version, flags, tab, ER_ARRAY_SIZE(tab),
				       &n);
	if (r < 0)
		return r;
	*crc = er_e820_checksum(tab, n);
	return ER_E820_OK;
}

const char *er_e820_strerror(int err)
{
	switch (err) {
	case ER_E820_OK:             return "ok";
	case ER_E820_E_INVALID_ARG:  return "invalid argument";
	case ER_E820_E_TOO_MANY:     return "too many e820 entries";
	case ER_E820_E_DESC_SIZE:    return "EFI memory descriptor size too small";
	case ER_E820_E_DESC_VERSION: return "unsupported EFI memory descriptor version";
	case ER_E820_E_FEW_ENTRIES:  return "fewer than 2 e820 entries (kernel would fake a map)";
	case ER_E820_E_WRAP:         return "e820 entry wraps past 2^64";
	case ER_E820_UNCHANGED:      return "table left unchanged (as the kernel's sanitizer does)";
	case ER_E820_TRUNCATED:      return "sanitized table truncated";
	default:                     return "unknown e820 error";
	}
}
