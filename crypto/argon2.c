// SPDX-License-Identifier: GPL-2.0-or-later
/* Argon2i / Argon2id version 0x13 (RFC 9106), freestanding; see argon2.h.
 *
 * Structure follows the RFC (and libargon2's reference code): H0 from the parameters,
 * password and salt; the first two blocks of each lane from H'(H0 || j || lane); then
 * t_cost passes of 4 slices each, where within a slice every lane fills its segment
 * independently (run through the er_lanes hook); the result is H' of the XOR of the
 * lanes' last blocks. The memory is wiped before returning. */
#include "crypto/argon2.h"
#include "crypto/blake2b.h"
#include "crypto/wipe.h"

#define QWORDS (ER_ARGON2_BLOCK_SIZE / 8)     /* 128 64-bit words in a block */
#define PREHASH_LEN 64
#define PREHASH_SEED_LEN (PREHASH_LEN + 8)     /* H0 || LE32(j) || LE32(lane) */
#define VERSION 0x13

struct block { uint64_t v[QWORDS]; };

struct instance {
	struct block *mem;
	uint32_t passes;
	uint32_t lanes;
	uint32_t lane_length;       /* blocks per lane */
	uint32_t segment_length;    /* blocks per lane per slice */
	uint32_t blocks;            /* lanes * lane_length */
	enum er_argon2_type type;
};

/* one slice of one pass: what the lane function needs */
struct slice_job {
	const struct instance *in;
	uint32_t pass;
	uint32_t slice;
	uint32_t from, to;          /* the blocks [from, to) of each lane's segment */
};

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
	return (x >> n) | (x << (64 - n));
}

/* BlaMka: a + b + 2 * lo32(a) * lo32(b) */
static inline uint64_t fblamka(uint64_t a, uint64_t b)
{
	uint64_t m = (uint64_t)(uint32_t)a * (uint32_t)b;
	return a + b + 2 * m;
}

#define GB(a, b, c, d) do { \
	a = fblamka(a, b); d = rotr64(d ^ a, 32); \
	c = fblamka(c, d); b = rotr64(b ^ c, 24); \
	a = fblamka(a, b); d = rotr64(d ^ a, 16); \
	c = fblamka(c, d); b = rotr64(b ^ c, 63); \
} while (0)

/* the permutation P on 16 words given by their indices into r */
#define P(r, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15) do { \
	GB(r[i0], r[i4], r[i8], r[i12]); GB(r[i1], r[i5], r[i9], r[i13]); \
	GB(r[i2], r[i6], r[i10], r[i14]); GB(r[i3], r[i7], r[i11], r[i15]); \
	GB(r[i0], r[i5], r[i10], r[i15]); GB(r[i1], r[i6], r[i11], r[i12]); \
	GB(r[i2], r[i7], r[i8], r[i13]); GB(r[i3], r[i4], r[i9], r[i14]); \
} while (0)

/* next = G(prev, ref) = P(R) ^ R with R = prev ^ ref, xor the old next when with_xor (the
 * passes after the first in v0x13). R goes through P in place in r (the caller's scratch
 * block, wiped by the caller); the final XOR recomputes R from prev and ref instead of
 * keeping a copy. ref may be next (data-independent addressing: G(0, addr) into addr). */
static void fill_block(const struct block *prev, const struct block *ref, struct block *next,
		       bool with_xor, struct block *r)
{
	uint64_t *R = r->v;

	for (unsigned i = 0; i < QWORDS; i++)
		R[i] = prev->v[i] ^ ref->v[i];
	/* rows: 8 runs of P over 16 consecutive words */
	for (unsigned i = 0; i < 8; i++) {
		uint64_t *q = R + 16 * i;
		P(q, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	}
	/* columns: 8 runs of P over word pairs 2i, 2i+1 of each row */
	for (unsigned i = 0; i < 8; i++) {
		uint64_t *q = R + 2 * i;
		P(q, 0, 1, 16, 17, 32, 33, 48, 49, 64, 65, 80, 81, 96, 97, 112, 113);
	}
	if (with_xor)
		for (unsigned i = 0; i < QWORDS; i++)
			next->v[i] ^= prev->v[i] ^ ref->v[i] ^ R[i];
	else
		for (unsigned i = 0; i < QWORDS; i++)
			next->v[i] = prev->v[i] ^ ref->v[i] ^ R[i];
}

/* the next block of pseudo-random indices for data-independent addressing:
 * addr = G(0, G(0, input)) after incrementing input's counter */
static void next_addresses(struct block *addr, struct block *input, struct block *r, const struct block *zero)
{
	input->v[6]++;
	fill_block(zero, input, addr, false, r);
	fill_block(zero, addr, addr, false, r);
}

/* the reference block's index inside lane ref_lane (RFC 9106 section 3.4.1.2) */
static uint32_t index_alpha(const struct instance *in, uint32_t pass, uint32_t slice, uint32_t index,
			    uint32_t pseudo_rand, bool same_lane)
{
	uint32_t area, start = 0;

	if (pass == 0) {
		if (slice == 0)
			area = index - 1;                       /* index >= 2 here */
		else if (same_lane)
			area = slice * in->segment_length + index - 1;
		else
			area = slice * in->segment_length - (index == 0 ? 1 : 0);
	} else {
		if (same_lane)
			area = in->lane_length - in->segment_length + index - 1;
		else
			area = in->lane_length - in->segment_length - (index == 0 ? 1 : 0);
		if (slice != ER_ARGON2_SYNC_POINTS - 1)
			start = (slice + 1) * in->segment_length;
	}
	uint64_t rel = pseudo_rand;
	rel = (rel * rel) >> 32;
	rel = area - 1 - (((uint64_t)area * rel) >> 32);
	/* start + rel < 2 * lane_length: no overflow, and a 32-bit modulo (no libgcc helper) */
	uint32_t pos = start + (uint32_t)rel;
	if (pos >= in->lane_length)
		pos -= in->lane_length;
	return pos;
}

/* scratch blocks for one segment; on the stack of whichever CPU runs the lane */
struct scratch {
	struct block r;                 /* fill_block's temporary */
	struct block addr, input, zero; /* data-independent addressing */
};

/* blocks [from, to) of the segment (pass, slice) of lane; from is 0 or a multiple of QWORDS */
static void fill_segment(const struct instance *in, uint32_t pass, uint32_t slice, uint32_t lane,
			 uint32_t from, uint32_t to)
{
	struct scratch s;
	bool indep = in->type == ER_ARGON2I || (pass == 0 && slice < ER_ARGON2_SYNC_POINTS / 2);
	uint32_t start = from;

	if (indep) {
		er_memset(&s.zero, 0, sizeof(s.zero));
		er_memset(&s.input, 0, sizeof(s.input));
		s.input.v[0] = pass;
		s.input.v[1] = lane;
		s.input.v[2] = slice;
		s.input.v[3] = in->blocks;
		s.input.v[4] = in->passes;
		s.input.v[5] = (uint64_t)in->type;
		/* the address blocks made before this piece: one per QWORDS blocks, the next
		 * one made at i = from (from a multiple of QWORDS) */
		s.input.v[6] = from / QWORDS;
	}
	if (pass == 0 && slice == 0 && from == 0) {
		start = 2;      /* the first two blocks come from H0 */
		if (indep)
			next_addresses(&s.addr, &s.input, &s.r, &s.zero);
	}

	struct block *lane_base = in->mem + (size_t)lane * in->lane_length;
	uint32_t cur = slice * in->segment_length + start;     /* index inside the lane */
	for (uint32_t i = start; i < to; i++, cur++) {
		uint32_t prev = cur == 0 ? in->lane_length - 1 : cur - 1;
		uint64_t pseudo_rand;

		if (indep) {
			if (i % QWORDS == 0)
				next_addresses(&s.addr, &s.input, &s.r, &s.zero);
			pseudo_rand = s.addr.v[i % QWORDS];
		} else {
			pseudo_rand = lane_base[prev].v[0];
		}
		uint32_t ref_lane = (uint32_t)(pseudo_rand >> 32) % in->lanes;
		if (pass == 0 && slice == 0)
			ref_lane = lane;
		uint32_t ref_index = index_alpha(in, pass, slice, i, (uint32_t)pseudo_rand, ref_lane == lane);
		const struct block *ref = in->mem + (size_t)ref_lane * in->lane_length + ref_index;
		fill_block(&lane_base[prev], ref, &lane_base[cur], pass != 0, &s.r);
	}
	er_wipe(&s, sizeof(s));
}

/* Zero the stack below the caller's frame: where fill_segment (4.3 KiB, its scratch blocks
 * already wiped) and fill_block (register spills of password-derived words) or BLAKE2b's
 * compression had their frames. Called right after they return; its frame covers theirs. */
static __attribute__((noinline)) void scrub_stack(void)
{
	uint8_t area[6144];
	er_wipe(area, sizeof(area));
}

static void lane_fn(void *arg, uint32_t lane)
{
	const struct slice_job *job = arg;
	fill_segment(job->in, job->pass, job->slice, lane, job->from, job->to);
	scrub_stack();
}

/* the effective geometry for p: false for parameters out of range */
static bool geometry(const struct er_argon2_params *p, uint32_t *lane_length)
{
	if (p->lanes < ER_ARGON2_MIN_LANES || p->lanes > ER_ARGON2_MAX_LANES)
		return false;
	/* m_cost >= 8 * lanes (libargon2's ARGON2_MEMORY_TOO_LITTLE); 64-bit: lanes < 2^24 */
	if ((uint64_t)p->m_cost_kib < 2ull * ER_ARGON2_SYNC_POINTS * p->lanes)
		return false;
	uint32_t segment = p->m_cost_kib / (ER_ARGON2_SYNC_POINTS * p->lanes);
	*lane_length = segment * ER_ARGON2_SYNC_POINTS;
	return true;
}

uint64_t er_argon2_mem_bytes(const struct er_argon2_params *p)
{
	uint32_t lane_length;

	if (!p || !geometry(p, &lane_length))
		return 0;
	return (uint64_t)lane_length * p->lanes * ER_ARGON2_BLOCK_SIZE;
}

/* a length Argon2 encodes as LE32 (size_t is 32 or 64 bits) */
static inline bool fits32(size_t n)
{
	return (uint64_t)n >> 32 == 0;
}

static void block_from_bytes(struct block *b, const uint8_t *bytes)
{
	for (unsigned i = 0; i < QWORDS; i++)
		b->v[i] = er_le64(bytes + 8 * i);
}

static void block_to_bytes(uint8_t *bytes, const struct block *b)
{
	for (unsigned i = 0; i < QWORDS; i++)
		er_put_le64(bytes + 8 * i, b->v[i]);
}

static void hash_le32(struct er_blake2b *c, uint32_t v)
{
	uint8_t b[4];
	er_put_le32(b, v);
	er_blake2b_update(c, b, sizeof(b));
}

struct stop_hook {
	bool (*fn)(void *ctx);
	void *ctx;
};

static bool core(const struct er_argon2_params *p, const uint8_t *secret, size_t secretlen,
		 const uint8_t *ad, size_t adlen, void *mem, uint64_t memlen, const struct er_lanes *lanes,
		 const struct stop_hook *stop, bool *stopped, uint8_t *out, size_t outlen)
{
	struct instance in;
	uint32_t lane_length;
	uint8_t seed[PREHASH_SEED_LEN];
	uint8_t bytes[ER_ARGON2_BLOCK_SIZE];
	struct block acc;
	struct er_blake2b c;
	uint64_t need;

	if (!p || !mem || !out)
		return false;
	if (!geometry(p, &lane_length))
		goto bad;
	need = (uint64_t)lane_length * p->lanes * ER_ARGON2_BLOCK_SIZE;
	if (p->type != ER_ARGON2I && p->type != ER_ARGON2ID)
		goto bad;
	if (p->t_cost < 1 || outlen < ER_ARGON2_MIN_OUTLEN || !fits32(outlen))
		goto bad;
	if (!fits32(p->pwdlen) || (p->pwdlen && !p->pwd))
		goto bad;
	if (p->saltlen < ER_ARGON2_MIN_SALTLEN || !fits32(p->saltlen) || !p->salt)
		goto bad;
	if (!fits32(secretlen) || (secretlen && !secret) || !fits32(adlen) || (adlen && !ad))
		goto bad;
	/* the memory must be there and addressable: on ia32 4 GiB does not fit a size_t */
	if (memlen < need || need > (uint64_t)SIZE_MAX || ((uintptr_t)mem & 7))
		goto bad;
	if (stop->fn && stop->fn(stop->ctx)) {
		/* nothing derived yet; mem wiped all the same (the contract of a stop) */
		er_wipe(mem, (size_t)need);
		er_wipe(out, outlen);
		*stopped = true;
		return false;
	}

	in.mem = mem;
	in.passes = p->t_cost;
	in.lanes = p->lanes;
	in.lane_length = lane_length;
	in.segment_length = lane_length / ER_ARGON2_SYNC_POINTS;
	in.blocks = lane_length * p->lanes;
	in.type = p->type;

	/* H0 = H^64(p, T, m, t, v, y, len(P) P, len(S) S, len(K) K, len(X) X) */
	er_blake2b_init(&c, PREHASH_LEN);
	hash_le32(&c, p->lanes);
	hash_le32(&c, (uint32_t)outlen);
	hash_le32(&c, p->m_cost_kib);
	hash_le32(&c, p->t_cost);
	hash_le32(&c, VERSION);
	hash_le32(&c, (uint32_t)p->type);
	hash_le32(&c, (uint32_t)p->pwdlen);
	er_blake2b_update(&c, p->pwd, p->pwdlen);
	hash_le32(&c, (uint32_t)p->saltlen);
	er_blake2b_update(&c, p->salt, p->saltlen);
	hash_le32(&c, (uint32_t)secretlen);
	er_blake2b_update(&c, secret, secretlen);
	hash_le32(&c, (uint32_t)adlen);
	er_blake2b_update(&c, ad, adlen);
	er_blake2b_final(&c, seed);

	/* B[lane][j] = H'^1024(H0 || LE32(j) || LE32(lane)) for j = 0, 1 */
	for (uint32_t l = 0; l < in.lanes; l++) {
		for (uint32_t j = 0; j < 2; j++) {
			er_put_le32(seed + PREHASH_LEN, j);
			er_put_le32(seed + PREHASH_LEN + 4, l);
			er_blake2b_long(bytes, sizeof(bytes), seed, sizeof(seed), NULL, 0);
			block_from_bytes(&in.mem[(size_t)l * lane_length + j], bytes);
		}
	}

	/* with a stop hook, the segments in pieces of about ER_ARGON2_POLL_BLOCKS blocks in all
	 * (whole segments when a run of the lanes is costly) */
	uint32_t piece = in.segment_length;
	if (stop->fn && !(lanes && lanes->run && lanes->costly)) {
		piece = ER_ARGON2_POLL_BLOCKS / in.lanes / QWORDS * QWORDS;
		if (piece < QWORDS)
			piece = QWORDS;
	}
	for (uint32_t pass = 0; pass < in.passes; pass++) {
		for (uint32_t slice = 0; slice < ER_ARGON2_SYNC_POINTS; slice++) {
			for (uint32_t from = 0; from < in.segment_length; from += piece) {
				struct slice_job job = {
					.in = &in, .pass = pass, .slice = slice, .from = from,
					.to = in.segment_length - from > piece ? from + piece : in.segment_length,
				};
				if (lanes && lanes->run) {
					lanes->run(lanes->ctx, lane_fn, &job, in.lanes);
				} else {
					for (uint32_t l = 0; l < in.lanes; l++)
						lane_fn(&job, l);
				}
				if (stop->fn && stop->fn(stop->ctx)) {
					er_wipe(seed, sizeof(seed));
					er_wipe(bytes, sizeof(bytes));
					er_wipe(in.mem, (size_t)need);
					er_wipe(out, outlen);
					*stopped = true;
					return false;
				}
			}
		}
	}

	/* C = XOR of the lanes' last blocks; tag = H'^T(C) */
	for (unsigned i = 0; i < QWORDS; i++)
		acc.v[i] = in.mem[lane_length - 1].v[i];
	for (uint32_t l = 1; l < in.lanes; l++) {
		const struct block *b = &in.mem[(size_t)l * lane_length + lane_length - 1];
		for (unsigned i = 0; i < QWORDS; i++)
			acc.v[i] ^= b->v[i];
	}
	block_to_bytes(bytes, &acc);
	er_blake2b_long(out, outlen, bytes, sizeof(bytes), NULL, 0);

	er_wipe(seed, sizeof(seed));
	er_wipe(bytes, sizeof(bytes));
	er_wipe(&acc, sizeof(acc));
	/* every block we wrote (need <= memlen, <= SIZE_MAX; the rest of mem was never touched) */
	er_wipe(in.mem, (size_t)need);
	return true;
bad:
	/* refused before anything was derived: mem is untouched */
	return false;
}

bool er_argon2_ex(const struct er_argon2_params *p, const uint8_t *secret, size_t secretlen,
		  const uint8_t *ad, size_t adlen, void *mem, uint64_t memlen, const struct er_lanes *lanes,
		  uint8_t *out, size_t outlen)
{
	struct stop_hook none = { NULL, NULL };
	bool stopped = false;
	return core(p, secret, secretlen, ad, adlen, mem, memlen, lanes, &none, &stopped, out, outlen);
}

bool er_argon2(const struct er_argon2_params *p, void *mem, uint64_t memlen, const struct er_lanes *lanes,
	       uint8_t *out, size_t outlen)
{
	bool ok = er_argon2_ex(p, NULL, 0, NULL, 0, mem, memlen, lanes, out, outlen);
	scrub_stack();
	return ok;
}

bool er_argon2_poll(const struct er_argon2_params *p, void *mem, uint64_t memlen,
		    const struct er_lanes *lanes, bool (*stop)(void *ctx), void *ctx, bool *stopped,
		    uint8_t *out, size_t outlen)
{
	struct stop_hook hook = { stop, ctx };
	bool dummy;
	if (!stopped)
		stopped = &dummy;
	*stopped = false;
	bool ok = core(p, NULL, 0, NULL, 0, mem, memlen, lanes, &hook, stopped, out, outlen);
	scrub_stack();
	return ok;
}
