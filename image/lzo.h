// SPDX-License-Identifier: GPL-2.0-or-later
/* LZO1X decompressor (freestanding, bounds-checked).
 *
 * Decodes the classic LZO1X bitstream as produced by lzo1x_1_compress (and any
 * other LZO1X compressor: lzo1x_1_15, lzo1x_999, the Linux kernel's
 * lzo1x_1_compress). Like the Linux kernel's lzo1x_decompress_safe it also
 * accepts the "lzo-rle" variant: a stream of at least 5 bytes whose first byte is
 * 17 carries a bitstream version in its second byte, and a non-zero version
 * enables the zero-run instruction.
 *
 * Never reads outside in[0, in_len) nor writes outside out[0, out_cap), on any
 * input. Bytes of out past the decoded length (but below out_cap) may be
 * overwritten with scratch data by the word-at-a-time copies. in and out must
 * not overlap.
 */
#ifndef EFIRESUME_IMAGE_LZO_H
#define EFIRESUME_IMAGE_LZO_H

#include "image/freestanding.h"

#define ER_LZO_E_OK                 0
#define ER_LZO_E_ERROR            (-1) /* malformed stream */
#define ER_LZO_E_INPUT_OVERRUN    (-2) /* stream truncated: needs more input */
#define ER_LZO_E_OUTPUT_OVERRUN   (-3) /* decoded data does not fit in out_cap */
#define ER_LZO_E_LOOKBEHIND       (-4) /* match refers to data before the output start */
#define ER_LZO_E_INPUT_NOT_CONSUMED (-5) /* end marker found before the end of input */
#define ER_LZO_E_INVALID_ARG      (-6) /* NULL pointer */

/* Decompress one LZO1X stream. Returns 0 and sets *out_len on success; a
 * negative ER_LZO_E_* code on error, in which case *out_len is the number of
 * bytes written before the error was detected (diagnostic only). */
int er_lzo1x_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len);

/* Static description of an ER_LZO_E_* code (never NULL). */
const char *er_lzo_strerror(int err);

#endif
