// SPDX-License-Identifier: GPL-2.0-or-later
/* Console logging; OVMF mirrors ConOut to the serial port. */
#include "efi/efi.h"

static void vlog(const CHAR16 *prefix, const CHAR16 *fmt, va_list ap)
{
	Print(L"efiresume: %s", prefix);
	VPrint(fmt, ap);
}

void log_info(const CHAR16 *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(L"", fmt, ap);
	va_end(ap);
}

void log_warn(const CHAR16 *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(L"warning: ", fmt, ap);
	va_end(ap);
}

EFI_STATUS log_error_status(EFI_STATUS status, const CHAR16 *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(L"error: ", fmt, ap);
	va_end(ap);
	Print(L": %r\n", status);
	return status;
}
