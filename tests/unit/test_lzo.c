// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/lzo.c, with liblzo2 as the oracle.
 *
 * Inputs of many shapes and sizes are compressed with liblzo2 (lzo1x_1, the
 * kernel's compressor; lzo1x_1_15; lzo1x_999, which also emits the M1 forms),
 * decompressed by er_lzo1x_decompress into exactly-sized heap buffers (so that
 * ASan sees any byte read or written out of bounds) and compared byte for byte.
 * Truncated and corrupted streams must fail cleanly (or decode to something) with
 * no sanitizer report; crafted streams check each error path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lzo/lzo1x.h>

#include "image/lzo.h"

#include "codec_data.h"

/* ------------------------------------------------------------ compressors */

enum lzo_comp { C_1, C_1_15, C_999 };

static size_t lzo_compress(enum lzo_comp c, const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap)
{
	static uint8_t wrk[LZO1X_999_MEM_COMPRESS];
	lzo_uint dlen = dst_cap;
	int r;
	assert_true(dst_cap >= n + n / 16 + 64 + 3);
	switch (c) {
	case C_1:    r = lzo1x_1_compress(src, n, dst, &dlen, wrk); break;
	case C_1_15: r = lzo1x_1_15_compress(src, n, dst, &dlen, wrk); break;
	default:     r = lzo1x_999_compress(src, n, dst, &dlen, wrk); break;
	}
	assert_int_equal(r, LZO_E_OK);
	return dlen;
}

static int group_setup(void **state)
{
	(void)state;
	return lzo_init() == LZO_E_OK ? 0 : -1;
}

/* Decompress comp (exact heap copy) into an exactly-sized buffer of cap bytes. */
static int ours(const uint8_t *comp, size_t clen, size_t cap, uint8_t **outp, size_t *olen)
{
	uint8_t *in = dup_exact(comp, clen);
	uint8_t *out = xmalloc(cap);
	*olen = (size_t)-1;
	int r = er_lzo1x_decompress(in, clen, out, cap, olen);
	assert_true(*olen <= cap);
	free(in);
	*outp = out;
	return r;
}

/* ------------------------------------------------------------ round trips */

static void roundtrip_one(enum lzo_comp c, enum kind k, size_t n, unsigned *checked)
{
	uint8_t *src = xmalloc(n), *comp = xmalloc(n + n / 16 + 64 + 3), *out, *ref;
	size_t clen, olen;
	lzo_uint rlen;

	fill_kind(src, n, k);
	clen = lzo_compress(c, src, n, comp, n + n / 16 + 64 + 3);

	/* exact capacity */
	assert_int_equal(ours(comp, clen, n, &out, &olen), ER_LZO_E_OK);
	if (olen != n || memcmp(out, src, n) != 0)
		fail_msg("lzo comp %d kind %s size %zu: mismatch (olen %zu)", c, kind_name[k], n, olen);
	free(out);

	/* roomy capacity (exercises the fast paths up to the very end) */
	assert_int_equal(ours(comp, clen, n + 100, &out, &olen), ER_LZO_E_OK);
	assert_int_equal(olen, n);
	assert_memory_equal(out, src, n);

	/* liblzo2 agrees */
	ref = xmalloc(n);
	rlen = n;
	assert_int_equal(lzo1x_decompress_safe(comp, clen, ref, &rlen, NULL), LZO_E_OK);
	assert_int_equal(rlen, n);
	assert_memory_equal(ref, out, n);
	free(ref);
	free(out);

	/* one byte short: fails cleanly, having written at most cap bytes */
	if (n > 0) {
		assert_int_equal(ours(comp, clen, n - 1, &out, &olen), ER_LZO_E_OUTPUT_OVERRUN);
		assert_true(olen <= n - 1);
		assert_memory_equal(out, src, olen);
		free(out);
	}
	free(src);
	free(comp);
	(*checked)++;
}

static void roundtrip_all(enum lzo_comp c, uint64_t seed)
{
	unsigned checked = 0;
	rng_seed(seed);
	for (int k = 0; k < K_COUNT; k++)
		for (size_t i = 0; i < ER_ARRAY_SIZE(sizes); i++)
			roundtrip_one(c, (enum kind)k, sizes[i], &checked);
	/* odd sizes */
	for (int i = 0; i < 40; i++)
		roundtrip_one(c, (enum kind)rng_below(K_COUNT), 1 + rng_below(131072), &checked);
	assert_int_equal(checked, K_COUNT * ER_ARRAY_SIZE(sizes) + 40);
}

static void test_roundtrip_lzo1x_1(void **state) { (void)state; roundtrip_all(C_1, 1); }
static void test_roundtrip_lzo1x_1_15(void **state) { (void)state; roundtrip_all(C_1_15, 2); }

static void test_roundtrip_lzo1x_999(void **state)
{
	(void)state;
	/* lzo1x_999 is slow: a smaller sample, still covering M1 matches */
	unsigned checked = 0;
	rng_seed(3);
	static const size_t sz[] = { 0, 1, 3, 4, 17, 100, 255, 4096, 4097, 20000, 65536, 4096 * 32 };
	for (int k = 0; k < K_COUNT; k++)
		for (size_t i = 0; i < ER_ARRAY_SIZE(sz); i++)
			roundtrip_one(C_999, (enum kind)k, sz[i], &checked);
	assert_int_equal(checked, K_COUNT * ER_ARRAY_SIZE(sz));
}

/* Many kernel-sized chunks of page-like data, decoded back to back into one buffer. */
static void test_chunk_sequence(void **state)
{
	(void)state;
	const size_t chunk = 131072, nchunks = 8;
	uint8_t *src = xmalloc(chunk * nchunks), *dst = xmalloc(chunk * nchunks);
	uint8_t *comp = xmalloc(chunk + chunk / 16 + 67);
	rng_seed(4);
	fill_page_like(src, chunk * nchunks);
	for (size_t i = 0; i < nchunks; i++) {
		size_t clen = lzo_compress(C_1, src + i * chunk, chunk, comp, chunk + chunk / 16 + 67), olen;
		/* capacity runs to the end of the whole buffer, as a loader would pass */
		assert_int_equal(er_lzo1x_decompress(comp, clen, dst + i * chunk, (nchunks - i) * chunk, &olen), 0);
		assert_int_equal(olen, chunk);
	}
	assert_memory_equal(src, dst, chunk * nchunks);
	free(src);
	free(dst);
	free(comp);
}

/* ------------------------------------------------------------ crafted streams */

static int dec(const uint8_t *s, size_t n, uint8_t *out, size_t cap, size_t *olen)
{
	uint8_t *in = dup_exact(s, n);
	int r = er_lzo1x_decompress(in, n, out, cap, olen);
	free(in);
	return r;
}

static void test_empty_and_tiny(void **state)
{
	(void)state;
	uint8_t out[16], comp[80];
	size_t olen = 99;
	static const uint8_t eof[] = { 0x11, 0x00, 0x00 };

	/* lzo1x_1 of nothing is the bare end marker */
	assert_int_equal(lzo_compress(C_1, out, 0, comp, sizeof(comp)), 3);
	assert_memory_equal(comp, eof, 3);
	assert_int_equal(dec(eof, 3, out, sizeof(out), &olen), ER_LZO_E_OK);
	assert_int_equal(olen, 0);
	assert_int_equal(dec(eof, 3, out, 0, &olen), ER_LZO_E_OK);

	/* shorter than an end marker */
	for (size_t n = 0; n < 3; n++) {
		olen = 99;
		assert_int_equal(dec(eof, n, out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
		assert_int_equal(olen, 0);
	}
}

static void test_literals_and_matches(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t olen;

	/* initial literal run of 4, M2 (len 3, dist 4), end */
	static const uint8_t ok[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x4c, 0x00, 0x11, 0x00, 0x00 };
	assert_int_equal(dec(ok, sizeof(ok), out, sizeof(out), &olen), ER_LZO_E_OK);
	assert_int_equal(olen, 7);
	assert_memory_equal(out, "abcdabc", 7);
	/* exact capacity through the byte-wise paths */
	assert_int_equal(dec(ok, sizeof(ok), out, 7, &olen), ER_LZO_E_OK);
	assert_int_equal(dec(ok, sizeof(ok), out, 6, &olen), ER_LZO_E_OUTPUT_OVERRUN);
	assert_int_equal(dec(ok, sizeof(ok), out, 3, &olen), ER_LZO_E_OUTPUT_OVERRUN);
	assert_int_equal(olen, 0);

	/* M2 with dist 1 (overlapping run) then two trailing literals 'x' 'y' */
	static const uint8_t run[] = { 17 + 4, 'a', 'b', 'c', 'd', 0xe2, 0x00, 'x', 'y', 0x11, 0x00, 0x00 };
	assert_int_equal(dec(run, sizeof(run), out, sizeof(out), &olen), ER_LZO_E_OK);
	assert_int_equal(olen, 4 + 8 + 2);
	assert_memory_equal(out, "abcddddddddd" "xy", 14);

	/* M3 with extended length: len 2+31+5 = 38 at dist 1 */
	static const uint8_t m3[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x20, 0x05, 0x00, 0x00, 0x11, 0x00, 0x00 };
	assert_int_equal(dec(m3, sizeof(m3), out, sizeof(out), &olen), ER_LZO_E_OK);
	assert_int_equal(olen, 4 + 38);
	for (size_t i = 4; i < olen; i++)
		assert_int_equal(out[i], 'd');
	assert_int_equal(dec(m3, sizeof(m3), out, 41, &olen), ER_LZO_E_OUTPUT_OVERRUN);
}

/* M3 match of len >= 3 at distance 1..16384 with no trailing literals. */
static size_t put_m3(uint8_t *b, size_t dist, size_t len)
{
	size_t k = 0;
	if (len - 2 <= 31) {
		b[k++] = (uint8_t)(0x20 | (len - 2));
	} else {
		size_t x = len - 33;
		b[k++] = 0x20;
		for (; x > 255; x -= 255)
			b[k++] = 0;
		b[k++] = (uint8_t)x;
	}
	b[k++] = (uint8_t)((dist - 1) << 2);
	b[k++] = (uint8_t)((dist - 1) >> 6);
	return k;
}

static void test_overlapping_matches(void **state)
{
	(void)state;
	/* every distance 1..140 with many lengths (short, and long enough for
	 * the lcm(distance, 8) path), against liblzo2 and a naive reference copy */
	static const size_t mls[] = { 41, 47, 63, 64, 65, 71, 100, 127, 128, 129, 200, 300, 1000, 1024, 5000 };
	for (size_t dist = 1; dist <= 140; dist++) {
		for (size_t mi = 0; mi < 38 + ER_ARRAY_SIZE(mls); mi++) {
			size_t ml = mi < 38 ? 3 + mi : mls[mi - 38];
			uint8_t blk[256], exp[5200], out[5200], ref[5200];
			size_t b = 0, olen;
			blk[b++] = 17 + 140;
			for (int i = 0; i < 140; i++)
				blk[b++] = (uint8_t)(i * 37 + 11);
			b += put_m3(blk + b, dist, ml);
			blk[b++] = 0x11;
			blk[b++] = 0;
			blk[b++] = 0;
			size_t n = 140 + ml;
			for (size_t i = 0; i < 140; i++)
				exp[i] = (uint8_t)(i * 37 + 11);
			for (size_t i = 140; i < n; i++)
				exp[i] = exp[i - dist];
			lzo_uint rl = n;
			assert_int_equal(lzo1x_decompress_safe(blk, b, ref, &rl, NULL), LZO_E_OK);
			assert_int_equal(rl, n);
			assert_memory_equal(ref, exp, n);
			assert_int_equal(dec(blk, b, out, n, &olen), ER_LZO_E_OK);
			assert_int_equal(olen, n);
			assert_memory_equal(out, exp, n);
			assert_int_equal(dec(blk, b, out, sizeof(out), &olen), ER_LZO_E_OK);
			assert_int_equal(olen, n);
			assert_memory_equal(out, exp, n);
			assert_int_equal(dec(blk, b, out, n - 1, &olen), ER_LZO_E_OUTPUT_OVERRUN);
		}
	}
}

static void test_lookbehind(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t olen;
	/* M2 of dist 8 after only 4 bytes of output */
	static const uint8_t lb[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x5c, 0x00, 0x11, 0x00, 0x00 };
	assert_int_equal(dec(lb, sizeof(lb), out, sizeof(out), &olen), ER_LZO_E_LOOKBEHIND);
	assert_int_equal(olen, 4);
	/* M4 (dist >= 16384) right at the start of output */
	static const uint8_t m4[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x11, 0x04, 0x00, 0x11, 0x00, 0x00 };
	assert_int_equal(dec(m4, sizeof(m4), out, sizeof(out), &olen), ER_LZO_E_LOOKBEHIND);
	/* M3 of dist 5 with 4 bytes of output */
	static const uint8_t m3[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x21, 0x10, 0x00, 0x11, 0x00, 0x00 };
	assert_int_equal(dec(m3, sizeof(m3), out, sizeof(out), &olen), ER_LZO_E_LOOKBEHIND);
}

static void test_end_marker_rules(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t olen;
	/* trailing garbage after the end marker */
	static const uint8_t tg[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x11, 0x00, 0x00, 0x00 };
	assert_int_equal(dec(tg, sizeof(tg), out, sizeof(out), &olen), ER_LZO_E_INPUT_NOT_CONSUMED);
	assert_int_equal(olen, 4);
	/* end marker with a length other than 3 (the kernel rejects it) */
	static const uint8_t bad[] = { 17 + 4, 'a', 'b', 'c', 'd', 0x12, 0x00, 0x00 };
	assert_int_equal(dec(bad, sizeof(bad), out, sizeof(out), &olen), ER_LZO_E_ERROR);
	/* no end marker at all */
	static const uint8_t none[] = { 17 + 4, 'a', 'b', 'c', 'd' };
	assert_int_equal(dec(none, sizeof(none), out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
	/* literal run longer than the input */
	static const uint8_t lrun[] = { 0x00, 0x00, 0x00, 0x00, 0x05, 'a', 'b' };
	assert_int_equal(dec(lrun, sizeof(lrun), out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
}

static void test_huge_lengths(void **state)
{
	(void)state;
	/* literal and M3 extended lengths made of thousands of zero bytes */
	size_t n = 100000, olen;
	uint8_t *s = calloc(n, 1), out[256];
	assert_non_null(s);
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
	s[n - 1] = 1; /* literal run of ~25 MB, longer than the input */
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
	/* literal run of 255 + 1 + 18 = 274 bytes, all present, 256 bytes of room */
	memset(s, 'q', 3 + 274 + 3);
	s[0] = 0; s[1] = 0; s[2] = 1;
	assert_int_equal(dec(s, 3 + 274 + 3, out, sizeof(out), &olen), ER_LZO_E_OUTPUT_OVERRUN);
	assert_int_equal(olen, 0);
	memset(s, 0, n);
	memcpy(s, (const uint8_t[]){ 17 + 4, 'a', 'b', 'c', 'd', 0x20 }, 6);
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
	s[n - 3] = 7;
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZO_E_OUTPUT_OVERRUN);
	assert_int_equal(olen, 4);
	free(s);
}

static void test_lzo_rle_zero_run(void **state)
{
	(void)state;
	uint8_t out[256];
	size_t olen;
	/* lzo-rle: header 17, version 1; 4 literals; zero run of 96+4 with 2
	 * trailing literals; end marker. */
	static const uint8_t rle[] = { 0x11, 0x01, 17 + 4, 'a', 'b', 'c', 'd',
				       0x18, 0xfe, 0xff, 12, 'x', 'y', 0x11, 0x00, 0x00 };
	assert_int_equal(dec(rle, sizeof(rle), out, sizeof(out), &olen), ER_LZO_E_OK);
	assert_int_equal(olen, 4 + 100 + 2);
	assert_memory_equal(out, "abcd", 4);
	for (size_t i = 4; i < 104; i++)
		assert_int_equal(out[i], 0);
	assert_memory_equal(out + 104, "xy", 2);
	/* exact capacity (byte path) and one short */
	assert_int_equal(dec(rle, sizeof(rle), out, 106, &olen), ER_LZO_E_OK);
	assert_int_equal(dec(rle, sizeof(rle), out, 105, &olen), ER_LZO_E_OUTPUT_OVERRUN);
	assert_int_equal(dec(rle, sizeof(rle), out, 50, &olen), ER_LZO_E_OUTPUT_OVERRUN);
	/* truncated zero-run operand */
	static const uint8_t cut[] = { 0x11, 0x01, 17 + 4, 'a', 'b', 'c', 'd', 0x18, 0xfe, 0xff };
	assert_int_equal(dec(cut, sizeof(cut), out, sizeof(out), &olen), ER_LZO_E_INPUT_OVERRUN);
	/* version 0: the same instruction is a plain M4 (here out of range) */
	uint8_t v0[sizeof(rle)];
	memcpy(v0, rle, sizeof(rle));
	v0[1] = 0;
	assert_int_equal(dec(v0, sizeof(v0), out, sizeof(out), &olen), ER_LZO_E_LOOKBEHIND);
	/* and liblzo2 (classic only) rejects the rle stream */
	lzo_uint rl = sizeof(out);
	assert_int_not_equal(lzo1x_decompress_safe(rle, sizeof(rle), out, &rl, NULL), LZO_E_OK);
}

static void test_bad_args_and_strerror(void **state)
{
	(void)state;
	uint8_t buf[16] = { 0x11, 0, 0 };
	size_t olen;
	assert_int_equal(er_lzo1x_decompress(NULL, 3, buf, 16, &olen), ER_LZO_E_INVALID_ARG);
	assert_int_equal(er_lzo1x_decompress(buf, 3, NULL, 16, &olen), ER_LZO_E_INVALID_ARG);
	assert_int_equal(er_lzo1x_decompress(buf, 3, buf + 8, 8, NULL), ER_LZO_E_INVALID_ARG);

	static const int codes[] = { ER_LZO_E_OK, ER_LZO_E_ERROR, ER_LZO_E_INPUT_OVERRUN, ER_LZO_E_OUTPUT_OVERRUN,
				     ER_LZO_E_LOOKBEHIND, ER_LZO_E_INPUT_NOT_CONSUMED, ER_LZO_E_INVALID_ARG };
	for (size_t i = 0; i < ER_ARRAY_SIZE(codes); i++) {
		const char *s = er_lzo_strerror(codes[i]);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, er_lzo_strerror(codes[j]));
	}
	assert_string_equal(er_lzo_strerror(-1000), "unknown LZO error");
}

/* Bytes beyond out_cap are never touched, whatever the stream. */
static void test_no_write_past_cap(void **state)
{
	(void)state;
	size_t n = 3 * 4096 + 123, cap_extra = 64;
	uint8_t *src = xmalloc(n), *comp = xmalloc(n + n / 16 + 67), *out = xmalloc(n + cap_extra);
	rng_seed(5);
	fill_page_like(src, n);
	size_t clen = lzo_compress(C_1, src, n, comp, n + n / 16 + 67), olen;
	for (size_t cap = 0; cap <= n; cap += (cap < 64 || cap > n - 64) ? 1 : 97) {
		memset(out, 0xa5, n + cap_extra);
		int r = er_lzo1x_decompress(comp, clen, out, cap, &olen);
		assert_int_equal(r, cap == n ? ER_LZO_E_OK : ER_LZO_E_OUTPUT_OVERRUN);
		for (size_t i = cap; i < n + cap_extra; i++)
			assert_int_equal(out[i], 0xa5);
		assert_memory_equal(out, src, olen);
	}
	free(src);
	free(comp);
	free(out);
}

/* ------------------------------------------------------------ hostile input */

static void test_truncated_prefixes(void **state)
{
	(void)state;
	static const struct { enum kind k; size_t n; enum lzo_comp c; } samples[] = {
		{ K_MIXED, 4096 * 8, C_1 }, { K_TEXT, 5000, C_1 }, { K_RANDOM, 300, C_1 },
		{ K_PERIODIC, 9000, C_999 }, { K_FAR_REPEAT, 40000, C_1 }, { K_ZERO, 131072, C_1 },
		{ K_CODE, 2000, C_1_15 },
	};
	unsigned tried = 0;
	rng_seed(6);
	for (size_t s = 0; s < ER_ARRAY_SIZE(samples); s++) {
		size_t n = samples[s].n, clen, olen;
		uint8_t *src = xmalloc(n), *comp = xmalloc(n + n / 16 + 67), *out = xmalloc(n);
		fill_kind(src, n, samples[s].k);
		clen = lzo_compress(samples[s].c, src, n, comp, n + n / 16 + 67);
		for (size_t len = 0; len < clen; len++) {
			uint8_t *in = dup_exact(comp, len);
			int r = er_lzo1x_decompress(in, len, out, n, &olen);
			/* a proper prefix never holds the end marker at an instruction boundary */
			if (r == ER_LZO_E_OK)
				fail_msg("sample %zu: prefix %zu/%zu decoded", s, len, clen);
			assert_true(r < 0 && r >= ER_LZO_E_INVALID_ARG);
			assert_true(olen <= n);
			assert_memory_equal(out, src, olen);
			free(in);
			tried++;
		}
		assert_int_equal(er_lzo1x_decompress(comp, clen, out, n, &olen), ER_LZO_E_OK);
		assert_int_equal(olen, n);
		free(src);
		free(comp);
		free(out);
	}
	assert_true(tried > 10000);
}

static void test_corruptions(void **state)
{
	(void)state;
	unsigned ok_both = 0, fail_ours = 0, ok_ours_only = 0, ok_lib_only = 0, runs = 0;
	rng_seed(7);
	for (int sample = 0; sample < 60; sample++) {
		size_t n = sample < 20 ? 1 + rng_below(4096) : 1 + rng_below(131072);
		enum kind k = (enum kind)rng_below(K_COUNT);
		uint8_t *src = xmalloc(n), *comp = xmalloc(n + n / 16 + 67);
		size_t cap = 2 * n + 64;
		uint8_t *out = xmalloc(cap), *ref = xmalloc(cap);
		fill_kind(src, n, k);
		size_t clen = lzo_compress(sample % 3 == 2 ? C_1_15 : C_1, src, n, comp, n + n / 16 + 67);
		int iters = n > 20000 ? 60 : 300;
		for (int it = 0; it < iters; it++) {
			uint8_t *bad = dup_exact(comp, clen);
			size_t blen = clen, olen;
			int edits = 1 + (int)rng_below(4);
			for (int e = 0; e < edits; e++) {
				size_t pos = rng_below(blen);
				switch (rng_below(4)) {
				case 0: bad[pos] = (uint8_t)rng(); break;
				case 1: bad[pos] ^= (uint8_t)(1u << rng_below(8)); break;
				case 2: bad[pos] = rng_below(2) ? 0 : 0xff; break;
				default: bad[pos] = (uint8_t)(bad[pos] + 1 + rng_below(3)); break;
				}
			}
			/* exact-size output buffer (ASan) and a roomy one */
			uint8_t *exact = xmalloc(n);
			int r1 = er_lzo1x_decompress(bad, blen, exact, n, &olen);
			assert_true(olen <= n);
			assert_true(r1 <= 0 && r1 >= ER_LZO_E_INVALID_ARG);
			free(exact);
			int r = er_lzo1x_decompress(bad, blen, out, cap, &olen);
			assert_true(olen <= cap);
			lzo_uint rlen = cap;
			int rr = lzo1x_decompress_safe(bad, blen, ref, &rlen, NULL);
			if (r == ER_LZO_E_OK && rr == LZO_E_OK) {
				/* both accept: identical output */
				assert_int_equal(olen, rlen);
				assert_memory_equal(out, ref, olen);
				ok_both++;
			} else if (r == ER_LZO_E_OK) {
				/* only possible through the lzo-rle header, which liblzo2 lacks */
				assert_int_equal(bad[0], 17);
				ok_ours_only++;
			} else if (rr == LZO_E_OK) {
				/* only the kernel's stricter end-marker length check */
				assert_int_equal(r, ER_LZO_E_ERROR);
				ok_lib_only++;
			} else {
				fail_ours++;
			}
			/* whatever ours accepted re-decodes identically with exact capacity */
			if (r == ER_LZO_E_OK && olen <= n) {
				uint8_t *o2 = xmalloc(olen);
				size_t olen2;
				assert_int_equal(er_lzo1x_decompress(bad, blen, o2, olen, &olen2), ER_LZO_E_OK);
				assert_int_equal(olen2, olen);
				assert_memory_equal(o2, out, olen);
				free(o2);
			}
			free(bad);
			runs++;
		}
		free(src);
		free(comp);
		free(out);
		free(ref);
	}
	print_message("corruptions: %u runs, %u accepted by both, %u rejected by ours, %u ours-only, %u lib-only\n",
		      runs, ok_both, fail_ours, ok_ours_only, ok_lib_only);
	assert_true(runs > 5000);
	/* LZO has no checksum: many edits only change literals; but many are caught */
	assert_true(fail_ours > runs / 10);
	assert_true(ok_both > runs / 10);
	assert_true(ok_lib_only < runs / 100);
}

/* Random garbage: never crashes, and agrees with liblzo2 when both accept. */
static void test_random_garbage(void **state)
{
	(void)state;
	uint8_t in[512], out[4096], ref[4096];
	rng_seed(8);
	unsigned ok = 0;
	for (int it = 0; it < 200000; it++) {
		size_t n = rng_below(sizeof(in)), olen;
		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)(rng_below(3) ? rng_below(40) : rng());
		if (n && rng_below(2))
			in[0] = (uint8_t)(18 + rng_below(20));
		if (n >= 3 && rng_below(2)) {
			/* end with an end marker, so that some streams parse */
			in[n - 3] = 0x11;
			in[n - 2] = 0;
			in[n - 1] = 0;
		}
		uint8_t *x = dup_exact(in, n);
		int r = er_lzo1x_decompress(x, n, out, sizeof(out), &olen);
		free(x);
		assert_true(olen <= sizeof(out));
		if (r == ER_LZO_E_OK) {
			lzo_uint rl = sizeof(ref);
			if (in[0] != 17) {
				assert_int_equal(lzo1x_decompress_safe(in, n, ref, &rl, NULL), LZO_E_OK);
				assert_int_equal(rl, olen);
				assert_memory_equal(ref, out, olen);
			}
			ok++;
		}
	}
	print_message("random garbage: %u of 200000 accepted\n", ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_lzo1x_1),
		cmocka_unit_test(test_roundtrip_lzo1x_1_15),
		cmocka_unit_test(test_roundtrip_lzo1x_999),
		cmocka_unit_test(test_chunk_sequence),
		cmocka_unit_test(test_empty_and_tiny),
		cmocka_unit_test(test_literals_and_matches),
		cmocka_unit_test(test_overlapping_matches),
		cmocka_unit_test(test_lookbehind),
		cmocka_unit_test(test_end_marker_rules),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_lzo_rle_zero_run),
		cmocka_unit_test(test_bad_args_and_strerror),
		cmocka_unit_test(test_no_write_past_cap),
		cmocka_unit_test(test_truncated_prefixes),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_random_garbage),
	};
	return cmocka_run_group_tests_name("lzo", tests, group_setup, NULL);
}
