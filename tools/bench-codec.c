// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-codec: decompression and CRC32 throughput, ours against the libraries.
 *
 *   build/bench-codec [FILE]
 *
 * FILE (or, without it, ~64 MiB of synthetic page-like data: zero pages, text,
 * code-like bytes, random pages, page-table-like entries) is cut into 128 KiB
 * chunks, as the kernel's hibernation writer does, and each chunk is compressed
 * with lzo1x_1_compress and LZ4_compress_default. Then decompressing every chunk
 * into one image-sized buffer is timed with er_lzo1x_decompress against
 * lzo1x_decompress_safe, er_lz4_decompress against LZ4_decompress_safe, and
 * er_crc32_le against zlib's crc32, 7 runs each (alternating), and the median
 * throughput is printed in MB/s of uncompressed data (1 MB = 10^6 bytes):
 *
 *   lzo   ours 812.3 MB/s  liblzo2 790.1 MB/s  ratio 1.03
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zlib.h>

#include "image/crc32.h"
#include "image/lz4.h"
#include "image/lzo.h"
#include "tools/bench.h"

#define CHUNK (128 * 1024)
#define RUNS 7

struct chunk {
	size_t len;                 /* uncompressed */
	uint8_t *lzo, *lz4;
	size_t lzo_len, lz4_len;
};


enum impl { LZO_OURS, LZO_LIB, LZ4_OURS, LZ4_LIB, CRC_OURS, CRC_LIB, NIMPL };

static const uint8_t *g_data;
static uint8_t *g_out;
static struct chunk *g_chunks;
static size_t g_nchunks;

/* One pass over all chunks; returns seconds. Exits on any decoding failure. */
static double run(enum impl which, uint32_t *crc_sink)
{
	uint8_t *o = g_out;
	double t0 = now();
	for (size_t i = 0; i < g_nchunks; i++) {
		const struct chunk *c = &g_chunks[i];
		size_t olen = 0;
		int ok = 1;
		switch (which) {
		case LZO_OURS:
			ok = er_lzo1x_decompress(c->lzo, c->lzo_len, o, c->len, &olen) == 0;
			break;
		case LZO_LIB: {
			lzo_uint l = c->len;
			ok = lzo1x_decompress_safe(c->lzo, c->lzo_len, o, &l, NULL) == LZO_E_OK;
			olen = l;
			break;
		}
		case LZ4_OURS:
			ok = er_lz4_decompress(c->lz4, c->lz4_len, o, c->len, &olen) == 0;
			break;
		case LZ4_LIB: {
			int r = LZ4_decompress_safe((const char *)c->lz4, (char *)o, (int)c->lz4_len, (int)c->len);
			ok = r >= 0;
			olen = (size_t)(ok ? r : 0);
			break;
		}
		case CRC_OURS:
			*crc_sink ^= er_crc32_le(0, g_data + (size_t)(o - g_out), c->len);
			olen = c->len;
			break;
		case CRC_LIB:
			*crc_sink ^= ~(uint32_t)crc32(0xFFFFFFFFu, g_data + (size_t)(o - g_out), (uInt)c->len);
			olen = c->len;
			break;
		default:
			break;
		}
		if (!ok || olen != c->len) {
			fprintf(stderr, "bench-codec: decoding chunk %zu failed (impl %d)\n", i, (int)which);
			exit(1);
		}
		o += c->len;
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	size_t total;
	uint8_t *data;

	data = bench_input(argc, argv, &total);
	if (!data)
		return argc > 2 || (argc == 2 && argv[1][0] == '-') ? 2 : 1;

	if (lzo_init() != LZO_E_OK) {
		fprintf(stderr, "lzo_init failed\n");
		return 1;
	}
	g_nchunks = (total + CHUNK - 1) / CHUNK;
	g_chunks = calloc(g_nchunks, sizeof(*g_chunks));
	g_out = malloc(total);
	void *wrk = malloc(LZO1X_1_MEM_COMPRESS);
	if (!g_chunks || !g_out || !wrk)
		return 1;
	g_data = data;

	size_t lzo_total = 0, lz4_total = 0;
	for (size_t i = 0; i < g_nchunks; i++) {
		struct chunk *c = &g_chunks[i];
		const uint8_t *src = data + i * CHUNK;
		c->len = i + 1 < g_nchunks ? CHUNK : total - i * CHUNK;
		c->lzo = malloc(c->len + c->len / 16 + 64 + 3);
		c->lz4 = malloc((size_t)LZ4_compressBound((int)c->len));
		if (!c->lzo || !c->lz4)
			return 1;
		lzo_uint l = c->len + c->len / 16 + 64 + 3;
		if (lzo1x_1_compress(src, c->len, c->lzo, &l, wrk) != LZO_E_OK)
			return 1;
		c->lzo_len = l;
		int r = LZ4_compress_default((const char *)src, (char *)c->lz4, (int)c->len, LZ4_compressBound((int)c->len));
		if (r <= 0)
			return 1;
		c->lz4_len = (size_t)r;
		lzo_total += c->lzo_len;
		lz4_total += c->lz4_len;
	}
	free(wrk);

	/* correctness first: every implementation reproduces the data */
	uint32_t sink = 0, s1 = 0, s2 = 0;
	for (int w = LZO_OURS; w <= LZ4_LIB; w++) {
		memset(g_out, 0x5a, total);
		run((enum impl)w, &sink);
		if (memcmp(g_out, data, total) != 0) {
			fprintf(stderr, "bench-codec: impl %d produced wrong data\n", w);
			return 1;
		}
	}
	run(CRC_OURS, &s1);
	run(CRC_LIB, &s2);
	if (s1 != s2) {
		fprintf(stderr, "bench-codec: crc mismatch %08x vs %08x\n", s1, s2);
		return 1;
	}

	printf("# %zu bytes in %zu chunks of %d KiB; lzo1x_1 %.1f%%, lz4 %.1f%% of original; %d runs, median; MB = 10^6 bytes\n",
	       total, g_nchunks, CHUNK / 1024, 100.0 * (double)lzo_total / (double)total,
	       100.0 * (double)lz4_total / (double)total, RUNS);

	static const struct { const char *name, *lib; enum impl ours, theirs; } rows[] = {
		{ "lzo  ", "liblzo2", LZO_OURS, LZO_LIB },
		{ "lz4  ", "liblz4 ", LZ4_OURS, LZ4_LIB },
		{ "crc32", "zlib   ", CRC_OURS, CRC_LIB },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		double t_ours[RUNS], t_lib[RUNS];
		run(rows[r].ours, &sink); /* warm up */
		run(rows[r].theirs, &sink);
		for (int i = 0; i < RUNS; i++) {
			t_ours[i] = run(rows[r].ours, &sink);
			t_lib[i] = run(rows[r].theirs, &sink);
		}
		double mo = (double)total / median(t_ours, RUNS) / 1e6;
		double ml = (double)total / median(t_lib, RUNS) / 1e6;
		printf("%s ours %.1f MB/s  %s %.1f MB/s  ratio %.2f\n", rows[r].name, mo, rows[r].lib, ml, mo / ml);
	}
	if (sink == 0x12345678u) /* keep the CRC work observable */
		printf("#\n");

	for (size_t i = 0; i < g_nchunks; i++) {
		free(g_chunks[i].lzo);
		free(g_chunks[i].lz4);
	}
	free(g_chunks);
	free(g_out);
	free(data);
	return 0;
}
