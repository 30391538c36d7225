// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/sha.c (SHA-1/256/512, HMAC) and crypto/wipe.c, with OpenSSL's
 * EVP_Digest and HMAC as oracles, plus the FIPS 180 examples and RFC 2202/4231 HMAC
 * vectors. SHA-256 runs twice: through the SHA extensions (when this CPU has them) and
 * through the portable code (er_sha_force_soft). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "crypto/sha.h"
#include "image/freestanding.h"
#include "crypto/wipe.h"

#include "codec_data.h"
#include "unhex.h"      /* hex test vectors */   /* the seeded generator */

static const enum er_hash hashes[] = { ER_HASH_SHA1, ER_HASH_SHA256, ER_HASH_SHA512 };

static const EVP_MD *md_of(enum er_hash h)
{
	switch (h) {
	case ER_HASH_SHA1: return EVP_sha1();
	case ER_HASH_SHA256: return EVP_sha256();
	case ER_HASH_SHA512: return EVP_sha512();
	}
	fail();
	return NULL;
}

static void ossl_digest(enum er_hash h, const void *p, size_t n, uint8_t *out)
{
	unsigned int l = 0;
	assert_int_equal(EVP_Digest(p, n, out, &l, md_of(h), NULL), 1);
	assert_int_equal(l, er_hash_len(h));
}

static void ossl_hmac(enum er_hash h, const void *k, size_t kl, const void *p, size_t n, uint8_t *out)
{
	unsigned int l = 0;
	static const uint8_t dummy;
	/* OpenSSL wants a non-NULL key pointer even for an empty key */
	assert_non_null(HMAC(md_of(h), kl ? k : &dummy, (int)kl, p, n, out, &l));
	assert_int_equal(l, er_hash_len(h));
}


static void check_hex(const uint8_t *got, const char *want)
{
	uint8_t w[64];
	size_t n = unhex(want, w, sizeof(w));
	assert_memory_equal(got, w, n);
}

static void test_lengths_and_names(void **state)
{
	(void)state;
	enum er_hash h = 0;

	assert_int_equal(er_hash_len(ER_HASH_SHA1), 20);
	assert_int_equal(er_hash_len(ER_HASH_SHA256), 32);
	assert_int_equal(er_hash_len(ER_HASH_SHA512), 64);
	assert_int_equal(er_hash_len((enum er_hash)0), 0);
	assert_int_equal(er_hash_len((enum er_hash)4), 0);
	assert_int_equal(er_hash_block_len(ER_HASH_SHA256), 64);
	assert_int_equal(er_hash_block_len(ER_HASH_SHA512), 128);
	for (size_t i = 0; i < ER_ARRAY_SIZE(hashes); i++)
		assert_int_equal(er_hash_len(hashes[i]), (size_t)EVP_MD_get_size(md_of(hashes[i])));

	assert_true(er_hash_from_name("sha1", 4, &h)); assert_int_equal(h, ER_HASH_SHA1);
	assert_true(er_hash_from_name("sha256", 6, &h)); assert_int_equal(h, ER_HASH_SHA256);
	assert_true(er_hash_from_name("SHA512", 6, &h)); assert_int_equal(h, ER_HASH_SHA512);
	/* n bytes exactly: a longer buffer with a NUL is not the name */
	assert_true(er_hash_from_name("sha256xyz", 6, &h)); assert_int_equal(h, ER_HASH_SHA256);
	h = 0;
	assert_false(er_hash_from_name("sha256", 7, &h));
	assert_false(er_hash_from_name("sha25", 5, &h));
	assert_false(er_hash_from_name("sha2566", 7, &h));
	assert_false(er_hash_from_name("sha224", 6, &h));
	assert_false(er_hash_from_name("ripemd160", 9, &h));
	assert_false(er_hash_from_name("", 0, &h));
	assert_false(er_hash_from_name(NULL, 4, &h));
	assert_int_equal(h, 0);
}

static void test_fips180_examples_body(void)
{
	uint8_t out[64];
	const char *abc = "abc";
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	er_hash(ER_HASH_SHA1, abc, 3, out);
	check_hex(out, "a9993e364706816aba3e25717850c26c9cd0d89d");
	er_hash(ER_HASH_SHA256, abc, 3, out);
	check_hex(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	er_hash(ER_HASH_SHA512, abc, 3, out);
	check_hex(out, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	er_hash(ER_HASH_SHA1, two, strlen(two), out);
	check_hex(out, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	er_hash(ER_HASH_SHA256, two, strlen(two), out);
	check_hex(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	er_hash(ER_HASH_SHA256, "", 0, out);
	check_hex(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* random data of every length up to 3 blocks of SHA-512, then random longer ones; one-shot
 * and split into random pieces, each against OpenSSL */
static void test_vs_openssl_random_body(void)
{
	size_t cap = 20000;
	uint8_t *buf = malloc(cap), a[64], b[64];
	assert_non_null(buf);
	rng_seed(180);
	for (size_t i = 0; i < cap; i++)
		buf[i] = (uint8_t)rng();
	for (size_t hi = 0; hi < ER_ARRAY_SIZE(hashes); hi++) {
		enum er_hash h = hashes[hi];
		size_t hl = er_hash_len(h);
		for (int it = 0; it < 1200; it++) {
			size_t n = it < 400 ? (size_t)it : rng_below(cap + 1);
			size_t off = rng_below(cap - n + 1);
			struct er_hash_ctx c;

			ossl_digest(h, buf + off, n, b);
			er_hash(h, buf + off, n, a);
			assert_memory_equal(a, b, hl);

			/* incremental: random pieces, including empty ones */
			er_hash_init(&c, h);
			for (size_t done = 0; done < n;) {
				size_t piece = rng_below(4) == 0 ? 0 : 1 + rng_below(it % 3 ? 130 : n - done);
				piece = ER_MIN(piece, n - done);
				er_hash_update(&c, buf + off + done, piece);
				done += piece;
			}
			er_hash_final(&c, a);
			assert_memory_equal(a, b, hl);
			/* final wiped the context */
			const uint8_t *p = (const uint8_t *)&c;
			for (size_t i = 0; i < sizeof(c); i++)
				assert_int_equal(p[i], 0);
		}
	}
	free(buf);
}

/* byte-at-a-time over a long input crosses every buffer position */
static void test_bytewise_long_body(void)
{
	uint8_t buf[3000], a[64], b[64];
	rng_seed(7);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rng();
	for (size_t hi = 0; hi < ER_ARRAY_SIZE(hashes); hi++) {
		struct er_hash_ctx c;
		er_hash_init(&c, hashes[hi]);
		for (size_t i = 0; i < sizeof(buf); i++)
			er_hash_update(&c, buf + i, 1);
		er_hash_final(&c, a);
		ossl_digest(hashes[hi], buf, sizeof(buf), b);
		assert_memory_equal(a, b, er_hash_len(hashes[hi]));
	}
}

static void test_hmac_vectors_body(void)
{
	uint8_t out[64];
	const char *key = "Jefe", *data = "what do ya want for nothing?";

	/* RFC 2202 test case 2 (HMAC-SHA-1), RFC 4231 test case 2 (SHA-256, SHA-512) */
	er_hmac(ER_HASH_SHA1, key, 4, data, strlen(data), out);
	check_hex(out, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
	er_hmac(ER_HASH_SHA256, key, 4, data, strlen(data), out);
	check_hex(out, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	er_hmac(ER_HASH_SHA512, key, 4, data, strlen(data), out);
	check_hex(out, "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
		       "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737");
}

/* keys of every length across the block size (hashed when longer), random messages */
static void test_hmac_vs_openssl_body(void)
{
	uint8_t key[300], msg[1000], a[64], b[64];
	rng_seed(2104);
	for (size_t hi = 0; hi < ER_ARRAY_SIZE(hashes); hi++) {
		enum er_hash h = hashes[hi];
		for (int it = 0; it < 600; it++) {
			size_t kl = it < 300 ? (size_t)it : rng_below(sizeof(key) + 1);
			size_t n = rng_below(sizeof(msg) + 1);
			for (size_t i = 0; i < kl; i++)
				key[i] = (uint8_t)rng();
			for (size_t i = 0; i < n; i++)
				msg[i] = (uint8_t)rng();
			ossl_hmac(h, key, kl, msg, n, b);
			er_hmac(h, key, kl, msg, n, a);
			assert_memory_equal(a, b, er_hash_len(h));
			/* incremental */
			struct er_hmac_ctx c;
			size_t cut = rng_below(n + 1);
			er_hmac_init(&c, h, key, kl);
			er_hmac_update(&c, msg, cut);
			er_hmac_update(&c, msg + cut, n - cut);
			er_hmac_final(&c, a);
			assert_memory_equal(a, b, er_hash_len(h));
		}
	}
}

static void test_wipe_and_ct_equal(void **state)
{
	(void)state;
	uint8_t a[300], b[300];

	rng_seed(9);
	for (size_t off = 0; off < 9; off++) {
		for (size_t n = 0; n < 280; n += 1 + n / 8) {
			for (size_t i = 0; i < sizeof(a); i++)
				a[i] = (uint8_t)(rng() | 1);
			memcpy(b, a, sizeof(a));
			er_wipe(a + off, n);
			for (size_t i = 0; i < sizeof(a); i++)
				assert_int_equal(a[i], (i >= off && i < off + n) ? 0 : b[i]);
		}
	}
	for (int it = 0; it < 2000; it++) {
		size_t n = rng_below(sizeof(a) + 1);
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = (uint8_t)rng();
		assert_true(er_ct_equal(a, b, n));
		if (n) {
			size_t at = rng_below(n);
			uint8_t bit = (uint8_t)(1u << rng_below(8));
			b[at] ^= bit;
			assert_false(er_ct_equal(a, b, n));
			assert_false(er_ct_equal(b, a, n));
			/* a difference outside the n compared bytes does not count */
			assert_true(er_ct_equal(a, b, at));
		}
	}
	assert_true(er_ct_equal(NULL, NULL, 0));
}

/* each body once per SHA-256 implementation */
static void both_paths(void (*body)(void))
{
	if (er_sha_hw_available()) {
		er_sha_force_soft(false);
		body();
	} else {
		print_message("no SHA extensions on this CPU: portable SHA-256 only\n");
	}
	er_sha_force_soft(true);
	body();
	er_sha_force_soft(false);
}

#define BOTH(name) static void name(void **state) { (void)state; both_paths(name##_body); }
BOTH(test_fips180_examples)
BOTH(test_vs_openssl_random)
BOTH(test_bytewise_long)
BOTH(test_hmac_vectors)
BOTH(test_hmac_vs_openssl)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_and_names),
		cmocka_unit_test(test_fips180_examples),
		cmocka_unit_test(test_vs_openssl_random),
		cmocka_unit_test(test_bytewise_long),
		cmocka_unit_test(test_hmac_vectors),
		cmocka_unit_test(test_hmac_vs_openssl),
		cmocka_unit_test(test_wipe_and_ct_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
