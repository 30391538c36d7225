// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for tpm/seal.c (the sealed object, TPM2_Create, the sealed-key record) and
 * loader/hibkey_tpm.c (K sealed to the TPM) with scripted TPM answers.
 *
 * The main script is a real one: data/hibkey_tpm.h holds one boot's exchanges with swtpm
 * (tests/host/test-tpm-seal.sh writes it: begin, unseal of the previous boot's record,
 * seal of K2, end, with a fixed random stream). Replayed, the flow must send the same
 * commands byte for byte, unseal K1 and write the same record. Then response bytes are
 * flipped one at a time (every byte of Unseal's answer, every 3rd of Create's, every 2nd of
 * the others): the flow must never return a wrong K as unsealed, never an
 * accepted seal with a record that differs from the real one, never read out of bounds
 * (ASan), and must flush every handle it got from an answer it accepted. Hand-written
 * answers cover the refusals before any session: no TPM, a failed PCR_Read, no SHA-256
 * bank, RETRY resent, no persistent SRK, PolicyGetDigest not the record's ("PCR 7
 * changed", no Unseal sent). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loader/hibkey_tpm.h"
#include "loader/auth.h"
#include "tpm/seal.h"
#include "tpm/session.h"
#include "crypto/sha.h"
#include "data/hibkey_tpm.h"

/* ---------------------------------------------------------------- the scripted TPM */
#define MAX_X 64
struct script {
	/* replay: the recorded exchanges */
	const uint8_t *cmd[MAX_X], *rsp[MAX_X];
	size_t cmd_len[MAX_X], rsp_len[MAX_X];
	unsigned n, next;
	/* one response byte flipped: exchange flip_x, byte flip_b (flip_x < 0: none) */
	int flip_x;
	size_t flip_b;
	bool diverged;          /* a command not the recorded one (answered TPM_RC_FAILURE) */
	bool fail_transport;    /* submit returns false */
	/* handles answered and flushed */
	uint32_t live[16];
	unsigned nlive;
	unsigned flushes_unknown;
	uint32_t ccs[MAX_X];
	unsigned nccs;
	uint8_t served[4096];
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void load_transcript(struct script *s, const uint8_t *tr, size_t len)
{
	size_t o = 0;
	bool cmd = true;

	memset(s, 0, sizeof(*s));
	s->flip_x = -1;
	while (o < len) {
		size_t n = be32(tr + o);
		assert_true(o + 4 + n <= len);
		if (cmd) {
			s->cmd[s->n] = tr + o + 4;
			s->cmd_len[s->n] = n;
		} else {
			s->rsp[s->n] = tr + o + 4;
			s->rsp_len[s->n] = n;
			s->n++;
			assert_true(s->n < MAX_X);
		}
		cmd = !cmd;
		o += 4 + n;
	}
	assert_true(cmd);
}

static void track(struct script *s, uint32_t cc, const uint8_t *rsp, size_t n)
{
	struct er_tpm_rsp r;

	if (cc == TPM2_CC_FlushContext)
		return;
	/* commands that return a handle, answered with success in a well-formed answer (one the
	 * flow can read the handle from; a real TPM never sends another): the TPM holds it now */
	if ((cc == TPM2_CC_CreatePrimary || cc == TPM2_CC_Load || cc == TPM2_CC_StartAuthSession) &&
	    er_tpm_rsp_read(rsp, n, 1, cc == TPM2_CC_StartAuthSession ? 0 : 1, &r) == 0) {
		assert_true(s->nlive < 16);
		s->live[s->nlive++] = r.handle;
	}
}

static void flushed(struct script *s, uint32_t h)
{
	for (unsigned i = 0; i < s->nlive; i++)
		if (s->live[i] == h) {
			s->live[i] = s->live[--s->nlive];
			return;
		}
	s->flushes_unknown++;
}

static void answer(uint8_t *rsp, size_t *rsp_len, uint16_t tag, uint32_t rc)
{
	static const uint8_t z[10];
	memcpy(rsp, z, 10);
	rsp[0] = (uint8_t)(tag >> 8); rsp[1] = (uint8_t)tag;
	rsp[5] = 10;
	rsp[6] = (uint8_t)(rc >> 24); rsp[7] = (uint8_t)(rc >> 16); rsp[8] = (uint8_t)(rc >> 8); rsp[9] = (uint8_t)rc;
	*rsp_len = 10;
}

static bool replay_submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct script *s = ctx;
	uint32_t cc;

	if (s->fail_transport)
		return false;
	assert_true(len >= 10);
	cc = be32(cmd + 6);
	if (s->nccs < MAX_X)
		s->ccs[s->nccs++] = cc;
	if (cc == TPM2_CC_FlushContext) {
		assert_int_equal(len, 14);
		flushed(s, be32(cmd + 10));
		if (s->next < s->n && s->cmd_len[s->next] == len && !memcmp(s->cmd[s->next], cmd, len))
			s->next++;
		answer(rsp, rsp_len, TPM2_ST_NO_SESSIONS, 0);
		return true;
	}
	if (s->next >= s->n || s->cmd_len[s->next] != len || memcmp(s->cmd[s->next], cmd, len)) {
		s->diverged = true;
		answer(rsp, rsp_len, TPM2_ST_NO_SESSIONS, TPM2_RC_FAILURE);
		return true;
	}
	assert_true(s->rsp_len[s->next] <= cap);
	memcpy(rsp, s->rsp[s->next], s->rsp_len[s->next]);
	*rsp_len = s->rsp_len[s->next];
	if ((int)s->next == s->flip_x && s->flip_b < *rsp_len)
		rsp[s->flip_b] ^= 0x01;
	track(s, cc, rsp, *rsp_len);
	s->next++;
	return true;
}

/* the driver's replayable random stream: block i = SHA-256(seed || be32(i)) */
static uint32_t rnd_counter;
static bool seeded_random(void *ctx, uint8_t *buf, size_t n)
{
	static const char seed[] = "hibkey-tpm-replay";
	(void)ctx;
	while (n) {
		uint8_t in[sizeof(seed) + 3], h[32];
		size_t take = n < 32 ? n : 32;
		memcpy(in, seed, sizeof(seed) - 1);
		in[sizeof(seed) - 1] = (uint8_t)(rnd_counter >> 24); in[sizeof(seed)] = (uint8_t)(rnd_counter >> 16);
		in[sizeof(seed) + 1] = (uint8_t)(rnd_counter >> 8); in[sizeof(seed) + 2] = (uint8_t)rnd_counter;
		rnd_counter++;
		er_hash(ER_HASH_SHA256, in, sizeof(in), h);
		memcpy(buf, h, take);
		buf += take;
		n -= take;
	}
	return true;
}

static struct er_hibkey_tpm t;

/* one boot over the script: begin, unseal(rec1), seal(K2), end */
struct boot { enum er_htpm_status begin, unseal, seal; uint8_t key[32], id[8]; uint8_t rec[ER_SEALREC_MAX]; size_t rec_len; };

static void run_boot(struct script *s, struct boot *b)
{
	const struct er_tpm_io io = { s, replay_submit, seeded_random };

	memset(b, 0, sizeof(*b));
	rnd_counter = 0;
	b->begin = er_htpm_begin(&t, &io);
	b->unseal = b->seal = ER_HTPM_NO_TPM;
	if (b->begin == ER_HTPM_OK) {
		b->unseal = er_htpm_unseal(&t, replay_rec1, sizeof(replay_rec1), b->key, b->id);
		b->seal = er_htpm_seal(&t, replay_k2, b->rec, sizeof(b->rec), &b->rec_len);
	}
	er_htpm_end(&t);
}

/* ---------------------------------------------------------------- the replayed boot */
static void test_replay_cycle(void **state)
{
	static struct script s;
	struct boot b;
	uint8_t id[8];
	(void)state;
	load_transcript(&s, replay_cycle_tr, sizeof(replay_cycle_tr));
	run_boot(&s, &b);
	assert_int_equal(b.begin, ER_HTPM_OK);
	assert_int_equal(b.unseal, ER_HTPM_OK);
	assert_memory_equal(b.key, replay_k1, 32);
	er_key_id(replay_k1, id);
	assert_memory_equal(b.id, id, 8);
	assert_int_equal(b.seal, ER_HTPM_OK);
	assert_int_equal(b.rec_len, sizeof(replay_rec2));
	assert_memory_equal(b.rec, replay_rec2, sizeof(replay_rec2));
	assert_false(s.diverged);
	assert_int_equal(s.next, s.n);                 /* every recorded exchange, no more */
	assert_int_equal(s.nlive, 0);                  /* every handle flushed */
	assert_int_equal(s.flushes_unknown, 0);
	/* neither key on the wire, in either direction */
	for (unsigned i = 0; i < s.n; i++) {
		assert_null(memmem(s.cmd[i], s.cmd_len[i], replay_k1, 32));
		assert_null(memmem(s.cmd[i], s.cmd_len[i], replay_k2, 32));
		assert_null(memmem(s.rsp[i], s.rsp_len[i], replay_k1, 32));
		assert_null(memmem(s.rsp[i], s.rsp_len[i], replay_k2, 32));
	}
	/* and the state holds no copy after end */
	assert_null(memmem(&t, sizeof(t), replay_k1, 32));
	assert_null(memmem(&t, sizeof(t), replay_k2, 32));
}

static void test_replay_flipped_responses(void **state)
{
	static struct script s;
	struct boot b;
	unsigned runs = 0, unseal_ok = 0, seal_ok = 0, unseal_flips = 0, create_flips = 0;
	(void)state;
	load_transcript(&s, replay_cycle_tr, sizeof(replay_cycle_tr));
	for (unsigned x = 0; x < s.n; x++) {
		/* every byte of the Unseal answer; every 3rd of Create's (546 bytes, most of them
		 * creationData) and every 2nd of the rest: about 540 boots, 15 s under ASan */
		uint32_t cc = be32(s.cmd[x] + 6);
		size_t step = cc == TPM2_CC_Unseal ? 1 : cc == TPM2_CC_Create ? 3 : 2;
		for (size_t i = 0; i < s.rsp_len[x]; i += step) {
			load_transcript(&s, replay_cycle_tr, sizeof(replay_cycle_tr));
			s.flip_x = (int)x;
			s.flip_b = i;
			run_boot(&s, &b);
			runs++;
			if (b.unseal == ER_HTPM_OK) {
				/* accepted: it must be K1 (a flipped PCR value, say, that still unseals) */
				assert_memory_equal(b.key, replay_k1, 32);
				unseal_ok++;
			}
			if (b.seal == ER_HTPM_OK) {
				/* a record that another flip let through must still be the real one, or a
				 * flip of a byte the record does not carry (the creation data, the ticket,
				 * the response's session nonce: then the response HMAC fails... so none) */
				assert_int_equal(b.rec_len, sizeof(replay_rec2));
				assert_memory_equal(b.rec, replay_rec2, sizeof(replay_rec2));
				seal_ok++;
			}
			/* a flipped byte of the Unseal or the Create answer itself is never accepted:
			 * header, parameters and session area are all read or under the HMAC */
			if (be32(s.cmd[x] + 6) == TPM2_CC_Unseal) {
				unseal_flips++;
				assert_int_not_equal(b.unseal, ER_HTPM_OK);
			}
			if (be32(s.cmd[x] + 6) == TPM2_CC_Create) {
				create_flips++;
				assert_int_not_equal(b.seal, ER_HTPM_OK);
			}
			if (s.nlive) {
				print_message("exchange %u (cc 0x%x) byte %zu: %u handle(s) not flushed\n", x,
					      be32(s.cmd[x] + 6), i, s.nlive);
				fail();
			}
		}
	}
	print_message("# %u runs with one response byte flipped: unseal accepted %u times, seal %u times\n", runs,
		      unseal_ok, seal_ok);
	print_message("# of which %u in the Unseal answer and %u in the Create answer, all refused\n", unseal_flips,
		      create_flips);
	assert_true(runs > 500);
	assert_true(unseal_flips > 100 && create_flips > 150);
}

/* ---------------------------------------------------------------- hand-written answers */
struct hand {
	int step;
	unsigned retry;               /* answer RETRY this many times first */
	uint32_t pcr_rc;
	bool empty_bank;
	bool no_srk;
	uint32_t ccs[32];
	unsigned nccs;
};

static size_t rsp_build(uint8_t *rsp, uint16_t tag, uint32_t rc, const uint8_t *body, size_t n)
{
	rsp[0] = (uint8_t)(tag >> 8); rsp[1] = (uint8_t)tag;
	rsp[2] = (uint8_t)((10 + n) >> 24); rsp[3] = (uint8_t)((10 + n) >> 16);
	rsp[4] = (uint8_t)((10 + n) >> 8); rsp[5] = (uint8_t)(10 + n);
	rsp[6] = (uint8_t)(rc >> 24); rsp[7] = (uint8_t)(rc >> 16); rsp[8] = (uint8_t)(rc >> 8); rsp[9] = (uint8_t)rc;
	if (n)
		memcpy(rsp + 10, body, n);
	return 10 + n;
}

/* the recorded answer to the first command with code cc in the transcript */
static void recorded(uint32_t cc, const uint8_t **rsp, size_t *n)
{
	static struct script s;
	load_transcript(&s, replay_cycle_tr, sizeof(replay_cycle_tr));
	for (unsigned i = 0; i < s.n; i++)
		if (be32(s.cmd[i] + 6) == cc) {
			*rsp = s.rsp[i];
			*n = s.rsp_len[i];
			return;
		}
	fail();
}

static bool hand_submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct hand *h = ctx;
	uint32_t cc = be32(cmd + 6);
	const uint8_t *r;
	size_t n;
	(void)len;
	(void)cap;
	h->ccs[h->nccs++] = cc;
	if (h->retry) {
		h->retry--;
		*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, TPM2_RC_RETRY, NULL, 0);
		return true;
	}
	switch (cc) {
	case TPM2_CC_PCR_Read:
		if (h->pcr_rc) {
			*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, h->pcr_rc, NULL, 0);
		} else if (h->empty_bank) {
			/* updateCounter, TPML_PCR_SELECTION {1: sha256, 3, 00 00 00}, TPML_DIGEST {0} */
			static const uint8_t b[] = { 0, 0, 0, 9, 0, 0, 0, 1, 0, 0x0b, 3, 0, 0, 0, 0, 0, 0, 0 };
			*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, 0, b, sizeof(b));
		} else {
			recorded(cc, &r, &n);
			memcpy(rsp, r, n);
			*rsp_len = n;
		}
		return true;
	case TPM2_CC_ReadPublic:
		if (h->no_srk) {
			*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, TPM2_RC_HANDLE | 0x100 /* handle 1 */, NULL, 0);
			return true;
		}
		break;
	case TPM2_CC_CreatePrimary:
		/* as swtpm would for the ECC template: the SRK's public area (the persistent one's) */
		*rsp_len = rsp_build(rsp, TPM2_ST_SESSIONS, TPM2_RC_FAILURE, NULL, 0);
		return true;
	case TPM2_CC_PolicyGetDigest: {
		/* not the record's digest */
		uint8_t b[4 + 2 + 32];
		memset(b, 0, sizeof(b));
		b[3] = 34; b[5] = 32; b[6] = 0xAA;
		*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, 0, b + 4, 34);
		return true;
	}
	case TPM2_CC_FlushContext:
		*rsp_len = rsp_build(rsp, TPM2_ST_NO_SESSIONS, 0, NULL, 0);
		return true;
	default:
		break;
	}
	recorded(cc, &r, &n);
	memcpy(rsp, r, n);
	*rsp_len = n;
	return true;
}

static bool any_random(void *ctx, uint8_t *buf, size_t n)
{
	return seeded_random(ctx, buf, n);
}

static void test_no_tpm(void **state)
{
	static struct script s;
	const struct er_tpm_io io = { &s, replay_submit, any_random };
	(void)state;
	memset(&s, 0, sizeof(s));
	s.fail_transport = true;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_NO_TPM);
	assert_non_null(strstr(t.why, "does not answer"));
	/* and nothing can be sealed or unsealed on a state that did not begin */
	{
		uint8_t k[32], id[8], rec[ER_SEALREC_MAX];
		size_t n;
		assert_int_equal(er_htpm_seal(&t, replay_k2, rec, sizeof(rec), &n), ER_HTPM_NO_TPM);
		assert_int_equal(er_htpm_unseal(&t, replay_rec1, sizeof(replay_rec1), k, id), ER_HTPM_NO_TPM);
	}
}

static void test_pcr_read_refusals(void **state)
{
	struct hand h;
	const struct er_tpm_io io = { &h, hand_submit, any_random };
	(void)state;
	memset(&h, 0, sizeof(h));
	h.pcr_rc = TPM2_RC_FAILURE;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_NO_TPM);
	assert_non_null(strstr(t.why, "PCR_Read"));
	memset(&h, 0, sizeof(h));
	h.empty_bank = true;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_NO_TPM);
	assert_non_null(strstr(t.why, "no SHA-256 PCR 7"));
}

static void test_retry_resent(void **state)
{
	struct hand h;
	const struct er_tpm_io io = { &h, hand_submit, any_random };
	(void)state;
	memset(&h, 0, sizeof(h));
	h.retry = 3;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_OK);
	/* PCR_Read sent 4 times (3 RETRY, then the answer), then ReadPublic */
	assert_true(h.nccs >= 5);
	for (int i = 0; i < 4; i++)
		assert_int_equal(h.ccs[i], TPM2_CC_PCR_Read);
	assert_int_equal(h.ccs[4], TPM2_CC_ReadPublic);
	er_htpm_end(&t);
	/* a TPM that keeps saying RETRY: given up after ER_HTPM_RESENDS resends */
	memset(&h, 0, sizeof(h));
	h.retry = 100;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_NO_TPM);
	assert_int_equal(h.nccs, ER_HTPM_RESENDS + 1);
}

static void test_no_srk_no_primary(void **state)
{
	struct hand h;
	const struct er_tpm_io io = { &h, hand_submit, any_random };
	(void)state;
	memset(&h, 0, sizeof(h));
	h.no_srk = true;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_NO_TPM);
	assert_int_equal(h.ccs[1], TPM2_CC_ReadPublic);
	assert_int_equal(h.ccs[2], TPM2_CC_CreatePrimary);
	assert_non_null(strstr(t.why, "CreatePrimary"));
}

static void test_pcr_changed(void **state)
{
	struct hand h;
	const struct er_tpm_io io = { &h, hand_submit, any_random };
	uint8_t k[32], id[8];
	unsigned flushes = 0;
	(void)state;
	memset(&h, 0, sizeof(h));
	rnd_counter = 0;
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_OK);
	memset(k, 0x55, sizeof(k));
	assert_int_equal(er_htpm_unseal(&t, replay_rec1, sizeof(replay_rec1), k, id), ER_HTPM_PCR_CHANGED);
	assert_non_null(strstr(t.why, "PCR 7 changed since the image was written (Secure Boot state or keys)"));
	for (unsigned i = 0; i < h.nccs; i++) {
		assert_int_not_equal(h.ccs[i], TPM2_CC_Unseal);
		flushes += h.ccs[i] == TPM2_CC_FlushContext;
	}
	assert_int_equal(flushes, 2);                /* the policy session and the loaded object */
	for (unsigned i = 0; i < 32; i++)
		assert_int_equal(k[i], 0);               /* no stale K handed back */
	er_htpm_end(&t);
}

static void test_foreign_record(void **state)
{
	struct hand h;
	const struct er_tpm_io io = { &h, hand_submit, any_random };
	uint8_t k[32], id[8], rec[sizeof(replay_rec1)];
	(void)state;
	memset(&h, 0, sizeof(h));
	memcpy(rec, replay_rec1, sizeof(rec));
	rec[60] ^= 1;                                 /* inside the parent Name */
	assert_int_equal(er_htpm_begin(&t, &io), ER_HTPM_OK);
	assert_int_equal(er_htpm_unseal(&t, rec, sizeof(rec), k, id), ER_HTPM_FOREIGN);
	assert_int_equal(h.nccs, 2);                  /* nothing sent for it */
	er_htpm_end(&t);
}

/* ---------------------------------------------------------------- tpm/seal.c */
static void test_policy_is_the_tpms(void **state)
{
	struct er_sealrec r;
	const char *why;
	uint8_t zero[32] = { 0 }, p[32];
	(void)state;
	/* swtpm's PCR 7 at the recording was all zeros (nothing measured): the digest the TPM's
	 * PolicyGetDigest matched in the cycle is the one computed here */
	assert_true(er_sealrec_parse(replay_rec1, sizeof(replay_rec1), &r, &why));
	er_htpm_policy(1u << 7, zero, 1, p);
	assert_memory_equal(p, r.policy, 32);
	assert_int_equal(r.bank, TPM2_ALG_SHA256);
	assert_int_equal(r.pcr_mask, 0x80);
	assert_int_equal(r.version, 1);
}

static void test_record_round_trip(void **state)
{
	struct er_sealrec r;
	const char *why = "x";
	uint8_t out[ER_SEALREC_MAX], id[8];
	size_t n;
	(void)state;
	assert_true(er_sealrec_parse(replay_rec2, sizeof(replay_rec2), &r, &why));
	assert_null(why);
	er_key_id(replay_k2, id);
	assert_memory_equal(r.key_id, id, 8);
	n = er_sealrec_write(&r, out, sizeof(out));
	assert_int_equal(n, sizeof(replay_rec2));
	assert_memory_equal(out, replay_rec2, n);
	/* too small a buffer: nothing */
	assert_int_equal(er_sealrec_write(&r, out, n - 1), 0);
}

static void test_record_refusals(void **state)
{
	struct er_sealrec r;
	const char *why;
	uint8_t b[sizeof(replay_rec1) + 1];
	size_t n = sizeof(replay_rec1);
	static const struct { size_t off; uint8_t x; const char *why; } cases[] = {
		{ 0, 0x01, "no \"EFRT\"" },
		{ 5, 0x02, "another version" },
		{ 7, 0x01, "not SHA-256" },
		{ 8, 0x01, "past 23" },                  /* mask 0x01000080 */
		{ 13, 0x01, "not 32 bytes" },            /* policy size 33 */
		{ 55, 0x01, "not a SHA-256 Name" },      /* parent Name size 35 */
		{ 56, 0x01, "not a SHA-256 Name" },      /* its nameAlg */
		{ 14, 0x01, "not a sealed object" },     /* policy byte: the public's authPolicy differs */
		{ 90 + 2 + 7, 0x01, "not a sealed object" },   /* an attribute bit (0x01: reserved) */
		{ 90 + 2 + 6, 0x04, "not a sealed object" },   /* sign/encrypt (bit 18) */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(b, replay_rec1, n);
		b[cases[i].off] ^= cases[i].x;
		why = NULL;
		assert_false(er_sealrec_parse(b, n, &r, &why));
		assert_non_null(why);
		if (!strstr(why, cases[i].why)) {
			print_message("case %zu: %s\n", i, why);
			fail();
		}
	}
	/* mask 0 */
	memcpy(b, replay_rec1, n);
	b[11] = 0;
	assert_false(er_sealrec_parse(b, n, &r, &why));
	/* every length short of the whole, and one byte more */
	for (size_t k = 0; k < n; k++)
		assert_false(er_sealrec_parse(replay_rec1, k, &r, &why));
	memcpy(b, replay_rec1, n);
	b[n] = 0;
	assert_false(er_sealrec_parse(b, n + 1, &r, &why));
	assert_non_null(strstr(why, "after the record"));
}

static void test_create_command(void **state)
{
	static struct er_tpm_cmd c;
	struct er_tpm_session s;
	struct er_tpm_session *ss[1] = { &s };
	uint8_t policy[32], key[32], wire[2048], tpl[96], nonce[32];
	size_t n, tl;
	(void)state;
	memset(policy, 0x11, sizeof(policy));
	memset(key, 0xC3, sizeof(key));
	tl = er_tpm_seal_template(policy, tpl, sizeof(tpl));
	/* KEYEDHASH, SHA-256, attrs 0x492 (fixedTPM|fixedParent|adminWithPolicy|noDA), policy, NULL, empty */
	assert_int_equal(tl, 2 + 2 + 4 + 34 + 2 + 2);
	assert_int_equal(be32(tpl + 4), 0x00000492);
	assert_int_equal(tpl[0] << 8 | tpl[1], TPM2_ALG_KEYEDHASH);
	/* with a password session the key is in clear (the control) */
	er_tpm_cmd_create_sealed(&c, TPM2_SRK_HANDLE, NULL, 0, key, 32, policy);
	er_tpm_cmd_password(&c, NULL, 0);
	n = er_tpm_cmd_write(&c, wire, sizeof(wire));
	assert_true(n > 0);
	assert_int_equal(be32(wire + 6), TPM2_CC_Create);
	assert_non_null(memmem(wire, n, key, 32));
	assert_non_null(memmem(wire, n, tpl, tl));
	/* with a DECRYPT session it is not */
	memset(&s, 0, sizeof(s));
	s.handle = 0x02000000;
	s.type = TPM2_SE_HMAC;
	s.sym = (struct er_tpm_sym){ TPM2_ALG_AES, 128, TPM2_ALG_CFB };
	s.key_len = 32;
	memset(s.key, 0x77, 32);
	s.nonce_len = 32;
	er_tpm_cmd_create_sealed(&c, TPM2_SRK_HANDLE, NULL, 0, key, 32, policy);
	er_tpm_cmd_use_session(&c, &s, TPMA_SESSION_DECRYPT | TPMA_SESSION_CONTINUESESSION);
	memset(nonce, 0x42, sizeof(nonce));
	assert_true(er_tpm_cmd_seal_sessions(&c, ss, nonce, sizeof(nonce)));
	n = er_tpm_cmd_write(&c, wire, sizeof(wire));
	assert_true(n > 0);
	assert_null(memmem(wire, n, key, 32));
	assert_non_null(memmem(wire, n, tpl, tl));    /* only the first parameter is encrypted */
	/* data too large: refused */
	{
		uint8_t big[ER_TPM_SEAL_MAX_DATA + 1];
		memset(big, 0, sizeof(big));
		er_tpm_cmd_create_sealed(&c, TPM2_SRK_HANDLE, NULL, 0, big, sizeof(big), policy);
		er_tpm_cmd_password(&c, NULL, 0);
		assert_int_equal(er_tpm_cmd_write(&c, wire, sizeof(wire)), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_cycle),
		cmocka_unit_test(test_replay_flipped_responses),
		cmocka_unit_test(test_no_tpm),
		cmocka_unit_test(test_pcr_read_refusals),
		cmocka_unit_test(test_retry_resent),
		cmocka_unit_test(test_no_srk_no_primary),
		cmocka_unit_test(test_pcr_changed),
		cmocka_unit_test(test_foreign_record),
		cmocka_unit_test(test_policy_is_the_tpms),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_record_refusals),
		cmocka_unit_test(test_create_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
