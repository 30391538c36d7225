/* Console input: a key with a timeout. */
#include "efi/efi.h"

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
