// SPDX-License-Identifier: GPL-2.0-or-later
/* RSA public operation and OAEP-SHA-256: see rsa.h. */
#include "crypto/rsa.h"
#include "crypto/sha.h"
#include "crypto/wipe.h"

#define LIMBS (ER_RSA_MAX_BYTES / 4)

struct bn { uint32_t v[LIMBS]; size_t n; };     /* little-endian limbs, n used */

static void bn_from_be(struct bn *a, const uint8_t *b, size_t len)
{
	a->n = len / 4;
	for (size_t i = 0; i < a->n; i++)
		a->v[i] = (uint32_t)b[len - 1 - 4 * i] | ((uint32_t)b[len - 2 - 4 * i] << 8) |
			  ((uint32_t)b[len - 3 - 4 * i] << 16) | ((uint32_t)b[len - 4 - 4 * i] << 24);
}

static void bn_to_be(uint8_t *b, size_t len, const struct bn *a)
{
	for (size_t i = 0; i < a->n; i++) {
		b[len - 1 - 4 * i] = (uint8_t)a->v[i];
		b[len - 2 - 4 * i] = (uint8_t)(a->v[i] >> 8);
		b[len - 3 - 4 * i] = (uint8_t)(a->v[i] >> 16);
		b[len - 4 - 4 * i] = (uint8_t)(a->v[i] >> 24);
	}
}

/* r = a - m over n limbs; the borrow */
static uint32_t bn_sub(uint32_t *r, const uint32_t *a, const uint32_t *m, size_t n)
{
	uint64_t borrow = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)a[i] - m[i] - borrow;
		r[i] = (uint32_t)d;
		borrow = (d >> 32) & 1;
	}
	return (uint32_t)borrow;
}

/* r = (value with a carry limb) reduced once by m: value < 2m */
static void bn_reduce_once(uint32_t *r, const uint32_t *a, uint32_t carry, const uint32_t *m, size_t n)
{
	uint32_t t[LIMBS];
	uint32_t borrow = bn_sub(t, a, m, n);
	uint32_t mask = (uint32_t)0 - (carry | (borrow ^ 1));
	for (size_t i = 0; i < n; i++)
		r[i] = (t[i] & mask) | (a[i] & ~mask);
}

/* Montgomery product a * b / 2^(32n) mod m; m0 = -m^-1 mod 2^32 */
static void mont_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, size_t n, uint32_t m0)
{
	uint32_t t[LIMBS + 2] = { 0 };
	for (size_t i = 0; i < n; i++) {
		uint64_t c = 0;
		for (size_t j = 0; j < n; j++) {
			c += (uint64_t)t[j] + (uint64_t)a[j] * b[i];
			t[j] = (uint32_t)c;
			c >>= 32;
		}
		c += t[n];
		t[n] = (uint32_t)c;
		t[n + 1] = (uint32_t)(c >> 32);
		uint32_t q = t[0] * m0;
		c = ((uint64_t)t[0] + (uint64_t)q * m[0]) >> 32;
		for (size_t j = 1; j < n; j++) {
			c += (uint64_t)t[j] + (uint64_t)q * m[j];
			t[j - 1] = (uint32_t)c;
			c >>= 32;
		}
		c += t[n];
		t[n - 1] = (uint32_t)c;
		t[n] = t[n + 1] + (uint32_t)(c >> 32);
	}
	bn_reduce_once(r, t, t[n], m, n);
	er_wipe(t, sizeof(t));
}

bool er_rsa_public(const uint8_t *nb, size_t nlen, uint32_t e, const uint8_t *in, uint8_t *out)
{
	struct bn m, x, rr, acc, xm, tmp;
	uint32_t m0, inv = 1;
	bool ok = false;
	int top;

	if (nlen < 64 || nlen > ER_RSA_MAX_BYTES || nlen % 4 || !(nb[nlen - 1] & 1) || nb[0] == 0 || e < 3 || !(e & 1))
		return false;
	bn_from_be(&m, nb, nlen);
	bn_from_be(&x, in, nlen);
	if (bn_sub(tmp.v, x.v, m.v, m.n) == 0)          /* in >= n */
		goto out;
	/* m0 = -m^-1 mod 2^32 by Newton's iteration */
	for (int i = 0; i < 5; i++)
		inv *= 2 - m.v[0] * inv;
	m0 = (uint32_t)0 - inv;
	/* R mod m = 2^(32n) - m (m's top byte non-zero: 2^(32n) < 2^8 m... reduce by doubling from 1) */
	rr.n = m.n;
	for (size_t i = 0; i < m.n; i++)
		rr.v[i] = 0;
	rr.v[0] = 1;
	/* 1 * 2^(64n) mod m by 64n modular doublings: rr ends as R^2 mod m */
	for (size_t i = 0; i < 64 * m.n; i++) {
		uint32_t carry = rr.v[m.n - 1] >> 31;
		for (size_t j = m.n - 1; j > 0; j--)
			rr.v[j] = (rr.v[j] << 1) | (rr.v[j - 1] >> 31);
		rr.v[0] <<= 1;
		bn_reduce_once(rr.v, rr.v, carry, m.v, m.n);
	}
	acc.n = xm.n = tmp.n = m.n;
	mont_mul(xm.v, x.v, rr.v, m.v, m.n, m0);        /* x in Montgomery form */
	for (size_t i = 0; i < m.n; i++)
		acc.v[i] = xm.v[i];
	for (top = 31; !((e >> top) & 1); top--)
		;
	for (int b = top - 1; b >= 0; b--) {
		mont_mul(acc.v, acc.v, acc.v, m.v, m.n, m0);
		if ((e >> b) & 1)
			mont_mul(acc.v, acc.v, xm.v, m.v, m.n, m0);
	}
	for (size_t i = 0; i < m.n; i++)
		tmp.v[i] = 0;
	tmp.v[0] = 1;
	mont_mul(acc.v, acc.v, tmp.v, m.v, m.n, m0);    /* out of Montgomery form */
	bn_to_be(out, nlen, &acc);
	ok = true;
out:
	er_wipe(&x, sizeof(x)); er_wipe(&xm, sizeof(xm)); er_wipe(&acc, sizeof(acc));
	return ok;
}

/* out ^= MGF1-SHA256(seed, len) */
static void mgf1_xor(uint8_t *out, size_t len, const uint8_t *seed, size_t seed_len)
{
	uint8_t h[32], c[4];
	struct er_hash_ctx ctx;
	for (uint32_t i = 0, off = 0; off < len; i++) {
		c[0] = (uint8_t)(i >> 24); c[1] = (uint8_t)(i >> 16); c[2] = (uint8_t)(i >> 8); c[3] = (uint8_t)i;
		er_hash_init(&ctx, ER_HASH_SHA256);
		er_hash_update(&ctx, seed, seed_len);
		er_hash_update(&ctx, c, 4);
		er_hash_final(&ctx, h);
		for (size_t j = 0; j < 32 && off < len; j++, off++)
			out[off] ^= h[j];
	}
	er_wipe(h, sizeof(h));
}

bool er_rsa_oaep_sha256_encrypt(const uint8_t *n, size_t nlen, uint32_t e,
				const uint8_t *label, size_t label_len,
				const uint8_t *msg, size_t mlen, const uint8_t seed[32], uint8_t *out)
{
	uint8_t em[ER_RSA_MAX_BYTES];
	size_t db_len = nlen - 33;
	uint8_t *ms = em + 1, *db = em + 33;
	bool ok;

	if (nlen < 64 || nlen > ER_RSA_MAX_BYTES || mlen > nlen - 66)
		return false;
	/* EM = 0x00 || maskedSeed || maskedDB, DB = lHash || PS || 0x01 || M */
	for (size_t i = 0; i < nlen; i++)
		em[i] = 0;
	er_hash(ER_HASH_SHA256, label, label_len, db);
	db[db_len - mlen - 1] = 0x01;
	for (size_t i = 0; i < mlen; i++)
		db[db_len - mlen + i] = msg[i];
	for (size_t i = 0; i < 32; i++)
		ms[i] = seed[i];
	mgf1_xor(db, db_len, ms, 32);
	mgf1_xor(ms, 32, db, db_len);
	ok = er_rsa_public(n, nlen, e, em, out);
	er_wipe(em, sizeof(em));
	return ok;
}
