// SPDX-License-Identifier: GPL-2.0-or-later
/* CRC-32 (reflected polynomial 0xEDB88320), freestanding: carry-less multiplication
 * (PCLMULQDQ folding, on 256-bit registers with VPCLMULQDQ where the AVX state is on)
 * on x86_64 CPUs that have it, slicing-by-16 otherwise. */
#ifndef EFIRESUME_IMAGE_CRC32_H
#define EFIRESUME_IMAGE_CRC32_H

#include "image/freestanding.h"

/* Linux crc32_le(seed, p, len): reflected poly 0xEDB88320, NO pre/post
 * inversion. Chainable: er_crc32_le(er_crc32_le(s, a, n), b, m) is the CRC of
 * a followed by b. */
uint32_t er_crc32_le(uint32_t crc, const void *p, size_t len);

/* zlib crc32(crc, p, len): with pre/post inversion; start with crc = 0;
 * chainable the same way. er_crc32_zlib(c, p, n) == ~er_crc32_le(~c, p, n).
 * (Unlike zlib, p == NULL is not special: with len 0 the crc is returned.) */
uint32_t er_crc32_zlib(uint32_t crc, const void *p, size_t len);

/* crc32_le(0, A || B) from crc1 = crc32_le(0, A), crc2 = crc32_le(0, B) and len(B):
 * lets pieces of a stream be checksummed apart (on other CPUs) and joined in order. */
uint32_t er_crc32_le_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

/* Whether er_crc32_le uses PCLMULQDQ (x86_64 with PCLMULQDQ and SSE2; in the EFI build
 * also CR4.OSFXSR); er_crc32_force_soft(true) makes it use the tables (tests, bench). */
bool er_crc32_hw_available(void);
void er_crc32_force_soft(bool soft);
/* The same folding on 256-bit registers (AVX2 + VPCLMULQDQ, the AVX state enabled: on the
 * host, rarely in firmware) for inputs of 256 bytes and up; er_crc32_no_avx(true) keeps
 * to the 128-bit code (tests). */
bool er_crc32_avx_available(void);
void er_crc32_no_avx(bool no);

#endif
