// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/e820.c (EFI memory map -> e820_table_firmware -> the
 * checksum a hibernation image carries).
 *
 * Ground truth:
 *  - two real OVMF memory maps, dumped with the UEFI shell's `memmap` on a
 *    fresh boot of the machines the e2e fixtures use (q35, 512 MiB, TCG):
 *    x64 OVMF_CODE_4M.fd and ia32 OVMF32_CODE_4M.secboot.fd. The expected
 *    tables are the "BIOS-e820:" lines the Debian 6.1 kernels printed when
 *    booted on those machines, and the expected checksums are the
 *    e820_checksum fields of the hibernation images those kernels wrote
 *    (read from the fixtures' swap: 0x233f18ca x64, 0x4fdf729f i386);
 *  - the sanitizer against an independent reference: a per-page painter
 *    ("highest type wins") plus run-length encoding, on random tables;
 *  - the checksum against zlib's crc32 over a hand-serialized buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <zlib.h>

#include "image/e820.h"

#include "ovmf_maps.h"

/* The kernels' "BIOS-e820:" lines on those machines (Debian 6.1.0-57). */
static const struct er_e820_entry bios_e820_x64[] = {
	{ 0x0000000000000000, 0x00000000000a0000, 1 }, { 0x0000000000100000, 0x0000000000706000, 1 },
	{ 0x0000000000806000, 0x0000000000002000, 4 }, { 0x0000000000808000, 0x0000000000008000, 1 },
	{ 0x0000000000810000, 0x00000000000f0000, 4 }, { 0x0000000000900000, 0x000000001e1a0000, 1 },
	{ 0x000000001eaa0000, 0x0000000000102000, 2 }, { 0x000000001eba2000, 0x000000000094a000, 1 },
	{ 0x000000001f4ec000, 0x0000000000280000, 2 }, { 0x000000001f76c000, 0x0000000000012000, 3 },
	{ 0x000000001f77e000, 0x0000000000080000, 4 }, { 0x000000001f7fe000, 0x00000000006f6000, 1 },
	{ 0x000000001fef4000, 0x0000000000084000, 2 }, { 0x000000001ff78000, 0x0000000000088000, 4 },
	{ 0x00000000b0000000, 0x0000000010000000, 2 }, { 0x00000000ffc00000, 0x0000000000400000, 2 },
};
static const struct er_e820_entry bios_e820_ia32[] = {
	{ 0x0000000000000000, 0x0000000000030000, 1 }, { 0x0000000000030000, 0x0000000000020000, 2 },
	{ 0x0000000000050000, 0x000000000004f000, 1 }, { 0x000000000009f000, 0x0000000000001000, 2 },
	{ 0x0000000000100000, 0x0000000000707000, 1 }, { 0x0000000000807000, 0x0000000000001000, 4 },
	{ 0x0000000000808000, 0x0000000000008000, 1 }, { 0x0000000000810000, 0x0000000000f00000, 4 },
	{ 0x0000000001710000, 0x000000001d4e2000, 1 }, { 0x000000001ebf2000, 0x0000000000280000, 2 },
	{ 0x000000001ee72000, 0x0000000000012000, 3 }, { 0x000000001ee84000, 0x0000000000080000, 4 },
	{ 0x000000001ef04000, 0x0000000000074000, 1 }, { 0x000000001ef78000, 0x0000000000088000, 4 },
	{ 0x000000001f000000, 0x0000000001000000, 2 }, { 0x00000000b0000000, 0x0000000010000000, 2 },
};
#define CRC_X64  0x233f18cau /* e820_checksum in the 6.1 cloud-amd64 image */
#define CRC_IA32 0x4fdf729fu /* e820_checksum in the 6.1 686 image */

#define MAXD 512

/* ------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

/* Serialize descriptors as GetMemoryMap() returns them, desc_size apart. */
static size_t build_map(uint8_t *buf, const struct er_efi_md *md, size_t n, size_t desc_size)
{
	memset(buf, 0xa5, n * desc_size); /* padding and VirtualStart are garbage */
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = buf + i * desc_size;
		memcpy(p, &md[i].type, 4);
		memcpy(p + 8, &md[i].phys, 8);
		memcpy(p + 24, &md[i].pages, 8);
		memcpy(p + 32, &md[i].attr, 8);
	}
	return n * desc_size;
}

static void assert_table_equal(const struct er_e820_entry *a, size_t na, const struct er_e820_entry *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		if (a[i].addr != b[i].addr || a[i].size != b[i].size || a[i].type != b[i].type)
			fail_msg("entry %zu: got %#llx+%#llx type %u, want %#llx+%#llx type %u", i,
				 (unsigned long long)a[i].addr, (unsigned long long)a[i].size, a[i].type,
				 (unsigned long long)b[i].addr, (unsigned long long)b[i].size, b[i].type);
	}
}

static int predict(const struct er_efi_md *md, size_t n, uint32_t flags, struct er_e820_entry *out, size_t *nout,
		   uint32_t *crc)
{
	static uint8_t buf[MAXD * 64];
	size_t len = build_map(buf, md, n, 48);
	int r = er_e820_table_from_efi_map(buf, len, 48, 1, flags, out, ER_E820_KERNEL_MIN_TABLE, nout);
	int r2 = er_e820_checksum_from_efi_map(buf, len, 48, 1, flags, crc);
	assert_int_equal(r, r2);
	if (r == 0)
		assert_int_equal(*crc, er_e820_checksum(out, *nout));
	return r;
}

/* --------------------------------------------------- real OVMF maps */

static void check_real(const struct er_efi_md *md, size_t n, const struct er_e820_entry *want, size_t nwant,
		       uint32_t crc_want)
{
	static uint8_t buf[MAXD * 64];
	struct er_e820_entry t[ER_E820_KERNEL_MIN_TABLE];
	size_t nt;
	uint32_t crc;

	/* The kernel's table, the image's checksum; any descriptor stride. */
	const size_t strides[] = { 40, 48, 56, 64 };
	for (size_t s = 0; s < ER_ARRAY_SIZE(strides); s++) {
		size_t len = build_map(buf, md, n, strides[s]);
		assert_int_equal(er_e820_table_from_efi_map(buf, len, strides[s], 1, 0, t, ER_ARRAY_SIZE(t), &nt), 0);
		assert_table_equal(t, nt, want, nwant);
		assert_int_equal(er_e820_checksum_from_efi_map(buf, len, strides[s], 1, 0, &crc), 0);
		assert_int_equal(crc, crc_want);
		/* a trailing partial descriptor is ignored, as by the stub */
		assert_int_equal(er_e820_checksum_from_efi_map(buf, len + strides[s] - 1, strides[s], 1, 0, &crc), 0);
		assert_int_equal(crc, crc_want);
	}
	assert_int_equal(er_e820_checksum(want, nwant), crc_want);

	/* The two steps by hand give the same. */
	struct er_e820_entry conv[ER_E820_MAX];
	size_t nc;
	assert_int_equal(er_e820_from_efi(md, n, conv, ER_E820_MAX, &nc), 0);
	assert_int_equal(er_e820_sanitize(conv, &nc, ER_E820_MAX), 0);
	assert_table_equal(conv, nc, want, nwant);
}

static void test_ovmf_x64_real(void **state)
{
	(void)state;
	check_real(ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), bios_e820_x64, ER_ARRAY_SIZE(bios_e820_x64), CRC_X64);
}

static void test_ovmf_ia32_real(void **state)
{
	(void)state;
	check_real(ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), bios_e820_ia32, ER_ARRAY_SIZE(bios_e820_ia32),
		   CRC_IA32);
	/* The map is not sorted: the stub's output is not either; the sanitizer sorts. */
	struct er_e820_entry conv[ER_E820_MAX];
	size_t nc;
	assert_int_equal(er_e820_from_efi(ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), conv, ER_E820_MAX, &nc), 0);
	assert_int_equal(conv[nc - 3].addr, 0x30000);
}

/* Allocating RAM-class memory (what efiresume, a boot loader or the stub
 * do with LoaderData/BootServicesData) and reordering descriptors never
 * changes the prediction; a non-RAM allocation does. */
static void test_allocations_invisible(void **state)
{
	(void)state;
	static struct er_efi_md m[MAXD];
	struct er_e820_entry t[ER_E820_KERNEL_MIN_TABLE];
	size_t nt;
	uint32_t crc;
	const uint32_t ram_types[] = { LC, LD, BC, BD, CONV };

	for (int iter = 0; iter < 500; iter++) {
		size_t n = ER_ARRAY_SIZE(ovmf_x64_512);
		memcpy(m, ovmf_x64_512, sizeof(ovmf_x64_512));
		/* carve allocations out of RAM-class descriptors */
		for (int k = 0; k < 10; k++) {
			size_t i = rndn((unsigned)n);
			if (m[i].pages < 2 || (m[i].type != CONV && m[i].type != BD && m[i].type != BC))
				continue;
			uint64_t cut = 1 + rndn((unsigned)(m[i].pages - 1));
			memmove(&m[i + 2], &m[i + 1], (n - i - 1) * sizeof(m[0]));
			m[i + 1] = m[i];
			m[i + 1].phys += cut << 12;
			m[i + 1].pages -= cut;
			m[i].pages = cut;
			m[i + 1].type = ram_types[rndn(5)];
			n++;
		}
		/* sometimes shuffle the whole map */
		if (iter % 3 == 0)
			for (size_t i = n - 1; i > 0; i--) {
				size_t j = rndn((unsigned)(i + 1));
				struct er_efi_md x = m[i];
				m[i] = m[j];
				m[j] = x;
			}
		assert_int_equal(predict(m, n, 0, t, &nt, &crc), 0);
		assert_int_equal(crc, CRC_X64);
	}

	/* one ACPI-reclaim page in conventional memory (a stub's TPM log or
	 * random seed outside the firmware's bins) changes the checksum */
	size_t n = ER_ARRAY_SIZE(ovmf_x64_512);
	memcpy(m, ovmf_x64_512, sizeof(ovmf_x64_512));
	assert_int_equal(m[7].type, CONV);
	m[n] = m[7];
	m[n].type = ACPI;
	m[n].pages = 1;
	m[7].phys += 0x1000;
	m[7].pages -= 1;
	assert_int_equal(predict(m, n + 1, 0, t, &nt, &crc), 0);
	assert_int_not_equal(crc, CRC_X64);
	assert_int_equal(nt, ER_ARRAY_SIZE(bios_e820_x64) + 2); /* RAM, ACPI, RAM */
}

/* ------------------------------------------------------- stub rules */

static uint32_t one_type(uint32_t efi_type, uint64_t attr, uint32_t flags, int *used)
{
	struct er_efi_md md = { efi_type, 0x100000, 4, attr };
	struct er_e820_entry e = { 0, 0, 0 };
	size_t n = 99;
	assert_int_equal(er_e820_from_efi_ex(&md, 1, flags, &e, 1, &n), 0);
	*used = (int)n;
	if (n)
		assert_true(e.addr == 0x100000 && e.size == 0x4000);
	return n ? e.type : 0;
}

static void test_stub_types(void **state)
{
	(void)state;
	static const struct { uint32_t efi, e820; } map[] = {
		{ RSV, 2 }, { LC, 1 }, { LD, 1 }, { BC, 1 }, { BD, 1 }, { RC, 2 }, { RD, 2 }, { CONV, 1 },
		{ UNUS, 5 }, { ACPI, 3 }, { NVS, 4 }, { MMIO, 2 }, { ER_EFI_MEMORY_MAPPED_IO_PORT, 2 },
		{ ER_EFI_PAL_CODE, 2 }, { ER_EFI_PERSISTENT_MEMORY, 7 },
	};
	int used;
	for (size_t i = 0; i < ER_ARRAY_SIZE(map); i++) {
		assert_int_equal(one_type(map[i].efi, WB, 0, &used), map[i].e820);
		assert_int_equal(used, 1);
	}
	/* skipped: unaccepted (6.1, or no CONFIG_UNACCEPTED_MEMORY), OEM/OS types */
	const uint32_t skipped[] = { ER_EFI_UNACCEPTED_MEMORY, 16, 0x6fffffff, 0x70000000, 0x80000001, 0xffffffff };
	for (size_t i = 0; i < ER_ARRAY_SIZE(skipped); i++) {
		one_type(skipped[i], WB, 0, &used);
		assert_int_equal(used, 0);
	}
	assert_int_equal(one_type(ER_EFI_UNACCEPTED_MEMORY, WB, ER_E820_F_UNACCEPTED_RAM, &used), 1);
	/* EFI_MEMORY_SP on all five RAM-class types, nothing else */
	const uint32_t ramlike[] = { LC, LD, BC, BD, CONV };
	for (size_t i = 0; i < ER_ARRAY_SIZE(ramlike); i++) {
		assert_int_equal(one_type(ramlike[i], WB | ER_EFI_MEMORY_SP, 0, &used), ER_E820_SOFT_RESERVED);
		assert_int_equal(one_type(ramlike[i], WB | ER_EFI_MEMORY_SP, ER_E820_F_NO_SOFT_RESERVE, &used), 1);
	}
	assert_int_equal(one_type(ACPI, ER_EFI_MEMORY_SP, 0, &used), 3);
	assert_int_equal(one_type(RD, RT | ER_EFI_MEMORY_SP, 0, &used), 2);
	assert_int_equal(one_type(ER_EFI_UNACCEPTED_MEMORY, ER_EFI_MEMORY_SP, ER_E820_F_UNACCEPTED_RAM, &used), 1);
}

static void test_stub_merge(void **state)
{
	(void)state;
	struct er_e820_entry e[8];
	size_t n;

	/* contiguous same-type merge, different e820 type splits */
	const struct er_efi_md a[] = {
		{ CONV, 0x0, 1, WB }, { BD, 0x1000, 2, WB }, { LD, 0x3000, 1, WB }, { RD, 0x4000, 1, RT },
		{ RC, 0x5000, 1, RT }, { CONV, 0x6000, 1, WB },
	};
	assert_int_equal(er_e820_from_efi(a, 6, e, 8, &n), 0);
	const struct er_e820_entry ea[] = { { 0, 0x4000, 1 }, { 0x4000, 0x2000, 2 }, { 0x6000, 0x1000, 1 } };
	assert_table_equal(e, n, ea, 3);

	/* a gap, or going backwards, prevents merging; skipped types do not
	 * reset the merge candidate; a zero-page descriptor is an entry */
	const struct er_efi_md b[] = {
		{ CONV, 0x10000, 1, WB }, { CONV, 0x12000, 1, WB }, { CONV, 0x11000, 1, WB },
		{ 0x80000000u, 0x12000, 5, WB }, { CONV, 0x12000, 1, WB }, { ACPI, 0x20000, 0, WB },
		{ ACPI, 0x20000, 2, WB },
	};
	assert_int_equal(er_e820_from_efi(b, 7, e, 8, &n), 0);
	const struct er_e820_entry eb[] = {
		{ 0x10000, 0x1000, 1 }, { 0x12000, 0x1000, 1 }, { 0x11000, 0x2000, 1 }, { 0x20000, 0x2000, 3 },
	};
	assert_table_equal(e, n, eb, 4);

	/* sizes are pages << 12 modulo 2^64, as in the stub */
	const struct er_efi_md c[] = { { CONV, 0x1000, 1ull << 52, WB }, { CONV, 0x1000, (1ull << 52) + 3, WB } };
	assert_int_equal(er_e820_from_efi(c, 2, e, 8, &n), 0);
	const struct er_e820_entry ec[] = { { 0x1000, 0x3000, 1 } };
	assert_table_equal(e, n, ec, 1);

	/* capacity */
	assert_int_equal(er_e820_from_efi(a, 6, e, 2, &n), ER_E820_E_TOO_MANY);
	assert_int_equal(er_e820_from_efi(a, 6, e, 3, &n), 0);
	assert_int_equal(er_e820_from_efi(a, 6, NULL, 0, &n), ER_E820_E_TOO_MANY);
	assert_int_equal(er_e820_from_efi(NULL, 0, NULL, 0, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(er_e820_from_efi(NULL, 1, e, 8, &n), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_from_efi(a, 6, e, 8, NULL), ER_E820_E_INVALID_ARG);
}

/* --------------------------------------------------------- sanitizer */

/* The example drawn in the comment above the kernel's e820__update_table(). */
static void test_sanitize_kernel_example(void **state)
{
	(void)state;
	static const char *in[] = {
		"____22__________________", "______________________4_", "____1111________________",
		"_44_____________________", "11111111________________", "____________________33__",
		"___________44___________", "__________33333_________", "______________22________",
		"___________________2222_", "_________111111111______", "_____________________11_",
		"_________________4______",
	};
	static const char *out[] = {
		"1_______________________", "_44_____________________", "___1____________________",
		"____22__________________", "______11________________", "_________1______________",
		"__________3_____________", "___________44___________", "_____________33_________",
		"_______________2________", "________________1_______", "_________________4______",
		"___________________2____", "____________________33__", "______________________4_",
	};
	struct er_e820_entry t[16], want[16];
	size_t n = 0, nw = 0;
	for (size_t k = 0; k < 2; k++) {
		const char **rows = k ? out : in;
		size_t nrows = k ? ER_ARRAY_SIZE(out) : ER_ARRAY_SIZE(in);
		struct er_e820_entry *dst = k ? want : t;
		for (size_t i = 0; i < nrows; i++) {
			size_t a = strcspn(rows[i], "1234"), b = a;
			while (rows[i][b] >= '1' && rows[i][b] <= '4')
				b++;
			dst[i].addr = a * 0x1000;
			dst[i].size = (b - a) * 0x1000;
			dst[i].type = (uint32_t)(rows[i][a] - '0');
		}
		*(k ? &nw : &n) = nrows;
	}
	assert_int_equal(er_e820_sanitize(t, &n, 16), 0);
	assert_table_equal(t, n, want, nw);
}

static void test_sanitize_unchanged(void **state)
{
	(void)state;
	struct er_e820_entry t[4] = { { 0x5000, 0, 1 } }, copy[4];
	size_t n = 1;

	assert_int_equal(er_e820_sanitize(t, &n, 4), ER_E820_UNCHANGED);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].size, 0); /* not even the zero-size entry goes */
	n = 0;
	assert_int_equal(er_e820_sanitize(NULL, &n, 0), ER_E820_UNCHANGED);

	/* a wrapping entry, or one ending exactly at 2^64, disables the sanitizer */
	const struct er_e820_entry w[3] = {
		{ 0x9000, 0x1000, 1 }, { 0xfffffffffffff000ull, 0x1000, 2 }, { 0x1000, 0x1000, 1 },
	};
	memcpy(t, w, sizeof(w));
	memcpy(copy, w, sizeof(w));
	n = 3;
	assert_int_equal(er_e820_sanitize(t, &n, 4), ER_E820_UNCHANGED);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {   /* field by field: the struct has padding */
		assert_int_equal(t[i].addr, copy[i].addr);
		assert_int_equal(t[i].size, copy[i].size);
		assert_int_equal(t[i].type, copy[i].type);
	}
	t[1].size = 0x800;  /* ends just below 2^64: fine */
	assert_int_equal(er_e820_sanitize(t, &n, 4), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[0].addr, 0x1000);
	assert_int_equal(t[2].addr, 0xfffffffffffff000ull);

	/* bounds */
	n = 5;
	assert_int_equal(er_e820_sanitize(t, &n, 4), ER_E820_E_INVALID_ARG);
	n = 2;
	assert_int_equal(er_e820_sanitize(t, &n, ER_E820_MAX + 1), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_sanitize(t, NULL, 4), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_sanitize(NULL, &n, 4), ER_E820_E_INVALID_ARG);
}

static void test_sanitize_nomerge(void **state)
{
	(void)state;
	/* SOFT_RESERVED and PRAM keep every boundary of every input entry
	 * inside them, including boundaries of entries they cover. */
	struct er_e820_entry t[8] = {
		{ 0x0000, 0x2000, ER_E820_SOFT_RESERVED }, { 0x2000, 0x2000, ER_E820_SOFT_RESERVED },
		{ 0x1000, 0x2000, ER_E820_RAM },
		{ 0x10000, 0x1000, ER_E820_PRAM }, { 0x11000, 0x1000, ER_E820_PRAM },
		{ 0x20000, 0x1000, ER_E820_PMEM }, { 0x21000, 0x1000, ER_E820_PMEM },
	};
	size_t n = 7;
	assert_int_equal(er_e820_sanitize(t, &n, 8), 0);
	const struct er_e820_entry want[] = {
		{ 0x0000, 0x1000, ER_E820_SOFT_RESERVED }, { 0x1000, 0x1000, ER_E820_SOFT_RESERVED },
		{ 0x2000, 0x1000, ER_E820_SOFT_RESERVED }, { 0x3000, 0x1000, ER_E820_SOFT_RESERVED },
		{ 0x10000, 0x1000, ER_E820_PRAM }, { 0x11000, 0x1000, ER_E820_PRAM },
		{ 0x20000, 0x2000, ER_E820_PMEM },
	};
	assert_table_equal(t, n, want, ER_ARRAY_SIZE(want));
}

/* Independent reference: paint every unit with the highest type covering
 * it, then run-length encode; a nomerge type also starts a new entry at
 * every start or end of any non-empty input entry. */
#define SPACE 48
static bool nomerge(uint32_t t) { return t == ER_E820_PRAM || t == ER_E820_SOFT_RESERVED; }
static size_t painter(const struct er_e820_entry *in, size_t n, uint64_t base, uint64_t unit,
		      struct er_e820_entry *out)
{
	uint32_t type[SPACE] = { 0 };
	bool edge[SPACE + 1] = { false };
	size_t nout = 0;
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		if (!in[i].size)
			continue;
		uint64_t a = (in[i].addr - base) / unit, b = a + in[i].size / unit;
		edge[a] = edge[b] = true;
		for (uint64_t p = a; p < b; p++)
			if (in[i].type > type[p])
				type[p] = in[i].type;
	}
	for (size_t p = 0; p < SPACE; p++) {
		if (!type[p]) {
			open = false;
			continue;
		}
		if (open && out[nout - 1].type == type[p] && !(nomerge(type[p]) && edge[p])) {
			out[nout - 1].size += unit;
			continue;
		}
		out[nout].addr = base + p * unit;
		out[nout].size = unit;
		out[nout].type = type[p];
		nout++;
		open = true;
	}
	return nout;
}

static void test_sanitize_random_vs_painter(void **state)
{
	(void)state;
	static const uint32_t types[] = { 1, 1, 1, 2, 2, 3, 4, 5, 7, 12, 128, 0x80000000u, ER_E820_SOFT_RESERVED };
	const uint64_t bases[] = { 0, 0x100000, 0xfffff00000000000ull };
	const uint64_t units[] = { 1, 0x1000, 0x200000 };
	unsigned truncated = 0, cases = 0;

	for (int iter = 0; iter < 20000; iter++) {
		struct er_e820_entry in[16], t[16], ref[2 * SPACE];
		size_t n = rndn(13), nref;
		uint64_t base = bases[rndn(3)], unit = units[rndn(3)];
		bool nomerge_ok = rndn(4) == 0;

		for (size_t i = 0; i < n; i++) {
			unsigned a = rndn(SPACE), len = rndn(4) == 0 ? 0 : 1 + rndn(rndn(2) ? 6 : SPACE - a);
			if (a + len > SPACE)
				len = SPACE - a;
			in[i].addr = base + a * unit;
			in[i].size = (uint64_t)len * unit;
			do
				in[i].type = types[rndn(ER_ARRAY_SIZE(types))];
			while (!nomerge_ok && nomerge(in[i].type));
		}
		size_t nt = n, cap = 16;
		if (n >= 2 && rndn(5) == 0) {
			/* holes punched into one big entry: up to 2n-1 results, so a
			 * capacity just above n truncates (the kernel keeps the first) */
			in[0].addr = base;
			in[0].size = SPACE * unit;
			in[0].type = 1;
			cap = n + rndn(3);
		}
		memcpy(t, in, sizeof(in));
		int r = er_e820_sanitize(t, &nt, cap);
		cases++;
		if (n < 2) {
			assert_int_equal(r, ER_E820_UNCHANGED);
			assert_int_equal(nt, n);
			assert_memory_equal(t, in, n * sizeof(in[0]));
			continue;
		}
		nref = painter(in, n, base, unit, ref);
		if (nref > cap) {
			assert_int_equal(r, ER_E820_TRUNCATED);
			nref = cap;
			truncated++;
		} else {
			assert_int_equal(r, 0);
		}
		assert_table_equal(t, nt, ref, nref);

		/* idempotent */
		struct er_e820_entry again[16];
		size_t na = nt;
		memcpy(again, t, sizeof(t));
		r = er_e820_sanitize(again, &na, 16);
		assert_true(r == 0 || (nt < 2 && r == ER_E820_UNCHANGED));
		assert_table_equal(again, na, t, nt);
	}
	assert_true(truncated > 200);
	print_message("%u random tables, %u truncated\n", cases, truncated);
}

/* ---------------------------------------------------------- checksum */

static void test_checksum_vs_zlib(void **state)
{
	(void)state;
	uint8_t buf[4 + 20 * 64];

	/* empty table: CRC-32 of four zero bytes */
	assert_int_equal(er_e820_checksum(NULL, 0), 0x2144df1cu);
	assert_int_equal(er_e820_checksum(NULL, 0), (uint32_t)crc32(0, (const Bytef *)"\0\0\0\0", 4));

	for (int iter = 0; iter < 2000; iter++) {
		struct er_e820_entry t[64];
		size_t n = rndn(65);
		for (size_t i = 0; i < n; i++) {
			t[i].addr = rnd();
			t[i].size = rnd() >> rndn(64);
			t[i].type = (uint32_t)rnd();
		}
		/* the kernel's packed struct e820_table, written out byte by byte */
		uint8_t *p = buf;
		for (int k = 0; k < 4; k++)
			*p++ = (uint8_t)(n >> (8 * k));
		for (size_t i = 0; i < n; i++) {
			for (int k = 0; k < 8; k++)
				*p++ = (uint8_t)(t[i].addr >> (8 * k));
			for (int k = 0; k < 8; k++)
				*p++ = (uint8_t)(t[i].size >> (8 * k));
			for (int k = 0; k < 4; k++)
				*p++ = (uint8_t)(t[i].type >> (8 * k));
		}
		assert_int_equal(er_e820_checksum(t, n), (uint32_t)crc32(0, buf, (uInt)(p - buf)));
	}
}

/* --------------------------------------------------- raw map helper */

static void test_raw_bounds(void **state)
{
	(void)state;
	static uint8_t buf[MAXD * 64];
	struct er_e820_entry t[ER_E820_KERNEL_MIN_TABLE];
	size_t nt = 77, len = build_map(buf, ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 48);
	uint32_t crc = 0x1234;

	assert_int_equal(er_e820_table_from_efi_map(buf, len, 39, 1, 0, t, 131, &nt), ER_E820_E_DESC_SIZE);
	assert_int_equal(nt, 0);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 0, 1, 0, t, 131, &nt), ER_E820_E_DESC_SIZE);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 2, 0, t, 131, &nt), ER_E820_E_DESC_VERSION);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 0, 0, t, 131, &nt), ER_E820_E_DESC_VERSION);
	assert_int_equal(er_e820_table_from_efi_map(NULL, len, 48, 1, 0, t, 131, &nt), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 1, 0, NULL, 131, &nt), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 1, 0, t, 131, NULL), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, 0, NULL), ER_E820_E_INVALID_ARG);
	/* output too small for the 16-entry result */
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 1, 0, t, 15, &nt), ER_E820_E_TOO_MANY);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 1, 0, t, 16, &nt), 0);
	/* the stride is honoured: read with the wrong stride, it is another map */
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 40, 1, 0, &crc) == 0 && crc == CRC_X64, 0);
	/* no map, one entry: the kernel would fake a BIOS-e801 map */
	assert_int_equal(er_e820_checksum_from_efi_map(NULL, 0, 48, 1, 0, &crc), ER_E820_E_FEW_ENTRIES);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, 47, 48, 1, 0, &crc), ER_E820_E_FEW_ENTRIES);
	const struct er_efi_md two_ram[] = { { CONV, 0, 16, WB }, { BD, 0x10000, 16, WB } };
	len = build_map(buf, two_ram, 2, 48);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, 0, &crc), ER_E820_E_FEW_ENTRIES);
	const struct er_efi_md only_skipped[] = { { 0x70000000u, 0, 16, WB }, { ER_EFI_UNACCEPTED_MEMORY, 0x10000, 16, WB },
						  { CONV, 0x100000, 16, WB } };
	len = build_map(buf, only_skipped, 3, 48);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, 0, &crc), ER_E820_E_FEW_ENTRIES);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, ER_E820_F_UNACCEPTED_RAM, &crc), 0);
	/* an entry wrapping past 2^64 */
	const struct er_efi_md wrap[] = { { CONV, 0, 16, WB }, { RSV, 0xfffffffffff00000ull, 0x200, UC } };
	len = build_map(buf, wrap, 2, 48);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, 0, &crc), ER_E820_E_WRAP);
	/* ending exactly at 2^64 is accepted by the kernel's append but turns
	 * its sanitizer off: the table stays as the stub wrote it */
	const struct er_efi_md top[] = { { CONV, 0x100000, 16, WB }, { RSV, 0xfffffffffff00000ull, 0x100, UC },
					 { CONV, 0, 16, WB } };
	len = build_map(buf, top, 3, 48);
	assert_int_equal(er_e820_table_from_efi_map(buf, len, 48, 1, 0, t, 131, &nt), 0);
	assert_int_equal(nt, 3);
	assert_int_equal(t[0].addr, 0x100000);
	assert_int_equal(t[2].addr, 0);
}

/* More than 128 entries: boot_params part, then SETUP_E820_EXT. */
static void test_raw_extended(void **state)
{
	(void)state;
	static struct er_efi_md m[MAXD];
	struct er_e820_entry t[ER_E820_KERNEL_MIN_TABLE], conv[ER_E820_MAX];
	size_t nt, nc;
	uint32_t crc;

	/* n alternating RAM / reserved pages: n entries, no merging */
	for (size_t n = 126; n <= 133; n++) {
		for (size_t i = 0; i < n; i++)
			m[i] = (struct er_efi_md){ (i & 1) ? RSV : CONV, 0x100000 + i * 0x1000, 1, WB };
		int r = predict(m, n, 0, t, &nt, &crc);
		if (n <= ER_E820_KERNEL_MIN_TABLE) {
			assert_int_equal(r, 0);
			assert_int_equal(nt, n);
			assert_int_equal(er_e820_from_efi(m, n, conv, ER_E820_MAX, &nc), 0);
			assert_table_equal(t, nt, conv, nc);
		} else {
			assert_int_equal(r, ER_E820_E_TOO_MANY);
		}
	}

	/* The ext part is sanitized together with the already sanitized first
	 * part: unsorted RAM pieces in the first 128 merge first, so an SP
	 * range in the ext part covering them stays one soft-reserved entry,
	 * where a single pass would have split it. */
	size_t n = 0;
	m[n++] = (struct er_efi_md){ CONV, 0x2000, 2, WB };
	m[n++] = (struct er_efi_md){ CONV, 0x0000, 2, WB };
	for (size_t i = 0; n < 128; i++)
		m[n++] = (struct er_efi_md){ (i & 1) ? RSV : CONV, 0x100000 + i * 0x1000, 1, WB };
	m[n++] = (struct er_efi_md){ CONV, 0x0000, 4, WB | ER_EFI_MEMORY_SP };
	assert_int_equal(predict(m, n, 0, t, &nt, &crc), 0);
	assert_int_equal(t[0].addr, 0);
	assert_int_equal(t[0].size, 0x4000);
	assert_int_equal(t[0].type, ER_E820_SOFT_RESERVED);
	assert_int_equal(t[1].addr, 0x100000);
	assert_int_equal(nt, 127);
	/* single pass, for contrast */
	assert_int_equal(er_e820_from_efi(m, n, conv, ER_E820_MAX, &nc), 0);
	assert_int_equal(er_e820_sanitize(conv, &nc, ER_E820_MAX), 0);
	assert_int_equal(nc, 128);
	assert_int_equal(conv[1].addr, 0x2000);
	/* without soft reservation it is all RAM either way */
	assert_int_equal(predict(m, n, ER_E820_F_NO_SOFT_RESERVE, t, &nt, &crc), 0);
	assert_int_equal(t[0].size, 0x4000);
	assert_int_equal(t[0].type, ER_E820_RAM);
}

static void test_relevant_flags(void **state)
{
	(void)state;
	static uint8_t buf[MAXD * 64];
	static struct er_efi_md m[MAXD];
	uint32_t mask = 99, crc0, crc1;
	size_t len = build_map(buf, ovmf_x64_512, ER_ARRAY_SIZE(ovmf_x64_512), 48);

	/* real OVMF maps: no flag matters */
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, &mask), 0);
	assert_int_equal(mask, 0);
	for (uint32_t f = 0; f < 4; f++) {
		assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, f, &crc0), 0);
		assert_int_equal(crc0, CRC_X64);
	}
	len = build_map(buf, ovmf_ia32_512, ER_ARRAY_SIZE(ovmf_ia32_512), 48);
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, &mask), 0);
	assert_int_equal(mask, 0);

	/* SP on a RAM-class descriptor; SP on ACPI memory does not count */
	size_t n = ER_ARRAY_SIZE(ovmf_x64_512);
	memcpy(m, ovmf_x64_512, sizeof(ovmf_x64_512));
	for (size_t i = 0; i < n; i++)
		m[i].attr &= ~ER_EFI_MEMORY_SP;
	for (size_t i = 0; i < n; i++)
		if (m[i].type == ACPI)
			m[i].attr |= ER_EFI_MEMORY_SP;
	len = build_map(buf, m, n, 48);
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, &mask), 0);
	assert_int_equal(mask, 0);
	m[7].attr |= ER_EFI_MEMORY_SP;
	len = build_map(buf, m, n, 48);
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, &mask), 0);
	assert_int_equal(mask, ER_E820_F_NO_SOFT_RESERVE);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, 0, &crc0), 0);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, ER_E820_F_NO_SOFT_RESERVE, &crc1), 0);
	assert_int_not_equal(crc0, crc1);
	assert_int_equal(crc1, CRC_X64);

	/* unaccepted memory */
	m[7].attr &= ~ER_EFI_MEMORY_SP;
	m[7].type = ER_EFI_UNACCEPTED_MEMORY;
	len = build_map(buf, m, n, 48);
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, &mask), 0);
	assert_int_equal(mask, ER_E820_F_UNACCEPTED_RAM);
	assert_int_equal(er_e820_checksum_from_efi_map(buf, len, 48, 1, ER_E820_F_UNACCEPTED_RAM, &crc1), 0);
	assert_int_equal(crc1, CRC_X64);

	/* argument checks as for the table */
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 1, NULL), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_relevant_flags(NULL, len, 48, 1, &mask), ER_E820_E_INVALID_ARG);
	assert_int_equal(er_e820_relevant_flags(buf, len, 32, 1, &mask), ER_E820_E_DESC_SIZE);
	assert_int_equal(er_e820_relevant_flags(buf, len, 48, 3, &mask), ER_E820_E_DESC_VERSION);
	assert_int_equal(er_e820_relevant_flags(NULL, 0, 48, 1, &mask), 0);
	assert_int_equal(mask, 0);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = -8; e <= 3; e++)
		assert_non_null(er_e820_strerror(e));
	assert_string_equal(er_e820_strerror(ER_E820_E_DESC_SIZE), "EFI memory descriptor size too small");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ovmf_x64_real),
		cmocka_unit_test(test_ovmf_ia32_real),
		cmocka_unit_test(test_allocations_invisible),
		cmocka_unit_test(test_stub_types),
		cmocka_unit_test(test_stub_merge),
		cmocka_unit_test(test_sanitize_kernel_example),
		cmocka_unit_test(test_sanitize_unchanged),
		cmocka_unit_test(test_sanitize_nomerge),
		cmocka_unit_test(test_sanitize_random_vs_painter),
		cmocka_unit_test(test_checksum_vs_zlib),
		cmocka_unit_test(test_raw_bounds),
		cmocka_unit_test(test_raw_extended),
		cmocka_unit_test(test_relevant_flags),
		cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
