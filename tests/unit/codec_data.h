// SPDX-License-Identifier: GPL-2.0-or-later
/* Test data shared by the codec tests (test_lzo.c, test_lz4.c): a seeded generator
 * and inputs of several kinds (random, zero, text, repeats, code-like, page mixes).
 * Included by each test program; static functions only. */
#ifndef EFIRESUME_TESTS_CODEC_DATA_H
#define EFIRESUME_TESTS_CODEC_DATA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static __attribute__((unused)) uint64_t rng_state;
static inline void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static inline uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}
static inline size_t rng_below(size_t n) { return n ? (size_t)(rng() % n) : 0; }

enum kind { K_RANDOM, K_ZERO, K_TEXT, K_REPEAT, K_FAR_REPEAT, K_PERIODIC, K_CODE, K_MIXED, K_COUNT };
static __attribute__((unused)) const char *const kind_name[K_COUNT] = {
	"random", "zero", "text", "repeat", "far-repeat", "periodic", "code", "mixed",
};

static inline void fill_text(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"the", "kernel", "resume", "image", "page", "swap", "of", "and", "to", "a",
		"hibernation", "EFI", "loader", "memory", "0x1000", "struct", "return", "if",
		"int", "static", "void", "{", "}", ";", "=", "==", "->", "NULL", "size_t",
	};
	size_t i = 0;
	while (i < n) {
		const char *w = words[rng_below(ER_ARRAY_SIZE(words))];
		for (size_t k = 0; w[k] && i < n; k++)
			p[i++] = (uint8_t)w[k];
		if (i < n)
			p[i++] = rng_below(9) == 0 ? '\n' : ' ';
	}
}

static inline void fill_code(uint8_t *p, size_t n)
{
	static const uint8_t ops[] = { 0x48, 0x89, 0x8b, 0xe8, 0xc3, 0x0f, 0x85, 0x74, 0x31, 0xff, 0x55, 0x5d };
	size_t i = 0;
	while (i < n) {
		p[i++] = ops[rng_below(sizeof(ops))];
		if (rng_below(3) == 0) {
			uint32_t imm = (uint32_t)rng_below(rng_below(2) ? 256 : 65536);
			for (int k = 0; k < 4 && i < n; k++)
				p[i++] = (uint8_t)(imm >> (8 * k));
		}
	}
}

static inline void fill_kind(uint8_t *p, size_t n, enum kind k);

static inline void fill_page_like(uint8_t *p, size_t n)
{
	for (size_t off = 0; off < n; off += 4096) {
		size_t len = ER_MIN((size_t)4096, n - off);
		static const enum kind kinds[] = { K_ZERO, K_ZERO, K_TEXT, K_RANDOM, K_CODE, K_PERIODIC, K_REPEAT };
		fill_kind(p + off, len, kinds[rng_below(ER_ARRAY_SIZE(kinds))]);
	}
}

static inline void fill_kind(uint8_t *p, size_t n, enum kind k)
{
	size_t i;
	switch (k) {
	case K_RANDOM:
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)rng();
		break;
	case K_ZERO:
		memset(p, 0, n);
		break;
	case K_TEXT:
		fill_text(p, n);
		break;
	case K_REPEAT: {
		/* a short random block repeated with sparse mutations: long matches */
		size_t blk = 1 + rng_below(300);
		for (i = 0; i < n; i++)
			p[i] = i < blk ? (uint8_t)rng() : p[i - blk];
		for (i = 0; n && i < n / 500; i++)
			p[rng_below(n)] ^= (uint8_t)(1 + rng_below(255));
		break;
	}
	case K_FAR_REPEAT: {
		/* repeats at distances beyond 16 KiB (LZO M4 matches) and within 48 KiB */
		size_t blk = 16385 + rng_below(32768);
		for (i = 0; i < n; i++)
			p[i] = i < blk ? (uint8_t)rng() : p[i - blk];
		break;
	}
	case K_PERIODIC:
		/* runs with periods 1..9, sometimes up to 130 (overlapping matches),
		 * between random bytes */
		i = 0;
		while (i < n) {
			size_t per = rng_below(3) ? 1 + rng_below(9) : 1 + rng_below(130);
			size_t len = 1 + rng_below(rng_below(4) ? 600 : 5000);
			uint8_t pat[130];
			for (size_t j = 0; j < per; j++)
				pat[j] = (uint8_t)rng();
			for (size_t j = 0; j < len && i < n; j++)
				p[i++] = pat[j % per];
			for (size_t j = rng_below(6); j > 0 && i < n; j--)
				p[i++] = (uint8_t)rng();
		}
		break;
	case K_CODE:
		fill_code(p, n);
		break;
	case K_MIXED:
		fill_page_like(p, n);
		break;
	default:
		break;
	}
}

static __attribute__((unused)) const size_t sizes[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 31, 32, 33,
	63, 64, 65, 100, 127, 128, 255, 256, 257, 271, 1000, 1023, 4095, 4096, 4097, 8191,
	10000, 16383, 16384, 16385, 32768, 40001, 65535, 65536, 65537, 100000, 131071, 4096 * 32,
};

static inline uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	return p;
}

/* Exactly-sized heap copy, so that ASan flags any read past the end. */
static inline uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);
	assert_non_null(q);
	if (n)
		memcpy(q, p, n);
	return q;
}

#endif
