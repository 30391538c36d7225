// SPDX-License-Identifier: GPL-2.0-or-later
/* Argon2 lanes on helper CPUs; see lanes.h. */
#include "loader/lanes.h"

void er_lanes_init(struct er_lane_sched *s, const struct er_lanes_ops *ops, unsigned helpers, uint64_t join_us)
{
	s->ops = *ops;
	s->helpers = helpers > ER_LANES_HELPERS ? ER_LANES_HELPERS : helpers;
	s->join_us = join_us;
}

static void lane_worker(void *p)
{
	struct er_lane_sched *r = p;
	for (;;) {
		uint32_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_SEQ_CST);
		if (i >= r->n)
			break;
		r->fn(r->arg, i);
	}
}

void er_lanes_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	struct er_lane_sched *run = ctx;
	unsigned started[ER_LANES_HELPERS], ns = 0;

	if (run->broken) {
		/* a CPU of an earlier run may still be in `run`: this one only on the boot
		 * CPU (its result is thrown away: see unlock()) */
		for (uint32_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	run->fn = fn;
	run->arg = arg;
	run->n = n;
	__atomic_store_n(&run->next, 0, __ATOMIC_SEQ_CST);
	for (unsigned h = 0; h < run->helpers && h + 1 < n; h++)
		if (run->ops.start(run->ops.ctx, h, lane_worker, run) == 0)
			started[ns++] = h;
	lane_worker(run);
	for (unsigned i = 0; i < ns; i++)
		if (run->ops.join(run->ops.ctx, started[i], run->join_us) != 0)
			run->broken = true;
}

bool er_lanes_unconfirmed(const struct er_lane_sched *s)
{
	return s->broken;
}
