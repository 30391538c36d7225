// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for crypto/gcm.c: the AES-NI + PCLMULQDQ path against the portable
 * one on arbitrary input (no OpenSSL in fuzz builds: the oracle checks are in
 * tests/unit/test_gcm.c).
 *
 * Input: bytes 0..31 the key, 32..43 the IV, 44..59 a tag, byte 60 the AAD length (its
 * bits 0..6; bit 7: decrypt in place), the AAD, then the data (any length).
 * Checked, on both paths: decrypting the data with the given tag succeeds or fails alike
 * and gives the same output (zeros on a failure); encrypting the data gives the same
 * ciphertext and tag, which then decrypts back on both paths; with the tag's first byte
 * flipped it is refused and the output zeroed. Without AES-NI and PCLMULQDQ the portable
 * path is checked against itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/gcm.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct er_gcm g;
	uint8_t tag[16], t1[16], t2[16];
	size_t aad_len, len;
	const uint8_t *aad, *in;
	uint8_t *a, *b;
	int inplace;
	bool ok1, ok2;

	if (size < 61)
		return 0;
	aad_len = data[60] & 0x7f;
	inplace = data[60] >> 7;
	if (size < 61 + aad_len)
		return 0;
	aad = data + 61;
	in = aad + aad_len;
	len = size - 61 - aad_len;
	memcpy(tag, data + 44, 16);
	a = malloc(len + 1);
	b = malloc(len + 1);
	if (!a || !b)
		abort();
	er_gcm_force_soft(false);
	er_gcm_init(&g, data);

	/* decrypt as given: hardware vs portable */
	if (inplace) {
		memcpy(a, in, len);
		memcpy(b, in, len);
		ok1 = er_gcm_decrypt(&g, data + 32, aad, aad_len, a, a, len, tag);
		er_gcm_force_soft(true);
		ok2 = er_gcm_decrypt(&g, data + 32, aad, aad_len, b, b, len, tag);
	} else {
		ok1 = er_gcm_decrypt(&g, data + 32, aad, aad_len, in, a, len, tag);
		er_gcm_force_soft(true);
		ok2 = er_gcm_decrypt(&g, data + 32, aad, aad_len, in, b, len, tag);
	}
	check(ok1 == ok2);
	check(memcmp(a, b, len) == 0);
	if (!ok1)
		check(all_zero(a, len));

	/* encrypt: the same ciphertext and tag, which decrypts back on either path */
	er_gcm_force_soft(false);
	er_gcm_encrypt(&g, data + 32, aad, aad_len, in, a, len, t1);
	er_gcm_force_soft(true);
	er_gcm_encrypt(&g, data + 32, aad, aad_len, in, b, len, t2);
	check(memcmp(a, b, len) == 0 && memcmp(t1, t2, 16) == 0);
	check(er_gcm_decrypt(&g, data + 32, aad, aad_len, b, b, len, t1) && memcmp(b, in, len) == 0);
	er_gcm_force_soft(false);
	memcpy(b, a, len);
	check(er_gcm_decrypt(&g, data + 32, aad, aad_len, a, a, len, t1) && memcmp(a, in, len) == 0);
	t1[0] ^= 1;
	check(!er_gcm_decrypt(&g, data + 32, aad, aad_len, b, a, len, t1) && all_zero(a, len));

	er_gcm_wipe(&g);
	free(a);
	free(b);
	return 0;
}
