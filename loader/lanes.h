// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/lanes.c: the argon2 lanes of a LUKS2 key derivation on helper CPUs (the
 * er_lanes engine of crypto/argon2.h). Pure C: the CPU operations come in through
 * er_lanes_ops (EFI MP services in loader/unlock.c, pthreads in tests/unit/test_lanes.c).
 * The shared state is a struct er_lane_sched the caller keeps alive for as long as a helper
 * may come back (struct er_volumes in loader/volumes.c). */
#ifndef EFIRESUME_LOADER_LANES_H
#define EFIRESUME_LOADER_LANES_H

#include "image/freestanding.h"
#include "crypto/argon2.h"

#define ER_LANES_HELPERS 7u

struct er_lanes_ops {
	void *ctx;
	/* Run fn(arg) on another CPU (helper i < ER_LANES_HELPERS) without waiting; 0 when started. */
	int (*start)(void *ctx, unsigned i, void (*fn)(void *arg), void *arg);
	/* Whether helper i's fn has returned, waiting up to timeout_us; 0 when it has. */
	int (*join)(void *ctx, unsigned i, uint64_t timeout_us);
	uint64_t (*now_us)(void *ctx);     /* monotonic clock, microseconds */
	void (*relax)(void *ctx);          /* spin-wait hint, may be NULL */
	/* Lanes are still held by helpers after the join timeout (done of the run's lanes
	 * have returned); called once per run, the wait goes on. May be NULL. */
	void (*stalled)(void *ctx, uint32_t done);
};

struct er_lane_sched;

struct er_lane_helper {
	struct er_lane_sched *s;
	uint32_t state;         /* atomic: epoch << 2 | H_START, H_IN, H_OUT or H_GONE */
};

struct er_lane_sched {
	struct er_lanes_ops ops;
	unsigned helpers;       /* helpers to use per run */
	uint64_t join_us;
	bool broken;            /* a helper was never confirmed back: never started again */
	uint32_t epoch;         /* current run, 1.. */
	/* the current run (written before claim is published) */
	er_lane_fn fn;
	void *arg;
	uint32_t n;
	uint32_t claim;         /* atomic: (epoch & 0xffff) << 16 | the next lane to take */
	uint32_t done;          /* atomic: lanes of this run that returned */
	struct er_lane_helper h[ER_LANES_HELPERS];
};

/* Sets up s (zeroed at first; kept alive while er_lanes_unconfirmed) for up to helpers
 * helper CPUs. */
void er_lanes_init(struct er_lane_sched *s, const struct er_lanes_ops *ops, unsigned helpers, uint64_t join_us);

/* The er_lanes run operation; ctx is the struct er_lane_sched.
 *
 * Lanes are claimed with a CAS on `claim`, tagged with the run's epoch, by the boot CPU
 * and the helpers alike; so a helper that enters late (after the run, or in another
 * run) claims nothing and leaves, touching only this struct. It returns only
 * when every lane has returned (crypto/argon2.h's contract: fn's arg is in the
 * caller's frame): a lane a helper holds past join_us is reported once
 * (ops->stalled) and still waited for. Then every helper started must be confirmed
 * out (its own mark, then ops->join) within join_us; one that is not (it never
 * entered: marked gone, so it leaves at once if it ever does; or the firmware does
 * not confirm it) makes the scheduler broken: no helper is started again, the
 * KDF's memory is not given back, and er_lanes_unconfirmed() says so: the caller
 * must not commit (the CPU may still run code of ours). */
void er_lanes_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n);

/* A helper CPU was never confirmed back: nothing it may touch may be freed or
 * reused, and nothing may be committed. */
bool er_lanes_unconfirmed(const struct er_lane_sched *s);
/* true when er_lanes_run would start helper CPUs (each run then costs a start and a join) */
bool er_lanes_parallel(const struct er_lane_sched *s);

#endif
