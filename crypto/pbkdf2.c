// SPDX-License-Identifier: GPL-2.0-or-later
/* PBKDF2-HMAC-SHA-1/256/512 (RFC 8018 section 5.2).
 *
 * The iteration loop is what costs (LUKS1 and LUKS2 PBKDF2 keyslots ask for hundreds of
 * thousands to millions of iterations): HMAC's inner and outer keyed states are computed
 * once, and each iteration is then exactly two compression-function calls on a
 * pre-padded block (U is one digest long, so inner and outer messages are one block each). */
#include "crypto/pbkdf2.h"
#include "image/freestanding.h"
#include "crypto/wipe.h"

/* one keyed compression state: the hash words after the ipad or opad block */
union hstate {
	uint32_t w32[8];
	uint64_t w64[8];
};

struct prf {
	enum er_hash h;
	size_t hl, bl;
	union hstate istate, ostate;
	uint8_t blk[ER_HASH_MAX_BLOCK];      /* U_{j} followed by the padding for bl + hl bytes */
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* the state words of a context after exactly one block (the key xor pad) */
static void grab_state(const struct er_hash_ctx *c, union hstate *s)
{
	switch (c->h) {
	case ER_HASH_SHA1: er_memcpy(s->w32, c->u.s1.h, sizeof(c->u.s1.h)); break;
	case ER_HASH_SHA256: er_memcpy(s->w32, c->u.s256.h, sizeof(c->u.s256.h)); break;
	case ER_HASH_SHA512: er_memcpy(s->w64, c->u.s512.h, sizeof(c->u.s512.h)); break;
	}
}

/* s := compress(from, blk), output written big-endian into out (hl bytes) */
static void one_block(const struct prf *p, const union hstate *from, uint8_t *out)
{
	union hstate s = *from;

	switch (p->h) {
	case ER_HASH_SHA1:
		er_sha1_blocks(s.w32, p->blk, 1);
		for (int i = 0; i < 5; i++)
			put_be32(out + 4 * i, s.w32[i]);
		break;
	case ER_HASH_SHA256:
		er_sha256_blocks(s.w32, p->blk, 1);
		for (int i = 0; i < 8; i++)
			put_be32(out + 4 * i, s.w32[i]);
		break;
	case ER_HASH_SHA512:
		er_sha512_blocks(s.w64, p->blk, 1);
		for (int i = 0; i < 8; i++) {
			put_be32(out + 8 * i, (uint32_t)(s.w64[i] >> 32));
			put_be32(out + 8 * i + 4, (uint32_t)s.w64[i]);
		}
		break;
	}
	er_wipe(&s, sizeof(s));
}

/* U := HMAC(P, U) for a U of one digest length, in place in p->blk */
static void prf_iterate(struct prf *p)
{
	one_block(p, &p->istate, p->blk);      /* inner hash of (ipad block, U) */
	one_block(p, &p->ostate, p->blk);      /* outer hash of (opad block, inner) */
}

bool er_pbkdf2_poll(enum er_hash h, const uint8_t *pw, size_t pwlen, const uint8_t *salt,
		    size_t saltlen, uint32_t iterations, uint8_t *out, size_t outlen,
		    bool (*stop)(void *ctx), void *ctx, bool *stopped)
{
	struct er_hmac_ctx keyed, c;
	struct prf p;
	uint8_t t[ER_HASH_MAX_LEN], ibuf[4];
	size_t hl = er_hash_len(h);
	uint32_t block = 1;
	uint8_t *out0 = out;
	size_t outlen0 = outlen;
	bool halted = false;

	if (stopped)
		*stopped = false;
	if (hl == 0 || iterations == 0 || outlen == 0 || (uint64_t)outlen > (uint64_t)0xFFFFFFFFu * hl)
		return false;

	er_memset(&p, 0, sizeof(p));
	p.h = h;
	p.hl = hl;
	p.bl = er_hash_block_len(h);
	er_hmac_init(&keyed, h, pw, pwlen);
	grab_state(&keyed.inner, &p.istate);
	grab_state(&keyed.outer, &p.ostate);
	/* padding for a message of bl + hl bytes after U in the block */
	{
		uint64_t bits = (uint64_t)(p.bl + hl) * 8;
		p.blk[hl] = 0x80;
		put_be32(p.blk + p.bl - 8, (uint32_t)(bits >> 32));
		put_be32(p.blk + p.bl - 4, (uint32_t)bits);
	}

	while (outlen) {
		size_t take = ER_MIN(outlen, hl);

		if (stop && stop(ctx)) {
			halted = true;
			break;
		}
		/* U_1 = HMAC(P, S || INT(i)) through the generic code */
		c = keyed;
		er_hmac_update(&c, salt, saltlen);
		put_be32(ibuf, block);
		er_hmac_update(&c, ibuf, 4);
		er_hmac_final(&c, p.blk);
		er_memcpy(t, p.blk, hl);
		for (uint32_t j = 1; j < iterations; j++) {
			if (stop && !(j % ER_PBKDF2_POLL_ITERATIONS) && stop(ctx)) {
				halted = true;
				break;
			}
			prf_iterate(&p);
			for (size_t k = 0; k < hl; k++)
				t[k] ^= p.blk[k];
		}
		if (halted)
			break;
		er_memcpy(out, t, take);
		out += take;
		outlen -= take;
		block++;
	}
	er_wipe(&keyed, sizeof(keyed));
	er_wipe(&p, sizeof(p));
	er_wipe(t, sizeof(t));
	er_wipe(&c, sizeof(c));
	if (halted) {
		er_wipe(out0, outlen0);
		if (stopped)
			*stopped = true;
		return false;
	}
	return true;
}

bool er_pbkdf2(enum er_hash h, const uint8_t *pw, size_t pwlen, const uint8_t *salt, size_t saltlen,
	       uint32_t iterations, uint8_t *out, size_t outlen)
{
	return er_pbkdf2_poll(h, pw, pwlen, salt, saltlen, iterations, out, outlen, NULL, NULL, NULL);
}
