// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for loader/auth.c's auth block parser (the swap header page is
 * written by whoever can write swap: hostile). Checked: never reads out of bounds; what
 * it accepts has the documented properties (version 2, no flags, page-aligned key page,
 * a page count within bounds,
 * the header's own UUID, the page it was found at). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "loader/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t page[4096] = { 0 };
	struct er_auth_block a;
	char why[160];
	uint64_t at = 0;
	if (size >= 8) {
		memcpy(&at, data, 8);
		data += 8;
		size -= 8;
	}
	/* most inputs land on the block: bytes 512.. first, then the UUID and the rest */
	memcpy(page + 512, data, size < 3584 ? size : 3584);
	if (size > 3584)
		memcpy(page, data + 3584, size - 3584 < 512 ? size - 3584 : 512);
	/* an odd first byte: the magic is there (er_memcmp is not traced by the fuzzer) */
	if (at & 1)
		memcpy(page + 512, "EFRHMAC1", 8);
	enum er_auth_status st = er_auth_parse(page, at, &a, why, sizeof(why));
	if (st == ER_AUTH_OK) {
		if (a.version != 2 || a.flags || a.key_slot_phys % 4096 || a.resume_offset != at ||
		    a.enc_pages < 2 || a.enc_pages > (1ull << 40) ||
		    memcmp(a.swap_uuid, page + 1036, 16) != 0)
			abort();
	} else if (st != ER_AUTH_NONE && st != ER_AUTH_MALFORMED) {
		abort();
	} else if (!why[0]) {
		abort();
	}
	return 0;
}
