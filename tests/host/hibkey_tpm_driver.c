// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
/* loader/hibkey_tpm.c against swtpm (tests/host/test-tpm-seal.sh): the flow efiresume runs at
 * every Secure Boot boot, over swtpm's TCP command protocol (TPM_SEND_COMMAND = 8, locality,
 * length, bytes; answer: length, bytes, a zero word).
 *
 *   seal KEY REC            begin, seal(K from the file KEY, 32 bytes), end; the record to REC
 *   unseal REC KEY          begin, unseal(REC) into the file KEY, end
 *   cycle REC KEYNEXT RECNEXT KEYPREV   a boot: begin, unseal(REC) (K to KEYPREV), seal(KEYNEXT)
 *                           into RECNEXT, end
 *   plain KEY               the control: Create of K under 0x81000001 with a password session
 *                           (no parameter encryption), what a careless sealer sends
 *   export REC PUB PRIV     the record's public and private areas as TPM2B files (tpm2_load -u -r)
 * Environment: ER_SWTPM_PORT (required), ER_TPM_LOG (every command and response appended raw,
 * the "sniffer"), ER_TPM_SEED (the randomness: SHA-256(seed || counter) instead of getrandom,
 * so a run can be replayed), ER_TPM_TRANSCRIPT (the exchanges as u32-BE length + bytes, command
 * then response: tests/unit/test_hibkey_tpm.c replays one).
 * Prints "status: NAME" and the reason; exit 0 ok, 2 pcr-changed, 3 anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "loader/hibkey_tpm.h"
#include "tpm/session.h"
#include "crypto/sha.h"
#include "tests/host/swtpm_wire.h"

static int port;
static FILE *logf, *trf;
static const char *seed;
static uint32_t counter;

static void die(const char *m)
{
	fprintf(stderr, "hibkey_tpm_driver: %s\n", m);
	exit(3);
}

static void tr_put(const uint8_t *p, size_t n)
{
	uint32_t be = htonl((uint32_t)n);
	if (!trf)
		return;
	fwrite(&be, 4, 1, trf);
	fwrite(p, 1, n, trf);
}

static bool submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	size_t n;
	uint32_t ack;
	(void)ctx;

	if (!swtpm_transact(port, cmd, len, rsp, cap, &n, &ack))
		return false;
	*rsp_len = n;
	if (logf) {
		fwrite(cmd, 1, len, logf);
		fwrite(rsp, 1, n, logf);
		fflush(logf);
	}
	tr_put(cmd, len);
	tr_put(rsp, n);
	return true;
}

static bool rnd(void *ctx, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (!seed)
		return getrandom(buf, n, 0) == (ssize_t)n;
	/* the replayable stream: block i = SHA-256(seed || be32(counter)) */
	while (n) {
		uint8_t in[256], h[32];
		size_t sl = strlen(seed), take = n < 32 ? n : 32;
		if (sl > sizeof(in) - 4)
			return false;
		memcpy(in, seed, sl);
		in[sl] = (uint8_t)(counter >> 24); in[sl + 1] = (uint8_t)(counter >> 16);
		in[sl + 2] = (uint8_t)(counter >> 8); in[sl + 3] = (uint8_t)counter;
		counter++;
		er_hash(ER_HASH_SHA256, in, sl + 4, h);
		memcpy(buf, h, take);
		buf += take;
		n -= take;
	}
	return true;
}

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	if (!f)
		die(path);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void spit(const char *path, const uint8_t *buf, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
		die(path);
}

static int report(struct er_hibkey_tpm *t, enum er_htpm_status s)
{
	printf("status: %s\n", er_htpm_status_name(s));
	if (s)
		printf("why: %s\n", t->why);
	return s == ER_HTPM_OK ? 0 : s == ER_HTPM_PCR_CHANGED ? 2 : 3;
}

static struct er_hibkey_tpm t;

int main(int argc, char **argv)
{
	const struct er_tpm_io io = { NULL, submit, rnd };
	static uint8_t rec[ER_SEALREC_MAX + 64], key[64];
	enum er_htpm_status s;
	size_t n;

	if (argc < 2 || !getenv("ER_SWTPM_PORT"))
		die("usage: ER_SWTPM_PORT=N hibkey_tpm_driver seal|unseal|cycle|plain|export ...");
	port = atoi(getenv("ER_SWTPM_PORT"));
	seed = getenv("ER_TPM_SEED");
	if (getenv("ER_TPM_LOG") && !(logf = fopen(getenv("ER_TPM_LOG"), "ab")))
		die("ER_TPM_LOG");
	if (getenv("ER_TPM_TRANSCRIPT") && !(trf = fopen(getenv("ER_TPM_TRANSCRIPT"), "wb")))
		die("ER_TPM_TRANSCRIPT");

	if (!strcmp(argv[1], "export") && argc == 5) {
		struct er_sealrec sr;
		const char *why;
		uint8_t b[ER_SEALREC_MAX_PRIVATE + 2];
		if (!er_sealrec_parse(rec, slurp(argv[2], rec, sizeof(rec)), &sr, &why))
			die(why);
		b[0] = (uint8_t)(sr.pub_len >> 8); b[1] = (uint8_t)sr.pub_len;
		memcpy(b + 2, sr.pub, sr.pub_len);
		spit(argv[3], b, sr.pub_len + 2u);
		b[0] = (uint8_t)(sr.priv_len >> 8); b[1] = (uint8_t)sr.priv_len;
		memcpy(b + 2, sr.priv, sr.priv_len);
		spit(argv[4], b, sr.priv_len + 2u);
		return 0;
	}
	if (!strcmp(argv[1], "plain") && argc == 3) {
		/* the control: the same Create, a password session, K in clear on the wire */
		struct er_tpm_cmd c;
		struct er_tpm_public srk;
		struct er_tpm_rsp r;
		uint8_t cmd[2048], rsp[4096], policy[32] = { 0 };
		size_t len, rl;
		if (slurp(argv[2], key, sizeof(key)) != 32)
			die("the key file is not 32 bytes");
		er_tpm_cmd_read_public(&c, TPM2_SRK_HANDLE);
		len = er_tpm_cmd_write(&c, cmd, sizeof(cmd));
		if (!submit(NULL, cmd, len, rsp, sizeof(rsp), &rl) || er_tpm_rsp_read(rsp, rl, 0, 0, &r) ||
		    !er_tpm_rsp_read_public(&r, &srk))
			die("ReadPublic(0x81000001)");
		er_tpm_cmd_create_sealed(&c, TPM2_SRK_HANDLE, srk.name.b, srk.name.n, key, 32, policy);
		er_tpm_cmd_password(&c, NULL, 0);
		len = er_tpm_cmd_write(&c, cmd, sizeof(cmd));
		if (!submit(NULL, cmd, len, rsp, sizeof(rsp), &rl) || er_tpm_rsp_read(rsp, rl, 0, 1, &r))
			die("Create (password session)");
		printf("status: ok\n");
		return 0;
	}

	s = er_htpm_begin(&t, &io);
	if (s)
		return report(&t, s);
	if (!strcmp(argv[1], "seal") && argc == 4) {
		if (slurp(argv[2], key, sizeof(key)) != 32)
			die("the key file is not 32 bytes");
		s = er_htpm_seal(&t, key, rec, sizeof(rec), &n);
		if (!s)
			spit(argv[3], rec, n);
	} else if (!strcmp(argv[1], "unseal") && argc == 4) {
		uint8_t id[8];
		s = er_htpm_unseal(&t, rec, slurp(argv[2], rec, sizeof(rec)), key, id);
		if (!s)
			spit(argv[3], key, 32);
	} else if (!strcmp(argv[1], "cycle") && argc == 6) {
		uint8_t id[8], next[64];
		s = er_htpm_unseal(&t, rec, slurp(argv[2], rec, sizeof(rec)), key, id);
		if (!s)
			spit(argv[5], key, 32);
		else
			report(&t, s);
		if (slurp(argv[3], next, sizeof(next)) != 32)
			die("the next key file is not 32 bytes");
		s = er_htpm_seal(&t, next, rec, sizeof(rec), &n);
		if (!s)
			spit(argv[4], rec, n);
	} else {
		die("bad arguments");
	}
	er_htpm_end(&t);
	printf("commands: %u\n", t.commands);
	return report(&t, s);
}
