// SPDX-License-Identifier: GPL-2.0-or-later
/* BLAKE2b (RFC 7693) and Argon2's H' (RFC 9106 section 3.3), freestanding. */
#include "crypto/blake2b.h"
#include "crypto/wipe.h"

static const uint64_t iv[8] = {
	0x6A09E667F3BCC908ull, 0xBB67AE8584CAA73Bull, 0x3C6EF372FE94F82Bull, 0xA54FF53A5F1D36F1ull,
	0x510E527FADE682D1ull, 0x9B05688C2B3E6C1Full, 0x1F83D9ABFB41BD6Bull, 0x5BE0CD19137E2179ull,
};

static const uint8_t sigma[12][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
};

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
	return (x >> n) | (x << (64 - n));
}

#define G(r, i, a, b, c, d) do { \
	a = a + b + m[sigma[r][2 * (i)]]; d = rotr64(d ^ a, 32); \
	c = c + d; b = rotr64(b ^ c, 24); \
	a = a + b + m[sigma[r][2 * (i) + 1]]; d = rotr64(d ^ a, 16); \
	c = c + d; b = rotr64(b ^ c, 63); \
} while (0)

static void compress(struct er_blake2b *c, const uint8_t *block, bool last)
{
	uint64_t m[16], v[16];

	for (unsigned i = 0; i < 16; i++)
		m[i] = er_le64(block + 8 * i);
	for (unsigned i = 0; i < 8; i++) {
		v[i] = c->h[i];
		v[i + 8] = iv[i];
	}
	v[12] ^= c->t[0];
	v[13] ^= c->t[1];
	if (last)
		v[14] = ~v[14];
	for (unsigned r = 0; r < 12; r++) {
		G(r, 0, v[0], v[4], v[8], v[12]);
		G(r, 1, v[1], v[5], v[9], v[13]);
		G(r, 2, v[2], v[6], v[10], v[14]);
		G(r, 3, v[3], v[7], v[11], v[15]);
		G(r, 4, v[0], v[5], v[10], v[15]);
		G(r, 5, v[1], v[6], v[11], v[12]);
		G(r, 6, v[2], v[7], v[8], v[13]);
		G(r, 7, v[3], v[4], v[9], v[14]);
	}
	for (unsigned i = 0; i < 8; i++)
		c->h[i] ^= v[i] ^ v[i + 8];
	er_wipe(m, sizeof(m));
	er_wipe(v, sizeof(v));
}

static void add_counter(struct er_blake2b *c, uint64_t n)
{
	c->t[0] += n;
	if (c->t[0] < n)
		c->t[1]++;
}

bool er_blake2b_init_key(struct er_blake2b *c, size_t outlen, const void *key, size_t keylen)
{
	if (outlen == 0 || outlen > ER_BLAKE2B_OUTMAX || keylen > ER_BLAKE2B_KEYMAX || (keylen && !key))
		return false;
	for (unsigned i = 0; i < 8; i++)
		c->h[i] = iv[i];
	/* parameter block: digest length, key length, fanout 1, depth 1 */
	c->h[0] ^= 0x01010000ull ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
	c->t[0] = c->t[1] = 0;
	c->buflen = 0;
	c->outlen = outlen;
	er_memset(c->buf, 0, sizeof(c->buf));
	if (keylen) {
		er_memcpy(c->buf, key, keylen);
		c->buflen = ER_BLAKE2B_BLOCK;   /* the key block is a full block of its own */
	}
	return true;
}

bool er_blake2b_init(struct er_blake2b *c, size_t outlen)
{
	return er_blake2b_init_key(c, outlen, NULL, 0);
}

void er_blake2b_update(struct er_blake2b *c, const void *data, size_t n)
{
	const uint8_t *in = data;

	while (n > 0) {
		/* the last block is compressed only in final (it gets the last-block flag) */
		if (c->buflen == ER_BLAKE2B_BLOCK) {
			add_counter(c, ER_BLAKE2B_BLOCK);
			compress(c, c->buf, false);
			c->buflen = 0;
		}
		size_t take = ER_MIN(n, ER_BLAKE2B_BLOCK - c->buflen);
		er_memcpy(c->buf + c->buflen, in, take);
		c->buflen += take;
		in += take;
		n -= take;
	}
}

void er_blake2b_final(struct er_blake2b *c, uint8_t *out)
{
	uint8_t full[ER_BLAKE2B_OUTMAX];

	add_counter(c, c->buflen);
	er_memset(c->buf + c->buflen, 0, ER_BLAKE2B_BLOCK - c->buflen);
	compress(c, c->buf, true);
	for (unsigned i = 0; i < 8; i++)
		er_put_le64(full + 8 * i, c->h[i]);
	er_memcpy(out, full, c->outlen);
	er_wipe(full, sizeof(full));
	er_wipe(c, sizeof(*c));
}

bool er_blake2b(uint8_t *out, size_t outlen, const void *data, size_t n)
{
	struct er_blake2b c;

	if (!er_blake2b_init(&c, outlen))
		return false;
	er_blake2b_update(&c, data, n);
	er_blake2b_final(&c, out);
	return true;
}

bool er_blake2b_long(uint8_t *out, size_t outlen, const void *a, size_t alen, const void *b, size_t blen)
{
	struct er_blake2b c;
	uint8_t lenle[4], v[ER_BLAKE2B_OUTMAX];

	if (outlen == 0 || (uint64_t)outlen >> 32 != 0)
		return false;
	er_put_le32(lenle, (uint32_t)outlen);
	if (outlen <= ER_BLAKE2B_OUTMAX) {
		er_blake2b_init(&c, outlen);
		er_blake2b_update(&c, lenle, sizeof(lenle));
		er_blake2b_update(&c, a, alen);
		er_blake2b_update(&c, b, blen);
		er_blake2b_final(&c, out);
		return true;
	}
	/* V1 = H^64(LE32(T) || X); out gets the first 32 bytes of V1 .. Vr, then all of
	 * V(r+1) = H^(T - 32r)(Vr), with r = ceil(T / 32) - 2 */
	er_blake2b_init(&c, ER_BLAKE2B_OUTMAX);
	er_blake2b_update(&c, lenle, sizeof(lenle));
	er_blake2b_update(&c, a, alen);
	er_blake2b_update(&c, b, blen);
	er_blake2b_final(&c, v);
	er_memcpy(out, v, 32);
	out += 32;
	size_t left = outlen - 32;
	while (left > ER_BLAKE2B_OUTMAX) {
		er_blake2b(v, ER_BLAKE2B_OUTMAX, v, ER_BLAKE2B_OUTMAX);
		er_memcpy(out, v, 32);
		out += 32;
		left -= 32;
	}
	er_blake2b(v, left, v, ER_BLAKE2B_OUTMAX);
	er_memcpy(out, v, left);
	er_wipe(v, sizeof(v));
	return true;
}
