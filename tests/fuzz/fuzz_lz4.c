// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the LZ4 block decompressor (image/lz4.c).
 *
 * Every input is decoded into a 132 KiB heap buffer; then, whenever it decodes,
 * checked for the properties a caller relies on:
 *  - *out_len never exceeds the capacity;
 *  - decoding again into an exactly-sized buffer gives the same bytes;
 *  - one byte less capacity fails with OUTPUT_OVERRUN, never touching more;
 * and the input is tried a second time with a valid stream ending appended, so
 * that more mutated inputs get all the way through. ASan/UBSan catch any out of
 * bounds access (the buffers are exactly sized heap blocks). */
#include "image/lz4.h"

#define FUZZ_DECOMPRESS       er_lz4_decompress
#define FUZZ_STRERROR         er_lz4_strerror
#define FUZZ_E_OUTPUT_OVERRUN ER_LZ4_E_OUTPUT_OVERRUN
#define FUZZ_VALID_TAIL       { 0x50, 0x61, 0x62, 0x63, 0x64, 0x65 }
#include "fuzz_codec.h"
