// SPDX-License-Identifier: GPL-2.0-or-later
/* The parallel decompression engine on EFI MP services: loader/parallel.c with the
 * CPU operations of efi/mp.c. */
#include "loader/dec_cpus.h"
#include "loader/parallel.h"
#include "efi/mp.h"

/* Static: helpers only ever see this, never the caller's stack. */
static struct er_par engine;

static unsigned submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	(void)ctx;
	return er_par_submit(&engine, comp, in, in_len, out, cap);
}

/* the chunk's encrypted pages (contract v2) opened by the job, on whichever CPU runs it */
static unsigned submit_open(void *ctx, const struct er_open_pages *open, enum er_comp comp, const uint8_t *in,
			    size_t in_len, uint8_t *out, size_t cap)
{
	(void)ctx;
	return er_par_submit_open(&engine, open, comp, in, in_len, out, cap);
}

static int wait(void *ctx, unsigned ticket, size_t *out_len, uint32_t *crc)
{
	struct er_dec_cpus *dp = ctx;
	bool failed = engine.failed != 0;
	int r = er_par_wait(&engine, ticket, out_len, crc);
	dp->helper_jobs = engine.helper_jobs;
	if (!failed && engine.failed) {
		if (engine.failed == ER_PAR_E_TIMEOUT && engine.fault_helper)
			log_warn(L"helper CPU %ld did not finish a chunk within %ld ms; not resuming\n",
				 er_mp_helper_cpu(engine.fault_helper - 1), (UINT64)ER_DEC_CPUS_JOB_MS);
		else if (engine.failed == ER_PAR_E_TIMEOUT)
			log_warn(L"a helper CPU did not finish a chunk within %ld ms; not resuming\n", (UINT64)ER_DEC_CPUS_JOB_MS);
		else
			log_warn(L"parallel decompression: %a\n", er_par_strerror(engine.failed));
	}
	return r;
}

bool er_dec_cpus_start(struct er_dec_cpus *dp)
{
	static const struct er_par_ops ops = {
		NULL, er_mp_helper_start, er_mp_helper_join, er_mp_now_us, er_mp_relax, NULL,
	};
	unsigned want = er_mp_helpers_available();

	er_memset(dp, 0, sizeof(*dp));
	if (want > ER_DEC_CPUS_HELPERS)
		want = ER_DEC_CPUS_HELPERS;
	if (want == 0)
		return false;
	if (engine.broken) {
		log_warn(L"a helper CPU of an earlier load is unaccounted for: decompressing on this CPU only\n");
		return false;
	}
	dp->nhelpers = er_par_start(&engine, &ops, want, (uint64_t)ER_DEC_CPUS_JOB_MS * 1000,
				    (uint64_t)ER_DEC_CPUS_STOP_MS * 1000);
	if (dp->nhelpers == 0)
		return false;
	dp->engine.ctx = dp;
	dp->engine.submit = submit;
	dp->engine.submit_open = submit_open;
	dp->engine.wait = wait;
	return true;
}

bool er_dec_cpus_stop(struct er_dec_cpus *dp)
{
	if (dp->nhelpers == 0)
		return !engine.broken;
	bool ok = er_par_stop(&engine);
	dp->helper_jobs = engine.helper_jobs;
	if (!ok)
		log_warn(L"a helper CPU did not confirm it stopped (of %ld); it may still be running\n",
			 (UINT64)dp->nhelpers);
	dp->nhelpers = 0;
	return ok;
}

bool er_dec_cpus_give_back(void (*give_back)(void *ctx), void *ctx)
{
	if (er_par_give_back(&engine, give_back, ctx))
		return true;
	log_warn(L"a helper CPU may still be running: its input and output memory is kept, not freed\n");
	return false;
}

bool er_dec_cpus_unconfirmed(void)
{
	return engine.broken;
}
