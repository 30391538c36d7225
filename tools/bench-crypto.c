// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-crypto: the LUKS primitives, ours against OpenSSL (libcrypto).
 *
 *   build/bench-crypto
 *
 * 1. AES-256-XTS (plain64) decryption of 4096-byte sectors, MB/s (1 MB = 10^6 bytes):
 *    - AES-NI: er_aes_xts_decrypt against EVP_aes_256_xts (which uses AES-NI too);
 *    - table-free: er_aes_xts_decrypt with er_aes_force_soft(true) against OpenSSL with
 *      AES-NI masked off (OPENSSL_ia32cap, read when libcrypto loads, so that number comes
 *      from a child process: this program re-executed with --openssl-xts). OpenSSL then
 *      uses its bit-sliced SSSE3 XTS code (bsaes), also constant time.
 * 2. PBKDF2-HMAC-SHA256 (and SHA-1, SHA-512), iterations per second, er_pbkdf2 against
 *    PKCS5_PBKDF2_HMAC, 32-byte output (one block), 64-byte salt. SHA-256 twice: with the
 *    CPU's SHA extensions when it has them, and the portable code (er_sha_force_soft);
 *    OpenSSL uses whatever this CPU offers in both lines.
 * 7 runs each, ours and OpenSSL alternating (the OpenSSL table-free runs one child per
 * run); times are the process's CPU time, which a busy shared machine disturbs less than
 * wall time; medians and ratios (ours / OpenSSL, >1 = ours faster):
 *
 *   aes-256-xts decrypt, AES-NI       ours  3520.1 MB/s  OpenSSL  5210.4 MB/s  ratio 0.68
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "crypto/aes.h"
#include "crypto/pbkdf2.h"
#include "image/freestanding.h"
#include "tools/bench.h"

#define RUNS 7
#define SECTOR 4096



static uint8_t key[64];

/* seconds to decrypt len bytes in place, sector by sector (first sector number 1000) */
static double xts_ours(uint8_t *buf, size_t len)
{
	struct er_aes_xts x;
	double t0;

	if (!er_aes_xts_init(&x, key, 64))
		abort();
	t0 = now();
	for (size_t off = 0; off < len; off += SECTOR)
		er_aes_xts_decrypt(&x, 1000 + off / SECTOR, buf + off, SECTOR);
	t0 = now() - t0;
	er_aes_xts_wipe(&x);
	return t0;
}

static double xts_openssl(uint8_t *buf, size_t len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t iv[16] = { 0 };
	double t0;
	int l;

	if (!c || EVP_DecryptInit_ex(c, EVP_aes_256_xts(), NULL, key, NULL) != 1)
		abort();
	t0 = now();
	for (size_t off = 0; off < len; off += SECTOR) {
		er_put_le64(iv, 1000 + off / SECTOR);
		if (EVP_DecryptInit_ex(c, NULL, NULL, NULL, iv) != 1 ||
		    EVP_DecryptUpdate(c, buf + off, &l, buf + off, SECTOR) != 1 || l != SECTOR)
			abort();
	}
	t0 = now() - t0;
	EVP_CIPHER_CTX_free(c);
	return t0;
}

static uint8_t *make_buf(size_t len)
{
	uint8_t *b = malloc(len);
	if (!b) {
		perror("malloc");
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)rng();
	return b;
}

/* child mode: print the MB/s of one run of OpenSSL's XTS over len bytes */
static int openssl_xts_child(size_t len)
{
	uint8_t *buf = make_buf(len);

	printf("%.1f\n", len / xts_openssl(buf, len) / 1e6);
	free(buf);
	return 0;
}

/* the same measurement in a child whose libcrypto starts without AES-NI */
static double openssl_xts_no_aesni(const char *self, size_t len)
{
	char cmd[4096];
	FILE *p;
	double v = 0;

	/* bit 57 of the capability vector is CPUID.1:ECX.AES (OpenSSL's OPENSSL_ia32cap) */
	snprintf(cmd, sizeof(cmd), "OPENSSL_ia32cap='~0x200000000000000' '%s' --openssl-xts %zu", self, len);
	p = popen(cmd, "r");
	if (!p || fscanf(p, "%lf", &v) != 1)
		v = 0;
	if (p)
		pclose(p);
	return v;
}

static void report(const char *what, double ours, double lib, const char *unit)
{
	printf("%-44s ours %10.1f %s  OpenSSL %10.1f %s  ratio %.2f\n", what, ours, unit, lib, unit,
	       lib > 0 ? ours / lib : 0.0);
}

static void bench_xts(const char *self)
{
	size_t len_hw = 64u << 20, len_soft = 8u << 20;
	uint8_t *buf = make_buf(len_hw);
	double a[RUNS], b[RUNS];

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)rng();
	if (er_aes_hw_available()) {
		er_aes_force_soft(false);
		for (int r = 0; r < RUNS; r++) {
			a[r] = len_hw / xts_ours(buf, len_hw) / 1e6;
			b[r] = len_hw / xts_openssl(buf, len_hw) / 1e6;
		}
		report("aes-256-xts decrypt, AES-NI", median(a, RUNS), median(b, RUNS), "MB/s");
	} else {
		printf("aes-256-xts decrypt, AES-NI: this CPU has no AES-NI\n");
	}
	er_aes_force_soft(true);
	for (int r = 0; r < RUNS; r++) {
		a[r] = len_soft / xts_ours(buf, len_soft) / 1e6;
		b[r] = openssl_xts_no_aesni(self, len_soft);
	}
	er_aes_force_soft(false);
	report("aes-256-xts decrypt, table-free", median(a, RUNS), median(b, RUNS), "MB/s");
	printf("    (OpenSSL without AES-NI: OPENSSL_ia32cap=~0x200000000000000, its bsaes/vpaes code)\n");
	free(buf);
}

static void bench_pbkdf2(enum er_hash h, const EVP_MD *md, const char *name, uint32_t iter)
{
	uint8_t salt[64], out[32], ref[32];
	const char *pw = "a passphrase typed at the firmware";
	double a[RUNS], b[RUNS];
	char what[80];

	for (size_t i = 0; i < sizeof(salt); i++)
		salt[i] = (uint8_t)rng();
	for (int r = 0; r < RUNS; r++) {
		double t0 = now();
		if (!er_pbkdf2(h, (const uint8_t *)pw, strlen(pw), salt, sizeof(salt), iter, out, sizeof(out)))
			abort();
		a[r] = iter / (now() - t0);
		t0 = now();
		if (PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, sizeof(salt), (int)iter, md, sizeof(ref), ref) != 1)
			abort();
		b[r] = iter / (now() - t0);
		if (memcmp(out, ref, sizeof(out)) != 0) {
			fprintf(stderr, "pbkdf2-%s: ours and OpenSSL differ\n", name);
			exit(1);
		}
	}
	snprintf(what, sizeof(what), "pbkdf2-%s (%u iterations)", name, iter);
	report(what, median(a, RUNS) / 1e3, median(b, RUNS) / 1e3, "k it/s");
}

int main(int argc, char **argv)
{
	rng_state = 0x9E3779B97F4A7C15ull;   /* the sequence this bench always used */
	if (argc == 3 && strcmp(argv[1], "--openssl-xts") == 0)
		return openssl_xts_child((size_t)strtoull(argv[2], NULL, 10));
	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 2;
	}
	printf("AES-NI: %s, SHA-NI: %s; %d runs each, medians, ratio = ours / OpenSSL (%s)\n",
	       er_aes_hw_available() ? "yes" : "no", er_sha_hw_available() ? "yes" : "no", RUNS,
	       OpenSSL_version(OPENSSL_VERSION));
	bench_xts(argv[0]);
	if (er_sha_hw_available())
		bench_pbkdf2(ER_HASH_SHA256, EVP_sha256(), "sha256, SHA-NI", 500000);
	er_sha_force_soft(true);
	bench_pbkdf2(ER_HASH_SHA256, EVP_sha256(), "sha256, portable", 500000);
	er_sha_force_soft(false);
	bench_pbkdf2(ER_HASH_SHA1, EVP_sha1(), "sha1", 500000);
	bench_pbkdf2(ER_HASH_SHA512, EVP_sha512(), "sha512", 200000);
	return 0;
}
