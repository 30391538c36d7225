// SPDX-License-Identifier: GPL-2.0-or-later
/* Predicting the e820 checksum a Linux x86 hibernation image carries.
 *
 * The image header's restore_data_record holds e820_checksum, a CRC-32 of the
 * hibernated kernel's e820_table_firmware: the e820 table its EFI stub built
 * from the firmware's EFI memory map at that kernel's boot, after the kernel's
 * own sanitizer (sort, overlap resolution, merge). The kernel that normally
 * loads an image recomputes it from its own boot and refuses a mismatch
 * ("Hibernate inconsistent memory map detected!"); efiresume stands in for that
 * kernel, so it computes the same value from the EFI memory map it sees.
 *
 * This module reproduces, step by step and for Linux 6.1 and 6.12 alike:
 *   1. the EFI stub's setup_e820() conversion (er_e820_from_efi*),
 *   2. the kernel's e820__update_table() sanitizer (er_e820_sanitize),
 *   3. how e820__memory_setup() / e820__memory_setup_extended() build
 *      e820_table_firmware from boot_params and SETUP_E820_EXT (the
 *      er_e820_*_from_efi_map helpers), and
 *   4. compute_e820_crc32() (er_e820_checksum).
 * The sources and the reasoning are in the comment at the top of e820.c.
 *
 * Pure, freestanding, no allocation, no mutable globals. The scratch arrays
 * live on the stack: about 20 KiB for er_e820_checksum_from_efi_map, the
 * largest call (UEFI guarantees at least 128 KiB of stack).
 */
#ifndef EFIRESUME_IMAGE_E820_H
#define EFIRESUME_IMAGE_E820_H

#include "image/freestanding.h"

/* e820 types (arch/x86/include/asm/e820/types.h). */
#define ER_E820_RAM            1u
#define ER_E820_RESERVED       2u
#define ER_E820_ACPI           3u
#define ER_E820_NVS            4u
#define ER_E820_UNUSABLE       5u
#define ER_E820_PMEM           7u
#define ER_E820_PRAM          12u
#define ER_E820_SOFT_RESERVED  0xefffffffu

/* EFI memory types (UEFI spec 7.2, "EFI_MEMORY_TYPE"). */
#define ER_EFI_RESERVED_TYPE              0u
#define ER_EFI_LOADER_CODE                1u
#define ER_EFI_LOADER_DATA                2u
#define ER_EFI_BOOT_SERVICES_CODE         3u
#define ER_EFI_BOOT_SERVICES_DATA         4u
#define ER_EFI_RUNTIME_SERVICES_CODE      5u
#define ER_EFI_RUNTIME_SERVICES_DATA      6u
#define ER_EFI_CONVENTIONAL_MEMORY        7u
#define ER_EFI_UNUSABLE_MEMORY            8u
#define ER_EFI_ACPI_RECLAIM_MEMORY        9u
#define ER_EFI_ACPI_MEMORY_NVS           10u
#define ER_EFI_MEMORY_MAPPED_IO          11u
#define ER_EFI_MEMORY_MAPPED_IO_PORT     12u
#define ER_EFI_PAL_CODE                  13u
#define ER_EFI_PERSISTENT_MEMORY         14u
#define ER_EFI_UNACCEPTED_MEMORY         15u

#define ER_EFI_MEMORY_SP          0x40000ull /* EFI_MEMORY_SP: specific-purpose memory */
#define ER_EFI_MEMORY_DESC_VERSION 1u        /* EFI_MEMORY_DESCRIPTOR_VERSION */
#define ER_EFI_MEMORY_DESC_MIN    40u        /* sizeof(EFI_MEMORY_DESCRIPTOR) in spec 2.x */

/* Capacity of every table this module handles; larger inputs are refused. */
#define ER_E820_MAX 256
/* Entries that fit in boot_params.e820_table (E820_MAX_ENTRIES_ZEROPAGE);
 * the EFI stub puts the rest in a SETUP_E820_EXT setup_data node. */
#define ER_E820_ZEROPAGE 128
/* The kernel's struct e820_table holds E820_MAX_ENTRIES = 128 + 3*MAX_NUMNODES
 * entries: 131 for a kernel without NUMA, 320 for NODES_SHIFT=6, 3200 for 10.
 * Beyond what the table holds the kernel silently drops entries, so the result
 * depends on the image kernel's configuration; the prediction is only exact
 * while everything fits the smallest configuration. */
#define ER_E820_KERNEL_MIN_TABLE 131

/* Plain copy of an EFI memory descriptor (the fields setup_e820 reads). */
struct er_efi_md {
	uint32_t type;
	uint64_t phys;  /* PhysicalStart */
	uint64_t pages; /* NumberOfPages (4 KiB) */
	uint64_t attr;  /* Attribute */
};

/* struct e820_entry / boot_e820_entry (20 bytes packed on the wire). */
struct er_e820_entry {
	uint64_t addr, size;
	uint32_t type;
};

/* Results. Negative: refused, nothing predicted. Positive: informational
 * results of er_e820_sanitize, mirroring the kernel. */
#define ER_E820_OK                 0
#define ER_E820_E_INVALID_ARG    (-1) /* NULL pointer, n > cap, cap > ER_E820_MAX */
#define ER_E820_E_TOO_MANY       (-2) /* more entries than fit (ours or the kernel's smallest table) */
#define ER_E820_E_DESC_SIZE      (-3) /* descriptor size smaller than an EFI_MEMORY_DESCRIPTOR */
#define ER_E820_E_DESC_VERSION   (-4) /* descriptor version is not 1 */
#define ER_E820_E_FEW_ENTRIES    (-5) /* < 2 entries in boot_params: the kernel fakes a BIOS-e801 map */
#define ER_E820_E_WRAP           (-6) /* an entry wraps past 2^64: the kernel fakes a map or drops entries */
#define ER_E820_UNCHANGED          1  /* e820__update_table returned -1: table left exactly as it was */
#define ER_E820_TRUNCATED          2  /* sanitized result had more than cap entries; kept the first cap */

/* Options describing the image kernel's configuration. They only matter
 * when the map has EFI_MEMORY_SP on RAM-class descriptors or unaccepted
 * memory (er_e820_relevant_flags tells); otherwise every combination gives
 * the same table. Examples: Debian 6.1/6.12 cloud-amd64 have
 * CONFIG_EFI_SOFT_RESERVE=y, 6.12 also CONFIG_UNACCEPTED_MEMORY=y; Debian
 * 6.1 686 has neither (and no NUMA: E820_MAX_ENTRIES = 131). The image header
 * does not say which kernel wrote it, so a loader that finds a relevant flag
 * can try each combination and accept a match with any. */
#define ER_E820_F_NO_SOFT_RESERVE 0x1u /* CONFIG_EFI_SOFT_RESERVE=n or efi=nosoftreserve:
                                        * EFI_MEMORY_SP RAM stays E820 RAM */
#define ER_E820_F_UNACCEPTED_RAM  0x2u /* >= 6.5 with CONFIG_UNACCEPTED_MEMORY=y: EFI
                                        * unaccepted memory becomes RAM (6.1: skipped) */

/* EFI stub conversion, exactly as drivers/firmware/efi/libstub/x86-stub.c
 * setup_e820(): descriptor by descriptor in map order, types mapped, a
 * descriptor merged into the previous *emitted* entry when that has the same
 * e820 type and ends exactly where the descriptor starts; sizes are
 * pages << 12 modulo 2^64 like the stub's. Writes at most cap entries; returns
 * ER_E820_E_TOO_MANY if more are needed. The _ex form takes ER_E820_F_* flags. */
int er_e820_from_efi(const struct er_efi_md *md, size_t n, struct er_e820_entry *out, size_t cap, size_t *out_n);
int er_e820_from_efi_ex(const struct er_efi_md *md, size_t n, uint32_t flags, struct er_e820_entry *out,
			size_t cap, size_t *out_n);

/* e820__update_table() semantics with a table capacity of cap entries
 * (cap <= ER_E820_MAX, *n <= cap):
 *  - fewer than 2 entries, or any entry with addr + size wrapping past 2^64
 *    (an entry ending exactly at 2^64 included): ER_E820_UNCHANGED, the table
 *    is left untouched (unsorted, zero-size entries kept);
 *  - otherwise: zero-size entries dropped, overlaps resolved in favour of the
 *    numerically highest type, sorted by address, neighbours of the same type
 *    merged except PRAM and SOFT_RESERVED (which are split at every boundary
 *    of any input entry inside them); returns ER_E820_OK, or ER_E820_TRUNCATED
 *    when the result would exceed cap entries (then the first cap are kept,
 *    as the kernel does). */
int er_e820_sanitize(struct er_e820_entry *t, size_t *n, size_t cap);

/* compute_e820_crc32(): zlib CRC-32 of { u32 nr_entries; n x { u64 addr;
 * u64 size; u32 type } } little endian, packed. */
uint32_t er_e820_checksum(const struct er_e820_entry *t, size_t n);

/* The whole prediction from a raw GetMemoryMap() buffer: map_size bytes of
 * descriptors desc_size apart (desc_size >= 40, version 1; a trailing partial
 * descriptor is ignored, as the stub's map_size / desc_size does). Builds
 * e820_table_firmware the way the image kernel did (boot_params part
 * sanitized first, then the SETUP_E820_EXT part appended and the whole table
 * sanitized again) and returns it in out (cap >= ER_E820_KERNEL_MIN_TABLE
 * is always enough). Refuses (negative) whenever the kernel would have
 * faked, dropped or truncated entries, since the result would then depend on
 * its configuration. */
int er_e820_table_from_efi_map(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
			       uint32_t flags, struct er_e820_entry *out, size_t cap, size_t *out_n);

/* Same, returning only the checksum the image header should carry. */
int er_e820_checksum_from_efi_map(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
				  uint32_t flags, uint32_t *crc);

/* Which ER_E820_F_* flags can change the result for this map (same
 * argument checks as er_e820_table_from_efi_map): ER_E820_F_NO_SOFT_RESERVE
 * if a RAM-class descriptor has EFI_MEMORY_SP, ER_E820_F_UNACCEPTED_RAM if
 * there is unaccepted memory. */
int er_e820_relevant_flags(const void *map, size_t map_size, size_t desc_size, uint32_t desc_version,
			   uint32_t *mask);

/* Static description of an ER_E820_* result (never NULL). */
const char *er_e820_strerror(int err);

#endif
