// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for the parallel decompression engine (loader/parallel.c) with pthreads
 * as the helper CPUs. Oracles: liblzo2 / liblz4 compress the chunks (32 pages, as the
 * kernel writes them), the original bytes and zlib's crc32 say what must come out.
 * Driven as image/reader.c drives an er_dec_engine: jobs queued in stream order, at
 * most ER_DEC_MAX_JOBS outstanding, waited for in order, CRC pieces joined in order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zlib.h>

#include "image/crc32.h"
#include "image/lzo.h"
#include "loader/parallel.h"

#include "codec_data.h"

#define PAGE 4096u
#define CHUNK (32u * PAGE)

/* ---------------------------------------------------------------- chunks */

struct chunk {
	uint8_t *orig;          /* CHUNK bytes */
	uint8_t *cmp;
	size_t cmp_len;
	uint8_t *out;           /* where the engine decompresses it */
	uint32_t crc;           /* crc32_le(0, orig), from zlib */
};

struct data {
	enum er_comp comp;
	size_t n;
	struct chunk *c;
	uint32_t crc_all;       /* crc32_le(0, all chunks in order), from zlib */
};

static void make_data(struct data *d, enum er_comp comp, size_t n, uint64_t seed)
{
	static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
	d->comp = comp;
	d->n = n;
	d->c = calloc(n, sizeof(*d->c));
	assert_non_null(d->c);
	rng_seed(seed);
	/* the kernel's crc32_le has no pre/post inversion: crc32_le(0, x) = ~zlib crc32(~0, x) */
	uLong all = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		struct chunk *c = &d->c[i];
		c->orig = xmalloc(CHUNK);
		for (size_t off = 0; off < CHUNK; off += PAGE)
			fill_page_like(c->orig + off, PAGE);
		size_t cap = CHUNK + CHUNK / 16 + 64 + 3;
		c->cmp = xmalloc(cap);
		if (comp == ER_COMP_LZO) {
			lzo_uint l = cap;
			assert_int_equal(lzo1x_1_compress(c->orig, CHUNK, c->cmp, &l, wrk), LZO_E_OK);
			c->cmp_len = l;
		} else {
			int l = LZ4_compress_default((const char *)c->orig, (char *)c->cmp, (int)CHUNK, (int)cap);
			assert_true(l > 0);
			c->cmp_len = (size_t)l;
		}
		c->out = xmalloc(CHUNK);
		memset(c->out, 0xA5, CHUNK);
		c->crc = ~(uint32_t)crc32(0xffffffffu, c->orig, CHUNK);
		all = crc32(all, c->orig, CHUNK);
	}
	d->crc_all = ~(uint32_t)all;
}

static void free_data(struct data *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->c[i].orig);
		free(d->c[i].cmp);
		free(d->c[i].out);
	}
	free(d->c);
}

static bool out_untouched(const struct chunk *c)
{
	for (size_t i = 0; i < CHUNK; i++)
		if (c->out[i] != 0xA5)
			return false;
	return true;
}

/* ---------------------------------------------------------------- pthread CPUs */

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

enum cpu_mode {
	CPU_NORMAL,       /* runs fn at once */
	CPU_HELD,         /* started, but enters fn only when released (a CPU that does not answer, then wakes late) */
	CPU_NO_START,     /* start() fails */
};

struct cpu {
	enum cpu_mode mode;
	pthread_t th;
	bool created;
	er_par_fn fn;
	void *arg;
	int release;         /* atomic: CPU_HELD may enter fn */
	int entered;         /* atomic: fn was called */
	int returned;        /* atomic: fn returned */
	uint64_t fn_us;      /* how long fn ran */
	int hang_job;        /* atomic: hang inside the first job this CPU runs, until unhang */
	int hanging;         /* atomic: it is hanging now */
	int unhang;          /* atomic */
	int jobs;            /* atomic: jobs it started */
	int fail_join;       /* join() says the environment did not see it return */
};

struct env {
	struct cpu cpu[ER_PAR_HELPERS];
	int stopped;              /* atomic: set by the test once er_par_stop returned */
	int jobs_after_stop;      /* atomic: jobs started after that (must stay 0) */
	int boot_jobs;            /* atomic */
};

static __thread int this_cpu;   /* 0: the test's (boot) thread, 1 + i: helper i */

struct thread_arg {
	struct env *env;
	unsigned i;
};
static struct thread_arg targs[ER_PAR_HELPERS];

static void *cpu_main(void *p)
{
	struct thread_arg *ta = p;
	struct cpu *c = &ta->env->cpu[ta->i];
	this_cpu = 1 + (int)ta->i;
	if (c->mode == CPU_HELD)
		while (!__atomic_load_n(&c->release, __ATOMIC_ACQUIRE))
			usleep(1000);
	__atomic_store_n(&c->entered, 1, __ATOMIC_RELEASE);
	uint64_t t0 = mono_us();
	c->fn(c->arg);
	c->fn_us = mono_us() - t0;
	__atomic_store_n(&c->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int ops_start(void *ctx, unsigned i, er_par_fn fn, void *arg)
{
	struct env *env = ctx;
	struct cpu *c = &env->cpu[i];
	if (c->mode == CPU_NO_START)
		return -1;
	c->fn = fn;
	c->arg = arg;
	targs[i].env = env;
	targs[i].i = i;
	if (pthread_create(&c->th, NULL, cpu_main, &targs[i]) != 0)
		return -1;
	c->created = true;
	return 0;
}

static int ops_join(void *ctx, unsigned i, uint64_t timeout_us)
{
	struct env *env = ctx;
	struct cpu *c = &env->cpu[i];
	uint64_t end = mono_us() + timeout_us;
	if (c->fail_join)
		return -1;
	while (!__atomic_load_n(&c->returned, __ATOMIC_ACQUIRE)) {
		if (mono_us() > end)
			return -1;
		usleep(100);
	}
	return 0;
}

static uint64_t ops_now(void *ctx)
{
	(void)ctx;
	return mono_us();
}

static void ops_relax(void *ctx)
{
	(void)ctx;
	sched_yield();   /* 2 cores shared with everyone: do not burn them */
}

static int ops_run(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		   size_t *out_len, uint32_t *crc)
{
	struct env *env = ctx;
	if (__atomic_load_n(&env->stopped, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&env->jobs_after_stop, 1, __ATOMIC_SEQ_CST);
	if (this_cpu == 0) {
		__atomic_add_fetch(&env->boot_jobs, 1, __ATOMIC_SEQ_CST);
	} else {
		struct cpu *c = &env->cpu[this_cpu - 1];
		__atomic_add_fetch(&c->jobs, 1, __ATOMIC_SEQ_CST);
		if (__atomic_exchange_n(&c->hang_job, 0, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&c->hanging, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&c->unhang, __ATOMIC_ACQUIRE))
				usleep(1000);
		}
	}
	return er_dec_run(comp, in, in_len, out, cap, out_len, crc);
}

static struct er_par_ops host_ops(struct env *env)
{
	struct er_par_ops o = { env, ops_start, ops_join, ops_now, ops_relax, ops_run };
	return o;
}

static void join_threads(struct env *env)
{
	for (unsigned i = 0; i < ER_PAR_HELPERS; i++) {
		struct cpu *c = &env->cpu[i];
		if (!c->created)
			continue;
		__atomic_store_n(&c->release, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&c->unhang, 1, __ATOMIC_RELEASE);
		pthread_join(c->th, NULL);
		c->created = false;
	}
}

static void wait_flag(const int *f, uint64_t max_us)
{
	uint64_t end = mono_us() + max_us;
	while (!__atomic_load_n(f, __ATOMIC_ACQUIRE)) {
		assert_true(mono_us() < end);
		usleep(200);
	}
}

/* until the job in slot t is done (by a helper: the test's thread is not in the engine) */
static void wait_done(struct er_par *p, unsigned t)
{
	uint64_t end = mono_us() + 30000000;
	while ((__atomic_load_n(&p->jobs[t].state, __ATOMIC_ACQUIRE) & 3) != 3) {
		assert_true(mono_us() < end);
		usleep(500);
	}
}

/* ---------------------------------------------------------------- the reader's way */

/* Runs every chunk through the engine with at most depth outstanding; checks each
 * result against the original and the joined CRC against zlib's. */
static void drive(struct er_par *p, struct data *d, unsigned depth)
{
	unsigned tickets[ER_DEC_MAX_JOBS];
	size_t head = 0, tail = 0;        /* submitted, waited */
	uint32_t crc = 0;

	while (tail < d->n) {
		while (head < d->n && head - tail < depth) {
			struct chunk *c = &d->c[head];
			tickets[head % ER_DEC_MAX_JOBS] = p->engine.submit(p->engine.ctx, d->comp, c->cmp, c->cmp_len, c->out, CHUNK);
			head++;
		}
		size_t out_len = 99;
		uint32_t c = 1;
		int r = p->engine.wait(p->engine.ctx, tickets[tail % ER_DEC_MAX_JOBS], &out_len, &c);
		assert_int_equal(r, 0);
		assert_int_equal(out_len, CHUNK);
		assert_int_equal(c, d->c[tail].crc);
		assert_memory_equal(d->c[tail].out, d->c[tail].orig, CHUNK);
		crc = er_crc32_le_combine(crc, c, out_len);
		tail++;
	}
	assert_int_equal(crc, d->crc_all);
}

/* ---------------------------------------------------------------- tests */

/* Stream order, CRC pieces, many jobs through the 32-slot queue, 1..7 helpers, two
 * codecs, queue depths 1, 5 and 32, two runs on the same engine (epochs). */
static void t_order(void **state)
{
	(void)state;
	static struct er_par p;
	static const unsigned helpers[] = { 1, 2, 7 };
	static const unsigned depths[] = { 1, 5, ER_DEC_MAX_JOBS };

	for (int comp = ER_COMP_LZO; comp <= ER_COMP_LZ4; comp++) {
		struct data d;
		make_data(&d, (enum er_comp)comp, 80, 11 + (uint64_t)comp);
		for (size_t h = 0; h < ER_ARRAY_SIZE(helpers); h++) {
			for (size_t k = 0; k < ER_ARRAY_SIZE(depths); k++) {
				struct env env = { 0 };
				struct er_par_ops o = host_ops(&env);
				for (size_t i = 0; i < d.n; i++)
					memset(d.c[i].out, 0xA5, CHUNK);
				uint32_t epoch = p.epoch;
				assert_int_equal(er_par_start(&p, &o, helpers[h], 10000000, 10000000), helpers[h]);
				assert_int_equal(p.epoch, epoch + 1);     /* a new run */
				drive(&p, &d, depths[k]);
				int all = env.boot_jobs;
				for (unsigned i = 0; i < helpers[h]; i++)
					all += env.cpu[i].jobs;
				assert_int_equal(all, d.n);    /* each job ran exactly once */
				assert_int_equal(p.helper_jobs + p.boot_jobs, d.n);
				assert_true(er_par_stop(&p));
				for (unsigned i = 0; i < helpers[h]; i++)
					assert_true(__atomic_load_n(&env.cpu[i].returned, __ATOMIC_ACQUIRE));
				join_threads(&env);
			}
		}
		free_data(&d);
	}
}

/* Helpers really take jobs: with the boot thread out of the way, a helper runs them. */
static void t_helpers_run(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, 20, 5);
	assert_int_equal(er_par_start(&p, &o, 2, 10000000, 10000000), 2);
	unsigned t[20];
	for (unsigned i = 0; i < 20; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, d.c[i].cmp, d.c[i].cmp_len, d.c[i].out, CHUNK);
	/* all done by the helpers before the boot thread waits */
	for (unsigned i = 0; i < 20; i++)
		wait_done(&p, t[i]);
	for (unsigned i = 0; i < 20; i++) {
		size_t n = 0;
		uint32_t c = 0;
		assert_int_equal(p.engine.wait(p.engine.ctx, t[i], &n, &c), 0);
		assert_int_equal(c, d.c[i].crc);
		assert_memory_equal(d.c[i].out, d.c[i].orig, CHUNK);
	}
	assert_int_equal(env.boot_jobs, 0);
	assert_int_equal(p.helper_jobs, 20);
	assert_true(er_par_stop(&p));
	join_threads(&env);
	free_data(&d);
}

/* A chunk that does not decompress, run by a helper: wait() reports exactly what
 * er_dec_run reports inline (the reader turns it into "chunk N: <decompressor
 * error>"), liblzo2 agrees it is broken, and the other chunks still come out right. */
static void t_helper_fails(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, 6, 7);
	/* cut the middle chunk short: its stream loses the end marker */
	struct chunk *bad = &d.c[3];
	bad->cmp_len /= 2;
	size_t ref_len = 0;
	uint32_t ref_crc = 0;
	uint8_t *scratch = xmalloc(CHUNK);
	int want = er_dec_run(ER_COMP_LZO, bad->cmp, bad->cmp_len, scratch, CHUNK, &ref_len, &ref_crc);
	assert_int_not_equal(want, 0);
	lzo_uint ll = CHUNK;
	assert_int_not_equal(lzo1x_decompress_safe(bad->cmp, bad->cmp_len, scratch, &ll, NULL), LZO_E_OK);
	free(scratch);

	assert_int_equal(er_par_start(&p, &o, 1, 10000000, 10000000), 1);
	unsigned t[6];
	for (unsigned i = 0; i < 6; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, d.c[i].cmp, d.c[i].cmp_len, d.c[i].out, CHUNK);
	for (unsigned i = 0; i < 6; i++)
		wait_done(&p, t[i]);
	for (unsigned i = 0; i < 6; i++) {
		size_t n = 0;
		uint32_t c = 0;
		int r = p.engine.wait(p.engine.ctx, t[i], &n, &c);
		if (i == 3) {
			assert_int_equal(r, want);
			assert_int_equal(n, ref_len);
			assert_null(er_par_strerror(r));   /* a decompressor's code, not the engine's */
		} else {
			assert_int_equal(r, 0);
			assert_int_equal(c, d.c[i].crc);
			assert_memory_equal(d.c[i].out, d.c[i].orig, CHUNK);
		}
	}
	assert_int_equal(env.cpu[0].jobs, 6);
	assert_int_equal(p.failed, 0);          /* a bad chunk is the image's fault, not the engine's */
	assert_true(er_par_stop(&p));
	join_threads(&env);
	free_data(&d);
}

/* A helper that hangs in the middle of a job: the wait gives up after job_us (not
 * much later), the job reports ER_PAR_E_TIMEOUT (the reader refuses the stream), the
 * stop says the helper is not confirmed within stop_us, the engine never starts
 * again, and when the helper wakes it finishes only the job it held. */
static void t_helper_hangs(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	const uint64_t job_us = 200000, stop_us = 300000;
	make_data(&d, ER_COMP_LZO, 8, 9);
	env.cpu[0].hang_job = 1;
	assert_int_equal(er_par_start(&p, &o, 1, job_us, stop_us), 1);
	unsigned t[8];
	for (unsigned i = 0; i < 8; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, d.c[i].cmp, d.c[i].cmp_len, d.c[i].out, CHUNK);
	wait_flag(&env.cpu[0].hanging, 30000000);   /* it holds job 0 */

	size_t n = 1;
	uint32_t c = 1;
	uint64_t t0 = mono_us();
	int r = p.engine.wait(p.engine.ctx, t[0], &n, &c);
	uint64_t waited = mono_us() - t0;
	assert_int_equal(r, ER_PAR_E_TIMEOUT);
	assert_int_equal(n, 0);
	assert_non_null(er_par_strerror(r));
	assert_int_equal(p.fault_helper, 1);
	/* the boot thread ran the other jobs meanwhile; the bound counts from the last */
	assert_true(waited >= job_us);
	assert_true(waited < job_us + 8 * 1000000);
	/* the rest are only waited for: every status is final, none blocks */
	for (unsigned i = 1; i < 8; i++) {
		t0 = mono_us();
		r = p.engine.wait(p.engine.ctx, t[i], &n, &c);
		assert_true(r == 0 || r == ER_PAR_E_CANCELLED);
		assert_true(mono_us() - t0 < 1000000);
	}
	t0 = mono_us();
	assert_false(er_par_stop(&p));
	uint64_t stopping = mono_us() - t0;
	assert_true(stopping >= stop_us);
	assert_true(stopping < 2 * stop_us + 1000000);
	__atomic_store_n(&env.stopped, 1, __ATOMIC_RELEASE);
	assert_true(p.broken);
	assert_int_equal(er_par_start(&p, &o, 1, job_us, stop_us), 0);   /* never again */
	assert_false(er_par_stop(&p));

	/* it wakes: finishes job 0 (it was mid-job; the caller refused and must not commit), nothing else */
	__atomic_store_n(&env.cpu[0].unhang, 1, __ATOMIC_RELEASE);
	wait_flag(&env.cpu[0].returned, 30000000);
	assert_int_equal(env.jobs_after_stop, 0);
	assert_int_equal(env.cpu[0].jobs, 1);
	join_threads(&env);
	free_data(&d);
}

/* A helper CPU that never answers (the firmware never runs it): the boot thread does
 * all the work, the stop reports it unconfirmed after stop_us; when it wakes after
 * the stop it leaves at once and touches nothing: no job, no state word. */
static void t_helper_never_answers(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	const uint64_t stop_us = 200000;
	make_data(&d, ER_COMP_LZ4, 40, 13);
	env.cpu[0].mode = CPU_NORMAL;
	env.cpu[1].mode = CPU_HELD;
	assert_int_equal(er_par_start(&p, &o, 2, 10000000, stop_us), 2);
	drive(&p, &d, ER_DEC_MAX_JOBS);
	uint64_t t0 = mono_us();
	assert_false(er_par_stop(&p));
	uint64_t stopping = mono_us() - t0;
	assert_true(stopping >= stop_us && stopping < 2 * stop_us + 1000000);
	assert_true(__atomic_load_n(&env.cpu[0].returned, __ATOMIC_ACQUIRE));   /* the healthy one is out */
	__atomic_store_n(&env.stopped, 1, __ATOMIC_RELEASE);
	uint32_t hstate = p.helpers[1].state;
	uint32_t jstate[ER_DEC_MAX_JOBS];
	for (unsigned i = 0; i < ER_DEC_MAX_JOBS; i++)
		jstate[i] = p.jobs[i].state;
	assert_int_equal(er_par_start(&p, &o, 2, 10000000, stop_us), 0);

	__atomic_store_n(&env.cpu[1].release, 1, __ATOMIC_RELEASE);
	wait_flag(&env.cpu[1].returned, 30000000);
	assert_true(env.cpu[1].fn_us < 1000000);     /* it left at once */
	assert_int_equal(env.cpu[1].jobs, 0);
	assert_int_equal(env.jobs_after_stop, 0);
	assert_int_equal(p.helpers[1].state, hstate);
	for (unsigned i = 0; i < ER_DEC_MAX_JOBS; i++)
		assert_int_equal(p.jobs[i].state, jstate[i]);
	join_threads(&env);
	free_data(&d);
}

/* Stopped with jobs still queued (nobody waited): they are cancelled, not run, by
 * anyone, ever: a helper released after the stop finds nothing to run. */
static void t_stop_cancels(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, 10, 17);
	env.cpu[0].mode = CPU_HELD;
	assert_int_equal(er_par_start(&p, &o, 1, 10000000, 100000), 1);
	for (unsigned i = 0; i < 10; i++)
		p.engine.submit(p.engine.ctx, d.comp, d.c[i].cmp, d.c[i].cmp_len, d.c[i].out, CHUNK);
	assert_false(er_par_stop(&p));
	__atomic_store_n(&env.stopped, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&env.cpu[0].release, 1, __ATOMIC_RELEASE);
	wait_flag(&env.cpu[0].returned, 30000000);
	usleep(20000);
	for (unsigned i = 0; i < 10; i++)
		assert_true(out_untouched(&d.c[i]));
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(p.jobs[i].state & 3, 0);    /* cancelled */
	assert_int_equal(env.jobs_after_stop + env.cpu[0].jobs + env.boot_jobs, 0);
	join_threads(&env);
	free_data(&d);
}

/* The stop also needs the environment's word (EFI: the firmware's event) that the
 * procedure returned: a helper that marked itself out but is not seen back is not
 * confirmed. */
static void t_join_fails(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, 4, 19);
	env.cpu[1].fail_join = 1;
	assert_int_equal(er_par_start(&p, &o, 2, 10000000, 100000), 2);
	drive(&p, &d, 2);
	assert_false(er_par_stop(&p));
	assert_true(p.broken);
	join_threads(&env);
	free_data(&d);
}

/* No CPU to start: nothing runs; a CPU that cannot be started ends the list. */
static void t_start_fails(void **state)
{
	(void)state;
	static struct er_par p, q;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	env.cpu[0].mode = CPU_NO_START;
	assert_int_equal(er_par_start(&p, &o, 3, 1000000, 1000000), 0);
	assert_true(er_par_stop(&p));
	struct env env2 = { 0 };
	struct er_par_ops o2 = host_ops(&env2);
	env2.cpu[1].mode = CPU_NO_START;
	struct data d;
	make_data(&d, ER_COMP_LZ4, 5, 23);
	assert_int_equal(er_par_start(&q, &o2, 3, 1000000, 1000000), 1);
	assert_int_equal(er_par_start(&q, &o2, 3, 1000000, 1000000), 0);   /* already running */
	drive(&q, &d, 3);
	assert_true(er_par_stop(&q));
	assert_true(er_par_stop(&q));     /* idempotent */
	assert_false(env2.cpu[2].created);
	join_threads(&env2);
	free_data(&d);
}

/* Used out of order (wrong ticket, too many outstanding): refused, and every later
 * wait reports it instead of blocking. */
static void t_protocol(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, ER_DEC_MAX_JOBS + 1, 29);
	size_t n;
	uint32_t c;

	assert_int_equal(er_par_start(&p, &o, 1, 1000000, 1000000), 1);
	unsigned t0 = p.engine.submit(p.engine.ctx, d.comp, d.c[0].cmp, d.c[0].cmp_len, d.c[0].out, CHUNK);
	unsigned t1 = p.engine.submit(p.engine.ctx, d.comp, d.c[1].cmp, d.c[1].cmp_len, d.c[1].out, CHUNK);
	assert_int_equal(p.engine.wait(p.engine.ctx, t1, &n, &c), ER_PAR_E_PROTOCOL);
	assert_int_equal(p.engine.wait(p.engine.ctx, t0, &n, &c) == 0 || p.failed, 1);
	assert_true(er_par_stop(&p));
	join_threads(&env);

	struct env env2 = { 0 };
	struct er_par_ops o2 = host_ops(&env2);
	env2.cpu[0].mode = CPU_HELD;     /* nothing runs: the queue really fills */
	assert_int_equal(er_par_start(&p, &o2, 1, 1000000, 100000), 1);
	unsigned t[ER_DEC_MAX_JOBS + 1];
	for (unsigned i = 0; i <= ER_DEC_MAX_JOBS; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, d.c[i].cmp, d.c[i].cmp_len, d.c[i].out, CHUNK);
	assert_int_equal(p.failed, ER_PAR_E_PROTOCOL);
	for (unsigned i = 0; i <= ER_DEC_MAX_JOBS; i++) {
		int r = p.engine.wait(p.engine.ctx, t[i], &n, &c);
		assert_true(r == ER_PAR_E_CANCELLED || r == ER_PAR_E_PROTOCOL);
	}
	assert_false(er_par_stop(&p));   /* the held helper never answered */
	join_threads(&env2);
	free_data(&d);
}

/* What the jobs were lent (input and output, as the loader's read buffer and the
 * plan's frames), as loader/resume.c gives it back after a stream. */
struct lent {
	uint8_t **in, **out;
	size_t n;
	int given_back;
};

static void lent_give_back(void *ctx)
{
	struct lent *l = ctx;
	for (size_t i = 0; i < l->n; i++) {
		free(l->in[i]);
		free(l->out[i]);
	}
	l->given_back++;
}

/* Issue 15, 2b: a helper that sleeps in a job past the job timeout and past the
 * stop. The load is refused (ER_PAR_E_TIMEOUT, stop unconfirmed) and what its jobs
 * were lent must NOT be given back: when the helper wakes it still reads its input
 * and writes its output (under ASan, a heap-use-after-free if that memory was freed).
 * It is kept: the late job writes into it (correct output, nothing else touched). */
static void t_runaway_keeps_lent(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	const uint64_t job_us = 100000, stop_us = 150000;
	enum { N = 4 };
	make_data(&d, ER_COMP_LZ4, N, 31);
	uint8_t *in[N], *out[N];
	for (unsigned i = 0; i < N; i++) {
		in[i] = xmalloc(d.c[i].cmp_len);
		memcpy(in[i], d.c[i].cmp, d.c[i].cmp_len);
		out[i] = xmalloc(CHUNK);
		memset(out[i], 0xA5, CHUNK);
	}
	struct lent lent = { in, out, N, 0 };

	env.cpu[0].hang_job = 1;
	assert_int_equal(er_par_start(&p, &o, 1, job_us, stop_us), 1);
	unsigned t[N];
	for (unsigned i = 0; i < N; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, in[i], d.c[i].cmp_len, out[i], CHUNK);
	wait_flag(&env.cpu[0].hanging, 30000000);
	for (unsigned i = 0; i < N; i++) {
		size_t n = 0;
		uint32_t c = 0;
		int r = p.engine.wait(p.engine.ctx, t[i], &n, &c);
		assert_true(i == 0 ? r == ER_PAR_E_TIMEOUT : (r == 0 || r == ER_PAR_E_CANCELLED));
	}
	assert_false(er_par_stop(&p));
	bool confirmed = er_par_give_back(&p, lent_give_back, &lent);

	/* it wakes, past every timeout, and finishes the job it held */
	__atomic_store_n(&env.cpu[0].unhang, 1, __ATOMIC_RELEASE);
	wait_flag(&env.cpu[0].returned, 30000000);
	join_threads(&env);

	assert_false(confirmed);
	assert_int_equal(lent.given_back, 0);
	assert_memory_equal(out[0], d.c[0].orig, CHUNK);    /* its late output landed in kept memory */
	assert_int_equal(env.cpu[0].jobs, 1);
	/* later runs: the engine stays broken, and nothing it was lent is ever given back */
	assert_int_equal(er_par_start(&p, &o, 1, job_us, stop_us), 0);
	assert_false(er_par_give_back(&p, lent_give_back, &lent));
	assert_int_equal(lent.given_back, 0);
	/* the test's own cleanup, now that the thread is joined (no leak report) */
	for (unsigned i = 0; i < N; i++) {
		free(in[i]);
		free(out[i]);
	}
	free_data(&d);
}

/* Every helper confirmed out: what the jobs were lent goes back at once. */
static void t_confirmed_gives_back(void **state)
{
	(void)state;
	static struct er_par p;
	struct env env = { 0 };
	struct er_par_ops o = host_ops(&env);
	struct data d;
	make_data(&d, ER_COMP_LZO, 6, 37);
	uint8_t *in[6], *out[6];
	for (unsigned i = 0; i < 6; i++) {
		in[i] = xmalloc(d.c[i].cmp_len);
		memcpy(in[i], d.c[i].cmp, d.c[i].cmp_len);
		out[i] = d.c[i].out;
		d.c[i].out = xmalloc(CHUNK);
	}
	struct lent lent = { in, out, 6, 0 };
	assert_int_equal(er_par_start(&p, &o, 2, 10000000, 10000000), 2);
	unsigned t[6];
	for (unsigned i = 0; i < 6; i++)
		t[i] = p.engine.submit(p.engine.ctx, d.comp, in[i], d.c[i].cmp_len, out[i], CHUNK);
	for (unsigned i = 0; i < 6; i++) {
		size_t n = 0;
		uint32_t c = 0;
		assert_int_equal(p.engine.wait(p.engine.ctx, t[i], &n, &c), 0);
		assert_int_equal(c, d.c[i].crc);
		assert_memory_equal(out[i], d.c[i].orig, CHUNK);
	}
	assert_true(er_par_stop(&p));
	assert_true(er_par_give_back(&p, lent_give_back, &lent));
	assert_int_equal(lent.given_back, 1);
	join_threads(&env);
	free_data(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_order),
		cmocka_unit_test(t_helpers_run),
		cmocka_unit_test(t_helper_fails),
		cmocka_unit_test(t_helper_hangs),
		cmocka_unit_test(t_helper_never_answers),
		cmocka_unit_test(t_stop_cancels),
		cmocka_unit_test(t_join_fails),
		cmocka_unit_test(t_start_fails),
		cmocka_unit_test(t_protocol),
		cmocka_unit_test(t_runaway_keeps_lent),
		cmocka_unit_test(t_confirmed_gives_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
