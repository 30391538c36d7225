// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/hkdf.c: HKDF-SHA256 against the RFC 5869 test cases 1-3 and
 * OpenSSL's EVP_PKEY_HKDF (random salts, IKMs, infos, output lengths up to 255 * 32),
 * on the SHA-NI path and the portable SHA-256. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "crypto/hkdf.h"
#include "crypto/sha.h"
#include "image/freestanding.h"

#include "codec_data.h"
#include "unhex.h"      /* hex test vectors */   /* the seeded generator */


static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

static void ossl_hkdf(const uint8_t *salt, size_t sl, const uint8_t *ikm, size_t il,
		      const uint8_t *info, size_t nl, uint8_t *out, size_t ol)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t n = ol;

	assert_non_null(c);
	assert_int_equal(EVP_PKEY_derive_init(c), 1);
	assert_int_equal(EVP_PKEY_CTX_set_hkdf_md(c, EVP_sha256()), 1);
	assert_int_equal(EVP_PKEY_CTX_set1_hkdf_salt(c, salt, (int)sl), 1);
	assert_int_equal(EVP_PKEY_CTX_set1_hkdf_key(c, ikm, (int)il), 1);
	if (nl)
		assert_int_equal(EVP_PKEY_CTX_add1_hkdf_info(c, info, (int)nl), 1);
	assert_int_equal(EVP_PKEY_derive(c, out, &n), 1);
	assert_int_equal(n, ol);
	EVP_PKEY_CTX_free(c);
}

static bool sha_path(bool soft)
{
	if (!soft && !er_sha_hw_available())
		return false;
	er_sha_force_soft(soft);
	return true;
}

/* RFC 5869 appendix A.1-A.3 (SHA-256) */
static void test_rfc5869(void **state)
{
	(void)state;
	uint8_t ikm[80], salt[80], info[80], okm[82], want[82];

	for (int soft = 0; soft < 2; soft++) {
		if (!sha_path(soft))
			continue;
		/* A.1 */
		memset(ikm, 0x0b, 22);
		for (int i = 0; i < 13; i++)
			salt[i] = (uint8_t)i;
		for (int i = 0; i < 10; i++)
			info[i] = (uint8_t)(0xf0 + i);
		unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865", want, 42);
		er_hkdf_sha256(salt, 13, ikm, 22, info, 10, okm, 42);
		assert_memory_equal(okm, want, 42);
		/* A.2: 80-byte inputs, 82 bytes out */
		for (int i = 0; i < 80; i++) {
			ikm[i] = (uint8_t)i;
			salt[i] = (uint8_t)(0x60 + i);
			info[i] = (uint8_t)(0xb0 + i);
		}
		unhex("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
		      "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
		      "cc30c58179ec3e87c14c01d5c1f3434f1d87", want, 82);
		er_hkdf_sha256(salt, 80, ikm, 80, info, 80, okm, 82);
		assert_memory_equal(okm, want, 82);
		/* A.3: no salt, no info */
		memset(ikm, 0x0b, 22);
		unhex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8", want, 42);
		er_hkdf_sha256(NULL, 0, ikm, 22, NULL, 0, okm, 42);
		assert_memory_equal(okm, want, 42);
		/* an empty salt is HashLen zero bytes */
		memset(salt, 0, 32);
		er_hkdf_sha256(salt, 32, ikm, 22, NULL, 0, okm, 42);
		assert_memory_equal(okm, want, 42);
	}
	er_sha_force_soft(false);
}

static void test_vs_openssl(void **state)
{
	(void)state;
	static uint8_t salt[200], ikm[200], info[300], a[ER_HKDF_SHA256_MAX_OUT], b[ER_HKDF_SHA256_MAX_OUT];

	for (int soft = 0; soft < 2; soft++) {
		if (!sha_path(soft))
			continue;
		rng_seed(5869 + soft);
		for (int it = 0; it < 600; it++) {
			size_t sl = it % 5 == 0 ? 0 : rng_below(sizeof(salt)), il = rng_below(sizeof(ikm));
			size_t nl = it % 3 == 0 ? 0 : rng_below(sizeof(info));
			size_t ol = it < 70 ? (size_t)it : it % 50 == 0 ? ER_HKDF_SHA256_MAX_OUT : 1 + rng_below(600);

			if (ol == 0)
				ol = 1;   /* OpenSSL refuses 0 */
			rand_bytes(salt, sl);
			rand_bytes(ikm, il);
			rand_bytes(info, nl);
			er_hkdf_sha256(salt, sl, ikm, il, info, nl, a, ol);
			ossl_hkdf(salt, sl, ikm, il, info, nl, b, ol);
			assert_memory_equal(a, b, ol);
		}
	}
	er_sha_force_soft(false);
}

/* lengths: a prefix of a longer output; 0 writes nothing; beyond 255 * 32 is zeroed */
static void test_lengths(void **state)
{
	(void)state;
	static uint8_t a[ER_HKDF_SHA256_MAX_OUT + 64], b[ER_HKDF_SHA256_MAX_OUT + 64];
	const uint8_t ikm[] = "input keying material";

	er_hkdf_sha256(NULL, 0, ikm, sizeof(ikm), (const uint8_t *)"x", 1, a, ER_HKDF_SHA256_MAX_OUT);
	for (size_t n = 1; n < 200; n += 7) {
		er_hkdf_sha256(NULL, 0, ikm, sizeof(ikm), (const uint8_t *)"x", 1, b, n);
		assert_memory_equal(a, b, n);
	}
	memset(b, 0x77, sizeof(b));
	er_hkdf_sha256(NULL, 0, ikm, sizeof(ikm), NULL, 0, b, 0);
	assert_int_equal(b[0], 0x77);
	er_hkdf_sha256(NULL, 0, ikm, sizeof(ikm), NULL, 0, b, ER_HKDF_SHA256_MAX_OUT + 1);
	for (size_t i = 0; i <= ER_HKDF_SHA256_MAX_OUT; i++)
		assert_int_equal(b[i], 0);
	assert_int_equal(b[ER_HKDF_SHA256_MAX_OUT + 1], 0x77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc5869),
		cmocka_unit_test(test_vs_openssl),
		cmocka_unit_test(test_lengths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
