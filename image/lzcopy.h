// SPDX-License-Identifier: GPL-2.0-or-later
/* Word-at-a-time copy helpers shared by the LZO and LZ4 decompressors (image/lzo.c,
 * image/lz4.c): unaligned loads and stores, and overlapping match copies. Internal. */
#ifndef EFIRESUME_IMAGE_LZCOPY_H
#define EFIRESUME_IMAGE_LZCOPY_H

#include "image/freestanding.h"

/* Unaligned, alias-anything word types: loads and stores through them compile
 * to plain moves (never a memcpy call) and may overlap any other access (a
 * member access through a may_alias struct is not enough for GCC). */
typedef uint64_t er_una64 __attribute__((may_alias, aligned(1)));
typedef uint32_t er_una32 __attribute__((may_alias, aligned(1)));
typedef uint16_t er_una16 __attribute__((may_alias, aligned(1)));

static inline __attribute__((always_inline)) void er_copy8(uint8_t *d, const uint8_t *s)
{
	*(er_una64 *)d = *(const er_una64 *)s;
}
static inline __attribute__((always_inline)) void er_copy4(uint8_t *d, const uint8_t *s)
{
	*(er_una32 *)d = *(const er_una32 *)s;
}
static inline __attribute__((always_inline)) void er_copy2(uint8_t *d, const uint8_t *s)
{
	*(er_una16 *)d = *(const er_una16 *)s;
}

#define ER_LIKELY(x)   __builtin_expect(!!(x), 1)
#define ER_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* For an overlapping match with distance d < 8: the smallest multiple of d >= 8.
 * After the first 8 bytes are copied byte by byte, the rest can be copied
 * 8 bytes at a time from that (equivalent, periodic) distance. */
static const uint8_t er_overlap_step[8] = { 0, 8, 8, 9, 8, 10, 12, 14 };

/* Shift turning a distance d (d & 7 != 0) into lcm(d, 8) = d << shift[d & 7]. */
static const uint8_t er_lcm8_shift[8] = { 0, 3, 2, 3, 1, 3, 2, 3 };

/* Copy a match of len >= 1 bytes from op - dist (1 <= dist <= bytes already
 * written). May write up to 15 bytes past op + len: the caller guarantees
 * len + 16 bytes of room at op. */
static inline __attribute__((always_inline)) void er_match_wild(uint8_t *op, size_t dist, size_t len)
{
	const uint8_t *m = op - dist;
	uint8_t *const start = op, *const oe = op + len;

	if (ER_LIKELY(dist >= 16) && ((dist & 7) == 0 || len < 64 || dist >= 128)) {
		do {
			er_copy8(op, m);
			er_copy8(op + 8, m + 8);
			op += 16;
			m += 16;
		} while (op < oe);
		return;
	}
	if ((dist & (dist - 1)) == 0) {
		/* period 1, 2, 4 or 8 (runs of zeros): store one replicated word */
		uint64_t v;
		if (dist == 1)
			v = 0x0101010101010101ull * m[0];
		else if (dist == 2)
			v = 0x0001000100010001ull * *(const er_una16 *)m;
		else if (dist == 4)
			v = 0x0000000100000001ull * *(const er_una32 *)m;
		else
			v = *(const er_una64 *)m;
		do {
			*(er_una64 *)op = v;
			*(er_una64 *)(op + 8) = v;
			op += 16;
		} while (op < oe);
		return;
	}
	if (dist < 8) {
		op[0] = m[0]; op[1] = m[1]; op[2] = m[2]; op[3] = m[3];
		op[4] = m[4]; op[5] = m[5]; op[6] = m[6]; op[7] = m[7];
		m = op + 8 - er_overlap_step[dist];
		op += 8;
	}
	/* Here op - m >= 8 (a multiple of dist) and op - start is a multiple of 8. */
	if (len >= 64 && (dist & 7) != 0) {
		/* A long match whose period is not a multiple of 8: every 8-byte load
		 * would straddle two recent stores, which store forwarding cannot
		 * serve (~1 GB/s). Once lcm(dist, 8) - dist bytes exist, copy from
		 * D = lcm(dist, 8) back instead: each load then reads exactly one
		 * earlier 8-byte store, D / 8 stores back. */
		size_t D = dist << er_lcm8_shift[dist & 7];
		while (op < oe && (size_t)(op - start) < D - dist) {
			er_copy8(op, m);
			op += 8;
			m += 8;
		}
		m = op - D;
		while (op < oe) {
			er_copy8(op, m);
			er_copy8(op + 8, m + 8);
			op += 16;
			m += 16;
		}
		return;
	}
	while (op < oe) {
		er_copy8(op, m);
		op += 8;
		m += 8;
	}
}

/* Same, near the end of the output: writes exactly len bytes (room >= len). */
static inline void er_match_exact(uint8_t *op, size_t dist, size_t len)
{
	const uint8_t *m;

	if (len > 32) {
		/* all but the last 16 bytes the fast way: its overshoot stays below op + len */
		er_match_wild(op, dist, len - 16);
		op += len - 16;
		len = 16;
	}
	m = op - dist;
	do
		*op++ = *m++;
	while (--len > 0);
}

/* Copy n non-overlapping bytes exactly (no overshoot), 16 at a time then bytewise. */
static inline void er_copy_exact(uint8_t *d, const uint8_t *s, size_t n)
{
	for (; n >= 16; n -= 16, d += 16, s += 16) {
		er_copy8(d, s);
		er_copy8(d + 8, s + 8);
	}
	while (n > 0) {
		*d++ = *s++;
		n--;
	}
}

#endif
