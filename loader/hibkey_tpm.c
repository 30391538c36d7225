// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: K sealed to the TPM (loader/hibkey_tpm.h). */
#include "loader/hibkey_tpm.h"
#include "loader/auth.h"
#include "tpm/session.h"
#include "crypto/sha.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

_Static_assert(ER_SEALREC_KEY_ID_LEN == ER_KEY_ID_LEN, "the record's key id is the contract's");
_Static_assert(ER_KEY_LEN == 32, "K is 32 bytes");

static const struct er_tpm_sym aes128cfb = { TPM2_ALG_AES, 128, TPM2_ALG_CFB };

const char *er_htpm_status_name(enum er_htpm_status s)
{
	switch (s) {
	case ER_HTPM_OK: return "ok";
	case ER_HTPM_NO_TPM: return "no-tpm";
	case ER_HTPM_PCR_CHANGED: return "pcr-changed";
	case ER_HTPM_FOREIGN: return "foreign";
	case ER_HTPM_BAD_RECORD: return "bad-record";
	case ER_HTPM_TPM: return "tpm";
	}
	return "?";
}

static enum er_htpm_status fail(struct er_hibkey_tpm *t, enum er_htpm_status s, uint32_t rc, const char *step,
				const char *what)
{
	char m[96];

	if (rc) {
		er_tpm_rc_format(rc, m, sizeof(m));
		er_snprintf(t->why, sizeof(t->why), "%s: %s (%s)", step, what, m);
	} else {
		er_snprintf(t->why, sizeof(t->why), "%s: %s", step, what);
	}
	return s;
}

/* one command's bytes to the TPM and its answer into t->rsp; resent while the TPM says
 * RETRY/YIELDED/TESTING. false: the transport failed. */
static bool xfer(struct er_hibkey_tpm *t, size_t len, size_t *rlen)
{
	for (int i = 0;; i++) {
		struct er_tpm_rc_info info;
		uint32_t rc;

		t->commands++;
		if (!t->io->submit(t->io->ctx, t->wire, len, t->rsp, sizeof(t->rsp), rlen) || *rlen > sizeof(t->rsp))
			return false;
		if (*rlen < 10)
			return true;
		rc = (uint32_t)t->rsp[6] << 24 | (uint32_t)t->rsp[7] << 16 | (uint32_t)t->rsp[8] << 8 | t->rsp[9];
		er_tpm_rc_decode(rc, &info);
		if (info.kind != ER_TPM_RC_RETRY || i == ER_HTPM_RESENDS)
			return true;
	}
}

#define E_IO 0xFFFFFFFFu        /* the transport failed (never a TPM_RC: bits 12..31 are 0 there) */

/* t->c without sessions, or with a password session */
static uint32_t run_plain(struct er_hibkey_tpm *t, struct er_tpm_rsp *r)
{
	size_t n = er_tpm_cmd_write(&t->c, t->wire, sizeof(t->wire)), rlen;

	if (!n)
		return ER_TPM_E_NOSPACE;
	if (!xfer(t, n, &rlen))
		return E_IO;
	return er_tpm_rsp_read(t->rsp, rlen, t->c.rsp_handles, t->c.nsessions, r);
}

/* t->c with session s (the only one) */
static uint32_t run_sess(struct er_hibkey_tpm *t, struct er_tpm_session *s, struct er_tpm_rsp *r)
{
	struct er_tpm_session *ss[1] = { s };
	uint8_t nonce[32];
	size_t n = 0, rlen;
	uint32_t rc;

	if (!t->io->random(t->io->ctx, nonce, sizeof(nonce)))
		rc = E_IO;
	else if (!er_tpm_cmd_seal_sessions(&t->c, ss, nonce, sizeof(nonce)) ||
		 !(n = er_tpm_cmd_write(&t->c, t->wire, sizeof(t->wire))))
		rc = ER_TPM_E_NOSPACE;
	else
		rc = TPM2_RC_SUCCESS;
	/* the parameters held K in clear before they were encrypted (Create) */
	er_wipe(t->c.params, sizeof(t->c.params));
	if (rc == TPM2_RC_SUCCESS)
		rc = xfer(t, n, &rlen) ? er_tpm_rsp_sessions(&t->c, ss, t->rsp, rlen, r) : E_IO;
	er_wipe(t->wire, sizeof(t->wire));
	return rc;
}

static void flush(struct er_hibkey_tpm *t, uint32_t h)
{
	struct er_tpm_rsp r;

	if (!h)
		return;
	er_tpm_cmd_flush_context(&t->c, h);
	run_plain(t, &r);          /* quietly: nothing the caller could do differently */
}

void er_htpm_policy(uint32_t pcr_mask, const uint8_t *vals, size_t nvals, uint8_t policy[32])
{
	struct er_tpm_pcr_selection sel;
	uint8_t h[32];

	er_memset(policy, 0, 32);
	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, pcr_mask);
	er_hash(ER_HASH_SHA256, vals, nvals * 32, h);
	er_tpm_policy_pcr_update(policy, &sel, h);
}

/* the standard storage template, but for unique (the key itself) */
static bool srk_standard(const struct er_tpm_public *p)
{
	uint8_t tpl[64];
	size_t n, tail;

	if (p->type != TPM2_ALG_ECC && p->type != TPM2_ALG_RSA)
		return false;
	n = er_tpm_srk_template(p->type, tpl, sizeof(tpl));
	tail = p->type == TPM2_ALG_ECC ? 4 : 2;       /* the empty unique of the template */
	return n && p->area_len > n && er_memcmp(p->area, tpl, n - tail) == 0 &&
	       (p->type == TPM2_ALG_ECC ? p->curve == TPM2_ECC_NIST_P256 : p->rsa_bits == 2048);
}

static enum er_htpm_status get_srk(struct er_hibkey_tpm *t)
{
	struct er_tpm_rsp r;
	uint32_t rc;

	er_tpm_cmd_read_public(&t->c, TPM2_SRK_HANDLE);
	rc = run_plain(t, &r);
	if (rc == E_IO)
		return fail(t, ER_HTPM_NO_TPM, 0, "ReadPublic", "the TPM does not answer");
	if (!rc && er_tpm_rsp_read_public(&r, &t->srk_pub) && srk_standard(&t->srk_pub)) {
		t->srk = TPM2_SRK_HANDLE;
		return ER_HTPM_OK;
	}
	/* none, or not the standard template (another use of that handle): our own primary,
	 * the same key every boot for the same owner seed */
	er_tpm_cmd_create_primary_srk(&t->c, TPM2_RH_OWNER, TPM2_ALG_ECC);
	er_tpm_cmd_password(&t->c, NULL, 0);
	rc = run_plain(t, &r);
	if (rc == E_IO)
		return fail(t, ER_HTPM_NO_TPM, 0, "CreatePrimary", "the TPM does not answer");
	if (rc)
		return fail(t, ER_HTPM_NO_TPM, rc, "CreatePrimary", "no storage key at 0x81000001 and none can be made");
	t->srk = r.handle;
	t->srk_transient = true;
	if (!er_tpm_rsp_create_primary(&r, &t->srk_pub) || t->srk_pub.type != TPM2_ALG_ECC)
		return fail(t, ER_HTPM_NO_TPM, 0, "CreatePrimary", "the TPM's answer is malformed");
	return ER_HTPM_OK;
}

enum er_htpm_status er_htpm_begin(struct er_hibkey_tpm *t, const struct er_tpm_io *io)
{
	struct er_tpm_pcr_selection sel;
	struct er_tpm_pcr_values v;
	struct er_tpm_rsp r;
	enum er_htpm_status s;
	uint32_t rc;

	er_memset(t, 0, sizeof(*t));
	t->io = io;
	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, 1u << ER_HTPM_PCR);
	er_tpm_cmd_pcr_read(&t->c, &sel);
	rc = run_plain(t, &r);
	if (rc == E_IO)
		return fail(t, ER_HTPM_NO_TPM, 0, "PCR_Read", "the TPM does not answer");
	if (rc)
		return fail(t, ER_HTPM_NO_TPM, rc, "PCR_Read", "PCR 7 cannot be read");
	/* a bank the TPM does not have comes back as an empty selection and no value */
	if (!er_tpm_rsp_pcr_read(&r, &v) || v.count != 1 || v.len[0] != 32 || v.sel.count != 1 ||
	    v.sel.s[0].hash != TPM2_ALG_SHA256 || v.sel.s[0].n < 1 || v.sel.s[0].sel[0] != (1u << ER_HTPM_PCR))
		return fail(t, ER_HTPM_NO_TPM, 0, "PCR_Read", "the TPM has no SHA-256 PCR 7");
	er_memcpy(t->pcr, v.d[0], 32);
	er_htpm_policy(1u << ER_HTPM_PCR, t->pcr, 1, t->policy);
	s = get_srk(t);
	if (s) {
		er_htpm_end(t);
		return s;
	}
	t->up = true;
	return ER_HTPM_OK;
}

/* StartAuthSession salted to the SRK */
static uint32_t start_session(struct er_hibkey_tpm *t, struct er_tpm_session *s, uint8_t type)
{
	uint8_t nonce[32], rnd[64], salt[32], enc[512];
	size_t enc_len, n, rlen = 0;
	uint32_t rc;
	bool ok = t->io->random(t->io->ctx, nonce, sizeof(nonce));

	er_memset(s, 0, sizeof(*s));
	if (t->srk_pub.type == TPM2_ALG_ECC) {
		enc_len = 68;
		for (int i = 0; ok; i++) {
			ok = t->io->random(t->io->ctx, rnd, 32);
			if (ok && er_tpm_salt_ecc(t->srk_pub.ecc_point, rnd, salt, enc))
				break;
			if (i == 8)
				ok = false;
		}
	} else {
		enc_len = t->srk_pub.rsa_n_len;
		ok = ok && enc_len <= sizeof(enc) && t->io->random(t->io->ctx, rnd, sizeof(rnd)) &&
		     er_tpm_salt_rsa(t->srk_pub.rsa_n, t->srk_pub.rsa_n_len, t->srk_pub.rsa_exp, rnd, salt, enc);
	}
	er_wipe(rnd, sizeof(rnd));
	if (!ok) {
		er_wipe(salt, sizeof(salt));
		return E_IO;
	}
	er_tpm_cmd_start_auth_session(&t->c, s, t->srk, enc, enc_len, type, &aes128cfb, nonce);
	n = er_tpm_cmd_write(&t->c, t->wire, sizeof(t->wire));
	if (!n)
		rc = ER_TPM_E_NOSPACE;
	else if (!xfer(t, n, &rlen))
		rc = E_IO;
	else
		rc = er_tpm_rsp_start_auth_session(t->rsp, rlen, s, salt, sizeof(salt));
	er_wipe(salt, sizeof(salt));
	if (rc) {
		struct er_tpm_rsp r;
		/* a session the TPM started whose answer is malformed (its nonce): flushed */
		if (rc == ER_TPM_E_MALFORMED && !er_tpm_rsp_read(t->rsp, rlen, 1, 0, &r))
			flush(t, r.handle);
		s->handle = 0;
	}
	return rc;
}

static enum er_htpm_status rc_fail(struct er_hibkey_tpm *t, uint32_t rc, const char *step, const char *what)
{
	if (rc == E_IO)
		return fail(t, ER_HTPM_TPM, 0, step, "the TPM does not answer (or no random numbers)");
	return fail(t, ER_HTPM_TPM, rc, step, what);
}

enum er_htpm_status er_htpm_unseal(struct er_hibkey_tpm *t, const uint8_t *rec, size_t n, uint8_t key[32],
				   uint8_t key_id[ER_SEALREC_KEY_ID_LEN])
{
	struct er_sealrec sr;
	struct er_tpm_session s;
	struct er_tpm_pcr_selection sel;
	struct er_tpm_rsp r;
	struct er_tpm_name name;
	enum er_htpm_status st = ER_HTPM_TPM;
	uint32_t item = 0, rc;
	uint8_t d[ER_TPM_MAX_DIGEST], id[ER_KEY_ID_LEN];
	size_t dl, kl = 0;
	const char *why;

	er_memset(&s, 0, sizeof(s));
	er_wipe(key, 32);
	er_memset(key_id, 0, ER_SEALREC_KEY_ID_LEN);
	if (!t->up)
		return fail(t, ER_HTPM_NO_TPM, 0, "unseal", "the TPM is not usable");
	if (!er_sealrec_parse(rec, n, &sr, &why))
		return fail(t, ER_HTPM_BAD_RECORD, 0, "the sealed key's record", why);
	if (sr.parent.n != t->srk_pub.name.n || er_memcmp(sr.parent.b, t->srk_pub.name.b, sr.parent.n) != 0) {
		st = fail(t, ER_HTPM_FOREIGN, 0, "the sealed key's record",
			  "it was sealed under another storage key (the TPM was cleared, or another TPM)");
		goto out;
	}
	er_tpm_cmd_load(&t->c, t->srk, t->srk_pub.name.b, t->srk_pub.name.n, sr.priv, sr.priv_len, sr.pub, sr.pub_len);
	er_tpm_cmd_password(&t->c, NULL, 0);
	rc = run_plain(t, &r);
	if (!rc)
		item = r.handle;           /* loaded: flushed below even if the rest is malformed */
	if (rc || !er_tpm_rsp_load(&r, &name)) {
		st = rc_fail(t, rc ? rc : ER_TPM_E_MALFORMED, "Load", "the sealed key cannot be loaded");
		goto out;
	}
	rc = start_session(t, &s, TPM2_SE_POLICY);
	if (rc) {
		st = rc_fail(t, rc, "StartAuthSession", "no policy session");
		goto out;
	}
	er_tpm_pcr_selection_one(&sel, sr.bank, sr.pcr_mask);
	er_tpm_cmd_policy_pcr(&t->c, s.handle, NULL, 0, &sel);
	rc = run_plain(t, &r);
	if (rc) {
		st = rc_fail(t, rc, "PolicyPCR", "refused");
		goto out;
	}
	er_tpm_cmd_policy_get_digest(&t->c, s.handle);
	rc = run_plain(t, &r);
	if (rc || !er_tpm_rsp_policy_get_digest(&r, d, sizeof(d), &dl)) {
		st = rc_fail(t, rc ? rc : ER_TPM_E_MALFORMED, "PolicyGetDigest", "refused");
		goto out;
	}
	if (dl != 32 || er_memcmp(d, sr.policy, 32) != 0) {
		st = fail(t, ER_HTPM_PCR_CHANGED, 0, "PolicyPCR",
			  "PCR 7 changed since the image was written (Secure Boot state or keys)");
		goto out;
	}
	er_tpm_cmd_unseal(&t->c, item, name.b, name.n);
	er_tpm_cmd_use_session(&t->c, &s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT);
	rc = run_sess(t, &s, &r);
	if (!rc && !er_tpm_rsp_unseal(&r, key, 32, &kl))
		rc = ER_TPM_E_MALFORMED;
	er_wipe(t->rsp, sizeof(t->rsp));
	if (rc) {
		st = rc_fail(t, rc, "Unseal", "refused");
		goto out;
	}
	er_key_id(key, id);
	if (kl != 32 || er_memcmp(id, sr.key_id, sizeof(id)) != 0) {
		st = fail(t, ER_HTPM_BAD_RECORD, 0, "Unseal", "what the TPM unsealed is not the key the record names");
		goto out;
	}
	er_memcpy(key_id, id, sizeof(id));
	st = ER_HTPM_OK;
out:
	if (st)
		er_wipe(key, 32);
	flush(t, s.handle);
	flush(t, item);
	er_tpm_session_wipe(&s);
	er_wipe(&sr, sizeof(sr));
	return st;
}

enum er_htpm_status er_htpm_seal(struct er_hibkey_tpm *t, const uint8_t key[32], uint8_t *out, size_t cap,
				 size_t *len)
{
	struct er_sealrec sr;
	struct er_tpm_session s;
	struct er_tpm_rsp r;
	const uint8_t *priv, *pub;
	size_t pl, ql;
	enum er_htpm_status st = ER_HTPM_TPM;
	uint32_t rc;

	*len = 0;
	er_memset(&s, 0, sizeof(s));
	if (!t->up)
		return fail(t, ER_HTPM_NO_TPM, 0, "seal", "the TPM is not usable");
	rc = start_session(t, &s, TPM2_SE_HMAC);
	if (rc) {
		st = rc_fail(t, rc, "StartAuthSession", "no HMAC session");
		goto out;
	}
	/* the SRK's authValue is empty: the HMAC key is the session key alone */
	er_tpm_cmd_create_sealed(&t->c, t->srk, t->srk_pub.name.b, t->srk_pub.name.n, key, 32, t->policy);
	er_tpm_cmd_use_session(&t->c, &s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT);
	rc = run_sess(t, &s, &r);
	if (rc) {
		st = rc_fail(t, rc, "Create", "the key cannot be sealed");
		goto out;
	}
	if (!er_tpm_rsp_create(&r, &priv, &pl, &pub, &ql) || !er_tpm_sealed_public_ok(pub, ql, t->policy)) {
		st = fail(t, ER_HTPM_TPM, 0, "Create", "the TPM's answer is malformed");
		goto out;
	}
	er_memset(&sr, 0, sizeof(sr));
	sr.version = ER_SEALREC_VERSION;
	sr.bank = TPM2_ALG_SHA256;
	sr.pcr_mask = 1u << ER_HTPM_PCR;
	er_memcpy(sr.policy, t->policy, 32);
	er_key_id(key, sr.key_id);
	sr.parent = t->srk_pub.name;
	er_memcpy(sr.pub, pub, ql);
	sr.pub_len = (uint16_t)ql;
	er_memcpy(sr.priv, priv, pl);
	sr.priv_len = (uint16_t)pl;
	*len = er_sealrec_write(&sr, out, cap);
	st = *len ? ER_HTPM_OK : fail(t, ER_HTPM_TPM, 0, "seal", "the record does not fit");
out:
	flush(t, s.handle);
	er_tpm_session_wipe(&s);
	return st;
}

void er_htpm_end(struct er_hibkey_tpm *t)
{
	char why[sizeof(t->why)];
	unsigned n = t->commands;

	if (t->io && t->srk_transient)
		flush(t, t->srk);
	er_memcpy(why, t->why, sizeof(why));
	n = t->commands;
	er_wipe(t, sizeof(*t));
	er_memcpy(t->why, why, sizeof(why));
	t->commands = n;
}
