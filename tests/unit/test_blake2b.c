// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/blake2b.c: OpenSSL's EVP_blake2b512 (unkeyed, 64-byte digests) and
 * its BLAKE2BMAC (keyed, any digest length 1..64) as oracles, RFC 7693's "abc" vector,
 * streaming in random pieces, and H' (er_blake2b_long) against a from-the-RFC construction
 * over OpenSSL where OpenSSL can express it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "crypto/blake2b.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}
static void fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

static void ossl_blake2b512(const uint8_t *in, size_t n, uint8_t out[64])
{
	unsigned len = 0;
	assert_int_equal(EVP_Digest(in, n, out, &len, EVP_blake2b512(), NULL), 1);
	assert_int_equal(len, 64);
}

/* keyed BLAKE2b with digest length outlen through OpenSSL's BLAKE2BMAC */
static void ossl_blake2b_mac(const uint8_t *key, size_t keylen, size_t outlen, const uint8_t *in, size_t n,
			     uint8_t *out)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
	assert_non_null(mac);
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
	assert_non_null(ctx);
	size_t sz = outlen;
	OSSL_PARAM params[] = { OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &sz), OSSL_PARAM_construct_end() };
	assert_int_equal(EVP_MAC_init(ctx, key, keylen, params), 1);
	assert_int_equal(EVP_MAC_update(ctx, in, n), 1);
	size_t got = 0;
	assert_int_equal(EVP_MAC_final(ctx, out, &got, outlen), 1);
	assert_int_equal(got, outlen);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

/* ours, fed in random pieces */
static void ours_pieces(const uint8_t *key, size_t keylen, size_t outlen, const uint8_t *in, size_t n, uint8_t *out)
{
	struct er_blake2b c;
	assert_true(er_blake2b_init_key(&c, outlen, key, keylen));
	size_t off = 0;
	while (off < n) {
		size_t take = (size_t)(rng() % 300);
		if (take > n - off)
			take = n - off;
		er_blake2b_update(&c, in + off, take);
		off += take;
	}
	er_blake2b_final(&c, out);
}

static void test_rfc7693_abc(void **state)
{
	(void)state;
	/* RFC 7693 Appendix A: BLAKE2b-512("abc") */
	static const uint8_t want[64] = {
		0xBA, 0x80, 0xA5, 0x3F, 0x98, 0x1C, 0x4D, 0x0D, 0x6A, 0x27, 0x97, 0xB6, 0x9F, 0x12, 0xF6, 0xE9,
		0x4C, 0x21, 0x2F, 0x14, 0x68, 0x5A, 0xC4, 0xB7, 0x4B, 0x12, 0xBB, 0x6F, 0xDB, 0xFF, 0xA2, 0xD1,
		0x7D, 0x87, 0xC5, 0x39, 0x2A, 0xAB, 0x79, 0x2D, 0xC2, 0x52, 0xD5, 0xDE, 0x45, 0x33, 0xCC, 0x95,
		0x18, 0xD3, 0x8A, 0xA8, 0xDB, 0xF1, 0x92, 0x5A, 0xB9, 0x23, 0x86, 0xED, 0xD4, 0x00, 0x99, 0x23,
	};
	uint8_t got[64], ossl[64];
	assert_true(er_blake2b(got, 64, "abc", 3));
	assert_memory_equal(got, want, 64);
	ossl_blake2b512((const uint8_t *)"abc", 3, ossl);
	assert_memory_equal(ossl, want, 64);
}

static void test_vs_openssl_unkeyed(void **state)
{
	(void)state;
	static uint8_t buf[4096];
	uint8_t a[64], b[64], c[64];
	/* every length around the 128-byte block edges, then random ones */
	for (size_t n = 0; n < 600; n++) {
		size_t len = n < 400 ? n : (size_t)(rng() % sizeof(buf));
		fill(buf, len);
		assert_true(er_blake2b(a, 64, buf, len));
		ours_pieces(NULL, 0, 64, buf, len, b);
		ossl_blake2b512(buf, len, c);
		assert_memory_equal(a, c, 64);
		assert_memory_equal(b, c, 64);
	}
}

static void test_vs_openssl_keyed_lengths(void **state)
{
	(void)state;
	static uint8_t buf[1200];
	uint8_t key[64], a[64], c[64];
	for (int k = 0; k < 800; k++) {
		size_t outlen = 1 + (size_t)(rng() % 64);
		size_t keylen = 1 + (size_t)(rng() % 64);
		size_t len = k < 300 ? (size_t)k : (size_t)(rng() % sizeof(buf));
		fill(key, keylen);
		fill(buf, len);
		ours_pieces(key, keylen, outlen, buf, len, a);
		ossl_blake2b_mac(key, keylen, outlen, buf, len, c);
		assert_memory_equal(a, c, outlen);
	}
}

static void test_bad_lengths(void **state)
{
	(void)state;
	struct er_blake2b c;
	uint8_t key[65] = { 0 }, out[64];
	assert_false(er_blake2b_init(&c, 0));
	assert_false(er_blake2b_init(&c, 65));
	assert_false(er_blake2b_init_key(&c, 32, key, 65));
	assert_false(er_blake2b_init_key(&c, 32, NULL, 4));
	assert_false(er_blake2b(out, 0, "x", 1));
	assert_false(er_blake2b_long(out, 0, "x", 1, NULL, 0));
	assert_true(er_blake2b_init_key(&c, 64, key, 64));
}

/* H'^T(X) for T <= 64 is BLAKE2b-T(LE32(T) || X); for T > 64 the chain of 64-byte digests
 * V1 = H(LE32(T) || X), Vi = H(Vi-1), output 32 bytes of each and all of the last, whose
 * length is T - 32r (r = ceil(T/32) - 2). OpenSSL 3.0 has no unkeyed BLAKE2b of other lengths
 * than 64, so this checks H' for T = 64 exactly and, for T > 64, every byte up to the last
 * digest (whose length differs when T % 32 != 0; T a multiple of 32 checks it fully); the
 * remaining lengths are covered by test_argon2 against libargon2. */
static void test_hprime(void **state)
{
	(void)state;
	static const size_t lens[] = { 64, 96, 128, 160, 256, 1024, 65, 100, 127, 1000 };
	uint8_t x[300], got[1024], v[64], in[4 + sizeof(x)];
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
		size_t T = lens[t], xl = (size_t)(rng() % sizeof(x));
		fill(x, xl);
		/* split the input between a and b as argon2 does */
		size_t split = xl ? (size_t)(rng() % xl) : 0;
		assert_true(er_blake2b_long(got, T, x, split, x + split, xl - split));
		in[0] = (uint8_t)T; in[1] = (uint8_t)(T >> 8); in[2] = in[3] = 0;
		memcpy(in + 4, x, xl);
		ossl_blake2b512(in, 4 + xl, v);
		if (T == 64) {
			assert_memory_equal(got, v, 64);
			continue;
		}
		size_t r = (T + 31) / 32 - 2, off = 0;
		for (size_t i = 1; i <= r; i++) {
			if (i > 1) {
				uint8_t prev[64];
				memcpy(prev, v, 64);
				ossl_blake2b512(prev, 64, v);
			}
			assert_memory_equal(got + off, v, 32);
			off += 32;
		}
		if (T - off == 64) {
			uint8_t prev[64];
			memcpy(prev, v, 64);
			ossl_blake2b512(prev, 64, v);
			assert_memory_equal(got + off, v, 64);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc7693_abc),
		cmocka_unit_test(test_vs_openssl_unkeyed),
		cmocka_unit_test(test_vs_openssl_keyed_lengths),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_hprime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
