/* Parallel decompression: the reader queues jobs in stream order; the helper CPUs and,
 * while it waits, the boot CPU claim and run them. A job only touches its own input
 * (in the reader's window) and output (the image's frames), both left alone by the
 * reader until it has waited for the job. */
#include "loader/decpar.h"

static void pause(void)
{
	__asm__ __volatile__("pause");
}

/* claim the next queued job: its slot, or -1 when none */
static INTN claim(struct er_decpar *dp)
{
	for (;;) {
		UINTN k = __atomic_load_n(&dp->next, __ATOMIC_SEQ_CST);
		if (k >= __atomic_load_n(&dp->submitted, __ATOMIC_SEQ_CST))
			return -1;
		if (__atomic_compare_exchange_n(&dp->next, &k, k + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return (INTN)(k % ER_DEC_MAX_JOBS);
	}
}

static void run(struct er_decpar *dp, UINTN slot)
{
	struct er_decjob *j = &dp->jobs[slot];
	size_t out_len = 0;
	uint32_t crc = 0;
	j->status = er_dec_run(j->comp, j->in, j->in_len, j->out, j->cap, &out_len, &crc);
	j->out_len = out_len;
	j->crc = crc;
	__atomic_store_n(&j->state, 2, __ATOMIC_SEQ_CST);
}

static void EFIAPI helper(void *arg)
{
	struct er_decpar *dp = arg;
	for (;;) {
		INTN k = claim(dp);
		if (k >= 0) {
			run(dp, (UINTN)k);
			__atomic_add_fetch(&dp->helper_jobs, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		if (__atomic_load_n(&dp->stop, __ATOMIC_SEQ_CST))
			break;
		pause();
	}
}

static unsigned submit(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	struct er_decpar *dp = ctx;
	UINTN k = dp->submitted;
	unsigned slot = (unsigned)(k % ER_DEC_MAX_JOBS);
	struct er_decjob *j = &dp->jobs[slot];
	j->comp = comp;
	j->in = in;
	j->in_len = in_len;
	j->out = out;
	j->cap = cap;
	j->state = 0;
	__atomic_store_n(&dp->submitted, k + 1, __ATOMIC_SEQ_CST);
	return slot;
}

static int wait(void *ctx, unsigned ticket, size_t *out_len, uint32_t *crc)
{
	struct er_decpar *dp = ctx;
	struct er_decjob *j = &dp->jobs[ticket];
	while (__atomic_load_n(&j->state, __ATOMIC_SEQ_CST) != 2) {
		INTN k = claim(dp);
		if (k >= 0)
			run(dp, (UINTN)k);
		else
			pause();
	}
	*out_len = j->out_len;
	*crc = j->crc;
	return j->status;
}

BOOLEAN er_decpar_start(struct er_decpar *dp)
{
	er_memset(dp, 0, sizeof(*dp));
	UINTN cpus = er_cpu_count();
	for (UINTN i = 0; i + 1 < cpus && i < ER_DECPAR_HELPERS; i++) {
		/* each call takes an AP that is not busy yet */
		if (EFI_ERROR(er_mp_start(helper, dp, &dp->helpers[dp->nhelpers])))
			break;
		dp->nhelpers++;
	}
	if (dp->nhelpers == 0)
		return FALSE;
	dp->engine.ctx = dp;
	dp->engine.submit = submit;
	dp->engine.wait = wait;
	return TRUE;
}

void er_decpar_stop(struct er_decpar *dp)
{
	if (dp->nhelpers == 0)
		return;
	__atomic_store_n(&dp->stop, 1, __ATOMIC_SEQ_CST);
	/* the helpers leave their loop at once; give the firmware up to 2 s to see it */
	for (UINTN i = 0; i < dp->nhelpers; i++)
		if (EFI_ERROR(er_mp_wait(&dp->helpers[i], 2000)))
			log_warn(L"helper CPU %ld did not report back\n", (UINT64)dp->helpers[i].cpu);
	dp->nhelpers = 0;
}
