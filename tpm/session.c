// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 session crypto: see session.h. */
#include "tpm/session.h"
#include "crypto/sha.h"
#include "crypto/cfb.h"
#include "crypto/p256.h"
#include "crypto/rsa.h"
#include "crypto/wipe.h"
#include "image/freestanding.h"

static void be32(uint8_t b[4], uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

void er_tpm_kdfa(const uint8_t *key, size_t key_len, const char *label,
		 const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		 uint8_t *out, size_t bits)
{
	uint8_t ctr[4], nb[4], blk[ER_TPM_SHA256_LEN];
	size_t n = bits / 8, off = 0;
	struct er_hmac_ctx h;

	be32(nb, (uint32_t)bits);
	for (uint32_t i = 1; off < n; i++) {
		size_t take = n - off < sizeof(blk) ? n - off : sizeof(blk);
		be32(ctr, i);
		er_hmac_init(&h, ER_HASH_SHA256, key, key_len);
		er_hmac_update(&h, ctr, 4);
		er_hmac_update(&h, label, er_strnlen(label, 64) + 1);
		er_hmac_update(&h, u, u_len);
		er_hmac_update(&h, v, v_len);
		er_hmac_update(&h, nb, 4);
		er_hmac_final(&h, blk);
		er_memcpy(out + off, blk, take);
		off += take;
	}
	er_wipe(blk, sizeof(blk));
}

void er_tpm_kdfe(const uint8_t *z, size_t z_len, const char *label,
		 const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		 uint8_t *out, size_t bits)
{
	uint8_t ctr[4], blk[ER_TPM_SHA256_LEN];
	size_t n = bits / 8, off = 0;
	struct er_hash_ctx h;

	for (uint32_t i = 1; off < n; i++) {
		size_t take = n - off < sizeof(blk) ? n - off : sizeof(blk);
		be32(ctr, i);
		er_hash_init(&h, ER_HASH_SHA256);
		er_hash_update(&h, ctr, 4);
		er_hash_update(&h, z, z_len);
		er_hash_update(&h, label, er_strnlen(label, 64) + 1);
		er_hash_update(&h, u, u_len);
		er_hash_update(&h, v, v_len);
		er_hash_final(&h, blk);
		er_memcpy(out + off, blk, take);
		off += take;
	}
	er_wipe(blk, sizeof(blk));
}

bool er_tpm_salt_ecc(const uint8_t tpm_pub[64], const uint8_t eph_priv[32],
		     uint8_t salt[32], uint8_t enc_salt[68])
{
	uint8_t eph_pub[64], z[32];

	if (!er_p256_public(eph_priv, eph_pub))
		return false;
	if (!er_p256_ecdh(eph_priv, tpm_pub, z)) {
		er_wipe(eph_pub, sizeof(eph_pub));
		return false;
	}
	/* Part 1, C.6.1: salt = KDFe(nameAlg, Z.x, "SECRET", QeU.x, QsV.x, digest bits) */
	er_tpm_kdfe(z, 32, "SECRET", eph_pub, 32, tpm_pub, 32, salt, 256);
	enc_salt[0] = 0;
	enc_salt[1] = 32;
	er_memcpy(enc_salt + 2, eph_pub, 32);
	enc_salt[34] = 0;
	enc_salt[35] = 32;
	er_memcpy(enc_salt + 36, eph_pub + 32, 32);
	er_wipe(z, sizeof(z));
	return true;
}

bool er_tpm_salt_rsa(const uint8_t *n, size_t nlen, uint32_t e, const uint8_t rnd[64],
		     uint8_t salt[32], uint8_t *enc_salt)
{
	static const uint8_t label[] = "SECRET";        /* with its zero: 7 bytes */

	er_memcpy(salt, rnd, 32);
	if (!er_rsa_oaep_sha256_encrypt(n, nlen, e, label, sizeof(label), salt, 32, rnd + 32, enc_salt)) {
		er_wipe(salt, 32);
		return false;
	}
	return true;
}

void er_tpm_cmd_start_auth_session(struct er_tpm_cmd *c, struct er_tpm_session *s,
				   uint32_t tpm_key, const uint8_t *enc_salt, size_t enc_salt_len,
				   uint8_t type, const struct er_tpm_sym *sym,
				   const uint8_t nonce_caller[32])
{
	er_memset(s, 0, sizeof(*s));
	s->type = type;
	s->sym = *sym;
	s->nonce_len = ER_TPM_SHA256_LEN;
	er_memcpy(s->nonce_caller, nonce_caller, ER_TPM_SHA256_LEN);
	er_tpm_cmd_init(c, TPM2_CC_StartAuthSession, 1);
	er_tpm_cmd_handle(c, tpm_key, NULL, 0, false);
	er_tpm_cmd_handle(c, TPM2_RH_NULL, NULL, 0, false);     /* bind */
	er_tpm_put_tpm2b(&c->pw, nonce_caller, ER_TPM_SHA256_LEN);
	er_tpm_put_tpm2b(&c->pw, enc_salt, enc_salt ? enc_salt_len : 0);
	er_tpm_put_u8(&c->pw, type);
	er_tpm_put_sym(&c->pw, sym);
	er_tpm_put_u16(&c->pw, TPM2_ALG_SHA256);
}

uint32_t er_tpm_rsp_start_auth_session(const uint8_t *buf, size_t len, struct er_tpm_session *s,
				       const uint8_t *salt, size_t salt_len)
{
	struct er_tpm_rsp rsp;
	struct er_tpm_rd r;
	const uint8_t *nonce;
	size_t nlen;
	uint32_t rc = er_tpm_rsp_read(buf, len, 1, 0, &rsp);

	if (rc)
		return rc;
	er_tpm_rd_init(&r, rsp.params, rsp.params_len);
	if (!er_tpm_get_tpm2b(&r, &nonce, &nlen, ER_TPM_SHA256_LEN) || nlen != ER_TPM_SHA256_LEN ||
	    r.off != r.len)
		return ER_TPM_E_MALFORMED;
	s->handle = rsp.handle;
	er_memcpy(s->nonce_tpm, nonce, nlen);
	s->key_len = 0;
	if (salt && salt_len) {
		/* sessionKey = KDFa(authHash, bind.authValue || salt, "ATH", nonceTPM, nonceCaller) */
		er_tpm_kdfa(salt, salt_len, "ATH", s->nonce_tpm, nlen, s->nonce_caller, nlen, s->key, 256);
		s->key_len = ER_TPM_SHA256_LEN;
	}
	return TPM2_RC_SUCCESS;
}

void er_tpm_cmd_use_session(struct er_tpm_cmd *c, const struct er_tpm_session *s, uint8_t attrs)
{
	struct er_tpm_auth_cmd *a;

	if (c->nsessions >= ER_TPM_MAX_SESSIONS) {
		c->pw.err = true;
		return;
	}
	a = &c->auth[c->nsessions++];
	er_memset(a, 0, sizeof(*a));
	a->handle = s->handle;
	a->attrs = attrs;
}

/* sessionKey || authValue (HMAC sessions always, policy sessions when asked) */
static size_t hmac_key(const struct er_tpm_session *s, uint8_t *k)
{
	size_t n = s->key_len;
	er_memcpy(k, s->key, n);
	if (s->type == TPM2_SE_HMAC || s->auth_in_key) {
		er_memcpy(k + n, s->auth, s->auth_len);
		n += s->auth_len;
	}
	return n;
}

/* the AES key || IV for a parameter: KDFa(hmac key, "CFB", newer, older, bits + 128) */
static bool param_crypt(const struct er_tpm_session *s, const uint8_t *newer, const uint8_t *older,
			uint8_t *p, size_t len, bool decrypt)
{
	uint8_t k[2 * ER_TPM_SHA256_LEN], kiv[32 + 16];
	size_t kl = hmac_key(s, k), bits = s->sym.bits;
	bool ok;

	if (s->sym.alg != TPM2_ALG_AES || s->sym.mode != TPM2_ALG_CFB || (bits != 128 && bits != 256))
		return false;
	er_tpm_kdfa(k, kl, "CFB", newer, s->nonce_len, older, s->nonce_len, kiv, bits + 128);
	ok = decrypt ? er_aes_cfb_decrypt(kiv, bits / 8, kiv + bits / 8, p, len)
		     : er_aes_cfb_encrypt(kiv, bits / 8, kiv + bits / 8, p, len);
	er_wipe(k, sizeof(k));
	er_wipe(kiv, sizeof(kiv));
	return ok;
}

bool er_tpm_cmd_seal_sessions(struct er_tpm_cmd *c, struct er_tpm_session *const *sess,
			      const uint8_t *rnd, size_t rnd_len)
{
	uint8_t cphash[ER_TPM_SHA256_LEN], cc[4];
	struct er_hash_ctx h;
	int dec = -1, enc = -1;

	if (c->pw.err || rnd_len < (size_t)c->nsessions * ER_TPM_SHA256_LEN)
		return false;
	/* new nonceCaller for every session first: the parameter key uses it */
	for (unsigned i = 0; i < c->nsessions; i++) {
		if (!sess[i])
			continue;
		er_memcpy(sess[i]->nonce_caller, rnd + i * ER_TPM_SHA256_LEN, ER_TPM_SHA256_LEN);
		if (c->auth[i].attrs & TPMA_SESSION_DECRYPT) {
			if (dec >= 0)
				return false;
			dec = (int)i;
		}
		if (c->auth[i].attrs & TPMA_SESSION_ENCRYPT) {
			if (enc >= 0)
				return false;
			enc = (int)i;
		}
	}
	if (dec >= 0) {
		size_t n;
		if (c->pw.len < 2)
			return false;
		n = ((size_t)c->params[0] << 8) | c->params[1];
		if (n > c->pw.len - 2)
			return false;
		/* command: newer = nonceCaller, older = nonceTPM */
		if (!param_crypt(sess[dec], sess[dec]->nonce_caller, sess[dec]->nonce_tpm, c->params + 2, n, false))
			return false;
	}
	/* cpHash = H(commandCode || Name1.. || parameters) */
	be32(cc, c->cc);
	er_hash_init(&h, ER_HASH_SHA256);
	er_hash_update(&h, cc, 4);
	for (unsigned i = 0; i < c->nhandles; i++)
		er_hash_update(&h, c->names[i].b, c->names[i].n);
	er_hash_update(&h, c->params, c->pw.len);
	er_hash_final(&h, cphash);

	for (unsigned i = 0; i < c->nsessions; i++) {
		struct er_tpm_auth_cmd *a = &c->auth[i];
		struct er_tpm_session *s = sess[i];
		struct er_hmac_ctx m;
		uint8_t k[2 * ER_TPM_SHA256_LEN];
		size_t kl;

		if (!s)
			continue;
		er_memcpy(a->nonce, s->nonce_caller, s->nonce_len);
		a->nonce_len = s->nonce_len;
		kl = hmac_key(s, k);
		/* HMAC(key, cpHash || nonceCaller || nonceTPM || nonceDecrypt || nonceEncrypt || attrs);
		 * the decrypt/encrypt nonces only in the first session's, when another session
		 * encrypts (Part 1, 19.6.5) */
		er_hmac_init(&m, ER_HASH_SHA256, k, kl);
		er_hmac_update(&m, cphash, sizeof(cphash));
		er_hmac_update(&m, s->nonce_caller, s->nonce_len);
		er_hmac_update(&m, s->nonce_tpm, s->nonce_len);
		if (i == 0 && dec > 0)
			er_hmac_update(&m, sess[dec]->nonce_tpm, sess[dec]->nonce_len);
		if (i == 0 && enc > 0 && enc != dec)
			er_hmac_update(&m, sess[enc]->nonce_tpm, sess[enc]->nonce_len);
		er_hmac_update(&m, &a->attrs, 1);
		er_hmac_final(&m, a->hmac);
		a->hmac_len = ER_TPM_SHA256_LEN;
		er_wipe(k, sizeof(k));
	}
	return true;
}

uint32_t er_tpm_rsp_sessions(const struct er_tpm_cmd *c, struct er_tpm_session *const *sess,
			     uint8_t *buf, size_t len, struct er_tpm_rsp *rsp)
{
	uint8_t rphash[ER_TPM_SHA256_LEN], b4[4], mac[ER_TPM_SHA256_LEN];
	struct er_hash_ctx h;
	uint32_t rc = er_tpm_rsp_read(buf, len, c->rsp_handles, c->nsessions, rsp);
	bool ok = true;
	int enc = -1;

	if (rc)
		return rc;
	/* rpHash = H(responseCode || commandCode || parameters), over the parameters as sent */
	er_hash_init(&h, ER_HASH_SHA256);
	be32(b4, 0);
	er_hash_update(&h, b4, 4);
	be32(b4, c->cc);
	er_hash_update(&h, b4, 4);
	er_hash_update(&h, rsp->params, rsp->params_len);
	er_hash_final(&h, rphash);

	for (unsigned i = 0; i < c->nsessions; i++) {
		const struct er_tpm_auth_rsp *a = &rsp->auth[i];
		struct er_tpm_session *s = sess[i];
		struct er_hmac_ctx m;
		uint8_t k[2 * ER_TPM_SHA256_LEN];
		size_t kl;

		if (!s) {
			/* a password session answers with an empty nonce and HMAC */
			if (a->nonce_len || a->hmac_len)
				ok = false;
			continue;
		}
		if (a->nonce_len != s->nonce_len || a->attrs != (c->auth[i].attrs & ~TPMA_SESSION_AUDITRESET)) {
			ok = false;
			continue;
		}
		er_memcpy(s->nonce_tpm, a->nonce, a->nonce_len);        /* nonce rolled */
		kl = hmac_key(s, k);
		er_hmac_init(&m, ER_HASH_SHA256, k, kl);
		er_hmac_update(&m, rphash, sizeof(rphash));
		er_hmac_update(&m, s->nonce_tpm, s->nonce_len);
		er_hmac_update(&m, s->nonce_caller, s->nonce_len);
		er_hmac_update(&m, &a->attrs, 1);
		er_hmac_final(&m, mac);
		er_wipe(k, sizeof(k));
		/* a policy session without an auth value or a key has nothing to prove: the TPM
		 * may answer with an empty HMAC; any key means the HMAC must be there and match */
		if (a->hmac_len == 0 && kl == 0 && s->type != TPM2_SE_HMAC)
			;
		else if (a->hmac_len != sizeof(mac) || !er_ct_equal(mac, a->hmac, sizeof(mac)))
			ok = false;
		if (a->attrs & TPMA_SESSION_ENCRYPT)
			enc = (int)i;
	}
	if (!ok) {
		er_memset(rsp, 0, sizeof(*rsp));
		return ER_TPM_E_RSP_HMAC;
	}
	if (enc >= 0) {
		struct er_tpm_session *s = sess[enc];
		uint8_t *p = buf + (rsp->params - buf);     /* the caller's buffer, writable */
		size_t n;
		if (rsp->params_len < 2)
			return ER_TPM_E_MALFORMED;
		n = ((size_t)p[0] << 8) | p[1];
		if (n > rsp->params_len - 2)
			return ER_TPM_E_MALFORMED;
		/* response: newer = nonceTPM, older = nonceCaller */
		if (!param_crypt(s, s->nonce_tpm, s->nonce_caller, p + 2, n, true))
			return ER_TPM_E_CRYPTO;
	}
	return TPM2_RC_SUCCESS;
}

void er_tpm_session_wipe(struct er_tpm_session *s)
{
	er_wipe(s, sizeof(*s));
}
