// SPDX-License-Identifier: GPL-2.0-or-later
/* Wiping secrets and comparing them in constant time. */
#include "crypto/wipe.h"

#include <stdint.h>

/* Plain stores followed by an empty asm that takes p and clobbers memory: the compiler
 * must assume the asm reads the buffer, so it cannot drop the stores as dead (the same
 * barrier glibc's explicit_bzero uses). Word stores in the middle: argon2's working
 * memory (up to a GiB) is wiped with this. */
void er_wipe(void *p, size_t n)
{
	uint8_t *b = p;

	while (n && ((uintptr_t)b & (sizeof(uintptr_t) - 1))) {
		*b++ = 0;
		n--;
	}
	for (; n >= sizeof(uintptr_t); n -= sizeof(uintptr_t), b += sizeof(uintptr_t))
		*(uintptr_t *)(void *)b = 0;
	while (n--)
		*b++ = 0;
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

bool er_ct_equal(const void *a, const void *b, size_t n)
{
	const volatile uint8_t *x = a, *y = b;
	uint32_t d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (uint32_t)(x[i] ^ y[i]);
	/* 1 when d == 0, without a data-dependent branch (d < 256) */
	return (bool)(1 & ((d - 1) >> 8));
}
