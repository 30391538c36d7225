// SPDX-License-Identifier: GPL-2.0-or-later
/* Freestanding implementations of the shim (see freestanding.h). */
#include "freestanding.h"

void *er_memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	/* word copies when both are aligned: this runs for every loaded page */
	if ((((uintptr_t)d | (uintptr_t)s) & (sizeof(uintptr_t) - 1)) == 0) {
		uintptr_t *dw = (uintptr_t *)d;
		const uintptr_t *sw = (const uintptr_t *)s;
		for (; n >= sizeof(uintptr_t); n -= sizeof(uintptr_t))
			*dw++ = *sw++;
		d = (uint8_t *)dw;
		s = (const uint8_t *)sw;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *er_memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return er_memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *er_memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

int er_memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t er_strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}
