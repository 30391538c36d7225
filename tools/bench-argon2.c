// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-argon2: Argon2id at LUKS2-like parameters, ours against libargon2 (the reference
 * build Debian ships).
 *
 *   build/bench-argon2 [RUNS]          (default 5; the 1 GiB case runs once regardless)
 *
 * Cases: t=4 m=64 MiB p=4 (RUNS runs, medians), then t=1 m=1 GiB p=4 (once). Each case times
 * er_argon2 serially (NULL lane engine), er_argon2 with its lanes on 2 pthreads through the
 * er_lanes hook, and libargon2's argon2_ctx with threads=1 and threads=2, runs interleaved.
 * All four work in the same buffer, allocated and touched once before the timing (libargon2
 * gets it through its allocate_cbk), so page faults are not timed: the firmware's memory is
 * pre-allocated pages too. Both wipe the memory at the end (libargon2 by default), which is
 * timed. The four outputs must be equal (else exit 1). Printed: median wall-clock
 * milliseconds, median CPU milliseconds of the process, MiB/s of Argon2 memory filled per
 * pass (wall), and ours/libargon2 ratios of the wall times (below 1 = ours faster):
 *
 *   argon2id t=4 m=65536KiB p=4 (5 runs)  ours-1t 812 ms  ours-2t 455 ms  lib-1t 700 ms ...
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <argon2.h>

#include "crypto/argon2.h"

#define MAXRUNS 31

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the er_lanes hook on pthreads: `workers` threads take lanes from a shared counter, as the
 * loader's MP engine hands them to the other CPUs */
struct pt_job {
	er_lane_fn fn;
	void *arg;
	uint32_t n, next;
	pthread_mutex_t lock;
};

static void *pt_worker(void *p)
{
	struct pt_job *j = p;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		uint32_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		j->fn(j->arg, i);
	}
}

static void pt_run(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	unsigned workers = *(const unsigned *)ctx;
	struct pt_job j = { .fn = fn, .arg = arg, .n = n, .next = 0 };
	pthread_t th[8];

	pthread_mutex_init(&j.lock, NULL);
	for (unsigned i = 1; i < workers && i < 8; i++)
		if (pthread_create(&th[i], NULL, pt_worker, &j) != 0) {
			fprintf(stderr, "bench-argon2: pthread_create failed\n");
			exit(1);
		}
	pt_worker(&j);          /* the calling thread is one of the workers (the BSP's share) */
	for (unsigned i = 1; i < workers && i < 8; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.lock);
}

enum variant { OURS_1T, OURS_2T, LIB_1T, LIB_2T, NVARIANTS };
static const char *const names[NVARIANTS] = { "ours-1t", "ours-2t", "lib-1t", "lib-2t" };

static uint8_t pwd[] = "correct horse battery staple";
static uint8_t salt[32];
static uint8_t *arena;          /* the working memory, touched before timing */
static size_t arena_len;

static int lib_alloc(uint8_t **memory, size_t bytes)
{
	if (bytes > arena_len)
		return ARGON2_MEMORY_ALLOCATION_ERROR;
	*memory = arena;
	return ARGON2_OK;
}

static void lib_free(uint8_t *memory, size_t bytes)
{
	(void)memory;
	(void)bytes;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double run_one(enum variant v, uint32_t t, uint32_t m, uint32_t lanes, uint8_t *out, size_t outlen,
		      double *cpu)
{
	double c0 = cpu_ms(), t0 = now_ms();
	if (v == OURS_1T || v == OURS_2T) {
		struct er_argon2_params p = { .type = ER_ARGON2ID, .t_cost = t, .m_cost_kib = m, .lanes = lanes,
					      .pwd = pwd, .pwdlen = sizeof(pwd) - 1, .salt = salt,
					      .saltlen = sizeof(salt) };
		unsigned workers = 2;
		struct er_lanes eng = { .ctx = &workers, .run = pt_run };
		if (!er_argon2(&p, arena, arena_len, v == OURS_2T ? &eng : NULL, out, outlen)) {
			fprintf(stderr, "bench-argon2: er_argon2 failed\n");
			exit(1);
		}
	} else {
		argon2_context ctx = {
			.out = out, .outlen = (uint32_t)outlen, .pwd = pwd, .pwdlen = sizeof(pwd) - 1,
			.salt = salt, .saltlen = sizeof(salt), .t_cost = t, .m_cost = m, .lanes = lanes,
			.threads = v == LIB_2T ? 2 : 1, .version = ARGON2_VERSION_13,
			.allocate_cbk = lib_alloc, .free_cbk = lib_free, .flags = ARGON2_DEFAULT_FLAGS,
		};
		int r = argon2_ctx(&ctx, Argon2_id);
		if (r != ARGON2_OK) {
			fprintf(stderr, "bench-argon2: libargon2: %s\n", argon2_error_message(r));
			exit(1);
		}
	}
	double wall = now_ms() - t0;
	*cpu = cpu_ms() - c0;
	return wall;
}

static void bench_case(uint32_t t, uint32_t m, uint32_t lanes, int runs)
{
	double ms[NVARIANTS][MAXRUNS], cpu[NVARIANTS][MAXRUNS], med[NVARIANTS];
	uint8_t out[NVARIANTS][64];

	for (int r = 0; r < runs; r++)
		for (int k = 0; k < NVARIANTS; k++) {
			enum variant v = (enum variant)((k + r) % NVARIANTS);   /* rotate the order */
			ms[v][r] = run_one(v, t, m, lanes, out[v], sizeof(out[v]), &cpu[v][r]);
		}
	for (int v = 1; v < NVARIANTS; v++)
		if (memcmp(out[v], out[0], sizeof(out[0])) != 0) {
			fprintf(stderr, "bench-argon2: %s and %s differ\n", names[v], names[0]);
			exit(1);
		}
	printf("argon2id t=%u m=%uKiB p=%u (%d run%s, median)\n", t, m, lanes, runs, runs > 1 ? "s" : "");
	for (int v = 0; v < NVARIANTS; v++) {
		med[v] = median(ms[v], runs);
		printf("  %-8s %9.1f ms  cpu %9.1f ms  %7.1f MiB/s\n", names[v], med[v], median(cpu[v], runs),
		       (double)m / 1024.0 * t / (med[v] / 1e3));
	}
	printf("  ratio ours/lib: 1 thread %.2f  2 threads %.2f   ours 2t/1t %.2f  lib 2t/1t %.2f\n",
	       med[OURS_1T] / med[LIB_1T], med[OURS_2T] / med[LIB_2T], med[OURS_2T] / med[OURS_1T],
	       med[LIB_2T] / med[LIB_1T]);
}

int main(int argc, char **argv)
{
	int runs = 5;
	if (argc > 2 || (argc == 2 && ((runs = atoi(argv[1])) < 1 || runs > MAXRUNS))) {
		fprintf(stderr, "usage: %s [RUNS (1..%d)]\n", argv[0], MAXRUNS);
		return 2;
	}
	for (size_t i = 0; i < sizeof(salt); i++)
		salt[i] = (uint8_t)(i * 37 + 11);
	arena_len = (size_t)1 << 30;
	arena = malloc(arena_len);
	if (!arena) {
		fprintf(stderr, "bench-argon2: cannot allocate 1 GiB\n");
		return 1;
	}
	memset(arena, 0x55, arena_len);
	bench_case(4, 64 * 1024, 4, runs);
	bench_case(1, 1024 * 1024, 4, 1);
	free(arena);
	return 0;
}
