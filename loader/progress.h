// SPDX-License-Identifier: GPL-2.0-or-later
/* The loading progress line: wraps the plan's sink (loader/plan.h) with timing, a line
 * updated in place (percent, MiB/s, seconds left; the log keeps 25% lines) and Esc, which
 * stops the stream before the point of no return. Used by loader/resume.c. */
#ifndef EFIRESUME_LOADER_PROGRESS_H
#define EFIRESUME_LOADER_PROGRESS_H

#include "efi/efi.h"
#include "loader/plan.h"
#include "image/swsusp2004.h"

struct er_progress {
	struct er_plan *plan;
	struct er_sink inner;
	UINT64 done, total, next_report, place_us;
	UINT64 t0, last_shown;
	bool shown, aborted;   /* aborted: Esc stopped the stream (nothing was committed) */
};

/* total: the pages the stream will deliver */
void er_progress_init(struct er_progress *pr, struct er_plan *plan, UINT64 total);
/* The sinks that wrap the plan's: for the modern format (image/reader.h) and the 2004 one (image/swsusp2004.h) */
struct er_sink er_progress_sink(struct er_progress *pr);
struct er_swsusp2004_sink er_progress_sink2004(struct er_progress *pr);
/* The stream ended: the line is closed (if it was shown). */
void er_progress_close(struct er_progress *pr);

#endif
