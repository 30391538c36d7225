// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/lanes.c: the argon2 lanes of a LUKS2 key derivation on helper CPUs (the
 * er_lanes engine of crypto/argon2.h). Pure C: the CPU operations come in through
 * er_lanes_ops (EFI MP services in loader/unlock.c, pthreads in tests/unit/test_lanes.c).
 * The shared state is a struct er_lane_sched the caller keeps in static storage. */
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
};

struct er_lane_sched {
	struct er_lanes_ops ops;
	unsigned helpers;       /* helpers to use per run */
	uint64_t join_us;
	bool broken;            /* a helper never came back: its memory is never given back */
	/* the current run */
	er_lane_fn fn;
	void *arg;
	uint32_t n;
	uint32_t next;          /* the next lane to take (atomic) */
};

/* Sets up s (static storage) for up to helpers helper CPUs. */
void er_lanes_init(struct er_lane_sched *s, const struct er_lanes_ops *ops, unsigned helpers, uint64_t join_us);

/* The er_lanes run operation; ctx is the struct er_lane_sched. */
void er_lanes_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n);

/* A helper CPU was never confirmed back: nothing it may touch may be freed or
 * reused, and nothing may be committed. */
bool er_lanes_unconfirmed(const struct er_lane_sched *s);

#endif
