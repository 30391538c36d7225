/* libFuzzer target for the LZO1X decompressor (image/lzo.c).
 *
 * Every input is decoded into a 132 KiB heap buffer; then, whenever it decodes,
 * checked for the properties a caller relies on:
 *  - *out_len never exceeds the capacity;
 *  - decoding again into an exactly-sized buffer gives the same bytes;
 *  - one byte less capacity fails with OUTPUT_OVERRUN, never touching more;
 * and the input is tried a second time with a valid stream ending appended, so
 * that more mutated inputs get all the way through. ASan/UBSan catch any out of
 * bounds access (the buffers are exactly sized heap blocks). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/lzo.h"

#define CAP (128 * 1024 + 4096)

static void check(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t olen = (size_t)-1, olen2 = (size_t)-1;
	int r = er_lzo1x_decompress(in, len, out, CAP, &olen);

	if (olen > CAP || r > 0 || er_lzo_strerror(r) == NULL)
		abort();
	if (r != ER_LZO_E_OK)
		return;

	uint8_t *exact = malloc(olen ? olen : 1);
	if (!exact)
		abort();
	if (er_lzo1x_decompress(in, len, exact, olen, &olen2) != ER_LZO_E_OK || olen2 != olen || memcmp(exact, out, olen) != 0)
		abort();
	if (olen > 0) {
		memset(exact, 0xa5, olen);
		if (er_lzo1x_decompress(in, len, exact, olen - 1, &olen2) != ER_LZO_E_OUTPUT_OVERRUN || olen2 > olen - 1)
			abort();
		if (exact[olen - 1] != 0xa5 || memcmp(exact, out, olen2) != 0)
			abort();
	}
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *out;
	static const uint8_t tail[] = { 0x11, 0x00, 0x00 };

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
