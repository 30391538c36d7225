// SPDX-License-Identifier: GPL-2.0-or-later
/* The body shared by the decompressor fuzz targets (fuzz_lzo.c, fuzz_lz4.c). The
 * including file defines FUZZ_DECOMPRESS, FUZZ_STRERROR, FUZZ_E_OUTPUT_OVERRUN and
 * FUZZ_VALID_TAIL (bytes that end a stream validly) before including it.
 * Each input is decoded into a big buffer, then again into exactly-sized buffers (one
 * byte short must fail cleanly without writing past it), and once more with a valid
 * ending appended. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CAP (128 * 1024 + 4096)

static void check(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t olen = (size_t)-1, olen2 = (size_t)-1;
	int r = FUZZ_DECOMPRESS(in, len, out, CAP, &olen);

	if (olen > CAP || r > 0 || FUZZ_STRERROR(r) == NULL)
		abort();
	if (r != 0)
		return;

	uint8_t *exact = malloc(olen ? olen : 1);
	if (!exact)
		abort();
	if (FUZZ_DECOMPRESS(in, len, exact, olen, &olen2) != 0 || olen2 != olen || memcmp(exact, out, olen) != 0)
		abort();
	if (olen > 0) {
		memset(exact, 0xa5, olen);
		if (FUZZ_DECOMPRESS(in, len, exact, olen - 1, &olen2) != FUZZ_E_OUTPUT_OVERRUN || olen2 > olen - 1)
			abort();
		if (exact[olen - 1] != 0xa5 || memcmp(exact, out, olen2) != 0)
			abort();
	}
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *out;
	static const uint8_t tail[] = FUZZ_VALID_TAIL;

	if (!out && !(out = malloc(CAP)))
		abort();

	/* libFuzzer's data is already an exactly-sized heap copy */
	check(data, size, out);

	uint8_t *in = malloc(size + sizeof(tail));
	if (!in)
		abort();
	if (size)
		memcpy(in, data, size);
	memcpy(in + size, tail, sizeof(tail));
	check(in, size + sizeof(tail), out);
	free(in);
	return 0;
}
