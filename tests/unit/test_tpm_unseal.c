// SPDX-License-Identifier: GPL-2.0-or-later
/* tpm/unseal.c and loader/tpmunlock.c with a scripted transport: transcripts recorded from
 * swtpm (tests/unit/data/tpmunseal/, one file a scenario, written by test_tpm_unseal_swtpm.c under
 * tests/host/test-tpm-swtpm.sh with ER_TPMU_RECORD; the randomness is deterministic, so the
 * commands replay byte for byte) of systemd-cryptenroll 252 tokens and one sealed as 257
 * does (tpm2_srk).
 *
 * Checked: every transcript replays exactly (each command equal to the recorded one, all of
 * them sent) and ends in its recorded status (ok with the recorded secret, auth-fail,
 * lockout, foreign, policy with no Unseal sent); every transient handle the TPM handed out
 * (primary, loaded object, sessions) is flushed exactly once on every path: a TPM error,
 * a transport failure or a truncated response injected at each command in turn; after a
 * failure only FlushContext is sent and the secret buffer is zero; TPM_RC_RETRY, YIELDED
 * and TESTING make the same bytes be sent again (bounded: a TPM that always says RETRY is
 * given up on); a flipped byte of the encrypted Unseal response is refused by the HMAC
 * check; er_tpmunlock_run's PIN tries, lockout, policy and Esc paths, and its log lines;
 * er_tpmunlock_token_ids on token lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tpm/unseal.h"
#include "loader/tpmunlock.h"
#include "crypto/sha.h"
#include "image/freestanding.h"

#include "unhex.h"
#include "tpmu_common.h"

#define MAXC 32

struct script {
	char name[32];
	char seed[32];
	unsigned token;
	char pin[16];
	char status[16];
	char json[8192];
	uint8_t secret[64];
	size_t secret_len;
	uint8_t *cmd[MAXC], *rsp[MAXC];
	size_t cmd_len[MAXC], rsp_len[MAXC];
	unsigned n;
};

static const char *data_dir(void)
{
	const char *d = getenv("ER_TPMU_DATA");
	return d ? d : "tests/unit/data/tpmunseal";
}

static size_t unhex_alloc(const char *h, uint8_t **out)
{
	size_t n = strlen(h) / 2;
	*out = malloc(n ? n : 1);
	assert_non_null(*out);
	assert_int_equal(unhex(h, *out, n), n);
	return n;
}

static void load_script(struct script *s, const char *name)
{
	char p[512], *line = NULL;
	size_t cap = 0;
	ssize_t k;
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(p, sizeof(p), "%s/%s.txt", data_dir(), name);
	f = fopen(p, "r");
	if (!f)
		fail_msg("no %s (run from the top of the tree, or set ER_TPMU_DATA)", p);
	while ((k = getline(&line, &cap, f)) > 0) {
		if (line[k - 1] == '\n')
			line[--k] = 0;
		if (!strncmp(line, "seed ", 5))
			snprintf(s->seed, sizeof(s->seed), "%s", line + 5);
		else if (!strncmp(line, "token ", 6))
			s->token = (unsigned)atoi(line + 6);
		else if (!strncmp(line, "pin ", 4))
			snprintf(s->pin, sizeof(s->pin), "%s", strcmp(line + 4, "-") ? line + 4 : "");
		else if (!strncmp(line, "status ", 7))
			snprintf(s->status, sizeof(s->status), "%s", line + 7);
		else if (!strncmp(line, "json ", 5)) {
			assert_true(strlen(line + 5) < sizeof(s->json));
			strcpy(s->json, line + 5);
		} else if (!strncmp(line, "secret ", 7))
			s->secret_len = unhex(line + 7, s->secret, strlen(line + 7) / 2);
		else if (line[0] == '>') {
			assert_true(s->n < MAXC);
			s->cmd_len[s->n] = unhex_alloc(line + 2, &s->cmd[s->n]);
		} else if (line[0] == '<') {
			s->rsp_len[s->n] = unhex_alloc(line + 2, &s->rsp[s->n]);
			s->n++;
		}
	}
	free(line);
	fclose(f);
	assert_true(s->n > 0);
	assert_true(s->json[0]);
}

static void free_script(struct script *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		free(s->cmd[i]);
		free(s->rsp[i]);
	}
}

/* ---- the scripted transport */
enum fault { F_NONE, F_RC, F_TRANSPORT, F_TRUNCATE, F_RETRY, F_RETRY_FOREVER, F_FLIP };

struct replay {
	struct tpmu_det det;            /* first: the ctx of tpmu_det_random */
	const struct script *s;
	unsigned at;
	int fault_at;
	enum fault fault;
	uint32_t retry_rc;
	bool diverged, retried;
	unsigned sends, after_sends, unseals, resends;
	uint32_t handed[16], flushed[16], live[16];
	unsigned nhanded, nflushed, nlive;
	bool flush_unknown;
	uint8_t last[4096];
	size_t last_len;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_rc(uint8_t *r, uint32_t rc)
{
	static const uint8_t h[10] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0 };
	memcpy(r, h, 10);
	r[6] = (uint8_t)(rc >> 24); r[7] = (uint8_t)(rc >> 16); r[8] = (uint8_t)(rc >> 8); r[9] = (uint8_t)rc;
}

static bool replay_submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rlen)
{
	struct replay *r = ctx;
	uint32_t cc = be32(cmd + 6);

	r->sends++;
	if (cc == TPM2_CC_Unseal)
		r->unseals++;
	if (cc == TPM2_CC_FlushContext) {
		assert_int_equal(len, 14);
		assert_true(r->nflushed < 16);
		r->flushed[r->nflushed++] = be32(cmd + 10);
		/* it must be live: handed out and not flushed since (the TPM reuses handles) */
		unsigned i = 0;
		while (i < r->nlive && r->live[i] != be32(cmd + 10))
			i++;
		if (i == r->nlive)
			r->flush_unknown = true;
		else
			r->live[i] = r->live[--r->nlive];
	}
	if (!r->diverged && r->fault == F_RETRY_FOREVER && r->retried && cc == TPM2_CC_FlushContext)
		r->diverged = true;         /* it gave up */
	if (r->diverged) {
		/* after a failure: only flushes, answered with success */
		r->after_sends++;
		assert_int_equal(cc, TPM2_CC_FlushContext);
		put_rc(rsp, 0);
		*rlen = 10;
		return true;
	}
	if (r->at >= r->s->n)
		fail_msg("%s: command %u sent, the transcript has %u", r->s->name, r->at + 1, r->s->n);
	if (len != r->s->cmd_len[r->at] || memcmp(cmd, r->s->cmd[r->at], len))
		fail_msg("%s: command %u (cc 0x%x) differs from the recorded one", r->s->name, r->at, cc);
	if (r->retried) {
		/* the resend: the very same bytes */
		assert_int_equal(len, r->last_len);
		assert_memory_equal(cmd, r->last, len);
		r->resends++;
	}
	bool here = (int)r->at == r->fault_at;
	const uint8_t *rec = r->s->rsp[r->at];
	size_t rec_len = r->s->rsp_len[r->at];
	assert_true(rec_len <= cap);
	if (here && (r->fault == F_RETRY || r->fault == F_RETRY_FOREVER) && (!r->retried || r->fault == F_RETRY_FOREVER)) {
		if (cc == TPM2_CC_FlushContext) {       /* not done: still live */
			r->nflushed--;
			r->live[r->nlive++] = be32(cmd + 10);
		}
		memcpy(r->last, cmd, len);
		r->last_len = len;
		r->retried = true;
		put_rc(rsp, r->retry_rc);
		*rlen = 10;
		return true;
	}
	r->retried = false;
	r->at++;
	if (here && r->fault == F_TRANSPORT) {
		r->diverged = true;
		return false;
	}
	if (here && r->fault == F_RC) {
		r->diverged = true;
		put_rc(rsp, TPM2_RC_FAILURE);
		*rlen = 10;
		return true;
	}
	memcpy(rsp, rec, rec_len);
	*rlen = rec_len;
	if (here && r->fault == F_TRUNCATE) {
		r->diverged = true;
		*rlen = rec_len - 1;
		return true;            /* the TPM made what it made; we cannot know its handle */
	}
	if (here && r->fault == F_FLIP) {
		r->diverged = true;
		rsp[12] ^= 0x01;            /* inside the parameters */
	}
	/* the transient handles the TPM hands out */
	if (be32(rsp + 6) == 0 && (cc == TPM2_CC_CreatePrimary || cc == TPM2_CC_Load || cc == TPM2_CC_StartAuthSession)) {
		assert_true(r->nhanded < 16 && r->nlive < 16);
		r->handed[r->nhanded++] = be32(rsp + 10);
		r->live[r->nlive++] = be32(rsp + 10);
	}
	return true;
}

static void replay_init(struct replay *r, const struct script *s, struct er_tpm_io *io, int fault_at, enum fault f)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->fault_at = fault_at;
	r->fault = f;
	r->retry_rc = TPM2_RC_RETRY;
	tpmu_det_seed(&r->det, s->seed);
	*io = (struct er_tpm_io){ r, replay_submit, tpmu_det_random };
}

/* every handle handed out flushed exactly once (and nothing else flushed) */
static void check_flushed(const struct replay *r)
{
	if (r->nlive)
		fail_msg("%s (fault %d at %d): %u handle(s) not flushed, 0x%08x first", r->s->name, r->fault, r->fault_at,
			 r->nlive, r->live[0]);
	if (r->flush_unknown)
		fail_msg("%s (fault %d at %d): a handle flushed that was not live", r->s->name, r->fault, r->fault_at);
}

static struct er_tpm2_token tok;
static struct er_tpmu u;

static enum er_tpmu_status run_script(const struct script *s, struct replay *r, int fault_at, enum fault f,
				      uint8_t *secret, size_t *n, struct er_tpmu_result *res)
{
	struct er_json j;
	struct er_tpmu_req q;
	struct er_tpm_name srk;
	struct er_tpm_io io;
	uint8_t auth[32];
	size_t al = 0;
	const char *why = "";

	assert_int_equal(er_json_parse(s->json, strlen(s->json), &j, NULL), 0);
	assert_int_equal(er_tpm2_token_parse(&j, &tok, &why), 0);
	tpmu_req(&tok, s->pin, &q, &srk, auth, &al);
	replay_init(r, s, &io, fault_at, f);
	memset(secret, 0xA5, 128);
	return er_tpmu_unseal(&u, &io, &q, s->pin[0] ? auth : NULL, al, secret, 128, n, res);
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void replay_as_recorded(const char *name)
{
	struct script s;
	struct replay r;
	struct er_tpmu_result res;
	uint8_t secret[128];
	size_t n = 0;

	load_script(&s, name);
	enum er_tpmu_status st = run_script(&s, &r, -1, F_NONE, secret, &n, &res);
	printf("# %s: %s %s (%u commands)\n", name, er_tpmu_status_name(st), res.msg, r.sends);
	assert_string_equal(er_tpmu_status_name(st), s.status);
	assert_int_equal(r.at, s.n);            /* the whole transcript, nothing more */
	assert_int_equal(r.sends, s.n);
	check_flushed(&r);
	if (st == ER_TPMU_OK) {
		assert_int_equal(n, s.secret_len);
		assert_memory_equal(secret, s.secret, n);
	} else {
		assert_int_equal(n, 0);
		assert_true(zero(secret, 128));
	}
	if (st == ER_TPMU_POLICY) {
		assert_int_equal(r.unseals, 0);
		assert_non_null(strstr(res.msg, "PCRs changed: PCR 7 (sha256)"));
	}
	if (st == ER_TPMU_LOCKOUT)
		assert_non_null(strstr(res.msg, "dictionary-attack lockout"));
	if (st == ER_TPMU_AUTH_FAIL)
		assert_non_null(strstr(res.msg, "TPM_RC_AUTH_FAIL"));
	free_script(&s);
}

static void test_plain(void **state) { (void)state; replay_as_recorded("plain"); }
static void test_pin(void **state) { (void)state; replay_as_recorded("pin"); }
static void test_srk(void **state) { (void)state; replay_as_recorded("srk"); }
static void test_wrong_pin(void **state) { (void)state; replay_as_recorded("wrongpin"); }
static void test_foreign(void **state) { (void)state; replay_as_recorded("foreign"); }
static void test_foreign_srk(void **state) { (void)state; replay_as_recorded("foreign-srk"); }
static void test_lockout(void **state) { (void)state; replay_as_recorded("lockout"); }
static void test_policy(void **state) { (void)state; replay_as_recorded("policy0"); }
static void test_policy_pin(void **state) { (void)state; replay_as_recorded("policy1"); }

/* a fault at each command of the successful transcripts */
static void test_faults_flush_everything(void **state)
{
	static const char *names[] = { "plain", "pin", "srk" };
	static const enum fault faults[] = { F_RC, F_TRANSPORT, F_TRUNCATE };
	unsigned runs = 0;
	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		struct script s;
		load_script(&s, names[k]);
		for (unsigned i = 0; i < s.n; i++) {
			if (be32(s.cmd[i] + 6) == TPM2_CC_FlushContext)
				continue;
			for (unsigned f = 0; f < 3; f++) {
				struct replay r;
				struct er_tpmu_result res;
				uint8_t secret[128];
				size_t n = 99;
				enum er_tpmu_status st = run_script(&s, &r, (int)i, faults[f], secret, &n, &res);
				if (st == ER_TPMU_OK)
					fail_msg("%s: fault %u at command %u: unsealed anyway", names[k], f, i);
				assert_int_equal(n, 0);
				assert_true(zero(secret, 128));
				assert_int_equal(r.unseals, be32(s.cmd[i] + 6) == TPM2_CC_Unseal ? 1 : 0);
				assert_true(res.msg[0]);
				if (faults[f] == F_TRANSPORT || faults[f] == F_TRUNCATE)
					assert_int_equal(st, ER_TPMU_IO);
				if (faults[f] == F_TRANSPORT)
					assert_non_null(strstr(res.msg, ": no answer from the TPM (the transport failed)"));
				check_flushed(&r);
				runs++;
			}
		}
		free_script(&s);
	}
	printf("# %u faulty runs\n", runs);
	assert_true(runs >= 3 * (6 + 10 + 5));
}

/* RETRY, YIELDED, TESTING at each command: the same bytes again, then it goes on */
static void test_retry_resends(void **state)
{
	static const uint32_t rcs[] = { TPM2_RC_RETRY, TPM2_RC_YIELDED, TPM2_RC_TESTING };
	struct script s;
	(void)state;
	load_script(&s, "pin");
	for (unsigned i = 0; i < s.n; i++) {
		struct replay r;
		struct er_tpmu_result res;
		uint8_t secret[128];
		size_t n = 0;
		struct er_json j;
		struct er_tpmu_req q;
		struct er_tpm_name srk;
		struct er_tpm_io io;
		uint8_t auth[32];
		size_t al = 0;
		const char *why;
		assert_int_equal(er_json_parse(s.json, strlen(s.json), &j, NULL), 0);
		assert_int_equal(er_tpm2_token_parse(&j, &tok, &why), 0);
		assert_true(er_tpmunlock_req(&tok, &q, &srk));
		assert_true(er_tpm2_pin_auth((const uint8_t *)"1234", 4, NULL, 0, auth, &al));
		replay_init(&r, &s, &io, (int)i, F_RETRY);
		r.retry_rc = rcs[i % 3];
		assert_int_equal(er_tpmu_unseal(&u, &io, &q, auth, al, secret, 128, &n, &res), ER_TPMU_OK);
		assert_int_equal(r.resends, 1);
		assert_int_equal(r.sends, s.n + 1);
		assert_memory_equal(secret, s.secret, s.secret_len);
		check_flushed(&r);
	}
	free_script(&s);
}

static void test_retry_bounded(void **state)
{
	struct script s;
	struct replay r;
	struct er_tpmu_result res;
	uint8_t secret[128];
	size_t n;
	(void)state;
	load_script(&s, "plain");
	/* command 1 is Load: a TPM that always says RETRY there */
	assert_int_equal(be32(s.cmd[1] + 6), TPM2_CC_Load);
	assert_int_equal(run_script(&s, &r, 1, F_RETRY_FOREVER, secret, &n, &res), ER_TPMU_TPM);
	assert_int_equal(r.resends, ER_TPMU_RESENDS);
	assert_non_null(strstr(res.msg, "TPM_RC_RETRY"));
	check_flushed(&r);             /* the primary */
	assert_int_equal(r.nflushed, 1);
	free_script(&s);
}

static void test_flipped_unseal_response(void **state)
{
	struct script s;
	struct replay r;
	struct er_tpmu_result res;
	uint8_t secret[128];
	size_t n = 9;
	unsigned at = 0;
	(void)state;
	load_script(&s, "plain");
	for (unsigned i = 0; i < s.n; i++)
		if (be32(s.cmd[i] + 6) == TPM2_CC_Unseal)
			at = i;
	assert_true(at > 0);
	assert_int_equal(run_script(&s, &r, (int)at, F_FLIP, secret, &n, &res), ER_TPMU_IO);
	assert_int_equal(n, 0);
	assert_true(zero(secret, 128));
	check_flushed(&r);
	free_script(&s);
}

/* ---- er_tpmunlock_run over the transcripts */
struct run_ctx {
	struct tpmu_log log;           /* first: the ctx of tpmu_run_log */
	const char *pins[4];
	long pin_ret;                  /* after the pins: what ask_pin returns */
	unsigned asked;
	const struct script *s;
	bool tried;
	bool timed;                    /* ops.now_us given: 7 ms a reading; a PIN takes 10 s */
	uint64_t clock_us;
};
static uint64_t run_now(void *ctx)
{
	struct run_ctx *c = ctx;
	return c->clock_us += 7000;
}
static long run_pin(void *ctx, unsigned id, unsigned t, unsigned tries, char *buf, size_t cap)
{
	struct run_ctx *c = ctx;
	(void)id;
	assert_int_equal(tries, 3);
	assert_int_equal(t, c->asked + 1);
	if (c->asked >= 4 || !c->pins[c->asked])
		return c->pin_ret;
	c->clock_us += 10000000;
	snprintf(buf, cap, "%s", c->pins[c->asked++]);
	return (long)strlen(buf);
}
/* the keyslot "opens" when the passphrase is base64 of the recorded secret */
static bool run_try(void *ctx, uint32_t mask, const char *pass, size_t len, unsigned *slot)
{
	struct run_ctx *c = ctx;
	char want[100];
	size_t wl;
	c->tried = true;
	assert_true(er_tpm2_passphrase(c->s->secret, c->s->secret_len, want, sizeof(want), &wl));
	if (len != wl || memcmp(pass, want, wl))
		return false;
	*slot = (unsigned)__builtin_ctz(mask);
	return true;
}

static enum er_tpmunlock_result run_json(const char *name, struct run_ctx *c, struct replay *r, unsigned *tok_id,
					 unsigned *slot)
{
	static struct script s;
	static struct er_tpmunlock_scratch sc;
	static char json[9000];
	struct er_tpm_io io;
	struct er_tpmunlock_ops ops = { c, tpmu_run_log, run_pin, run_try, c->timed ? run_now : NULL };
	load_script(&s, name);
	c->s = &s;
	/* a LUKS2 JSON area around the token, with a token of another type before it */
	snprintf(json, sizeof(json), "{\"keyslots\":{},\"tokens\":{\"0\":{\"type\":\"systemd-fido2\",\"keyslots\":[\"1\"]},"
		 "\"%u\":%s}}", s.token + 3, s.json);
	replay_init(r, &s, &io, -1, F_NONE);
	enum er_tpmunlock_result res = er_tpmunlock_run("u-u-i-d", json, strlen(json), &io, &ops, &sc, tok_id, slot);
	assert_true(zero((const uint8_t *)&sc, sizeof(sc)));
	check_flushed(r);
	return res;
}

static void test_run_paths(void **state)
{
	struct replay r;
	unsigned tid = 99, slot = 99;
	(void)state;
	{
		struct run_ctx c = { .pins = { NULL } };
		assert_int_equal(run_json("plain", &c, &r, &tid, &slot), ER_TPMUNLOCK_UNLOCKED);
		assert_int_equal(tid, 3);
		assert_int_equal(slot, 1);
		assert_true(tpmu_logged(&c.log, "luks-u-u-i-d: unlocked with the TPM (systemd-tpm2 token 3), keyslot 1"));
		free_script((struct script *)c.s);
	}
	{
		struct run_ctx c = { .pins = { "1234" } };
		assert_int_equal(run_json("pin", &c, &r, &tid, &slot), ER_TPMUNLOCK_UNLOCKED);
		assert_int_equal(tid, 4);
		assert_int_equal(c.asked, 1);
		free_script((struct script *)c.s);
	}
	{
		/* with a clock: the TPM's time (open, then the unseal) without the 10 s at the PIN
		 * prompt, and the keyslot's; 7 ms between two readings */
		struct run_ctx c = { .pins = { "1234" }, .timed = true };
		assert_int_equal(run_json("pin", &c, &r, &tid, &slot), ER_TPMUNLOCK_UNLOCKED);
		assert_true(tpmu_logged(&c.log, "luks-u-u-i-d: unlocked with the TPM (systemd-tpm2 token 4), keyslot 2 "
					"(21 ms: the TPM 14 ms, the keyslot 7 ms)"));
		free_script((struct script *)c.s);
	}
	{
		/* a wrong PIN, then Esc: the token is left, the passphrase will be asked */
		struct run_ctx c = { .pins = { "1235" }, .pin_ret = -1 };
		assert_int_equal(run_json("wrongpin", &c, &r, &tid, &slot), ER_TPMUNLOCK_REFUSED);
		assert_int_equal(c.asked, 1);
		assert_true(tpmu_logged(&c.log, "luks-u-u-i-d: systemd-tpm2 token 4: wrong PIN (try 1 of 3;"));
		assert_int_equal(r.at, r.s->n);
		free_script((struct script *)c.s);
	}
	{
		/* the console cannot be read at the PIN prompt: no passphrase either */
		struct run_ctx c = { .pins = { "1235" }, .pin_ret = -2 };
		assert_int_equal(run_json("wrongpin", &c, &r, &tid, &slot), ER_TPMUNLOCK_SKIPPED);
		free_script((struct script *)c.s);
	}
	{
		struct run_ctx c = { .pins = { "1234" } };
		assert_int_equal(run_json("lockout", &c, &r, &tid, &slot), ER_TPMUNLOCK_REFUSED);
		assert_int_equal(c.asked, 0);
		assert_true(tpmu_logged(&c.log, "systemd-tpm2 token 4: the TPM is in dictionary-attack lockout"));
		free_script((struct script *)c.s);
	}
	{
		struct run_ctx c = { .pins = { "1234" } };
		assert_int_equal(run_json("policy1", &c, &r, &tid, &slot), ER_TPMUNLOCK_REFUSED);
		assert_int_equal(c.asked, 0);          /* the PCRs told before the PIN */
		assert_true(tpmu_logged(&c.log, "systemd-tpm2 token 4: not unsealed: PCRs changed: PCR 7 (sha256)"));
		assert_false(c.tried);
		free_script((struct script *)c.s);
	}
	{
		struct run_ctx c = { 0 };
		assert_int_equal(run_json("foreign", &c, &r, &tid, &slot), ER_TPMUNLOCK_REFUSED);
		assert_true(tpmu_logged(&c.log, "systemd-tpm2 token 3: not unsealed: the sealed object does not belong to "
					"this TPM"));
		free_script((struct script *)c.s);
	}
}

/* the unsealed key does not open the keyslot: said, refused */
static bool never(void *ctx, uint32_t mask, const char *pass, size_t len, unsigned *slot)
{
	(void)ctx; (void)mask; (void)pass; (void)len; (void)slot;
	return false;
}

static void test_run_key_refused(void **state)
{
	static struct script s;
	static struct er_tpmunlock_scratch sc;
	static char json[9000];
	struct replay r;
	struct er_tpm_io io;
	struct run_ctx c = { 0 };
	struct er_tpmunlock_ops ops = { &c, tpmu_run_log, run_pin, never, NULL };
	unsigned tid, slot;
	(void)state;
	load_script(&s, "plain");
	snprintf(json, sizeof(json), "{\"tokens\":{\"0\":%s}}", s.json);
	replay_init(&r, &s, &io, -1, F_NONE);
	assert_int_equal(er_tpmunlock_run("x", json, strlen(json), &io, &ops, &sc, &tid, &slot), ER_TPMUNLOCK_REFUSED);
	assert_true(tpmu_logged(&c.log, "luks-x: systemd-tpm2 token 0: unsealed, but the key does not open keyslot 1"));
	free_script(&s);
}

static void test_token_ids(void **state)
{
	unsigned ids[4];
	(void)state;
	const char *j = "{\"tokens\":{\"7\":{\"type\":\"systemd-tpm2\"},\"2\":{\"type\":\"systemd-fido2\"},"
			"\"5\":{\"type\":\"systemd-tpm2\"},\"1\":{\"type\":\"systemd-tpm2\"},\"x\":{\"type\":\"systemd-tpm2\"},"
			"\"3\":[]}}";
	assert_int_equal(er_tpmunlock_token_ids(j, strlen(j), ids, 4), 3);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 5);
	assert_int_equal(ids[2], 7);
	/* more than max: the lowest kept */
	assert_int_equal(er_tpmunlock_token_ids(j, strlen(j), ids, 2), 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 5);
	assert_int_equal(er_tpmunlock_token_ids("{}", 2, ids, 4), 0);
	assert_int_equal(er_tpmunlock_token_ids("{\"tokens\":", 10, ids, 4), 0);
	/* a malformed systemd-tpm2 token is said and skipped, nothing sent */
	static struct er_tpmunlock_scratch sc;
	struct run_ctx c = { 0 };
	struct er_tpmunlock_ops ops = { &c, tpmu_run_log, run_pin, never, NULL };
	struct replay r;
	struct script s = { .name = "none", .n = 0 };
	struct er_tpm_io io;
	unsigned tid, slot;
	replay_init(&r, &s, &io, -1, F_NONE);
	const char *bad = "{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"]}}}";
	assert_int_equal(er_tpmunlock_run("x", bad, strlen(bad), &io, &ops, &sc, &tid, &slot), ER_TPMUNLOCK_REFUSED);
	assert_true(tpmu_logged(&c.log, "luks-x: systemd-tpm2 token 0: malformed: "));
	assert_int_equal(r.sends, 0);
	assert_int_equal(er_tpmunlock_run("x", "{}", 2, &io, &ops, &sc, &tid, &slot), ER_TPMUNLOCK_NONE);
}

static void test_legacy_template(void **state)
{
	uint8_t t[64], srk[64];
	(void)state;
	size_t n = er_tpm_legacy_template(TPM2_ALG_ECC, t, sizeof(t));
	size_t m = er_tpm_srk_template(TPM2_ALG_ECC, srk, sizeof(srk));
	assert_int_equal(n, m);
	/* the same but for noDA (attributes at bytes 4..7) */
	assert_memory_equal(t, srk, 4);
	assert_int_equal(be32(t + 4), 0x00030072);
	assert_int_equal(be32(srk + 4), 0x00030472);
	assert_memory_equal(t + 8, srk + 8, n - 8);
	assert_int_equal(er_tpm_legacy_template(TPM2_ALG_RSA, t, sizeof(t)), er_tpm_srk_template(TPM2_ALG_RSA, srk, 64));
	assert_int_equal(er_tpm_legacy_template(0x0005, t, sizeof(t)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_srk),
		cmocka_unit_test(test_wrong_pin),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_foreign_srk),
		cmocka_unit_test(test_lockout),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_policy_pin),
		cmocka_unit_test(test_faults_flush_everything),
		cmocka_unit_test(test_retry_resends),
		cmocka_unit_test(test_retry_bounded),
		cmocka_unit_test(test_flipped_unseal_response),
		cmocka_unit_test(test_run_paths),
		cmocka_unit_test(test_run_key_refused),
		cmocka_unit_test(test_token_ids),
		cmocka_unit_test(test_legacy_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
