// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for crypto/argon2.c and crypto/blake2b.c (no libargon2 in fuzz builds: the
 * byte-exact oracle checks are in tests/unit/test_argon2.c).
 *
 * Input: bytes 0..12 are raw parameters (type, t_cost % 4, m_cost_kib and lanes as any
 * 32-bit values, output length 0..255; with bit 7 of byte 0 set, the type is bit 0, lanes
 * 1..8 and m_cost 8 * lanes + 0..199 KiB so that most runs are valid), byte 13 the salt
 * length (bit 7: a NULL salt when the length is 0), byte 14 how much memory is offered
 * (at most a 256 KiB arena), the rest is split into salt and password.
 * Checked: er_argon2 accepts exactly the parameters RFC 9106 / libargon2 allow whose memory
 * fits the offer; a refusal leaves the memory and the output untouched; an accepted run
 * wipes the memory it used and nothing beyond, and gives the same output with the lanes run
 * last-first through the er_lanes hook and through er_argon2_poll (one poll before and one
 * per slice: the arena is too small for pieces), which stopped at any poll wipes the memory
 * and the output. Also BLAKE2b: the input hashed in one piece equals
 * the input hashed in pieces cut where its bytes say; H' of a split input equals H' of the
 * whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/argon2.h"
#include "crypto/blake2b.h"

#define ARENA (256 * 1024)
static uint64_t arena[ARENA / 8 + 8];

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* says stop from its (fire_at + 1)-th call on */
struct polls { unsigned n, fire_at; };
static bool poll_fn(void *ctx)
{
	struct polls *p = ctx;
	return ++p->n > p->fire_at;
}

static void rev_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	(void)ctx;
	for (uint32_t i = n; i-- > 0;)
		fn(arg, i);
}

static void fuzz_blake2b(const uint8_t *d, size_t n)
{
	uint8_t a[64], b[64], h1[300], h2[300];
	size_t outlen = n ? 1 + d[0] % 64 : 32;
	struct er_blake2b c;

	if (!er_blake2b(a, outlen, d, n))
		abort();
	if (!er_blake2b_init(&c, outlen))
		abort();
	for (size_t off = 0; off < n;) {
		size_t take = 1 + (size_t)d[off] * 3;
		if (take > n - off)
			take = n - off;
		er_blake2b_update(&c, d + off, take);
		off += take;
	}
	er_blake2b_final(&c, b);
	if (memcmp(a, b, outlen) != 0)
		abort();
	size_t T = n ? 1 + (size_t)d[n - 1] + (n > 1 ? d[n - 2] % 44 : 0) : 100;
	size_t split = n ? d[0] % (n + 1) : 0;
	if (!er_blake2b_long(h1, T, d, split, d + split, n - split) || !er_blake2b_long(h2, T, d, n, NULL, 0))
		abort();
	if (memcmp(h1, h2, T) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint8_t out[256], out2[256];

	fuzz_blake2b(d, n);
	if (n < 15)
		return 0;
	struct er_argon2_params p = {
		.type = (enum er_argon2_type)d[0],
		.t_cost = le32(d + 1) % 4,
		.m_cost_kib = le32(d + 5),
		.lanes = le32(d + 9),
	};
	if (d[0] & 0x80) {      /* mostly valid: both types, small memory, 1..8 lanes */
		p.type = d[0] & 1 ? ER_ARGON2ID : ER_ARGON2I;
		p.lanes = 1 + d[9] % 8;
		p.m_cost_kib = 8 * p.lanes + le32(d + 5) % 200;
	}
	size_t outlen = d[12];
	size_t rest = n - 15, saltlen = d[13] % 40;
	if (saltlen > rest)
		saltlen = rest;
	p.salt = saltlen || d[13] & 0x80 ? d + 15 : NULL;
	p.saltlen = saltlen;
	p.pwd = d + 15 + saltlen;
	p.pwdlen = rest - saltlen;
	uint64_t memlen = (uint64_t)ARENA * d[14] / 255;
	uint8_t *mem = (uint8_t *)arena + (d[14] & 1 ? 0 : 8);   /* both aligned */

	/* the rules, stated independently */
	uint64_t need = 0;
	bool valid = (p.type == ER_ARGON2I || p.type == ER_ARGON2ID) && p.t_cost >= 1 && outlen >= 4 &&
		     p.lanes >= 1 && p.lanes <= 0xFFFFFF && (uint64_t)p.m_cost_kib >= 8ull * p.lanes &&
		     p.salt && p.saltlen >= 8;
	if (valid) {
		need = (uint64_t)(p.m_cost_kib / (4 * p.lanes)) * 4 * p.lanes * 1024;
		valid = need <= memlen;
	}
	if (valid && er_argon2_mem_bytes(&p) != need)
		abort();

	memset(arena, 0xA5, sizeof(arena));
	memset(out, 0x3C, sizeof(out));
	bool ok = er_argon2(&p, mem, memlen, NULL, out, outlen);
	if (ok != valid)
		abort();
	if (!ok) {
		for (size_t i = 0; i < sizeof(arena); i++)
			if (((uint8_t *)arena)[i] != 0xA5)
				abort();
		for (size_t i = 0; i < sizeof(out); i++)
			if (out[i] != 0x3C)
				abort();
		return 0;
	}
	for (size_t i = outlen; i < sizeof(out); i++)
		if (out[i] != 0x3C)
			abort();
	for (uint64_t i = 0; i < need; i++)
		if (mem[i] != 0)
			abort();
	for (uint8_t *q = mem + need; q < (uint8_t *)arena + sizeof(arena); q++)
		if (*q != 0xA5)
			abort();
	for (uint8_t *q = (uint8_t *)arena; q < mem; q++)
		if (*q != 0xA5)
			abort();
	struct er_lanes rev = { .ctx = NULL, .run = rev_run };
	if (!er_argon2(&p, mem, memlen, &rev, out2, outlen) || memcmp(out, out2, outlen) != 0)
		abort();
	/* er_argon2_poll: never stopping, the same output; stopping at poll k (k from the
	 * output's first byte), false with the memory and the output wiped, no later poll */
	struct polls pl = { 0, ~0u };
	bool stopped = true;
	if (!er_argon2_poll(&p, mem, memlen, &rev, poll_fn, &pl, &stopped, out2, outlen) || stopped ||
	    memcmp(out, out2, outlen) != 0 || pl.n != 1 + 4 * p.t_cost)
		abort();
	pl = (struct polls){ 0, out[0] % (1 + 4 * p.t_cost) };
	memset(mem, 0x5A, (size_t)need);
	if (er_argon2_poll(&p, mem, memlen, NULL, poll_fn, &pl, &stopped, out2, outlen) || !stopped ||
	    pl.n != pl.fire_at + 1)
		abort();
	for (uint64_t i = 0; i < need; i++)
		if (mem[i] != 0)
			abort();
	for (size_t i = 0; i < outlen; i++)
		if (out2[i] != 0)
			abort();
	return 0;
}
