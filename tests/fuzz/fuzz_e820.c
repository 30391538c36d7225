// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for image/e820.c.
 *
 * Input byte 0 selects the mode:
 *  even: the raw GetMemoryMap() helper. Bytes 1..3 pick the descriptor size
 *        (40/48/56/64 or any value), the version and the ER_E820_F_* flags;
 *        the rest is the map. Checked: never a positive result; on success
 *        at most ER_E820_KERNEL_MIN_TABLE entries (possibly fewer than 2: the
 *        kernel only checks the count before sanitizing), the checksum helper
 *        agrees, the table is sorted, non-overlapping, without empty entries
 *        or touching neighbours of one mergeable type (unless an entry ends
 *        at 2^64, which switches the kernel's sanitizer off), and sanitizing
 *        it again changes nothing; flags er_e820_relevant_flags calls
 *        irrelevant do not change the result.
 *  odd:  er_e820_sanitize on a small table built from the input (3 bytes per
 *        entry in a 48-unit address space, capacity n + byte 1 % 4),
 *        compared with a per-unit painter ("highest type wins", then run
 *        length encoding; nomerge types split at every input boundary).
 * ASan/UBSan catch out-of-bounds accesses (the map is an exactly sized heap
 * copy of the input). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/e820.h"

static bool nomerge(uint32_t t)
{
	return t == ER_E820_PRAM || t == ER_E820_SOFT_RESERVED;
}

/* field by field: the structs have padding */
static bool same(const struct er_e820_entry *a, const struct er_e820_entry *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].addr != b[i].addr || a[i].size != b[i].size || a[i].type != b[i].type)
			return false;
	return true;
}

static void check_table(const struct er_e820_entry *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].addr + t[i].size < t[i].addr)
			return; /* sanitizer was off: the stub's order stands */
	for (size_t i = 0; i < n; i++) {
		if (t[i].size == 0 || t[i].type == 0)
			abort();
		if (i > 0) {
			uint64_t prev_end = t[i - 1].addr + t[i - 1].size;
			if (prev_end > t[i].addr)
				abort();
			if (prev_end == t[i].addr && t[i - 1].type == t[i].type && !nomerge(t[i].type))
				abort();
		}
	}
	struct er_e820_entry again[ER_E820_KERNEL_MIN_TABLE];
	size_t na = n;
	memcpy(again, t, n * sizeof(*t));
	int r = er_e820_sanitize(again, &na, ER_E820_KERNEL_MIN_TABLE);
	if (n >= 2 ? r != ER_E820_OK : r != ER_E820_UNCHANGED)
		abort();
	if (na != n || !same(again, t, n))
		abort();
}

static void raw_mode(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = { 40, 48, 56, 64 };
	if (size < 4)
		return;
	size_t desc_size = (data[1] & 0x80) ? data[1] : sizes[data[1] & 3];
	uint32_t version = (data[2] & 0xf0) ? data[2] : 1;
	uint32_t flags = data[3];
	size_t len = size - 4;
	uint8_t *map = malloc(len ? len : 1);
	if (!map)
		return;
	memcpy(map, data + 4, len);

	struct er_e820_entry t[ER_E820_KERNEL_MIN_TABLE];
	size_t n = (size_t)-1;
	uint32_t crc = 0;
	int r = er_e820_table_from_efi_map(len ? map : NULL, len, desc_size, version, flags, t,
					   ER_E820_KERNEL_MIN_TABLE, &n);
	int r2 = er_e820_checksum_from_efi_map(len ? map : NULL, len, desc_size, version, flags, &crc);
	uint32_t mask = 0xdead;
	int r3 = er_e820_relevant_flags(len ? map : NULL, len, desc_size, version, &mask);
	if (r > 0 || r != r2 || er_e820_strerror(r) == NULL)
		abort();
	if (r3 > 0 || (r3 < 0 && r3 != r) || (r3 == ER_E820_OK && (mask & ~3u)))
		abort();
	if (r3 == ER_E820_OK && !(mask & flags & 3u) && (flags & 3u)) {
		/* flags that do not matter for this map do not change the result */
		uint32_t crc0 = 0;
		if (er_e820_checksum_from_efi_map(len ? map : NULL, len, desc_size, version, flags & ~3u, &crc0) != r ||
		    (r == ER_E820_OK && crc0 != crc))
			abort();
	}
	if (r == ER_E820_OK) {
		if (n > ER_E820_KERNEL_MIN_TABLE || crc != er_e820_checksum(t, n))
			abort();
		check_table(t, n);
	} else if (n != 0) {
		abort();
	}
	free(map);
}

#define SPACE 48
static void sanitize_mode(const uint8_t *data, size_t size)
{
	static const uint32_t types[] = { 1, 2, 3, 4, 5, 7, 12, 128, 0x80000000u, ER_E820_SOFT_RESERVED, 1, 2 };
	struct er_e820_entry in[20], t[20], ref[2 * SPACE];
	uint32_t type[SPACE] = { 0 };
	bool edge[SPACE + 1] = { false };
	size_t n = 0, nref = 0;

	if (size < 2)
		return;
	for (size_t i = 2; i + 3 <= size && n < 16; i += 3, n++) {
		unsigned a = data[i] % SPACE, len = data[i + 1] % (SPACE - a + 1);
		in[n].addr = (uint64_t)a << 12;
		in[n].size = (uint64_t)len << 12;
		in[n].type = types[data[i + 2] % (sizeof(types) / sizeof(types[0]))];
	}
	size_t cap = n + (data[1] & 3), nt = n;
	memcpy(t, in, n * sizeof(in[0]));
	int r = er_e820_sanitize(t, &nt, cap);
	if (n < 2) {
		if (r != ER_E820_UNCHANGED || nt != n || !same(t, in, n))
			abort();
		return;
	}

	for (size_t i = 0; i < n; i++) {
		if (!in[i].size)
			continue;
		uint64_t a = in[i].addr >> 12, b = a + (in[i].size >> 12);
		edge[a] = edge[b] = true;
		for (uint64_t p = a; p < b; p++)
			if (in[i].type > type[p])
				type[p] = in[i].type;
	}
	bool open = false;
	for (size_t p = 0; p < SPACE; p++) {
		if (!type[p]) {
			open = false;
			continue;
		}
		if (open && ref[nref - 1].type == type[p] && !(nomerge(type[p]) && edge[p])) {
			ref[nref - 1].size += 0x1000;
			continue;
		}
		ref[nref].addr = (uint64_t)p << 12;
		ref[nref].size = 0x1000;
		ref[nref].type = type[p];
		nref++;
		open = true;
	}
	if (nref > cap) {
		if (r != ER_E820_TRUNCATED)
			abort();
		nref = cap;
	} else if (r != ER_E820_OK) {
		abort();
	}
	if (nt != nref || !same(t, ref, nref))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		sanitize_mode(data, size);
	else
		raw_mode(data, size);
	return 0;
}
