// SPDX-License-Identifier: GPL-2.0-or-later
/* The unseal flow of a systemd-cryptenroll TPM2 object; see unseal.h. */
#include "tpm/unseal.h"
#include "crypto/wipe.h"
#include "image/freestanding.h"
#include "image/fmt.h"

#define ER_TPM_E_TRANSPORT 0x00EF0010u   /* ours: the transport said no */
#define ER_TPM_E_RANDOM    0x00EF0011u   /* ours: no random bytes */

static const struct er_tpm_sym aes128cfb = { TPM2_ALG_AES, 128, TPM2_ALG_CFB };

const char *er_tpmu_status_name(enum er_tpmu_status s)
{
	switch (s) {
	case ER_TPMU_OK: return "ok";
	case ER_TPMU_POLICY: return "policy";
	case ER_TPMU_AUTH_FAIL: return "auth-fail";
	case ER_TPMU_LOCKOUT: return "lockout";
	case ER_TPMU_FOREIGN: return "foreign";
	case ER_TPMU_TPM: return "tpm";
	case ER_TPMU_IO: return "io";
	case ER_TPMU_BAD_ARG: return "bad-arg";
	}
	return "?";
}

size_t er_tpm_legacy_template(uint16_t alg, uint8_t *out, size_t cap)
{
	return er_tpm_primary_template(alg, false, out, cap);
}

bool er_tpm_esys_tr_name(const uint8_t *tr, size_t n, uint32_t *handle, struct er_tpm_name *name)
{
	struct er_tpm_rd r;
	size_t nl;

	er_tpm_rd_init(&r, tr, n);
	*handle = er_tpm_get_u32(&r);
	if (!er_tpm_get_tpm2b_copy(&r, name->b, sizeof(name->b), &nl) || nl < 2)
		return false;
	name->n = (uint16_t)nl;
	return true;
}

static void fail(struct er_tpmu_result *res, enum er_tpmu_status st, uint32_t rc, const char *step, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void fail(struct er_tpmu_result *res, enum er_tpmu_status st, uint32_t rc, const char *step, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	res->status = st;
	res->rc = rc;
	res->step = step;
	if (rc == ER_TPM_E_TRANSPORT || rc == ER_TPM_E_RANDOM) {
		/* ours, not the TPM's: no rc to decode */
		er_snprintf(res->msg, sizeof(res->msg), "%s: %s", step, rc == ER_TPM_E_TRANSPORT ?
			    "no answer from the TPM (the transport failed)" : "no random numbers for the session");
		return;
	} else if (st == ER_TPMU_LOCKOUT) {
		/* whatever the step (Load under a primary without noDA, Unseal with a PIN) */
		n = er_snprintf(res->msg, sizeof(res->msg), "the TPM is in dictionary-attack lockout (too many wrong "
				"PINs): it refuses until its lockout time has passed");
	} else {
		va_start(ap, fmt);
		n = er_vsnprintf(res->msg, sizeof(res->msg), fmt, ap);
		va_end(ap);
	}
	if (rc && n + 3 < sizeof(res->msg)) {
		n += er_snprintf(res->msg + n, sizeof(res->msg) - n, " (%s: ", step);
		n += er_tpm_rc_format(rc, res->msg + n, sizeof(res->msg) - n);
		if (n + 2 < sizeof(res->msg))
			er_snprintf(res->msg + n, sizeof(res->msg) - n, ")");
	}
}

/* The rc a raw response carries (0 when too short to say: the parser refuses it later). */
static uint32_t raw_rc(const uint8_t *p, size_t n)
{
	if (n < 10)
		return 0;
	return (uint32_t)p[6] << 24 | (uint32_t)p[7] << 16 | (uint32_t)p[8] << 8 | p[9];
}

/* Sends u->c (sessions sess[0..c.nsessions), NULL for a password session) and reads the
 * response into *r. Returns the TPM's rc or ours (ER_TPM_E_*). */
static uint32_t xfer(struct er_tpmu *u, struct er_tpm_session *const *sess, struct er_tpm_rsp *r)
{
	struct er_tpm_cmd *c = &u->c;
	uint8_t nonces[ER_TPM_MAX_SESSIONS * ER_TPM_SHA256_LEN];
	bool any = false;
	size_t len, rlen = 0;

	for (unsigned i = 0; i < c->nsessions; i++)
		any |= sess && sess[i];
	if (any) {
		size_t need = c->nsessions * ER_TPM_SHA256_LEN;
		if (!u->io->random(u->io->ctx, nonces, need))
			return ER_TPM_E_RANDOM;
		bool ok = er_tpm_cmd_seal_sessions(c, sess, nonces, need);
		er_wipe(nonces, sizeof(nonces));
		if (!ok)
			return ER_TPM_E_NOSPACE;
	}
	len = er_tpm_cmd_write(c, u->wire, sizeof(u->wire));
	if (!len)
		return ER_TPM_E_NOSPACE;
	for (unsigned t = 0;; t++) {
		struct er_tpm_rc_info i;
		u->commands++;
		if (!u->io->submit(u->io->ctx, u->wire, len, u->rsp, sizeof(u->rsp), &rlen) || rlen > sizeof(u->rsp))
			return ER_TPM_E_TRANSPORT;
		er_tpm_rc_decode(raw_rc(u->rsp, rlen), &i);
		if (i.kind != ER_TPM_RC_RETRY || t == ER_TPMU_RESENDS)
			break;
	}
	er_wipe(u->wire, len);
	if (any)
		return er_tpm_rsp_sessions(c, sess, u->rsp, rlen, r);
	return er_tpm_rsp_read(u->rsp, rlen, c->rsp_handles, c->nsessions, r);
}

static void flush(struct er_tpmu *u, uint32_t h)
{
	struct er_tpm_rsp r;
	er_tpm_cmd_flush_context(&u->c, h);
	(void)xfer(u, NULL, &r);
}

/* The kind of failure an rc says, for the steps where any TPM refusal is just that. */
static enum er_tpmu_status rc_status(uint32_t rc)
{
	struct er_tpm_rc_info i;
	er_tpm_rc_decode(rc, &i);
	if (rc == ER_TPM_E_TRANSPORT || i.kind == ER_TPM_RC_MALFORMED || i.kind == ER_TPM_RC_HMAC)
		return ER_TPMU_IO;
	if (rc == ER_TPM_E_RANDOM || rc == ER_TPM_E_NOSPACE)
		return ER_TPMU_BAD_ARG;
	if (i.kind == ER_TPM_RC_LOCKOUT)
		return ER_TPMU_LOCKOUT;
	return ER_TPMU_TPM;
}

static bool tpm2b_body(const uint8_t *p, size_t n, const uint8_t **body, size_t *len)
{
	struct er_tpm_rd r;
	er_tpm_rd_init(&r, p, n);
	return er_tpm_get_tpm2b(&r, body, len, n) && r.off == r.len && *len > 0;
}

static enum er_tpmu_status parent(struct er_tpmu *u, struct er_tpmu_result *res)
{
	const struct er_tpmu_req *q = u->req;
	struct er_tpm_rsp r;
	uint32_t rc;

	if (q->srk_handle) {
		er_tpm_cmd_read_public(&u->c, q->srk_handle);
		rc = xfer(u, NULL, &r);
		struct er_tpm_rc_info i;
		er_tpm_rc_decode(rc, &i);
		if (rc && i.fmt1 && i.base == TPM2_RC_HANDLE) {
			fail(res, ER_TPMU_FOREIGN, rc, "ReadPublic", "the storage key 0x%08x the token was sealed under is not "
			     "in this TPM (sealed by another TPM, or the TPM was cleared)", q->srk_handle);
			return res->status;
		}
		if (rc) {
			fail(res, rc_status(rc), rc, "ReadPublic", "the storage key 0x%08x cannot be read", q->srk_handle);
			return res->status;
		}
		if (!er_tpm_rsp_read_public(&r, &u->parent_pub)) {
			fail(res, ER_TPMU_IO, 0, "ReadPublic", "the TPM's answer to ReadPublic(0x%08x) is malformed", q->srk_handle);
			return res->status;
		}
		if (q->srk_name && (q->srk_name_len != u->parent_pub.name.n ||
				    er_memcmp(q->srk_name, u->parent_pub.name.b, q->srk_name_len) != 0)) {
			fail(res, ER_TPMU_FOREIGN, 0, "ReadPublic", "the storage key at 0x%08x is not the one the token was "
			     "sealed under (another TPM, or the SRK was replaced)", q->srk_handle);
			return res->status;
		}
		u->parent = q->srk_handle;
		u->parent_transient = false;
	} else {
		uint8_t t[64];
		size_t n = er_tpm_legacy_template(q->primary_alg, t, sizeof(t));
		if (!n) {
			fail(res, ER_TPMU_BAD_ARG, 0, "CreatePrimary", "primary algorithm 0x%04x is neither ECC nor RSA",
			     q->primary_alg);
			return res->status;
		}
		er_tpm_cmd_init(&u->c, TPM2_CC_CreatePrimary, 1);
		er_tpm_cmd_handle(&u->c, TPM2_RH_OWNER, NULL, 0, true);
		er_tpm_put_u16(&u->c.pw, 4);         /* TPM2B_SENSITIVE_CREATE: userAuth, data empty */
		er_tpm_put_u16(&u->c.pw, 0);
		er_tpm_put_u16(&u->c.pw, 0);
		er_tpm_put_tpm2b(&u->c.pw, t, n);    /* inPublic */
		er_tpm_put_u16(&u->c.pw, 0);         /* outsideInfo */
		er_tpm_put_u32(&u->c.pw, 0);         /* creationPCR: none */
		er_tpm_cmd_password(&u->c, NULL, 0);
		rc = xfer(u, NULL, &r);
		if (rc) {
			fail(res, rc_status(rc), rc, "CreatePrimary", "the %s primary key cannot be created in the owner "
			     "hierarchy (an owner password set?)", q->primary_alg == TPM2_ALG_ECC ? "ECC" : "RSA");
			return res->status;
		}
		u->parent = r.handle;
		u->parent_transient = true;
		if (!er_tpm_rsp_create_primary(&r, &u->parent_pub)) {
			fail(res, ER_TPMU_IO, 0, "CreatePrimary", "the TPM's answer to CreatePrimary is malformed");
			return res->status;
		}
	}
	if (!(u->parent_pub.type == TPM2_ALG_ECC && u->parent_pub.curve == TPM2_ECC_NIST_P256) &&
	    !(u->parent_pub.type == TPM2_ALG_RSA && u->parent_pub.rsa_n_len >= 128)) {
		fail(res, ER_TPMU_BAD_ARG, 0, "ReadPublic", "the storage key is neither ECC P-256 nor RSA (type 0x%04x)",
		     u->parent_pub.type);
		return res->status;
	}
	return ER_TPMU_OK;
}

static enum er_tpmu_status load(struct er_tpmu *u, struct er_tpmu_result *res)
{
	const struct er_tpmu_req *q = u->req;
	const uint8_t *priv, *pub;
	size_t pl, ql;
	struct er_tpm_rsp r;
	struct er_tpm_rc_info i;
	uint32_t rc;

	if (!tpm2b_body(q->priv, q->priv_len, &priv, &pl) || !tpm2b_body(q->pub, q->pub_len, &pub, &ql)) {
		fail(res, ER_TPMU_BAD_ARG, 0, "Load", "the sealed object is not a TPM2B_PRIVATE and a TPM2B_PUBLIC");
		return res->status;
	}
	er_tpm_cmd_load(&u->c, u->parent, NULL, 0, priv, pl, pub, ql);
	er_tpm_cmd_password(&u->c, NULL, 0);
	rc = xfer(u, NULL, &r);
	if (rc) {
		er_tpm_rc_decode(rc, &i);
		/* the parent differs from the one it was sealed under: the private part does not
		 * decrypt (INTEGRITY) or does not fit (SIZE, VALUE...) */
		enum er_tpmu_status st = rc_status(rc);
		if (st == ER_TPMU_TPM && i.fmt1 && i.param)
			st = ER_TPMU_FOREIGN;
		fail(res, st, rc, "Load", st == ER_TPMU_FOREIGN ? "the sealed object does not belong to this TPM "
		     "(sealed by another TPM, or the TPM was cleared)" : "the sealed object cannot be loaded");
		return res->status;
	}
	if (!er_tpm_rsp_load(&r, &u->item_name)) {
		u->item = r.handle;
		fail(res, ER_TPMU_IO, 0, "Load", "the TPM's answer to Load is malformed");
		return res->status;
	}
	u->item = r.handle;
	return ER_TPMU_OK;
}

/* A policy session (salted to the parent when salted) with the token's policy applied:
 * its digest compared with the token's. s->handle is the session's (0: none started). */
static enum er_tpmu_status policy(struct er_tpmu *u, struct er_tpm_session *s, bool salted, struct er_tpmu_result *res)
{
	const struct er_tpmu_req *q = u->req;
	uint8_t rnd[64], salt[32], enc[512];
	size_t enc_len = 0;
	struct er_tpm_rsp r;
	uint32_t rc;

	er_memset(s, 0, sizeof(*s));
	if (salted && u->parent_pub.type == TPM2_ALG_ECC) {
		for (int k = 0;; k++) {
			if (!u->io->random(u->io->ctx, rnd, 32) || k == 8) {
				fail(res, ER_TPMU_BAD_ARG, 0, "StartAuthSession", "no random bytes for the session's salt");
				goto out;
			}
			if (er_tpm_salt_ecc(u->parent_pub.ecc_point, rnd, salt, enc))
				break;
		}
		enc_len = 68;
	} else if (salted) {
		if (u->parent_pub.rsa_n_len > sizeof(enc) || !u->io->random(u->io->ctx, rnd, 64) ||
		    !er_tpm_salt_rsa(u->parent_pub.rsa_n, u->parent_pub.rsa_n_len, u->parent_pub.rsa_exp, rnd, salt, enc)) {
			fail(res, ER_TPMU_BAD_ARG, 0, "StartAuthSession", "no salt for the session (random bytes, RSA key)");
			goto out;
		}
		enc_len = u->parent_pub.rsa_n_len;
	}
	if (!u->io->random(u->io->ctx, rnd, 32)) {
		fail(res, ER_TPMU_BAD_ARG, 0, "StartAuthSession", "no random bytes for the session's nonce");
		goto out;
	}
	er_tpm_cmd_start_auth_session(&u->c, s, salted ? u->parent : TPM2_RH_NULL, salted ? enc : NULL, enc_len,
				      TPM2_SE_POLICY, &aes128cfb, rnd);
	rc = xfer(u, NULL, &r);
	if (!rc)
		rc = er_tpm_rsp_start_auth_session(u->rsp, r.size, s,
						   salted ? salt : NULL, salted ? 32 : 0);
	if (rc) {
		s->handle = 0;
		fail(res, rc_status(rc), rc, "StartAuthSession", "no policy session");
		goto out;
	}
	if (q->pcr_mask) {
		struct er_tpm_pcr_selection sel;
		er_tpm_pcr_selection_one(&sel, q->pcr_bank, q->pcr_mask);
		er_tpm_cmd_policy_pcr(&u->c, s->handle, NULL, 0, &sel);
		rc = xfer(u, NULL, &r);
		if (rc) {
			fail(res, rc_status(rc), rc, "PolicyPCR", "the PCR policy cannot be applied");
			goto out;
		}
	}
	if (q->pin) {
		er_tpm_cmd_policy_auth_value(&u->c, s->handle);
		rc = xfer(u, NULL, &r);
		if (rc) {
			fail(res, rc_status(rc), rc, "PolicyAuthValue", "the PIN policy cannot be applied");
			goto out;
		}
	}
	if (q->policy_hash_len) {
		uint8_t d[ER_TPM_MAX_DIGEST];
		size_t dl = 0;
		er_tpm_cmd_policy_get_digest(&u->c, s->handle);
		rc = xfer(u, NULL, &r);
		if (rc || !er_tpm_rsp_policy_get_digest(&r, d, sizeof(d), &dl)) {
			fail(res, rc ? rc_status(rc) : ER_TPMU_IO, rc, "PolicyGetDigest", "the session's policy digest "
			     "cannot be read");
			goto out;
		}
		if (dl != q->policy_hash_len || er_memcmp(d, q->policy_hash, dl) != 0) {
			fail(res, ER_TPMU_POLICY, 0, "PolicyGetDigest", "PCRs changed");
			goto out;
		}
	}
out:
	er_wipe(rnd, sizeof(rnd));
	er_wipe(salt, sizeof(salt));
	er_wipe(enc, sizeof(enc));
	return res->status;
}

static const char *bank_name(uint16_t b)
{
	return b == TPM2_ALG_SHA1 ? "sha1" : b == TPM2_ALG_SHA256 ? "sha256" : b == 0x000C ? "sha384" :
	       b == 0x000D ? "sha512" : "?";
}

/* the policy message with the PCRs named */
static void policy_msg(const struct er_tpmu_req *q, struct er_tpmu_result *res, const char *how)
{
	char pcrs[80];
	size_t n = 0;
	pcrs[0] = 0;
	for (unsigned i = 0; i < 24; i++)
		if (q->pcr_mask & (1u << i))
			n += er_snprintf(pcrs + n, sizeof(pcrs) - n, "%s%u", n ? "+" : "", i);
	res->status = ER_TPMU_POLICY;
	er_snprintf(res->msg, sizeof(res->msg), "PCRs changed: PCR %s (%s) differ from when the key was sealed (%s)",
		    n ? pcrs : "(none)", bank_name(q->pcr_bank), how);
}

enum er_tpmu_status er_tpmu_open(struct er_tpmu *u, const struct er_tpm_io *io, const struct er_tpmu_req *req,
				 struct er_tpmu_result *res)
{
	er_memset(u, 0, sizeof(*u));
	er_memset(res, 0, sizeof(*res));
	res->step = "";
	u->io = io;
	u->req = req;
	if (!io || !io->submit || !io->random || !req->priv || !req->pub ||
	    req->policy_hash_len > ER_TPM_MAX_DIGEST || (req->srk_handle >> 24) != (req->srk_handle ? TPM2_HT_PERSISTENT : 0)) {
		fail(res, ER_TPMU_BAD_ARG, 0, "", "a request efiresume cannot send");
		return res->status;
	}
	if (parent(u, res) || load(u, res))
		goto fail;
	if (req->pin && req->policy_hash_len) {
		/* the PCRs checked before the PIN is asked: an unsalted session (no secret in it) */
		struct er_tpm_session s;
		enum er_tpmu_status st = policy(u, &s, false, res);
		if (s.handle)
			flush(u, s.handle);
		er_tpm_session_wipe(&s);
		if (st == ER_TPMU_POLICY)
			policy_msg(req, res, "policy digest differs");
		if (st)
			goto fail;
	}
	return ER_TPMU_OK;
fail:
	{
		struct er_tpmu_result keep = *res;
		er_tpmu_close(u);
		*res = keep;
	}
	return res->status;
}

enum er_tpmu_status er_tpmu_try(struct er_tpmu *u, const uint8_t *auth, size_t auth_len, uint8_t *secret,
				size_t cap, size_t *secret_len, struct er_tpmu_result *res)
{
	const struct er_tpmu_req *q = u->req;
	struct er_tpm_session s;
	struct er_tpm_rsp r;
	struct er_tpm_rc_info i;
	uint32_t rc = 0;

	er_memset(res, 0, sizeof(*res));
	res->step = "";
	*secret_len = 0;
	if (!u->item || !q || auth_len > sizeof(s.auth) || (q->pin && !auth_len && auth)) {
		fail(res, ER_TPMU_BAD_ARG, 0, "", "nothing loaded, or an authValue over 32 bytes");
		return res->status;
	}
	for (unsigned t = 1;; t++) {
		enum er_tpmu_status st = policy(u, &s, true, res);
		if (st) {
			if (st == ER_TPMU_POLICY)
				policy_msg(q, res, "policy digest differs");
			break;
		}
		if (q->pin) {
			er_memcpy(s.auth, auth, auth_len);
			s.auth_len = (uint8_t)auth_len;
			s.auth_in_key = true;
		}
		struct er_tpm_session *ss[1] = { &s };
		er_tpm_cmd_unseal(&u->c, u->item, u->item_name.b, u->item_name.n);
		er_tpm_cmd_use_session(&u->c, &s, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION);
		rc = xfer(u, ss, &r);
		er_tpm_rc_decode(rc, &i);
		if (i.kind == ER_TPM_RC_PCR_CHANGED && t < ER_TPMU_PCR_TRIES) {
			flush(u, s.handle);
			er_tpm_session_wipe(&s);
			continue;
		}
		if (rc) {
			switch (i.kind) {
			case ER_TPM_RC_AUTH_FAIL:
			case ER_TPM_RC_BAD_AUTH:
				fail(res, ER_TPMU_AUTH_FAIL, rc, "Unseal", q->pin ? "wrong PIN" :
				     "the TPM refused the authorization");
				break;
			case ER_TPM_RC_LOCKOUT:
				fail(res, ER_TPMU_LOCKOUT, rc, "Unseal", "lockout");
				break;
			case ER_TPM_RC_POLICY_FAIL:
			case ER_TPM_RC_PCR_CHANGED:
				policy_msg(q, res, "the TPM refused the policy");
				res->rc = rc;
				res->step = "Unseal";
				break;
			default:
				fail(res, rc_status(rc), rc, "Unseal", "the TPM did not unseal");
			}
		} else if (!er_tpm_rsp_unseal(&r, secret, cap, secret_len) || *secret_len == 0) {
			*secret_len = 0;
			fail(res, ER_TPMU_IO, 0, "Unseal", "the unsealed secret is empty or larger than %u bytes",
			     (unsigned)cap);
		}
		break;
	}
	if (s.handle)
		flush(u, s.handle);
	er_tpm_session_wipe(&s);
	er_wipe(u->rsp, sizeof(u->rsp));
	er_wipe(&u->c, sizeof(u->c));
	if (res->status)
		er_wipe(secret, cap);
	return res->status;
}

void er_tpmu_close(struct er_tpmu *u)
{
	if (u->io) {
		if (u->item)
			flush(u, u->item);
		if (u->parent_transient && u->parent)
			flush(u, u->parent);
	}
	er_wipe(u, sizeof(*u));
}

enum er_tpmu_status er_tpmu_unseal(struct er_tpmu *u, const struct er_tpm_io *io, const struct er_tpmu_req *req,
				   const uint8_t *auth, size_t auth_len, uint8_t *secret, size_t cap,
				   size_t *secret_len, struct er_tpmu_result *res)
{
	*secret_len = 0;
	if (er_tpmu_open(u, io, req, res)) {
		er_wipe(secret, cap);
		return res->status;
	}
	er_tpmu_try(u, auth, auth_len, secret, cap, secret_len, res);
	{
		struct er_tpmu_result keep = *res;
		er_tpmu_close(u);
		*res = keep;
	}
	return res->status;
}
