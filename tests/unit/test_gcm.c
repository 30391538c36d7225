// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/gcm.c: AES-256-GCM against OpenSSL's EVP_aes_256_gcm as the
 * oracle (random keys, IVs, lengths 0, 1, 15, 16, 17, 4096 and odd ones, with and without
 * AAD, in place and not, misaligned buffers), on the AES-NI + PCLMULQDQ path and the
 * portable one forced; the McGrew-Viega / NIST AES-256 test cases (13-16, the 96-bit IV
 * ones); a flipped ciphertext, tag or AAD byte refused with the output zeroed; both paths
 * agreeing; one context used by several threads at once; wipe. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "crypto/gcm.h"
#include "image/freestanding.h"

#include "codec_data.h"
#include "unhex.h"      /* hex test vectors */   /* the seeded generator */


static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

/* OpenSSL AES-256-GCM; decrypt returns whether the tag verified */
static bool ossl_gcm(bool enc, const uint8_t *key, const uint8_t *iv, const uint8_t *aad, size_t aad_len,
		     const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int l = 0, l2 = 0, ok;
	uint8_t dummy[16];

	assert_non_null(c);
	assert_int_equal(EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL, enc ? 1 : 0), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL), 1);
	assert_int_equal(EVP_CipherInit_ex(c, NULL, NULL, key, iv, enc ? 1 : 0), 1);
	if (aad_len)
		assert_int_equal(EVP_CipherUpdate(c, NULL, &l, aad, (int)aad_len), 1);
	if (len)
		assert_int_equal(EVP_CipherUpdate(c, out, &l, in, (int)len), 1);
	else
		l = 0;
	if (!enc)
		assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag), 1);
	ok = EVP_CipherFinal_ex(c, len ? out + l : dummy, &l2);
	if (enc) {
		assert_int_equal(ok, 1);
		assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
	}
	if (ok == 1)
		assert_int_equal((size_t)(l + l2), len);
	EVP_CIPHER_CTX_free(c);
	return ok == 1;
}

static bool hw_possible(void)
{
	struct er_gcm g;
	uint8_t key[32] = { 0 };
	bool hw;

	er_gcm_force_soft(false);
	er_gcm_init(&g, key);
	hw = er_gcm_hw(&g);
	er_gcm_wipe(&g);
	return hw;
}

/* set the path; false when the hardware one is asked for and absent (then skip) */
static bool use_path(bool soft)
{
	if (!soft && !hw_possible()) {
		print_message("no AES-NI + PCLMULQDQ here: hardware path not tested\n");
		return false;
	}
	er_gcm_force_soft(soft);
	return true;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ---------------------------------------------------------------- known answers */
/* D. McGrew, J. Viega, "The Galois/Counter Mode of Operation (GCM)", test cases 13-16
 * (AES-256, 96-bit IV); also NIST's gcmEncryptExtIV256 shape */
struct kat { const char *key, *iv, *pt, *aad, *ct, *tag; };
static const struct kat kats[] = {
	{ "0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
	  "", "", "", "530f8afbc74536b9a963b4f1c4cb738b" },
	{ "0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
	  "00000000000000000000000000000000", "", "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
	  "",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
	  "b094dac5d93471bdec1a502270e3cc6c" },
	{ "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static void test_known_answers(void **state)
{
	(void)state;
	for (int soft = 0; soft < 2; soft++) {
		if (!use_path(soft))
			continue;
		for (size_t t = 0; t < ER_ARRAY_SIZE(kats); t++) {
			uint8_t key[32], iv[12], pt[64], aad[32], ct[64], tag[16], buf[64], got[16], ref[64], rtag[16];
			struct er_gcm g;
			size_t n, an;

			assert_int_equal(unhex(kats[t].key, key, sizeof(key)), 32);
			assert_int_equal(unhex(kats[t].iv, iv, sizeof(iv)), 12);
			n = unhex(kats[t].pt, pt, sizeof(pt));
			an = unhex(kats[t].aad, aad, sizeof(aad));
			assert_int_equal(unhex(kats[t].ct, ct, sizeof(ct)), n);
			assert_int_equal(unhex(kats[t].tag, tag, sizeof(tag)), 16);
			er_gcm_init(&g, key);
			assert_int_equal(er_gcm_hw(&g), !soft);
			er_gcm_encrypt(&g, iv, an ? aad : NULL, an, pt, buf, n, got);
			assert_memory_equal(buf, ct, n);
			assert_memory_equal(got, tag, 16);
			assert_true(er_gcm_decrypt(&g, iv, an ? aad : NULL, an, ct, buf, n, tag));
			assert_memory_equal(buf, pt, n);
			/* the vector as transcribed here agrees with OpenSSL too */
			ossl_gcm(true, key, iv, aad, an, pt, ref, n, rtag);
			assert_memory_equal(ref, ct, n);
			assert_memory_equal(rtag, tag, 16);
			er_gcm_wipe(&g);
		}
	}
	er_gcm_force_soft(false);
}

/* ---------------------------------------------------------------- random vs OpenSSL */
static const size_t fixed_lens[] = { 0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 79, 111, 112,
				     127, 128, 129, 143, 255, 256, 257, 4095, 4096, 4097, 4111 };

static size_t pick_len(int it)
{
	if (it < (int)ER_ARRAY_SIZE(fixed_lens))
		return fixed_lens[it];
	switch (it % 4) {
	case 0: return 4096;
	case 1: return rng_below(300);
	case 2: return 1 + 2 * rng_below(3000);   /* odd */
	default: return rng_below(9000);
	}
}

static void gcm_random(bool soft, unsigned seed, int iters)
{
	enum { MAX = 9000 + 64 };
	uint8_t *pt = malloc(MAX), *buf = malloc(MAX), *ref = malloc(MAX), *aad = malloc(512);
	uint8_t key[32], iv[12], tag[16], rtag[16];

	assert_non_null(pt); assert_non_null(buf); assert_non_null(ref); assert_non_null(aad);
	rng_seed(seed);
	for (int it = 0; it < iters; it++) {
		size_t len = pick_len(it % 200), mis = rng_below(16), amis = rng_below(16);
		size_t aad_len = (it & 1) ? 0 : (it & 2) ? 1 + rng_below(40) : rng_below(400);
		bool inplace = (it >> 2) & 1;
		struct er_gcm g;
		uint8_t *in, *out;

		rand_bytes(key, sizeof(key));
		rand_bytes(iv, sizeof(iv));
		rand_bytes(aad + amis, aad_len);
		rand_bytes(pt, len);
		er_gcm_init(&g, key);
		assert_int_equal(er_gcm_hw(&g), !soft);
		/* encrypt: ours == OpenSSL's, ciphertext and tag */
		ossl_gcm(true, key, iv, aad + amis, aad_len, pt, ref, len, rtag);
		out = buf + mis;
		if (inplace) {
			memcpy(out, pt, len);
			in = out;
		} else {
			in = pt;
		}
		er_gcm_encrypt(&g, iv, aad_len ? aad + amis : NULL, aad_len, in, out, len, tag);
		assert_memory_equal(out, ref, len);
		assert_memory_equal(tag, rtag, 16);
		/* decrypt OpenSSL's ciphertext */
		if (inplace) {
			memcpy(out, ref, len);
			in = out;
		} else {
			in = ref;
		}
		assert_true(er_gcm_decrypt(&g, iv, aad_len ? aad + amis : NULL, aad_len, in, out, len, rtag));
		assert_memory_equal(out, pt, len);
		er_gcm_wipe(&g);
	}
	er_gcm_force_soft(false);
	free(pt); free(buf); free(ref); free(aad);
}

static void test_hw_vs_openssl(void **state)
{
	(void)state;
	if (!use_path(false))
		skip();
	gcm_random(false, 38, 3000);
}

static void test_soft_vs_openssl(void **state)
{
	(void)state;
	use_path(true);
	gcm_random(true, 800, 1000);
}

/* ---------------------------------------------------------------- forgeries */
/* one flipped bit of the ciphertext, the tag or the AAD: refused, the output zeroed,
 * in place and not; OpenSSL refuses the same */
static void tamper(bool soft)
{
	uint8_t key[32], iv[12], pt[300], ct[300], buf[300], aad[40], tag[16], bad[16];
	struct er_gcm g;

	rng_seed(soft ? 5 : 6);
	for (int it = 0; it < 600; it++) {
		size_t len = it % 3 == 0 ? 0 : 1 + rng_below(sizeof(pt) - 1), aad_len = rng_below(sizeof(aad));
		int what = it % 3;   /* 0 tag, 1 ciphertext, 2 aad */
		bool inplace = (it >> 2) & 1;

		if (what == 1 && len == 0)
			what = 0;
		if (what == 2 && aad_len == 0)
			aad_len = 1;
		rand_bytes(key, sizeof(key));
		rand_bytes(iv, sizeof(iv));
		rand_bytes(pt, len);
		rand_bytes(aad, aad_len);
		er_gcm_init(&g, key);
		er_gcm_encrypt(&g, iv, aad, aad_len, pt, ct, len, tag);
		memcpy(bad, tag, 16);
		switch (what) {
		case 0: bad[rng_below(16)] ^= (uint8_t)(1u << rng_below(8)); break;
		case 1: ct[rng_below(len)] ^= (uint8_t)(1u << rng_below(8)); break;
		default: aad[rng_below(aad_len)] ^= (uint8_t)(1u << rng_below(8)); break;
		}
		memset(buf, 0xA5, sizeof(buf));
		if (inplace) {
			memcpy(buf, ct, len);
			assert_false(er_gcm_decrypt(&g, iv, aad, aad_len, buf, buf, len, bad));
		} else {
			assert_false(er_gcm_decrypt(&g, iv, aad, aad_len, ct, buf, len, bad));
		}
		assert_true(all_zero(buf, len));
		assert_int_equal(buf[len], 0xA5);   /* not one byte more */
		assert_false(ossl_gcm(false, key, iv, aad, aad_len, ct, pt, len, bad));
		er_gcm_wipe(&g);
	}
}

static void test_tamper_refused(void **state)
{
	(void)state;
	for (int soft = 0; soft < 2; soft++)
		if (use_path(soft))
			tamper(soft);
	er_gcm_force_soft(false);
}

/* another IV or key: refused too */
static void test_wrong_iv_or_key(void **state)
{
	(void)state;
	uint8_t key[32], iv[12], pt[4096], ct[4096], tag[16];
	struct er_gcm g;

	rng_seed(12);
	for (int soft = 0; soft < 2; soft++) {
		if (!use_path(soft))
			continue;
		rand_bytes(key, sizeof(key));
		rand_bytes(iv, sizeof(iv));
		rand_bytes(pt, sizeof(pt));
		er_gcm_init(&g, key);
		er_gcm_encrypt(&g, iv, NULL, 0, pt, ct, sizeof(ct), tag);
		iv[11] ^= 1;
		assert_false(er_gcm_decrypt(&g, iv, NULL, 0, ct, pt, sizeof(ct), tag));
		assert_true(all_zero(pt, sizeof(pt)));
		iv[11] ^= 1;
		key[0] ^= 1;
		er_gcm_init(&g, key);
		assert_false(er_gcm_decrypt(&g, iv, NULL, 0, ct, pt, sizeof(ct), tag));
		assert_true(all_zero(pt, sizeof(pt)));
		er_gcm_wipe(&g);
	}
	er_gcm_force_soft(false);
}

/* ---------------------------------------------------------------- the paths agree */
/* the hardware path's counter and aggregation boundaries: every length 0..600 and the
 * page sizes, the same context used on both paths */
static void test_paths_agree(void **state)
{
	(void)state;
	uint8_t key[32], iv[12], aad[200], pt[8200], a[8200], b[8200], ta[16], tb[16];
	struct er_gcm g;

	if (!use_path(false))
		skip();
	rng_seed(77);
	for (size_t len = 0; len < 8200; len += (len < 600 ? 1 : 97 + rng_below(50))) {
		size_t aad_len = rng_below(sizeof(aad));
		rand_bytes(key, sizeof(key));
		rand_bytes(iv, sizeof(iv));
		rand_bytes(aad, aad_len);
		rand_bytes(pt, len);
		er_gcm_init(&g, key);
		er_gcm_force_soft(false);
		er_gcm_encrypt(&g, iv, aad, aad_len, pt, a, len, ta);
		er_gcm_force_soft(true);
		er_gcm_encrypt(&g, iv, aad, aad_len, pt, b, len, tb);
		assert_memory_equal(a, b, len);
		assert_memory_equal(ta, tb, 16);
		assert_true(er_gcm_decrypt(&g, iv, aad, aad_len, a, b, len, ta));
		assert_memory_equal(b, pt, len);
		er_gcm_force_soft(false);
		assert_true(er_gcm_decrypt(&g, iv, aad, aad_len, a, a, len, tb));
		assert_memory_equal(a, pt, len);
	}
	er_gcm_wipe(&g);
	er_gcm_force_soft(false);
}

/* ---------------------------------------------------------------- threads */
struct job {
	const struct er_gcm *g;
	const uint8_t *pt, *ct, *tag;
	unsigned seed;
	int bad;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	uint8_t buf[4096], t[16], iv[12];

	for (int it = 0; it < 300; it++) {
		memset(iv, 0, sizeof(iv));
		iv[0] = (uint8_t)(it & 7);
		er_gcm_encrypt(j->g, iv, NULL, 0, j->pt, buf, sizeof(buf), t);
		if (iv[0] == 0 && (memcmp(buf, j->ct, sizeof(buf)) || memcmp(t, j->tag, 16)))
			j->bad++;
		if (!er_gcm_decrypt(j->g, iv, NULL, 0, buf, buf, sizeof(buf), t) || memcmp(buf, j->pt, sizeof(buf)))
			j->bad++;
	}
	return NULL;
}

/* one context, four threads at once: it is only read after init */
static void test_shared_context_threads(void **state)
{
	(void)state;
	uint8_t key[32], pt[4096], ct[4096], tag[16], iv[12] = { 0 };
	struct er_gcm g;
	pthread_t th[4];
	struct job jobs[4];

	rng_seed(4);
	rand_bytes(key, sizeof(key));
	rand_bytes(pt, sizeof(pt));
	er_gcm_force_soft(false);
	er_gcm_init(&g, key);
	ossl_gcm(true, key, iv, NULL, 0, pt, ct, sizeof(ct), tag);
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){ &g, pt, ct, tag, (unsigned)i, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(jobs[i].bad, 0);
	}
	er_gcm_wipe(&g);
}

static void test_wipe(void **state)
{
	(void)state;
	uint8_t key[32];
	struct er_gcm g;

	memset(key, 0x5a, sizeof(key));
	er_gcm_init(&g, key);
	er_gcm_wipe(&g);
	assert_true(all_zero((const uint8_t *)&g, sizeof(g)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_hw_vs_openssl),
		cmocka_unit_test(test_soft_vs_openssl),
		cmocka_unit_test(test_tamper_refused),
		cmocka_unit_test(test_wrong_iv_or_key),
		cmocka_unit_test(test_paths_agree),
		cmocka_unit_test(test_shared_context_threads),
		cmocka_unit_test(test_wipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
