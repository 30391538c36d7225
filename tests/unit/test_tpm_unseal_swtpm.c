// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
/* tpm/unseal.c and loader/tpmunlock.c against a real TPM: swtpm in socket mode (its TCP
 * command protocol, as test_tpm_swtpm.c), with LUKS2 tokens written by the host's own
 * systemd-cryptenroll (252 on Debian 12). tests/host/test-tpm-swtpm.sh (its second part)
 * starts two fresh swtpm instances A and B, makes a LUKS2 file, enrols it on A and runs this
 * with ER_SWTPM_PORT (A), ER_SWTPM_PORT2 (B), ER_SWTPM_DIR holding:
 *   disk.img    the LUKS2 file: keyslot 0 "oldpass"; token 0 = keyslot 1 (systemd-cryptenroll
 *               --tpm2-pcrs=7), token 1 = keyslot 2 (--tpm2-with-pin, PIN 1234), token 2 =
 *               keyslot 3 (made with tpm2-tools the way systemd 257 seals: under the persistent
 *               SRK 0x81000001, tpm2_srk = its serialized ESYS_TR; PCR 7 sha256)
 *   meta.json   the LUKS2 JSON metadata (cryptsetup luksDump --dump-json-metadata)
 * Checked: each token unseals through er_tpmu_unseal and its passphrase opens its keyslot
 * (er_luks_unlock of volume/luks.c on disk.img, the token's keyslot only); the whole
 * er_tpmunlock_run on the JSON; a wrong PIN is ER_TPMU_AUTH_FAIL; an SRK whose Name differs
 * from tpm2_srk's is refused before Load; on B (another TPM) every token is ER_TPMU_FOREIGN;
 * wrong PINs end in ER_TPMU_LOCKOUT and the run says lockout and stops asking; after PCR 7 is
 * extended every token is ER_TPMU_POLICY ("PCRs changed") and no Unseal command is sent
 * (the PIN token says so before a PIN is asked).
 * ER_TPMU_RECORD=<dir>: each scenario's command/response transcript (deterministic
 * randomness) is written there, for tests/unit/test_tpm_unseal.c's replays.
 * Without ER_SWTPM_PORT this says so and exits 2: it tests nothing then, so it is no pass. */
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "tpm/unseal.h"
#include "loader/tpmunlock.h"
#include "volume/luks.h"
#include "crypto/sha.h"
#include "image/freestanding.h"
#include "tests/host/swtpm_wire.h"
#include "tpmu_common.h"

static int port_a, port_b;
static const char *dir;
static char *meta;
static size_t meta_len;

/* ---- the transport: swtpm's socket, with a transcript and command counts */
struct sock_io {
	struct tpmu_det det;       /* first: the ctx of tpmu_det_random */
	int port;
	FILE *rec;                 /* transcript, or NULL */
	unsigned n, unseals;       /* commands, Unseal commands */
};

static void hexline(FILE *f, char tag, const uint8_t *p, size_t n)
{
	fputc(tag, f);
	fputc(' ', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('\n', f);
}

static bool sock_submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rlen)
{
	struct sock_io *io = ctx;
	size_t n;
	uint32_t ack;

	if (!swtpm_transact(io->port, cmd, len, rsp, cap, &n, &ack))
		return false;
	*rlen = n;
	io->n++;
	if (len >= 10 && cmd[6] == 0 && cmd[7] == 0 && cmd[8] == 0x01 && cmd[9] == 0x5E)
		io->unseals++;
	if (io->rec) {
		hexline(io->rec, '>', cmd, len);
		hexline(io->rec, '<', rsp, n);
	}
	return true;
}

static void io_init(struct sock_io *s, struct er_tpm_io *io, int port, const char *scenario)
{
	memset(s, 0, sizeof(*s));
	s->port = port;
	tpmu_det_seed(&s->det, scenario);      /* deterministic: the transcript replays */
	*io = (struct er_tpm_io){ s, sock_submit, tpmu_det_random };
}

/* starts a transcript: its header says what the replay needs */
static void record(struct sock_io *s, const char *scenario, unsigned token, const char *pin, const char *status)
{
	const char *d = getenv("ER_TPMU_RECORD");
	char p[512], tok[16];
	if (!d)
		return;
	snprintf(p, sizeof(p), "%s/%s.txt", d, scenario);
	s->rec = fopen(p, "w");
	assert_non_null(s->rec);
	snprintf(tok, sizeof(tok), "%u", token);
	fprintf(s->rec, "# SPDX-License-Identifier: GPL-2.0-or-later\n"
		"# recorded by tests/unit/test_tpm_unseal_swtpm.c from swtpm (tests/host/test-tpm-swtpm.sh)\n"
		"scenario %s\nseed %s\ntoken %s\npin %s\nstatus %s\n", scenario, scenario, tok, pin ? pin : "-", status);
	/* the token's JSON: from meta.json */
	struct er_json root, toks, t;
	assert_int_equal(er_json_parse(meta, meta_len, &root, NULL), 0);
	assert_int_equal(er_json_get_type(&root, "tokens", ER_JSON_OBJECT, &toks), 0);
	assert_int_equal(er_json_get(&toks, tok, &t), 0);
	/* on one line: the whitespace between tokens dropped (JSON strings hold no raw newline) */
	fputs("json ", s->rec);
	bool in = false;
	for (size_t i = 0; i < t.n; i++) {
		char c = t.p[i];
		if (c == '"' && (i == 0 || t.p[i - 1] != '\\'))
			in = !in;
		if (!in && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
			continue;
		fputc(c, s->rec);
	}
	fputc('\n', s->rec);
}

static void record_end(struct sock_io *s, const uint8_t *secret, size_t n)
{
	if (!s->rec)
		return;
	if (n) {
		fputs("secret ", s->rec);
		for (size_t i = 0; i < n; i++)
			fprintf(s->rec, "%02x", secret[i]);
		fputc('\n', s->rec);
	}
	fclose(s->rec);
	s->rec = NULL;
}

/* ---- the LUKS2 file */
static bool fd_read(void *ctx, uint64_t off, size_t len, void *buf)
{
	return pread(*(int *)ctx, buf, len, (off_t)off) == (ssize_t)len;
}
static void *m_alloc(void *ctx, uint64_t n) { (void)ctx; return malloc(n); }
static void m_free(void *ctx, void *p, uint64_t n) { (void)ctx; (void)n; free(p); }

struct disk {
	int fd;
	struct er_luks_dev dev;
	struct er_luks_mem mem;
	struct er_luks_header h;
};

static void disk_open(struct disk *d)
{
	char p[512];
	struct stat sb;
	struct er_luks_err e;
	snprintf(p, sizeof(p), "%s/disk.img", dir);
	d->fd = open(p, O_RDONLY);
	assert_true(d->fd >= 0);
	assert_int_equal(fstat(d->fd, &sb), 0);
	d->dev = (struct er_luks_dev){ &d->fd, (uint64_t)sb.st_size, fd_read };
	d->mem = (struct er_luks_mem){ NULL, m_alloc, m_free };
	assert_int_equal(er_luks_open(&d->h, &d->dev, &d->mem, &e), ER_LUKS_OK);
}

/* the passphrase on the keyslots of mask only (what loader/unlock.c does) */
static bool disk_try(struct disk *d, uint32_t mask, const char *pw, size_t n, unsigned *slot)
{
	struct er_luks_header h = d->h;
	struct er_luks_err e;
	uint8_t vk[ER_LUKS_MAX_KEY];
	size_t vl;
	h.n_order = 0;
	for (unsigned i = 0; i < d->h.n_order; i++)
		if (mask & (1u << d->h.order[i]))
			h.order[h.n_order++] = d->h.order[i];
	if (!h.n_order)
		return false;
	return er_luks_unlock(&h, &d->dev, &d->mem, NULL, NULL, (const uint8_t *)pw, n, vk, &vl, slot, &e) == ER_LUKS_OK;
}

static void token(unsigned id, struct er_tpm2_token *t)
{
	const char *why = "";
	int st = er_tpmunlock_token(meta, meta_len, id, t, &why);
	if (st)
		printf("# token %u: %s\n", id, why);
	assert_int_equal(st, 0);
}

/* unseals token id on the TPM at port (auth from pin) */
static enum er_tpmu_status unseal(int port, unsigned id, const char *pin, const char *scenario, const char *want,
				  uint8_t *secret, size_t *n, struct er_tpmu_result *res, struct sock_io *s)
{
	static struct er_tpm2_token t;
	static struct er_tpmu u;
	struct er_tpmu_req q;
	struct er_tpm_name srk;
	struct er_tpm_io io;
	uint8_t auth[32];
	size_t al = 0;

	token(id, &t);
	tpmu_req(&t, pin, &q, &srk, auth, &al);
	io_init(s, &io, port, scenario);
	record(s, scenario, id, pin, want);
	enum er_tpmu_status st = er_tpmu_unseal(&u, &io, &q, pin ? auth : NULL, al, secret, 128, n, res);
	record_end(s, secret, st ? 0 : *n);
	printf("# %s: token %u: %s%s%s (%u commands)\n", scenario, id, er_tpmu_status_name(st), st ? ": " : "",
	       st ? res->msg : "", s->n);
	return st;
}

static void unseal_opens(unsigned id, const char *pin, const char *scenario, unsigned want_slot)
{
	uint8_t secret[128];
	size_t n = 0;
	struct er_tpmu_result res;
	struct sock_io s;
	struct er_tpm2_token t;
	char pass[300];
	size_t pl;
	unsigned slot = 99;
	struct disk d;

	assert_int_equal(unseal(port_a, id, pin, scenario, "ok", secret, &n, &res, &s), ER_TPMU_OK);
	assert_int_equal(n, 32);
	assert_true(er_tpm2_passphrase(secret, n, pass, sizeof(pass), &pl));
	token(id, &t);
	disk_open(&d);
	assert_true(disk_try(&d, t.keyslots, pass, pl, &slot));
	assert_int_equal(slot, want_slot);
	/* and the wrong passphrase on the same keyslot does not: the check can fail */
	pass[0] ^= 1;
	assert_false(disk_try(&d, t.keyslots, pass, pl, &slot));
	close(d.fd);
}

static int setup(void **state)
{
	(void)state;
	char p[512];
	FILE *f;
	port_a = atoi(getenv("ER_SWTPM_PORT"));
	port_b = getenv("ER_SWTPM_PORT2") ? atoi(getenv("ER_SWTPM_PORT2")) : 0;
	dir = getenv("ER_SWTPM_DIR");
	if (!dir)
		return -1;
	snprintf(p, sizeof(p), "%s/meta.json", dir);
	f = fopen(p, "r");
	if (!f)
		return -1;
	meta = malloc(1 << 20);
	meta_len = fread(meta, 1, 1 << 20, f);
	fclose(f);
	return 0;
}

static void test_plain_token_opens(void **state)
{
	(void)state;
	unseal_opens(0, NULL, "plain", 1);
}

static void test_pin_token_opens(void **state)
{
	(void)state;
	unseal_opens(1, "1234", "pin", 2);
}

static void test_srk_token_opens(void **state)
{
	struct er_tpm2_token t;
	(void)state;
	token(2, &t);
	assert_int_equal(t.srk_handle, 0x81000001);
	unseal_opens(2, NULL, "srk", 3);
}

/* ---- the whole run, with the callbacks loader/unlock.c gives */
struct run_ctx {
	struct tpmu_log log;       /* first: the ctx of tpmu_run_log */
	struct disk d;
	const char *pins[4];
	unsigned asked;
};
static long run_pin(void *ctx, unsigned id, unsigned t, unsigned tries, char *buf, size_t cap)
{
	struct run_ctx *r = ctx;
	(void)id; (void)t; (void)tries;
	if (r->asked >= 4 || !r->pins[r->asked])
		return -1;
	snprintf(buf, cap, "%s", r->pins[r->asked++]);
	return (long)strlen(buf);
}
static bool run_try(void *ctx, uint32_t mask, const char *pass, size_t len, unsigned *slot)
{
	struct run_ctx *r = ctx;
	return disk_try(&r->d, mask, pass, len, slot);
}

static enum er_tpmunlock_result run(int port, struct run_ctx *r, const char *json, size_t len, unsigned *tok,
				    unsigned *slot, struct sock_io *s)
{
	static struct er_tpmunlock_scratch sc;
	struct er_tpm_io io;
	struct er_tpmunlock_ops ops = { r, tpmu_run_log, run_pin, run_try, NULL };
	io_init(s, &io, port, "run");
	disk_open(&r->d);
	enum er_tpmunlock_result res = er_tpmunlock_run("test", json, len, &io, &ops, &sc, tok, slot);
	close(r->d.fd);
	return res;
}

static void test_run_unlocks(void **state)
{
	struct run_ctx r = { 0 };
	struct sock_io s;
	unsigned tok = 9, slot = 9;
	(void)state;
	assert_int_equal(run(port_a, &r, meta, meta_len, &tok, &slot, &s), ER_TPMUNLOCK_UNLOCKED);
	assert_int_equal(tok, 0);
	assert_int_equal(slot, 1);
	assert_true(tpmu_logged(&r.log, "luks-test: unlocked with the TPM (systemd-tpm2 token 0), keyslot 1"));
	assert_int_equal(r.asked, 0);
}

/* the JSON with only the PIN token left: token 0 and 2's type changed */
static char *only_token(unsigned keep)
{
	static char j[1 << 20];
	memcpy(j, meta, meta_len);
	j[meta_len] = 0;
	for (char *p = j; (p = strstr(p, "\"systemd-tpm2\""));) {
		/* which token is this? the nearest preceding "N":{ */
		char *q = p;
		while (q > j && !(q[0] == '{' && q[-1] == ':' && q[-2] == '"'))
			q--;
		char *n = q - 3;
		while (n > j && n[-1] != '"')
			n--;
		if ((unsigned)atoi(n) != keep)
			memcpy(p + 1, "systemd-xxxx", 12);
		p += 14;
	}
	return j;
}

static void test_run_pin_tries(void **state)
{
	struct run_ctx r = { .pins = { "1111", "1234" } };
	struct sock_io s;
	unsigned tok = 9, slot = 9;
	char *j = only_token(1);
	(void)state;
	assert_int_equal(run(port_a, &r, j, meta_len, &tok, &slot, &s), ER_TPMUNLOCK_UNLOCKED);
	assert_int_equal(tok, 1);
	assert_int_equal(slot, 2);
	assert_int_equal(r.asked, 2);
	assert_true(tpmu_logged(&r.log, "systemd-tpm2 token 1: wrong PIN (try 1 of 3"));
	assert_true(tpmu_logged(&r.log, "unlocked with the TPM (systemd-tpm2 token 1), keyslot 2"));
}

static void test_wrong_pin(void **state)
{
	uint8_t secret[128];
	size_t n = 0;
	struct er_tpmu_result res;
	struct sock_io s;
	(void)state;
	assert_int_equal(unseal(port_a, 1, "1235", "wrongpin", "auth-fail", secret, &n, &res, &s), ER_TPMU_AUTH_FAIL);
	assert_int_equal(n, 0);
	assert_non_null(strstr(res.msg, "TPM_RC_AUTH_FAIL"));
}

static void test_srk_name_mismatch(void **state)
{
	static struct er_tpm2_token t;
	static struct er_tpmu u;
	struct er_tpmu_req q;
	struct er_tpm_name srk;
	struct er_tpm_io io;
	struct sock_io s;
	struct er_tpmu_result res;
	uint8_t secret[128];
	size_t n;
	(void)state;
	token(2, &t);
	assert_true(er_tpmunlock_req(&t, &q, &srk));
	srk.b[10] ^= 1;
	io_init(&s, &io, port_a, "srkname");
	assert_int_equal(er_tpmu_unseal(&u, &io, &q, NULL, 0, secret, 128, &n, &res), ER_TPMU_FOREIGN);
	printf("# %s\n", res.msg);
	assert_int_equal(s.n, 1);           /* ReadPublic only: nothing loaded, nothing to flush */
}

static void test_other_tpm(void **state)
{
	uint8_t secret[128];
	size_t n = 0;
	struct er_tpmu_result res;
	struct sock_io s;
	(void)state;
	if (!port_b)
		skip();
	assert_int_equal(unseal(port_b, 0, NULL, "foreign", "foreign", secret, &n, &res, &s), ER_TPMU_FOREIGN);
	assert_int_equal(s.unseals, 0);
	assert_int_equal(unseal(port_b, 1, "1234", "foreign-pin", "foreign", secret, &n, &res, &s), ER_TPMU_FOREIGN);
	assert_int_equal(unseal(port_b, 2, NULL, "foreign-srk", "foreign", secret, &n, &res, &s), ER_TPMU_FOREIGN);
	assert_non_null(strstr(res.msg, "0x81000001"));
	/* and the whole run on B: refused, each token said */
	struct run_ctx r = { .pins = { "1234" } };
	unsigned tok, slot;
	assert_int_equal(run(port_b, &r, meta, meta_len, &tok, &slot, &s), ER_TPMUNLOCK_REFUSED);
	assert_int_equal(r.log.n, 3);
	assert_int_equal(r.asked, 0);
}

static void test_lockout(void **state)
{
	uint8_t secret[128];
	size_t n = 0;
	struct er_tpmu_result res;
	struct sock_io s;
	enum er_tpmu_status st;
	int tries = 0;
	(void)state;
	do {
		st = unseal(port_a, 1, "0000", "lockout-try", "auth-fail", secret, &n, &res, &s);
		assert_true(st == ER_TPMU_AUTH_FAIL || st == ER_TPMU_LOCKOUT);
	} while (st != ER_TPMU_LOCKOUT && ++tries < 6);
	assert_int_equal(st, ER_TPMU_LOCKOUT);
	/* the right PIN now: lockout too (recorded) */
	assert_int_equal(unseal(port_a, 1, "1234", "lockout", "lockout", secret, &n, &res, &s), ER_TPMU_LOCKOUT);
	assert_non_null(strstr(res.msg, "dictionary-attack lockout"));
	/* systemd 252's tokens load under a primary of the legacy template, which has no noDA:
	 * in lockout even Load is refused (as systemd meets it), PIN or not; no PIN is asked */
	struct run_ctx r = { .pins = { "1234", "1234", "1234" } };
	unsigned tok, slot;
	char *j = only_token(1);
	assert_int_equal(run(port_a, &r, j, meta_len, &tok, &slot, &s), ER_TPMUNLOCK_REFUSED);
	assert_int_equal(r.asked, 0);
	assert_true(tpmu_logged(&r.log, "systemd-tpm2 token 1: the TPM is in dictionary-attack lockout"));
	assert_int_equal(unseal(port_a, 0, NULL, "plain-in-lockout", "lockout", secret, &n, &res, &s), ER_TPMU_LOCKOUT);
	/* the SRK of 257's template has noDA: token 2 (no PIN) still unseals */
	assert_int_equal(unseal(port_a, 2, NULL, "srk-in-lockout", "ok", secret, &n, &res, &s), ER_TPMU_OK);
}

static void test_pcr_changed(void **state)
{
	uint8_t secret[128];
	size_t n = 0;
	struct er_tpmu_result res;
	struct sock_io s;
	(void)state;
	/* (the shell extended PCR 7 before this test: ER_SWTPM_PCR_EXTENDED) */
	if (!getenv("ER_SWTPM_PCR_EXTENDED"))
		skip();
	for (unsigned id = 0; id < 3; id++) {
		char sc[32];
		snprintf(sc, sizeof(sc), "policy%u", id);
		assert_int_equal(unseal(port_a, id, id == 1 ? "1234" : NULL, sc, "policy", secret, &n, &res, &s),
				 ER_TPMU_POLICY);
		assert_non_null(strstr(res.msg, "PCRs changed: PCR 7 (sha256)"));
		assert_int_equal(s.unseals, 0);
	}
	struct run_ctx r = { .pins = { "1234" } };
	unsigned tok, slot;
	assert_int_equal(run(port_a, &r, meta, meta_len, &tok, &slot, &s), ER_TPMUNLOCK_REFUSED);
	assert_int_equal(r.asked, 0);        /* the PIN token said so before asking */
	assert_true(tpmu_logged(&r.log, "systemd-tpm2 token 1: not unsealed: PCRs changed"));
	assert_int_equal(s.unseals, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest before[] = {
		cmocka_unit_test(test_plain_token_opens),
		cmocka_unit_test(test_pin_token_opens),
		cmocka_unit_test(test_srk_token_opens),
		cmocka_unit_test(test_run_unlocks),
		cmocka_unit_test(test_run_pin_tries),
		cmocka_unit_test(test_wrong_pin),
		cmocka_unit_test(test_srk_name_mismatch),
		cmocka_unit_test(test_other_tpm),
		cmocka_unit_test(test_lockout),
	};
	const struct CMUnitTest after[] = {
		cmocka_unit_test(test_pcr_changed),
	};
	if (!getenv("ER_SWTPM_PORT")) {
		/* not a pass: nothing was tested (tests/run-all.sh leaves it out of the unit group) */
		fprintf(stderr, "no swtpm (ER_SWTPM_PORT unset): tests/host/test-tpm-swtpm.sh runs this\n");
		return 2;
	}
	/* "after": the shell runs it again once PCR 7 is extended */
	if (argc > 1 && !strcmp(argv[1], "after"))
		return cmocka_run_group_tests(after, setup, NULL);
	return cmocka_run_group_tests(before, setup, NULL);
}
