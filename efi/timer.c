// SPDX-License-Identifier: GPL-2.0-or-later
/* Microsecond timer: the TSC, calibrated once against the firmware's Stall(). */
#include "efi/efi.h"

static UINT64 tsc0, tsc_per_us;

static UINT64 rdtsc(void)
{
	UINT32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (UINT64)hi << 32 | lo;
}

void er_timer_init(void)
{
	UINT64 a = rdtsc();
	BS->Stall(20000);
	UINT64 b = rdtsc();
	tsc_per_us = (b - a) / 20000;
	if (tsc_per_us == 0)
		tsc_per_us = 1;
	tsc0 = a;
}

UINT64 er_time_us(void)
{
	if (!tsc_per_us)
		return 0;
	return (rdtsc() - tsc0) / tsc_per_us;
}
