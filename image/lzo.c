// SPDX-License-Identifier: GPL-2.0-or-later
/* LZO1X decompressor: freestanding, bounds-checked on every path.
 *
 * Bitstream (LZO1X, see lzo1x_d.ch / the kernel's Documentation/staging/lzo.rst):
 * the stream is a sequence of instructions, each a byte T followed by operands.
 * A "state" remembers how many literals followed the previous instruction
 * (0, 1..3, or 4 meaning "a run of >= 4 literals"), which changes the meaning of
 * T < 16.
 *
 *   T = 0..15, state 0     literal run of T+3 bytes (T == 0: extended length)
 *   T = 0..15, state 1..3  2-byte match, distance 1 + (T>>2) + (B<<2)
 *   T = 0..15, state 4     3-byte match, distance 2049 + (T>>2) + (B<<2)
 *   T = 16..31             M4: length (T&7)+2, distance 16384 + ((T&8)<<11) + (LE16>>2)
 *                          (distance exactly 16384 = end of stream)
 *   T = 32..63             M3: length (T&31)+2, distance 1 + (LE16>>2)
 *   T = 64..255            M2: length (T>>5)+1, distance 1 + ((T>>2)&7) + (B<<3)
 *
 * Every match carries 0..3 trailing literal bytes (low 2 bits of T or of the
 * LE16 operand); that count becomes the next state. A first byte > 17 is an
 * initial literal run of (byte - 17) bytes. An extended length is a run of zero
 * bytes (255 each) ended by a non-zero byte.
 *
 * Safety: every valid stream ends with the 3-byte end marker, so each literal
 * copy demands 3 more input bytes after it; hence at the top of the main loop at
 * least 3 input bytes remain, enough for any opcode and its fixed operands.
 * Everything else (extended lengths, output room, lookbehind) is checked before
 * it is used. The word-at-a-time copies are used only when they stay inside
 * both buffers; near the ends a byte loop is used.
 */
#include "image/lzo.h"
#include "image/lzcopy.h"

/* Longest run of zero bytes in an extended length that cannot overflow size_t. */
#define LZO_MAX_255_COUNT ((SIZE_MAX / 255) - 2)

/* Extended length: zero bytes count 255 each, the first non-zero byte ends it.
 * Precondition: *pip < ip_end. */
static inline int lzo_ext_len(const uint8_t **pip, const uint8_t *ip_end, size_t *t)
{
	const uint8_t *ip = *pip;
	const uint8_t *const start = ip;
	size_t zeros;

	while (*ip == 0) {
		if (++ip == ip_end)
			return ER_LZO_E_INPUT_OVERRUN;
	}
	zeros = (size_t)(ip - start);
	if (ER_UNLIKELY(zeros > LZO_MAX_255_COUNT))
		return ER_LZO_E_ERROR;
	*t += zeros * 255 + *ip++;
	*pip = ip;
	return ER_LZO_E_OK;
}

int er_lzo1x_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len)
{
	const uint8_t *ip, *ip_end;
	uint8_t *op, *op_end;
	size_t t, next, dist, state;
	bool rle = false;
	int err;

	if (!out_len)
		return ER_LZO_E_INVALID_ARG;
	*out_len = 0;
	if (!in || !out)
		return ER_LZO_E_INVALID_ARG;

	ip = in;
	ip_end = in + in_len;
	op = out;
	op_end = out + out_cap;

	if (in_len < 3)
		return ER_LZO_E_INPUT_OVERRUN;

	/* lzo-rle: 17, version, stream. A classic stream never starts with 17
	 * unless it is the bare 3-byte end marker. */
	if (in_len >= 5 && ip[0] == 17) {
		rle = ip[1] != 0;
		ip += 2;
	}

	state = 0;
	next = 0;
	t = *ip;
	if (t > 17) {
		ip++;
		t -= 17;
		if (t < 4) {
			next = t;
			goto trailing;
		}
		goto literal_run;
	}

	for (;;) {
		/* At least 3 input bytes remain here. */
		t = *ip++;
		if (t < 16) {
			if (state == 0) {
				if (t == 0) {
					err = lzo_ext_len(&ip, ip_end, &t);
					if (ER_UNLIKELY(err))
						goto fail;
					t += 15;
				}
				t += 3;
literal_run:
				if (ER_LIKELY((size_t)(ip_end - ip) >= t + 16 && (size_t)(op_end - op) >= t + 16)) {
					const uint8_t *const ie = ip + t;
					uint8_t *const oe = op + t;
					do {
						er_copy8(op, ip);
						er_copy8(op + 8, ip + 8);
						op += 16;
						ip += 16;
					} while (op < oe);
					ip = ie;
					op = oe;
				} else {
					if ((size_t)(ip_end - ip) < t + 3) {
						err = ER_LZO_E_INPUT_OVERRUN;
						goto fail;
					}
					if ((size_t)(op_end - op) < t) {
						err = ER_LZO_E_OUTPUT_OVERRUN;
						goto fail;
					}
					er_copy_exact(op, ip, t);
					op += t;
					ip += t;
				}
				state = 4;
				continue;
			}
			next = t & 3;
			if (state != 4) {
				/* 2-byte match after 1..3 trailing literals */
				const uint8_t *m;
				dist = 1 + (t >> 2) + ((size_t)*ip++ << 2);
				if (ER_UNLIKELY(dist > (size_t)(op - out))) {
					err = ER_LZO_E_LOOKBEHIND;
					goto fail;
				}
				if (ER_UNLIKELY((size_t)(op_end - op) < 2)) {
					err = ER_LZO_E_OUTPUT_OVERRUN;
					goto fail;
				}
				m = op - dist;
				op[0] = m[0];
				op[1] = m[1];
				op += 2;
				goto trailing;
			}
			/* 3-byte match after a literal run */
			dist = 1 + 0x800 + (t >> 2) + ((size_t)*ip++ << 2);
			t = 3;
		} else if (t >= 64) {
			/* M2 */
			next = t & 3;
			dist = 1 + ((t >> 2) & 7) + ((size_t)*ip++ << 3);
			t = (t >> 5) + 1;
		} else if (t >= 32) {
			/* M3 */
			size_t v;
			t &= 31;
			if (t == 0) {
				err = lzo_ext_len(&ip, ip_end, &t);
				if (ER_UNLIKELY(err))
					goto fail;
				t += 31;
				if (ER_UNLIKELY((size_t)(ip_end - ip) < 2)) {
					err = ER_LZO_E_INPUT_OVERRUN;
					goto fail;
				}
			}
			t += 2;
			v = er_le16(ip);
			ip += 2;
			dist = 1 + (v >> 2);
			next = v & 3;
		} else {
			/* M4, end of stream, or (lzo-rle) a run of zeros */
			size_t v = er_le16(ip);
			size_t hi;
			if (rle && t >= 24 && (v & 0xfffc) == 0xfffc) {
				size_t run;
				if (ER_UNLIKELY((size_t)(ip_end - ip) < 3)) {
					err = ER_LZO_E_INPUT_OVERRUN;
					goto fail;
				}
				run = ((t & 7) | ((size_t)ip[2] << 3)) + 4;
				if ((size_t)(op_end - op) >= run + 8) {
					uint8_t *const oe = op + run;
					do {
						*(er_una64 *)op = 0;
						op += 8;
					} while (op < oe);
					op = oe;
				} else {
					if ((size_t)(op_end - op) < run) {
						err = ER_LZO_E_OUTPUT_OVERRUN;
						goto fail;
					}
					do
						*op++ = 0;
					while (--run > 0);
				}
				next = v & 3;
				ip += 3;
				goto trailing;
			}
			hi = (t & 8) << 11;
			t &= 7;
			if (t == 0) {
				err = lzo_ext_len(&ip, ip_end, &t);
				if (ER_UNLIKELY(err))
					goto fail;
				t += 7;
				if (ER_UNLIKELY((size_t)(ip_end - ip) < 2)) {
					err = ER_LZO_E_INPUT_OVERRUN;
					goto fail;
				}
				v = er_le16(ip);
			}
			t += 2;
			ip += 2;
			dist = hi + (v >> 2);
			next = v & 3;
			if (dist == 0) {
				/* End marker: M4 of length 3 at distance 16384. */
				*out_len = (size_t)(op - out);
				if (t != 3)
					return ER_LZO_E_ERROR;
				return ip == ip_end ? ER_LZO_E_OK : ER_LZO_E_INPUT_NOT_CONSUMED;
			}
			dist += 0x4000;
		}

		/* Copy a match of t bytes at distance dist. */
		if (ER_UNLIKELY(dist > (size_t)(op - out))) {
			err = ER_LZO_E_LOOKBEHIND;
			goto fail;
		}
		if (ER_LIKELY((size_t)(op_end - op) >= t + 16)) {
			er_match_wild(op, dist, t);
			op += t;
		} else {
			if ((size_t)(op_end - op) < t) {
				err = ER_LZO_E_OUTPUT_OVERRUN;
				goto fail;
			}
			er_match_exact(op, dist, t);
			op += t;
		}

trailing:
		/* 0..3 literals after a match; then at least 3 input bytes must remain. */
		state = next;
		if (ER_LIKELY((size_t)(ip_end - ip) >= 6 && (size_t)(op_end - op) >= 4)) {
			er_copy4(op, ip);
			op += next;
			ip += next;
		} else {
			if ((size_t)(ip_end - ip) < next + 3) {
				err = ER_LZO_E_INPUT_OVERRUN;
				goto fail;
			}
			if ((size_t)(op_end - op) < next) {
				err = ER_LZO_E_OUTPUT_OVERRUN;
				goto fail;
			}
			while (next > 0) {
				*op++ = *ip++;
				next--;
			}
		}
	}

fail:
	*out_len = (size_t)(op - out);
	return err;
}

const char *er_lzo_strerror(int err)
{
	switch (err) {
	case ER_LZO_E_OK:                 return "success";
	case ER_LZO_E_ERROR:              return "malformed LZO stream";
	case ER_LZO_E_INPUT_OVERRUN:      return "LZO input overrun (truncated stream)";
	case ER_LZO_E_OUTPUT_OVERRUN:     return "LZO output overrun (output buffer too small)";
	case ER_LZO_E_LOOKBEHIND:         return "LZO lookbehind overrun (match before output start)";
	case ER_LZO_E_INPUT_NOT_CONSUMED: return "LZO trailing data after end marker";
	case ER_LZO_E_INVALID_ARG:        return "LZO invalid argument";
	default:                          return "unknown LZO error";
	}
}
