// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-parallel: the parallel decompression engine's scaling on the host.
 *
 *   build/bench-parallel [FILE]
 *
 * FILE (or, without it, 64 MiB of synthetic page-like data, as bench-codec makes) is
 * cut into 32-page chunks and each is compressed with liblzo2's lzo1x_1 (and
 * LZ4_compress_default), as the kernel's hibernation writer does. Then the chunks are
 * decompressed (with the CRC32 of each) the way image/reader.c does it: inline on one
 * thread, and through loader/parallel.c with 1 helper thread (2 threads in all: the
 * submitting thread runs queued jobs while it waits, at most 32 outstanding, waited
 * for in order, CRC pieces joined with a CRC combine). Helper start and stop are
 * inside the timing, as in a resume. 7 runs each (alternating); the median throughput
 * in MB/s of uncompressed data (1 MB = 10^6 bytes) and the ratio:
 *
 *   lzo  1 thread 800.0 MB/s  2 threads 1500.0 MB/s  ratio 1.88  (helper ran 49% of chunks; ...)
 *
 * For scale, the same work split into two fixed halves on 2 threads without the
 * engine (what this machine gives two threads at that moment) is timed as well.
 * The output and the joined CRC are checked against the original data (zlib's crc32).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zlib.h>

#include "image/crc32.h"
#include "image/reader.h"
#include "loader/parallel.h"
#include "tools/bench.h"

#define CHUNK (32 * 4096)
#define RUNS 7

struct chunk {
	size_t len;                 /* uncompressed */
	uint8_t *cmp[2];            /* lzo, lz4 */
	size_t cmp_len[2];
};


/* ---- pthreads as the engine's helper CPUs */
struct hcpu {
	pthread_t th;
	er_par_fn fn;
	void *arg;
	int returned;
};
static struct hcpu cpus[ER_PAR_HELPERS];

static void *hcpu_main(void *p)
{
	struct hcpu *c = p;
	c->fn(c->arg);
	__atomic_store_n(&c->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int h_start(void *ctx, unsigned i, er_par_fn fn, void *arg)
{
	(void)ctx;
	cpus[i].fn = fn;
	cpus[i].arg = arg;
	cpus[i].returned = 0;
	return pthread_create(&cpus[i].th, NULL, hcpu_main, &cpus[i]) != 0;
}

static int h_join(void *ctx, unsigned i, uint64_t timeout_us)
{
	(void)ctx;
	double end = now() + (double)timeout_us * 1e-6;
	while (!__atomic_load_n(&cpus[i].returned, __ATOMIC_ACQUIRE))
		if (now() > end)
			return -1;
	return pthread_join(cpus[i].th, NULL) != 0;
}

static uint64_t h_now(void *ctx)
{
	(void)ctx;
	return (uint64_t)(now() * 1e6);
}

static void h_relax(void *ctx)
{
	(void)ctx;
	/* a firmware CPU is the engine's alone and spins with pause; a host thread may share
	 * its core with other work, where spinning would hold the core the thread it waits
	 * for needs: give it up instead */
	sched_yield();
}

static struct er_par engine;      /* static, as the loader keeps it */
static struct chunk *g_chunks;
static size_t g_nchunks;
static uint8_t *g_out;
static unsigned g_helper_jobs, g_jobs;

/* The machine's own limit: 2 threads, each decompressing a fixed half of the chunks
 * (every other one), no engine, CRC pieces joined afterwards. */
struct half {
	int k, first;
	uint32_t *crcs;
	int bad;
};

static void *half_main(void *p)
{
	struct half *h = p;
	enum er_comp comp = h->k ? ER_COMP_LZ4 : ER_COMP_LZO;
	for (size_t i = (size_t)h->first; i < g_nchunks; i += 2) {
		size_t n = 0;
		if (er_dec_run(comp, g_chunks[i].cmp[h->k], g_chunks[i].cmp_len[h->k], g_out + i * CHUNK, g_chunks[i].len, &n,
			       &h->crcs[i]) != 0 || n != g_chunks[i].len)
			h->bad = 1;
	}
	return NULL;
}

static double pass_split(int k, uint32_t *crc)
{
	static uint32_t *crcs;
	if (!crcs && !(crcs = malloc(g_nchunks * sizeof(*crcs))))
		exit(1);
	struct half a = { k, 0, crcs, 0 }, b = { k, 1, crcs, 0 };
	pthread_t th;
	double t0 = now();
	if (pthread_create(&th, NULL, half_main, &b) != 0)
		exit(1);
	half_main(&a);
	pthread_join(th, NULL);
	uint32_t c = 0;
	for (size_t i = 0; i < g_nchunks; i++)
		c = er_crc32_le_combine(c, crcs[i], g_chunks[i].len);
	*crc = c;
	if (a.bad || b.bad) {
		fprintf(stderr, "bench-parallel: a chunk does not decompress\n");
		exit(1);
	}
	return now() - t0;
}

/* One pass over all chunks with codec k (0 lzo, 1 lz4), inline (helpers 0) or
 * through the engine; returns seconds, *crc the joined crc32_le. */
static double pass(int k, unsigned helpers, uint32_t *crc)
{
	static const struct er_par_ops ops = { NULL, h_start, h_join, h_now, h_relax, NULL };
	enum er_comp comp = k ? ER_COMP_LZ4 : ER_COMP_LZO;
	unsigned tickets[ER_DEC_MAX_JOBS];
	size_t head = 0, tail = 0;
	uint32_t c = 0;
	double t0 = now();

	if (helpers == 0) {
		for (size_t i = 0; i < g_nchunks; i++) {
			size_t n = 0;
			uint32_t ci = 0;
			if (er_dec_run(comp, g_chunks[i].cmp[k], g_chunks[i].cmp_len[k], g_out + i * CHUNK, g_chunks[i].len,
				       &n, &ci) != 0 || n != g_chunks[i].len) {
				fprintf(stderr, "bench-parallel: chunk %zu does not decompress\n", i);
				exit(1);
			}
			c = er_crc32_le_combine(c, ci, n);
		}
		*crc = c;
		return now() - t0;
	}
	if (er_par_start(&engine, &ops, helpers, 10000000, 10000000) != helpers) {
		fprintf(stderr, "bench-parallel: could not start %u helper thread(s)\n", helpers);
		exit(1);
	}
	while (tail < g_nchunks) {
		while (head < g_nchunks && head - tail < ER_DEC_MAX_JOBS) {
			const struct chunk *ch = &g_chunks[head];
			tickets[head % ER_DEC_MAX_JOBS] =
				engine.engine.submit(engine.engine.ctx, comp, ch->cmp[k], ch->cmp_len[k], g_out + head * CHUNK, ch->len);
			head++;
		}
		size_t n = 0;
		uint32_t ci = 0;
		int r = engine.engine.wait(engine.engine.ctx, tickets[tail % ER_DEC_MAX_JOBS], &n, &ci);
		if (r != 0 || n != g_chunks[tail].len) {
			fprintf(stderr, "bench-parallel: chunk %zu: status %d (%s)\n", tail, r,
				er_par_strerror(r) ? er_par_strerror(r) : "decompressor");
			exit(1);
		}
		c = er_crc32_le_combine(c, ci, n);
		tail++;
	}
	g_helper_jobs += engine.helper_jobs;
	g_jobs += (unsigned)g_nchunks;
	if (!er_par_stop(&engine)) {
		fprintf(stderr, "bench-parallel: a helper thread did not stop\n");
		exit(1);
	}
	*crc = c;
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
	size_t cmp_total[2] = { 0, 0 };
	for (size_t i = 0; i < g_nchunks; i++) {
		struct chunk *c = &g_chunks[i];
		const uint8_t *src = data + i * CHUNK;
		c->len = i + 1 < g_nchunks ? CHUNK : total - i * CHUNK;
		lzo_uint l = c->len + c->len / 16 + 64 + 3;
		c->cmp[0] = malloc(l);
		c->cmp[1] = malloc((size_t)LZ4_compressBound((int)c->len));
		if (!c->cmp[0] || !c->cmp[1] || lzo1x_1_compress(src, c->len, c->cmp[0], &l, wrk) != LZO_E_OK)
			return 1;
		c->cmp_len[0] = l;
		int r = LZ4_compress_default((const char *)src, (char *)c->cmp[1], (int)c->len, LZ4_compressBound((int)c->len));
		if (r <= 0)
			return 1;
		c->cmp_len[1] = (size_t)r;
		cmp_total[0] += c->cmp_len[0];
		cmp_total[1] += c->cmp_len[1];
	}
	free(wrk);
	uint32_t want = ~(uint32_t)crc32(0xFFFFFFFFu, data, (uInt)total);   /* crc32_le(0, data) */

	printf("# %zu bytes in %zu chunks of %d KiB; lzo1x_1 %.1f%%, lz4 %.1f%% of original; %d runs, median; MB = 10^6 bytes\n",
	       total, g_nchunks, CHUNK / 1024, 100.0 * (double)cmp_total[0] / (double)total,
	       100.0 * (double)cmp_total[1] / (double)total, RUNS);
	/* scaling needs an idle second core: say how busy the machine was */
	FILE *la = fopen("/proc/loadavg", "r");
	double load = -1;
	if (la) {
		if (fscanf(la, "%lf", &load) != 1)
			load = -1;
		fclose(la);
	}
	printf("# %ld CPUs online, load average %.2f at start\n", sysconf(_SC_NPROCESSORS_ONLN), load);
	static const char *const names[2] = { "lzo", "lz4" };
	for (int k = 0; k < 2; k++) {
		double t1[RUNS], t2[RUNS], t3[RUNS];
		uint32_t crc;
		/* correctness first, for both ways */
		for (unsigned h = 0; h <= 2; h++) {
			memset(g_out, 0x5a, total);
			if (h == 2)
				pass_split(k, &crc);
			else
				pass(k, h, &crc);
			if (memcmp(g_out, data, total) != 0 || crc != want) {
				fprintf(stderr, "bench-parallel: %s with %u helper(s): wrong data or CRC (%08x, want %08x)\n",
					names[k], h, crc, want);
				return 1;
			}
		}
		g_helper_jobs = g_jobs = 0;
		for (int i = 0; i < RUNS; i++) {
			t1[i] = pass(k, 0, &crc);
			t2[i] = pass(k, 1, &crc);
			t3[i] = pass_split(k, &crc);
		}
		double m1 = (double)total / median(t1, RUNS) / 1e6, m2 = (double)total / median(t2, RUNS) / 1e6;
		double m3 = (double)total / median(t3, RUNS) / 1e6;
		printf("%s  1 thread %.1f MB/s  2 threads %.1f MB/s  ratio %.2f  (helper ran %.0f%% of chunks; "
		       "fixed halves without the engine %.1f MB/s, ratio %.2f)\n",
		       names[k], m1, m2, m2 / m1, g_jobs ? 100.0 * g_helper_jobs / g_jobs : 0.0, m3, m3 / m1);
	}
	for (size_t i = 0; i < g_nchunks; i++) {
		free(g_chunks[i].cmp[0]);
		free(g_chunks[i].cmp[1]);
	}
	free(g_chunks);
	free(g_out);
	free(data);
	return 0;
}
