// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: the key policy (loader/hibkey.h). */
#include "loader/hibkey.h"
#include "loader/hibkey_tpm.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

/* K from EFI_RNG_PROTOCOL mixed with RDRAND (SHA-256 of both); none without the former */
static EFI_STATUS make_key(UINT8 key[ER_KEY_LEN], bool *with_cpu)
{
	UINT8 fw[ER_KEY_LEN], cpu[ER_KEY_LEN];
	EFI_STATUS err = er_rng_firmware(fw, sizeof(fw));
	if (err == EFI_NOT_FOUND)
		return log_error_status(err, L"Secure Boot: the firmware has no EFI_RNG_PROTOCOL: no hibernation key is made");
	if (EFI_ERROR(err))
		return err;
	bool have_cpu = er_rng_cpu(cpu, sizeof(cpu));
	*with_cpu = have_cpu;
	er_key_mix(fw, sizeof(fw), have_cpu ? cpu : NULL, have_cpu ? sizeof(cpu) : 0, key);
	er_wipe(fw, sizeof(fw));
	er_wipe(cpu, sizeof(cpu));
	return EFI_SUCCESS;
}

/* The TPM side of one boot: static (its command buffers are about 9 KiB), wiped by
 * er_htpm_end; the record read or written, and why a sealed key was not unsealed. */
static struct er_hibkey_tpm htpm;
static UINT8 rec[ER_SEALREC_MAX];
static char sealed_why[240];

/* The previous key from the sealed record; false with k->no_prev set. */
static bool prev_from_tpm(struct er_hibkey *k, bool tpm, UINTN rec_len)
{
	enum er_htpm_status s;

	if (!tpm) {
		k->no_prev = "the previous key is sealed to the TPM, which cannot be used in this boot";
		return false;
	}
	s = er_htpm_unseal(&htpm, rec, rec_len, k->prev, k->prev_id);
	if (s == ER_HTPM_OK) {
		log_info(L"Secure Boot: the previous key unsealed by the TPM (PCR 7 as when it was sealed)\n");
		return true;
	}
	er_snprintf(sealed_why, sizeof(sealed_why), "the previous key was not unsealed: %s", htpm.why);
	k->no_prev = sealed_why;
	log_warn(L"Secure Boot: %a\n", sealed_why);
	return false;
}

/* This boot's key sealed into V3; false when the TPM could not (then V2 is used) */
static bool store_sealed(const UINT8 key[ER_KEY_LEN])
{
	size_t n = 0;
	enum er_htpm_status s = er_htpm_seal(&htpm, key, rec, sizeof(rec), &n);

	if (s != ER_HTPM_OK) {
		log_warn(L"Secure Boot: the new key cannot be sealed to the TPM (%a): it is stored in plain in %s\n",
			 htpm.why, ER_KEY_VAR);
		return false;
	}
	if (EFI_ERROR(er_keyvar3_write(rec, n))) {
		log_warn(L"Secure Boot: %s cannot be written: the key is stored in plain in %s\n", ER_KEY_VAR_V3, ER_KEY_VAR);
		return false;
	}
	return true;
}

void er_hibkey_open(struct er_hibkey *k)
{
	UINT8 key[ER_KEY_LEN];
	UINT32 attr = 0, attr3 = 0;
	UINTN rec_len = 0;
	bool with_cpu = false, tpm = false, sealed = false;
	struct er_tcg2 kt;
	EFI_STATUS err, err3;

	er_memset(k, 0, sizeof(*k));
	er_memset(&kt, 0, sizeof(kt));
	k->store = "none";
	k->on = er_secure_boot_on();
	/* the key of contract v1 verifies nothing now: no copy of it is kept in the flash */
	if (er_keyvar_v1_delete())
		log_info(L"Secure Boot: the key of an older efiresume (%s, contract v1) deleted\n", ER_KEY_VAR_V1);
	k->no_prev = "efiresume holds no hibernation key";
	err = er_keyvar_read(key, &attr);
	err3 = er_keyvar3_read(rec, sizeof(rec), &rec_len, &attr3);
	if (!k->on) {
		/* whatever may read it now (Secure Boot off) must not be able to forge or read an image */
		if (err != EFI_NOT_FOUND) {
			er_wipe(key, sizeof(key));
			if (!EFI_ERROR(er_keyvar_delete(attr)))
				log_info(L"Secure Boot is off: %s deleted (an image written with it can no longer be resumed)\n",
					 ER_KEY_VAR);
			er_keyvar_scrub();
		}
		/* useless without Secure Boot's PCR 7, but no image of it can be resumed either */
		if (err3 != EFI_NOT_FOUND && !EFI_ERROR(er_keyvar3_delete(attr3)))
			log_info(L"Secure Boot is off: %s deleted\n", ER_KEY_VAR_V3);
		er_keystore_note(k->store);
		return;
	}
	log_info(L"Secure Boot is on: images must be encrypted and authenticated with this machine's key (contract v2)\n");
	/* the TPM, when there is one: it answers, has a SHA-256 PCR 7 and a storage key */
	if (!EFI_ERROR(er_tcg2_open(&kt))) {
		tpm = er_htpm_begin(&htpm, &kt.io) == ER_HTPM_OK;
		if (!tpm)
			log_warn(L"Secure Boot: the TPM cannot hold the hibernation key (%a): it is kept in plain, as without a TPM\n",
				 htpm.why);
	}
	/* the previous key: sealed (V3) first; else plain (V2: written by a boot without a usable
	 * TPM, or by an efiresume before V3) */
	if (err3 == EFI_SUCCESS && attr3 == ER_VAR_NV_BS) {
		k->have_prev = prev_from_tpm(k, tpm, rec_len);
	} else if (err3 == EFI_SUCCESS || err3 == EFI_BAD_BUFFER_SIZE) {
		log_warn(L"Secure Boot: %s has attributes 0x%x or is too large (not NV|BS): treated as compromised and deleted\n",
			 ER_KEY_VAR_V3, (UINTN)attr3);
		er_keyvar3_delete(attr3);
		k->no_prev = "the sealed key variable was not as efiresume writes it (deleted)";
	}
	if (k->have_prev) {
		/* nothing to take from V2 */
	} else if (err == EFI_SUCCESS && attr == ER_VAR_NV_BS) {
		er_memcpy(k->prev, key, ER_KEY_LEN);
		er_key_id(k->prev, k->prev_id);
		k->have_prev = true;
	} else if (err == EFI_SUCCESS || err == EFI_BAD_BUFFER_SIZE) {
		/* anything else may have been written or read by someone else: never used */
		log_warn(L"Secure Boot: %s has attributes 0x%x or a wrong size (not NV|BS, 32 bytes): treated as compromised and replaced\n",
			 ER_KEY_VAR, (UINTN)attr);
		er_keyvar_delete(attr);
		k->no_prev = "the key variable was not as efiresume writes it (deleted)";
	} else if (err == EFI_NOT_FOUND && err3 == EFI_NOT_FOUND) {
		k->no_prev = "no key was stored by the previous boot (no hibernation can have been written with one)";
	}
	er_wipe(key, sizeof(key));

	/* this boot's key replaces the previous one before anything of this boot can use it:
	 * an image not resumed now can never be resumed */
	if (EFI_ERROR(make_key(key, &with_cpu))) {
		k->no_prev = "no new key could be made (no EFI_RNG_PROTOCOL): the previous one is not used";
	} else if (tpm && (sealed = store_sealed(key))) {
		/* the plain copy of the previous key goes (absent: nothing written) */
		if (err != EFI_NOT_FOUND)
			er_keyvar_delete(attr == ER_VAR_NV_BS ? attr : 0);
		k->store = "V3";
	} else if (EFI_ERROR(er_keyvar_write(key))) {
		k->no_prev = "the new key could not be stored: the previous one is not used";
	} else {
		k->store = "V2";
		/* a sealed key of an earlier boot must not be taken for this one's */
		if (err3 != EFI_NOT_FOUND)
			er_keyvar3_delete(attr3 == ER_VAR_NV_BS ? attr3 : 0);
	}
	if (k->store[0] == 'V') {
		er_memcpy(k->next, key, ER_KEY_LEN);
		k->have_next = true;
		log_info(L"Secure Boot: a new hibernation key for this boot (EFI_RNG_PROTOCOL%s) is %s %s (NV|BS)%s\n",
			 with_cpu ? L" and RDRAND" : L", no RDRAND",
			 sealed ? L"sealed to the TPM (PCR 7) in" : L"stored in", sealed ? ER_KEY_VAR_V3 : ER_KEY_VAR,
			 k->have_prev ? L"; the previous one verifies this boot's image only" : L"");
	}
	er_wipe(key, sizeof(key));
	er_htpm_end(&htpm);
	er_wipe(rec, sizeof(rec));
	/* the cap: nothing that runs later in this boot (a fallback, a shell verified by an
	 * authority already measured) finds PCR 7 at the value the key was sealed to. A constant
	 * event: PCR 7 stays predictable (docs/secure-boot.md) */
	if (kt.proto && !EFI_ERROR(er_keytpm_cap(&kt)))
		log_info(L"Secure Boot: PCR 7 extended with \"%a\" (no later program of this boot can unseal the key)\n",
			 ER_KEYTPM_CAP);
	er_tcg2_close(&kt);
	/* the firmware's own copy of the last key it carried (its variable buffer) */
	er_keyvar_scrub();
	if (!k->have_next) {
		/* the previous key would stay valid in the variable: an image it verifies could be
		 * resumed in a later boot, over whatever this boot writes */
		if (k->have_prev && (EFI_ERROR(er_keyvar_delete(ER_VAR_NV_BS)) || EFI_ERROR(er_keyvar3_delete(ER_VAR_NV_BS))))
			log_warn(L"Secure Boot: the previous key could not be deleted either\n");
		er_wipe(k->prev, sizeof(k->prev));
		k->have_prev = false;
		log_warn(L"Secure Boot: no hibernation key this boot: no image is resumed and this boot's kernel cannot hibernate\n");
	}
	er_keystore_note(k->store);
}

const UINT8 *er_hibkey_image_key(const struct er_hibkey *k, const UINT8 **id, const char **why)
{
	if (!k->have_prev) {
		*why = k->no_prev;
		return NULL;
	}
	*id = k->prev_id;
	return k->prev;
}

void er_hibkey_drop_prev(struct er_hibkey *k)
{
	er_wipe(k->prev, sizeof(k->prev));
	k->have_prev = false;
	k->no_prev = "the previous key was used already";
}

bool er_hibkey_page_table(const struct er_hibkey *k, struct er_key_table *t)
{
	if (!k->have_next)
		return false;
	er_key_table_fill(t, k->next);
	return true;
}

void er_hibkey_forget(struct er_hibkey *k)
{
	er_wipe(k->prev, sizeof(k->prev));
	er_wipe(k->next, sizeof(k->next));
	k->have_prev = k->have_next = false;
}

/* the protocol's take_key: once, then the copy is gone */
static EFI_STATUS take(void *ctx, void *out)
{
	struct er_hibkey *k = ctx;
	if (!k->have_next)
		return EFI_NOT_FOUND;
	er_key_table_fill(out, k->next);
	er_hibkey_forget(k);
	k->taken = true;
	return EFI_SUCCESS;
}

static void forget(void *ctx)
{
	er_hibkey_forget(ctx);
}

void er_hibkey_offer(struct er_hibkey *k)
{
	er_hibkey_drop_prev(k);
	if (!k->on || !k->have_next)
		return;
	if (EFI_ERROR(er_keyproto_install(&k->proto, take, forget, k))) {
		er_hibkey_forget(k);
		return;
	}
	log_info(L"Secure Boot: this boot's key is offered to the kernel through the key protocol (taken once, wiped at ExitBootServices)\n");
}

void er_hibkey_close(struct er_hibkey *k)
{
	bool offered = k->proto.installed;
	er_hibkey_forget(k);
	er_keyproto_uninstall(&k->proto);
	if (offered)
		log_info(L"Secure Boot: the key protocol is removed%s\n",
			 k->taken ? L" (the key was taken)" : L"; the key was not taken and is wiped");
}
