// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-256-GCM (NIST SP 800-38D): 96-bit IV, J0 = IV || 0^31 || 1, CTR with inc32 from
 * J0 + 1, tag = E_K(J0) xor GHASH_H(A || pad || C || pad || [len(A)]64 || [len(C)]64).
 *
 * The portable path, constant time: AES through aes.c's bit-sliced cipher (four blocks
 * at a time), GHASH by a carry-less 64x64 multiply made of integer multiplies with holes
 * (BearSSL's ghash_ctmul64 idea: with every fourth bit kept, the carries of an integer
 * multiply fall into the holes and are masked off), Karatsuba for 128x128, no table. */
#include "crypto/gcm.h"
#include "crypto/aes.h"
#include "crypto/wipe.h"
#include "image/freestanding.h"
#include "arch/cpu.h"

#define GCM_ROUNDS 14

static bool force_soft;

void er_gcm_force_soft(bool soft)
{
	force_soft = soft;
}

static inline uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* ------------------------------------------------------------------ portable GHASH */
/* carry-less 64x64 -> low 64 bits of the product */
static inline uint64_t bmul64(uint64_t x, uint64_t y)
{
	const uint64_t m0 = 0x1111111111111111ull, m1 = 0x2222222222222222ull;
	const uint64_t m2 = 0x4444444444444444ull, m3 = 0x8888888888888888ull;
	uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
	uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
	uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
	uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
	uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
	uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);

	return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

static inline uint64_t rev64(uint64_t x)
{
	x = ((x & 0x5555555555555555ull) << 1) | ((x >> 1) & 0x5555555555555555ull);
	x = ((x & 0x3333333333333333ull) << 2) | ((x >> 2) & 0x3333333333333333ull);
	x = ((x & 0x0F0F0F0F0F0F0F0Full) << 4) | ((x >> 4) & 0x0F0F0F0F0F0F0F0Full);
	x = ((x & 0x00FF00FF00FF00FFull) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFull);
	x = ((x & 0x0000FFFF0000FFFFull) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFull);
	return (x << 32) | (x >> 32);
}

/* y = (y xor X_i) * H for each 16-byte block X_i; y[0], h[0]: the first (big-endian)
 * 8 bytes. The high half of each 64x64 product is the low half of the product of the
 * bit-reversed operands, reversed. GCM's bit order makes the 256-bit product one bit
 * short: shifted left by one, then reduced modulo x^128 + x^7 + x^2 + x + 1. */
static void ghash_soft(uint64_t y[2], const uint64_t h[2], const uint8_t *p, size_t nblocks)
{
	uint64_t h1 = h[0], h0 = h[1], h0r = rev64(h0), h1r = rev64(h1);
	uint64_t h2 = h0 ^ h1, h2r = h0r ^ h1r;
	uint64_t y1 = y[0], y0 = y[1];

	for (; nblocks; nblocks--, p += 16) {
		uint64_t y0r, y1r, y2, y2r, z0, z1, z2, z0h, z1h, z2h, v0, v1, v2, v3;

		y1 ^= be64(p);
		y0 ^= be64(p + 8);
		y0r = rev64(y0);
		y1r = rev64(y1);
		y2 = y0 ^ y1;
		y2r = y0r ^ y1r;
		z0 = bmul64(y0, h0);
		z1 = bmul64(y1, h1);
		z2 = bmul64(y2, h2);
		z0h = bmul64(y0r, h0r);
		z1h = bmul64(y1r, h1r);
		z2h = bmul64(y2r, h2r);
		z2 ^= z0 ^ z1;
		z2h ^= z0h ^ z1h;
		z0h = rev64(z0h) >> 1;
		z1h = rev64(z1h) >> 1;
		z2h = rev64(z2h) >> 1;
		v0 = z0;
		v1 = z0h ^ z2;
		v2 = z1 ^ z2h;
		v3 = z1h;
		v3 = (v3 << 1) | (v2 >> 63);
		v2 = (v2 << 1) | (v1 >> 63);
		v1 = (v1 << 1) | (v0 >> 63);
		v0 = v0 << 1;
		v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
		v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
		v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
		v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
		y0 = v2;
		y1 = v3;
	}
	y[0] = y1;
	y[1] = y0;
	h0 = h1 = h2 = h0r = h1r = h2r = 0;
	__asm__ __volatile__("" : : "r"(h0), "r"(h1), "r"(h2), "r"(h0r), "r"(h1r), "r"(h2r) : "memory");
}

/* whole blocks, then a partial one padded with zeros */
static void ghash_soft_bytes(uint64_t y[2], const uint64_t h[2], const uint8_t *p, size_t len)
{
	uint8_t last[16];

	ghash_soft(y, h, p, len / 16);
	if (len % 16) {
		er_memset(last, 0, sizeof(last));
		er_memcpy(last, p + (len & ~(size_t)15), len % 16);
		ghash_soft(y, h, last, 1);
		er_wipe(last, sizeof(last));
	}
}

/* The whole of GCM on the portable path: out = in xor keystream, tag = E_K(J0) xor
 * GHASH. decrypt: GHASH reads in (the ciphertext) before out is written, so in == out
 * works. */
static void gcm_soft(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		     const uint8_t *in, uint8_t *out, size_t len, bool decrypt, uint8_t tag[16])
{
	uint8_t ctr[64], ks[64], blk[16];
	uint64_t y[2] = { 0, 0 };
	uint32_t c = 1;

	for (int b = 0; b < 4; b++)
		er_memcpy(ctr + 16 * b, iv, 12);
	ghash_soft_bytes(y, g->h, aad, aad_len);
	/* E_K(J0): the tag's mask */
	put_be32(ctr + 12, c);
	er_aes_bs_encrypt((const uint64_t (*)[8])g->bs, GCM_ROUNDS, ctr, blk, 1);
	for (size_t done = 0; done < len;) {
		size_t n = ER_MIN(len - done, (size_t)64), nb = (n + 15) / 16;

		for (size_t b = 0; b < nb; b++)
			put_be32(ctr + 16 * b + 12, ++c);
		er_aes_bs_encrypt((const uint64_t (*)[8])g->bs, GCM_ROUNDS, ctr, ks, nb);
		if (decrypt)
			ghash_soft_bytes(y, g->h, in + done, n);
		for (size_t i = 0; i < n; i++)
			out[done + i] = in[done + i] ^ ks[i];
		if (!decrypt)
			ghash_soft_bytes(y, g->h, out + done, n);
		done += n;
	}
	/* [len(A)]64 || [len(C)]64 in bits */
	put_be64(tag, (uint64_t)aad_len << 3);
	put_be64(tag + 8, (uint64_t)len << 3);
	ghash_soft(y, g->h, tag, 1);
	put_be64(tag, y[0]);
	put_be64(tag + 8, y[1]);
	for (int i = 0; i < 16; i++)
		tag[i] ^= blk[i];
	er_wipe(ks, sizeof(ks));
	er_wipe(ctr, sizeof(ctr));
	er_wipe(blk, sizeof(blk));
	er_wipe(y, sizeof(y));
}

/* ------------------------------------------------------------------ API */
void er_gcm_init(struct er_gcm *g, const uint8_t key[32])
{
	uint8_t zero[16], hb[16];

	er_memset(g, 0, sizeof(*g));
	er_aes_expand_key(key, 32, g->rk);
	er_aes_bs_keys(g->rk, GCM_ROUNDS, g->bs);
	er_memset(zero, 0, sizeof(zero));
	er_aes_bs_encrypt((const uint64_t (*)[8])g->bs, GCM_ROUNDS, zero, hb, 1);
	g->h[0] = be64(hb);
	g->h[1] = be64(hb + 8);
	er_wipe(hb, sizeof(hb));
	g->hw = false;
}

void er_gcm_wipe(struct er_gcm *g)
{
	er_wipe(g, sizeof(*g));
}

bool er_gcm_hw(const struct er_gcm *g)
{
	return g->hw && !force_soft;
}

void er_gcm_encrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16])
{
	gcm_soft(g, iv, aad, aad_len, in, out, len, false, tag);
}

bool er_gcm_decrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16])
{
	uint8_t want[16];
	bool ok;

	gcm_soft(g, iv, aad, aad_len, in, out, len, true, want);
	ok = er_ct_equal(want, tag, 16);
	er_wipe(want, sizeof(want));
	if (!ok)
		er_wipe(out, len);
	return ok;
}
