// SPDX-License-Identifier: GPL-2.0-or-later
/* SHA-1, SHA-256, SHA-512 (FIPS 180-4) and HMAC (RFC 2104). Plain portable C: no
 * tables indexed by data, so nothing here depends on the secret's value for timing. */
#include "crypto/sha.h"
#include "image/freestanding.h"
#include "crypto/wipe.h"
#include "arch/cpu.h"

static inline uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t be64(const uint8_t *p)
{
	return ((uint64_t)be32(p) << 32) | be32(p + 4);
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}
static inline uint32_t rol32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }
static inline uint32_t ror32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
static inline uint64_t ror64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

/* ------------------------------------------------------------------ SHA-1 */
void er_sha1_blocks(uint32_t h[5], const uint8_t *p, size_t nblocks)
{
	uint32_t w[16];

	while (nblocks--) {
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (int i = 0; i < 16; i++)
			w[i] = be32(p + 4 * i);
		for (int i = 0; i < 80; i++) {
			uint32_t f, k, t;
			if (i >= 16) {
				t = w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15];
				w[i & 15] = rol32(t, 1);
			}
			if (i < 20) {
				f = (b & c) | (~b & d); k = 0x5A827999u;
			} else if (i < 40) {
				f = b ^ c ^ d; k = 0x6ED9EBA1u;
			} else if (i < 60) {
				f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu;
			} else {
				f = b ^ c ^ d; k = 0xCA62C1D6u;
			}
			t = rol32(a, 5) + f + e + k + w[i & 15];
			e = d; d = c; c = rol32(b, 30); b = a; a = t;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
		p += 64;
	}
	er_wipe(w, sizeof(w));
}

/* ------------------------------------------------------------------ SHA-256 */
static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_blocks_c(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	uint32_t w[16];

	while (nblocks--) {
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
		for (int i = 0; i < 16; i++)
			w[i] = be32(p + 4 * i);
		for (int i = 0; i < 64; i++) {
			if (i >= 16) {
				uint32_t x = w[(i + 1) & 15], y = w[(i + 14) & 15];
				uint32_t s0 = ror32(x, 7) ^ ror32(x, 18) ^ (x >> 3);
				uint32_t s1 = ror32(y, 17) ^ ror32(y, 19) ^ (y >> 10);
				w[i & 15] += s0 + w[(i + 9) & 15] + s1;
			}
			uint32_t S1 = ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25);
			uint32_t ch = (e & f) ^ (~e & g);
			uint32_t t1 = hh + S1 + ch + K256[i] + w[i & 15];
			uint32_t S0 = ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22);
			uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
			uint32_t t2 = S0 + maj;
			hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
		p += 64;
	}
	er_wipe(w, sizeof(w));
}

/* SHA-256 through the SHA extensions (sha256rnds2, sha256msg1/2) when the CPU has them,
 * with SSSE3 (pshufb) and SSE4.1 (pblendw), in the EFI build only when CR4.OSFXSR says SSE
 * is enabled. Inline asm in a function of its own with the target attribute, no vector
 * type across any interface. Eight xmm registers (so that it would fit ia32 too):
 * xmm0 message + constants, xmm1 state ABEF, xmm2 state CDGH, xmm3-6 the message words
 * W[t-16..t-1] in four groups, xmm7 scratch / byte-swap mask. */
#if defined(__x86_64__)
/* x86_64 only: the asm also assembles for ia32, but no emulator at hand runs SHA
 * instructions in 32-bit mode to test it, and 32-bit UEFI machines (Atom tablets)
 * rarely have them */
#define ER_HAVE_SHANI_CODE 1
static const uint8_t bswap_mask[16] = { 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12 };

/* four rounds: xmm0 = M + K[4g..4g+3], two sha256rnds2 */
#define SHA_RNDS4(M, KOFF)                                                          \
	"movdqu " #KOFF "(%[k]), %%xmm0\n\t"                                       \
	"paddd %%" M ", %%xmm0\n\t"                                                \
	"sha256rnds2 %%xmm0, %%xmm1, %%xmm2\n\t"                                   \
	"pshufd $0x0E, %%xmm0, %%xmm0\n\t"                                         \
	"sha256rnds2 %%xmm0, %%xmm2, %%xmm1\n\t"

/* groups 0-3: the message words straight from the block, byte-swapped (mask in xmm7) */
#define SHA_LOAD4(M, OFF)                                                           \
	"movdqu " #OFF "(%[p]), %%" M "\n\t"                                       \
	"pshufb %%xmm7, %%" M "\n\t"                                               \
	SHA_RNDS4(M, OFF)

/* groups 4-15: A = W[t-16..t-13] becomes W[t..t+3] from B = W[t-12..t-9],
 * C = W[t-8..t-5], D = W[t-4..t-1] */
#define SHA_SCHED4(A, B, C, D, KOFF)                                                \
	"sha256msg1 %%" B ", %%" A "\n\t"                                          \
	"movdqa %%" D ", %%xmm7\n\t"                                               \
	"palignr $4, %%" C ", %%xmm7\n\t"                                          \
	"paddd %%xmm7, %%" A "\n\t"                                                \
	"sha256msg2 %%" D ", %%" A "\n\t"                                          \
	SHA_RNDS4(A, KOFF)

static __attribute__((target("sse2,ssse3,sse4.1,sha"), noinline))
void sha256_blocks_ni(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	uint8_t save[32];
	const uint32_t *k;
	uint32_t it;

	__asm__ __volatile__(
		/* h[0..7] = A..H -> xmm1 = ABEF, xmm2 = CDGH (dword 3 first) */
		"movdqu (%[h]), %%xmm7\n\t"
		"movdqu 16(%[h]), %%xmm2\n\t"
		"pshufd $0xB1, %%xmm7, %%xmm7\n\t"
		"pshufd $0x1B, %%xmm2, %%xmm2\n\t"
		"movdqa %%xmm7, %%xmm1\n\t"
		"palignr $8, %%xmm2, %%xmm1\n\t"
		"pblendw $0xF0, %%xmm7, %%xmm2\n\t"
		"3:\n\t"
		"movdqu %%xmm1, (%[save])\n\t"
		"movdqu %%xmm2, 16(%[save])\n\t"
		"mov %[k0], %[k]\n\t"
		"movdqu %[mask], %%xmm7\n\t"
		SHA_LOAD4("xmm3", 0) SHA_LOAD4("xmm4", 16) SHA_LOAD4("xmm5", 32) SHA_LOAD4("xmm6", 48)
		"movl $3, %[it]\n\t"
		"4:\n\t"
		"add $64, %[k]\n\t"
		SHA_SCHED4("xmm3", "xmm4", "xmm5", "xmm6", 0)
		SHA_SCHED4("xmm4", "xmm5", "xmm6", "xmm3", 16)
		SHA_SCHED4("xmm5", "xmm6", "xmm3", "xmm4", 32)
		SHA_SCHED4("xmm6", "xmm3", "xmm4", "xmm5", 48)
		"decl %[it]\n\t"
		"jnz 4b\n\t"
		"movdqu (%[save]), %%xmm7\n\t"
		"paddd %%xmm7, %%xmm1\n\t"
		"movdqu 16(%[save]), %%xmm7\n\t"
		"paddd %%xmm7, %%xmm2\n\t"
		"add $64, %[p]\n\t"
		"dec %[n]\n\t"
		"jnz 3b\n\t"
		/* back to A..H */
		"pshufd $0x1B, %%xmm1, %%xmm7\n\t"
		"pshufd $0xB1, %%xmm2, %%xmm2\n\t"
		"movdqa %%xmm7, %%xmm1\n\t"
		"pblendw $0xF0, %%xmm2, %%xmm1\n\t"
		"palignr $8, %%xmm7, %%xmm2\n\t"
		"movdqu %%xmm1, (%[h])\n\t"
		"movdqu %%xmm2, 16(%[h])\n\t"
		/* leave no message or state words behind in the registers */
		"pxor %%xmm0, %%xmm0\n\t" "pxor %%xmm1, %%xmm1\n\t" "pxor %%xmm2, %%xmm2\n\t"
		"pxor %%xmm3, %%xmm3\n\t" "pxor %%xmm4, %%xmm4\n\t" "pxor %%xmm5, %%xmm5\n\t"
		"pxor %%xmm6, %%xmm6\n\t" "pxor %%xmm7, %%xmm7\n\t"
		: [p] "+r"(p), [n] "+r"(nblocks), [k] "=&r"(k), [it] "=m"(it)
		: [h] "r"(h), [save] "r"(save), [mask] "m"(*(const uint8_t (*)[16])bswap_mask), [k0] "rm"(K256)
		: "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
	er_wipe(save, sizeof(save));
}

static bool sha_ni_probe(void)
{
	uint32_t a, b, c, d, max;

	er_cpuid(0, 0, &max, &b, &c, &d);
	if (max < 7)
		return false;
	er_cpuid(7, 0, &a, &b, &c, &d);
	if (!(b & (1u << 29)))                 /* SHA */
		return false;
	/* SSSE3, SSE4.1; SSE2, FXSR; SSE enabled */
	return er_cpu_has_sse_features((1u << 9) | (1u << 19), (1u << 26) | (1u << 24));
}
#else
#define ER_HAVE_SHANI_CODE 0
#endif

#if ER_HAVE_SHANI_CODE
/* 0 unknown, 1 no, 2 yes; a race between CPUs only probes twice */
static int sha_ni_state;
#endif
static bool sha_force_soft;

void er_sha_force_soft(bool soft)
{
	sha_force_soft = soft;
}

bool er_sha_hw_available(void)
{
#if ER_HAVE_SHANI_CODE
	if (sha_ni_state == 0)
		sha_ni_state = sha_ni_probe() ? 2 : 1;
	return sha_ni_state == 2;
#else
	return false;
#endif
}

void er_sha256_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	if (nblocks == 0)
		return;
#if ER_HAVE_SHANI_CODE
	if (!sha_force_soft && er_sha_hw_available()) {
		sha256_blocks_ni(h, p, nblocks);
		return;
	}
#endif
	sha256_blocks_c(h, p, nblocks);
}

/* ------------------------------------------------------------------ SHA-512 */
static const uint64_t K512[80] = {
	0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
	0x3956c25bf348b538ull, 0x59f111f1b605d019ull, 0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull,
	0xd807aa98a3030242ull, 0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
	0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull, 0xc19bf174cf692694ull,
	0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, 0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull,
	0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
	0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full, 0xbf597fc7beef0ee4ull,
	0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull, 0x06ca6351e003826full, 0x142929670a0e6e70ull,
	0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
	0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull, 0x92722c851482353bull,
	0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull, 0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
	0xd192e819d6ef5218ull, 0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
	0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull, 0x34b0bcb5e19b48a8ull,
	0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull, 0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull,
	0x748f82ee5defb2fcull, 0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
	0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull, 0xc67178f2e372532bull,
	0xca273eceea26619cull, 0xd186b8c721c0c207ull, 0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull,
	0x06f067aa72176fbaull, 0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
	0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull, 0x431d67c49c100d4cull,
	0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull, 0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};

void er_sha512_blocks(uint64_t h[8], const uint8_t *p, size_t nblocks)
{
	uint64_t w[16];

	while (nblocks--) {
		uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
		for (int i = 0; i < 16; i++)
			w[i] = be64(p + 8 * i);
		for (int i = 0; i < 80; i++) {
			if (i >= 16) {
				uint64_t x = w[(i + 1) & 15], y = w[(i + 14) & 15];
				uint64_t s0 = ror64(x, 1) ^ ror64(x, 8) ^ (x >> 7);
				uint64_t s1 = ror64(y, 19) ^ ror64(y, 61) ^ (y >> 6);
				w[i & 15] += s0 + w[(i + 9) & 15] + s1;
			}
			uint64_t S1 = ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41);
			uint64_t ch = (e & f) ^ (~e & g);
			uint64_t t1 = hh + S1 + ch + K512[i] + w[i & 15];
			uint64_t S0 = ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39);
			uint64_t maj = (a & b) ^ (a & c) ^ (b & c);
			uint64_t t2 = S0 + maj;
			hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
		p += 128;
	}
	er_wipe(w, sizeof(w));
}

/* ------------------------------------------------------------------ generic */
size_t er_hash_len(enum er_hash h)
{
	switch (h) {
	case ER_HASH_SHA1: return 20;
	case ER_HASH_SHA256: return 32;
	case ER_HASH_SHA512: return 64;
	}
	return 0;
}

size_t er_hash_block_len(enum er_hash h)
{
	switch (h) {
	case ER_HASH_SHA1: return 64;
	case ER_HASH_SHA256: return 64;
	case ER_HASH_SHA512: return 128;
	}
	return 0;
}

static bool name_is(const char *name, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = name[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (want[i] == '\0' || ch != want[i])
			return false;
	}
	return want[i] == '\0';
}

bool er_hash_from_name(const char *name, size_t n, enum er_hash *out)
{
	if (!name)
		return false;
	if (name_is(name, n, "sha1"))
		*out = ER_HASH_SHA1;
	else if (name_is(name, n, "sha256"))
		*out = ER_HASH_SHA256;
	else if (name_is(name, n, "sha512"))
		*out = ER_HASH_SHA512;
	else
		return false;
	return true;
}

void er_hash_init(struct er_hash_ctx *c, enum er_hash h)
{
	static const uint32_t iv1[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 };
	static const uint32_t iv256[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	static const uint64_t iv512[8] = {
		0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
		0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
	};

	er_memset(c, 0, sizeof(*c));
	c->h = h;
	switch (h) {
	case ER_HASH_SHA1: er_memcpy(c->u.s1.h, iv1, sizeof(iv1)); break;
	case ER_HASH_SHA256: er_memcpy(c->u.s256.h, iv256, sizeof(iv256)); break;
	case ER_HASH_SHA512: er_memcpy(c->u.s512.h, iv512, sizeof(iv512)); break;
	}
}

/* the buffer, fill, length and compression of one state, so update/final are shared */
struct view {
	uint8_t *buf;
	uint32_t *fill;
	uint64_t *len;
	size_t block;
};

static bool view_of(struct er_hash_ctx *c, struct view *v)
{
	switch (c->h) {
	case ER_HASH_SHA1:
		*v = (struct view){ c->u.s1.buf, &c->u.s1.fill, &c->u.s1.len, 64 };
		return true;
	case ER_HASH_SHA256:
		*v = (struct view){ c->u.s256.buf, &c->u.s256.fill, &c->u.s256.len, 64 };
		return true;
	case ER_HASH_SHA512:
		*v = (struct view){ c->u.s512.buf, &c->u.s512.fill, &c->u.s512.len, 128 };
		return true;
	}
	return false;
}

static void compress(struct er_hash_ctx *c, const uint8_t *p, size_t nblocks)
{
	switch (c->h) {
	case ER_HASH_SHA1: er_sha1_blocks(c->u.s1.h, p, nblocks); break;
	case ER_HASH_SHA256: er_sha256_blocks(c->u.s256.h, p, nblocks); break;
	case ER_HASH_SHA512: er_sha512_blocks(c->u.s512.h, p, nblocks); break;
	}
}

void er_hash_update(struct er_hash_ctx *c, const void *data, size_t n)
{
	const uint8_t *p = data;
	struct view v;

	if (!view_of(c, &v) || n == 0)
		return;
	*v.len += n;
	if (*v.fill) {
		size_t take = ER_MIN(n, v.block - *v.fill);
		er_memcpy(v.buf + *v.fill, p, take);
		*v.fill += (uint32_t)take;
		p += take;
		n -= take;
		if (*v.fill < v.block)
			return;
		compress(c, v.buf, 1);
		*v.fill = 0;
	}
	if (n >= v.block) {
		size_t nb = n / v.block;
		compress(c, p, nb);
		p += nb * v.block;
		n -= nb * v.block;
	}
	if (n) {
		er_memcpy(v.buf, p, n);
		*v.fill = (uint32_t)n;
	}
}

void er_hash_final(struct er_hash_ctx *c, uint8_t *out)
{
	struct view v;

	if (view_of(c, &v)) {
		size_t lenpos = v.block - (v.block == 128 ? 16 : 8);
		uint64_t bits = *v.len << 3;
		uint32_t f = *v.fill;

		v.buf[f++] = 0x80;
		if (f > lenpos) {
			er_memset(v.buf + f, 0, v.block - f);
			compress(c, v.buf, 1);
			f = 0;
		}
		er_memset(v.buf + f, 0, v.block - f);
		/* SHA-512's 128-bit length: the high 64 bits hold len >> 61 */
		if (v.block == 128)
			put_be64(v.buf + v.block - 16, *v.len >> 61);
		put_be64(v.buf + v.block - 8, bits);
		compress(c, v.buf, 1);
		switch (c->h) {
		case ER_HASH_SHA1:
			for (int i = 0; i < 5; i++)
				put_be32(out + 4 * i, c->u.s1.h[i]);
			break;
		case ER_HASH_SHA256:
			for (int i = 0; i < 8; i++)
				put_be32(out + 4 * i, c->u.s256.h[i]);
			break;
		case ER_HASH_SHA512:
			for (int i = 0; i < 8; i++)
				put_be64(out + 8 * i, c->u.s512.h[i]);
			break;
		}
	}
	er_wipe(c, sizeof(*c));
}

void er_hash(enum er_hash h, const void *data, size_t n, uint8_t *out)
{
	struct er_hash_ctx c;

	er_hash_init(&c, h);
	er_hash_update(&c, data, n);
	er_hash_final(&c, out);
}

/* ------------------------------------------------------------------ HMAC */
void er_hmac_init(struct er_hmac_ctx *c, enum er_hash h, const void *key, size_t keylen)
{
	uint8_t k[ER_HASH_MAX_BLOCK];
	size_t bl = er_hash_block_len(h);

	er_memset(k, 0, sizeof(k));
	if (keylen > bl)
		er_hash(h, key, keylen, k);
	else if (keylen)
		er_memcpy(k, key, keylen);
	for (size_t i = 0; i < bl; i++)
		k[i] ^= 0x36;
	er_hash_init(&c->inner, h);
	er_hash_update(&c->inner, k, bl);
	for (size_t i = 0; i < bl; i++)
		k[i] ^= 0x36 ^ 0x5c;
	er_hash_init(&c->outer, h);
	er_hash_update(&c->outer, k, bl);
	er_wipe(k, sizeof(k));
}

void er_hmac_update(struct er_hmac_ctx *c, const void *data, size_t n)
{
	er_hash_update(&c->inner, data, n);
}

void er_hmac_final(struct er_hmac_ctx *c, uint8_t *out)
{
	uint8_t ih[ER_HASH_MAX_LEN];
	size_t hl = er_hash_len(c->inner.h);

	er_hash_final(&c->inner, ih);
	er_hash_update(&c->outer, ih, hl);
	er_hash_final(&c->outer, out);
	er_wipe(ih, sizeof(ih));
	er_wipe(c, sizeof(*c));
}

void er_hmac(enum er_hash h, const void *key, size_t keylen, const void *data, size_t n, uint8_t *out)
{
	struct er_hmac_ctx c;

	er_hmac_init(&c, h, key, keylen);
	er_hmac_update(&c, data, n);
	er_hmac_final(&c, out);
}
