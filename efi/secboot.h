// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation, the firmware calls only (efi/secboot.c, efi/rng.c): the
 * SecureBoot variable, the key variable, random numbers, and the key protocol the patched
 * kernel's EFI stub pulls the key through (contract v2, kernel-patch/6.12/README). What is
 * done with them (make, store, rotate, hand over, forget) is loader/hibkey.c. */
#ifndef EFIRESUME_EFI_SECBOOT_H
#define EFIRESUME_EFI_SECBOOT_H

#include "efi/efi.h"

/* The key of contract v2. A new name: a v1 efiresume (which pushed its key to whatever it
 * started) still signed and on the ESP reads only its own v1 variable, never this one. */
#define ER_KEY_VAR L"EfiresumeHibernationKeyV2"
#define ER_KEY_VAR_V1 L"EfiresumeHibernationKey"
#define ER_VAR_NV_BS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS)
#define ER_KEYVAR_LEN 32u

/* ---- efi/rng.c */
/* n bytes from EFI_RNG_PROTOCOL (its default algorithm); EFI_NOT_FOUND (quietly) when
 * the firmware has none. */
EFI_STATUS er_rng_firmware(UINT8 *buf, UINTN n);
/* n bytes from the CPU's RDRAND; FALSE when the CPU has none or it keeps failing. */
BOOLEAN er_rng_cpu(UINT8 *buf, UINTN n);

/* ---- efi/secboot.c */
/* SecureBoot == 1 */
BOOLEAN er_secure_boot_on(void);
/* EfiresumeHibernationKeyV2: EFI_SUCCESS with exactly 32 bytes in key and its attributes in
 * *attr; EFI_NOT_FOUND; EFI_BAD_BUFFER_SIZE when it exists with another size (*attr set,
 * nothing copied); other errors logged. buf is wiped on every path but success. */
EFI_STATUS er_keyvar_read(UINT8 key[ER_KEYVAR_LEN], UINT32 *attr);
/* Written NV|BS (replacing whatever is there). */
EFI_STATUS er_keyvar_write(const UINT8 key[ER_KEYVAR_LEN]);
/* Deleted (attr: the attributes it has; edk2 wants them to match). Absent is success. */
EFI_STATUS er_keyvar_delete(UINT32 attr);
/* The v1 key variable deleted when it is there: TRUE when it was. */
BOOLEAN er_keyvar_v1_delete(void);
/* After the last Get/SetVariable that carried a key: edk2's SMM variable driver passes the
 * name and the data of every variable call through one buffer of EfiRuntimeServicesData,
 * which the OS keeps and efiresume's wipes do not reach; a SetVariable that deletes an absent
 * variable whose name is longer than any key call's name and data overwrites that span. */
void er_keyvar_scrub(void);

/* The key protocol (EFIRESUME_KEY_PROTOCOL_GUID be983519-3afd-433d-90fb-7a58c1b94317), as
 * the firmware and the kernel's EFI stub see it. */
struct er_key_protocol_if {
	UINT32 revision;        /* 2 */
	UINT32 reserved;
	EFI_STATUS(EFIAPI *take_key)(struct er_key_protocol_if *self, void *out);
};
/* The installed protocol, embedded in its owner's state (loader/hibkey.c): take() fills
 * the consumer's 64-byte table, forget() wipes the owner's copies; forget() is also called
 * when ExitBootServices is signalled (no firmware call may be made from it). */
struct er_keyproto {
	struct er_key_protocol_if iface;    /* first: the interface pointer is the object */
	EFI_STATUS (*take)(void *ctx, void *out);
	void (*forget)(void *ctx);
	void *ctx;
	EFI_HANDLE handle;
	EFI_EVENT exit_bs;
	BOOLEAN installed;
};
/* Installs the protocol on a new handle and the ExitBootServices event. */
EFI_STATUS er_keyproto_install(struct er_keyproto *p, EFI_STATUS (*take)(void *, void *), void (*forget)(void *),
			       void *ctx);
/* Removes both (a no-op when not installed). */
void er_keyproto_uninstall(struct er_keyproto *p);

#endif
