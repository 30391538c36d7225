// SPDX-License-Identifier: GPL-2.0-or-later
/* Test vectors written in hex (NIST, RFC): unhex(h, out, max) fills out with the bytes of the
 * hex string h and returns their number (the test fails on a malformed string or one longer
 * than max). For the cmocka unit tests: include after <cmocka.h> and <stdio.h>, <string.h>. */
#ifndef EFIRESUME_TESTS_UNHEX_H
#define EFIRESUME_TESTS_UNHEX_H

static size_t unhex(const char *h, uint8_t *out, size_t max)
{
	size_t n = strlen(h) / 2;
	assert_true(n <= max);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

#endif
