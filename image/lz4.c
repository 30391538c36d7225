// SPDX-License-Identifier: GPL-2.0-or-later
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
#include "image/lzcopy.h"

/* Length extension: add bytes while they are 255. Each byte adds at most 255,
 * so checking the bound after each addition cannot overflow. */
static inline int lz4_ext_len(const uint8_t **pip, const uint8_t *ip_end, size_t *len)
{
	const uint8_t *ip = *pip;
	size_t b;

	do {
		if (ER_UNLIKELY(ip >= ip_end))
			return ER_LZ4_E_INPUT_OVERRUN;
		b = *ip++;
		*len += b;
		if (ER_UNLIKELY(*len > (SIZE_MAX >> 2)))
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
		if (ER_LIKELY(lit != 15 && (size_t)(ip_end - ip) >= 16 && (size_t)(op_end - op) >= 32)) {
			er_copy8(op, ip);
			er_copy8(op + 8, ip + 8);
			op += lit;
			ip += lit;
			off = er_le16(ip);
			ip += 2;
			ml = token & 15;
			if (ER_LIKELY(ml != 15 && off >= 8 && off <= (size_t)(op - out))) {
				const uint8_t *m = op - off;
				er_copy8(op, m);
				er_copy8(op + 8, m + 8);
				er_copy2(op + 16, m + 16);
				op += ml + 4;
				goto next_token;
			}
			goto match;
		}

		if (lit == 15) {
			err = lz4_ext_len(&ip, ip_end, &lit);
			if (ER_UNLIKELY(err))
				goto fail;
		}
		if (ER_UNLIKELY(lit > (size_t)(ip_end - ip))) {
			err = ER_LZ4_E_INPUT_OVERRUN;
			goto fail;
		}
		if (ER_UNLIKELY(lit > (size_t)(op_end - op))) {
			err = ER_LZ4_E_OUTPUT_OVERRUN;
			goto fail;
		}
		if (ER_LIKELY((size_t)(ip_end - ip) >= lit + 16 && (size_t)(op_end - op) >= lit + 16)) {
			const uint8_t *const ie = ip + lit;
			uint8_t *const oe = op + lit;
			while (op < oe) {
				er_copy8(op, ip);
				er_copy8(op + 8, ip + 8);
				op += 16;
				ip += 16;
			}
			ip = ie;
			op = oe;
		} else {
			er_copy_exact(op, ip, lit);
			ip += lit;
			op += lit;
		}

		if (ip == ip_end)
			break; /* last sequence: literals only */
		if (ER_UNLIKELY((size_t)(ip_end - ip) < 2)) {
			err = ER_LZ4_E_INPUT_OVERRUN;
			goto fail;
		}
		off = er_le16(ip);
		ip += 2;
		ml = token & 15;

match:
		if (ER_UNLIKELY(off == 0)) {
			err = ER_LZ4_E_ERROR;
			goto fail;
		}
		if (ER_UNLIKELY(off > (size_t)(op - out))) {
			err = ER_LZ4_E_LOOKBEHIND;
			goto fail;
		}
		if (ml == 15) {
			err = lz4_ext_len(&ip, ip_end, &ml);
			if (ER_UNLIKELY(err))
				goto fail;
		}
		ml += 4;
		if (ER_LIKELY((size_t)(op_end - op) >= ml + 16)) {
			er_match_wild(op, off, ml);
			op += ml;
		} else {
			if (ER_UNLIKELY(ml > (size_t)(op_end - op))) {
				err = ER_LZ4_E_OUTPUT_OVERRUN;
				goto fail;
			}
			er_match_exact(op, off, ml);
			op += ml;
		}

next_token:
		/* A block must end with a literals-only sequence. */
		if (ER_UNLIKELY(ip >= ip_end)) {
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
