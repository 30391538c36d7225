// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/p256.c against OpenSSL (EC_POINT_mul on NID_X9_62_prime256v1):
 * public keys from random scalars and the edge scalars 1, 2, n-1; ECDH both ways
 * (ours with OpenSSL's key and the reverse); refusals: scalar 0, n, above n, a point off
 * the curve, a coordinate >= p. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include "crypto/p256.h"
#include "image/freestanding.h"

#include "codec_data.h"
#include "unhex.h"

static const char *N_HEX = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
static const char *P_HEX = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";

static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

/* OpenSSL: k * point (G when point is NULL), affine x || y */
static int ossl_mul(const uint8_t k[32], const uint8_t *point, uint8_t out[64])
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *bk = BN_bin2bn(k, 32, NULL), *x = BN_new(), *y = BN_new();
	EC_POINT *r = EC_POINT_new(g), *q = NULL;
	int ok;

	if (point) {
		BIGNUM *qx = BN_bin2bn(point, 32, NULL), *qy = BN_bin2bn(point + 32, 32, NULL);
		q = EC_POINT_new(g);
		assert_int_equal(EC_POINT_set_affine_coordinates(g, q, qx, qy, ctx), 1);
		BN_free(qx);
		BN_free(qy);
		ok = EC_POINT_mul(g, r, NULL, q, bk, ctx);
	} else {
		ok = EC_POINT_mul(g, r, bk, NULL, NULL, ctx);
	}
	assert_int_equal(ok, 1);
	assert_int_equal(EC_POINT_get_affine_coordinates(g, r, x, y, ctx), 1);
	assert_int_equal(BN_bn2binpad(x, out, 32), 32);
	assert_int_equal(BN_bn2binpad(y, out + 32, 32), 32);
	BN_free(bk); BN_free(x); BN_free(y);
	EC_POINT_free(r); EC_POINT_free(q);
	BN_CTX_free(ctx);
	EC_GROUP_free(g);
	return 1;
}

static void random_scalar(uint8_t k[32])
{
	uint8_t n[32];
	unhex(N_HEX, n, 32);
	do
		rand_bytes(k, 32);
	while (memcmp(k, n, 32) >= 0 || k[0] == 0xFF);
}

static void test_public_vs_openssl(void **state)
{
	uint8_t k[32], ours[64], theirs[64];
	(void)state;
	rng_seed(256);
	for (int i = 0; i < 200; i++) {
		random_scalar(k);
		assert_true(er_p256_public(k, ours));
		ossl_mul(k, NULL, theirs);
		assert_memory_equal(ours, theirs, 64);
		assert_true(er_p256_on_curve(ours));
	}
	/* edge scalars: 1, 2, 3, n-1, n-2 */
	static const char *edges[] = {
		"0000000000000000000000000000000000000000000000000000000000000001",
		"0000000000000000000000000000000000000000000000000000000000000002",
		"0000000000000000000000000000000000000000000000000000000000000003",
		"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550",
		"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254f",
		"8000000000000000000000000000000000000000000000000000000000000000",
	};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		unhex(edges[i], k, 32);
		assert_true(er_p256_public(k, ours));
		ossl_mul(k, NULL, theirs);
		assert_memory_equal(ours, theirs, 64);
	}
}

static void test_ecdh_vs_openssl(void **state)
{
	uint8_t a[32], b[32], pa[64], pb[64], s1[32], s2[32], o[64];
	(void)state;
	rng_seed(257);
	for (int i = 0; i < 100; i++) {
		random_scalar(a);
		random_scalar(b);
		ossl_mul(b, NULL, pb);                /* the peer's key from OpenSSL */
		assert_true(er_p256_ecdh(a, pb, s1));
		ossl_mul(a, pb, o);
		assert_memory_equal(s1, o, 32);
		assert_true(er_p256_public(a, pa));
		assert_true(er_p256_ecdh(b, pa, s2));
		assert_memory_equal(s1, s2, 32);
	}
}

static void test_refusals(void **state)
{
	uint8_t k[32], pub[64], bad[64], x[32];
	(void)state;
	rng_seed(258);
	random_scalar(k);
	assert_true(er_p256_public(k, pub));
	memset(k, 0, 32);
	assert_false(er_p256_public(k, bad));           /* 0 */
	unhex(N_HEX, k, 32);
	assert_false(er_p256_public(k, bad));           /* n */
	memset(k, 0xFF, 32);
	assert_false(er_p256_public(k, bad));           /* > n */
	random_scalar(k);
	memcpy(bad, pub, 64);
	bad[63] ^= 1;                                   /* off the curve */
	assert_false(er_p256_on_curve(bad));
	assert_false(er_p256_ecdh(k, bad, x));
	unhex(P_HEX, bad, 32);                          /* x = p */
	assert_false(er_p256_on_curve(bad));
	assert_false(er_p256_ecdh(k, bad, x));
	memset(bad, 0, 64);                             /* (0, 0): not on the curve */
	assert_false(er_p256_ecdh(k, bad, x));
	assert_true(er_p256_ecdh(k, pub, x));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public_vs_openssl),
		cmocka_unit_test(test_ecdh_vs_openssl),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
