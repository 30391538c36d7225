// SPDX-License-Identifier: GPL-2.0-or-later
/* The parallel decompression engine: an er_dec_engine (image/reader.h) whose jobs run
 * on helper CPUs and, while it waits, on the boot CPU. Pure C: it never calls the
 * firmware; the CPU operations come in through er_par_ops (efi/mp.c for EFI MP
 * services, pthreads in tests/unit/test_parallel.c and tools/bench-parallel.c).
 *
 * Every wait is bounded. Shared state lives in a struct er_par that the caller keeps
 * in static storage (never on a stack): a helper that wakes late only reads it and
 * sees "stop". Stop protocol (er_par_stop):
 *   1. the boot CPU closes the run (run word: epoch, open bit) and cancels every job
 *      still queued (CAS queued -> cancelled, so no CPU can claim one afterwards);
 *   2. it waits, up to stop_us, for every helper to mark itself out (the helper's
 *      last store; it finishes a job it holds first);
 *   3. a helper that never entered is marked gone (CAS): if it enters later it
 *      leaves at once, touching nothing; it still counts as not confirmed;
 *   4. for each helper that is out, ops->join must confirm its procedure returned;
 *   5. the result says whether every helper is confirmed out. If not, the engine
 *      is broken for good (never started again: its storage stays as a late helper
 *      expects it), the caller must not commit, and the memory the jobs were lent
 *      is never given back (er_par_give_back).
 *
 * Jobs are claimed per job with a CAS on a state word tagged with the run's epoch and
 * the job's sequence number, built from what the claimer expects (never from what it
 * read), so a helper of another run, or of a cancelled job, can never claim a job.
 *
 * Memory ordering: __atomic builtins on 32-bit words only (no libatomic on i686);
 * publishing is release/acquire (x86 TSO plus compiler barriers in practice).
 */
#ifndef EFIRESUME_LOADER_PARALLEL_H
#define EFIRESUME_LOADER_PARALLEL_H

#include "image/freestanding.h"
#include "image/reader.h"

#define ER_PAR_HELPERS 7u      /* helper CPUs at most (8 CPUs in all) */

/* Status codes of er_par's wait() beyond the decompressors' own (which are > -100) */
#define ER_PAR_E_TIMEOUT   (-1001)  /* the helper holding the job did not finish within job_us */
#define ER_PAR_E_CANCELLED (-1002)  /* the engine failed earlier: the job was not run (or not waited for) */
#define ER_PAR_E_PROTOCOL  (-1003)  /* submit/wait out of order, or more than ER_DEC_MAX_JOBS outstanding */
const char *er_par_strerror(int status);   /* NULL for codes that are not the engine's */

/* What a CPU runs (the engine's helper loop). */
typedef void (*er_par_fn)(void *arg);

/* The CPU operations, from the environment. */
struct er_par_ops {
	void *ctx;
	/* Run fn(arg) on another CPU (helper number i < ER_PAR_HELPERS) without waiting;
	 * 0 when started, non-zero when there is no (further) CPU. */
	int (*start)(void *ctx, unsigned i, er_par_fn fn, void *arg);
	/* Whether helper i's fn has returned as the environment sees it, waiting up to
	 * timeout_us; 0 when it has. Called only for a helper that marked itself out.
	 * NULL: the helper's own mark is enough. */
	int (*join)(void *ctx, unsigned i, uint64_t timeout_us);
	uint64_t (*now_us)(void *ctx);     /* monotonic clock, microseconds */
	void (*relax)(void *ctx);          /* spin-wait hint (pause), may be NULL */
	/* The job itself: NULL for er_dec_run (tests put a hook here). Any CPU. */
	int (*run)(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		   size_t *out_len, uint32_t *crc);
};

struct er_par;

struct er_par_job {
	struct er_open_pages open;   /* pages opened before decompressing (open.n == 0: none) */
	enum er_comp comp;
	const uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t cap;
	int status;
	size_t out_len;
	uint32_t crc;
	uint32_t by;          /* who ran it: 0 the boot CPU, 1 + i helper i */
	uint32_t state;       /* atomic: ER_PAR_TAG(epoch, seq) | queued/claimed/done/cancelled */
};

struct er_par_helper {
	struct er_par *par;
	unsigned index;
	uint32_t epoch;       /* the run it was started for */
	uint32_t state;       /* atomic: epoch << 2 | start/run/out/gone */
};

/* The engine's shared state: keep it in static storage. */
struct er_par {
	struct er_par_job jobs[ER_DEC_MAX_JOBS];
	struct er_par_helper helpers[ER_PAR_HELPERS];
	uint32_t run;          /* atomic: epoch << 1 | open */
	uint32_t submitted;    /* atomic: jobs queued in this run (seq of the next one) */
	uint32_t waited;       /* atomic: jobs waited for (seq of the oldest outstanding) */
	uint32_t epoch;        /* current run, 1.. */
	unsigned nhelpers;     /* started in this run */
	bool running;          /* between er_par_start and er_par_stop */
	bool broken;           /* a helper may still be running: never start again */
	int failed;            /* first engine failure in this run (ER_PAR_E_*), 0 */
	unsigned fault_helper; /* on ER_PAR_E_TIMEOUT: 1 + the helper that held the job (0: none) */
	uint32_t helper_jobs, boot_jobs;   /* jobs run in this run by helpers / by the boot CPU */
	uint64_t job_us, stop_us;
	struct er_par_ops ops;
	struct er_dec_engine engine;       /* for er_stream_buffers.dec; ctx = this struct */
};

/* Starts up to max_helpers helpers (<= ER_PAR_HELPERS) through ops. job_us bounds how
 * long a wait stays idle for a job a helper holds; stop_us bounds er_par_stop's wait.
 * Returns the number of helpers started; with 0 nothing runs and er_par_stop need not
 * be called (it is harmless). Refuses (0) while running or when broken. */
unsigned er_par_start(struct er_par *p, const struct er_par_ops *ops, unsigned max_helpers, uint64_t job_us,
		      uint64_t stop_us);

/* The stop protocol above. true when every helper started is confirmed out (also when
 * none was started); idempotent. After false, nothing may be committed that a running
 * helper could still change: refuse. */
bool er_par_stop(struct er_par *p);

/* What a run's jobs were lent (their input and output memory) goes back to its
 * owner through give_back(ctx), called here only when every helper of every run is
 * confirmed out (the engine is not broken): then true. Otherwise a late helper may
 * still read a job's input or write its output: give_back is not called, false says
 * so, and the caller keeps that memory for good (leaked on purpose: never freed,
 * never reused) and commits nothing. */
bool er_par_give_back(const struct er_par *p, void (*give_back)(void *ctx), void *ctx);

/* The er_dec_engine operations (p->engine points at them). */
unsigned er_par_submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap);
/* As submit, the job opening open's pages first (its status ER_DEC_E_AUTH when one fails). */
unsigned er_par_submit_open(void *ctx, const struct er_open_pages *open, enum er_comp comp, const uint8_t *in,
			    size_t in_len, uint8_t *out, size_t cap);
int er_par_wait(void *ctx, unsigned ticket, size_t *out_len, uint32_t *crc);

#endif
