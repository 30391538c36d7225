// SPDX-License-Identifier: GPL-2.0-or-later
/* Decompression (and the CRC32 of what comes out) on the other CPUs, through EFI MP
 * services, while the boot CPU reads: an er_dec_engine for image/reader.c.
 *
 * The EFI face of the parallel engine (loader/parallel.h), whose shared state is
 * static (a late helper CPU can only find it closed); this struct, on the caller's
 * stack, is touched by the boot CPU only. */
#ifndef EFIRESUME_LOADER_DEC_CPUS_H
#define EFIRESUME_LOADER_DEC_CPUS_H

#include "efi/efi.h"
#include "image/reader.h"

#define ER_DEC_CPUS_HELPERS 7    /* helper CPUs at most (8 CPUs in all) */
#define ER_DEC_CPUS_JOB_MS 2000  /* a wait gives up on a helper's chunk after this long idle */
#define ER_DEC_CPUS_STOP_MS 2000 /* the stop waits this long for helpers to leave (and again for the firmware) */

struct er_dec_cpus {
	struct er_dec_engine engine;  /* hand to er_stream_buffers.dec */
	UINTN nhelpers;               /* helper CPUs started */
	UINTN helper_jobs;            /* jobs the helpers ran (the boot CPU runs the rest) */
};

/* Starts helpers on up to ER_DEC_CPUS_HELPERS other CPUs; false (and nothing running)
 * when there is no other CPU (or an earlier run left a CPU unaccounted for): the
 * reader then decompresses inline. */
bool er_dec_cpus_start(struct er_dec_cpus *dp);
/* Stops the helpers (idempotent; after er_dec_cpus_start, always call it). true when
 * every helper is confirmed out (by itself and by the firmware). false: a helper may
 * still be running and writing: the image must be refused, nothing committed. */
bool er_dec_cpus_stop(struct er_dec_cpus *dp);

/* After the stop: gives back what the jobs were lent (their input and output memory)
 * through give_back(ctx) when every helper is confirmed out (true). false: give_back
 * was not called; that memory must be kept for good (never freed or reused). */
bool er_dec_cpus_give_back(void (*give_back)(void *ctx), void *ctx);
/* true while a helper CPU of any load is not confirmed out: no image may be committed. */
bool er_dec_cpus_unconfirmed(void);

#endif
