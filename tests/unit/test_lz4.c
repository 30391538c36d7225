// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/lz4.c, with liblz4 as the oracle.
 *
 * Inputs of many shapes and sizes are compressed with liblz4
 * (LZ4_compress_default, the kernel's compressor; LZ4_compress_fast; and
 * LZ4_compress_HC, which finds long matches at offsets up to 64 KiB), decoded by
 * er_lz4_decompress into exactly-sized heap buffers (so that ASan sees any byte
 * read or written out of bounds) and compared byte for byte. Truncated and
 * corrupted blocks must fail cleanly or decode to something, with no sanitizer
 * report; crafted blocks check each error path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lz4.h>
#include <lz4hc.h>

#include "image/lz4.h"

#include "codec_data.h"

/* ------------------------------------------------------------ compressors */

enum lz4_comp { C_DEFAULT, C_FAST, C_HC9, C_HC12 };

static size_t lz4_bound(size_t n) { return (size_t)LZ4_compressBound((int)n) + 16; }

static size_t lz4_compress(enum lz4_comp c, const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap)
{
	int r;
	switch (c) {
	case C_DEFAULT: r = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)dst_cap); break;
	case C_FAST:    r = LZ4_compress_fast((const char *)src, (char *)dst, (int)n, (int)dst_cap, 17); break;
	case C_HC9:     r = LZ4_compress_HC((const char *)src, (char *)dst, (int)n, (int)dst_cap, 9); break;
	default:        r = LZ4_compress_HC((const char *)src, (char *)dst, (int)n, (int)dst_cap, LZ4HC_CLEVEL_MAX); break;
	}
	assert_true(r > 0);
	return (size_t)r;
}

/* Decompress comp (exact heap copy) into an exactly-sized buffer of cap bytes. */
static int ours(const uint8_t *comp, size_t clen, size_t cap, uint8_t **outp, size_t *olen)
{
	uint8_t *in = dup_exact(comp, clen);
	uint8_t *out = xmalloc(cap);
	*olen = (size_t)-1;
	int r = er_lz4_decompress(in, clen, out, cap, olen);
	assert_true(*olen <= cap);
	free(in);
	*outp = out;
	return r;
}

/* ------------------------------------------------------------ round trips */

static void roundtrip_one(enum lz4_comp c, enum kind k, size_t n, unsigned *checked)
{
	size_t bound = lz4_bound(n);
	uint8_t *src = xmalloc(n), *comp = xmalloc(bound), *out, *ref;
	size_t clen, olen;

	fill_kind(src, n, k);
	clen = lz4_compress(c, src, n, comp, bound);

	assert_int_equal(ours(comp, clen, n, &out, &olen), ER_LZ4_E_OK);
	if (olen != n || memcmp(out, src, n) != 0)
		fail_msg("lz4 comp %d kind %s size %zu: mismatch (olen %zu)", c, kind_name[k], n, olen);
	free(out);

	assert_int_equal(ours(comp, clen, n + 100, &out, &olen), ER_LZ4_E_OK);
	assert_int_equal(olen, n);
	assert_memory_equal(out, src, n);

	ref = xmalloc(n);
	assert_int_equal(LZ4_decompress_safe((const char *)comp, (char *)ref, (int)clen, (int)n), (int)n);
	assert_memory_equal(ref, out, n);
	free(ref);
	free(out);

	if (n > 0) {
		assert_int_equal(ours(comp, clen, n - 1, &out, &olen), ER_LZ4_E_OUTPUT_OVERRUN);
		assert_true(olen <= n - 1);
		assert_memory_equal(out, src, olen);
		free(out);
	}
	free(src);
	free(comp);
	(*checked)++;
}

static void roundtrip_all(enum lz4_comp c, uint64_t seed, size_t max_size)
{
	unsigned checked = 0, expect = 0;
	rng_seed(seed);
	for (int k = 0; k < K_COUNT; k++)
		for (size_t i = 0; i < ER_ARRAY_SIZE(sizes); i++)
			if (sizes[i] <= max_size) {
				roundtrip_one(c, (enum kind)k, sizes[i], &checked);
				expect++;
			}
	for (int i = 0; i < 40; i++)
		roundtrip_one(c, (enum kind)rng_below(K_COUNT), 1 + rng_below(max_size), &checked);
	assert_int_equal(checked, expect + 40);
}

static void test_roundtrip_default(void **state) { (void)state; roundtrip_all(C_DEFAULT, 11, 131072); }
static void test_roundtrip_fast(void **state) { (void)state; roundtrip_all(C_FAST, 12, 131072); }
static void test_roundtrip_hc9(void **state) { (void)state; roundtrip_all(C_HC9, 13, 131072); }
static void test_roundtrip_hc12(void **state) { (void)state; roundtrip_all(C_HC12, 14, 65536); }

/* Kernel-sized chunks decoded back to back into one buffer. */
static void test_chunk_sequence(void **state)
{
	(void)state;
	const size_t chunk = 131072, nchunks = 8;
	uint8_t *src = xmalloc(chunk * nchunks), *dst = xmalloc(chunk * nchunks);
	uint8_t *comp = xmalloc(lz4_bound(chunk));
	rng_seed(15);
	fill_page_like(src, chunk * nchunks);
	for (size_t i = 0; i < nchunks; i++) {
		size_t clen = lz4_compress(i & 1 ? C_HC9 : C_DEFAULT, src + i * chunk, chunk, comp, lz4_bound(chunk)), olen;
		assert_int_equal(er_lz4_decompress(comp, clen, dst + i * chunk, (nchunks - i) * chunk, &olen), 0);
		assert_int_equal(olen, chunk);
	}
	assert_memory_equal(src, dst, chunk * nchunks);
	free(src);
	free(dst);
	free(comp);
}

/* ------------------------------------------------------------ crafted blocks */

static int dec(const uint8_t *s, size_t n, uint8_t *out, size_t cap, size_t *olen)
{
	uint8_t *in = dup_exact(s, n);
	int r = er_lz4_decompress(in, n, out, cap, olen);
	free(in);
	return r;
}

static void test_empty_and_tiny(void **state)
{
	(void)state;
	uint8_t out[32] = { 0 }, comp[32];
	size_t olen = 99;

	/* LZ4 of nothing is one zero token */
	assert_int_equal(lz4_compress(C_DEFAULT, out, 0, comp, sizeof(comp)), 1);
	assert_int_equal(comp[0], 0);
	assert_int_equal(dec(comp, 1, out, sizeof(out), &olen), ER_LZ4_E_OK);
	assert_int_equal(olen, 0);
	assert_int_equal(dec(comp, 1, out, 0, &olen), ER_LZ4_E_OK);
	olen = 99;
	assert_int_equal(dec(comp, 0, out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	assert_int_equal(olen, 0);

	/* literals only */
	static const uint8_t lit[] = { 0x50, 'h', 'e', 'l', 'l', 'o' };
	assert_int_equal(dec(lit, sizeof(lit), out, sizeof(out), &olen), ER_LZ4_E_OK);
	assert_int_equal(olen, 5);
	assert_memory_equal(out, "hello", 5);
	assert_int_equal(dec(lit, sizeof(lit), out, 5, &olen), ER_LZ4_E_OK);
	assert_int_equal(dec(lit, sizeof(lit), out, 4, &olen), ER_LZ4_E_OUTPUT_OVERRUN);
	assert_int_equal(olen, 0);
	assert_int_equal(dec(lit, 5, out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
}

static void test_overlapping_matches(void **state)
{
	(void)state;
	/* every offset 1..140 with many lengths (short, and long enough for the
	 * lcm(offset, 8) path), against liblz4 and a naive reference copy */
	static const size_t mls[] = { 41, 47, 63, 64, 65, 71, 100, 127, 128, 129, 200, 300, 1000, 1024, 5000 };
	for (size_t off = 1; off <= 140; off++) {
		for (size_t mi = 0; mi < 37 + ER_ARRAY_SIZE(mls); mi++) {
			size_t ml = mi < 37 ? 4 + mi : mls[mi - 37];
			uint8_t blk[256], exp[5200], out[5200], ref[5200];
			size_t b = 0, olen;
			/* 140 literals, match (off, ml), 12 last literals */
			blk[b++] = (uint8_t)(0xf0 | (ml - 4 >= 15 ? 15 : ml - 4));
			blk[b++] = 140 - 15;
			for (int i = 0; i < 140; i++)
				blk[b++] = (uint8_t)(i * 37 + 11);
			blk[b++] = (uint8_t)off;
			blk[b++] = 0;
			if (ml - 4 >= 15) {
				size_t rest = ml - 4 - 15;
				while (rest >= 255) {
					blk[b++] = 255;
					rest -= 255;
				}
				blk[b++] = (uint8_t)rest;
			}
			/* 12 last literals: a conforming block (last match >= 12 bytes before the end) */
			blk[b++] = 0xc0;
			memcpy(blk + b, "vwxyz0123456", 12);
			b += 12;
			size_t n = 140 + ml + 12;
			for (size_t i = 0; i < 140; i++)
				exp[i] = (uint8_t)(i * 37 + 11);
			for (size_t i = 140; i < 140 + ml; i++)
				exp[i] = exp[i - off];
			memcpy(exp + 140 + ml, "vwxyz0123456", 12);
			assert_int_equal(LZ4_decompress_safe((const char *)blk, (char *)ref, (int)b, (int)n), (int)n);
			assert_memory_equal(ref, exp, n);
			/* exact capacity (byte paths at the end) and roomy (fast paths) */
			assert_int_equal(dec(blk, b, out, n, &olen), ER_LZ4_E_OK);
			assert_int_equal(olen, n);
			assert_memory_equal(out, exp, n);
			assert_int_equal(dec(blk, b, out, sizeof(out), &olen), ER_LZ4_E_OK);
			assert_int_equal(olen, n);
			assert_memory_equal(out, exp, n);
			assert_int_equal(dec(blk, b, out, n - 1, &olen), ER_LZ4_E_OUTPUT_OVERRUN);
		}
	}
}

static void test_bad_blocks(void **state)
{
	(void)state;
	uint8_t out[512];
	size_t olen;

	/* offset 0 is invalid (liblz4 1.9.4 happens to accept it; the spec does not) */
	static const uint8_t off0[] = { 0x40, 'a', 'b', 'c', 'd', 0x00, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z' };
	assert_int_equal(dec(off0, sizeof(off0), out, sizeof(out), &olen), ER_LZ4_E_ERROR);
	assert_int_equal(olen, 4);
	/* offset beyond the start of output */
	static const uint8_t lb[] = { 0x40, 'a', 'b', 'c', 'd', 0x05, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z' };
	assert_int_equal(dec(lb, sizeof(lb), out, sizeof(out), &olen), ER_LZ4_E_LOOKBEHIND);
	assert_int_equal(olen, 4);
	static const uint8_t lb0[] = { 0x00, 0x01, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z' };
	assert_int_equal(dec(lb0, sizeof(lb0), out, sizeof(out), &olen), ER_LZ4_E_LOOKBEHIND);
	assert_int_equal(olen, 0);
	/* offset 4 is fine */
	static const uint8_t ok[] = { 0x40, 'a', 'b', 'c', 'd', 0x04, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z' };
	assert_int_equal(dec(ok, sizeof(ok), out, sizeof(out), &olen), ER_LZ4_E_OK);
	assert_int_equal(olen, 13);
	assert_memory_equal(out, "abcdabcdvwxyz", 13);
	/* block ending with a match (no last literals) */
	static const uint8_t endm[] = { 0x40, 'a', 'b', 'c', 'd', 0x04, 0x00 };
	assert_int_equal(dec(endm, sizeof(endm), out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	assert_int_equal(olen, 8);
	/* offset cut in half */
	assert_int_equal(dec(endm, 6, out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	/* literal length extension running off the end */
	static const uint8_t lext[] = { 0xf0, 0xff, 0xff, 0xff };
	assert_int_equal(dec(lext, sizeof(lext), out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	/* literal length larger than the input */
	static const uint8_t llong[] = { 0xf0, 0x10, 'a', 'b' };
	assert_int_equal(dec(llong, sizeof(llong), out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	/* match length extension running off the end */
	static const uint8_t mext[] = { 0x4f, 'a', 'b', 'c', 'd', 0x01, 0x00, 0xff, 0xff };
	assert_int_equal(dec(mext, sizeof(mext), out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	/* match longer than the output */
	static const uint8_t mlong[] = { 0x4f, 'a', 'b', 'c', 'd', 0x01, 0x00, 0xff, 0x00, 0x00 };
	assert_int_equal(dec(mlong, sizeof(mlong), out, 256, &olen), ER_LZ4_E_OUTPUT_OVERRUN);
	assert_int_equal(olen, 4);
	assert_int_equal(dec(mlong, sizeof(mlong), out, 4 + 4 + 15 + 255, &olen), ER_LZ4_E_OK);
	assert_int_equal(olen, 4 + 4 + 15 + 255);
}

static void test_huge_lengths(void **state)
{
	(void)state;
	/* 1 MB of 255s: a literal length far beyond the input */
	size_t n = 1 << 20, olen;
	uint8_t *s = malloc(n), out[64];
	assert_non_null(s);
	memset(s, 0xff, n);
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	s[n - 1] = 0;
	assert_int_equal(dec(s, n, out, sizeof(out), &olen), ER_LZ4_E_INPUT_OVERRUN);
	/* a match length of ~267 MB */
	memcpy(s, (const uint8_t[]){ 0x4f, 'a', 'b', 'c', 'd', 0x01, 0x00 }, 7);
	s[n - 2] = 0;
	s[n - 1] = 0x00;
	assert_int_equal(dec(s, n - 1, out, sizeof(out), &olen), ER_LZ4_E_OUTPUT_OVERRUN);
	free(s);
}

static void test_bad_args_and_strerror(void **state)
{
	(void)state;
	uint8_t buf[16] = { 0 };
	size_t olen;
	assert_int_equal(er_lz4_decompress(NULL, 1, buf, 16, &olen), ER_LZ4_E_INVALID_ARG);
	assert_int_equal(er_lz4_decompress(buf, 1, NULL, 16, &olen), ER_LZ4_E_INVALID_ARG);
	assert_int_equal(er_lz4_decompress(buf, 1, buf + 8, 8, NULL), ER_LZ4_E_INVALID_ARG);
	static const int codes[] = { ER_LZ4_E_OK, ER_LZ4_E_ERROR, ER_LZ4_E_INPUT_OVERRUN, ER_LZ4_E_OUTPUT_OVERRUN,
				     ER_LZ4_E_LOOKBEHIND, ER_LZ4_E_INVALID_ARG };
	for (size_t i = 0; i < ER_ARRAY_SIZE(codes); i++) {
		const char *s = er_lz4_strerror(codes[i]);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, er_lz4_strerror(codes[j]));
	}
	assert_string_equal(er_lz4_strerror(-1000), "unknown LZ4 error");
}

static void test_no_write_past_cap(void **state)
{
	(void)state;
	size_t n = 3 * 4096 + 123, extra = 64;
	uint8_t *src = xmalloc(n), *comp = xmalloc(lz4_bound(n)), *out = xmalloc(n + extra);
	rng_seed(16);
	fill_page_like(src, n);
	size_t clen = lz4_compress(C_DEFAULT, src, n, comp, lz4_bound(n)), olen;
	for (size_t cap = 0; cap <= n; cap += (cap < 64 || cap > n - 64) ? 1 : 97) {
		memset(out, 0xa5, n + extra);
		int r = er_lz4_decompress(comp, clen, out, cap, &olen);
		assert_int_equal(r, cap == n ? ER_LZ4_E_OK : ER_LZ4_E_OUTPUT_OVERRUN);
		for (size_t i = cap; i < n + extra; i++)
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
	static const struct { enum kind k; size_t n; enum lz4_comp c; } samples[] = {
		{ K_MIXED, 4096 * 8, C_DEFAULT }, { K_TEXT, 5000, C_DEFAULT }, { K_RANDOM, 300, C_DEFAULT },
		{ K_PERIODIC, 9000, C_HC12 }, { K_FAR_REPEAT, 40000, C_HC9 }, { K_ZERO, 131072, C_DEFAULT },
		{ K_CODE, 2000, C_FAST },
	};
	unsigned tried = 0, accepted = 0;
	rng_seed(17);
	for (size_t s = 0; s < ER_ARRAY_SIZE(samples); s++) {
		size_t n = samples[s].n, clen, olen;
		uint8_t *src = xmalloc(n), *comp = xmalloc(lz4_bound(n)), *out = xmalloc(n), *ref = xmalloc(n);
		fill_kind(src, n, samples[s].k);
		clen = lz4_compress(samples[s].c, src, n, comp, lz4_bound(n));
		for (size_t len = 0; len < clen; len++) {
			uint8_t *in = dup_exact(comp, len);
			int r = er_lz4_decompress(in, len, out, n, &olen);
			int rr = LZ4_decompress_safe((const char *)in, (char *)ref, (int)len, (int)n);
			assert_true(r <= 0 && r >= ER_LZ4_E_INVALID_ARG);
			assert_true(olen <= n);
			/* whatever was produced is a prefix of the data */
			assert_memory_equal(out, src, olen);
			if (r == ER_LZ4_E_OK) {
				/* only a cut right after a sequence's literals decodes: to a strict prefix */
				assert_true(olen < n);
				accepted++;
			}
			if (rr >= 0) {
				/* whatever liblz4 accepts, we accept identically */
				assert_int_equal(r, ER_LZ4_E_OK);
				assert_int_equal((size_t)rr, olen);
			}
			free(in);
			tried++;
		}
		assert_int_equal(er_lz4_decompress(comp, clen, out, n, &olen), ER_LZ4_E_OK);
		assert_int_equal(olen, n);
		free(src);
		free(comp);
		free(out);
		free(ref);
	}
	print_message("prefixes: %u tried, %u decoded to a strict prefix\n", tried, accepted);
	assert_true(tried > 10000);
	assert_true(accepted < tried / 10);
}

static void test_corruptions(void **state)
{
	(void)state;
	unsigned ok_both = 0, fail_both = 0, ok_ours_only = 0, ok_lib_only = 0, runs = 0;
	rng_seed(18);
	for (int sample = 0; sample < 60; sample++) {
		size_t n = sample < 20 ? 1 + rng_below(4096) : 1 + rng_below(131072);
		enum kind k = (enum kind)rng_below(K_COUNT);
		size_t bound = lz4_bound(n), cap = 2 * n + 64;
		uint8_t *src = xmalloc(n), *comp = xmalloc(bound), *out = xmalloc(cap), *ref = xmalloc(cap);
		fill_kind(src, n, k);
		size_t clen = lz4_compress(sample % 3 == 2 ? C_HC9 : C_DEFAULT, src, n, comp, bound);
		int iters = n > 20000 ? 60 : 300;
		for (int it = 0; it < iters; it++) {
			uint8_t *bad = dup_exact(comp, clen);
			size_t olen;
			int edits = 1 + (int)rng_below(4);
			for (int e = 0; e < edits; e++) {
				size_t pos = rng_below(clen);
				switch (rng_below(4)) {
				case 0: bad[pos] = (uint8_t)rng(); break;
				case 1: bad[pos] ^= (uint8_t)(1u << rng_below(8)); break;
				case 2: bad[pos] = rng_below(2) ? 0 : 0xff; break;
				default: bad[pos] = (uint8_t)(bad[pos] + 1 + rng_below(3)); break;
				}
			}
			uint8_t *exact = xmalloc(n);
			int r1 = er_lz4_decompress(bad, clen, exact, n, &olen);
			assert_true(olen <= n);
			assert_true(r1 <= 0 && r1 >= ER_LZ4_E_INVALID_ARG);
			free(exact);
			int r = er_lz4_decompress(bad, clen, out, cap, &olen);
			assert_true(olen <= cap);
			int rr = LZ4_decompress_safe((const char *)bad, (char *)ref, (int)clen, (int)cap);
			if (r == ER_LZ4_E_OK && rr >= 0) {
				assert_int_equal(olen, (size_t)rr);
				assert_memory_equal(out, ref, olen);
				ok_both++;
			} else if (rr >= 0) {
				/* liblz4 accepts offset 0; we do not */
				assert_int_equal(r, ER_LZ4_E_ERROR);
				ok_lib_only++;
			} else if (r == ER_LZ4_E_OK) {
				/* we are lenient about the end-of-block rules */
				ok_ours_only++;
			} else {
				fail_both++;
			}
			if (r == ER_LZ4_E_OK && olen <= n) {
				uint8_t *o2 = xmalloc(olen);
				size_t olen2;
				assert_int_equal(er_lz4_decompress(bad, clen, o2, olen, &olen2), ER_LZ4_E_OK);
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
	print_message("corruptions: %u runs, %u accepted by both, %u rejected by both, %u ours-only, %u lib-only\n",
		      runs, ok_both, fail_both, ok_ours_only, ok_lib_only);
	assert_true(runs > 5000);
	assert_true(fail_both > runs / 10);
	assert_true(ok_both > runs / 10);
	assert_true(ok_ours_only < runs / 20);
}

static void test_random_garbage(void **state)
{
	(void)state;
	uint8_t in[512], out[4096], ref[4096];
	unsigned ok = 0, lib_ok = 0;
	rng_seed(19);
	for (int it = 0; it < 200000; it++) {
		size_t n = rng_below(sizeof(in)), olen;
		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)(rng_below(3) ? rng_below(32) : rng());
		uint8_t *x = dup_exact(in, n);
		int r = er_lz4_decompress(x, n, out, sizeof(out), &olen);
		int rr = LZ4_decompress_safe((const char *)x, (char *)ref, (int)n, (int)sizeof(ref));
		free(x);
		assert_true(olen <= sizeof(out));
		if (r == ER_LZ4_E_OK)
			ok++;
		if (rr >= 0) {
			lib_ok++;
			if (r == ER_LZ4_E_OK) {
				assert_int_equal((size_t)rr, olen);
				assert_memory_equal(ref, out, olen);
			} else {
				assert_int_equal(r, ER_LZ4_E_ERROR);
			}
		}
	}
	print_message("random garbage: %u of 200000 accepted (liblz4: %u)\n", ok, lib_ok);
	assert_true(ok > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_default),
		cmocka_unit_test(test_roundtrip_fast),
		cmocka_unit_test(test_roundtrip_hc9),
		cmocka_unit_test(test_roundtrip_hc12),
		cmocka_unit_test(test_chunk_sequence),
		cmocka_unit_test(test_empty_and_tiny),
		cmocka_unit_test(test_overlapping_matches),
		cmocka_unit_test(test_bad_blocks),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_bad_args_and_strerror),
		cmocka_unit_test(test_no_write_past_cap),
		cmocka_unit_test(test_truncated_prefixes),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_random_garbage),
	};
	return cmocka_run_group_tests_name("lz4", tests, NULL, NULL);
}
