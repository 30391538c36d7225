// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/pbkdf2.c: PBKDF2-HMAC-SHA-1/256/512 against OpenSSL's
 * PKCS5_PBKDF2_HMAC (random passwords incl. longer than a block, salts, iteration counts,
 * output lengths incl. several hash lengths), and the RFC 6070 vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "crypto/pbkdf2.h"
#include "image/freestanding.h"

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

static void ossl_pbkdf2(enum er_hash h, const uint8_t *pw, size_t pwlen, const uint8_t *salt, size_t saltlen,
			uint32_t iter, uint8_t *out, size_t outlen)
{
	static const uint8_t dummy;
	assert_int_equal(PKCS5_PBKDF2_HMAC(pwlen ? (const char *)pw : (const char *)&dummy, (int)pwlen,
					   saltlen ? salt : &dummy, (int)saltlen, (int)iter, md_of(h),
					   (int)outlen, out), 1);
}


/* RFC 6070 (PBKDF2-HMAC-SHA1); the 16777216-iteration case is left out (time) */
static void test_rfc6070(void **state)
{
	(void)state;
	static const struct {
		const char *p; size_t plen; const char *s; size_t slen; uint32_t c; const char *dk;
	} v[] = {
		{ "password", 8, "salt", 4, 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6" },
		{ "password", 8, "salt", 4, 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957" },
		{ "password", 8, "salt", 4, 4096, "4b007901b765489abead49d926f721d065a429c1" },
		{ "passwordPASSWORDpassword", 24, "saltSALTsaltSALTsaltSALTsaltSALTsalt", 36, 4096,
		  "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038" },
		{ "pass\0word", 9, "sa\0lt", 5, 4096, "56fa6aa75548099dcc37d7f03425e0c3" },
	};
	for (size_t i = 0; i < ER_ARRAY_SIZE(v); i++) {
		uint8_t want[64], got[64], ref[64];
		size_t n = unhex(v[i].dk, want, sizeof(want));
		memset(got, 0xAA, sizeof(got));
		assert_true(er_pbkdf2(ER_HASH_SHA1, (const uint8_t *)v[i].p, v[i].plen,
				      (const uint8_t *)v[i].s, v[i].slen, v[i].c, got, n));
		assert_memory_equal(got, want, n);
		assert_int_equal(got[n], 0xAA);       /* not a byte past outlen */
		ossl_pbkdf2(ER_HASH_SHA1, (const uint8_t *)v[i].p, v[i].plen, (const uint8_t *)v[i].s,
			    v[i].slen, v[i].c, ref, n);
		assert_memory_equal(ref, want, n);
	}
}

static void vs_openssl_random(void)
{
	uint8_t pw[300], salt[100], a[400], b[400];

	rng_seed(8018);
	for (size_t hi = 0; hi < ER_ARRAY_SIZE(hashes); hi++) {
		enum er_hash h = hashes[hi];
		size_t hl = er_hash_len(h);
		for (int it = 0; it < 250; it++) {
			size_t pwlen = it < 20 ? (size_t)it * 10 : rng_below(sizeof(pw) + 1);
			size_t saltlen = rng_below(sizeof(salt) + 1);
			uint32_t iter;
			size_t outlen;

			switch (it % 6) {
			case 0: iter = 1; break;
			case 1: iter = 2; break;
			case 2: iter = 1 + (uint32_t)rng_below(3000); break;
			default: iter = 1 + (uint32_t)rng_below(100); break;
			}
			switch (it % 4) {
			case 0: outlen = hl; break;
			case 1: outlen = hl * (2 + rng_below(3)) + rng_below(hl); break;   /* several blocks */
			case 2: outlen = 1 + rng_below(hl); break;
			default: outlen = it & 4 ? 32 : 64; break;                         /* LUKS key sizes */
			}
			assert_true(outlen <= sizeof(a) - 1);
			for (size_t i = 0; i < pwlen; i++)
				pw[i] = (uint8_t)rng();
			for (size_t i = 0; i < saltlen; i++)
				salt[i] = (uint8_t)rng();
			memset(a, 0x5C, sizeof(a));
			assert_true(er_pbkdf2(h, pw, pwlen, salt, saltlen, iter, a, outlen));
			ossl_pbkdf2(h, pw, pwlen, salt, saltlen, iter, b, outlen);
			assert_memory_equal(a, b, outlen);
			assert_int_equal(a[outlen], 0x5C);
		}
		/* a LUKS-sized run: 50000 iterations, 64-byte key */
		uint8_t s32[32];
		for (size_t i = 0; i < 32; i++)
			s32[i] = (uint8_t)rng();
		assert_true(er_pbkdf2(h, (const uint8_t *)"correct horse", 13, s32, 32, 50000, a, 64));
		ossl_pbkdf2(h, (const uint8_t *)"correct horse", 13, s32, 32, 50000, b, 64);
		assert_memory_equal(a, b, 64);
	}
}

/* SHA-256 through the SHA extensions (when there) and through the portable code */
static void test_vs_openssl_random(void **state)
{
	(void)state;
	if (er_sha_hw_available()) {
		er_sha_force_soft(false);
		vs_openssl_random();
	} else {
		print_message("no SHA extensions on this CPU: portable SHA-256 only\n");
	}
	er_sha_force_soft(true);
	vs_openssl_random();
	er_sha_force_soft(false);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	uint8_t out[64];

	memset(out, 0x11, sizeof(out));
	assert_false(er_pbkdf2(ER_HASH_SHA256, (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 0, out, 32));
	assert_false(er_pbkdf2((enum er_hash)0, (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 1, out, 32));
	assert_false(er_pbkdf2((enum er_hash)7, (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 1, out, 32));
	assert_false(er_pbkdf2(ER_HASH_SHA1, (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 1, out, 0));
	for (size_t i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], 0x11);
}

/* er_pbkdf2_poll: polled before each output block and every ER_PBKDF2_POLL_ITERATIONS
 * iterations; never stopping gives OpenSSL's result; stopping at any poll returns false
 * with *stopped set, the output wiped and no further poll */
struct poller { unsigned polls, fire_at; };
static bool poll_fn(void *ctx)
{
	struct poller *p = ctx;
	return ++p->polls > p->fire_at;
}

static void test_poll(void **state)
{
	(void)state;
	const uint32_t iter = 3 * ER_PBKDF2_POLL_ITERATIONS + 5;
	for (size_t i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++) {
		enum er_hash h = hashes[i];
		size_t hl = er_hash_len(h), outlen = 2 * hl + 3;
		uint8_t out[3 * 64], ref[3 * 64];
		bool stopped = true;
		struct poller pl = { 0, ~0u };

		ossl_pbkdf2(h, (const uint8_t *)"pass", 4, (const uint8_t *)"saltsalt", 8, iter, ref, outlen);
		assert_true(er_pbkdf2_poll(h, (const uint8_t *)"pass", 4, (const uint8_t *)"saltsalt", 8, iter,
					   out, outlen, poll_fn, &pl, &stopped));
		assert_false(stopped);
		assert_memory_equal(out, ref, outlen);
		/* 3 blocks, each: one poll before, one at iterations 8192, 16384, 24576 */
		assert_int_equal(pl.polls, 3 * 4);
		unsigned total = pl.polls;
		for (unsigned k = 0; k < total; k++) {
			pl = (struct poller){ 0, k };
			memset(out, 0x77, sizeof(out));
			assert_false(er_pbkdf2_poll(h, (const uint8_t *)"pass", 4, (const uint8_t *)"saltsalt", 8,
						    iter, out, outlen, poll_fn, &pl, &stopped));
			assert_true(stopped);
			assert_int_equal(pl.polls, k + 1);
			for (size_t j = 0; j < outlen; j++)
				assert_int_equal(out[j], 0);
			assert_int_equal(out[outlen], 0x77);
		}
		/* a refusal is not a stop; no hook: er_pbkdf2 */
		assert_false(er_pbkdf2_poll(h, (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 0, out, 32,
					    poll_fn, &pl, &stopped));
		assert_false(stopped);
		assert_true(er_pbkdf2_poll(h, (const uint8_t *)"pass", 4, (const uint8_t *)"saltsalt", 8, iter,
					   out, outlen, NULL, NULL, NULL));
		assert_memory_equal(out, ref, outlen);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc6070),
		cmocka_unit_test(test_vs_openssl_random),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_poll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
