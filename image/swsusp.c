// SPDX-License-Identifier: GPL-2.0-or-later
/* Page 0 of a swap device; see swsusp.h. */
#include "image/swsusp.h"

static bool sig_is(const uint8_t *p, const char *s, size_t n)
{
	return er_memcmp(p, s, n) == 0;
}

enum er_swap_kind er_swap_classify(const uint8_t *page0)
{
	const uint8_t *sig = page0 + ER_HDR_SIG;
	/* the kernel writes "S1SUSPEND" followed by a NUL (HIBERNATE_SIG, 10 bytes) */
	if (sig_is(sig, "S1SUSPEND", 10))
		return ER_SWAP_IMAGE;
	if (sig_is(sig, "S1SUSPFW1", 10))
		return ER_SWAP_IMAGE_2004;
	if (sig_is(sig, "SWAPSPACE2", 10) || sig_is(sig, "SWAP-SPACE", 10))
		return ER_SWAP_PLAIN;
	return ER_SWAP_NONE;
}

const char *er_swap_kind_name(enum er_swap_kind k)
{
	switch (k) {
	case ER_SWAP_PLAIN:
		return "no image";
	case ER_SWAP_IMAGE:
		return "hibernation image signature found";
	case ER_SWAP_IMAGE_2004:
		return "hibernation image signature found (2004 swsusp format)";
	default:
		return "no swap signature";
	}
}
