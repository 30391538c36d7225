/* Parallel CRC32: pieces are queued in stream order; the helper CPU (and, at the end,
 * the boot CPU) claim and checksum them; finish() joins them with er_crc32_le_combine.
 * Pieces that are not "stable" (the reader's reused buffer) are checksummed by the boot
 * CPU at once and queued as done. */
#include "loader/crcpar.h"
#include "image/crc32.h"

static void pause(void)
{
	__asm__ __volatile__("pause");
}

/* claim the next queued piece; -1 when none */
static INTN claim(struct er_crcpar *cp)
{
	for (;;) {
		UINTN k = __atomic_load_n(&cp->next, __ATOMIC_SEQ_CST);
		if (k >= __atomic_load_n(&cp->submitted, __ATOMIC_SEQ_CST))
			return -1;
		if (__atomic_compare_exchange_n(&cp->next, &k, k + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return (INTN)k;
	}
}

static void work(struct er_crcpar *cp, UINTN k)
{
	struct er_crc_piece *pc = &cp->pieces[k];
	if (pc->p)
		pc->crc = er_crc32_le(0, pc->p, pc->n);
	__atomic_store_n(&pc->state, 2, __ATOMIC_SEQ_CST);
}

static void EFIAPI helper(void *arg)
{
	struct er_crcpar *cp = arg;
	for (;;) {
		INTN k = claim(cp);
		if (k >= 0) {
			work(cp, (UINTN)k);
			cp->ap_pieces++;
			continue;
		}
		if (__atomic_load_n(&cp->stop, __ATOMIC_SEQ_CST))
			break;
		pause();
	}
	__atomic_store_n(&cp->ap_exited, 1, __ATOMIC_SEQ_CST);
}

static void queue(struct er_crcpar *cp, const UINT8 *p, UINTN n, UINT32 crc)
{
	UINTN k = cp->submitted;
	struct er_crc_piece *pc = &cp->pieces[k];
	pc->p = p;
	pc->n = n;
	pc->crc = crc;
	pc->state = p ? 0 : 2;
	__atomic_store_n(&cp->submitted, k + 1, __ATOMIC_SEQ_CST);
}

static void submit(void *ctx, const uint8_t *p, size_t n, bool stable)
{
	struct er_crcpar *cp = ctx;
	if (cp->overflow || cp->submitted >= cp->cap) {
		/* no slot left (the caller sized the queue by pages, so not expected):
		 * everything from here on is checksummed inline, after the queued pieces */
		cp->overflow = TRUE;
		cp->tail_crc = er_crc32_le_combine(cp->tail_crc, er_crc32_le(0, p, n), n);
		cp->tail_n += n;
		return;
	}
	if (stable)
		queue(cp, p, n, 0);
	else
		queue(cp, NULL, n, er_crc32_le(0, p, n));
}

static uint32_t finish(void *ctx)
{
	struct er_crcpar *cp = ctx;
	uint32_t c = 0;
	INTN k;

	/* help with what is still queued, then wait for the helper's claimed pieces */
	while ((k = claim(cp)) >= 0)
		work(cp, (UINTN)k);
	for (UINTN i = 0; i < cp->submitted; i++) {
		while (__atomic_load_n(&cp->pieces[i].state, __ATOMIC_SEQ_CST) != 2)
			pause();
		c = er_crc32_le_combine(c, cp->pieces[i].crc, cp->pieces[i].n);
	}
	if (cp->overflow)
		c = er_crc32_le_combine(c, cp->tail_crc, cp->tail_n);
	return c;
}

BOOLEAN er_crcpar_start(struct er_crcpar *cp, UINTN max_pieces)
{
	er_memset(cp, 0, sizeof(*cp));
	if (er_cpu_count() < 2)
		return FALSE;
	cp->cap = max_pieces + 1;
	if (EFI_ERROR(er_alloc_zero(cp->cap * sizeof(*cp->pieces), (void **)&cp->pieces)))
		return FALSE;
	if (EFI_ERROR(er_mp_start(helper, cp, &cp->job))) {
		er_free(cp->pieces);
		cp->pieces = NULL;
		return FALSE;
	}
	cp->running = TRUE;
	cp->engine.ctx = cp;
	cp->engine.submit = submit;
	cp->engine.finish = finish;
	return TRUE;
}

void er_crcpar_stop(struct er_crcpar *cp)
{
	if (!cp->running)
		return;
	__atomic_store_n(&cp->stop, 1, __ATOMIC_SEQ_CST);
	/* the helper leaves its loop at once; give the firmware up to 2 s to see it */
	if (EFI_ERROR(er_mp_wait(&cp->job, 2000)))
		log_warn(L"the CRC helper CPU did not report back\n");
	cp->running = FALSE;
	er_free(cp->pieces);
	cp->pieces = NULL;
}
