// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/aes.c: AES-128/256-XTS with the plain64 tweak, against OpenSSL's
 * EVP_aes_{128,256}_xts as the oracle (random keys, sectors incl. > 2^32, lengths,
 * alignments; encrypt and decrypt; the AES-NI path and the table-free path), plus the
 * IEEE 1619-2007 known-answer vectors and FIPS-197 single-block vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "crypto/aes.h"
#include "image/freestanding.h"

#include "codec_data.h"
#include "unhex.h"      /* hex test vectors */   /* the seeded generator */


/* OpenSSL's XTS on one data unit, tweak = plain64(sector) */
static void ossl_xts(bool enc, const uint8_t *key, size_t keylen, uint64_t sector,
		     const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t iv[16] = { 0 };
	int l = 0, l2 = 0;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	er_put_le64(iv, sector);
	assert_non_null(c);
	assert_int_equal(EVP_CipherInit_ex(c, keylen == 32 ? EVP_aes_128_xts() : EVP_aes_256_xts(),
					   NULL, key, iv, enc ? 1 : 0), 1);
	assert_int_equal(EVP_CipherUpdate(c, out, &l, in, (int)len), 1);
	assert_int_equal(EVP_CipherFinal_ex(c, out + l, &l2), 1);
	assert_int_equal((size_t)(l + l2), len);
	EVP_CIPHER_CTX_free(c);
}

static void ossl_ecb(bool enc, const uint8_t *key, size_t keylen, const uint8_t *in, uint8_t *out)
{
	int l = 0;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	assert_non_null(c);
	assert_int_equal(EVP_CipherInit_ex(c, keylen == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb(),
					   NULL, key, NULL, enc ? 1 : 0), 1);
	EVP_CIPHER_CTX_set_padding(c, 0);
	assert_int_equal(EVP_CipherUpdate(c, out, &l, in, 16), 1);
	assert_int_equal(l, 16);
	EVP_CIPHER_CTX_free(c);
}

static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

/* distinct halves, as OpenSSL 3 refuses K1 == K2 for encryption */
static void rand_key(uint8_t *k, size_t n)
{
	do
		rand_bytes(k, n);
	while (memcmp(k, k + n / 2, n / 2) == 0);
}

static bool hw(void)
{
	return er_aes_hw_available();
}

/* ---------------------------------------------------------------- known answers */
struct kat { const char *key, *pt, *ct; uint64_t sector; };

/* pattern 00..ff twice */
#define PT512 "PT512"
static const struct kat kats[] = {
	/* IEEE 1619-2007 vector 1 */
	{ "0000000000000000000000000000000000000000000000000000000000000000",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e", 0 },
	/* vector 2 */
	{ "1111111111111111111111111111111122222222222222222222222222222222",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0", 0x3333333333ull },
	/* vector 5 (data unit 0x123456789a, more than 32 bits) */
	{ "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "b01f86f8edc1863706fa8a4253e34f28af319de38334870f4dd1f94cbe9832f1", 0x123456789aull },
	/* vector 4: AES-128, 512 bytes */
	{ "2718281828459045235360287471352631415926535897932384626433832795", PT512,
	  "27a7479befa1d476489f308cd4cfa6e2a96e4bbe3208ff25287dd3819616e89cc78cf7f5e543445f8333d8fa7f56000005279fa5d8b5e4ad40e736ddb4d35412328063fd2aab53e5ea1e0a9f332500a5df9487d07a5c92cc512c8866c7e860ce93fdf166a24912b422976146ae20ce846bb7dc9ba94a767aaef20c0d61ad02655ea92dc4c4e41a8952c651d33174be51a10c421110e6d81588ede82103a252d8a750e8768defffed9122810aaeb99f9172af82b604dc4b8e51bcb08235a6f4341332e4ca60482a4ba1a03b3e65008fc5da76b70bf1690db4eae29c5f1badd03c5ccf2a55d705ddcd86d449511ceb7ec30bf12b1fa35b913f9f747a8afd1b130e94bff94effd01a91735ca1726acd0b197c4e5b03393697e126826fb6bbde8ecc1e08298516e2c9ed03ff3c1b7860f6de76d4cecd94c8119855ef5297ca67e9f3e7ff72b1e99785ca0a7e7720c5b36dc6d72cac9574c8cbbc2f801e23e56fd344b07f22154beba0f08ce8891e643ed995c94d9a69c9f1b5f499027a78572aeebd74d20cc39881c213ee770b1010e4bea718846977ae119f7a023ab58cca0ad752afe656bb3c17256a9f6e9bf19fdd5a38fc82bbe872c5539edb609ef4f79c203ebb140f2e583cb2ad15b4aa5b655016a8449277dbd477ef2c8d6c017db738b18deb4a427d1923ce3ff262735779a418f20a282df920147beabe421ee5319d0568", 0 },
	/* vector 10: AES-256, 512 bytes, data unit 0xff */
	{ "27182818284590452353602874713526624977572470936999595749669676273141592653589793238462643383279502884197169399375105820974944592", PT512,
	  "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed43851ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151", 0xff },
};

static void test_ieee1619_vectors(void **state)
{
	(void)state;
	for (int soft = 0; soft < 2; soft++) {
		if (!soft && !hw()) {
			print_message("no AES-NI on this host: IEEE vectors on the soft path only\n");
			continue;
		}
		er_aes_force_soft(soft);
		for (size_t t = 0; t < ER_ARRAY_SIZE(kats); t++) {
			uint8_t key[64], pt[512], ct[512], buf[512], ref[512];
			struct er_aes_xts x;
			size_t kl = unhex(kats[t].key, key, sizeof(key)), n;

			if (strcmp(kats[t].pt, PT512) == 0) {
				for (int i = 0; i < 512; i++)
					pt[i] = (uint8_t)i;
				n = 512;
			} else {
				n = unhex(kats[t].pt, pt, sizeof(pt));
			}
			assert_int_equal(unhex(kats[t].ct, ct, sizeof(ct)), n);
			assert_true(er_aes_xts_init(&x, key, kl));
			assert_int_equal(x.hw, !soft || hw());
			memcpy(buf, pt, n);
			er_aes_xts_encrypt(&x, kats[t].sector, buf, n);
			assert_memory_equal(buf, ct, n);
			er_aes_xts_decrypt(&x, kats[t].sector, buf, n);
			assert_memory_equal(buf, pt, n);
			/* the vector as transcribed here agrees with OpenSSL too */
			if (memcmp(key, key + kl / 2, kl / 2) != 0) {
				ossl_xts(true, key, kl, kats[t].sector, pt, ref, n);
				assert_memory_equal(ref, ct, n);
			}
			er_aes_xts_wipe(&x);
		}
	}
	er_aes_force_soft(false);
}

static void test_fips197_blocks(void **state)
{
	(void)state;
	uint8_t key[32], pt[16], ct[16], out[16];

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	unhex("00112233445566778899aabbccddeeff", pt, 16);
	/* FIPS-197 appendix C.1 (AES-128) and C.3 (AES-256) */
	unhex("69c4e0d86a7b0430d8cdb78070b4c55a", ct, 16);
	assert_true(er_aes_soft_block_test(key, 16, false, pt, out));
	assert_memory_equal(out, ct, 16);
	assert_true(er_aes_soft_block_test(key, 16, true, ct, out));
	assert_memory_equal(out, pt, 16);
	unhex("8ea2b7ca516745bfeafc49904b496089", ct, 16);
	assert_true(er_aes_soft_block_test(key, 32, false, pt, out));
	assert_memory_equal(out, ct, 16);
	assert_true(er_aes_soft_block_test(key, 32, true, ct, out));
	assert_memory_equal(out, pt, 16);
	assert_false(er_aes_soft_block_test(key, 24, false, pt, out));
}

/* the table-free block cipher against OpenSSL ECB, random keys and blocks; every S-box
 * input shows up in the first round when the plaintext runs over all 256 byte values */
static void test_soft_block_vs_openssl(void **state)
{
	(void)state;
	uint8_t key[32], in[16], a[16], b[16];

	rng_seed(197);
	for (int it = 0; it < 4000; it++) {
		size_t kl = (it & 1) ? 32 : 16;
		bool dec = (it >> 1) & 1;
		rand_bytes(key, sizeof(key));
		if (it < 256) {
			memset(key, 0, sizeof(key));
			memset(in, it, sizeof(in));
		} else {
			rand_bytes(in, sizeof(in));
		}
		assert_true(er_aes_soft_block_test(key, kl, dec, in, a));
		ossl_ecb(!dec, key, kl, in, b);
		assert_memory_equal(a, b, 16);
	}
}

/* random XTS data units against OpenSSL, both paths, both directions, both key sizes */
static void xts_random(bool soft, unsigned seed, int iters)
{
	uint8_t key[64];
	uint8_t *pt = malloc(4096 + 16), *buf = malloc(4096 + 16), *ref = malloc(4096);

	assert_non_null(pt); assert_non_null(buf); assert_non_null(ref);
	er_aes_force_soft(soft);
	rng_seed(seed);
	for (int it = 0; it < iters; it++) {
		size_t kl = (it & 1) ? 64 : 32;
		size_t len = (it % 7 == 0) ? ((it & 8) ? 4096 : 512) : 16 * (1 + rng_below(256));
		size_t mis = rng_below(16);
		uint64_t sector;
		struct er_aes_xts x;

		switch (it % 5) {
		case 0: sector = rng(); break;                              /* full 64 bits */
		case 1: sector = rng() & 0xFFFFFFFFull; break;
		case 2: sector = 0xFFFFFFFFull + rng_below(3); break;       /* around 2^32 */
		case 3: sector = (it & 2) ? 0 : ~0ull; break;
		default: sector = rng_below(1u << 20); break;
		}
		rand_key(key, kl);
		rand_bytes(pt, len);
		assert_true(er_aes_xts_init(&x, key, kl));
		assert_int_equal(x.rounds, kl == 32 ? 10 : 14);
		/* encrypt: ours == OpenSSL's */
		memcpy(buf + mis, pt, len);
		er_aes_xts_encrypt(&x, sector, buf + mis, len);
		ossl_xts(true, key, kl, sector, pt, ref, len);
		assert_memory_equal(buf + mis, ref, len);
		/* decrypt OpenSSL's ciphertext of random data: ours == OpenSSL's decryption */
		rand_bytes(pt, len);
		memcpy(buf + mis, pt, len);
		er_aes_xts_decrypt(&x, sector, buf + mis, len);
		ossl_xts(false, key, kl, sector, pt, ref, len);
		assert_memory_equal(buf + mis, ref, len);
		er_aes_xts_wipe(&x);
	}
	er_aes_force_soft(false);
	free(pt); free(buf); free(ref);
}

static void test_xts_aesni_vs_openssl(void **state)
{
	(void)state;
	if (!hw()) {
		print_message("no AES-NI on this host: AES-NI path not tested\n");
		skip();
	}
	xts_random(false, 1619, 3000);
}

static void test_xts_soft_vs_openssl(void **state)
{
	(void)state;
	xts_random(true, 800, 1500);
}

/* the two paths agree with each other on the same struct (switching after init) */
static void test_paths_agree(void **state)
{
	(void)state;
	uint8_t key[64], a[4096], b[4096];
	struct er_aes_xts x;

	if (!hw())
		skip();
	rng_seed(38);
	for (int it = 0; it < 200; it++) {
		size_t kl = (it & 1) ? 64 : 32, len = 16 * (1 + rng_below(256));
		uint64_t sector = rng();
		rand_key(key, kl);
		rand_bytes(a, len);
		memcpy(b, a, len);
		assert_true(er_aes_xts_init(&x, key, kl));
		er_aes_force_soft(false);
		if (it & 2)
			er_aes_xts_decrypt(&x, sector, a, len);
		else
			er_aes_xts_encrypt(&x, sector, a, len);
		er_aes_force_soft(true);
		if (it & 2)
			er_aes_xts_decrypt(&x, sector, b, len);
		else
			er_aes_xts_encrypt(&x, sector, b, len);
		assert_memory_equal(a, b, len);
	}
	er_aes_force_soft(false);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	uint8_t key[64], buf[64], copy[64];
	struct er_aes_xts x;
	static const size_t bad[] = { 0, 16, 24, 31, 33, 48, 63, 65, 128 };

	memset(key, 0x5a, sizeof(key));
	for (size_t i = 0; i < ER_ARRAY_SIZE(bad); i++)
		assert_false(er_aes_xts_init(&x, key, bad[i]));
	key[40] = 1;
	assert_true(er_aes_xts_init(&x, key, 64));
	/* lengths that are not whole blocks leave the buffer untouched, on both paths */
	rng_seed(5);
	rand_bytes(buf, sizeof(buf));
	memcpy(copy, buf, sizeof(buf));
	for (int soft = 0; soft < 2; soft++) {
		er_aes_force_soft(soft);
		for (size_t len = 0; len < 64; len++) {
			if (len % 16 == 0 && len)
				continue;
			er_aes_xts_encrypt(&x, 7, buf, len);
			er_aes_xts_decrypt(&x, 7, buf, len);
			assert_memory_equal(buf, copy, sizeof(buf));
		}
	}
	er_aes_force_soft(false);
	/* wipe leaves nothing */
	er_aes_xts_wipe(&x);
	const uint8_t *p = (const uint8_t *)&x;
	for (size_t i = 0; i < sizeof(x); i++)
		assert_int_equal(p[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips197_blocks),
		cmocka_unit_test(test_soft_block_vs_openssl),
		cmocka_unit_test(test_ieee1619_vectors),
		cmocka_unit_test(test_xts_aesni_vs_openssl),
		cmocka_unit_test(test_xts_soft_vs_openssl),
		cmocka_unit_test(test_paths_agree),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
