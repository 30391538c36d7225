// SPDX-License-Identifier: GPL-2.0-or-later
/* The parallel engine's CPU operations on EFI MP services (efi/acpi.c's er_mp_start /
 * er_mp_wait) and the TSC clock. The firmware calls an EFIAPI procedure; the engine's
 * helper is a plain C function: ap_entry() bridges the two from a slot in static
 * storage, which a late CPU may still read. */
#include "efi/efi.h"
#include "efi/mp.h"

struct slot {
	void (*fn)(void *arg);
	void *arg;
	struct er_mp_job job;
	BOOLEAN busy;     /* started and not yet confirmed back by the firmware */
};

static struct slot slots[ER_MP_HELPERS];

static void EFIAPI ap_entry(void *p)
{
	struct slot *s = p;
	s->fn(s->arg);
}

unsigned er_mp_helpers_available(void)
{
	UINTN cpus = er_cpu_count();
	return cpus <= 1 ? 0 : cpus - 1 > ER_MP_HELPERS ? ER_MP_HELPERS : (unsigned)(cpus - 1);
}

int er_mp_helper_start(void *ctx, unsigned i, void (*fn)(void *arg), void *arg)
{
	(void)ctx;
	if (i >= ER_MP_HELPERS || slots[i].busy)
		return -1;
	struct slot *s = &slots[i];
	s->fn = fn;
	s->arg = arg;
	/* StartupThisAP is a firmware call: the slot is written before the AP can read it */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (EFI_ERROR(er_mp_start(ap_entry, s, &s->job)))
		return -1;
	s->busy = TRUE;
	return 0;
}

int er_mp_helper_join(void *ctx, unsigned i, uint64_t timeout_us)
{
	(void)ctx;
	if (i >= ER_MP_HELPERS || !slots[i].busy)
		return -1;
	UINTN ms = (UINTN)((timeout_us + 999) / 1000);
	if (EFI_ERROR(er_mp_wait(&slots[i].job, ms))) {
		log_warn(L"helper CPU %ld: the firmware did not report it back within %ld ms\n",
			 (UINT64)slots[i].job.cpu, (UINT64)ms);
		return -1;    /* stays busy: never reused */
	}
	slots[i].busy = FALSE;
	return 0;
}

uint64_t er_mp_helper_cpu(unsigned i)
{
	return i < ER_MP_HELPERS ? (uint64_t)slots[i].job.cpu : 0;
}

uint64_t er_mp_now_us(void *ctx)
{
	(void)ctx;
	return er_time_us();
}

void er_mp_relax(void *ctx)
{
	(void)ctx;
	__asm__ __volatile__("pause" ::: "memory");
}
