// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation, the firmware side (efi/secboot.c, efi/rng.c): the key holder
 * of the contract v1 (notes "Secure Boot hibernation: the contract between efiresume and
 * the patched kernel"): the EfiresumeHibernationKey variable (NV|BS, 32 bytes), the key
 * table handed to the next kernel, the random numbers. */
#ifndef EFIRESUME_EFI_SECBOOT_H
#define EFIRESUME_EFI_SECBOOT_H

#include "efi/efi.h"
#include "loader/auth.h"

#define ER_KEY_VAR L"EfiresumeHibernationKey"
#define ER_VAR_NV_BS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS)

/* ---- efi/rng.c */
/* n bytes from EFI_RNG_PROTOCOL (its default algorithm); EFI_NOT_FOUND (quietly) when
 * the firmware has none. */
EFI_STATUS er_rng_firmware(UINT8 *buf, UINTN n);
/* n bytes from the CPU's RDRAND; FALSE when the CPU has none or it keeps failing. */
BOOLEAN er_rng_cpu(UINT8 *buf, UINTN n);

/* ---- efi/secboot.c */
struct er_secboot {
	BOOLEAN on;                 /* SecureBoot == 1 */
	BOOLEAN have_key;           /* key holds K (read or made this boot) */
	UINT8 key[ER_KEY_LEN];
	UINT8 key_id[ER_KEY_ID_LEN];
	BOOLEAN have_prev;          /* prev: the key before er_secboot_rotate, until the commit */
	UINT8 prev[ER_KEY_LEN];
};
/* The one state of this boot (efiresume runs once per boot). */
extern struct er_secboot er_sb;

/* At start: SecureBoot read; under Secure Boot the key read, checked (attributes
 * exactly NV|BS, 32 bytes: otherwise deleted and replaced) or made. One line each. */
void er_secboot_start(void);
/* Before starting the fallback: the key table installed for the next kernel (in
 * EfiACPIReclaimMemory), then every copy of K in efiresume wiped. */
void er_secboot_handover(void);
/* After an image was verified: a new key K' in the variable (so that no image tagged
 * with K is accepted again); *table filled for the resumed kernel's key page. FALSE when
 * no new key could be made or stored (the old one is then deleted). */
BOOLEAN er_secboot_rotate(struct er_key_table *table);
/* The commit did not happen (the image is kept): the key before the rotation is stored
 * again, so that the kept image (tagged with it, and not resumed) still verifies; the
 * next kernel gets it. One line either way. */
void er_secboot_unrotate(void);
/* Just before the jump (after ExitBootServices: memory only): every copy of a key wiped. */
void er_secboot_forget(void);

#endif
