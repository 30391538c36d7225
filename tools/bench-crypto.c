// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-crypto: the LUKS primitives, ours against OpenSSL (libcrypto).
 *
 *   build/bench-crypto [xts] [pbkdf2] [gcm] [sha] [crc]     (no argument: every section)
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
 * 3. AES-256-GCM of 4096-byte messages (one image page each, a fresh IV per page, 16 bytes
 *    of AAD), encrypt and decrypt (with the tag check), er_gcm_* against EVP_aes_256_gcm
 *    (OpenSSL 3.0: its stitched AES-NI + PCLMULQDQ AVX assembly); with er_gcm_force_soft the
 *    portable path against OpenSSL with AES-NI and PCLMULQDQ masked off (a child, as in 1).
 * 4. SHA-256 and HMAC-SHA256 of 4096-byte pages: er_hash against EVP_Digest, er_hmac
 *    (keyed per page, 32-byte key) against EVP_MAC "HMAC" (EVP_MAC_init with the key per
 *    page); SHA-NI on both sides when the CPU has it, then our portable SHA-256 (OpenSSL
 *    still with whatever this CPU offers, as in 2).
 * 5. CRC32 (crc32_le) of 4096-byte pages: er_crc32_le (VPCLMULQDQ folding on 256-bit
 *    registers where the CPU and OS allow it, the 128-bit PCLMULQDQ folding, the tables)
 *    against zlib's crc32.
 * 7 runs each (9 for 3-5), ours and the library alternating (the OpenSSL masked runs one
 * child per run); times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), which a busy
 * shared machine disturbs less than wall time; medians and ratios (ours / library, >1 =
 * ours faster):
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

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "crypto/aes.h"
#include "crypto/gcm.h"
#include "crypto/pbkdf2.h"
#include "crypto/sha.h"
#include "image/crc32.h"
#include "image/freestanding.h"
#include "tools/bench.h"

#define RUNS 7
#define SECTOR 4096



static uint8_t key[64];

/* the process's CPU time, which a busy shared machine disturbs less than wall time
 * (tools/bench.h's now() is CLOCK_MONOTONIC) */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* seconds to decrypt len bytes in place, sector by sector (first sector number 1000) */
static double xts_ours(uint8_t *buf, size_t len)
{
	struct er_aes_xts x;
	double t0;

	if (!er_aes_xts_init(&x, key, 64))
		abort();
	t0 = cpu_now();
	for (size_t off = 0; off < len; off += SECTOR)
		er_aes_xts_decrypt(&x, 1000 + off / SECTOR, buf + off, SECTOR);
	t0 = cpu_now() - t0;
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
	t0 = cpu_now();
	for (size_t off = 0; off < len; off += SECTOR) {
		er_put_le64(iv, 1000 + off / SECTOR);
		if (EVP_DecryptInit_ex(c, NULL, NULL, NULL, iv) != 1 ||
		    EVP_DecryptUpdate(c, buf + off, &l, buf + off, SECTOR) != 1 || l != SECTOR)
			abort();
	}
	t0 = cpu_now() - t0;
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

/* a child's MB/s (self MODE len) with its libcrypto's capability vector masked by MASK
 * (OPENSSL_ia32cap): the OpenSSL measurement without some CPU extensions; 0 on failure */
static double openssl_child_masked(const char *self, const char *mask, const char *mode, size_t len)
{
	char cmd[4096];
	FILE *p;
	double v = 0;

	snprintf(cmd, sizeof(cmd), "OPENSSL_ia32cap='%s' '%s' %s %zu", mask, self, mode, len);
	p = popen(cmd, "r");
	if (!p || fscanf(p, "%lf", &v) != 1)
		v = 0;
	if (p)
		pclose(p);
	return v;
}

/* the same measurement in a child whose libcrypto starts without AES-NI */
static double openssl_xts_no_aesni(const char *self, size_t len)
{
	/* bit 57 of the capability vector is CPUID.1:ECX.AES (OpenSSL's OPENSSL_ia32cap) */
	return openssl_child_masked(self, "~0x200000000000000", "--openssl-xts", len);
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
		double t0 = cpu_now();
		if (!er_pbkdf2(h, (const uint8_t *)pw, strlen(pw), salt, sizeof(salt), iter, out, sizeof(out)))
			abort();
		a[r] = iter / (cpu_now() - t0);
		t0 = cpu_now();
		if (PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, sizeof(salt), (int)iter, md, sizeof(ref), ref) != 1)
			abort();
		b[r] = iter / (cpu_now() - t0);
		if (memcmp(out, ref, sizeof(out)) != 0) {
			fprintf(stderr, "pbkdf2-%s: ours and OpenSSL differ\n", name);
			exit(1);
		}
	}
	snprintf(what, sizeof(what), "pbkdf2-%s (%u iterations)", name, iter);
	report(what, median(a, RUNS) / 1e3, median(b, RUNS) / 1e3, "k it/s");
}

/* ------------------------------------------------------------------ GCM, SHA, CRC */
#define PAGE 4096
#define PRUNS 9
static const uint8_t gcm_aad[16] = "efiresume page..";

/* seconds for len bytes in place, page by page; tags[] one per page */
static double gcm_ours(bool dec, uint8_t *buf, size_t len, uint8_t *tags)
{
	struct er_gcm g;
	uint8_t iv[12] = { 0 };
	double t0;

	er_gcm_init(&g, key);
	t0 = cpu_now();
	for (size_t off = 0; off < len; off += PAGE) {
		er_put_le64(iv, off / PAGE);
		if (dec) {
			if (!er_gcm_decrypt(&g, iv, gcm_aad, sizeof(gcm_aad), buf + off, buf + off, PAGE, tags + off / PAGE * 16))
				abort();
		} else {
			er_gcm_encrypt(&g, iv, gcm_aad, sizeof(gcm_aad), buf + off, buf + off, PAGE, tags + off / PAGE * 16);
		}
	}
	t0 = cpu_now() - t0;
	er_gcm_wipe(&g);
	return t0;
}

static double gcm_openssl(bool dec, uint8_t *buf, size_t len, uint8_t *tags)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t iv[12] = { 0 };
	double t0;
	int l;

	if (!c || EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, key, NULL, dec ? 0 : 1) != 1)
		abort();
	t0 = cpu_now();
	for (size_t off = 0; off < len; off += PAGE) {
		uint8_t *tag = tags + off / PAGE * 16;
		er_put_le64(iv, off / PAGE);
		if (EVP_CipherInit_ex(c, NULL, NULL, NULL, iv, -1) != 1 ||
		    EVP_CipherUpdate(c, NULL, &l, gcm_aad, sizeof(gcm_aad)) != 1 ||
		    EVP_CipherUpdate(c, buf + off, &l, buf + off, PAGE) != 1 || l != PAGE)
			abort();
		if (dec && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag) != 1)
			abort();
		if (EVP_CipherFinal_ex(c, buf + off, &l) != 1)
			abort();
		if (!dec && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
			abort();
	}
	t0 = cpu_now() - t0;
	EVP_CIPHER_CTX_free(c);
	return t0;
}

/* child mode: MB/s of one OpenSSL GCM decryption run (encrypt first, untimed) */
static int openssl_gcm_child(size_t len)
{
	uint8_t *buf = make_buf(len), *tags = malloc(len / PAGE * 16);

	if (!tags)
		abort();
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	gcm_openssl(false, buf, len, tags);
	printf("%.1f\n", len / gcm_openssl(true, buf, len, tags) / 1e6);
	free(buf);
	free(tags);
	return 0;
}

static double openssl_gcm_masked(const char *self, size_t len)
{
	/* bits 57 (AES) and 33 (PCLMULQDQ) of OPENSSL_ia32cap's first word (CPUID.1:ECX << 32) */
	return openssl_child_masked(self, "~0x200000200000000", "--openssl-gcm", len);
}

static void bench_gcm(const char *self)
{
	size_t len = 16u << 20, len_soft = 2u << 20;
	uint8_t *buf = make_buf(len), *tags = malloc(len / PAGE * 16);
	double a[PRUNS], b[PRUNS], c[PRUNS], d[PRUNS];
	struct er_gcm g;

	if (!tags)
		abort();
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	er_gcm_init(&g, key);
	/* the two agree: encrypt with ours, decrypt with OpenSSL (tags checked) and back */
	gcm_ours(false, buf, PAGE * 64, tags);
	gcm_openssl(true, buf, PAGE * 64, tags);
	if (er_gcm_hw(&g)) {
		er_gcm_force_soft(false);
		for (int r = 0; r < PRUNS; r++) {
			a[r] = len / gcm_ours(false, buf, len, tags) / 1e6;
			b[r] = len / gcm_openssl(false, buf, len, tags) / 1e6;
			c[r] = len / gcm_ours(true, buf, len, tags) / 1e6;
			/* ours decrypted in place: encrypt again (untimed) for OpenSSL's decryption */
			gcm_ours(false, buf, len, tags);
			d[r] = len / gcm_openssl(true, buf, len, tags) / 1e6;
			gcm_ours(false, buf, len, tags);
		}
		report("aes-256-gcm encrypt 4 KiB, AES-NI+PCLMUL", median(a, PRUNS), median(b, PRUNS), "MB/s");
		report("aes-256-gcm decrypt 4 KiB, AES-NI+PCLMUL", median(c, PRUNS), median(d, PRUNS), "MB/s");
	} else {
		printf("aes-256-gcm, AES-NI+PCLMUL: not on this CPU\n");
	}
	er_gcm_wipe(&g);
	er_gcm_force_soft(true);
	for (int r = 0; r < PRUNS; r++) {
		gcm_ours(false, buf, len_soft, tags);
		a[r] = len_soft / gcm_ours(true, buf, len_soft, tags) / 1e6;
		b[r] = openssl_gcm_masked(self, len_soft);
	}
	er_gcm_force_soft(false);
	report("aes-256-gcm decrypt 4 KiB, portable", median(a, PRUNS), median(b, PRUNS), "MB/s");
	printf("    (OpenSSL without AES-NI and PCLMULQDQ: OPENSSL_ia32cap=~0x200000200000000)\n");
	free(buf);
	free(tags);
}

static double sha_ours(bool hmac, const uint8_t *buf, size_t len, uint8_t *out)
{
	double t0 = cpu_now();
	for (size_t off = 0; off < len; off += PAGE) {
		if (hmac)
			er_hmac(ER_HASH_SHA256, key, 32, buf + off, PAGE, out);
		else
			er_hash(ER_HASH_SHA256, buf + off, PAGE, out);
	}
	return cpu_now() - t0;
}

static double sha_openssl(bool hmac, const uint8_t *buf, size_t len, uint8_t *out)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *mc = mac ? EVP_MAC_CTX_new(mac) : NULL;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
				OSSL_PARAM_construct_end() };
	const EVP_MD *sha = EVP_sha256();
	unsigned ol;
	size_t osl;
	double t0;

	if (!mc || !md)
		abort();
	t0 = cpu_now();
	for (size_t off = 0; off < len; off += PAGE) {
		if (hmac) {
			if (EVP_MAC_init(mc, key, 32, off ? NULL : params) != 1 || EVP_MAC_update(mc, buf + off, PAGE) != 1 ||
			    EVP_MAC_final(mc, out, &osl, 32) != 1)
				abort();
		} else if (EVP_DigestInit_ex(md, sha, NULL) != 1 || EVP_DigestUpdate(md, buf + off, PAGE) != 1 ||
			   EVP_DigestFinal_ex(md, out, &ol) != 1) {
			abort();
		}
	}
	t0 = cpu_now() - t0;
	EVP_MD_CTX_free(md);
	EVP_MAC_CTX_free(mc);
	EVP_MAC_free(mac);
	return t0;
}

static void bench_sha(void)
{
	size_t len = 16u << 20;
	uint8_t *buf = make_buf(len), x[32], y[32];
	double a[PRUNS], b[PRUNS];
	char what[80];

	for (int soft = 0; soft < 2; soft++) {
		if (!soft && !er_sha_hw_available())
			continue;
		er_sha_force_soft(soft);
		for (int hmac = 0; hmac < 2; hmac++) {
			sha_ours(hmac, buf, PAGE, x);
			sha_openssl(hmac, buf, PAGE, y);
			if (memcmp(x, y, 32) != 0) {
				fprintf(stderr, "%s: ours and OpenSSL differ\n", hmac ? "hmac-sha256" : "sha256");
				exit(1);
			}
			for (int r = 0; r < PRUNS; r++) {
				a[r] = len / sha_ours(hmac, buf, len, x) / 1e6;
				b[r] = len / sha_openssl(hmac, buf, len, y) / 1e6;
			}
			snprintf(what, sizeof(what), "%s 4 KiB, %s", hmac ? "hmac-sha256" : "sha256",
				 soft ? "portable" : "SHA-NI");
			report(what, median(a, PRUNS), median(b, PRUNS), "MB/s");
		}
	}
	er_sha_force_soft(false);
	free(buf);
}

static double crc_run(bool zlib, const uint8_t *buf, size_t len, uint32_t *sink)
{
	double t0 = cpu_now();
	for (size_t off = 0; off < len; off += PAGE)
		*sink ^= zlib ? (uint32_t)crc32(0, buf + off, PAGE) : er_crc32_le(0, buf + off, PAGE);
	return cpu_now() - t0;
}

static void bench_crc(void)
{
	size_t len = 32u << 20;
	uint8_t *buf = make_buf(len);
	double a[PRUNS], b[PRUNS];
	uint32_t sink = 0;

	if (er_crc32_le(0xFFFFFFFFu, buf, len) != ~(uint32_t)crc32(0, buf, len)) {
		fprintf(stderr, "crc32: ours and zlib differ\n");
		exit(1);
	}
	/* 0: 256-bit VPCLMULQDQ folding, 1: 128-bit PCLMULQDQ folding, 2: tables */
	for (int path = 0; path < 3; path++) {
		static const char *const names[] = { "crc32 4 KiB, VPCLMULQDQ (AVX2) folding",
						     "crc32 4 KiB, PCLMULQDQ folding (128-bit)",
						     "crc32 4 KiB, tables (slicing-by-16)" };
		if ((path == 0 && !er_crc32_avx_available()) || (path == 1 && !er_crc32_hw_available()))
			continue;
		er_crc32_no_avx(path == 1);
		er_crc32_force_soft(path == 2);
		for (int r = 0; r < PRUNS; r++) {
			a[r] = len / crc_run(false, buf, len, &sink) / 1e6;
			b[r] = len / crc_run(true, buf, len, &sink) / 1e6;
		}
		printf("%-44s ours %10.1f MB/s  zlib    %10.1f MB/s  ratio %.2f\n", names[path],
		       median(a, PRUNS), median(b, PRUNS), median(a, PRUNS) / median(b, PRUNS));
	}
	er_crc32_force_soft(false);
	er_crc32_no_avx(false);
	if (sink == 0x12345678u)
		printf(" \n");
	free(buf);
}

/* no SECTION arguments: all; otherwise only those named */
static bool want(int argc, char **argv, const char *section)
{
	if (argc == 1)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], section) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const char *const sections[] = { "xts", "pbkdf2", "gcm", "sha", "crc" };

	rng_state = 0x9E3779B97F4A7C15ull;   /* the sequence this bench always used */
	if (argc == 3 && strcmp(argv[1], "--openssl-xts") == 0)
		return openssl_xts_child((size_t)strtoull(argv[2], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "--openssl-gcm") == 0)
		return openssl_gcm_child((size_t)strtoull(argv[2], NULL, 10));
	for (int i = 1; i < argc; i++) {
		bool known = false;
		for (size_t k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
			known |= strcmp(argv[i], sections[k]) == 0;
		if (!known) {
			fprintf(stderr, "usage: %s [xts] [pbkdf2] [gcm] [sha] [crc]   (none: all)\n", argv[0]);
			return 2;
		}
	}
	printf("AES-NI: %s, SHA-NI: %s, PCLMULQDQ CRC32: %s%s; medians, ratio = ours / library (%s, zlib %s)\n",
	       er_aes_hw_available() ? "yes" : "no", er_sha_hw_available() ? "yes" : "no",
	       er_crc32_hw_available() ? "yes" : "no", er_crc32_avx_available() ? " (+VPCLMULQDQ)" : "", OpenSSL_version(OPENSSL_VERSION), zlibVersion());
	if (want(argc, argv, "xts"))
		bench_xts(argv[0]);
	if (want(argc, argv, "pbkdf2")) {
		if (er_sha_hw_available())
			bench_pbkdf2(ER_HASH_SHA256, EVP_sha256(), "sha256, SHA-NI", 500000);
		er_sha_force_soft(true);
		bench_pbkdf2(ER_HASH_SHA256, EVP_sha256(), "sha256, portable", 500000);
		er_sha_force_soft(false);
		bench_pbkdf2(ER_HASH_SHA1, EVP_sha1(), "sha1", 500000);
		bench_pbkdf2(ER_HASH_SHA512, EVP_sha512(), "sha512", 200000);
	}
	if (want(argc, argv, "gcm"))
		bench_gcm(argv[0]);
	if (want(argc, argv, "sha"))
		bench_sha();
	if (want(argc, argv, "crc"))
		bench_crc();
	return 0;
}
