// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for image/crc32.c, with zlib's crc32() and a bitwise reference as
 * oracles. Every test runs three times: as er_crc32_le chooses (the 256-bit VPCLMULQDQ
 * folding where the CPU and OS allow it), with the 128-bit PCLMULQDQ folding
 * (er_crc32_no_avx) and on the table path forced (er_crc32_force_soft). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <zlib.h>

#include "image/crc32.h"

#include "codec_data.h"   /* the seeded generator */

/* Bit-at-a-time crc32_le, exactly as the kernel's lib/crc32.c CRC_LE_BITS == 1. */
static uint32_t ref_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0);
	}
	return crc;
}

static uint32_t zcrc(uint32_t crc, const uint8_t *p, size_t len)
{
	return (uint32_t)crc32(crc, p, (uInt)len);
}

/* Exactly-sized heap copy at a chosen misalignment, so ASan sees over-reads. */
static uint8_t *dup_at(const uint8_t *p, size_t n, size_t mis, uint8_t **base)
{
	*base = malloc(n + mis + 1);
	assert_non_null(*base);
	memcpy(*base + mis, p, n);
	return *base + mis;
}

static void test_known_vectors(void **state)
{
	(void)state;
	const uint8_t *s = (const uint8_t *)"123456789";
	/* the classic check value */
	assert_int_equal(er_crc32_zlib(0, s, 9), 0xCBF43926u);
	assert_int_equal(zcrc(0, s, 9), 0xCBF43926u);
	/* kernel convention: crc32_le(~0, p) ^ ~0 is the same check value */
	assert_int_equal(er_crc32_le(0xFFFFFFFFu, s, 9) ^ 0xFFFFFFFFu, 0xCBF43926u);
	assert_int_equal(er_crc32_le(0, s, 9), ref_crc32_le(0, s, 9));
	/* empty input leaves the seed alone */
	assert_int_equal(er_crc32_le(0x12345678u, s, 0), 0x12345678u);
	assert_int_equal(er_crc32_zlib(0, s, 0), 0);
	assert_int_equal(er_crc32_zlib(0xdeadbeefu, NULL, 0), 0xdeadbeefu);
	/* one zero byte from seed 0 stays 0 (no inversion) */
	assert_int_equal(er_crc32_le(0, "\0", 1), 0);
	/* a single 0x80 byte: table entry 0x80 */
	assert_int_equal(er_crc32_le(0, "\x80", 1), 0xEDB88320u);
}

static void test_vs_zlib_random(void **state)
{
	(void)state;
	uint8_t *buf = malloc(70000);
	assert_non_null(buf);
	rng_seed(21);
	for (size_t i = 0; i < 70000; i++)
		buf[i] = (uint8_t)rng();
	unsigned checked = 0;
	for (int it = 0; it < 3000; it++) {
		size_t n = it < 300 ? (size_t)it : rng_below(it < 2900 ? 5000 : 65536);
		size_t off = rng_below(70000 - n + 1), mis = rng_below(8);
		uint8_t *base, *p = dup_at(buf + off, n, mis, &base);
		uint32_t seed = it % 3 == 0 ? 0 : (uint32_t)rng();
		/* zlib semantics, any seed */
		assert_int_equal(er_crc32_zlib(seed, p, n), zcrc(seed, p, n));
		/* the identity: crc32_le(s, p) == ~zlib_crc32(~s, p) */
		assert_int_equal(er_crc32_le(seed, p, n), ~zcrc(~seed, p, n));
		assert_int_equal(er_crc32_le(0, p, n), ~zcrc(0xFFFFFFFFu, p, n));
		if (n < 3000)
			assert_int_equal(er_crc32_le(seed, p, n), ref_crc32_le(seed, p, n));
		free(base);
		checked++;
	}
	assert_int_equal(checked, 3000);
	free(buf);
}

static void test_chaining(void **state)
{
	(void)state;
	size_t n = 131072;
	uint8_t *buf = malloc(n);
	assert_non_null(buf);
	rng_seed(22);
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i & 1 ? rng() : rng_below(4));
	uint32_t whole_le = er_crc32_le(0, buf, n), whole_z = er_crc32_zlib(0, buf, n);
	assert_int_equal(whole_z, zcrc(0, buf, n));
	for (int it = 0; it < 500; it++) {
		/* split into 1..8 pieces at random points */
		size_t cuts[9], k = 1 + rng_below(8);
		cuts[0] = 0;
		for (size_t i = 1; i < k; i++)
			cuts[i] = rng_below(n + 1);
		cuts[k] = n;
		/* sort the cut points */
		for (size_t i = 1; i < k; i++)
			for (size_t j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
				size_t t = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = t;
			}
		uint32_t le = 0, z = 0;
		for (size_t i = 0; i < k; i++) {
			le = er_crc32_le(le, buf + cuts[i], cuts[i + 1] - cuts[i]);
			z = er_crc32_zlib(z, buf + cuts[i], cuts[i + 1] - cuts[i]);
		}
		assert_int_equal(le, whole_le);
		assert_int_equal(z, whole_z);
	}
	/* byte-by-byte chaining on a short stretch */
	uint32_t le = 0x5a5a5a5au;
	for (size_t i = 0; i < 1000; i++)
		le = er_crc32_le(le, buf + i, 1);
	assert_int_equal(le, er_crc32_le(0x5a5a5a5au, buf, 1000));
	free(buf);
}

/* crc_le(0, A||B||...) from pieces computed apart: the loader's parallel CRC */
static void test_combine(void **state)
{
	(void)state;
	static uint8_t buf[300000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(rand() >> 7);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)rand() % sizeof(buf), off = 0;
		uint32_t whole = er_crc32_le(0, buf, n), joined = 0;
		while (off < n) {
			size_t len = 1 + (size_t)rand() % (round % 2 ? 131072 : 5000);
			if (len > n - off)
				len = n - off;
			joined = er_crc32_le_combine(joined, er_crc32_le(0, buf + off, len), len);
			off += len;
		}
		assert_int_equal(joined, whole);
	}
	assert_int_equal(er_crc32_le_combine(0x12345678u, 0, 0), 0x12345678u);
	/* against zlib too: ~zlib(A||B) with the same pieces */
	uint32_t a = er_crc32_le(0, buf, 1000), b = er_crc32_le(0, buf + 1000, 7777);
	assert_int_equal(er_crc32_le_combine(a, b, 7777), ~(uint32_t)crc32(0xffffffffu, buf, 8777));
}

static void test_page_sized(void **state)
{
	(void)state;
	/* page-aligned 4 KiB blocks, as the loader checksums them */
	uint8_t *pages = aligned_alloc(4096, 64 * 4096);
	assert_non_null(pages);
	rng_seed(23);
	for (size_t i = 0; i < 64 * 4096; i++)
		pages[i] = (uint8_t)((i / 4096) % 4 == 0 ? 0 : rng());
	for (size_t pg = 0; pg < 64; pg++) {
		const uint8_t *p = pages + pg * 4096;
		assert_int_equal(er_crc32_le(0, p, 4096), ~zcrc(0xFFFFFFFFu, p, 4096));
		assert_int_equal(er_crc32_zlib(0, p, 4096), zcrc(0, p, 4096));
	}
	assert_int_equal(er_crc32_zlib(0, pages, 64 * 4096), zcrc(0, pages, 64 * 4096));
	free(pages);
}

/* every length 0..10000 (the start misaligned by len % 16), and 0..300 at each of 16
 * misalignments: the folding path's 64-byte minimum, its 16-byte steps and the tail */
static void test_every_length(void **state)
{
	(void)state;
	enum { N = 10001 + 16 };
	uint8_t *buf = malloc(N);
	assert_non_null(buf);
	rng_seed(24);
	for (size_t i = 0; i < N; i++)
		buf[i] = (uint8_t)rng();
	for (size_t n = 0; n <= 10000; n++) {
		uint32_t seed = (uint32_t)rng();
		assert_int_equal(er_crc32_zlib(seed, buf + n % 16, n), zcrc(seed, buf + n % 16, n));
	}
	for (size_t mis = 0; mis < 16; mis++)
		for (size_t n = 0; n <= 300; n++)
			assert_int_equal(er_crc32_le(0, buf + mis, n), ~zcrc(0xFFFFFFFFu, buf + mis, n));
	free(buf);
}

/* the two paths agree, on the same inputs (checked here whatever the path set up) */
static void test_paths_agree(void **state)
{
	(void)state;
	uint8_t *buf = malloc(70000);
	assert_non_null(buf);
	if (!er_crc32_hw_available()) {
		print_message("no PCLMULQDQ here: one path only\n");
		free(buf);
		skip();
	}
	rng_seed(25);
	for (size_t i = 0; i < 70000; i++)
		buf[i] = (uint8_t)rng();
	for (int it = 0; it < 2000; it++) {
		size_t n = rng_below(it < 1000 ? 1000 : 65536), off = rng_below(70000 - n + 1);
		uint32_t seed = (uint32_t)rng(), a, b, c;
		er_crc32_force_soft(false);
		er_crc32_no_avx(false);
		a = er_crc32_le(seed, buf + off, n);
		er_crc32_no_avx(true);
		b = er_crc32_le(seed, buf + off, n);
		er_crc32_force_soft(true);
		c = er_crc32_le(seed, buf + off, n);
		assert_int_equal(a, c);
		assert_int_equal(b, c);
	}
	er_crc32_force_soft(false);
	er_crc32_no_avx(false);
	free(buf);
}

static int path_auto(void **state)
{
	(void)state;
	er_crc32_force_soft(false);
	er_crc32_no_avx(false);
	return 0;
}

static int path_clmul128(void **state)
{
	(void)state;
	er_crc32_force_soft(false);
	er_crc32_no_avx(true);
	return 0;
}

static int path_tables(void **state)
{
	(void)state;
	er_crc32_force_soft(true);
	return 0;
}

#define PATHS(t) cmocka_unit_test_setup_teardown(t, path_auto, path_auto), \
		cmocka_unit_test_setup_teardown(t, path_clmul128, path_auto), \
		cmocka_unit_test_setup_teardown(t, path_tables, path_auto)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PATHS(test_known_vectors),
		PATHS(test_vs_zlib_random),
		PATHS(test_chaining),
		PATHS(test_page_sized),
		PATHS(test_combine),
		PATHS(test_every_length),
		cmocka_unit_test(test_paths_agree),
	};
	print_message("PCLMULQDQ path: %s, VPCLMULQDQ (AVX2) path: %s\n", er_crc32_hw_available() ? "yes" : "no",
		      er_crc32_avx_available() ? "yes" : "no");
	return cmocka_run_group_tests_name("crc32", tests, NULL, NULL);
}
