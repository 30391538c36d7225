/* LZ4 block decompressor: freestanding, bounds-checked on every path.
 *
 * Block format: a sequence of "sequences", each
 *   token (hi nibble: literal length, lo nibble: match length - 4),
 *   [literal length extension: bytes added while == 255], literals,
 *   offset (LE16, 1..65535), [match length extension],
 * and the last sequence stops right after its literals (end of input).
 *
 * A two-stage fast path handles the common short sequence when both buffers
 * have plenty of room left (copying 16 literal bytes and 18 match bytes
 * unconditionally); the general path checks each length before copying and
 * switches to exact-length copies near the ends of the buffers.
 */
#include "image/lz4.h"

/* Unaligned, alias-anything word types: loads and stores through them compile
 * to plain moves (never a memcpy call) and may overlap any other access (a
 * member access through a may_alias struct is not enough for GCC). */
typedef uint64_t lz4_una64 __attribute__((may_alias, aligned(1)));
typedef uint32_t lz4_una32 __attribute__((may_alias, aligned(1)));
typedef uint16_t lz4_una16 __attribute__((may_alias, aligned(1)));

static inline __attribute__((always_inline)) void lz4_copy8(uint8_t *d, const uint8_t *s)
{
	*(lz4_una64 *)d = *(const lz4_una64 *)s;
}
static inline __attribute__((always_inline)) void lz4_copy2(uint8_t *d, const uint8_t *s)
{
	*(lz4_una16 *)d = *(const lz4_una16 *)s;
}

#define LZ4_LIKELY(x)   __builtin_expect(!!(x), 1)
#define LZ4_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* For an overlapping match with distance d < 8: the smallest multiple of d >= 8.
 * After the first 8 bytes are copied byte by byte, the rest can be copied
 * 8 bytes at a time from that (equivalent, periodic) distance. */
static const uint8_t lz4_overlap_step[8] = { 0, 8, 8, 9, 8, 10, 12, 14 };

/* Shift turning a distance d (d & 7 != 0) into lcm(d, 8) = d << shift[d & 7]. */
static const uint8_t lz4_lcm8_shift[8] = { 0, 3, 2, 3, 1, 3, 2, 3 };

/* Copy a match of len >= 1 bytes from op - dist (1 <= dist <= bytes already
 * written). May write up to 15 bytes past op + len: the caller guarantees
 * len + 16 bytes of room at op. */
static inline __attribute__((always_inline)) void lz4_match_wild(uint8_t *op, size_t dist, size_t len)
{
	const uint8_t *m = op - dist;
	uint8_t *const start = op, *const oe = op + len;

	if (LZ4_LIKELY(dist >= 16) && ((dist & 7) == 0 || len < 64 || dist >= 128)) {
		do {
			lz4_copy8(op, m);
			lz4_copy8(op + 8, m + 8);
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
			v = 0x0001000100010001ull * *(const lz4_una16 *)m;
		else if (dist == 4)
			v = 0x0000000100000001ull * *(const lz4_una32 *)m;
		else
			v = *(const lz4_una64 *)m;
		do {
			*(lz4_una64 *)op = v;
			*(lz4_una64 *)(op + 8) = v;
			op += 16;
		} while (op < oe);
		return;
	}
	if (dist < 8) {
		op[0] = m[0]; op[1] = m[1]; op[2] = m[2]; op[3] = m[3];
		op[4] = m[4]; op[5] = m[5]; op[6] = m[6]; op[7] = m[7];
		m = op + 8 - lz4_overlap_step[dist];
		op += 8;
	}
	/* Here op - m >= 8 (a multiple of dist) and op - start is a multiple of 8. */
	if (len >= 64 && (dist & 7) != 0) {
		/* A long match whose period is not a multiple of 8: every 8-byte load
		 * would straddle two recent stores, which store forwarding cannot
		 * serve (~1 GB/s). Once lcm(dist, 8) - dist bytes exist, copy from
		 * D = lcm(dist, 8) back instead: each load then reads exactly one
		 * earlier 8-byte store, D / 8 stores back. */
		size_t D = dist << lz4_lcm8_shift[dist & 7];
		while (op < oe && (size_t)(op - start) < D - dist) {
			lz4_copy8(op, m);
			op += 8;
			m += 8;
		}
		m = op - D;
		while (op < oe) {
			lz4_copy8(op, m);
			lz4_copy8(op + 8, m + 8);
			op += 16;
			m += 16;
		}
		return;
	}
	while (op < oe) {
		lz4_copy8(op, m);
		op += 8;
		m += 8;
	}
}

/* Same, near the end of the output: writes exactly len bytes (room >= len). */
static inline void lz4_match_exact(uint8_t *op, size_t dist, size_t len)
{
	const uint8_t *m;

	if (len > 32) {
		/* all but the last 16 bytes the fast way: its overshoot stays below op + len */
		lz4_match_wild(op, dist, len - 16);
		op += len - 16;
		len = 16;
	}
	m = op - dist;
	do
		*op++ = *m++;
	while (--len > 0);
}

/* Copy n non-overlapping bytes exactly (no overshoot), 16 at a time then bytewise. */
static inline void lz4_copy_exact(uint8_t *d, const uint8_t *s, size_t n)
{
	for (; n >= 16; n -= 16, d += 16, s += 16) {
		lz4_copy8(d, s);
		lz4_copy8(d + 8, s + 8);
	}
	while (n > 0) {
		*d++ = *s++;
		n--;
	}
}

/* Length extension: add bytes while they are 255. Each byte adds at most 255,
 * so checking the bound after each addition cannot overflow. */
static inline int lz4_ext_len(const uint8_t **pip, const uint8_t *ip_end, size_t *len)
{
	const uint8_t *ip = *pip;
	size_t b;

	do {
		if (LZ4_UNLIKELY(ip >= ip_end))
			return ER_LZ4_E_INPUT_OVERRUN;
		b = *ip++;
		*len += b;
		if (LZ4_UNLIKELY(*len > (SIZE_MAX >> 2)))
			return ER_LZ4_E_ERROR;
	} while (b == 255);
	*pip = ip;
	return ER_LZ4_E_OK;
}

int er_lz4_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len)
{
	const uint8_t *ip, *ip_end;
	uint8_t *op, *op_end;
	int err;

	if (!out_len)
		return ER_LZ4_E_INVALID_ARG;
	*out_len = 0;
	if (!in || !out)
		return ER_LZ4_E_INVALID_ARG;

	ip = in;
	ip_end = in + in_len;
	op = out;
	op_end = out + out_cap;

	if (in_len == 0)
		return ER_LZ4_E_INPUT_OVERRUN;

	for (;;) {
		size_t token, lit, ml, off;

		/* ip < ip_end here */
		token = *ip++;
		lit = token >> 4;

		/* Fast path: short literals, room for 16 + 2 input and 32 output bytes. */
		if (LZ4_LIKELY(lit != 15 && (size_t)(ip_end - ip) >= 16 && (size_t)(op_end - op) >= 32)) {
			lz4_copy8(op, ip);
			lz4_copy8(op + 8, ip + 8);
			op += lit;
			ip += lit;
			off = er_le16(ip);
			ip += 2;
			ml = token & 15;
			if (LZ4_LIKELY(ml != 15 && off >= 8 && off <= (size_t)(op - out))) {
				const uint8_t *m = op - off;
				lz4_copy8(op, m);
				lz4_copy8(op + 8, m + 8);
				lz4_copy2(op + 16, m + 16);
				op += ml + 4;
				goto next_token;
			}
			goto match;
		}

		if (lit == 15) {
			err = lz4_ext_len(&ip, ip_end, &lit);
			if (LZ4_UNLIKELY(err))
				goto fail;
		}
		if (LZ4_UNLIKELY(lit > (size_t)(ip_end - ip))) {
			err = ER_LZ4_E_INPUT_OVERRUN;
			goto fail;
		}
		if (LZ4_UNLIKELY(lit > (size_t)(op_end - op))) {
			err = ER_LZ4_E_OUTPUT_OVERRUN;
			goto fail;
		}
		if (LZ4_LIKELY((size_t)(ip_end - ip) >= lit + 16 && (size_t)(op_end - op) >= lit + 16)) {
			const uint8_t *const ie = ip + lit;
			uint8_t *const oe = op + lit;
			while (op < oe) {
				lz4_copy8(op, ip);
				lz4_copy8(op + 8, ip + 8);
				op += 16;
				ip += 16;
			}
			ip = ie;
			op = oe;
		} else {
			lz4_copy_exact(op, ip, lit);
			ip += lit;
			op += lit;
		}

		if (ip == ip_end)
			break; /* last sequence: literals only */
		if (LZ4_UNLIKELY((size_t)(ip_end - ip) < 2)) {
			err = ER_LZ4_E_INPUT_OVERRUN;
			goto fail;
		}
		off = er_le16(ip);
		ip += 2;
		ml = token & 15;

match:
		if (LZ4_UNLIKELY(off == 0)) {
			err = ER_LZ4_E_ERROR;
			goto fail;
		}
		if (LZ4_UNLIKELY(off > (size_t)(op - out))) {
			err = ER_LZ4_E_LOOKBEHIND;
			goto fail;
		}
		if (ml == 15) {
			err = lz4_ext_len(&ip, ip_end, &ml);
			if (LZ4_UNLIKELY(err))
				goto fail;
		}
		ml += 4;
		if (LZ4_LIKELY((size_t)(op_end - op) >= ml + 16)) {
			lz4_match_wild(op, off, ml);
			op += ml;
		} else {
			if (LZ4_UNLIKELY(ml > (size_t)(op_end - op))) {
				err = ER_LZ4_E_OUTPUT_OVERRUN;
				goto fail;
			}
			lz4_match_exact(op, off, ml);
			op += ml;
		}

next_token:
		/* A block must end with a literals-only sequence. */
		if (LZ4_UNLIKELY(ip >= ip_end)) {
			err = ER_LZ4_E_INPUT_OVERRUN;
			goto fail;
		}
	}

	*out_len = (size_t)(op - out);
	return ER_LZ4_E_OK;

fail:
	*out_len = (size_t)(op - out);
	return err;
}

const char *er_lz4_strerror(int err)
{
	switch (err) {
	case ER_LZ4_E_OK:             return "success";
	case ER_LZ4_E_ERROR:          return "malformed LZ4 block";
	case ER_LZ4_E_INPUT_OVERRUN:  return "LZ4 input overrun (truncated block)";
	case ER_LZ4_E_OUTPUT_OVERRUN: return "LZ4 output overrun (output buffer too small)";
	case ER_LZ4_E_LOOKBEHIND:     return "LZ4 offset points before the output start";
	case ER_LZ4_E_INVALID_ARG:    return "LZ4 invalid argument";
	default:                      return "unknown LZ4 error";
	}
}
