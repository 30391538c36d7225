// SPDX-License-Identifier: GPL-2.0-or-later
/* Freestanding shim for image/: the few libc pieces the pure code needs.
 * image/ must build both into the EFI binaries (no libc) and for the host
 * (tests, fuzzers, tools). Only <stdint.h>, <stddef.h> and <stdbool.h> are used,
 * which a freestanding compiler always provides. */
#ifndef EFIRESUME_IMAGE_FREESTANDING_H
#define EFIRESUME_IMAGE_FREESTANDING_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Byte-wise helpers with distinct names so that they never clash with the
 * memcpy/memset that gnu-efi's libefi or the host libc provide. */
void *er_memcpy(void *dst, const void *src, size_t n);
void *er_memmove(void *dst, const void *src, size_t n);
void *er_memset(void *dst, int c, size_t n);
int er_memcmp(const void *a, const void *b, size_t n);
size_t er_strnlen(const char *s, size_t max);

/* Little-endian loads from unaligned bytes (the on-disk formats are LE). */
static inline uint16_t er_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | (b[1] << 8));
}
static inline uint32_t er_le32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static inline uint64_t er_le64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)er_le32(b) | ((uint64_t)er_le32(b + 4) << 32);
}
static inline void er_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}
static inline void er_put_le64(void *p, uint64_t v)
{
	er_put_le32(p, (uint32_t)v);
	er_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#define ER_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ER_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ER_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
