// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for crypto/argon2.c with libargon2 (the reference implementation, v0x13) as the
 * oracle: random passwords, salts and parameters for Argon2i and Argon2id; RFC 9106's test
 * vectors (which use a secret and associated data: through er_argon2_ex, against the RFC's
 * tags and libargon2's argon2_ctx); lanes run through the er_lanes hook on pthreads and in
 * scrambled orders (same output as serial and as libargon2; the hook is called once per
 * slice with n = lanes); the refusals (the same parameters libargon2 refuses); the memory
 * size; and the wipe of the working memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include <argon2.h>

#include "crypto/argon2.h"

static uint64_t rng_state = 0xD1B54A32D192ED03ull;
static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}
static void fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

/* ---------------------------------------------------------------- lane engines */

/* on pthreads: `workers` threads take lanes from a shared counter, in a permuted order */
struct pt_engine {
	unsigned workers;
	unsigned calls;         /* how often run was called */
	uint32_t bad_n;         /* n values that were not the lane count */
	uint32_t want_n;
	pthread_t self;
	unsigned on_other;      /* lanes that ran on a thread other than the caller's */
};
struct pt_job {
	struct pt_engine *e;
	er_lane_fn fn;
	void *arg;
	uint32_t n;
	uint32_t *order;
	uint32_t next;
	pthread_mutex_t lock;
};
static void *pt_worker(void *p)
{
	struct pt_job *j = p;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		uint32_t i = j->next++;
		if (i < j->n && !pthread_equal(pthread_self(), j->e->self))
			j->e->on_other++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		j->fn(j->arg, j->order[i]);
	}
}
static void pt_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	struct pt_engine *e = ctx;
	struct pt_job j = { .e = e, .fn = fn, .arg = arg, .n = n };
	pthread_t th[16];
	unsigned w = e->workers < 16 ? e->workers : 16;

	e->calls++;
	if (n != e->want_n)
		e->bad_n++;
	j.order = malloc(sizeof(uint32_t) * (n ? n : 1));
	assert_non_null(j.order);
	for (uint32_t i = 0; i < n; i++)
		j.order[i] = i;
	for (uint32_t i = n; i > 1; i--) {          /* Fisher-Yates */
		uint32_t k = (uint32_t)(rng() % i), t = j.order[i - 1];
		j.order[i - 1] = j.order[k];
		j.order[k] = t;
	}
	pthread_mutex_init(&j.lock, NULL);
	for (unsigned i = 0; i < w; i++)
		assert_int_equal(pthread_create(&th[i], NULL, pt_worker, &j), 0);
	for (unsigned i = 0; i < w; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.lock);
	free(j.order);
}

/* on this thread, last lane first */
static unsigned rev_calls;
static void rev_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	(void)ctx;
	rev_calls++;
	for (uint32_t i = n; i-- > 0;)
		fn(arg, i);
}

/* ---------------------------------------------------------------- helpers */

struct tcase {
	enum er_argon2_type type;
	uint32_t t, m, lanes;
	uint8_t pwd[128]; size_t pwdlen;
	uint8_t salt[64]; size_t saltlen;
	size_t outlen;
};

static void oracle(const struct tcase *c, uint8_t *out, int how)
{
	int r;
	argon2_type ty = c->type == ER_ARGON2I ? Argon2_i : Argon2_id;
	if (how == 0)
		r = argon2_hash(c->t, c->m, c->lanes, c->pwd, c->pwdlen, c->salt, c->saltlen, out, c->outlen,
				NULL, 0, ty, ARGON2_VERSION_13);
	else if (c->type == ER_ARGON2I)
		r = argon2i_hash_raw(c->t, c->m, c->lanes, c->pwd, c->pwdlen, c->salt, c->saltlen, out, c->outlen);
	else
		r = argon2id_hash_raw(c->t, c->m, c->lanes, c->pwd, c->pwdlen, c->salt, c->saltlen, out, c->outlen);
	assert_int_equal(r, ARGON2_OK);
}

/* ours, with memory of exactly the size asked for plus a sentinel tail that must stay */
static void ours(const struct tcase *c, const struct er_lanes *lanes, uint8_t *out)
{
	struct er_argon2_params p = {
		.type = c->type, .t_cost = c->t, .m_cost_kib = c->m, .lanes = c->lanes,
		.pwd = c->pwd, .pwdlen = c->pwdlen, .salt = c->salt, .saltlen = c->saltlen,
	};
	uint64_t need = er_argon2_mem_bytes(&p);
	/* the effective block count: m rounded down to a multiple of 4 * lanes */
	assert_int_equal(need, (uint64_t)(c->m / (4 * c->lanes)) * 4 * c->lanes * 1024);
	uint8_t *mem = malloc(need + 64);
	assert_non_null(mem);
	memset(mem, 0xA5, need + 64);
	assert_true(er_argon2(&p, mem, need + 64, lanes, out, c->outlen));
	for (uint64_t i = 0; i < need; i++)
		if (mem[i] != 0)
			fail_msg("working memory not wiped at byte %llu of %llu", (unsigned long long)i,
				 (unsigned long long)need);
	for (uint64_t i = need; i < need + 64; i++)
		assert_int_equal(mem[i], 0xA5);
	free(mem);
}

static void random_case(struct tcase *c, uint32_t max_m)
{
	c->type = rng() & 1 ? ER_ARGON2I : ER_ARGON2ID;
	c->t = 1 + (uint32_t)(rng() % 4);
	c->lanes = 1 + (uint32_t)(rng() % 8);
	uint32_t min_m = 8 * c->lanes;
	/* log-uniform between 8 * lanes and max_m KiB, exact values (not multiples of 4 * lanes) */
	uint32_t bits = 3 + (uint32_t)(rng() % 10);
	uint32_t m = (uint32_t)(rng() % (1u << bits)) + 8;
	c->m = m < min_m ? min_m : m > max_m ? max_m : m;
	c->pwdlen = (size_t)(rng() % sizeof(c->pwd));
	if (rng() % 8 == 0)
		c->pwdlen = 0;
	fill(c->pwd, c->pwdlen);
	c->saltlen = 8 + (size_t)(rng() % (sizeof(c->salt) - 7));
	fill(c->salt, c->saltlen);
	c->outlen = 4 + (size_t)(rng() % 125);
}

/* ---------------------------------------------------------------- tests */

static void test_random_vs_libargon2(void **state)
{
	(void)state;
	uint8_t a[128], b[128];
	for (int k = 0; k < 120; k++) {
		struct tcase c;
		random_case(&c, 4096);
		oracle(&c, a, k & 1);
		ours(&c, NULL, b);
		if (memcmp(a, b, c.outlen) != 0)
			fail_msg("case %d: type %d t %u m %u lanes %u pwd %zu salt %zu out %zu differs from libargon2",
				 k, c.type, c.t, c.m, c.lanes, c.pwdlen, c.saltlen, c.outlen);
	}
}

/* the edges: the smallest memory, a big lane count, long outputs (H' over many digests) */
static void test_edges_vs_libargon2(void **state)
{
	(void)state;
	static const struct { uint32_t t, m, lanes; size_t outlen; } e[] = {
		{ 1, 8, 1, 4 }, { 1, 8, 1, 32 }, { 2, 16, 2, 64 }, { 1, 64, 8, 65 }, { 3, 32, 4, 128 },
		{ 1, 15, 1, 32 }, { 1, 33, 4, 32 }, { 1, 1024, 16, 1000 }, { 2, 4096, 4, 512 },
		{ 1, 520, 1, 64 }, /* a segment of 130 blocks: crosses an address block */
		{ 1, 2056, 2, 32 },
	};
	uint8_t a[1000], b[1000];
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		for (int ty = ER_ARGON2I; ty <= ER_ARGON2ID; ty++) {
			struct tcase c = { .type = ty, .t = e[i].t, .m = e[i].m, .lanes = e[i].lanes,
					   .pwdlen = 32, .saltlen = 16, .outlen = e[i].outlen };
			fill(c.pwd, c.pwdlen);
			fill(c.salt, c.saltlen);
			oracle(&c, a, 0);
			ours(&c, NULL, b);
			assert_memory_equal(a, b, c.outlen);
		}
	}
}

/* RFC 9106 sections 5.2 and 5.3: t 3, m 32, p 4, password 32 x 01, salt 16 x 02, secret
 * 8 x 03, associated data 12 x 04, tag 32 bytes */
static void test_rfc9106_vectors(void **state)
{
	(void)state;
	static const uint8_t tag_i[32] = {
		0xc8, 0x14, 0xd9, 0xd1, 0xdc, 0x7f, 0x37, 0xaa, 0x13, 0xf0, 0xd7, 0x7f, 0x24, 0x94, 0xbd, 0xa1,
		0xc8, 0xde, 0x6b, 0x01, 0x6d, 0xd3, 0x88, 0xd2, 0x99, 0x52, 0xa4, 0xc4, 0x67, 0x2b, 0x6c, 0xe8,
	};
	static const uint8_t tag_id[32] = {
		0x0d, 0x64, 0x0d, 0xf5, 0x8d, 0x78, 0x76, 0x6c, 0x08, 0xc0, 0x37, 0xa3, 0x4a, 0x8b, 0x53, 0xc9,
		0xd0, 0x1e, 0xf0, 0x45, 0x2d, 0x75, 0xb6, 0x5e, 0xb5, 0x25, 0x20, 0xe9, 0x6b, 0x01, 0xe6, 0x59,
	};
	uint8_t pwd[32], salt[16], secret[8], ad[12], got[32], lib[32];
	memset(pwd, 1, sizeof(pwd));
	memset(salt, 2, sizeof(salt));
	memset(secret, 3, sizeof(secret));
	memset(ad, 4, sizeof(ad));
	static uint64_t mem[32 * 1024 / 8];
	struct pt_engine e = { .workers = 3, .want_n = 4, .self = pthread_self() };
	struct er_lanes pt = { .ctx = &e, .run = pt_run };

	for (int ty = ER_ARGON2I; ty <= ER_ARGON2ID; ty++) {
		struct er_argon2_params p = { .type = ty, .t_cost = 3, .m_cost_kib = 32, .lanes = 4,
					      .pwd = pwd, .pwdlen = 32, .salt = salt, .saltlen = 16 };
		const uint8_t *want = ty == ER_ARGON2I ? tag_i : tag_id;
		assert_int_equal(er_argon2_mem_bytes(&p), sizeof(mem));

		/* the RFC's own tag, serial and on threads */
		assert_true(er_argon2_ex(&p, secret, 8, ad, 12, mem, sizeof(mem), NULL, got, 32));
		assert_memory_equal(got, want, 32);
		assert_true(er_argon2_ex(&p, secret, 8, ad, 12, mem, sizeof(mem), &pt, got, 32));
		assert_memory_equal(got, want, 32);

		/* libargon2 agrees on the RFC's tag */
		argon2_context ctx = {
			.out = lib, .outlen = 32, .pwd = pwd, .pwdlen = 32, .salt = salt, .saltlen = 16,
			.secret = secret, .secretlen = 8, .ad = ad, .adlen = 12, .t_cost = 3, .m_cost = 32,
			.lanes = 4, .threads = 1, .version = ARGON2_VERSION_13, .flags = ARGON2_DEFAULT_FLAGS,
		};
		assert_int_equal(argon2_ctx(&ctx, ty == ER_ARGON2I ? Argon2_i : Argon2_id), ARGON2_OK);
		assert_memory_equal(lib, want, 32);

		/* the same parameters as LUKS uses them (no secret, no associated data) */
		struct tcase c = { .type = ty, .t = 3, .m = 32, .lanes = 4, .pwdlen = 32, .saltlen = 16, .outlen = 32 };
		memcpy(c.pwd, pwd, 32);
		memcpy(c.salt, salt, 16);
		oracle(&c, lib, 0);
		assert_true(er_argon2(&p, mem, sizeof(mem), NULL, got, 32));
		assert_memory_equal(got, lib, 32);
		assert_memory_not_equal(got, want, 32);
	}
	assert_int_equal(e.calls, 2 * 3 * 4);
	assert_int_equal(e.bad_n, 0);
}

static void test_lanes_on_threads(void **state)
{
	(void)state;
	uint8_t lib[128], serial[128], thr[128], rev[128];
	for (int k = 0; k < 30; k++) {
		struct tcase c;
		random_case(&c, 2048);
		if (k == 0) {   /* cryptsetup's shape: 4 lanes, Argon2id, 64-byte key */
			c.type = ER_ARGON2ID; c.t = 3; c.m = 8192; c.lanes = 4; c.outlen = 64;
		}
		struct pt_engine e = { .workers = 1 + (unsigned)(rng() % 4), .want_n = c.lanes, .self = pthread_self() };
		struct er_lanes pt = { .ctx = &e, .run = pt_run };
		struct er_lanes rv = { .ctx = NULL, .run = rev_run };
		rev_calls = 0;

		oracle(&c, lib, 1);
		ours(&c, NULL, serial);
		ours(&c, &pt, thr);
		ours(&c, &rv, rev);
		assert_memory_equal(serial, lib, c.outlen);
		assert_memory_equal(thr, serial, c.outlen);
		assert_memory_equal(rev, serial, c.outlen);
		/* once per slice, 4 per pass, each with n = lanes, and never on the caller's thread */
		assert_int_equal(e.calls, 4 * c.t);
		assert_int_equal(rev_calls, 4 * c.t);
		assert_int_equal(e.bad_n, 0);
		assert_int_equal(e.on_other, 4 * c.t * c.lanes);
	}
	/* an engine with a NULL run is the serial path */
	struct tcase c;
	random_case(&c, 512);
	struct er_lanes none = { .ctx = NULL, .run = NULL };
	oracle(&c, lib, 0);
	ours(&c, &none, serial);
	assert_memory_equal(serial, lib, c.outlen);
}

/* what libargon2 refuses, er_argon2 refuses, leaving mem and out alone */
static void test_refusals(void **state)
{
	(void)state;
	uint8_t pwd[8] = "password", salt[16] = "saltsaltsaltsalt";
	static uint64_t mem[(64 * 1024 + 64) / 8];
	uint8_t out[64], lib[64];
	struct {
		int type; uint32_t t, m, lanes; size_t saltlen, outlen; bool pwd_null;
	} bad[] = {
		{ ER_ARGON2ID, 0, 64, 1, 16, 32, false },    /* t 0 */
		{ ER_ARGON2ID, 1, 7, 1, 16, 32, false },     /* m below 8 */
		{ ER_ARGON2ID, 1, 31, 4, 16, 32, false },    /* m below 8 * lanes */
		{ ER_ARGON2ID, 1, 64, 0, 16, 32, false },    /* lanes 0 */
		{ ER_ARGON2ID, 1, 64, 1, 7, 32, false },     /* salt too short */
		{ ER_ARGON2ID, 1, 64, 1, 16, 3, false },     /* output too short */
		{ ER_ARGON2ID, 1, 64, 1, 16, 32, true },     /* password NULL with a length */
		{ ER_ARGON2ID, 1, 0x8000000, 0x1000000, 16, 32, false },  /* lanes above 2^24 - 1 */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct er_argon2_params p = { .type = bad[i].type, .t_cost = bad[i].t, .m_cost_kib = bad[i].m,
					      .lanes = bad[i].lanes, .pwd = bad[i].pwd_null ? NULL : pwd, .pwdlen = 8,
					      .salt = salt, .saltlen = bad[i].saltlen };
		argon2_context ctx = {
			.out = lib, .outlen = (uint32_t)bad[i].outlen, .pwd = p.pwd ? pwd : NULL, .pwdlen = 8,
			.salt = salt, .saltlen = (uint32_t)bad[i].saltlen, .t_cost = bad[i].t,
			.m_cost = bad[i].m, .lanes = bad[i].lanes, .threads = 1, .version = ARGON2_VERSION_13,
		};
		if (bad[i].lanes <= 8)  /* libargon2 would try to allocate for the huge one */
			assert_int_not_equal(argon2_ctx(&ctx, Argon2_id), ARGON2_OK);
		memset(mem, 0x5A, sizeof(mem));
		memset(out, 0x3C, sizeof(out));
		if (er_argon2(&p, mem, sizeof(mem), NULL, out, bad[i].outlen))
			fail_msg("refusal case %zu accepted", i);
		for (size_t k = 0; k < sizeof(mem); k++)
			assert_int_equal(((uint8_t *)mem)[k], 0x5A);
		for (size_t k = 0; k < sizeof(out); k++)
			assert_int_equal(out[k], 0x3C);
	}
	struct er_argon2_params p = { .type = ER_ARGON2ID, .t_cost = 1, .m_cost_kib = 64, .lanes = 1,
				      .pwd = pwd, .pwdlen = 8, .salt = salt, .saltlen = 16 };
	assert_true(er_argon2(&p, mem, 64 * 1024, NULL, out, 32));                 /* exactly enough */
	assert_false(er_argon2(&p, mem, 64 * 1024 - 1, NULL, out, 32));            /* one byte short */
	assert_false(er_argon2(&p, (uint8_t *)mem + 4, 64 * 1024, NULL, out, 32)); /* misaligned */
	assert_false(er_argon2(&p, NULL, 64 * 1024, NULL, out, 32));
	assert_false(er_argon2(&p, mem, 64 * 1024, NULL, NULL, 32));
	assert_false(er_argon2(NULL, mem, 64 * 1024, NULL, out, 32));
	p.type = 0;
	assert_false(er_argon2(&p, mem, 64 * 1024, NULL, out, 32));
	p.type = 3;   /* Argon2d would be 0 in libargon2's numbering, and is not supported */
	assert_false(er_argon2(&p, mem, 64 * 1024, NULL, out, 32));
	/* an empty password is fine (NULL with length 0 too) */
	p.type = ER_ARGON2I; p.pwd = NULL; p.pwdlen = 0;
	assert_true(er_argon2(&p, mem, 64 * 1024, NULL, out, 32));
	assert_int_equal(argon2i_hash_raw(1, 64, 1, NULL, 0, salt, 16, lib, 32), ARGON2_OK);
	assert_memory_equal(out, lib, 32);
}

/* memory sizes, in 64-bit arithmetic up to m = 2^32 - 1 KiB (4 TiB) */
static void test_mem_bytes(void **state)
{
	(void)state;
	struct er_argon2_params p = { .type = ER_ARGON2ID, .t_cost = 1 };
	p.m_cost_kib = 1024 * 1024; p.lanes = 4;
	assert_int_equal(er_argon2_mem_bytes(&p), 1ull << 30);
	p.m_cost_kib = 4u * 1024 * 1024 - 1; p.lanes = 4;  /* just under 4 GiB */
	assert_int_equal(er_argon2_mem_bytes(&p), (4ull << 30) - 16 * 1024);
	p.m_cost_kib = 0xFFFFFFFFu; p.lanes = 1;
	assert_int_equal(er_argon2_mem_bytes(&p), 0xFFFFFFFCull * 1024);
	p.m_cost_kib = 100; p.lanes = 3;
	assert_int_equal(er_argon2_mem_bytes(&p), 96 * 1024);
	p.m_cost_kib = 23; p.lanes = 3;                     /* below 8 * lanes */
	assert_int_equal(er_argon2_mem_bytes(&p), 0);
	p.m_cost_kib = 64; p.lanes = 0;
	assert_int_equal(er_argon2_mem_bytes(&p), 0);
	assert_int_equal(er_argon2_mem_bytes(NULL), 0);
}

/* er_argon2_poll: the same tag as libargon2 with the segments in pieces (sizes that are not
 * multiples of the piece, argon2i's address blocks across pieces, many lanes), the hook
 * called only on the caller's thread, between pieces; a stop at any poll wipes the memory
 * and the output and polls no more */
struct poller { unsigned polls, fire_at, off_thread; pthread_t self; };
static bool poll_fn(void *ctx)
{
	struct poller *p = ctx;
	if (!pthread_equal(pthread_self(), p->self))
		p->off_thread++;
	return ++p->polls > p->fire_at;
}

static void test_poll(void **state)
{
	(void)state;
	static const struct { enum er_argon2_type type; uint32_t t, m, lanes; } cs[] = {
		{ ER_ARGON2I, 2, 72000, 3 },     /* pieces of 2688 blocks: 2688, 2688, 624 */
		{ ER_ARGON2ID, 2, 72000, 3 },
		{ ER_ARGON2ID, 1, 40000, 1 },    /* 8192 + 1808 */
		{ ER_ARGON2I, 1, 80000, 20 },    /* pieces of 384: 384, 384, 232 */
		{ ER_ARGON2ID, 3, 64, 2 },       /* one piece per segment */
	};
	for (unsigned i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct tcase c = { .type = cs[i].type, .t = cs[i].t, .m = cs[i].m, .lanes = cs[i].lanes,
				   .pwdlen = 20, .saltlen = 16, .outlen = 32 };
		fill(c.pwd, c.pwdlen);
		fill(c.salt, c.saltlen);
		struct er_argon2_params p = {
			.type = c.type, .t_cost = c.t, .m_cost_kib = c.m, .lanes = c.lanes,
			.pwd = c.pwd, .pwdlen = c.pwdlen, .salt = c.salt, .saltlen = c.saltlen,
		};
		uint64_t need = er_argon2_mem_bytes(&p);
		uint8_t *mem = malloc(need), lib[32], out[32];
		assert_non_null(mem);
		uint32_t seg = (uint32_t)(need / 1024 / c.lanes / 4);
		uint32_t piece = 8192 / c.lanes / 128 * 128;
		if (piece < 128)
			piece = 128;
		unsigned want_polls = 1 + 4 * c.t * ((seg + piece - 1) / piece);
		oracle(&c, lib, 0);
		/* no engine; an engine; a costly one (other CPUs started and joined through the
		 * firmware at each run): whole segments, one run and one poll per slice */
		for (int eng = 0; eng < 3; eng++) {
			struct pt_engine e = { .workers = 3, .want_n = c.lanes, .self = pthread_self() };
			struct er_lanes pt = { .ctx = &e, .run = pt_run, .costly = eng == 2 };
			struct poller pl = { 0, ~0u, 0, pthread_self() };
			bool stopped = true;
			unsigned want = eng == 2 ? 1 + 4 * c.t : want_polls;
			assert_true(er_argon2_poll(&p, mem, need, eng ? &pt : NULL, poll_fn, &pl, &stopped, out, 32));
			assert_false(stopped);
			assert_memory_equal(out, lib, 32);
			assert_int_equal(pl.polls, want);
			assert_int_equal(pl.off_thread, 0);
			if (eng)
				assert_int_equal(e.calls, want - 1);
		}
		unsigned at[] = { 0, 1, want_polls / 2, want_polls - 1 };
		for (unsigned k = 0; k < 4; k++) {
			struct pt_engine e = { .workers = 2, .want_n = c.lanes, .self = pthread_self() };
			struct er_lanes pt = { .ctx = &e, .run = pt_run };
			struct poller pl = { 0, at[k], 0, pthread_self() };
			bool stopped = false;
			memset(mem, 0xa5, need);
			memset(out, 0x77, sizeof(out));
			assert_false(er_argon2_poll(&p, mem, need, k & 1 ? &pt : NULL, poll_fn, &pl, &stopped, out, 32));
			assert_true(stopped);
			assert_int_equal(pl.polls, at[k] + 1);
			assert_int_equal(pl.off_thread, 0);
			for (size_t j = 0; j < 32; j++)
				assert_int_equal(out[j], 0);
			for (uint64_t j = 0; j < need; j++)
				if (mem[j] != 0)
					fail_msg("case %u stop %u: memory byte %llu is 0x%02x", i, at[k],
						 (unsigned long long)j, mem[j]);
		}
		free(mem);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc9106_vectors),
		cmocka_unit_test(test_edges_vs_libargon2),
		cmocka_unit_test(test_random_vs_libargon2),
		cmocka_unit_test(test_lanes_on_threads),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_mem_bytes),
		cmocka_unit_test(test_poll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
