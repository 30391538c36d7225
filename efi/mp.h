// SPDX-License-Identifier: GPL-2.0-or-later
/* efi/mp.c: the CPU operations of the parallel decompression engine
 * (loader/parallel.h, struct er_par_ops) on EFI MP services. */
#ifndef EFIRESUME_EFI_MP_H
#define EFIRESUME_EFI_MP_H

#include "image/freestanding.h"

#define ER_MP_HELPERS 7u    /* helper slots (loader/parallel.h: ER_PAR_HELPERS) */

/* Helper CPUs there may be: the enabled CPUs but this one, at most ER_MP_HELPERS. */
unsigned er_mp_helpers_available(void);
/* Runs fn(arg) on an idle application processor as helper slot i (StartupThisAP,
 * non-blocking); 0 when started. A slot whose CPU was never confirmed back (join
 * failed or was never asked) is not used again. */
int er_mp_helper_start(void *ctx, unsigned i, void (*fn)(void *arg), void *arg);
/* Waits up to timeout_us for the firmware to report that slot i's procedure
 * returned; 0 when it has. */
int er_mp_helper_join(void *ctx, unsigned i, uint64_t timeout_us);
/* The firmware's number of the CPU that slot i runs on (for messages). */
uint64_t er_mp_helper_cpu(unsigned i);
/* Monotonic microseconds (the calibrated TSC of efi/timer.c). */
uint64_t er_mp_now_us(void *ctx);
/* Spin-wait hint. */
void er_mp_relax(void *ctx);

#endif
