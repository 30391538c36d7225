// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-128/256-XTS (IEEE 1619-2007, NIST SP 800-38E) with the plain64 tweak, as dm-crypt
 * (aes-xts-plain64) and OpenSSL's EVP_aes_*_xts compute it, one sector per data unit.
 *
 * Two block-cipher back ends:
 *  - AES-NI (inline asm, four blocks interleaved), when CPUID reports AES and SSE2 and, in
 *    the EFI build, CR4.OSFXSR says the firmware enabled SSE (on ia32 it may not have);
 *  - a table-free constant-time one otherwise: the state of four blocks is bit-sliced into
 *    eight 64-bit words (one per bit of a byte), the S-box is the Boyar-Peralta circuit
 *    (the one BearSSL's aes_ct uses), the inverse S-box is the inverse affine map around
 *    it. No memory access depends on key or data.
 * Keys are expanded once, in er_aes_xts_init, into both forms. */
#include "crypto/aes.h"
#include "image/freestanding.h"
#include "crypto/wipe.h"
#include "arch/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#define ER_HAVE_AESNI_CODE 1
#else
#define ER_HAVE_AESNI_CODE 0
#endif

static bool force_soft;

void er_aes_force_soft(bool soft)
{
	force_soft = soft;
}

/* ------------------------------------------------------------------ bit-sliced core */
/* Plane k (q[k]) holds bit k of every state byte; the byte in row r, column c of block b
 * (0..3) sits at bit 16 r + 4 c + b. Rows are 16-bit lanes, so MixColumns' "next row" is
 * a rotation of the whole word by 16, and ShiftRows rotates within each lane. */

/* The AES S-box on all 64 bytes at once: Boyar and Peralta's depth-16 circuit
 * (J. Boyar, R. Peralta, "A depth-16 circuit for the AES S-box", 2011). */
static void bs_sbox(uint64_t *q)
{
	uint64_t x0, x1, x2, x3, x4, x5, x6, x7;
	uint64_t y1, y2, y3, y4, y5, y6, y7, y8, y9;
	uint64_t y10, y11, y12, y13, y14, y15, y16, y17, y18, y19;
	uint64_t y20, y21;
	uint64_t z0, z1, z2, z3, z4, z5, z6, z7, z8, z9;
	uint64_t z10, z11, z12, z13, z14, z15, z16, z17;
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7, t8, t9;
	uint64_t t10, t11, t12, t13, t14, t15, t16, t17, t18, t19;
	uint64_t t20, t21, t22, t23, t24, t25, t26, t27, t28, t29;
	uint64_t t30, t31, t32, t33, t34, t35, t36, t37, t38, t39;
	uint64_t t40, t41, t42, t43, t44, t45, t46, t47, t48, t49;
	uint64_t t50, t51, t52, t53, t54, t55, t56, t57, t58, t59;
	uint64_t t60, t61, t62, t63, t64, t65, t66, t67;
	uint64_t s0, s1, s2, s3, s4, s5, s6, s7;

	x0 = q[7]; x1 = q[6]; x2 = q[5]; x3 = q[4];
	x4 = q[3]; x5 = q[2]; x6 = q[1]; x7 = q[0];

	/* top linear transformation */
	y14 = x3 ^ x5;
	y13 = x0 ^ x6;
	y9 = x0 ^ x3;
	y8 = x0 ^ x5;
	t0 = x1 ^ x2;
	y1 = t0 ^ x7;
	y4 = y1 ^ x3;
	y12 = y13 ^ y14;
	y2 = y1 ^ x0;
	y5 = y1 ^ x6;
	y3 = y5 ^ y8;
	t1 = x4 ^ y12;
	y15 = t1 ^ x5;
	y20 = t1 ^ x1;
	y6 = y15 ^ x7;
	y10 = y15 ^ t0;
	y11 = y20 ^ y9;
	y7 = x7 ^ y11;
	y17 = y10 ^ y11;
	y19 = y10 ^ y8;
	y16 = t0 ^ y11;
	y21 = y13 ^ y16;
	y18 = x0 ^ y16;

	/* non-linear section */
	t2 = y12 & y15;
	t3 = y3 & y6;
	t4 = t3 ^ t2;
	t5 = y4 & x7;
	t6 = t5 ^ t2;
	t7 = y13 & y16;
	t8 = y5 & y1;
	t9 = t8 ^ t7;
	t10 = y2 & y7;
	t11 = t10 ^ t7;
	t12 = y9 & y11;
	t13 = y14 & y17;
	t14 = t13 ^ t12;
	t15 = y8 & y10;
	t16 = t15 ^ t12;
	t17 = t4 ^ t14;
	t18 = t6 ^ t16;
	t19 = t9 ^ t14;
	t20 = t11 ^ t16;
	t21 = t17 ^ y20;
	t22 = t18 ^ y19;
	t23 = t19 ^ y21;
	t24 = t20 ^ y18;

	t25 = t21 ^ t22;
	t26 = t21 & t23;
	t27 = t24 ^ t26;
	t28 = t25 & t27;
	t29 = t28 ^ t22;
	t30 = t23 ^ t24;
	t31 = t22 ^ t26;
	t32 = t31 & t30;
	t33 = t32 ^ t24;
	t34 = t23 ^ t33;
	t35 = t27 ^ t33;
	t36 = t24 & t35;
	t37 = t36 ^ t34;
	t38 = t27 ^ t36;
	t39 = t29 & t38;
	t40 = t25 ^ t39;

	t41 = t40 ^ t37;
	t42 = t29 ^ t33;
	t43 = t29 ^ t40;
	t44 = t33 ^ t37;
	t45 = t42 ^ t41;
	z0 = t44 & y15;
	z1 = t37 & y6;
	z2 = t33 & x7;
	z3 = t43 & y16;
	z4 = t40 & y1;
	z5 = t29 & y7;
	z6 = t42 & y11;
	z7 = t45 & y17;
	z8 = t41 & y10;
	z9 = t44 & y12;
	z10 = t37 & y3;
	z11 = t33 & y4;
	z12 = t43 & y13;
	z13 = t40 & y5;
	z14 = t29 & y2;
	z15 = t42 & y9;
	z16 = t45 & y14;
	z17 = t41 & y8;

	/* bottom linear transformation */
	t46 = z15 ^ z16;
	t47 = z10 ^ z11;
	t48 = z5 ^ z13;
	t49 = z9 ^ z10;
	t50 = z2 ^ z12;
	t51 = z2 ^ z5;
	t52 = z7 ^ z8;
	t53 = z0 ^ z3;
	t54 = z6 ^ z7;
	t55 = z16 ^ z17;
	t56 = z12 ^ t48;
	t57 = t50 ^ t53;
	t58 = z4 ^ t46;
	t59 = z3 ^ t54;
	t60 = t46 ^ t57;
	t61 = z14 ^ t57;
	t62 = t52 ^ t58;
	t63 = t49 ^ t58;
	t64 = z4 ^ t59;
	t65 = t61 ^ t62;
	t66 = z1 ^ t63;
	s0 = t59 ^ t63;
	s6 = t56 ^ ~t62;
	s7 = t48 ^ ~t60;
	t67 = t64 ^ t65;
	s3 = t53 ^ t66;
	s4 = t51 ^ t66;
	s5 = t47 ^ t65;
	s1 = t64 ^ ~s3;
	s2 = t55 ^ ~t67;

	q[7] = s0; q[6] = s1; q[5] = s2; q[4] = s3;
	q[3] = s4; q[2] = s5; q[1] = s6; q[0] = s7;
}

/* the inverse of the S-box's affine map: b_i = x_(i+2) ^ x_(i+5) ^ x_(i+7) ^ (0x05)_i */
static void bs_inv_affine(uint64_t *q)
{
	uint64_t x0 = q[0], x1 = q[1], x2 = q[2], x3 = q[3], x4 = q[4], x5 = q[5], x6 = q[6], x7 = q[7];
	uint64_t a = x2 ^ x5, b = x0 ^ x3, c = x1 ^ x4;

	q[0] = ~(a ^ x7);
	q[1] = b ^ x6;
	q[2] = ~(c ^ x7);
	q[3] = a ^ x0;
	q[4] = x6 ^ x1 ^ x3;
	q[5] = x7 ^ x2 ^ x4;
	q[6] = b ^ x5;
	q[7] = c ^ x6;
}

/* S = A o inv, so S^-1 = inv o A^-1 = A^-1 o S o A^-1 (inv = A^-1 o S) */
static void bs_inv_sbox(uint64_t *q)
{
	bs_inv_affine(q);
	bs_sbox(q);
	bs_inv_affine(q);
}

static void bs_shift_rows(uint64_t *q)
{
	for (int i = 0; i < 8; i++) {
		uint64_t x = q[i];
		q[i] = (x & 0x000000000000FFFFull)
			| ((x & 0x00000000FFF00000ull) >> 4) | ((x & 0x00000000000F0000ull) << 12)
			| ((x & 0x0000FF0000000000ull) >> 8) | ((x & 0x000000FF00000000ull) << 8)
			| ((x & 0xF000000000000000ull) >> 12) | ((x & 0x0FFF000000000000ull) << 4);
	}
}

static void bs_inv_shift_rows(uint64_t *q)
{
	for (int i = 0; i < 8; i++) {
		uint64_t x = q[i];
		q[i] = (x & 0x000000000000FFFFull)
			| ((x & 0x000000000FFF0000ull) << 4) | ((x & 0x00000000F0000000ull) >> 12)
			| ((x & 0x0000FF0000000000ull) >> 8) | ((x & 0x000000FF00000000ull) << 8)
			| ((x & 0xFFF0000000000000ull) >> 4) | ((x & 0x000F000000000000ull) << 12);
	}
}

static inline uint64_t rot16(uint64_t x) { return (x >> 16) | (x << 48); }
static inline uint64_t rot32(uint64_t x) { return (x >> 32) | (x << 32); }

/* multiply every byte by x (02) in GF(2^8) mod x^8 + x^4 + x^3 + x + 1 */
static void bs_xtime(const uint64_t *a, uint64_t *r)
{
	uint64_t h = a[7];
	r[7] = a[6]; r[6] = a[5]; r[5] = a[4]; r[4] = a[3] ^ h;
	r[3] = a[2] ^ h; r[2] = a[1]; r[1] = a[0] ^ h; r[0] = h;
}

/* out_r = 02 a_r ^ 03 a_(r+1) ^ a_(r+2) ^ a_(r+3) = 02 t ^ a_(r+1) ^ rot32(t), t = a ^ a_(r+1) */
static void bs_mix_columns(uint64_t *q)
{
	uint64_t s[8], t[8], x[8];

	for (int i = 0; i < 8; i++) {
		s[i] = rot16(q[i]);
		t[i] = q[i] ^ s[i];
	}
	bs_xtime(t, x);
	for (int i = 0; i < 8; i++)
		q[i] = x[i] ^ s[i] ^ rot32(t[i]);
}

/* InvMixColumns = MixColumns o (a_r ^ 04 (a_r ^ a_(r+2))): d(x) = (04 x^2 + 05) c(x) */
static void bs_inv_mix_columns(uint64_t *q)
{
	uint64_t t[8], x[8];

	for (int i = 0; i < 8; i++)
		t[i] = q[i] ^ rot32(q[i]);
	bs_xtime(t, x);
	bs_xtime(x, t);
	for (int i = 0; i < 8; i++)
		q[i] ^= t[i];
	bs_mix_columns(q);
}

static inline void bs_add_key(uint64_t *q, const uint64_t *k)
{
	for (int i = 0; i < 8; i++)
		q[i] ^= k[i];
}

/* Exchange the ch-masked bits of x with the cl-masked bits of y, s apart: one step of a
 * recursive 8x8 transpose across eight words (BearSSL's "ortho" does the same). */
#define SWAPN(cl, ch, s, x, y)                                                     \
	do {                                                                       \
		uint64_t a_ = (x), b_ = (y);                                       \
		(x) = (a_ & (uint64_t)(cl)) | ((b_ & (uint64_t)(cl)) << (s));      \
		(y) = ((a_ & (uint64_t)(ch)) >> (s)) | (b_ & (uint64_t)(ch));      \
	} while (0)

/* out[i] byte m bit j = in[j] byte m bit i (an involution) */
static void bs_ortho(uint64_t *q)
{
	for (int i = 0; i < 8; i += 2)
		SWAPN(0x5555555555555555ull, 0xAAAAAAAAAAAAAAAAull, 1, q[i], q[i + 1]);
	for (int i = 0; i < 8; i += 4) {
		SWAPN(0x3333333333333333ull, 0xCCCCCCCCCCCCCCCCull, 2, q[i], q[i + 2]);
		SWAPN(0x3333333333333333ull, 0xCCCCCCCCCCCCCCCCull, 2, q[i + 1], q[i + 3]);
	}
	for (int i = 0; i < 4; i++)
		SWAPN(0x0F0F0F0F0F0F0F0Full, 0xF0F0F0F0F0F0F0F0ull, 4, q[i], q[i + 4]);
}

/* out[j] byte m = in[m] byte j (an involution) */
static void bs_byte_transpose(uint64_t *q)
{
	for (int i = 0; i < 8; i += 2)
		SWAPN(0x00FF00FF00FF00FFull, 0xFF00FF00FF00FF00ull, 8, q[i], q[i + 1]);
	for (int i = 0; i < 8; i += 4) {
		SWAPN(0x0000FFFF0000FFFFull, 0xFFFF0000FFFF0000ull, 16, q[i], q[i + 2]);
		SWAPN(0x0000FFFF0000FFFFull, 0xFFFF0000FFFF0000ull, 16, q[i + 1], q[i + 3]);
	}
	for (int i = 0; i < 4; i++)
		SWAPN(0x00000000FFFFFFFFull, 0xFFFFFFFF00000000ull, 32, q[i], q[i + 4]);
}

/* 4x4 byte transpose: x_r byte b <- x_b byte r (an involution) */
static inline void tr4x4(uint32_t *x)
{
	uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
	uint32_t t0 = (x0 & 0x00FF00FFu) | ((x1 & 0x00FF00FFu) << 8);
	uint32_t t1 = ((x0 >> 8) & 0x00FF00FFu) | (x1 & 0xFF00FF00u);
	uint32_t t2 = (x2 & 0x00FF00FFu) | ((x3 & 0x00FF00FFu) << 8);
	uint32_t t3 = ((x2 >> 8) & 0x00FF00FFu) | (x3 & 0xFF00FF00u);

	x[0] = (t0 & 0xFFFFu) | (t2 << 16);
	x[1] = (t1 & 0xFFFFu) | (t3 << 16);
	x[2] = (t0 >> 16) | (t2 & 0xFFFF0000u);
	x[3] = (t1 >> 16) | (t3 & 0xFFFF0000u);
}

static const uint8_t zero64[64];

/* n (1..4) blocks of 16 bytes, each xor the same bytes of tw, -> planes (missing blocks
 * are zero). The bytes are first put in slice order, a[16 r + 4 c + b] as the 32-bit
 * words A[4 r + c] (a 4x4 byte transpose per column c across the blocks), read as eight
 * 64-bit words w[J]; then plane k, byte J, bit i must be bit k of w[J] byte i: a byte
 * transpose of the eight words, then the bit transpose within each byte lane. */
static void bs_load(uint64_t *q, const uint8_t *blocks, const uint8_t *tw, size_t n)
{
	uint32_t A[16], x[4];

	for (int c = 0; c < 4; c++) {
		for (size_t b = 0; b < 4; b++)
			x[b] = b < n ? er_le32(blocks + 16 * b + 4 * c) ^ er_le32(tw + 16 * b + 4 * c) : 0;
		tr4x4(x);
		for (int r = 0; r < 4; r++)
			A[4 * r + c] = x[r];
	}
	for (int j = 0; j < 8; j++)
		q[j] = (uint64_t)A[2 * j] | ((uint64_t)A[2 * j + 1] << 32);
	bs_byte_transpose(q);
	bs_ortho(q);
	er_wipe(A, sizeof(A));
	er_wipe(x, sizeof(x));
}

/* the way back: bit transpose, byte transpose, 4x4 byte transposes; each output block is
 * xored with tw */
static void bs_store(const uint64_t *q, uint8_t *blocks, const uint8_t *tw, size_t n)
{
	uint64_t w[8];
	uint32_t A[16], x[4];

	for (int j = 0; j < 8; j++)
		w[j] = q[j];
	bs_ortho(w);
	bs_byte_transpose(w);
	for (int j = 0; j < 8; j++) {
		A[2 * j] = (uint32_t)w[j];
		A[2 * j + 1] = (uint32_t)(w[j] >> 32);
	}
	for (int c = 0; c < 4; c++) {
		for (int r = 0; r < 4; r++)
			x[r] = A[4 * r + c];
		tr4x4(x);
		for (size_t b = 0; b < n; b++)
			er_put_le32(blocks + 16 * b + 4 * c, x[b] ^ er_le32(tw + 16 * b + 4 * c));
	}
	er_wipe(w, sizeof(w));
	er_wipe(A, sizeof(A));
	er_wipe(x, sizeof(x));
}

static void bs_encrypt(const uint64_t (*rk)[8], uint32_t rounds, uint64_t *q)
{
	bs_add_key(q, rk[0]);
	for (uint32_t r = 1; r < rounds; r++) {
		bs_sbox(q);
		bs_shift_rows(q);
		bs_mix_columns(q);
		bs_add_key(q, rk[r]);
	}
	bs_sbox(q);
	bs_shift_rows(q);
	bs_add_key(q, rk[rounds]);
}

static void bs_decrypt(const uint64_t (*rk)[8], uint32_t rounds, uint64_t *q)
{
	bs_add_key(q, rk[rounds]);
	for (uint32_t r = rounds - 1; r > 0; r--) {
		bs_inv_shift_rows(q);
		bs_inv_sbox(q);
		bs_add_key(q, rk[r]);
		bs_inv_mix_columns(q);
	}
	bs_inv_shift_rows(q);
	bs_inv_sbox(q);
	bs_add_key(q, rk[0]);
}

/* ------------------------------------------------------------------ key schedule */
/* SubWord through the bit-sliced S-box (constant time): byte j of w in bit j of each plane */
static uint32_t sub_word(uint32_t w)
{
	uint64_t q[8];
	uint32_t r = 0;

	for (int k = 0; k < 8; k++) {
		q[k] = 0;
		for (int j = 0; j < 4; j++)
			q[k] |= (uint64_t)((w >> (8 * j + k)) & 1) << j;
	}
	bs_sbox(q);
	for (int k = 0; k < 8; k++)
		for (int j = 0; j < 4; j++)
			r |= (uint32_t)((q[k] >> j) & 1) << (8 * j + k);
	er_wipe(q, sizeof(q));
	return r;
}

/* FIPS-197 KeyExpansion into (rounds + 1) * 16 bytes; keylen 16 or 32 */
uint32_t er_aes_expand_key(const uint8_t *key, size_t keylen, uint8_t *rk)
{
	static const uint8_t rcon[10] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36 };
	uint32_t nk = (uint32_t)(keylen / 4), rounds = nk + 6;
	uint32_t w[4 * (ER_AES_MAX_ROUNDS + 1)];

	for (uint32_t i = 0; i < nk; i++)
		w[i] = er_le32(key + 4 * i);
	for (uint32_t i = nk; i < 4 * (rounds + 1); i++) {
		uint32_t t = w[i - 1];
		if (i % nk == 0)
			t = sub_word((t >> 8) | (t << 24)) ^ rcon[i / nk - 1];
		else if (nk > 6 && i % nk == 4)
			t = sub_word(t);
		w[i] = w[i - nk] ^ t;
	}
	for (uint32_t i = 0; i < 4 * (rounds + 1); i++)
		er_put_le32(rk + 4 * i, w[i]);
	er_wipe(w, sizeof(w));
	return rounds;
}

/* a round key (16 bytes) repeated in all four block positions, bit-sliced */
void er_aes_bs_keys(const uint8_t *rk, uint32_t rounds, uint64_t (*bs)[8])
{
	uint8_t four[64];

	for (uint32_t r = 0; r <= rounds; r++) {
		for (int b = 0; b < 4; b++)
			er_memcpy(four + 16 * b, rk + 16 * r, 16);
		bs_load(bs[r], four, zero64, 4);
	}
	er_wipe(four, sizeof(four));
}

/* ------------------------------------------------------------------ AES-NI */
#if ER_HAVE_AESNI_CODE
#define AESNI_FN static __attribute__((target("sse2,aes"), noinline))

/* dk: decryption round keys for aesdec, the "equivalent inverse cipher" order */
AESNI_FN void ni_dec_keys(const uint8_t *ek, uint32_t rounds, uint8_t *dk)
{
	er_memcpy(dk, ek + 16 * rounds, 16);
	for (uint32_t i = 1; i < rounds; i++)
		__asm__ __volatile__("movdqu (%0), %%xmm0\n\t"
				     "aesimc %%xmm0, %%xmm0\n\t"
				     "movdqu %%xmm0, (%1)\n\t"
				     : : "r"(ek + 16 * (rounds - i)), "r"(dk + 16 * i) : "xmm0", "memory");
	er_memcpy(dk + 16 * rounds, ek, 16);
}

/* Whole groups of four blocks: for each, tweaks T, T a, T a^2, T a^3 (kept in xmm5 and
 * advanced with SSE: every qword doubled, the carries out of bit 63 and bit 127 put back
 * as 1 and 0x87 through the mask in xmm7), blocks xor tweak, the cipher, xor tweak again.
 * s->t holds the first tweak on entry and the next one on return. Eight xmm registers
 * only (ia32 has no more): xmm0-3 blocks, xmm4 round key, xmm5 tweak, xmm6 scratch. */
struct ni_state {
	uint8_t tw[64];     /* the four tweaks of the group being processed */
	uint8_t t[16];      /* running tweak */
	uint8_t mask[16];   /* 0x87, 0, 0, 0, 0, 0, 0, 0, 1, 0, ... */
};

#define NI_NEXT_TWEAK                                                              \
	"pshufd $0x13, %%xmm5, %%xmm6\n\t"                                         \
	"paddq %%xmm5, %%xmm5\n\t"                                                 \
	"psrad $31, %%xmm6\n\t"                                                    \
	"pand %%xmm7, %%xmm6\n\t"                                                  \
	"pxor %%xmm6, %%xmm5\n\t"

#define NI_LOAD(I, X)                                                              \
	"movdqu %%xmm5, " #I "(%[s])\n\t"                                          \
	"movdqu " #I "(%[b]), %%" X "\n\t"                                         \
	"pxor %%xmm5, %%" X "\n\t"                                                 \
	NI_NEXT_TWEAK

#define NI_STORE(I, X)                                                             \
	"movdqu " #I "(%[s]), %%xmm4\n\t"                                          \
	"pxor %%xmm4, %%" X "\n\t"                                                 \
	"movdqu %%" X ", " #I "(%[b])\n\t"

#define NI_XTS4(OP, OPLAST)                                                        \
	__asm__ __volatile__(                                                      \
		"movdqu 80(%[s]), %%xmm7\n\t"                                      \
		"movdqu 64(%[s]), %%xmm5\n\t"                                      \
		"2:\n\t"                                                           \
		NI_LOAD(0, "xmm0") NI_LOAD(16, "xmm1")                             \
		NI_LOAD(32, "xmm2") NI_LOAD(48, "xmm3")                            \
		"mov %[rk0], %[rk]\n\t"                                            \
		"mov %[nr], %[n]\n\t"                                              \
		"movdqu (%[rk]), %%xmm4\n\t"                                       \
		"pxor %%xmm4, %%xmm0\n\t" "pxor %%xmm4, %%xmm1\n\t"                \
		"pxor %%xmm4, %%xmm2\n\t" "pxor %%xmm4, %%xmm3\n\t"                \
		"1:\n\t"                                                           \
		"add $16, %[rk]\n\t"                                               \
		"movdqu (%[rk]), %%xmm4\n\t"                                       \
		OP " %%xmm4, %%xmm0\n\t" OP " %%xmm4, %%xmm1\n\t"                   \
		OP " %%xmm4, %%xmm2\n\t" OP " %%xmm4, %%xmm3\n\t"                   \
		"dec %[n]\n\t"                                                     \
		"jnz 1b\n\t"                                                       \
		"movdqu 16(%[rk]), %%xmm4\n\t"                                     \
		OPLAST " %%xmm4, %%xmm0\n\t" OPLAST " %%xmm4, %%xmm1\n\t"           \
		OPLAST " %%xmm4, %%xmm2\n\t" OPLAST " %%xmm4, %%xmm3\n\t"           \
		NI_STORE(0, "xmm0") NI_STORE(16, "xmm1")                           \
		NI_STORE(32, "xmm2") NI_STORE(48, "xmm3")                          \
		"add $64, %[b]\n\t"                                                \
		"dec %[g]\n\t"                                                     \
		"jnz 2b\n\t"                                                       \
		"movdqu %%xmm5, 64(%[s])\n\t"                                      \
		: [b] "+r"(buf), [g] "+r"(groups), [rk] "=&r"(rk), [n] "=&r"(n)    \
		: [s] "r"(s), [rk0] "rm"(rk0), [nr] "rm"(nr)                       \
		: "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",  \
		  "xmm6", "xmm7")

/* one block: buf xor tw, the cipher, xor tw */
#define NI_XTS1(OP, OPLAST)                                                        \
	__asm__ __volatile__(                                                      \
		"movdqu (%[tw]), %%xmm1\n\t"                                       \
		"movdqu (%[b]), %%xmm0\n\t"    "pxor %%xmm1, %%xmm0\n\t"            \
		"movdqu (%[rk]), %%xmm4\n\t"   "pxor %%xmm4, %%xmm0\n\t"            \
		"1:\n\t"                                                           \
		"add $16, %[rk]\n\t"                                               \
		"movdqu (%[rk]), %%xmm4\n\t"                                       \
		OP " %%xmm4, %%xmm0\n\t"                                           \
		"dec %[n]\n\t"                                                     \
		"jnz 1b\n\t"                                                       \
		"movdqu 16(%[rk]), %%xmm4\n\t"                                     \
		OPLAST " %%xmm4, %%xmm0\n\t"                                       \
		"pxor %%xmm1, %%xmm0\n\t"                                          \
		"movdqu %%xmm0, (%[b])\n\t"                                        \
		: [rk] "+r"(rk), [n] "+r"(n)                                       \
		: [b] "r"(buf), [tw] "r"(tw)                                       \
		: "cc", "memory", "xmm0", "xmm1", "xmm4")

AESNI_FN void ni_enc4(const uint8_t *rk0, uint32_t rounds, uint8_t *buf, size_t groups, struct ni_state *s)
{
	const uint8_t *rk;
	uint32_t n, nr = rounds - 1;
	NI_XTS4("aesenc", "aesenclast");
}
AESNI_FN void ni_dec4(const uint8_t *rk0, uint32_t rounds, uint8_t *buf, size_t groups, struct ni_state *s)
{
	const uint8_t *rk;
	uint32_t n, nr = rounds - 1;
	NI_XTS4("aesdec", "aesdeclast");
}
AESNI_FN void ni_enc1(const uint8_t *rk, uint32_t rounds, uint8_t *buf, const uint8_t *tw)
{
	uint32_t n = rounds - 1;
	NI_XTS1("aesenc", "aesenclast");
}
AESNI_FN void ni_dec1(const uint8_t *rk, uint32_t rounds, uint8_t *buf, const uint8_t *tw)
{
	uint32_t n = rounds - 1;
	NI_XTS1("aesdec", "aesdeclast");
}
/* wipe the xmm registers the code above used, so no key or data is left in them */
AESNI_FN void ni_clear(void)
{
	__asm__ __volatile__("pxor %%xmm0, %%xmm0\n\t" "pxor %%xmm1, %%xmm1\n\t" "pxor %%xmm2, %%xmm2\n\t"
			     "pxor %%xmm3, %%xmm3\n\t" "pxor %%xmm4, %%xmm4\n\t"
			     : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4");
}
#endif

bool er_aes_hw_available(void)
{
#if ER_HAVE_AESNI_CODE
	return er_cpu_has_sse_features(1u << 25, (1u << 26) | (1u << 24));   /* AES; SSE2, FXSR */
#else
	return false;
#endif
}

/* ------------------------------------------------------------------ XTS */
bool er_aes_xts_init(struct er_aes_xts *x, const uint8_t *key, size_t keylen)
{
	size_t half = keylen / 2;

	er_memset(x, 0, sizeof(*x));
	if (keylen != 32 && keylen != 64)
		return false;
	x->rounds = er_aes_expand_key(key, half, x->ek1);
	er_aes_expand_key(key + half, half, x->ek2);
	er_aes_bs_keys(x->ek1, x->rounds, x->bs1);
	er_aes_bs_keys(x->ek2, x->rounds, x->bs2);
	x->hw = er_aes_hw_available();
#if ER_HAVE_AESNI_CODE
	if (x->hw) {
		ni_dec_keys(x->ek1, x->rounds, x->dk1);
		ni_clear();
	}
#endif
	return true;
}

void er_aes_xts_wipe(struct er_aes_xts *x)
{
	er_wipe(x, sizeof(*x));
}

/* T := T * alpha in GF(2^128), little-endian (IEEE 1619 section 5.2) */
static inline void tweak_next(uint64_t *lo, uint64_t *hi)
{
	uint64_t carry = *hi >> 63;
	*hi = (*hi << 1) | (*lo >> 63);
	*lo = (*lo << 1) ^ (0x87 & (0 - carry));
}

static void xts(const struct er_aes_xts *x, uint64_t sector, uint8_t *buf, size_t len, bool decrypt)
{
	uint8_t tw[64];
	uint64_t lo, hi, q[8];
	size_t nblk;

	if (len == 0 || len % 16 != 0)
		return;
	nblk = len / 16;
	er_put_le64(tw, sector);
	er_put_le64(tw + 8, 0);

#if ER_HAVE_AESNI_CODE
	if (x->hw && !force_soft) {
		struct ni_state s;
		size_t groups = nblk / 4;

		er_memset(&s, 0, sizeof(s));
		s.mask[0] = 0x87;
		s.mask[8] = 1;
		/* T = E_K2(IV) (s.tw is all zero here: no tweak xor) */
		er_memcpy(s.t, tw, 16);
		ni_enc1(x->ek2, x->rounds, s.t, s.tw);
		if (groups) {
			if (decrypt)
				ni_dec4(x->dk1, x->rounds, buf, groups, &s);
			else
				ni_enc4(x->ek1, x->rounds, buf, groups, &s);
			buf += 64 * groups;
			nblk -= 4 * groups;
		}
		lo = er_le64(s.t);
		hi = er_le64(s.t + 8);
		for (; nblk; nblk--, buf += 16) {
			er_put_le64(tw, lo);
			er_put_le64(tw + 8, hi);
			tweak_next(&lo, &hi);
			if (decrypt)
				ni_dec1(x->dk1, x->rounds, buf, tw);
			else
				ni_enc1(x->ek1, x->rounds, buf, tw);
		}
		ni_clear();
		er_wipe(&s, sizeof(s));
		goto out;
	}
#endif
	bs_load(q, tw, zero64, 1);
	bs_encrypt((const uint64_t (*)[8])x->bs2, x->rounds, q);
	bs_store(q, tw, zero64, 1);
	lo = er_le64(tw);
	hi = er_le64(tw + 8);
	while (nblk) {
		size_t n = ER_MIN(nblk, (size_t)4);
		for (size_t i = 0; i < n; i++) {
			er_put_le64(tw + 16 * i, lo);
			er_put_le64(tw + 16 * i + 8, hi);
			tweak_next(&lo, &hi);
		}
		bs_load(q, buf, tw, n);
		if (decrypt)
			bs_decrypt((const uint64_t (*)[8])x->bs1, x->rounds, q);
		else
			bs_encrypt((const uint64_t (*)[8])x->bs1, x->rounds, q);
		bs_store(q, buf, tw, n);
		buf += 16 * n;
		nblk -= n;
	}
	er_wipe(q, sizeof(q));
#if ER_HAVE_AESNI_CODE
out:
#endif
	er_wipe(tw, sizeof(tw));
	lo = hi = 0;
	__asm__ __volatile__("" : : "r"(lo), "r"(hi) : "memory");
}

void er_aes_xts_decrypt(const struct er_aes_xts *x, uint64_t sector, uint8_t *buf, size_t len)
{
	xts(x, sector, buf, len, true);
}

void er_aes_xts_encrypt(const struct er_aes_xts *x, uint64_t sector, uint8_t *buf, size_t len)
{
	xts(x, sector, buf, len, false);
}

void er_aes_bs_encrypt(const uint64_t (*bs)[8], uint32_t rounds, const uint8_t *in, uint8_t *out, size_t n)
{
	uint64_t q[8];

	if (n == 0 || n > 4)
		return;
	bs_load(q, in, zero64, n);
	bs_encrypt(bs, rounds, q);
	bs_store(q, out, zero64, n);
	er_wipe(q, sizeof(q));
}

bool er_aes_soft_block_test(const uint8_t *key, size_t keylen, bool decrypt, const uint8_t in[16], uint8_t out[16])
{
	uint8_t rk[(ER_AES_MAX_ROUNDS + 1) * 16];
	uint64_t bs[ER_AES_MAX_ROUNDS + 1][8], q[8];
	uint32_t rounds;

	if (keylen != 16 && keylen != 32)
		return false;
	rounds = er_aes_expand_key(key, keylen, rk);
	er_aes_bs_keys(rk, rounds, bs);
	bs_load(q, in, zero64, 1);
	if (decrypt)
		bs_decrypt((const uint64_t (*)[8])bs, rounds, q);
	else
		bs_encrypt((const uint64_t (*)[8])bs, rounds, q);
	bs_store(q, out, zero64, 1);
	er_wipe(rk, sizeof(rk));
	er_wipe(bs, sizeof(bs));
	er_wipe(q, sizeof(q));
	return true;
}
