// SPDX-License-Identifier: GPL-2.0-or-later
/* Random numbers for the hibernation key: EFI_RNG_PROTOCOL and RDRAND. */
#include "efi/secboot.h"
#include "arch/cpu.h"
#include "crypto/wipe.h"

EFI_STATUS er_rng_firmware(UINT8 *buf, UINTN n)
{
	EFI_GUID guid = EFI_RNG_PROTOCOL_GUID;
	EFI_RNG_PROTOCOL *rng = NULL;
	EFI_STATUS err = BS->LocateProtocol(&guid, NULL, (void **)&rng);
	if (EFI_ERROR(err) || !rng)
		return EFI_NOT_FOUND;
	err = rng->GetRNG(rng, NULL, n, buf);
	if (EFI_ERROR(err)) {
		er_wipe(buf, n);
		return log_error_status(err, L"EFI_RNG_PROTOCOL gave no random bytes");
	}
	return EFI_SUCCESS;
}

static BOOLEAN cpu_has_rdrand(void)
{
	UINT32 a, b, c, d;
	er_cpuid(0, 0, &a, &b, &c, &d);
	if (a < 1)
		return FALSE;
	er_cpuid(1, 0, &a, &b, &c, &d);
	return (c & (1u << 30)) != 0;
}

BOOLEAN er_rng_cpu(UINT8 *buf, UINTN n)
{
	if (!cpu_has_rdrand())
		return FALSE;
	for (UINTN off = 0; off < n;) {
		unsigned long v = 0;
		unsigned char ok = 0;
		for (int tries = 0; tries < 10 && !ok; tries++)
			__asm__ __volatile__("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
		if (!ok) {
			er_wipe(buf, n);
			return FALSE;
		}
		for (UINTN i = 0; i < sizeof(v) && off < n; i++, off++)
			buf[off] = (UINT8)(v >> (8 * i));
		v = 0;
	}
	return TRUE;
}
