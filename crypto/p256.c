// SPDX-License-Identifier: GPL-2.0-or-later
/* NIST P-256 ECDH: see p256.h. Field elements are eight little-endian 32-bit limbs, kept
 * in Montgomery form (a * 2^256 mod p) and fully reduced (< p) after every operation. */
#include "crypto/p256.h"
#include "crypto/wipe.h"

typedef uint32_t fe[8];

/* p = 2^256 - 2^224 + 2^192 + 2^96 - 1 */
static const fe P = { 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x00000000,
		      0x00000000, 0x00000000, 0x00000001, 0xFFFFFFFF };
/* the group order n */
static const fe N = { 0xFC632551, 0xF3B9CAC2, 0xA7179E84, 0xBCE6FAAD,
		      0xFFFFFFFF, 0xFFFFFFFF, 0x00000000, 0xFFFFFFFF };
static const uint8_t B_BE[32] = {
	0x5a, 0xc6, 0x35, 0xd8, 0xaa, 0x3a, 0x93, 0xe7, 0xb3, 0xeb, 0xbd, 0x55, 0x76, 0x98, 0x86, 0xbc,
	0x65, 0x1d, 0x06, 0xb0, 0xcc, 0x53, 0xb0, 0xf6, 0x3b, 0xce, 0x3c, 0x3e, 0x27, 0xd2, 0x60, 0x4b };
static const uint8_t G_BE[64] = {
	0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
	0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
	0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
	0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5 };

static void fe_from_be(fe r, const uint8_t b[32])
{
	for (int i = 0; i < 8; i++)
		r[i] = ((uint32_t)b[31 - 4 * i]) | ((uint32_t)b[30 - 4 * i] << 8) |
		       ((uint32_t)b[29 - 4 * i] << 16) | ((uint32_t)b[28 - 4 * i] << 24);
}

static void fe_to_be(uint8_t b[32], const fe a)
{
	for (int i = 0; i < 8; i++) {
		b[31 - 4 * i] = (uint8_t)a[i];
		b[30 - 4 * i] = (uint8_t)(a[i] >> 8);
		b[29 - 4 * i] = (uint8_t)(a[i] >> 16);
		b[28 - 4 * i] = (uint8_t)(a[i] >> 24);
	}
}

/* r = a - m, returns the borrow (0 or 1) */
static uint32_t sub8(fe r, const fe a, const fe m)
{
	uint64_t borrow = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t d = (uint64_t)a[i] - m[i] - borrow;
		r[i] = (uint32_t)d;
		borrow = (d >> 32) & 1;
	}
	return (uint32_t)borrow;
}

/* r = mask ? a : b, mask all ones or zero */
static void fe_select(fe r, uint32_t mask, const fe a, const fe b)
{
	for (int i = 0; i < 8; i++)
		r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* value (with a carry bit above its 256 bits) reduced once by p: the value must be < 2p */
static void fe_reduce_once(fe r, const fe a, uint32_t carry)
{
	fe t;
	uint32_t borrow = sub8(t, a, P);
	/* keep t when the subtraction did not go below zero: carry set, or no borrow */
	uint32_t use_t = (uint32_t)0 - (carry | (borrow ^ 1));
	fe_select(r, use_t, t, a);
}

static void fe_add(fe r, const fe a, const fe b)
{
	fe t;
	uint64_t c = 0;
	for (int i = 0; i < 8; i++) {
		c += (uint64_t)a[i] + b[i];
		t[i] = (uint32_t)c;
		c >>= 32;
	}
	fe_reduce_once(r, t, (uint32_t)c);
}

static void fe_sub(fe r, const fe a, const fe b)
{
	fe t;
	uint32_t mask = (uint32_t)0 - sub8(t, a, b);
	uint64_t c = 0;
	for (int i = 0; i < 8; i++) {
		c += (uint64_t)t[i] + (P[i] & mask);
		r[i] = (uint32_t)c;
		c >>= 32;
	}
}

/* Montgomery product a * b / 2^256 mod p (CIOS; -p^-1 mod 2^32 = 1 since p = -1 mod 2^32) */
static void fe_mul(fe r, const fe a, const fe b)
{
	uint32_t t[10] = { 0 };
	for (int i = 0; i < 8; i++) {
		uint64_t c = 0;
		for (int j = 0; j < 8; j++) {
			c += (uint64_t)t[j] + (uint64_t)a[j] * b[i];
			t[j] = (uint32_t)c;
			c >>= 32;
		}
		c += t[8];
		t[8] = (uint32_t)c;
		t[9] = (uint32_t)(c >> 32);
		uint32_t m = t[0];
		c = (uint64_t)t[0] + (uint64_t)m * P[0];
		c >>= 32;
		for (int j = 1; j < 8; j++) {
			c += (uint64_t)t[j] + (uint64_t)m * P[j];
			t[j - 1] = (uint32_t)c;
			c >>= 32;
		}
		c += t[8];
		t[7] = (uint32_t)c;
		t[8] = t[9] + (uint32_t)(c >> 32);
	}
	fe_reduce_once(r, t, t[8]);
	er_wipe(t, sizeof(t));
}

static void fe_copy(fe r, const fe a)
{
	for (int i = 0; i < 8; i++)
		r[i] = a[i];
}

static uint32_t fe_is_zero(const fe a)   /* 1 or 0, constant time */
{
	uint32_t x = 0;
	for (int i = 0; i < 8; i++)
		x |= a[i];
	return 1 ^ (uint32_t)(((uint64_t)x + 0xFFFFFFFFu) >> 32);
}

/* R^2 mod p by doubling R mod p (= 2^256 - p) 256 times; the constant is public */
static void fe_rr(fe rr)
{
	fe zero = { 0 };
	sub8(rr, zero, P);          /* 2^256 - p, which is < p */
	for (int i = 0; i < 256; i++)
		fe_add(rr, rr, rr);
}

static void fe_to_mont(fe r, const fe a, const fe rr)
{
	fe_mul(r, a, rr);
}

static void fe_from_mont(fe r, const fe a)
{
	fe one = { 1 };
	fe_mul(r, a, one);
}

/* r = a^(p-2): the inverse (0 for 0); the exponent is public */
static void fe_inv(fe r, const fe a, const fe one_m)
{
	fe x, e;
	fe two = { 2 };
	sub8(e, P, two);
	fe_copy(x, one_m);
	for (int i = 255; i >= 0; i--) {
		fe_mul(x, x, x);
		if ((e[i / 32] >> (i % 32)) & 1)
			fe_mul(x, x, a);
	}
	fe_copy(r, x);
	er_wipe(x, sizeof(x));
}

struct pt { fe x, y, z; };

/* Complete addition, a = -3 (Renes-Costello-Batina 2015, algorithm 4): valid for every pair
 * of points, the identity (0:1:0) and doubling included. b_m is b in Montgomery form. */
static void pt_add(struct pt *r, const struct pt *p, const struct pt *q, const fe b_m)
{
	fe xx, yy, zz, xy, yz, xz, t0, t1, bzz3, yy_m, yy_p, zz3, bxz3, xx3;

	fe_mul(xx, p->x, q->x);
	fe_mul(yy, p->y, q->y);
	fe_mul(zz, p->z, q->z);
	fe_add(t0, p->x, p->y); fe_add(t1, q->x, q->y); fe_mul(xy, t0, t1);
	fe_add(t0, xx, yy); fe_sub(xy, xy, t0);
	fe_add(t0, p->y, p->z); fe_add(t1, q->y, q->z); fe_mul(yz, t0, t1);
	fe_add(t0, yy, zz); fe_sub(yz, yz, t0);
	fe_add(t0, p->x, p->z); fe_add(t1, q->x, q->z); fe_mul(xz, t0, t1);
	fe_add(t0, xx, zz); fe_sub(xz, xz, t0);

	fe_mul(t0, b_m, zz); fe_sub(t0, xz, t0);               /* xz - b*zz */
	fe_add(bzz3, t0, t0); fe_add(bzz3, bzz3, t0);          /* 3(xz - b*zz) */
	fe_sub(yy_m, yy, bzz3);
	fe_add(yy_p, yy, bzz3);
	fe_add(zz3, zz, zz); fe_add(zz3, zz3, zz);
	fe_mul(t0, b_m, xz); fe_sub(t0, t0, zz3); fe_sub(t0, t0, xx);   /* b*xz - 3zz - xx */
	fe_add(bxz3, t0, t0); fe_add(bxz3, bxz3, t0);
	fe_add(xx3, xx, xx); fe_add(xx3, xx3, xx); fe_sub(xx3, xx3, zz3);

	fe_mul(t0, yy_p, xy); fe_mul(t1, yz, bxz3); fe_sub(r->x, t0, t1);
	fe_mul(t0, yy_p, yy_m); fe_mul(t1, xx3, bxz3); fe_add(r->y, t0, t1);
	fe_mul(t0, yy_m, yz); fe_mul(t1, xy, xx3); fe_add(r->z, t0, t1);

	er_wipe(xx, sizeof(xx)); er_wipe(yy, sizeof(yy)); er_wipe(zz, sizeof(zz));
	er_wipe(xy, sizeof(xy)); er_wipe(yz, sizeof(yz)); er_wipe(xz, sizeof(xz));
	er_wipe(t0, sizeof(t0)); er_wipe(t1, sizeof(t1)); er_wipe(bzz3, sizeof(bzz3));
	er_wipe(yy_m, sizeof(yy_m)); er_wipe(yy_p, sizeof(yy_p)); er_wipe(zz3, sizeof(zz3));
	er_wipe(bxz3, sizeof(bxz3)); er_wipe(xx3, sizeof(xx3));
}

static void pt_cswap(struct pt *a, struct pt *b, uint32_t bit)
{
	uint32_t mask = (uint32_t)0 - bit;
	uint32_t *pa = (uint32_t *)a, *pb = (uint32_t *)b;
	for (unsigned i = 0; i < sizeof(struct pt) / 4; i++) {
		uint32_t t = (pa[i] ^ pb[i]) & mask;
		pa[i] ^= t;
		pb[i] ^= t;
	}
}

/* 1 <= k < n, constant time; k as limbs */
static bool scalar_ok(const fe k)
{
	fe t;
	uint32_t lt_n = sub8(t, k, N);    /* borrow: k < n */
	uint32_t ok = lt_n & (fe_is_zero(k) ^ 1);
	er_wipe(t, sizeof(t));
	return ok != 0;
}

/* y^2 == x^3 - 3x + b, x and y in Montgomery form */
static bool on_curve_m(const fe x, const fe y, const fe b_m)
{
	fe l, r, t;
	fe_mul(l, y, y);
	fe_mul(r, x, x);
	fe_mul(r, r, x);
	fe_add(t, x, x); fe_add(t, t, x);
	fe_sub(r, r, t);
	fe_add(r, r, b_m);
	fe_sub(l, l, r);
	return fe_is_zero(l) != 0;
}

/* coordinates < p */
static bool coord_ok(const fe a)
{
	fe t;
	return sub8(t, a, P) == 1;
}

/* x(k * (x, y)) in affine, big-endian; the point is checked by the caller */
static bool ladder(const uint8_t kbe[32], const uint8_t pbe[64], uint8_t out[64], bool want_y)
{
	fe k, rr, b, bm, one_m, px, py, zi, t;
	struct pt r0, r1, s;
	bool ok = false;

	fe_from_be(k, kbe);
	if (!scalar_ok(k))
		goto out;
	fe_rr(rr);
	fe_from_be(b, B_BE);
	fe_to_mont(bm, b, rr);
	{
		fe one = { 1 };
		fe_to_mont(one_m, one, rr);
	}
	fe_from_be(px, pbe);
	fe_from_be(py, pbe + 32);
	if (!coord_ok(px) || !coord_ok(py))
		goto out;
	fe_to_mont(r1.x, px, rr);
	fe_to_mont(r1.y, py, rr);
	if (!on_curve_m(r1.x, r1.y, bm))
		goto out;
	fe_copy(r1.z, one_m);
	/* r0 = the identity (0 : 1 : 0) */
	for (int i = 0; i < 8; i++)
		r0.x[i] = r0.z[i] = 0;
	fe_copy(r0.y, one_m);

	/* invariant: r1 = r0 + P */
	for (int i = 255; i >= 0; i--) {
		uint32_t bit = (k[i / 32] >> (i % 32)) & 1;
		pt_cswap(&r0, &r1, bit);
		pt_add(&s, &r0, &r1, bm);
		pt_add(&r0, &r0, &r0, bm);
		r1 = s;
		pt_cswap(&r0, &r1, bit);
	}
	/* k in [1, n-1] and P of order n: never the identity, but check anyway */
	if (fe_is_zero(r0.z))
		goto out;
	fe_inv(zi, r0.z, one_m);
	fe_mul(t, r0.x, zi);
	fe_from_mont(t, t);
	fe_to_be(out, t);
	if (want_y) {
		fe_mul(t, r0.y, zi);
		fe_from_mont(t, t);
		fe_to_be(out + 32, t);
	}
	ok = true;
out:
	er_wipe(k, sizeof(k)); er_wipe(&r0, sizeof(r0)); er_wipe(&r1, sizeof(r1));
	er_wipe(&s, sizeof(s)); er_wipe(zi, sizeof(zi)); er_wipe(t, sizeof(t));
	return ok;
}

bool er_p256_public(const uint8_t priv[32], uint8_t pub[64])
{
	return ladder(priv, G_BE, pub, true);
}

bool er_p256_ecdh(const uint8_t priv[32], const uint8_t peer[64], uint8_t x_out[32])
{
	uint8_t tmp[64];
	bool ok = ladder(priv, peer, tmp, false);
	if (ok)
		for (int i = 0; i < 32; i++)
			x_out[i] = tmp[i];
	er_wipe(tmp, sizeof(tmp));
	return ok;
}

bool er_p256_on_curve(const uint8_t pub[64])
{
	fe rr, b, bm, x, y, xm, ym;
	fe_from_be(x, pub);
	fe_from_be(y, pub + 32);
	if (!coord_ok(x) || !coord_ok(y))
		return false;
	fe_rr(rr);
	fe_from_be(b, B_BE);
	fe_to_mont(bm, b, rr);
	fe_to_mont(xm, x, rr);
	fe_to_mont(ym, y, rr);
	return on_curve_m(xm, ym, bm);
}
