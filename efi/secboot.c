// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation, the firmware calls (efi/secboot.h). */
#include "efi/secboot.h"
#include "crypto/wipe.h"

/* be983519-3afd-433d-90fb-7a58c1b94317: the key protocol (contract v2) */
static EFI_GUID key_protocol_guid = { 0xbe983519, 0x3afd, 0x433d, { 0x90, 0xfb, 0x7a, 0x58, 0xc1, 0xb9, 0x43, 0x17 } };

BOOLEAN er_secure_boot_on(void)
{
	UINT8 v = 0;
	UINTN n = sizeof(v);
	UINT32 attr = 0;
	EFI_GUID global = EFI_GLOBAL_VARIABLE;
	EFI_STATUS err = RT->GetVariable(L"SecureBoot", &global, &attr, &n, &v);
	return !EFI_ERROR(err) && n == 1 && v == 1;
}

EFI_STATUS er_keyvar_read(UINT8 key[ER_KEYVAR_LEN], UINT32 *attr)
{
	UINT8 buf[64];
	UINTN n = sizeof(buf);
	EFI_STATUS err;

	*attr = 0;
	err = RT->GetVariable(ER_KEY_VAR, (EFI_GUID *)&er_vendor_guid, attr, &n, buf);
	if (err == EFI_SUCCESS && n == ER_KEYVAR_LEN) {
		er_memcpy(key, buf, ER_KEYVAR_LEN);
		er_wipe(buf, sizeof(buf));
		return EFI_SUCCESS;
	}
	er_wipe(buf, sizeof(buf));
	if (err == EFI_SUCCESS || err == EFI_BUFFER_TOO_SMALL)
		return EFI_BAD_BUFFER_SIZE;
	if (err == EFI_NOT_FOUND)
		return err;
	return log_error_status(err, L"Secure Boot: cannot read %s", ER_KEY_VAR);
}

EFI_STATUS er_keyvar_write(const UINT8 key[ER_KEYVAR_LEN])
{
	return er_set_variable(ER_KEY_VAR, &er_vendor_guid, ER_VAR_NV_BS, key, ER_KEYVAR_LEN);
}

EFI_STATUS er_keyvar_delete(UINT32 attr)
{
	return er_set_variable(ER_KEY_VAR, &er_vendor_guid, attr ? attr : ER_VAR_NV_BS, NULL, 0);
}

void er_keyvar_scrub(void)
{
	/* 124 characters + NUL (250 bytes): more than a key variable's name (52 bytes at most)
	 * and its 32 bytes of data, which follow the name in that buffer */
	static const CHAR16 scrub[] = L"EfiresumeScrubEfiresumeScrubEfiresumeScrubEfiresumeScrubEfiresumeScrub"
				      L"EfiresumeScrubEfiresumeScrubEfiresumeScrubEfiresumeScr";
	/* absent: EFI_NOT_FOUND, nothing written to the flash */
	RT->SetVariable((CHAR16 *)scrub, (EFI_GUID *)&er_vendor_guid, ER_VAR_NV_BS, 0, NULL);
}

BOOLEAN er_keyvar_v1_delete(void)
{
	UINT8 buf[64];
	UINTN n = sizeof(buf);
	UINT32 attr = 0;
	EFI_STATUS err = RT->GetVariable(ER_KEY_VAR_V1, (EFI_GUID *)&er_vendor_guid, &attr, &n, buf);
	er_wipe(buf, sizeof(buf));
	if (err == EFI_NOT_FOUND)
		return FALSE;
	return !EFI_ERROR(er_set_variable(ER_KEY_VAR_V1, &er_vendor_guid, attr ? attr : ER_VAR_NV_BS, NULL, 0));
}

EFI_STATUS er_keyvar3_read(UINT8 *buf, UINTN cap, UINTN *n, UINT32 *attr)
{
	EFI_STATUS err;

	*attr = 0;
	*n = cap;
	err = RT->GetVariable(ER_KEY_VAR_V3, (EFI_GUID *)&er_vendor_guid, attr, n, buf);
	if (err == EFI_SUCCESS || err == EFI_NOT_FOUND)
		return err;
	*n = 0;
	if (err == EFI_BUFFER_TOO_SMALL)
		return EFI_BAD_BUFFER_SIZE;
	return log_error_status(err, L"Secure Boot: cannot read %s", ER_KEY_VAR_V3);
}

EFI_STATUS er_keyvar3_write(const UINT8 *rec, UINTN n)
{
	return er_set_variable(ER_KEY_VAR_V3, &er_vendor_guid, ER_VAR_NV_BS, rec, n);
}

EFI_STATUS er_keyvar3_delete(UINT32 attr)
{
	return er_set_variable(ER_KEY_VAR_V3, &er_vendor_guid, attr ? attr : ER_VAR_NV_BS, NULL, 0);
}

void er_keystore_note(const char *which)
{
	/* volatile: RAM only, gone at the next reset */
	RT->SetVariable(ER_KEY_STORE_VAR, (EFI_GUID *)&er_vendor_guid,
			EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS, er_strnlen(which, 8),
			(void *)which);
}

/* ---- the cap */
#define EV_EFI_ACTION 0x80000007u

/* EFI_TCG2_EVENT: packed (edk2 #pragma pack(1)) */
struct tcg2_event {
	UINT32 Size;
	UINT32 HeaderSize;           /* sizeof(EFI_TCG2_EVENT_HEADER): 14 */
	UINT16 HeaderVersion;        /* 1 */
	UINT32 PCRIndex;
	UINT32 EventType;
	UINT8 Event[sizeof(ER_KEYTPM_CAP) - 1];
} __attribute__((packed));
_Static_assert(sizeof(struct tcg2_event) == 4 + 14 + sizeof(ER_KEYTPM_CAP) - 1, "EFI_TCG2_EVENT is packed");

EFI_STATUS er_keytpm_cap(struct er_tcg2 *t)
{
	static const char action[] = ER_KEYTPM_CAP;
	ER_EFI_TCG2_PROTOCOL *p = t->proto;
	struct tcg2_event ev;
	EFI_STATUS err;

	if (!p)
		return EFI_NOT_FOUND;
	ev.Size = sizeof(ev);
	ev.HeaderSize = 14;
	ev.HeaderVersion = 1;
	ev.PCRIndex = 7;
	ev.EventType = EV_EFI_ACTION;
	er_memcpy(ev.Event, action, sizeof(ev.Event));
	err = p->HashLogExtendEvent(p, 0, (EFI_PHYSICAL_ADDRESS)(UINTN)action, sizeof(action) - 1, &ev);
	if (EFI_ERROR(err))
		return log_error_status(err, L"Secure Boot: cannot extend PCR 7 after sealing the hibernation key (HashLogExtendEvent)");
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI take_key(struct er_key_protocol_if *self, void *out)
{
	struct er_keyproto *p = (struct er_keyproto *)self;
	if (!self || !out)
		return EFI_INVALID_PARAMETER;
	return p->take(p->ctx, out);
}

static VOID EFIAPI on_exit_boot_services(EFI_EVENT event, VOID *ctx)
{
	struct er_keyproto *p = ctx;
	(void)event;
	p->forget(p->ctx);
}

EFI_STATUS er_keyproto_install(struct er_keyproto *p, EFI_STATUS (*take)(void *, void *), void (*forget)(void *),
			       void *ctx)
{
	EFI_STATUS err;

	er_memset(p, 0, sizeof(*p));
	p->iface.revision = 2;
	p->iface.take_key = take_key;
	p->take = take;
	p->forget = forget;
	p->ctx = ctx;
	err = BS->CreateEvent(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_NOTIFY, on_exit_boot_services, p, &p->exit_bs);
	if (EFI_ERROR(err))
		return log_error_status(err, L"Secure Boot: cannot create the ExitBootServices event (the key is not offered)");
	err = BS->InstallProtocolInterface(&p->handle, &key_protocol_guid, EFI_NATIVE_INTERFACE, &p->iface);
	if (EFI_ERROR(err)) {
		BS->CloseEvent(p->exit_bs);
		p->exit_bs = NULL;
		return log_error_status(err, L"Secure Boot: cannot install the key protocol (the key is not offered)");
	}
	p->installed = TRUE;
	return EFI_SUCCESS;
}

void er_keyproto_uninstall(struct er_keyproto *p)
{
	if (!p->installed)
		return;
	EFI_STATUS err = BS->UninstallProtocolInterface(p->handle, &key_protocol_guid, &p->iface);
	if (EFI_ERROR(err))
		log_error_status(err, L"Secure Boot: cannot uninstall the key protocol");
	BS->CloseEvent(p->exit_bs);
	p->exit_bs = NULL;
	p->installed = FALSE;
}
