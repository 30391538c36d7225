// SPDX-License-Identifier: GPL-2.0-or-later
/* Shared by the host benchmarks in tools/: a page-like data generator (zero pages,
 * text, code, random data, page tables, in kernel-image-like proportions), a monotonic
 * clock and medians. */
#ifndef EFIRESUME_TOOLS_BENCH_H
#define EFIRESUME_TOOLS_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static inline uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline void synth_page(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"the ", "kernel ", "resume ", "image ", "page ", "swap ", "of ", "and ", "to ", "a ",
		"hibernation ", "struct ", "return ", "if (", "int ", "static ", "void ", "{\n", "}\n", ";\n",
		"= ", "== ", "->", "NULL", "size_t ", "0x", "error: ", "/usr/lib/", ".so", "\n\t",
	};
	static const uint8_t ops[] = { 0x48, 0x89, 0x8b, 0xe8, 0xc3, 0x0f, 0x85, 0x74, 0x31, 0xff, 0x55, 0x5d, 0x41, 0x83 };
	unsigned kind = (unsigned)(rng() % 100);
	size_t i = 0;

	if (kind < 30) {                       /* zero page */
		memset(p, 0, n);
	} else if (kind < 55) {                /* text */
		while (i < n) {
			const char *w = words[rng() % (sizeof(words) / sizeof(words[0]))];
			for (size_t k = 0; w[k] && i < n; k++)
				p[i++] = (uint8_t)w[k];
		}
	} else if (kind < 75) {                /* code-like */
		while (i < n) {
			p[i++] = ops[rng() % sizeof(ops)];
			if (rng() % 3 == 0) {
				uint32_t imm = (uint32_t)(rng() % (rng() % 2 ? 256 : 65536));
				for (int k = 0; k < 4 && i < n; k++)
					p[i++] = (uint8_t)(imm >> (8 * k));
			}
		}
	} else if (kind < 90) {                /* random (already compressed data, keys) */
		for (; i + 8 <= n; i += 8) {
			uint64_t v = rng();
			memcpy(p + i, &v, 8);
		}
		for (; i < n; i++)
			p[i] = (uint8_t)rng();
	} else {                               /* page-table / struct-array-like */
		uint64_t base = (rng() & 0xffffff) << 12;
		for (; i + 8 <= n; i += 8) {
			uint64_t v = rng() % 4 ? base + (i / 8) * 4096 + 0x63 : 0;
			memcpy(p + i, &v, 8);
		}
		for (; i < n; i++)
			p[i] = 0;
	}
}

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

/* The bench's input: FILE (argv[1]) read whole, or without it 64 MiB of synth_page()
 * pages. NULL after printing why (a usage error when argv[1] starts with '-'). */
static inline uint8_t *bench_input(int argc, char **argv, size_t *total)
{
	uint8_t *data;
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
		return NULL;
	}
	if (argc == 1) {
		*total = 64u << 20;
		data = malloc(*total);
		for (size_t off = 0; data && off < *total; off += 4096)
			synth_page(data + off, 4096);
		return data;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0) {
		perror(argv[1]);
		return NULL;
	}
	long sz = ftell(f);
	if (sz <= 0) {
		fprintf(stderr, "%s: empty or unreadable\n", argv[1]);
		fclose(f);
		return NULL;
	}
	*total = (size_t)sz;
	data = malloc(*total);
	rewind(f);
	if (!data || fread(data, 1, *total, f) != *total) {
		perror(argv[1]);
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

#endif
