// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation, the key holder (efi/secboot.h; contract v1 in the notes). */
#include "efi/secboot.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

struct er_secboot er_sb;

/* f81507ad-4bd7-47e1-92c8-5dbd29e50049: the key table (contract v1) */
static EFI_GUID key_table_guid = { 0xf81507ad, 0x4bd7, 0x47e1, { 0x92, 0xc8, 0x5d, 0xbd, 0x29, 0xe5, 0x00, 0x49 } };

static BOOLEAN secure_boot_on(void)
{
	UINT8 v = 0;
	UINTN n = sizeof(v);
	UINT32 attr = 0;
	EFI_GUID global = EFI_GLOBAL_VARIABLE;
	EFI_STATUS err = RT->GetVariable(L"SecureBoot", &global, &attr, &n, &v);
	return !EFI_ERROR(err) && n == 1 && v == 1;
}

/* K from EFI_RNG_PROTOCOL mixed with RDRAND (SHA-256 of both); none without the former */
static EFI_STATUS make_key(UINT8 key[ER_KEY_LEN])
{
	UINT8 fw[ER_KEY_LEN], cpu[ER_KEY_LEN];
	EFI_STATUS err = er_rng_firmware(fw, sizeof(fw));
	if (err == EFI_NOT_FOUND)
		return log_error_status(err, L"Secure Boot: the firmware has no EFI_RNG_PROTOCOL: no hibernation key is made (hibernation stays off)");
	if (EFI_ERROR(err))
		return err;
	BOOLEAN have_cpu = er_rng_cpu(cpu, sizeof(cpu));
	er_key_mix(fw, sizeof(fw), have_cpu ? cpu : NULL, have_cpu ? sizeof(cpu) : 0, key);
	er_wipe(fw, sizeof(fw));
	er_wipe(cpu, sizeof(cpu));
	log_info(L"Secure Boot: new hibernation key drawn from EFI_RNG_PROTOCOL%s\n", have_cpu ? L" and RDRAND" : L" (no RDRAND)");
	return EFI_SUCCESS;
}

static EFI_STATUS store_key(const UINT8 key[ER_KEY_LEN])
{
	return er_set_variable(ER_KEY_VAR, &er_vendor_guid, ER_VAR_NV_BS, key, ER_KEY_LEN);
}

static void set_key(const UINT8 key[ER_KEY_LEN])
{
	er_memcpy(er_sb.key, key, ER_KEY_LEN);
	er_key_id(er_sb.key, er_sb.key_id);
	er_sb.have_key = TRUE;
}

static void log_key(const CHAR16 *what)
{
	const UINT8 *i = er_sb.key_id;
	char id[17];
	er_snprintf(id, sizeof(id), "%02x%02x%02x%02x%02x%02x%02x%02x", i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
	log_info(L"Secure Boot: hibernation key %s (key id %a)\n", what, id);
}

void er_secboot_start(void)
{
	UINT8 buf[64], key[ER_KEY_LEN];
	UINTN n = sizeof(buf);
	UINT32 attr = 0;
	EFI_STATUS err;

	er_memset(&er_sb, 0, sizeof(er_sb));
	er_sb.on = secure_boot_on();
	if (!er_sb.on)
		return;
	log_info(L"Secure Boot is on: images must carry a valid tag (contract v1)\n");
	err = RT->GetVariable(ER_KEY_VAR, (EFI_GUID *)&er_vendor_guid, &attr, &n, buf);
	if (err == EFI_SUCCESS && attr == ER_VAR_NV_BS && n == ER_KEY_LEN) {
		set_key(buf);
		er_wipe(buf, sizeof(buf));
		log_key(L"read");
		return;
	}
	if (err == EFI_SUCCESS || err == EFI_BUFFER_TOO_SMALL) {
		/* anything else may have been written or read by someone else: never used */
		log_warn(L"Secure Boot: %s has attributes 0x%x and %ld bytes (not NV|BS, 32): treated as compromised, deleted and replaced\n",
			 ER_KEY_VAR, (UINTN)attr, (UINT64)n);
		er_wipe(buf, sizeof(buf));
		if (EFI_ERROR(er_set_variable(ER_KEY_VAR, &er_vendor_guid, attr, NULL, 0)))
			return;
	} else if (err != EFI_NOT_FOUND) {
		log_error_status(err, L"Secure Boot: cannot read %s", ER_KEY_VAR);
		return;
	}
	if (EFI_ERROR(make_key(key)))
		return;
	if (!EFI_ERROR(store_key(key))) {
		set_key(key);
		log_key(L"made and stored in " ER_KEY_VAR L" (NV|BS)");
	}
	er_wipe(key, sizeof(key));
}

void er_secboot_handover(void)
{
	struct er_key_table *t = NULL;
	EFI_STATUS err;

	if (!er_sb.on || !er_sb.have_key)
		goto out;
	err = BS->AllocatePool(EfiACPIReclaimMemory, sizeof(*t), (void **)&t);
	if (EFI_ERROR(err)) {
		log_error_status(err, L"Secure Boot: no memory for the key table");
		goto out;
	}
	er_key_table_fill(t, er_sb.key);
	err = BS->InstallConfigurationTable(&key_table_guid, t);
	if (EFI_ERROR(err)) {
		er_wipe(t, sizeof(*t));
		BS->FreePool(t);
		log_error_status(err, L"Secure Boot: cannot install the key table");
		goto out;
	}
	log_info(L"Secure Boot: key table f81507ad-4bd7-47e1-92c8-5dbd29e50049 installed for the next kernel\n");
out:
	er_wipe(&er_sb, sizeof(er_sb));
}

BOOLEAN er_secboot_rotate(struct er_key_table *table)
{
	UINT8 key[ER_KEY_LEN];
	BOOLEAN ok = FALSE;

	/* kept until the commit: if it does not happen, the image is kept and must still
	 * verify (er_secboot_unrotate) */
	er_sb.have_prev = er_sb.have_key;
	if (er_sb.have_key)
		er_memcpy(er_sb.prev, er_sb.key, ER_KEY_LEN);
	if (!EFI_ERROR(make_key(key)) && !EFI_ERROR(store_key(key))) {
		set_key(key);
		er_key_table_fill(table, key);
		log_key(L"rotated");
		ok = TRUE;
	} else {
		/* the image's key must not verify anything again */
		er_set_variable(ER_KEY_VAR, &er_vendor_guid, ER_VAR_NV_BS, NULL, 0);
		er_wipe(&er_sb.key, sizeof(er_sb.key));
		er_sb.have_key = FALSE;
		log_warn(L"Secure Boot: no new key: the old one is deleted; the resumed kernel cannot hibernate until the next boot through efiresume\n");
	}
	er_wipe(key, sizeof(key));
	return ok;
}

void er_secboot_unrotate(void)
{
	if (!er_sb.have_prev)
		return;
	if (EFI_ERROR(store_key(er_sb.prev))) {
		log_warn(L"Secure Boot: the hibernation key could not be put back: the kept image cannot be resumed under Secure Boot\n");
	} else {
		set_key(er_sb.prev);
		log_key(L"put back: the image was not resumed, it still verifies");
	}
	er_wipe(er_sb.prev, sizeof(er_sb.prev));
	er_sb.have_prev = FALSE;
}

void er_secboot_forget(void)
{
	er_wipe(&er_sb, sizeof(er_sb));
}
