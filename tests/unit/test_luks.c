// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for volume/luks.c with the real cryptsetup as the oracle: containers made at
 * run time by tests/lib/luks-make.sh (luksFormat/luksAddKey on sparse files), the volume key
 * that `luksDump --dump-volume-key` reports must be the one er_luks_unlock derives, for
 * LUKS1 and LUKS2, pbkdf2 (sha1/256/512), argon2i, argon2id, 256/512-bit keys and sector
 * sizes 512..4096. Data sectors are checked against OpenSSL's AES-XTS with dm-crypt's
 * plain64 IV. Refusals and corruption use headers that cryptsetup made (token import,
 * config --priority, reencrypt --init-only) or real headers whose JSON the test edits and
 * re-checksums with OpenSSL's SHA-256. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "volume/luks.h"

static char dir[128];

#define ENC_SIZE (4u << 20)     /* the files cryptsetup encrypts in place */

/* ------------------------------------------------------------------ fixtures */

struct fx {
	const char *name, *type, *pbkdf, *hash;
	int bits;
	const char *sector;
	int cpus;
	const char *pass[3];
	const char *extra;              /* more luksFormat arguments */
	int size_mb;                    /* the file (0: 4 MiB) */
};

/* LUKS2 with a 1 MiB keyslots area (data at 2 MiB) keeps the files small; l2-a2id keeps
 * cryptsetup's default layout (16 MiB of metadata) */
#define SMALL "--luks2-keyslots-size 1M"

static const struct fx good[] = {
	{ "l1-sha1", "luks1", "pbkdf2", "sha1", 256, "-", 1, { "alpha", "beta" }, "", 0 },
	{ "l1-sha256", "luks1", "pbkdf2", "sha256", 512, "-", 1, { "gamma" }, "", 0 },
	{ "l1-sha512", "luks1", "pbkdf2", "sha512", 512, "-", 1, { "delta", "epsilon one" }, "", 0 },
	{ "l2-pb-sha1", "luks2", "pbkdf2", "sha1", 256, "512", 1, { "one", "two" }, SMALL, 0 },
	{ "l2-pb-sha256", "luks2", "pbkdf2", "sha256", 512, "4096", 1, { "three" }, SMALL, 0 },
	{ "l2-pb-sha512", "luks2", "pbkdf2", "sha512", 512, "512", 1, { "four", "" }, SMALL, 0 },
	{ "l2-a2i", "luks2", "argon2i", "sha256", 512, "4096", 2, { "five", "six" }, SMALL, 0 },
	{ "l2-a2id", "luks2", "argon2id", "sha256", 256, "512", 4, { "seven", "eight", "nine" }, "", 20 },
	{ "l2-a2id-512", "luks2", "argon2id", "sha512", 512, "2048", 1, { "ten", "Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac" }, SMALL, 0 },
	{ "l2-meta64", "luks2", "pbkdf2", "sha256", 256, "4096", 1, { "eleven" }, SMALL " --luks2-metadata-size 64k", 0 },
};

static const struct fx other[] = {
	{ "l1-cbc", "luks1", "pbkdf2", "sha256", 256, "-", 1, { "p0" }, "--cipher aes-cbc-essiv:sha256", 0 },
	{ "l2-cbc", "luks2", "pbkdf2", "sha256", 256, "512", 1, { "p0" }, "--cipher aes-cbc-essiv:sha256 " SMALL, 0 },
	{ "l2-base", "luks2", "pbkdf2", "sha256", 256, "512", 1, { "p0", "p1" }, SMALL, 0 },
	{ "l2-one", "luks2", "pbkdf2", "sha256", 256, "512", 1, { "p0" }, SMALL, 0 },
};

static void path_of(char *out, size_t cap, const char *name, const char *suffix)
{
	snprintf(out, cap, "%s/%s%s", dir, name, suffix);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void fx_line(FILE *f, const char *script, const struct fx *x)
{
	fprintf(f, "LUKS_SIZE_MB=%d LUKS_CPUS=%d %s %s/%s %s %s %s %d %s", x->size_mb ? x->size_mb : 4,
		x->cpus, script, dir, x->name, x->type,
		x->pbkdf, x->hash, x->bits, x->sector);
	for (int i = 0; i < 3 && x->pass[i]; i++)
		fprintf(f, " '%s'", x->pass[i]);
	fprintf(f, " -- %s >/dev/null 2>&1\n", x->extra);
}

static int setup(void **state)
{
	(void)state;
	char exe[512], script[600], cmds[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	/* build/unit[-O2]/test_luks -> tests/lib/luks-make.sh */
	for (int i = 0; i < 3; i++)
		*strrchr(exe, '/') = 0;
	snprintf(script, sizeof(script), "%s/tests/lib/luks-make.sh", exe);
	if (access(script, X_OK))
		return fprintf(stderr, "no %s\n", script), -1;
	/* tmpfs when there is one: cryptsetup syncs every header write (about 10 MiB in all) */
	const char *tmp = getenv("TEST_LUKS_DIR");
	if (!tmp)
		tmp = access("/dev/shm", W_OK) ? getenv("TMPDIR") : "/dev/shm";
	snprintf(dir, sizeof(dir), "%s/test_luks.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmds, sizeof(cmds), "%s/cmds", dir);
	FILE *f = fopen(cmds, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		fx_line(f, script, &good[i]);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		fx_line(f, script, &other[i]);
	fclose(f);
	/* two at a time (the machine has 2 cores) */
	if (sh("xargs -d '\\n' -P 2 -I{} bash -c '{}' < %s", cmds))
		return fprintf(stderr, "making the containers failed\n"), -1;
	/* data that cryptsetup itself encrypted (offline reencrypt --encrypt, its userspace
	 * cipher): a known plaintext, then LUKS2 with 4096-, 2048- and 512-byte sectors */
	char plain[256];
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	f = fopen(plain, "w");
	if (!f)
		return -1;
	for (uint32_t i = 0; i < ENC_SIZE / 4; i++) {
		uint32_t v = i * 2654435761u ^ (i >> 7);
		fwrite(&v, 4, 1, f);
	}
	fclose(f);
	static const unsigned enc_sectors[] = { 4096, 2048, 512 };
	for (unsigned i = 0; i < 3; i++)
		if (sh("cp %s %s/enc%u && printf encpw | cryptsetup reencrypt --encrypt --type luks2 --batch-mode "
		       "--sector-size %u --luks2-keyslots-size 1M --reduce-device-size 2M --pbkdf pbkdf2 "
		       "--pbkdf-force-iterations 1000 --key-file - %s/enc%u >/dev/null 2>&1", plain, dir,
		       enc_sectors[i], enc_sectors[i], dir, enc_sectors[i]))
			return fprintf(stderr, "cryptsetup reencrypt --encrypt failed\n"), -1;
	/* a reencryption in progress: reencrypt --init-only on a copy of l2-one */
	if (sh("cp --sparse=always %s/l2-one %s/l2-reenc && printf p0 | cryptsetup reencrypt --init-only "
	       "--batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file - %s/l2-reenc",
	       dir, dir, dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (dir[0] && !getenv("TEST_LUKS_KEEP"))
		sh("rm -rf %s", dir);
	return 0;
}

/* ------------------------------------------------------------------ device and memory */

struct file_dev {
	int fd;
	int fail_after;                 /* reads that succeed before one fails; -1 never */
	unsigned reads;
};

static bool fd_read(void *ctx, uint64_t off, size_t len, void *buf)
{
	struct file_dev *d = ctx;
	d->reads++;
	if (d->fail_after >= 0 && d->fail_after-- == 0)
		return false;
	return pread(d->fd, buf, len, (off_t)off) == (ssize_t)len;
}

struct counting_mem {
	uint64_t outstanding, peak_single, allocs;
	uint64_t watch;                 /* an allocation size to look for */
	bool seen;
	bool check_wiped;               /* every buffer must come back all zero (secrets) */
	unsigned wiped_checks;
	int fail_at;                    /* allocation number that fails; -1 never */
};

static void *cm_alloc(void *ctx, uint64_t n)
{
	struct counting_mem *m = ctx;
	if (m->fail_at >= 0 && (uint64_t)m->fail_at == m->allocs) {
		m->allocs++;
		return NULL;
	}
	m->allocs++;
	void *p = malloc(n);
	assert_non_null(p);
	memset(p, 0xa5, n);
	m->outstanding += n;
	m->seen |= n == m->watch;
	if (n > m->peak_single)
		m->peak_single = n;
	return p;
}

static void cm_free(void *ctx, void *p, uint64_t n)
{
	struct counting_mem *m = ctx;
	assert_true(m->outstanding >= n);
	m->outstanding -= n;
	if (m->check_wiped) {
		/* during an unlock: argon2 memory and the keyslot material, both secret */
		for (uint64_t i = 0; i < n; i++)
			assert_int_equal(((uint8_t *)p)[i], 0);
		m->wiped_checks++;
	}
	free(p);
}

struct opened {
	struct file_dev fd;
	struct er_luks_dev dev;
	struct counting_mem cm;
	struct er_luks_mem mem;
	struct er_luks_header h;
	struct er_luks_err err;
	enum er_luks_status st;
};

static void open_path(struct opened *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->fd.fd = open(path, O_RDONLY);
	assert_true(o->fd.fd >= 0);
	o->fd.fail_after = -1;
	struct stat sb;
	assert_int_equal(fstat(o->fd.fd, &sb), 0);
	o->dev = (struct er_luks_dev){ .ctx = &o->fd, .size = (uint64_t)sb.st_size, .read = fd_read };
	o->cm.fail_at = -1;
	o->mem = (struct er_luks_mem){ .ctx = &o->cm, .alloc = cm_alloc, .free = cm_free };
	o->st = er_luks_open(&o->h, &o->dev, &o->mem, &o->err);
	assert_int_equal(o->cm.outstanding, 0);
}

static void open_fx(struct opened *o, const char *name)
{
	char p[256];
	path_of(p, sizeof(p), name, "");
	open_path(o, p);
}

static void close_opened(struct opened *o)
{
	close(o->fd.fd);
}

static enum er_luks_status unlock(struct opened *o, const char *pw, uint8_t *vk, size_t *vklen,
				  unsigned *slot)
{
	unsigned before = o->cm.wiped_checks;
	o->cm.check_wiped = true;
	enum er_luks_status st = er_luks_unlock(&o->h, &o->dev, &o->mem, NULL, NULL, (const uint8_t *)pw,
						strlen(pw), vk, vklen, slot, &o->err);
	o->cm.check_wiped = false;
	assert_int_equal(o->cm.outstanding, 0);
	/* at least the keyslot material of one keyslot was allocated, wiped and given back */
	assert_true(o->cm.wiped_checks > before || st == ER_LUKS_NOMEM || st == ER_LUKS_IO);
	return st;
}

static size_t read_hex(const char *name, uint8_t *out)
{
	char p[256], hex[300];
	path_of(p, sizeof(p), name, ".vk");
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(hex, sizeof(hex), f));
	fclose(f);
	size_t n = strspn(hex, "0123456789abcdef") / 2;
	for (size_t i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &out[i]);
	return n;
}

static uint64_t read_info_or(const char *name, const char *key, uint64_t dflt)
{
	char p[256], k[32];
	unsigned long long v, found = dflt;
	path_of(p, sizeof(p), name, ".info");
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	while (fscanf(f, "%31s %llu", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

static uint64_t read_info(const char *name, const char *key)
{
	char p[256], k[32];
	unsigned long long v, found = ~0ull;
	path_of(p, sizeof(p), name, ".info");
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	while (fscanf(f, "%31s %llu", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	assert_true(found != ~0ull);
	return found;
}

static void assert_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(p[i], 0);
}

/* ------------------------------------------------------------------ editing real headers */

/* Reads the LUKS2 header copies of path, replaces the first `from` in the JSON by `to`
 * in the copies named by which (1 primary, 2 secondary), fixes their checksums with
 * OpenSSL's SHA-256 and writes them back. */
static void edit_json(const char *path, const char *from, const char *to, int which)
{
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	uint8_t b[16];
	assert_int_equal(pread(fd, b, 16, 0), 16);
	uint64_t hs = 0;
	for (int i = 8; i < 16; i++)
		hs = hs << 8 | b[i];
	assert_true(hs >= 16384 && hs <= 4 << 20);
	uint8_t *h = malloc(hs);
	assert_non_null(h);
	for (int c = 0; c < 2; c++) {
		if (!(which & (1 << c)))
			continue;
		off_t at = c ? (off_t)hs : 0;
		assert_int_equal(pread(fd, h, hs, at), (ssize_t)hs);
		char *json = (char *)h + 4096;
		char *m = strstr(json, from);
		assert_non_null(m);
		size_t jl = strlen(json), fl = strlen(from), tl = strlen(to);
		assert_true(jl - fl + tl < hs - 4096);
		memmove(m + tl, m + fl, jl - (size_t)(m - json) - fl + 1);
		memcpy(m, to, tl);
		memset(json + strlen(json), 0, hs - 4096 - strlen(json));
		memset(h + 448, 0, 64);
		SHA256(h, hs, h + 448);
		assert_int_equal(pwrite(fd, h, hs, at), (ssize_t)hs);
	}
	free(h);
	close(fd);
}

/* a fresh copy of fixture name as new (sparse) */
static void copy_fx(const char *name, const char *new, char *path, size_t cap)
{
	path_of(path, cap, new, "");
	assert_int_equal(sh("cp --sparse=always %s/%s %s", dir, name, path), 0);
}

static void poke(const char *path, off_t at, const void *data, size_t n)
{
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, n, at), (ssize_t)n);
	close(fd);
}

/* ------------------------------------------------------------------ oracle: volume keys */

static void test_volume_keys(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct fx *x = &good[i];
		struct opened o;
		uint8_t want[64], vk[ER_LUKS_MAX_KEY];
		size_t wl = read_hex(x->name, want), vl = 0;
		unsigned slot = 99;
		print_message("%s\n", x->name);
		open_fx(&o, x->name);
		assert_int_equal(o.st, ER_LUKS_OK);
		assert_int_equal(o.h.version, x->type[4] - '0');
		assert_int_equal(wl, (size_t)x->bits / 8);
		assert_int_equal(o.h.seg.key_size, wl);
		assert_int_equal(o.h.seg.offset, read_info(x->name, "offset"));
		assert_int_equal(o.h.seg.sector_size, read_info(x->name, "sector"));
		assert_false(o.h.seg.iv_large_sectors);
		assert_true(o.h.seg.dynamic);
		assert_int_equal(o.h.seg.size, o.dev.size - o.h.seg.offset);
		int np = 0;
		while (np < 3 && x->pass[np])
			np++;
		assert_int_equal(o.h.n_order, np);
		for (int p = 0; p < np; p++) {
			const struct er_luks_keyslot *k = &o.h.ks[p];
			char key[32];
			assert_true(k->usable);
			/* the KDF parameters as luksDump shows them (LUKS1: not in the info) */
			snprintf(key, sizeof(key), "slot%d-time", p);
			assert_int_equal(k->iterations, read_info_or(x->name, key, 1000));
			snprintf(key, sizeof(key), "slot%d-memory", p);
			assert_int_equal(k->memory_kib, read_info_or(x->name, key, 0));
			snprintf(key, sizeof(key), "slot%d-threads", p);
			assert_int_equal(k->cpus, read_info_or(x->name, key, 0));
			assert_int_equal(k->kdf, !strcmp(x->pbkdf, "pbkdf2") ? ER_LUKS_KDF_PBKDF2 :
					 !strcmp(x->pbkdf, "argon2i") ? ER_LUKS_KDF_ARGON2I : ER_LUKS_KDF_ARGON2ID);
			memset(vk, 0, sizeof(vk));
			o.cm.watch = (uint64_t)k->memory_kib * 1024;
			o.cm.seen = false;
			assert_int_equal(unlock(&o, x->pass[p], vk, &vl, &slot), ER_LUKS_OK);
			assert_int_equal(slot, p);
			assert_int_equal(vl, wl);
			assert_memory_equal(vk, want, wl);
			/* argon2: its memory (a multiple of 4 KiB x lanes here) came from the allocator */
			assert_int_equal(o.cm.seen, k->kdf != ER_LUKS_KDF_PBKDF2);
		}
		/* the planning figure: at least every allocation an unlock made */
		uint64_t most = er_luks_max_unlock_memory(&o.h);
		assert_true(most >= o.cm.peak_single && o.cm.peak_single > 0);
		char line[200];
		er_luks_summary(&o.h, line, sizeof(line));
		print_message("  %s\n", line);
		assert_non_null(strstr(line, x->type[4] == '1' ? "LUKS1" : "LUKS2"));
		assert_non_null(strstr(line, x->pbkdf));
		memset(vk, 0x55, sizeof(vk));
		assert_int_equal(unlock(&o, "wrong", vk, &vl, &slot), ER_LUKS_WRONG_PASSPHRASE);
		assert_zero(vk, sizeof(vk));
		assert_int_equal(vl, 0);
		/* one byte more or less is another passphrase */
		char longer[64];
		snprintf(longer, sizeof(longer), "%sx", x->pass[0]);
		assert_int_equal(unlock(&o, longer, vk, &vl, &slot), ER_LUKS_WRONG_PASSPHRASE);
		close_opened(&o);
	}
}

/* argon2 lanes through an er_lanes engine: every lane of every slice is run, and the
 * result is the same volume key */
struct lane_count { unsigned calls, lanes; };
static void run_lanes(void *ctx, er_lane_fn fn, void *arg, uint32_t n)
{
	struct lane_count *c = ctx;
	c->calls++;
	c->lanes += n;
	for (uint32_t i = n; i-- > 0;)           /* another order than 0..n-1 */
		fn(arg, i);
}

static void test_lanes_engine(void **state)
{
	(void)state;
	struct opened o;
	uint8_t want[64], vk[64];
	size_t wl = read_hex("l2-a2id", want), vl;
	unsigned slot;
	struct lane_count c = { 0, 0 };
	struct er_lanes lanes = { .ctx = &c, .run = run_lanes };
	open_fx(&o, "l2-a2id");
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(er_luks_unlock(&o.h, &o.dev, &o.mem, &lanes, NULL, (const uint8_t *)"nine", 4, vk, &vl,
					&slot, &o.err), ER_LUKS_OK);
	assert_int_equal(o.cm.outstanding, 0);
	assert_int_equal(slot, 2);
	assert_memory_equal(vk, want, wl);
	/* the keyslots before it were tried too: lanes (cpus) per call, every call ran lanes */
	assert_true(c.calls >= 3);
	assert_true(o.h.ks[0].cpus > 1);
	assert_int_equal(c.lanes, c.calls * o.h.ks[0].cpus);
	close_opened(&o);
}

/* ------------------------------------------------------------------ data sectors */

/* OpenSSL AES-XTS with a plain64 IV (the sector number, little-endian, zero-padded) */
static void ossl_xts(const uint8_t *key, size_t klen, uint64_t iv, const uint8_t *in, uint8_t *out,
		     size_t n, int enc)
{
	uint8_t ivb[16] = { 0 };
	for (int i = 0; i < 8; i++)
		ivb[i] = (uint8_t)(iv >> (8 * i));
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int l1 = 0, l2 = 0;
	assert_int_equal(EVP_CipherInit_ex(c, klen == 32 ? EVP_aes_128_xts() : EVP_aes_256_xts(), NULL, key,
					   ivb, enc), 1);
	assert_int_equal(EVP_CipherUpdate(c, out, &l1, in, (int)n), 1);
	assert_int_equal(EVP_CipherFinal_ex(c, out + l1, &l2), 1);
	assert_int_equal(l1 + l2, (int)n);
	EVP_CIPHER_CTX_free(c);
}

static void check_data(struct opened *o, const uint8_t *vk, size_t vl, uint64_t tweak)
{
	uint32_t ss = o->h.seg.sector_size;
	size_t n = 3 * (size_t)ss;
	uint8_t *plain = malloc(n), *mine = malloc(n), *ref = malloc(n);
	assert_true(plain && mine && ref);
	for (size_t i = 0; i < n; i++)
		plain[i] = (uint8_t)(i * 7 + 3);
	struct er_aes_xts x;
	assert_true(er_aes_xts_init(&x, vk, vl));
	uint64_t offs[] = { 0, ss, 5 * (uint64_t)ss, (o->h.seg.size / ss - 3) * ss };
	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
		uint64_t off = offs[k];
		memcpy(mine, plain, n);
		assert_true(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, off, mine, n, true));
		for (size_t u = 0; u < 3; u++) {
			/* dm-crypt without iv_large_sectors: 512-byte sector number + iv_offset */
			uint64_t iv = (off + u * ss) / 512 + tweak;
			ossl_xts(vk, vl, iv, plain + u * ss, ref + u * ss, ss, 1);
		}
		assert_memory_equal(mine, ref, n);
		assert_true(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, off, mine, n, false));
		assert_memory_equal(mine, plain, n);
	}
	/* misaligned or beyond the segment */
	if (ss > 512)
		assert_false(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, 512, mine, ss, true));
	assert_false(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, 0, mine, ss / 2, true));
	assert_false(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, o->h.seg.size - ss, mine, 2 * ss, true));
	assert_false(er_luks_segment_crypt(&o->h.seg, o->dev.size, &x, o->h.seg.size, mine, ss, true));
	er_aes_xts_wipe(&x);
	free(plain);
	free(mine);
	free(ref);
}

static void test_data_sectors(void **state)
{
	(void)state;
	static const char *const names[] = { "l1-sha256", "l1-sha1", "l2-pb-sha1", "l2-pb-sha256",
					     "l2-a2id-512" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct fx *x = NULL;
		for (size_t j = 0; j < sizeof(good) / sizeof(good[0]); j++)
			if (!strcmp(good[j].name, names[i]))
				x = &good[j];
		assert_non_null(x);
		struct opened o;
		uint8_t vk[64];
		size_t vl;
		unsigned slot;
		open_fx(&o, names[i]);
		/* both AES paths (AES-NI when the CPU has it, the table-free code) */
		for (int soft = 0; soft < 2; soft++) {
			uint8_t want[64];
			size_t wl = read_hex(names[i], want);
			er_aes_force_soft(soft);
			memset(vk, 0, sizeof(vk));
			assert_int_equal(unlock(&o, x->pass[0], vk, &vl, &slot), ER_LUKS_OK);
			assert_memory_equal(vk, want, wl);
			check_data(&o, vk, vl, 0);
		}
		er_aes_force_soft(false);
		close_opened(&o);
	}
	/* a segment with iv_tweak (as a reencryption leaves it): 4096-byte sectors, tweak 16 */
	char p[256];
	copy_fx("l2-pb-sha256", "tweak", p, sizeof(p));
	edit_json(p, "\"iv_tweak\":\"0\"", "\"iv_tweak\":\"16\"", 3);
	struct opened o;
	uint8_t vk[64];
	size_t vl;
	unsigned slot;
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.seg.iv_tweak, 16);
	assert_int_equal(er_luks_iv_sector(&o.h.seg, 4096 * 3), 3 * 8 + 16);
	assert_int_equal(unlock(&o, "three", vk, &vl, &slot), ER_LUKS_OK);
	check_data(&o, vk, vl, 16);
	close_opened(&o);
}

/* The segment as cryptsetup encrypted it: every sector decrypts to the plaintext and
 * encrypts back to what is on the disk (the oracle for the IV with large sectors) */
static void test_cryptsetup_encrypted(void **state)
{
	(void)state;
	static const unsigned sectors[] = { 4096, 2048, 512 };
	char p[256];
	path_of(p, sizeof(p), "plain", "");
	uint8_t *plain = malloc(ENC_SIZE), *disk = malloc(ENC_SIZE), *buf = malloc(ENC_SIZE);
	assert_true(plain && disk && buf);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_int_equal(fread(plain, 1, ENC_SIZE, f), ENC_SIZE);
	fclose(f);
	for (unsigned i = 0; i < 3; i++) {
		struct opened o;
		uint8_t vk[64];
		size_t vl;
		unsigned slot;
		char name[16];
		snprintf(name, sizeof(name), "enc%u", sectors[i]);
		open_fx(&o, name);
		assert_int_equal(o.st, ER_LUKS_OK);
		assert_int_equal(o.h.seg.sector_size, sectors[i]);
		assert_int_equal(unlock(&o, "encpw", vk, &vl, &slot), ER_LUKS_OK);
		/* --reduce-device-size 2M: the plaintext's first ENC_SIZE - 2 MiB are encrypted
		 * at the segment's start (the rest of the device holds no data of ours) */
		uint64_t n = ENC_SIZE - (2u << 20);
		assert_true(o.h.seg.size >= n);
		assert_int_equal(pread(o.fd.fd, disk, n, (off_t)o.h.seg.offset), (ssize_t)n);
		memcpy(buf, disk, n);
		struct er_aes_xts x;
		assert_true(er_aes_xts_init(&x, vk, vl));
		/* in pieces of 3 sectors, then the rest */
		uint64_t piece = 3 * (uint64_t)sectors[i];
		for (uint64_t off = 0; off < n; off += piece)
			assert_true(er_luks_segment_crypt(&o.h.seg, o.dev.size, &x, off, buf + off,
							  (size_t)(n - off < piece ? n - off : piece), false));
		print_message("  enc%u: %llu bytes at %llu\n", sectors[i], (unsigned long long)n,
			      (unsigned long long)o.h.seg.offset);
		assert_memory_equal(buf, plain, n);
		assert_true(er_luks_segment_crypt(&o.h.seg, o.dev.size, &x, 0, buf, (size_t)n, true));
		assert_memory_equal(buf, disk, n);
		er_aes_xts_wipe(&x);
		close_opened(&o);
	}
	free(plain);
	free(disk);
	free(buf);
}

/* ------------------------------------------------------------------ refusals */

static void expect(const char *path, enum er_luks_status st, const char *needle)
{
	struct opened o;
	open_path(&o, path);
	print_message("  %s: %s: %s\n", strrchr(path, '/') + 1, er_luks_status_name(o.st), o.err.detail);
	assert_int_equal(o.st, st);
	if (needle)
		assert_non_null(strstr(o.err.detail, needle));
	close_opened(&o);
}

static void expect_fx(const char *name, enum er_luks_status st, const char *needle)
{
	char p[256];
	path_of(p, sizeof(p), name, "");
	expect(p, st, needle);
}

static void test_refusals(void **state)
{
	(void)state;
	char p[256];
	expect_fx("l1-cbc", ER_LUKS_UNSUPPORTED, "aes-cbc-essiv:sha256");
	expect_fx("l2-cbc", ER_LUKS_UNSUPPORTED, "aes-cbc-essiv:sha256");
	expect_fx("l2-reenc", ER_LUKS_UNSUPPORTED, "reencrypt");

	copy_fx("l2-one", "serpent", p, sizeof(p));
	edit_json(p, "\"encryption\":\"aes-xts-plain64\",\"sector_size\"",
		  "\"encryption\":\"serpent-xts-plain64\",\"sector_size\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "serpent-xts-plain64");

	copy_fx("l2-one", "integrity", p, sizeof(p));
	edit_json(p, "\"sector_size\":512}", "\"sector_size\":512,\"integrity\":{\"type\":\"hmac(sha256)\","
		  "\"journal_encryption\":\"none\",\"journal_integrity\":\"none\"}}", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "integrity");

	copy_fx("l2-one", "scrypt", p, sizeof(p));
	edit_json(p, "\"kdf\":{\"type\":\"pbkdf2\"", "\"kdf\":{\"type\":\"scrypt\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "kdf scrypt");

	copy_fx("l2-one", "ripemd", p, sizeof(p));
	edit_json(p, "\"hash\":\"sha256\",\"iterations\":1000,\"salt\"", "\"hash\":\"ripemd160\",\"iterations\":1000,\"salt\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "ripemd160");

	copy_fx("l2-one", "digest-type", p, sizeof(p));
	edit_json(p, "{\"type\":\"pbkdf2\",\"keyslots\"", "{\"type\":\"argon2\",\"keyslots\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "digest type argon2");

	/* one keyslot with another cipher is skipped, the other one still opens */
	copy_fx("l2-base", "twofish-slot", p, sizeof(p));
	edit_json(p, "\"encryption\":\"aes-xts-plain64\",\"key_size\":32}",
		  "\"encryption\":\"twofish-xts-plain64\",\"key_size\":32}", 3);
	{
		struct opened o;
		uint8_t vk[64], want[64];
		size_t vl, wl = read_hex("l2-base", want);
		unsigned slot;
		open_path(&o, p);
		assert_int_equal(o.st, ER_LUKS_OK);
		assert_int_equal(o.h.n_order, 1);
		assert_int_equal(o.h.order[0], 1);
		assert_int_equal(unlock(&o, "p0", vk, &vl, &slot), ER_LUKS_WRONG_PASSPHRASE);
		assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
		assert_memory_equal(vk, want, wl);
		close_opened(&o);
	}
	/* a keyslot of another type (not luks2) is skipped; the only one: refused */
	copy_fx("l2-one", "slot-type", p, sizeof(p));
	edit_json(p, "{\"type\":\"luks2\"", "{\"type\":\"luks3\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "type luks3");

	/* bounds, hand-edited into real headers (checksums fixed): all refused as corrupt */
	static const char *const edits[][3] = {
		{ "area-outside", "\"offset\":\"32768\"", "\"offset\":\"1081344\"" },
		{ "area-unaligned", "\"offset\":\"32768\"", "\"offset\":\"32769\"" },
		{ "area-small", "\"size\":\"131072\"", "\"size\":\"126976\"" },
		{ "stripes", "\"stripes\":4000", "\"stripes\":3999" },
		{ "json-size", "\"json_size\":\"12288\"", "\"json_size\":\"12289\"" },
		{ "ks-size", "\"keyslots_size\":\"1048576\"", "\"keyslots_size\":\"99999999999\"" },
		{ "seg-beyond", "\"offset\":\"2097152\"", "\"offset\":\"4194304\"" },
		{ "seg-size", "\"size\":\"dynamic\"", "\"size\":\"99999999999\"" },
		{ "sector", "\"sector_size\":512", "\"sector_size\":8192" },
		{ "prio", "\"area\"", "\"priority\":3,\"area\"" },
		{ "salt", "\"salt\":\"", "\"salt\":\"*" },
		{ "iter0", "\"iterations\":1000", "\"iterations\":0" },
		{ "slot-id", "{\"0\":{\"type\":\"luks2\"", "{\"32\":{\"type\":\"luks2\"" },
		{ "not-json", "\"keyslots\":{", "\"keyslots\":{," },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		copy_fx("l2-one", edits[i][0], p, sizeof(p));
		edit_json(p, edits[i][1], edits[i][2], 3);
		expect(p, ER_LUKS_CORRUPT, NULL);
	}
	/* keyslots "0" and "00": the same keyslot twice */
	copy_fx("l2-base", "slot-twice", p, sizeof(p));
	edit_json(p, "\"1\":{\"type\":\"luks2\"", "\"00\":{\"type\":\"luks2\"", 3);
	expect(p, ER_LUKS_CORRUPT, "twice");
	/* a segment of fixed size (as cryptsetup writes after a resize with --device-size) */
	copy_fx("l2-one", "fixed-size", p, sizeof(p));
	edit_json(p, "\"size\":\"dynamic\"", "\"size\":\"1048576\"", 3);
	{
		struct opened o;
		open_path(&o, p);
		assert_int_equal(o.st, ER_LUKS_OK);
		assert_false(o.h.seg.dynamic);
		assert_int_equal(o.h.seg.size, 1048576);
		close_opened(&o);
	}
	/* the segment overlapping the keyslots area (a detached-header layout) */
	copy_fx("l2-one", "seg-low", p, sizeof(p));
	edit_json(p, "\"offset\":\"2097152\"", "\"offset\":\"16384\"", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "detached");
	/* LUKS1 with a hash efiresume does not have */
	copy_fx("l1-sha256", "l1-ripemd", p, sizeof(p));
	poke(p, 72, "ripemd160\0\0", 11);
	expect(p, ER_LUKS_UNSUPPORTED, "ripemd160");
	copy_fx("l1-sha256", "l1-stripes", p, sizeof(p));
	poke(p, 208 + 44, "\0\0\x0f\x9f", 4);
	expect(p, ER_LUKS_CORRUPT, "stripes");
	copy_fx("l1-sha256", "l1-material", p, sizeof(p));
	poke(p, 208 + 40, "\0\0\x10\0", 4);       /* key material at the payload */
	expect(p, ER_LUKS_CORRUPT, "outside");
	/* not LUKS at all */
	copy_fx("l2-one", "zeroed", p, sizeof(p));
	assert_int_equal(sh("dd if=/dev/zero of=%s bs=1M count=16 conv=notrunc status=none", p), 0);
	expect(p, ER_LUKS_NOT_LUKS, NULL);
}

/* ------------------------------------------------------------------ tokens and priority */

/* cryptsetup token import; the systemd token plugins check their fields, so these are
 * shaped like systemd-cryptenroll's */
static void token(const char *path, const char *type, const char *slot)
{
	const char *fields =
		!strcmp(type, "systemd-tpm2") ? ",\"tpm2-blob\":\"AAAA\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":"
		"\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"00\"" :
		!strcmp(type, "systemd-fido2") ? ",\"fido2-credential\":\"AAAA\",\"fido2-salt\":\"AAAA\","
		"\"fido2-rp\":\"io.systemd.cryptsetup\",\"fido2-clientPin-required\":false,"
		"\"fido2-up-required\":true,\"fido2-uv-required\":false" :
		",\"key_description\":\"efiresume-test\"";
	FILE *f;
	char tok[300];
	snprintf(tok, sizeof(tok), "%s.tok", path);
	assert_non_null(f = fopen(tok, "w"));
	fprintf(f, "{\"type\":\"%s\",\"keyslots\":[\"%s\"]%s}", type, slot, fields);
	fclose(f);
	assert_int_equal(sh("cryptsetup token import --json-file %s %s", tok, path), 0);
}

static void test_tokens(void **state)
{
	(void)state;
	char p[256];
	struct opened o;
	uint8_t vk[64], want[64];
	size_t vl, wl = read_hex("l2-base", want);
	unsigned slot;

	/* keyslot 0 bound to a TPM2 token: keyslot 1 (a passphrase) is tried first, 0 still tried */
	copy_fx("l2-base", "tpm2-one", p, sizeof(p));
	token(p, "systemd-tpm2", "0");
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.ks[0].token, ER_LUKS_TOKEN_TPM2);
	assert_int_equal(o.h.n_order, 2);
	assert_int_equal(o.h.order[0], 1);
	assert_int_equal(o.h.order[1], 0);
	assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 1);
	assert_memory_equal(vk, want, wl);
	assert_int_equal(unlock(&o, "p0", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 0);
	close_opened(&o);

	/* both keyslots bound to TPM2 tokens: TPM2-only */
	token(p, "systemd-tpm2", "1");
	expect(p, ER_LUKS_TOKEN_ONLY, "TPM2-only");
	/* only keyslot bound to a TPM2 token */
	copy_fx("l2-one", "tpm2-only", p, sizeof(p));
	token(p, "systemd-tpm2", "0");
	expect(p, ER_LUKS_TOKEN_ONLY, "TPM2-only");
	/* FIDO2 + TPM2: hardware tokens only */
	copy_fx("l2-base", "fido2", p, sizeof(p));
	token(p, "systemd-fido2", "0");
	token(p, "systemd-tpm2", "1");
	expect(p, ER_LUKS_TOKEN_ONLY, "token");
	/* an unknown token type on both: not hardware, still tried */
	copy_fx("l2-base", "other-token", p, sizeof(p));
	token(p, "luks2-keyring", "0");
	token(p, "luks2-keyring", "1");
	expect(p, ER_LUKS_OK, NULL);

	/* priorities set by cryptsetup config: ignore skips, prefer goes first */
	copy_fx("l2-base", "prio", p, sizeof(p));
	assert_int_equal(sh("cryptsetup config --priority ignore --key-slot 0 %s && "
			    "cryptsetup config --priority prefer --key-slot 1 %s", p, p), 0);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.ks[0].priority, 0);
	assert_int_equal(o.h.ks[1].priority, 2);
	assert_int_equal(o.h.n_order, 1);
	assert_int_equal(o.h.order[0], 1);
	assert_int_equal(unlock(&o, "p0", vk, &vl, &slot), ER_LUKS_WRONG_PASSPHRASE);
	assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
	close_opened(&o);
	assert_int_equal(sh("cryptsetup config --priority ignore --key-slot 1 %s", p), 0);
	expect(p, ER_LUKS_NO_KEYSLOT, NULL);
}

/* ------------------------------------------------------------------ header copies */

static void test_header_copies(void **state)
{
	(void)state;
	char p[256];
	struct opened o;
	uint8_t vk[64], want[64];
	size_t vl, wl = read_hex("l2-base", want);
	unsigned slot;

	/* both valid: the primary (same seqid) */
	expect_fx("l2-base", ER_LUKS_OK, NULL);
	open_fx(&o, "l2-base");
	assert_true(o.h.primary_ok && o.h.secondary_ok);
	assert_int_equal(o.h.copy, 0);
	assert_int_equal(o.h.hdr_size, 16384);
	close_opened(&o);

	/* a flipped byte in the primary's JSON: the secondary is used and unlocks */
	copy_fx("l2-base", "flip1", p, sizeof(p));
	poke(p, 4096 + 20, "X", 1);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_false(o.h.primary_ok);
	assert_true(o.h.secondary_ok);
	assert_int_equal(o.h.copy, 1);
	assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
	assert_memory_equal(vk, want, wl);
	close_opened(&o);

	/* the primary wiped entirely: the secondary is found at 16 KiB */
	copy_fx("l2-base", "wiped1", p, sizeof(p));
	assert_int_equal(sh("dd if=/dev/zero of=%s bs=16384 count=1 conv=notrunc status=none", p), 0);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.copy, 1);
	assert_int_equal(unlock(&o, "p0", vk, &vl, &slot), ER_LUKS_OK);
	assert_memory_equal(vk, want, wl);
	close_opened(&o);

	/* 64 KiB metadata: the secondary at 64 KiB; with the primary wiped, found by the scan */
	open_fx(&o, "l2-meta64");
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.hdr_size, 65536);
	assert_true(o.h.primary_ok && o.h.secondary_ok);
	close_opened(&o);
	copy_fx("l2-meta64", "wiped64", p, sizeof(p));
	assert_int_equal(sh("dd if=/dev/zero of=%s bs=65536 count=1 conv=notrunc status=none", p), 0);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.copy, 1);
	assert_int_equal(o.h.hdr_size, 65536);
	{
		uint8_t w64[64];
		size_t l64 = read_hex("l2-meta64", w64);
		assert_int_equal(unlock(&o, "eleven", vk, &vl, &slot), ER_LUKS_OK);
		assert_memory_equal(vk, w64, l64);
	}
	close_opened(&o);

	/* the secondary broken: the primary */
	copy_fx("l2-base", "flip2", p, sizeof(p));
	poke(p, 16384 + 4096 + 20, "X", 1);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_true(o.h.primary_ok);
	assert_false(o.h.secondary_ok);
	assert_int_equal(o.h.copy, 0);
	close_opened(&o);

	/* both broken: refused */
	poke(p, 4096 + 20, "X", 1);
	expect(p, ER_LUKS_CORRUPT, "both header copies");
	/* a checksum that does not cover the JSON area is wrong: edit the binary part only */
	copy_fx("l2-base", "label", p, sizeof(p));
	poke(p, 24, "L", 1);
	poke(p, 16384 + 24, "L", 1);
	expect(p, ER_LUKS_CORRUPT, "checksum");

	/* different seqids: cryptsetup's own update (luksAddKey) on a copy; the older
	 * header in one copy, the newer in the other: the newer wins either way */
	char newer[256];
	copy_fx("l2-one", "newer", newer, sizeof(newer));
	assert_int_equal(sh("printf p1 > %s.k && printf p0 | cryptsetup luksAddKey --batch-mode --pbkdf pbkdf2 "
			    "--pbkdf-force-iterations 1000 --key-file - %s %s.k", newer, newer, newer), 0);
	uint8_t *o1 = malloc(32768), *n1 = malloc(32768);
	int fd = open(newer, O_RDONLY);
	assert_int_equal(pread(fd, n1, 32768, 0), 32768);
	close(fd);
	path_of(p, sizeof(p), "l2-one", "");
	fd = open(p, O_RDONLY);
	assert_int_equal(pread(fd, o1, 32768, 0), 32768);
	close(fd);
	/* primary old, secondary new (the new keyslot's area is on the disk from luksAddKey) */
	copy_fx("newer", "mixed1", p, sizeof(p));
	poke(p, 0, o1, 16384);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.copy, 1);
	assert_int_equal(o.h.n_order, 2);
	assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 1);
	close_opened(&o);
	/* primary new, secondary old */
	copy_fx("newer", "mixed2", p, sizeof(p));
	poke(p, 16384, o1 + 16384, 16384);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.copy, 0);
	assert_int_equal(o.h.n_order, 2);
	close_opened(&o);
	free(o1);
	free(n1);
}

/* ------------------------------------------------------------------ KDF cost caps (issue 15, 6a) */

static void be32_at(const char *path, off_t at, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	poke(path, at, b, 4);
}

/* Headers asking for 2^32 - 1 iterations / passes: before the caps, open accepted them and
 * an unlock ran for days; now such a keyslot is skipped with the reason, and a container
 * with no other keyslot is refused at open, at once. */
static void test_kdf_caps(void **state)
{
	(void)state;
	char p[256], want_msg[160];
	struct opened o;
	uint8_t vk[64], want[64];
	size_t vl, wl;
	unsigned slot;

	/* LUKS2 pbkdf2: the only keyslot over the cap: refused, saying why */
	copy_fx("l2-one", "cap-pb1", p, sizeof(p));
	edit_json(p, "\"iterations\":1000", "\"iterations\":4294967295", 3);
	snprintf(want_msg, sizeof(want_msg), "keyslot 0: pbkdf2 iterations 4294967295 over the cap %u",
		 ER_LUKS_PBKDF2_MAX_ITERATIONS);
	expect(p, ER_LUKS_UNSUPPORTED, want_msg);

	/* keyslot 0 over the cap, keyslot 1 fine: 0 is skipped (an unlock would otherwise
	 * spend 2^32 iterations on it first), 1 unlocks to cryptsetup's volume key */
	wl = read_hex("l2-base", want);
	copy_fx("l2-base", "cap-pb2", p, sizeof(p));
	edit_json(p, "\"iterations\":1000", "\"iterations\":4294967295", 3);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_false(o.h.ks[0].usable);
	assert_true(o.h.ks[1].usable);
	assert_int_equal(o.h.n_order, 1);
	assert_int_equal(o.h.order[0], 1);
	assert_int_equal(unlock(&o, "p1", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 1);
	assert_memory_equal(vk, want, wl);
	assert_int_equal(unlock(&o, "p0", vk, &vl, &slot), ER_LUKS_WRONG_PASSPHRASE);
	close_opened(&o);

	/* at the cap: still usable */
	copy_fx("l2-one", "cap-pb3", p, sizeof(p));
	snprintf(want_msg, sizeof(want_msg), "\"iterations\":%u", ER_LUKS_PBKDF2_MAX_ITERATIONS);
	edit_json(p, "\"iterations\":1000", want_msg, 3);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_true(o.h.ks[0].usable);
	assert_int_equal(o.h.ks[0].iterations, ER_LUKS_PBKDF2_MAX_ITERATIONS);
	close_opened(&o);

	/* the digest over the cap: nothing could be unlocked in time */
	copy_fx("l2-one", "cap-dig", p, sizeof(p));
	edit_json(p, "\"segments\":[\"0\"],\"hash\":\"sha256\",\"iterations\":1000",
		  "\"segments\":[\"0\"],\"hash\":\"sha256\",\"iterations\":4294967295", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "digest pbkdf2 iterations 4294967295 over the cap");

	/* argon2 time 2^32 - 1: both keyslots of l2-a2i; then only the first, with a time that
	 * is fine alone but not with its memory (time x memory is the cost) */
	copy_fx("l2-a2i", "cap-a2", p, sizeof(p));
	edit_json(p, "\"time\":4,", "\"time\":4294967295,", 3);
	edit_json(p, "\"time\":4,", "\"time\":4294967295,", 3);
	expect(p, ER_LUKS_UNSUPPORTED, "keyslot 0: argon2 time 4294967295 x 128 KiB over the cap");
	wl = read_hex("l2-a2i", want);
	copy_fx("l2-a2i", "cap-a2w", p, sizeof(p));
	edit_json(p, "\"time\":4,", "\"time\":600000,", 3);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_false(o.h.ks[0].usable);
	assert_int_equal(o.h.n_order, 1);
	assert_int_equal(unlock(&o, "six", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 1);
	assert_memory_equal(vk, want, wl);
	close_opened(&o);

	/* LUKS1: keyslot 0's iterations (offset 208 + 4), then keyslot 1's, then the master
	 * key digest's (offset 164) */
	wl = read_hex("l1-sha1", want);
	copy_fx("l1-sha1", "cap-l1", p, sizeof(p));
	be32_at(p, 208 + 4, 0xffffffffu);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_false(o.h.ks[0].usable);
	assert_int_equal(o.h.n_order, 1);
	assert_int_equal(unlock(&o, "beta", vk, &vl, &slot), ER_LUKS_OK);
	assert_int_equal(slot, 1);
	assert_memory_equal(vk, want, wl);
	close_opened(&o);
	be32_at(p, 208 + 48 + 4, 0xffffffffu);
	expect(p, ER_LUKS_UNSUPPORTED, "keyslot 0: pbkdf2 iterations 4294967295 over the cap");
	copy_fx("l1-sha1", "cap-l1d", p, sizeof(p));
	be32_at(p, 164, 0xffffffffu);
	expect(p, ER_LUKS_UNSUPPORTED, "digest iterations 4294967295 over the cap");
}

/* ------------------------------------------------------------------ cancel (issue 15, 6b) */

/* says "stop" from its (fire_at + 1)-th poll on */
struct canceller { unsigned polls, fire_at; };
static bool cancel_after(void *ctx)
{
	struct canceller *c = ctx;
	return ++c->polls > c->fire_at;
}

static enum er_luks_status unlock_cancel(struct opened *o, const struct er_lanes *lanes, struct canceller *c,
					 const char *pw, uint8_t *vk, size_t *vklen, unsigned *slot)
{
	struct er_luks_cancel cancel = { .ctx = c, .requested = cancel_after };
	unsigned before = o->cm.wiped_checks;
	memset(vk, 0x5a, 64);
	o->cm.check_wiped = true;       /* every buffer given back must be all zero */
	enum er_luks_status st = er_luks_unlock(&o->h, &o->dev, &o->mem, lanes, &cancel, (const uint8_t *)pw,
						strlen(pw), vk, vklen, slot, &o->err);
	o->cm.check_wiped = false;
	assert_int_equal(o->cm.outstanding, 0);
	assert_true(o->cm.wiped_checks >= before);
	return st;
}

static void cancel_case(const char *path, const char *pw, const uint8_t *want, size_t wl,
			const struct er_lanes *lanes, unsigned min_polls)
{
	struct opened o;
	uint8_t vk[64];
	size_t vl;
	unsigned slot;
	struct canceller c = { 0, ~0u };

	open_path(&o, path);
	assert_int_equal(o.st, ER_LUKS_OK);
	/* never fires: the right key, and polled often */
	assert_int_equal(unlock_cancel(&o, lanes, &c, pw, vk, &vl, &slot), ER_LUKS_OK);
	assert_memory_equal(vk, want, wl);
	unsigned total = c.polls;
	print_message("  %s: %u polls in a full unlock\n", strrchr(path, '/') + 1, total);
	assert_true(total >= min_polls);
	/* fires at the first, second, a middle and the last poll: stops there, nothing left */
	unsigned at[] = { 0, 1, total / 2, total - 1 };
	for (unsigned i = 0; i < 4; i++) {
		c = (struct canceller){ 0, at[i] };
		vl = 99;
		assert_int_equal(unlock_cancel(&o, lanes, &c, pw, vk, &vl, &slot), ER_LUKS_INTERRUPTED);
		assert_int_equal(o.err.status, ER_LUKS_INTERRUPTED);
		assert_non_null(strstr(o.err.detail, "interrupted"));
		assert_int_equal(c.polls, at[i] + 1);      /* no poll after the one that said stop */
		assert_int_equal(vl, 0);
		assert_zero(vk, 64);
	}
	close_opened(&o);
}

static void test_cancel(void **state)
{
	(void)state;
	char p[256];
	uint8_t want[64];
	size_t wl;

	/* pbkdf2: a keyslot of 100000 iterations added by cryptsetup (slot 1), tried after
	 * keyslot 0: polls every ER_PBKDF2_POLL_ITERATIONS iterations */
	wl = read_hex("l2-one", want);
	copy_fx("l2-one", "cancel-pb", p, sizeof(p));
	assert_int_equal(sh("printf slow > %s.k && printf p0 | cryptsetup luksAddKey --batch-mode --pbkdf pbkdf2 "
			    "--pbkdf-force-iterations 100000 --key-file - %s %s.k", p, p, p), 0);
	cancel_case(p, "slow", want, wl, NULL, 100000 / 8192);   /* ER_PBKDF2_POLL_ITERATIONS */

	/* argon2id with 4 lanes, serial and through a lanes engine; keyslot 2 after 0 and 1 */
	struct lane_count lc = { 0, 0 };
	struct er_lanes lanes = { .ctx = &lc, .run = run_lanes };
	wl = read_hex("l2-a2id", want);
	path_of(p, sizeof(p), "l2-a2id", "");
	cancel_case(p, "nine", want, wl, NULL, 3 * 4 * 4);
	cancel_case(p, "nine", want, wl, &lanes, 3 * 4 * 4);
	assert_true(lc.calls > 0);
}

/* ------------------------------------------------------------------ probe_dev (issue 15, 8) */

static unsigned probe_path(const char *path)
{
	struct file_dev fd = { .fd = open(path, O_RDONLY), .fail_after = -1 };
	struct stat sb;
	assert_true(fd.fd >= 0);
	assert_int_equal(fstat(fd.fd, &sb), 0);
	struct er_luks_dev dev = { .ctx = &fd, .size = (uint64_t)sb.st_size, .read = fd_read };
	unsigned v = er_luks_probe_dev(&dev);
	close(fd.fd);
	return v;
}

/* A container made by cryptsetup luksFormat --type luks2 whose primary header is wiped:
 * er_luks_probe_dev finds the secondary (at 16 KiB, and at 64 KiB with 64 KiB metadata),
 * open recovers from it and the unlock derives the volume key cryptsetup reported. */
static void test_probe_dev(void **state)
{
	(void)state;
	char p[256];
	struct opened o;
	uint8_t vk[64], want[64];
	size_t vl, wl;
	unsigned slot;

	path_of(p, sizeof(p), "l2-base", "");
	assert_int_equal(probe_path(p), 2);
	path_of(p, sizeof(p), "l1-sha1", "");
	assert_int_equal(probe_path(p), 1);
	path_of(p, sizeof(p), "plain", "");
	assert_int_equal(probe_path(p), 0);

	/* a device shorter than 16 bytes with a LUKS2 magic and version: probe_dev says what
	 * er_luks_probe says of the same bytes (found by fuzz_luks in CI: it said 0, probe 2) */
	static const uint8_t tiny[13] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 2, 4 };
	snprintf(p, sizeof(p), "%s/probe-tiny", dir);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(tiny, 1, sizeof(tiny), f), sizeof(tiny));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(er_luks_probe(tiny, sizeof(tiny)), 2);
	assert_int_equal(probe_path(p), 2);

	static const struct { const char *fx, *pw; unsigned hs; } w[] = {
		{ "l2-base", "p1", 16384 }, { "l2-meta64", "eleven", 65536 }, { "l2-a2id", "eight", 16384 },
	};
	for (unsigned i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "probe-%s", w[i].fx);
		copy_fx(w[i].fx, name, p, sizeof(p));
		assert_int_equal(sh("dd if=/dev/zero of=%s bs=%u count=1 conv=notrunc status=none", p, w[i].hs), 0);
		assert_int_equal(probe_path(p), 2);
		open_path(&o, p);
		assert_int_equal(o.st, ER_LUKS_OK);
		assert_int_equal(o.h.copy, 1);
		assert_false(o.h.primary_ok);
		assert_int_equal(o.h.hdr_size, w[i].hs);
		wl = read_hex(w[i].fx, want);
		assert_int_equal(unlock(&o, w[i].pw, vk, &vl, &slot), ER_LUKS_OK);
		assert_memory_equal(vk, want, wl);
		close_opened(&o);
		/* the secondary's checksum broken too: not LUKS for the probe, both copies bad for open */
		poke(p, w[i].hs + 4096 + 30, "X", 1);
		assert_int_equal(probe_path(p), 0);
		expect(p, ER_LUKS_CORRUPT, "both header copies");
	}

	/* a stray secondary magic at 16 KiB (a wiped 64 KiB-metadata container with an old
	 * 16 KiB header's secondary left there): cryptsetup goes on to the next offset, so
	 * do probe_dev and open */
	copy_fx("l2-meta64", "probe-stray", p, sizeof(p));
	assert_int_equal(sh("dd if=/dev/zero of=%s bs=65536 count=1 conv=notrunc status=none", p), 0);
	assert_int_equal(sh("dd if=%s/l2-base of=%s bs=16384 skip=1 seek=1 count=1 conv=notrunc status=none", dir, p), 0);
	poke(p, 16384 + 4096 + 30, "X", 1);
	assert_int_equal(probe_path(p), 2);
	open_path(&o, p);
	assert_int_equal(o.st, ER_LUKS_OK);
	assert_int_equal(o.h.hdr_size, 65536);
	close_opened(&o);
}

/* ------------------------------------------------------------------ I/O and memory failures */

static void test_failures(void **state)
{
	(void)state;
	static const char *const names[] = { "l2-a2i", "l1-sha1" };
	for (size_t k = 0; k < 2; k++) {
		struct opened o;
		uint8_t vk[64];
		size_t vl;
		unsigned slot;
		const char *pw = k ? "beta" : "six";
		/* every allocation of open failing in turn: NOMEM, nothing leaked */
		for (int f = 0;; f++) {
			open_fx(&o, names[k]);
			unsigned n = (unsigned)o.cm.allocs;
			close_opened(&o);
			if (f >= (int)n)
				break;
			char pth[256];
			path_of(pth, sizeof(pth), names[k], "");
			memset(&o, 0, sizeof(o));
			/* reopen with the failing allocator */
			o.fd.fd = open(pth, O_RDONLY);
			o.fd.fail_after = -1;
			struct stat sb;
			fstat(o.fd.fd, &sb);
			o.dev = (struct er_luks_dev){ .ctx = &o.fd, .size = (uint64_t)sb.st_size, .read = fd_read };
			o.cm.fail_at = f;
			o.mem = (struct er_luks_mem){ .ctx = &o.cm, .alloc = cm_alloc, .free = cm_free };
			assert_int_equal(er_luks_open(&o.h, &o.dev, &o.mem, &o.err), ER_LUKS_NOMEM);
			assert_int_equal(o.cm.outstanding, 0);
			close_opened(&o);
		}
		/* unlock: each allocation failing, each read failing */
		open_fx(&o, names[k]);
		assert_int_equal(o.st, ER_LUKS_OK);
		for (int f = 0; f < 4; f++) {
			o.cm.allocs = 0;
			o.cm.fail_at = f;
			memset(vk, 0x55, sizeof(vk));
			enum er_luks_status st = unlock(&o, pw, vk, &vl, &slot);
			if (st == ER_LUKS_OK)
				break;
			assert_int_equal(st, ER_LUKS_NOMEM);
			assert_zero(vk, sizeof(vk));
		}
		o.cm.fail_at = -1;
		o.fd.fail_after = 0;
		memset(vk, 0x55, sizeof(vk));
		assert_int_equal(unlock(&o, pw, vk, &vl, &slot), ER_LUKS_IO);
		assert_zero(vk, sizeof(vk));
		o.fd.fail_after = -1;
		assert_int_equal(unlock(&o, pw, vk, &vl, &slot), ER_LUKS_OK);
		close_opened(&o);
		/* open with each read failing in turn: IO (or, for the primary, the fallback) */
		for (int f = 0; f < 3; f++) {
			char pth[256];
			path_of(pth, sizeof(pth), names[k], "");
			memset(&o, 0, sizeof(o));
			o.fd.fd = open(pth, O_RDONLY);
			o.fd.fail_after = f;
			struct stat sb;
			fstat(o.fd.fd, &sb);
			o.dev = (struct er_luks_dev){ .ctx = &o.fd, .size = (uint64_t)sb.st_size, .read = fd_read };
			o.cm.fail_at = -1;
			o.mem = (struct er_luks_mem){ .ctx = &o.cm, .alloc = cm_alloc, .free = cm_free };
			enum er_luks_status st = er_luks_open(&o.h, &o.dev, &o.mem, &o.err);
			assert_true(st == ER_LUKS_IO || (k == 1 && f > 0 && st == ER_LUKS_OK));
			assert_int_equal(o.cm.outstanding, 0);
			close_opened(&o);
		}
	}
}

/* ------------------------------------------------------------------ pieces */

/* AF merge from the LUKS1 spec (section 2.4), written with OpenSSL digests */
static void ref_diffuse(uint8_t *b, size_t n, const EVP_MD *md)
{
	size_t ds = (size_t)EVP_MD_size(md);
	for (size_t i = 0, off = 0; off < n; i++, off += ds) {
		uint8_t be[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i };
		uint8_t out[64];
		EVP_MD_CTX *c = EVP_MD_CTX_new();
		EVP_DigestInit_ex(c, md, NULL);
		EVP_DigestUpdate(c, be, 4);
		EVP_DigestUpdate(c, b + off, n - off < ds ? n - off : ds);
		EVP_DigestFinal_ex(c, out, NULL);
		EVP_MD_CTX_free(c);
		memcpy(b + off, out, n - off < ds ? n - off : ds);
	}
}

static void test_af_merge(void **state)
{
	(void)state;
	const EVP_MD *mds[] = { EVP_sha1(), EVP_sha256(), EVP_sha512() };
	const enum er_hash hs[] = { ER_HASH_SHA1, ER_HASH_SHA256, ER_HASH_SHA512 };
	const uint32_t sizes[] = { 16, 20, 32, 33, 64 };
	for (int h = 0; h < 3; h++)
		for (int s = 0; s < 5; s++) {
			uint32_t ks = sizes[s], stripes = 4000;
			uint8_t *src = malloc((size_t)ks * stripes), d[64] = { 0 }, key[64], ref[64];
			for (size_t i = 0; i < (size_t)ks * stripes; i++)
				src[i] = (uint8_t)(i * 131 + h + s);
			for (uint32_t i = 0; i < stripes - 1; i++) {
				for (uint32_t j = 0; j < ks; j++)
					d[j] ^= src[(size_t)i * ks + j];
				ref_diffuse(d, ks, mds[h]);
			}
			for (uint32_t j = 0; j < ks; j++)
				ref[j] = d[j] ^ src[(size_t)(stripes - 1) * ks + j];
			assert_true(er_luks_af_merge(src, ks, stripes, hs[h], key));
			assert_memory_equal(key, ref, ks);
			free(src);
		}
	uint8_t k[64], src[64] = { 0 };
	assert_false(er_luks_af_merge(src, 65, 1, ER_HASH_SHA256, k));
	assert_false(er_luks_af_merge(src, 32, 0, ER_HASH_SHA256, k));
	assert_false(er_luks_af_merge(src, 32, 1, (enum er_hash)9, k));
}

static void test_base64(void **state)
{
	(void)state;
	uint8_t raw[70], enc[128], out[70], ref[96];
	size_t n;
	for (size_t len = 1; len <= 64; len++) {
		for (size_t i = 0; i < len; i++)
			raw[i] = (uint8_t)(i * 37 + len);
		int el = EVP_EncodeBlock(enc, raw, (int)len);
		assert_true(er_luks_base64((const char *)enc, (size_t)el, out, sizeof(out), &n));
		assert_int_equal(n, len);
		assert_memory_equal(out, raw, len);
		/* OpenSSL decodes to the same bytes (padding gives trailing zeros) */
		assert_true(EVP_DecodeBlock(ref, enc, el) >= (int)len);
		assert_memory_equal(ref, raw, len);
		/* too small an output */
		assert_false(er_luks_base64((const char *)enc, (size_t)el, out, len - 1, &n));
	}
	assert_false(er_luks_base64("abc", 3, out, sizeof(out), &n));
	assert_false(er_luks_base64("ab=c", 4, out, sizeof(out), &n));
	assert_false(er_luks_base64("a===", 4, out, sizeof(out), &n));
	assert_false(er_luks_base64("ab*d", 4, out, sizeof(out), &n));
	assert_false(er_luks_base64("QR==", 4, out, sizeof(out), &n));   /* non-zero dropped bits */
	assert_false(er_luks_base64("QQ==QQ==", 8, out, sizeof(out), &n));
	assert_true(er_luks_base64("QQ==", 4, out, sizeof(out), &n));
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 'A');
}

static void test_probe_and_iv(void **state)
{
	(void)state;
	uint8_t b[16] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 2 };
	assert_int_equal(er_luks_probe(b, 16), 2);
	b[7] = 1;
	assert_int_equal(er_luks_probe(b, 16), 1);
	b[7] = 3;
	assert_int_equal(er_luks_probe(b, 16), 0);
	b[7] = 1;
	assert_int_equal(er_luks_probe(b, 7), 0);
	b[0] = 'S';
	assert_int_equal(er_luks_probe(b, 16), 0);
	/* dm-crypt plain64: (sector512 + iv_offset) >> shift with iv_large_sectors */
	struct er_luks_segment s = { .sector_size = 4096, .iv_large_sectors = true, .iv_tweak = 0 };
	assert_int_equal(er_luks_iv_sector(&s, 0), 0);
	assert_int_equal(er_luks_iv_sector(&s, 4096), 1);
	assert_int_equal(er_luks_iv_sector(&s, 40960), 10);
	s.iv_tweak = 8;
	assert_int_equal(er_luks_iv_sector(&s, 4096), 2);
	s = (struct er_luks_segment){ .sector_size = 512, .iv_tweak = 3 };
	assert_int_equal(er_luks_iv_sector(&s, 1024), 5);
	s = (struct er_luks_segment){ .sector_size = 4096, .iv_large_sectors = false };
	assert_int_equal(er_luks_iv_sector(&s, 4096), 8);
	assert_string_equal(er_luks_status_name(ER_LUKS_TOKEN_ONLY), "token-only");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_and_iv),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_af_merge),
		cmocka_unit_test(test_volume_keys),
		cmocka_unit_test(test_lanes_engine),
		cmocka_unit_test(test_data_sectors),
		cmocka_unit_test(test_cryptsetup_encrypted),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_header_copies),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_kdf_caps),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_probe_dev),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
