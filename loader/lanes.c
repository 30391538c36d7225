// SPDX-License-Identifier: GPL-2.0-or-later
/* Argon2 lanes on helper CPUs; see lanes.h. */
#include "loader/lanes.h"

#define H_START 0u
#define H_IN 1u
#define H_OUT 2u
#define H_GONE 3u
#define TAG_LANES 0xffffu      /* lanes per run that helpers may share */

void er_lanes_init(struct er_lane_sched *s, const struct er_lanes_ops *ops, unsigned helpers, uint64_t join_us)
{
	if (s->broken)
		return;         /* a late helper may still look at s */
	s->ops = *ops;
	s->helpers = helpers > ER_LANES_HELPERS ? ER_LANES_HELPERS : helpers;
	s->join_us = join_us;
}

/* The next lane of run tag (or -1 when there is none); for any CPU. */
static int64_t claim(struct er_lane_sched *s, uint32_t tag)
{
	for (;;) {
		uint32_t w = __atomic_load_n(&s->claim, __ATOMIC_ACQUIRE);
		if ((w >> 16) != tag)
			return -1;
		uint32_t i = w & 0xffffu;
		/* s->n belongs to run tag while claim carries tag (published before it) */
		if (i >= s->n)
			return -1;
		if (__atomic_compare_exchange_n(&s->claim, &w, w + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return i;
	}
}

static void run_lanes(struct er_lane_sched *s, uint32_t tag)
{
	int64_t i;
	while ((i = claim(s, tag)) >= 0) {
		s->fn(s->arg, (uint32_t)i);
		__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	}
}

static void helper_main(void *p)
{
	struct er_lane_helper *h = p;
	struct er_lane_sched *s = h->s;
	uint32_t st = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
	uint32_t epoch = st >> 2;
	if ((st & 3u) != H_START ||
	    !__atomic_compare_exchange_n(&h->state, &st, epoch << 2 | H_IN, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;         /* gone: the run gave up on it; touch nothing */
	run_lanes(s, epoch & 0xffffu);
	__atomic_store_n(&h->state, epoch << 2 | H_OUT, __ATOMIC_RELEASE);   /* the last store */
}

static void relax(struct er_lane_sched *s)
{
	if (s->ops.relax)
		s->ops.relax(s->ops.ctx);
}

/* Helper h of this run confirmed out (its mark, then the firmware) within join_us. */
static bool confirm(struct er_lane_sched *s, unsigned h, uint64_t t0)
{
	struct er_lane_helper *x = &s->h[h];
	for (;;) {
		uint32_t st = __atomic_load_n(&x->state, __ATOMIC_ACQUIRE);
		if ((st & 3u) == H_OUT)
			return s->ops.join ? s->ops.join(s->ops.ctx, h, s->join_us) == 0 : true;
		if (s->ops.now_us(s->ops.ctx) - t0 > s->join_us) {
			/* never entered: gone (it leaves at once if it ever does); in: it is
			 * between its last claim and its mark. Either way not confirmed. */
			if ((st & 3u) == H_START)
				__atomic_compare_exchange_n(&x->state, &st, (st & ~3u) | H_GONE, false, __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE);
			return false;
		}
		relax(s);
	}
}

void er_lanes_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	struct er_lane_sched *s = ctx;
	bool started[ER_LANES_HELPERS] = { false };
	unsigned ns = 0;

	if (s->broken || s->helpers == 0 || n < 2 || n > TAG_LANES || !s->ops.start || !s->ops.now_us) {
		for (uint32_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	s->epoch++;
	if ((s->epoch & 0xffffu) == 0)
		s->epoch++;
	uint32_t tag = s->epoch & 0xffffu;
	s->fn = fn;
	s->arg = arg;
	s->n = n;
	__atomic_store_n(&s->done, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->claim, tag << 16, __ATOMIC_RELEASE);
	for (unsigned h = 0; h < s->helpers && h + 1 < n; h++) {
		s->h[h].s = s;
		__atomic_store_n(&s->h[h].state, s->epoch << 2 | H_START, __ATOMIC_RELEASE);
		if (s->ops.start(s->ops.ctx, h, helper_main, &s->h[h]) == 0) {
			started[h] = true;
			ns++;
		}
	}
	run_lanes(s, tag);
	/* every lane claimed: wait until each has returned (fn's arg lives in our caller) */
	uint64_t t0 = s->ops.now_us(s->ops.ctx);
	bool noted = false;
	while (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) < n) {
		if (!noted && s->ops.now_us(s->ops.ctx) - t0 > s->join_us) {
			noted = true;
			if (s->ops.stalled)
				s->ops.stalled(s->ops.ctx, __atomic_load_n(&s->done, __ATOMIC_ACQUIRE));
		}
		relax(s);
	}
	t0 = s->ops.now_us(s->ops.ctx);
	for (unsigned h = 0; h < ER_LANES_HELPERS && ns; h++)
		if (started[h] && !confirm(s, h, t0))
			s->broken = true;
}

bool er_lanes_parallel(const struct er_lane_sched *s)
{
	return s && !s->broken && s->helpers && s->ops.start && s->ops.now_us;
}

bool er_lanes_unconfirmed(const struct er_lane_sched *s)
{
	return s->broken;
}
