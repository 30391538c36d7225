// SPDX-License-Identifier: GPL-2.0-or-later
/* The parallel decompression engine (see parallel.h for the protocol). Pure C: no
 * firmware call, only the operations in p->ops. The reader queues jobs in stream
 * order; helpers and, while it waits, the boot CPU claim and run them. A job only
 * touches its own input (in the reader's window) and output (the image's frames),
 * both left alone by the reader until it has waited for the job. */
#include "loader/parallel.h"

#define NJOBS ER_DEC_MAX_JOBS

/* job state: epoch (8 bits) | sequence number (22 bits) | state (2 bits) */
enum { J_CANCELLED = 0, J_QUEUED = 1, J_CLAIMED = 2, J_DONE = 3 };
/* helper state: epoch (30 bits) | state (2 bits) */
enum { H_GONE = 0, H_START = 1, H_RUN = 2, H_OUT = 3 };

static uint32_t tag(uint32_t epoch, uint32_t seq)
{
	return (epoch & 0xffu) << 24 | (seq & 0x3fffffu) << 2;
}

static uint32_t ld(const uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static void st(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

static bool cas(uint32_t *w, uint32_t expect, uint32_t v)
{
	return __atomic_compare_exchange_n(w, &expect, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void relax(const struct er_par *p)
{
	if (p->ops.relax)
		p->ops.relax(p->ops.ctx);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static uint64_t now(const struct er_par *p)
{
	return p->ops.now_us(p->ops.ctx);
}

const char *er_par_strerror(int status)
{
	switch (status) {
	case ER_PAR_E_TIMEOUT:   return "a helper CPU did not finish its chunk in time";
	case ER_PAR_E_CANCELLED: return "not decompressed: the parallel engine had failed";
	case ER_PAR_E_PROTOCOL:  return "parallel engine used out of order";
	default:                 return NULL;
	}
}

/* Claim the oldest queued job of run e and run it (by: 0 boot CPU, 1 + i helper i);
 * false when there was none. The claim is a CAS from the exact word a queued job of
 * this run and sequence number carries, so nothing stale or cancelled is claimed. */
static bool claim_and_run(struct er_par *p, uint32_t e, uint32_t by)
{
	uint32_t q = ld(&p->waited), s = ld(&p->submitted);

	if (s - q > NJOBS)    /* read across many jobs (a stalled CPU): only the last NJOBS can be queued */
		q = s - NJOBS;
	for (; q != s; q++) {
		struct er_par_job *j = &p->jobs[q % NJOBS];
		uint32_t t = tag(e, q);
		if (__atomic_load_n(&j->state, __ATOMIC_RELAXED) != (t | J_QUEUED) || !cas(&j->state, t | J_QUEUED, t | J_CLAIMED))
			continue;
		__atomic_store_n(&j->by, by, __ATOMIC_RELAXED);
		size_t out_len = 0;
		uint32_t crc = 0;
		int r = j->open.n ? er_open_pages_run(&j->open) : 0;
		if (r == 0)
			r = p->ops.run ? p->ops.run(p->ops.ctx, j->comp, j->in, j->in_len, j->out, j->cap, &out_len, &crc)
				       : er_dec_run(j->comp, j->in, j->in_len, j->out, j->cap, &out_len, &crc);
		j->status = r;
		j->out_len = out_len;
		j->crc = crc;
		st(&j->state, t | J_DONE);    /* publishes the results and the output */
		return true;
	}
	return false;
}

/* A helper CPU: runs jobs until its run closes, then marks itself out (its last store
 * to the engine) and returns. Entered late (marked gone), it leaves touching nothing. */
static void helper_main(void *arg)
{
	struct er_par_helper *h = arg;
	struct er_par *p = h->par;
	uint32_t e = h->epoch;

	if (!cas(&h->state, e << 2 | H_START, e << 2 | H_RUN))
		return;
	while (ld(&p->run) == (e << 1 | 1)) {
		if (!claim_and_run(p, e, 1 + h->index))
			relax(p);
	}
	st(&h->state, e << 2 | H_OUT);
}

/* Close the run: no job can be claimed afterwards (the queued ones are cancelled,
 * submit queues no more). Jobs already claimed finish. */
static void close_run(struct er_par *p)
{
	st(&p->run, p->epoch << 1);
	for (unsigned i = 0; i < NJOBS; i++) {
		uint32_t w = ld(&p->jobs[i].state);
		if ((w & 3u) == J_QUEUED)
			cas(&p->jobs[i].state, w, (w & ~3u) | J_CANCELLED);
	}
}

static int fail(struct er_par *p, int code)
{
	if (!p->failed) {
		p->failed = code;
		close_run(p);
	}
	return code;
}

unsigned er_par_start(struct er_par *p, const struct er_par_ops *ops, unsigned max_helpers, uint64_t job_us,
		      uint64_t stop_us)
{
	if (p->running || p->broken || !ops || !ops->start || !ops->now_us)
		return 0;
	/* no helper of an earlier run is left (each was confirmed out): all of it is ours */
	p->ops = *ops;
	p->epoch = (p->epoch + 1) & 0x3fffffffu;
	if (p->epoch == 0)
		p->epoch = 1;
	uint32_t e = p->epoch;
	er_memset(p->jobs, 0, sizeof(p->jobs));
	p->submitted = p->waited = 0;
	p->failed = 0;
	p->fault_helper = 0;
	p->helper_jobs = p->boot_jobs = 0;
	p->job_us = job_us;
	p->stop_us = stop_us;
	p->nhelpers = 0;
	p->engine.ctx = p;
	p->engine.submit = er_par_submit;
	p->engine.submit_open = er_par_submit_open;
	p->engine.wait = er_par_wait;
	st(&p->run, e << 1 | 1);
	if (max_helpers > ER_PAR_HELPERS)
		max_helpers = ER_PAR_HELPERS;
	for (unsigned i = 0; i < max_helpers; i++) {
		struct er_par_helper *h = &p->helpers[i];
		h->par = p;
		h->index = i;
		h->epoch = e;
		st(&h->state, e << 2 | H_START);
		if (ops->start(ops->ctx, i, helper_main, h) != 0) {
			/* not started: should it run after all, it leaves at once */
			st(&h->state, e << 2 | H_GONE);
			break;
		}
		p->nhelpers++;
	}
	if (p->nhelpers == 0) {
		st(&p->run, e << 1);
		return 0;
	}
	p->running = true;
	return p->nhelpers;
}

bool er_par_stop(struct er_par *p)
{
	if (!p->running)
		return !p->broken;
	uint32_t e = p->epoch;
	close_run(p);

	/* every helper finishes what it holds, sees the run closed and marks itself out */
	uint64_t deadline = now(p) + p->stop_us;
	for (;;) {
		unsigned out = 0;
		for (unsigned i = 0; i < p->nhelpers; i++)
			out += ld(&p->helpers[i].state) == (e << 2 | H_OUT);
		if (out == p->nhelpers || now(p) > deadline)
			break;
		relax(p);
	}

	bool confirmed = true;
	uint64_t join_deadline = now(p) + p->stop_us;
	for (unsigned i = 0; i < p->nhelpers; i++) {
		struct er_par_helper *h = &p->helpers[i];
		/* never entered: from now on it would leave at once, but it may still run */
		if (cas(&h->state, e << 2 | H_START, e << 2 | H_GONE)) {
			confirmed = false;
			continue;
		}
		if (ld(&h->state) != (e << 2 | H_OUT)) {
			confirmed = false;    /* still running a job, or hung */
			continue;
		}
		if (p->ops.join) {
			uint64_t t = now(p);
			if (p->ops.join(p->ops.ctx, i, join_deadline > t ? join_deadline - t : 0) != 0)
				confirmed = false;
		}
	}
	p->running = false;
	if (!confirmed)
		p->broken = true;     /* its storage stays as the late helper expects it */
	return confirmed;
}

bool er_par_give_back(const struct er_par *p, void (*give_back)(void *ctx), void *ctx)
{
	if (p->broken)
		return false;    /* a late helper may still read or write it: kept for good */
	give_back(ctx);
	return true;
}

unsigned er_par_submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	return er_par_submit_open(ctx, NULL, comp, in, in_len, out, cap);
}

unsigned er_par_submit_open(void *ctx, const struct er_open_pages *open, enum er_comp comp, const uint8_t *in,
			    size_t in_len, uint8_t *out, size_t cap)
{
	struct er_par *p = ctx;
	uint32_t q = p->submitted;     /* written by this CPU only */
	unsigned slot = q % NJOBS;

	if (!p->failed && (!p->running || q - p->waited >= NJOBS))
		fail(p, ER_PAR_E_PROTOCOL);
	if (!p->failed) {
		/* the slot's previous job was waited for: done, nobody touches it any more */
		struct er_par_job *j = &p->jobs[slot];
		if (open)
			j->open = *open;
		else
			er_memset(&j->open, 0, sizeof(j->open));
		j->comp = comp;
		j->in = in;
		j->in_len = in_len;
		j->out = out;
		j->cap = cap;
		j->status = 0;
		j->out_len = 0;
		j->crc = 0;
		j->by = 0;
		st(&j->state, tag(p->epoch, q) | J_QUEUED);
	}
	/* after a failure the ticket only counts: wait() reports the failure */
	st(&p->submitted, q + 1);
	return slot;
}

int er_par_wait(void *ctx, unsigned ticket, size_t *out_len, uint32_t *crc)
{
	struct er_par *p = ctx;
	uint32_t q = p->waited, e = p->epoch, t = tag(e, q);
	struct er_par_job *j = &p->jobs[ticket % NJOBS];
	int r;

	*out_len = 0;
	*crc = 0;
	if (q == p->submitted || ticket != q % NJOBS)
		return fail(p, ER_PAR_E_PROTOCOL);
	uint64_t deadline = now(p) + p->job_us;
	for (;;) {
		if (ld(&j->state) == (t | J_DONE)) {
			*out_len = j->out_len;
			*crc = j->crc;
			r = j->status;
			if (j->by)
				p->helper_jobs++;
			else
				p->boot_jobs++;
			break;
		}
		if (p->failed) {
			r = ER_PAR_E_CANCELLED;
			break;
		}
		/* run queued jobs (this one first, if nobody has it) while waiting */
		if (claim_and_run(p, e, 0)) {
			deadline = now(p) + p->job_us;
			continue;
		}
		if (now(p) > deadline) {
			p->fault_helper = __atomic_load_n(&j->by, __ATOMIC_RELAXED);
			r = fail(p, ER_PAR_E_TIMEOUT);
			break;
		}
		relax(p);
	}
	st(&p->waited, q + 1);
	return r;
}
