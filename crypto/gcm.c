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

/* ------------------------------------------------------------------ AES-NI + PCLMULQDQ */
/* x86_64 only (the ia32 build has no SSE code at all). Compiler intrinsics in functions
 * with the target attribute: they compile in the freestanding EFI build as on the host
 * (GCC's headers leave mm_malloc out when not hosted), and no vector type crosses an
 * interface. GHASH works on byte-reflected blocks (pshufb): a field element with x^j
 * at bit 127 - j. The product of two such is one bit short (a 255-bit product of
 * reflected values); instead of shifting every product, the key is stored times x^-1
 * (hk[i] = H^(i+1) x^-1), so that one reduction per group of eight blocks gives
 * (Y ^ X1) H^8 ^ X2 H^7 ^ ... ^ X8 H directly. The reduction is the two-phase one of
 * Gueron and Kounavis (Intel's CLMUL white paper, rev. 2.02), as Linux's
 * ghash-clmulni does it. CTR: eight blocks in flight, each round key loaded from the
 * context; the GHASH of eight blocks is stitched between the AES rounds (decryption:
 * of the same eight ciphertext blocks; encryption: of the previous eight). */
#if defined(__x86_64__)
#define ER_HAVE_GCM_NI 1
#include <wmmintrin.h>
#include <smmintrin.h>

#define NI_FN static __attribute__((target("sse2,ssse3,sse4.1,aes,pclmul")))
#define NI_INLINE static inline __attribute__((target("sse2,ssse3,sse4.1,aes,pclmul"), always_inline))

NI_INLINE __m128i ni_bswap(__m128i x)
{
	return _mm_shuffle_epi8(x, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

NI_INLINE __m128i ni_load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

NI_INLINE void ni_store(uint8_t *p, __m128i x)
{
	_mm_storeu_si128((__m128i *)(void *)p, x);
}

/* lo, mid, hi += x * hk[i] (Karatsuba: mid = (x.lo ^ x.hi) (k.lo ^ k.hi)) */
NI_INLINE void gh_mul_acc(const struct er_gcm *g, int i, __m128i x, __m128i *lo, __m128i *mid, __m128i *hi)
{
	__m128i k = ni_load(g->hk[i]), kk = ni_load(g->hkk[i]);
	__m128i xs = _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));

	*lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(x, k, 0x00));
	*hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(x, k, 0x11));
	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(xs, kk, 0x00));
}

/* <hi:lo> (with the Karatsuba middle term still apart) modulo x^128 + x^7 + x^2 + x + 1,
 * reflected */
NI_INLINE __m128i gh_reduce(__m128i lo, __m128i mid, __m128i hi)
{
	__m128i t, u;

	mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
	lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
	hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
	/* first phase: lo * (x^63 + x^62 + x^57), folded */
	t = _mm_xor_si128(_mm_slli_epi64(lo, 1), lo);
	t = _mm_xor_si128(_mm_slli_epi64(t, 5), lo);
	t = _mm_slli_epi64(t, 57);
	lo = _mm_xor_si128(lo, _mm_slli_si128(t, 8));
	hi = _mm_xor_si128(hi, _mm_srli_si128(t, 8));
	/* second phase: lo ^ lo >> 1 ^ lo >> 2 ^ lo >> 7 */
	u = _mm_xor_si128(_mm_srli_epi64(lo, 5), lo);
	u = _mm_xor_si128(_mm_srli_epi64(u, 1), lo);
	u = _mm_srli_epi64(u, 1);
	return _mm_xor_si128(_mm_xor_si128(hi, u), lo);
}

/* y = (y ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H, n = 1..8 whole blocks, one reduction */
NI_INLINE __m128i gh_blocks(const struct er_gcm *g, __m128i y, const uint8_t *p, size_t n)
{
	__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;

	for (size_t j = 0; j < n; j++) {
		__m128i x = ni_bswap(ni_load(p + 16 * j));
		if (j == 0)
			x = _mm_xor_si128(x, y);
		gh_mul_acc(g, (int)(n - 1 - j), x, &lo, &mid, &hi);
	}
	return gh_reduce(lo, mid, hi);
}

/* any length: groups of eight, the rest, a partial block padded with zeros */
NI_FN __m128i gh_bytes(const struct er_gcm *g, __m128i y, const uint8_t *p, size_t len)
{
	uint8_t last[16];

	for (; len >= 128; len -= 128, p += 128)
		y = gh_blocks(g, y, p, 8);
	if (len >= 16) {
		y = gh_blocks(g, y, p, len / 16);
		p += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		er_memset(last, 0, sizeof(last));
		er_memcpy(last, p, len);
		y = gh_blocks(g, y, last, 1);
		er_wipe(last, sizeof(last));
	}
	return y;
}

NI_INLINE __m128i ni_ctr(__m128i base, uint32_t c)
{
	return _mm_insert_epi32(base, (int)__builtin_bswap32(c), 3);
}

#define AES8(OP, K)                                                                \
	do {                                                                       \
		__m128i k_ = (K);                                                  \
		b0 = OP(b0, k_); b1 = OP(b1, k_); b2 = OP(b2, k_); b3 = OP(b3, k_); \
		b4 = OP(b4, k_); b5 = OP(b5, k_); b6 = OP(b6, k_); b7 = OP(b7, k_); \
	} while (0)

/* Eight CTR blocks (counters c + 1 .. c + 8): out = in ^ keystream, 128 bytes. With gh,
 * the GHASH of the eight blocks at gh is computed between the rounds and returned
 * (gh is read before out is written: gh == in == out is fine). */
NI_INLINE __m128i ctr8(const struct er_gcm *g, __m128i base, uint32_t c, const uint8_t *in, uint8_t *out,
		       const uint8_t *gh, __m128i y)
{
	const uint8_t *rk = g->rk;
	__m128i k0 = ni_load(rk);
	__m128i b0 = _mm_xor_si128(ni_ctr(base, c + 1), k0), b1 = _mm_xor_si128(ni_ctr(base, c + 2), k0);
	__m128i b2 = _mm_xor_si128(ni_ctr(base, c + 3), k0), b3 = _mm_xor_si128(ni_ctr(base, c + 4), k0);
	__m128i b4 = _mm_xor_si128(ni_ctr(base, c + 5), k0), b5 = _mm_xor_si128(ni_ctr(base, c + 6), k0);
	__m128i b6 = _mm_xor_si128(ni_ctr(base, c + 7), k0), b7 = _mm_xor_si128(ni_ctr(base, c + 8), k0);
	__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;

#pragma GCC unroll 13
	for (int r = 1; r < 14; r++) {
		AES8(_mm_aesenc_si128, ni_load(rk + 16 * r));
		if (gh && r <= 8) {
			__m128i x = ni_bswap(ni_load(gh + 16 * (r - 1)));
			if (r == 1)
				x = _mm_xor_si128(x, y);
			gh_mul_acc(g, 8 - r, x, &lo, &mid, &hi);
		}
		if (gh && r == 9)
			y = gh_reduce(lo, mid, hi);
	}
	AES8(_mm_aesenclast_si128, ni_load(rk + 16 * 14));
	ni_store(out, _mm_xor_si128(b0, ni_load(in)));
	ni_store(out + 16, _mm_xor_si128(b1, ni_load(in + 16)));
	ni_store(out + 32, _mm_xor_si128(b2, ni_load(in + 32)));
	ni_store(out + 48, _mm_xor_si128(b3, ni_load(in + 48)));
	ni_store(out + 64, _mm_xor_si128(b4, ni_load(in + 64)));
	ni_store(out + 80, _mm_xor_si128(b5, ni_load(in + 80)));
	ni_store(out + 96, _mm_xor_si128(b6, ni_load(in + 96)));
	ni_store(out + 112, _mm_xor_si128(b7, ni_load(in + 112)));
	return y;
}

NI_INLINE __m128i aes1(const struct er_gcm *g, __m128i b)
{
	b = _mm_xor_si128(b, ni_load(g->rk));
	for (int r = 1; r < 14; r++)
		b = _mm_aesenc_si128(b, ni_load(g->rk + 16 * r));
	return _mm_aesenclast_si128(b, ni_load(g->rk + 16 * 14));
}

/* every xmm register the code above may have used, zeroed (keystream, H powers, state) */
NI_INLINE void ni_clear(void)
{
	__asm__ __volatile__(
		"pxor %%xmm0, %%xmm0\n\t" "pxor %%xmm1, %%xmm1\n\t" "pxor %%xmm2, %%xmm2\n\t"
		"pxor %%xmm3, %%xmm3\n\t" "pxor %%xmm4, %%xmm4\n\t" "pxor %%xmm5, %%xmm5\n\t"
		"pxor %%xmm6, %%xmm6\n\t" "pxor %%xmm7, %%xmm7\n\t" "pxor %%xmm8, %%xmm8\n\t"
		"pxor %%xmm9, %%xmm9\n\t" "pxor %%xmm10, %%xmm10\n\t" "pxor %%xmm11, %%xmm11\n\t"
		"pxor %%xmm12, %%xmm12\n\t" "pxor %%xmm13, %%xmm13\n\t" "pxor %%xmm14, %%xmm14\n\t"
		"pxor %%xmm15, %%xmm15\n\t"
		: : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		      "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

NI_FN __attribute__((noinline))
void gcm_ni(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, bool decrypt, uint8_t tag[16])
{
	uint8_t j0[16], ks[128];
	__m128i base, ekj0, y = _mm_setzero_si128();
	uint32_t c = 1;
	size_t off = 0;

	er_memcpy(j0, iv, 12);
	put_be32(j0 + 12, 1);
	base = ni_load(j0);
	ekj0 = aes1(g, base);
	y = gh_bytes(g, y, aad, aad_len);
	if (decrypt) {
		for (; len - off >= 128; off += 128, c += 8)
			y = ctr8(g, base, c, in + off, out + off, in + off, y);
	} else if (len >= 128) {
		ctr8(g, base, c, in, out, NULL, y);
		for (off = 128, c += 8; len - off >= 128; off += 128, c += 8)
			y = ctr8(g, base, c, in + off, out + off, out + off - 128, y);
		y = gh_blocks(g, y, out + off - 128, 8);
	}
	if (off < len) {
		size_t rest = len - off;

		er_memset(ks, 0, sizeof(ks));
		ctr8(g, base, c, ks, ks, NULL, y);
		if (decrypt)
			y = gh_bytes(g, y, in + off, rest);
		for (size_t i = 0; i < rest; i++)
			out[off + i] = in[off + i] ^ ks[i];
		if (!decrypt)
			y = gh_bytes(g, y, out + off, rest);
		er_wipe(ks, sizeof(ks));
	}
	/* [len(A)]64 || [len(C)]64, reflected: A's bits in the high qword */
	{
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
		__m128i l = _mm_set_epi64x((long long)((uint64_t)aad_len << 3), (long long)((uint64_t)len << 3));
		gh_mul_acc(g, 0, _mm_xor_si128(y, l), &lo, &mid, &hi);
		y = gh_reduce(lo, mid, hi);
	}
	ni_store(tag, _mm_xor_si128(ni_bswap(y), ekj0));
	er_wipe(j0, sizeof(j0));
	ni_clear();
}

/* hk[0] = H x^-1 (H << 1 in the reflected form, 0xC2...01 folded in when bit 127 was
 * set), hk[i] = hk[i - 1] * hk[0] * x = H^(i+1) x^-1; hkk: the Karatsuba halves */
NI_FN __attribute__((noinline)) void gcm_ni_keys(struct er_gcm *g)
{
	uint64_t hi = g->h[0], lo = g->h[1], m = 0 - (hi >> 63);

	hi = (hi << 1) | (lo >> 63);
	lo = (lo << 1);
	hi ^= m & 0xC200000000000000ull;
	lo ^= m & 1;
	er_put_le64(g->hk[0], lo);
	er_put_le64(g->hk[0] + 8, hi);
	er_put_le64(g->hkk[0], lo ^ hi);
	for (int i = 1; i < 8; i++) {
		__m128i a = ni_load(g->hk[i - 1]), l = _mm_setzero_si128(), md = l, h = l;
		gh_mul_acc(g, 0, a, &l, &md, &h);
		ni_store(g->hk[i], gh_reduce(l, md, h));
		er_put_le64(g->hkk[i], er_le64(g->hk[i]) ^ er_le64(g->hk[i] + 8));
	}
	hi = lo = m = 0;
	__asm__ __volatile__("" : : "r"(hi), "r"(lo), "r"(m) : "memory");
	ni_clear();
}

/* CPUID.1:ECX AES (25), PCLMULQDQ (1), SSSE3 (9), SSE4.1 (19); EDX SSE2, FXSR; in the
 * EFI build CR4.OSFXSR (SSE enabled by the firmware) */
static bool gcm_ni_probe(void)
{
	return er_cpu_has_sse_features((1u << 25) | (1u << 1) | (1u << 9) | (1u << 19), (1u << 26) | (1u << 24));
}

/* the stack the hardware path used (compiler spills of keystream or GHASH state),
 * overwritten after it returns */
static __attribute__((noinline)) void burn_stack(void)
{
	uint8_t buf[1024];

	er_wipe(buf, sizeof(buf));
}
#else
#define ER_HAVE_GCM_NI 0
#endif

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
#if ER_HAVE_GCM_NI
	g->hw = gcm_ni_probe();
	if (g->hw)
		gcm_ni_keys(g);
#endif
}

void er_gcm_wipe(struct er_gcm *g)
{
	er_wipe(g, sizeof(*g));
}

bool er_gcm_hw(const struct er_gcm *g)
{
	return g->hw && !force_soft;
}

static void gcm_run(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, bool decrypt, uint8_t tag[16])
{
#if ER_HAVE_GCM_NI
	if (g->hw && !force_soft) {
		gcm_ni(g, iv, aad, aad_len, in, out, len, decrypt, tag);
		burn_stack();
		return;
	}
#endif
	gcm_soft(g, iv, aad, aad_len, in, out, len, decrypt, tag);
}

void er_gcm_encrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16])
{
	gcm_run(g, iv, aad, aad_len, in, out, len, false, tag);
}

bool er_gcm_decrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16])
{
	uint8_t want[16];
	bool ok;

	gcm_run(g, iv, aad, aad_len, in, out, len, true, want);
	ok = er_ct_equal(want, tag, 16);
	er_wipe(want, sizeof(want));
	if (!ok)
		er_wipe(out, len);
	return ok;
}
