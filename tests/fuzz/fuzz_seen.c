// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for loader/seen.c (the EfiresumeSeen record: NVRAM that an OS can
 * write, so hostile) and volume/fsprint.c. Checked: decode never reads out of bounds;
 * whatever it accepts encodes back to the same bytes; the comparison against the
 * decoded filesystems themselves finds nothing changed; fingerprinting any bytes is safe
 * and a print is never "changed" against itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "loader/seen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct er_seen s;
	if (er_seen_decode(data, size, &s)) {
		uint8_t buf[ER_SEEN_MAX_BYTES];
		size_t len = er_seen_encode(&s, buf, sizeof(buf));
		if (len != size || memcmp(buf, data, size) != 0)
			abort();
		char why[160];
		if (er_seen_compare(&s, s.fs, s.n, why, sizeof(why)) != -1)
			abort();
	}
	struct er_fsprint p;
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (er_fsprint(copy, size, &p)) {
		char why[160];
		if (!er_fsprint_same_fs(&p, &p) || er_fsprint_changed(&p, &p, why, sizeof(why)))
			abort();
	}
	free(copy);
	return 0;
}
