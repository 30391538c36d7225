// SPDX-License-Identifier: GPL-2.0-or-later
/* The loading progress line; see progress.h. */
#include "loader/progress.h"
#include "image/fmt.h"

#define PROGRESS_EVERY_US 250000

/* One line, updated in place: percent, MiB/s, seconds left. The log keeps 25% lines. */
static void progress_show(struct er_progress *pr, bool final)
{
	UINT64 now = er_time_us(), el = now - pr->t0;
	if (!final && now - pr->last_shown < PROGRESS_EVERY_US)
		return;
	pr->last_shown = now;
	if (el == 0)
		el = 1;
	UINT64 mib_s = pr->done * ER_PAGE_SIZE / el * 1000000 / (1024 * 1024);
	UINT64 left_s = pr->done ? (pr->total - ER_MIN(pr->done, pr->total)) * el / pr->done / 1000000 : 0;
	er_console_line(L"loading %3ld%%  %4ld MiB/s  %ld s left (Esc: stop, boot normally) %s",
			ER_MIN(pr->done, pr->total) * 100 / (pr->total ? pr->total : 1), mib_s, left_s, final ? L"\n" : L"");
	pr->shown = true;
}

/* Called as pages arrive: the line, and Esc. Non-zero stops the stream (nothing was
 * committed yet, so the image is kept). */
static int progress_step(struct er_progress *pr, struct er_error *err)
{
	if (pr->done >= pr->next_report) {
		pr->next_report += pr->total / 4;
		if (!pr->shown)
			log_info(L"loading: %ld%%\n", pr->done * 100 / pr->total);
	}
	if (er_time_us() - pr->last_shown < PROGRESS_EVERY_US)
		return 0;
	progress_show(pr, false);
	if (er_poll_key() == 27) {
		pr->aborted = true;
		er_snprintf(err->detail, sizeof(err->detail), "stopped by the user (Esc)");
		return -1;
	}
	return 0;
}

static int progress_plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct er_progress *pr = ctx;
	int r = pr->inner.plan(pr->inner.ctx, img, pfns, n, err);
	if (r == 0)
		log_info(L"plan: %ld pages into their own frames, %ld bounced (%ld all-zero pages)\n",
			 pr->plan->n_direct, pr->plan->n_bounce, pr->plan->n_zero);
	return r;
}

static int progress_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct er_progress *pr = ctx;
	UINT64 t0 = er_time_us();
	int r = pr->inner.page(pr->inner.ctx, pfn, data, err);
	pr->place_us += er_time_us() - t0;
	pr->done++;
	return r ? r : progress_step(pr, err);
}

static uint8_t *progress_dest(void *ctx, uint64_t idx, uint64_t k)
{
	struct er_progress *pr = ctx;
	return pr->inner.dest(pr->inner.ctx, idx, k);
}

static int progress_commit(void *ctx, uint64_t idx, uint64_t k, struct er_error *err)
{
	struct er_progress *pr = ctx;
	int r = pr->inner.commit(pr->inner.ctx, idx, k, err);
	pr->done += k;
	return r ? r : progress_step(pr, err);
}

/* The seeds' 2004 format, as written by a kernel with kernel-patch/ applied. */
static int progress_plan2004(void *ctx, const struct er_swsusp2004_image *img, const uint64_t *pfns, uint64_t n,
			     struct er_error *err)
{
	(void)img;
	return progress_plan(ctx, NULL, pfns, n, err);
}

void er_progress_init(struct er_progress *pr, struct er_plan *plan, UINT64 total)
{
	er_memset(pr, 0, sizeof(*pr));
	pr->plan = plan;
	pr->inner = er_plan_sink(plan);
	pr->total = total;
	pr->next_report = total / 4;
	pr->t0 = pr->last_shown = er_time_us();
}

struct er_sink er_progress_sink(struct er_progress *pr)
{
	struct er_sink sink = { pr, progress_plan, progress_page, progress_dest, progress_commit };
	return sink;
}

struct er_swsusp2004_sink er_progress_sink2004(struct er_progress *pr)
{
	struct er_swsusp2004_sink sink = { pr, progress_plan2004, progress_page };
	return sink;
}

void er_progress_close(struct er_progress *pr)
{
	if (pr->shown)
		progress_show(pr, true);
}
