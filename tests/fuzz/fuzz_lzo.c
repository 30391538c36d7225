// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the LZO1X decompressor (image/lzo.c).
 *
 * Every input is decoded into a 132 KiB heap buffer; then, whenever it decodes,
 * checked for the properties a caller relies on:
 *  - *out_len never exceeds the capacity;
 *  - decoding again into an exactly-sized buffer gives the same bytes;
 *  - one byte less capacity fails with OUTPUT_OVERRUN, never touching more;
 * and the input is tried a second time with a valid stream ending appended, so
 * that more mutated inputs get all the way through. ASan/UBSan catch any out of
 * bounds access (the buffers are exactly sized heap blocks). */
#include "image/lzo.h"

#define FUZZ_DECOMPRESS       er_lzo1x_decompress
#define FUZZ_STRERROR         er_lzo_strerror
#define FUZZ_E_OUTPUT_OVERRUN ER_LZO_E_OUTPUT_OVERRUN
#define FUZZ_VALID_TAIL       { 0x11, 0x00, 0x00 }
#include "fuzz_codec.h"
