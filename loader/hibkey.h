// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: the key policy (contract v2, kernel-patch/6.12/README).
 *
 * One object per boot, owned by er_loader_main (opened first, closed last):
 *   open     under Secure Boot: the previous boot's key, unsealed by the TPM from
 *            EfiresumeHibernationKeyV3 (loader/hibkey_tpm.h: PCR 7 as at efiresume's start)
 *            or read from EfiresumeHibernationKeyV2 (plain: no usable TPM, or an older
 *            efiresume wrote it); it verifies and decrypts this boot's image, nothing else. A
 *            fresh key made and stored in its place before anything can use it: sealed to
 *            the TPM in V3 (V2 deleted) when the TPM can, else in V2 (V3 deleted); then PCR 7
 *            is capped (extended with a constant event) so that nothing later in this boot
 *            can unseal either. With Secure Boot off, a key variable found is deleted
 *   image    the previous key and its id, for the resume (none when the rotation failed:
 *            the resume is refused, the image kept)
 *   page     the fresh key as a key table, for the resumed kernel's key page
 *   offer    the fresh key offered through the key protocol to whoever asks before
 *            ExitBootServices (the patched kernel's EFI stub), taken once
 *   forget   every copy in efiresume's memory wiped (ExitBootServices, the jump)
 *   close    forget, and the protocol removed (returning to the firmware)
 * The firmware calls are efi/secboot.c's. */
#ifndef EFIRESUME_LOADER_HIBKEY_H
#define EFIRESUME_LOADER_HIBKEY_H

#include "efi/secboot.h"
#include "loader/auth.h"

struct er_hibkey {
	bool on;                     /* SecureBoot == 1 */
	bool have_prev;              /* prev: the key the image of this boot was written with */
	UINT8 prev[ER_KEY_LEN];
	UINT8 prev_id[ER_KEY_ID_LEN];
	bool have_next;              /* next: this boot's key, stored in the variable */
	UINT8 next[ER_KEY_LEN];
	const char *no_prev;            /* why there is no previous key (for the refusal line) */
	bool taken;                  /* the protocol handed next out */
	const char *store;           /* where next is: "V3" (sealed to the TPM), "V2" (plain), "none" */
	struct er_keyproto proto;
};

void er_hibkey_open(struct er_hibkey *k);
/* The previous boot's key and its id; NULL (with *why) when there is none to use. */
const UINT8 *er_hibkey_image_key(const struct er_hibkey *k, const UINT8 **id, const char **why);
/* The image of this boot was verified and is about to be committed, or was refused: the
 * previous key is wiped (nothing else may be verified with it). */
void er_hibkey_drop_prev(struct er_hibkey *k);
/* The key table of this boot's key, for the image kernel's key page; false: none. */
bool er_hibkey_page_table(const struct er_hibkey *k, struct er_key_table *t);
/* Before the normal boot program: this boot's key offered through the key protocol. */
void er_hibkey_offer(struct er_hibkey *k);
/* Every copy in memory wiped (no firmware call: safe after ExitBootServices). */
void er_hibkey_forget(struct er_hibkey *k);
/* forget, and the protocol and its event removed. */
void er_hibkey_close(struct er_hibkey *k);

#endif
