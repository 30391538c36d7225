// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation, the firmware calls only (efi/secboot.c, efi/rng.c): the
 * SecureBoot variable, the key variable, random numbers, and the key protocol the patched
 * kernel's EFI stub pulls the key through (contract v2, kernel-patch/6.12/README). What is
 * done with them (make, store, rotate, hand over, forget) is loader/hibkey.c. */
#ifndef EFIRESUME_EFI_SECBOOT_H
#define EFIRESUME_EFI_SECBOOT_H

#include "efi/efi.h"
#include "efi/tcg2.h"

/* The key of contract v2. A new name: a v1 efiresume (which pushed its key to whatever it
 * started) still signed and on the ESP reads only its own v1 variable, never this one. */
#define ER_KEY_VAR L"EfiresumeHibernationKeyV2"
#define ER_KEY_VAR_V1 L"EfiresumeHibernationKey"
/* The same key sealed to the TPM (loader/hibkey_tpm.h): the sealed-key record of
 * tpm/seal.h, same GUID and attributes (NV|BS). */
#define ER_KEY_VAR_V3 L"EfiresumeHibernationKeyV3"
/* Which of the two holds this boot's key, for efiresume-install status: a volatile BS|RT
 * variable (no flash write; informational only, efiresume never reads it back) holding
 * "V3" (sealed to the TPM), "V2" (plain) or "none". */
#define ER_KEY_STORE_VAR L"EfiresumeKeyStore"
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

/* EfiresumeHibernationKeyV3: EFI_SUCCESS with its n bytes in buf (cap) and its attributes
 * in *attr; EFI_NOT_FOUND; EFI_BAD_BUFFER_SIZE when it is larger than cap (*attr set);
 * other errors logged. */
EFI_STATUS er_keyvar3_read(UINT8 *buf, UINTN cap, UINTN *n, UINT32 *attr);
/* Written NV|BS (replacing whatever is there). */
EFI_STATUS er_keyvar3_write(const UINT8 *rec, UINTN n);
/* Deleted (attr as for er_keyvar_delete). Absent is success. */
EFI_STATUS er_keyvar3_delete(UINT32 attr);
/* ER_KEY_STORE_VAR set to which ("V3", "V2", "none"). */
void er_keystore_note(const char *which);

/* The cap (loader/hibkey.c, after the key is sealed): PCR 7 extended with the constant
 * EV_EFI_ACTION event ER_KEYTPM_CAP (its digest is the hash of the string, without a
 * terminating zero; PC Client PFP 10.4.1), logged in the TCG event log, through the TPM's
 * (er_tcg2_open) HashLogExtendEvent. */
#define ER_KEYTPM_CAP "efiresume: hibernation key sealed"
EFI_STATUS er_keytpm_cap(struct er_tcg2 *t);

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
