// SPDX-License-Identifier: GPL-2.0-or-later
/* LZ4 block decompressor (freestanding, bounds-checked).
 *
 * Decodes the LZ4 *block* format (no frame header), as LZ4_decompress_safe
 * does; the Linux kernel compresses hibernation data with LZ4_compress_default
 * and decodes it with LZ4_decompress_safe. Every block produced by a conforming
 * compressor is accepted; the parse is slightly more lenient than the reference
 * about the end-of-block rules (last 5 bytes literals, last match >= 12 bytes
 * before the end), which only exist to speed up decoders.
 *
 * Never reads outside in[0, in_len) nor writes outside out[0, out_cap), on any
 * input. Bytes of out past the decoded length (but below out_cap) may be
 * overwritten with scratch data by the word-at-a-time copies. in and out must
 * not overlap.
 *
 * Note: the block format has no end marker, so a block cut right after a
 * sequence's literals still decodes (to a prefix of the data): callers must
 * compare *out_len with the size they expect.
 */
#ifndef EFIRESUME_IMAGE_LZ4_H
#define EFIRESUME_IMAGE_LZ4_H

#include "image/freestanding.h"

#define ER_LZ4_E_OK                0
#define ER_LZ4_E_ERROR           (-1) /* malformed block (offset 0, absurd length) */
#define ER_LZ4_E_INPUT_OVERRUN   (-2) /* block truncated */
#define ER_LZ4_E_OUTPUT_OVERRUN  (-3) /* decoded data does not fit in out_cap */
#define ER_LZ4_E_LOOKBEHIND      (-4) /* match offset points before the output start */
#define ER_LZ4_E_INVALID_ARG     (-5) /* NULL pointer */

/* Decompress one LZ4 block. Returns 0 and sets *out_len on success; a negative
 * ER_LZ4_E_* code on error, in which case *out_len is the number of bytes
 * written before the error was detected (diagnostic only). */
int er_lz4_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len);

/* Static description of an ER_LZ4_E_* code (never NULL). */
const char *er_lz4_strerror(int err);

#endif
