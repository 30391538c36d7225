// SPDX-License-Identifier: GPL-2.0-or-later
/* Console input: a key with a timeout. */
#include "efi/efi.h"
#include "crypto/wipe.h"

INT32 er_wait_key(UINTN timeout_s)
{
	EFI_EVENT timer = NULL, events[2];
	EFI_INPUT_KEY key;
	UINTN which = 0;
	EFI_STATUS err;

	if (timeout_s == 0)
		return 0;
	/* drop keys typed before the prompt */
	while (!EFI_ERROR(ST->ConIn->ReadKeyStroke(ST->ConIn, &key)))
		;
	err = BS->CreateEvent(EVT_TIMER, 0, NULL, NULL, &timer);
	if (EFI_ERROR(err))
		return -1;
	err = BS->SetTimer(timer, TimerRelative, (UINT64)timeout_s * 10000000ull);
	if (EFI_ERROR(err)) {
		BS->CloseEvent(timer);
		return -1;
	}
	events[0] = ST->ConIn->WaitForKey;
	events[1] = timer;
	err = BS->WaitForEvent(2, events, &which);
	BS->CloseEvent(timer);
	if (EFI_ERROR(err) || which != 0)
		return 0;
	return er_poll_key();
}

INT32 er_poll_key(void)
{
	EFI_INPUT_KEY key;
	if (EFI_ERROR(ST->ConIn->ReadKeyStroke(ST->ConIn, &key)))
		return 0;
	if (key.ScanCode == SCAN_ESC || key.UnicodeChar == 27)
		return 27;
	return key.UnicodeChar ? key.UnicodeChar : -1;
}

void er_console_line(const CHAR16 *fmt, ...)
{
	va_list ap;
	Print(L"\refiresume: ");
	va_start(ap, fmt);
	VPrint(fmt, ap);
	va_end(ap);
}

/* UCS-2 character -> UTF-8 bytes (1..3); 0 for what is not a character */
static UINTN utf8(CHAR16 c, char out[3])
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c >= 0xd800 && c < 0xe000)
		return 0;
	out[0] = (char)(0xe0 | (c >> 12));
	out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[2] = (char)(0x80 | (c & 0x3f));
	return 3;
}

INTN er_read_secret(char *buf, UINTN cap, UINTN idle_s)
{
	EFI_EVENT timer = NULL, events[2];
	EFI_INPUT_KEY key;
	UINTN len = 0, which = 0;
	INTN ret = -2;

	if (cap < 4)
		return -2;
	/* keys typed before the prompt are not part of the secret */
	while (!EFI_ERROR(ST->ConIn->ReadKeyStroke(ST->ConIn, &key)))
		;
	if (EFI_ERROR(BS->CreateEvent(EVT_TIMER, 0, NULL, NULL, &timer)))
		return -2;
	for (;;) {
		if (EFI_ERROR(BS->SetTimer(timer, TimerRelative, (UINT64)idle_s * 10000000ull)))
			break;
		events[0] = ST->ConIn->WaitForKey;
		events[1] = timer;
		if (EFI_ERROR(BS->WaitForEvent(2, events, &which)))
			break;
		if (which != 0) {
			ret = -3;
			break;
		}
		if (EFI_ERROR(ST->ConIn->ReadKeyStroke(ST->ConIn, &key)))
			continue;
		CHAR16 c = key.UnicodeChar;
		if (key.ScanCode == SCAN_ESC || c == 27) {
			ret = -1;
			break;
		}
		if (c == CHAR_CARRIAGE_RETURN || c == CHAR_LINEFEED) {
			ret = (INTN)len;
			break;
		}
		if (c == CHAR_BACKSPACE || c == 0x7f) {
			if (len == 0)
				continue;
			/* one character back: its UTF-8 continuation bytes too */
			do
				len--;
			while (len > 0 && ((UINT8)buf[len] & 0xc0) == 0x80);
			Print(L"\b \b");
			continue;
		}
		char u[3];
		UINTN n = c >= 0x20 ? utf8(c, u) : 0;
		if (n == 0 || len + n >= cap)
			continue;
		er_memcpy(buf + len, u, n);
		er_wipe(u, sizeof(u));
		len += n;
		Print(L"*");
	}
	BS->SetTimer(timer, TimerCancel, 0);
	BS->CloseEvent(timer);
	key.UnicodeChar = 0;
	Print(L"\n");
	if (ret < 0)
		er_wipe(buf, cap);
	else
		buf[len] = 0;
	return ret;
}
