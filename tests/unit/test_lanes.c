// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/lanes.c (the argon2 lanes on helper CPUs) on pthreads: every lane runs once,
 * and a helper that is late or slow past the join timeout touches nothing the caller
 * frees after er_lanes_run returns (ASan in build/unit), and an unconfirmed helper is
 * reported (no commit). Issue 15 defect 2a. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <cmocka.h>

#include "loader/lanes.h"

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static __thread int this_cpu;   /* 0: the boot thread, 1 + i: helper i */

struct cpu {
	pthread_t th;
	bool created;
	unsigned delay_ms;          /* before entering fn (a CPU that starts late) */
	void (*fn)(void *);
	void *arg;
	int returned;               /* atomic */
};

static struct cpu cpus[ER_LANES_HELPERS];
static unsigned slow_lane_ms;   /* a lane run by a helper sleeps this long */
static unsigned starts;

static void *cpu_main(void *p)
{
	struct cpu *c = p;
	this_cpu = 1 + (int)(c - cpus);
	if (c->delay_ms)
		usleep(c->delay_ms * 1000);
	c->fn(c->arg);
	__atomic_store_n(&c->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int ops_start(void *ctx, unsigned i, void (*fn)(void *), void *arg)
{
	(void)ctx;
	struct cpu *c = &cpus[i];
	if (c->created) {       /* confirmed back in an earlier run */
		assert_int_equal(__atomic_load_n(&c->returned, __ATOMIC_ACQUIRE), 1);
		pthread_join(c->th, NULL);
		c->created = false;
	}
	c->fn = fn;
	c->arg = arg;
	c->returned = 0;
	if (pthread_create(&c->th, NULL, cpu_main, c) != 0)
		return -1;
	c->created = true;
	starts++;
	return 0;
}

static int ops_join(void *ctx, unsigned i, uint64_t timeout_us)
{
	(void)ctx;
	uint64_t end = mono_us() + timeout_us;
	while (!__atomic_load_n(&cpus[i].returned, __ATOMIC_ACQUIRE)) {
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
	usleep(50);
}

static unsigned stalls;
static void ops_stalled(void *ctx, uint32_t done)
{
	(void)ctx;
	(void)done;
	stalls++;
}

static const struct er_lanes_ops ops = { NULL, ops_start, ops_join, ops_now, ops_relax, ops_stalled };

/* The argon2 side: its job lives in the caller's frame (here on the heap, freed as
 * soon as er_lanes_run returns, so that ASan sees any late touch). */
struct job {
	uint32_t n;
	int ran[64];            /* atomic: times each lane ran */
	int by_helper;          /* atomic */
	int helper_in;          /* atomic: a helper is in a lane */
};

static void lane_fn(void *arg, uint32_t lane)
{
	struct job *j = arg;
	if (!this_cpu && slow_lane_ms) {
		/* the boot CPU's lane: until a helper holds the other one (1 s at most) */
		for (int w = 0; w < 1000 && !__atomic_load_n(&j->helper_in, __ATOMIC_SEQ_CST); w++)
			usleep(1000);
	}
	if (this_cpu && slow_lane_ms) {
		__atomic_store_n(&j->helper_in, 1, __ATOMIC_SEQ_CST);
		usleep(slow_lane_ms * 1000);
		__atomic_fetch_add(&j->by_helper, 1, __ATOMIC_SEQ_CST);
	}
	assert_true(lane < j->n);
	__atomic_fetch_add(&j->ran[lane], 1, __ATOMIC_SEQ_CST);
}

static struct er_lane_sched sched;   /* static, as the loader keeps it */

static void reset(void)
{
	for (unsigned i = 0; i < ER_LANES_HELPERS; i++) {
		if (cpus[i].created)
			pthread_join(cpus[i].th, NULL);
		memset(&cpus[i], 0, sizeof(cpus[i]));
	}
	memset(&sched, 0, sizeof(sched));
	slow_lane_ms = 0;
	starts = 0;
	stalls = 0;
}

/* Runs n lanes; returns whether every lane had run exactly once when er_lanes_run
 * returned. The job is freed right after. */
static bool run(uint32_t n)
{
	struct job *j = calloc(1, sizeof(*j));
	assert_non_null(j);
	j->n = n;
	er_lanes_run(&sched, lane_fn, j, n);
	bool all = true;
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&j->ran[i], __ATOMIC_SEQ_CST) != 1)
			all = false;
	memset(j, 0xA5, sizeof(*j));
	free(j);
	return all;
}

static void t_all_lanes_once(void **state)
{
	(void)state;
	reset();
	er_lanes_init(&sched, &ops, 3, 2000000);
	for (int r = 0; r < 20; r++)
		assert_true(run(4));
	assert_false(er_lanes_unconfirmed(&sched));
	reset();
}

/* A helper CPU that starts only after the join timeout: the run completes on the
 * others, the late one touches nothing of the run, and it is reported. */
static void t_helper_late(void **state)
{
	(void)state;
	reset();
	cpus[1].delay_ms = 300;
	er_lanes_init(&sched, &ops, 3, 30000);
	assert_true(run(4));
	assert_true(er_lanes_unconfirmed(&sched));
	/* later runs: the boot CPU alone, no helper started */
	unsigned s0 = starts;
	assert_true(run(4));
	assert_int_equal(starts, s0);
	usleep(400 * 1000);     /* the late helper wakes up now, after the job was freed */
	assert_true(er_lanes_unconfirmed(&sched));
	reset();
}

/* A helper that holds a lane past the join timeout: er_lanes_run must not return
 * before the lane did (its job is in the caller's frame). */
static void t_helper_slow_lane(void **state)
{
	(void)state;
	reset();
	slow_lane_ms = 300;
	er_lanes_init(&sched, &ops, 1, 30000);
	assert_true(run(2));
	usleep(400 * 1000);
	assert_false(er_lanes_unconfirmed(&sched));   /* it came back */
	assert_int_equal(stalls, 1);
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_all_lanes_once),
		cmocka_unit_test(t_helper_late),
		cmocka_unit_test(t_helper_slow_lane),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
