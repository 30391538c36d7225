// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
/* tpm/ against a real TPM: swtpm in socket mode, driven with our own marshalled commands over
 * its TCP command protocol (TPM_SEND_COMMAND = 8, locality, length, bytes; answer: length,
 * bytes, a zero word). tests/host/test-tpm-swtpm.sh starts swtpm, provisions with tpm2-tools
 * a persistent ECC SRK at 0x81000001 and a sealed object under a PCR 7 policy, and runs this
 * with ER_SWTPM_PORT, ER_SWTPM_DIR (seal.pub, seal.priv, secret, pcr7). Without ER_SWTPM_PORT
 * every test is skipped (make unit has no TPM).
 *
 * Checked: GetCapability lists the SRK; PCR_Read gives tpm2_pcrread's PCR 7; ReadPublic's
 * Name matches the public area; CreatePrimary with our SRK template derives the same key;
 * an unsalted policy session + PolicyPCR + Load + Unseal gives the secret; a salted
 * (ECDH P-256 on the SRK) policy session with response encryption gives the secret and the
 * secret never appears in the raw response; a salted HMAC session authorizes Load (the TPM
 * checks our command HMAC); controls: a wrong salt makes the TPM refuse the HMAC session
 * (TPM_RC_BAD_AUTH) and our response check refuse the policy session's answer; a flipped
 * response byte is refused by our HMAC check; after PCR 7 is extended Unseal is refused with
 * TPM_RC_POLICY_FAIL decoded for session 1. The PIN (seal.pub's twin pin.pub: PolicyPCR +
 * PolicyAuthValue, authValue "1234", dictionary-attack protected, 3 tries): the right PIN
 * unseals, a wrong one is TPM_RC_AUTH_FAIL, repeated ones end in TPM_RC_LOCKOUT, after which
 * the right PIN is refused with TPM_RC_LOCKOUT too (the PIN dialogue tells these apart).
 * An RSA SRK from CreatePrimary with systemd's RSA template salts a session by RSA-OAEP
 * (the TPM accepts our HMAC; with our salt wrong it answers TPM_RC_BAD_AUTH). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "tpm/marshal.h"
#include "tpm/session.h"
#include "tpm/commands.h"
#include "crypto/p256.h"
#include "image/freestanding.h"

#include "unhex.h"
#include "tests/host/swtpm_wire.h"

static int port;
static const char *dir;
static uint8_t seal_pub[1024], seal_priv[1024], secret[128], pin_pub[1024], pin_priv[1024];
static size_t seal_pub_len, seal_priv_len, secret_len, pin_pub_len, pin_priv_len;

static const struct er_tpm_sym aes128cfb = { TPM2_ALG_AES, 128, TPM2_ALG_CFB };

static void rnd(uint8_t *p, size_t n)
{
	assert_int_equal(getrandom(p, n, 0), (ssize_t)n);
}

static size_t transact(const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap)
{
	size_t n = 0;
	uint32_t ack = 1;

	assert_true(swtpm_transact(port, cmd, len, rsp, cap, &n, &ack));
	assert_int_equal(ack, 0);
	return n;
}

static uint8_t rbuf[4096], rraw[4096];   /* the response, and as it came off the wire */
static size_t rlen;

/* a command without sessions or with a password session: returns the rc */
static uint32_t run_plain(struct er_tpm_cmd *c, struct er_tpm_rsp *r)
{
	uint8_t cmd[2048];
	size_t n = er_tpm_cmd_write(c, cmd, sizeof(cmd));
	uint32_t rc;

	assert_true(n > 0);
	rlen = transact(cmd, n, rbuf, sizeof(rbuf));
	rc = er_tpm_rsp_read(rbuf, rlen, c->rsp_handles, c->nsessions, r);
	if (rc) {
		char m[160];
		er_tpm_rc_format(rc, m, sizeof(m));
		printf("# %s\n", m);
	}
	return rc;
}

/* a command with sessions (sess[i] NULL for a password one); tamper: flip that response
 * byte (counted from the end) before checking it */
static uint32_t run_sess(struct er_tpm_cmd *c, struct er_tpm_session *const *sess, struct er_tpm_rsp *r,
			 size_t tamper)
{
	uint8_t cmd[2048], nonces[ER_TPM_MAX_SESSIONS * 32];
	size_t n;
	uint32_t rc;

	rnd(nonces, sizeof(nonces));
	assert_true(er_tpm_cmd_seal_sessions(c, sess, nonces, sizeof(nonces)));
	n = er_tpm_cmd_write(c, cmd, sizeof(cmd));
	assert_true(n > 0);
	rlen = transact(cmd, n, rbuf, sizeof(rbuf));
	if (tamper && rlen > tamper)
		rbuf[rlen - tamper] ^= 0x01;
	memcpy(rraw, rbuf, rlen);
	rc = er_tpm_rsp_sessions(c, sess, rbuf, rlen, r);
	if (rc) {
		char m[160];
		er_tpm_rc_format(rc, m, sizeof(m));
		printf("# %s\n", m);
	}
	return rc;
}

static void flush(uint32_t h)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	er_tpm_cmd_flush_context(&c, h);
	assert_int_equal(run_plain(&c, &r), 0);
}

static size_t read_file(const char *name, uint8_t *buf, size_t cap)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	assert_true(n < cap);
	fclose(f);
	return n;
}

static int setup(void **state)
{
	const char *p = getenv("ER_SWTPM_PORT");
	(void)state;
	if (!p)
		return 0;
	port = atoi(p);
	dir = getenv("ER_SWTPM_DIR");
	if (!dir)
		return -1;
	seal_pub_len = read_file("seal.pub", seal_pub, sizeof(seal_pub));
	seal_priv_len = read_file("seal.priv", seal_priv, sizeof(seal_priv));
	secret_len = read_file("secret", secret, sizeof(secret));
	pin_pub_len = read_file("pin.pub", pin_pub, sizeof(pin_pub));
	pin_priv_len = read_file("pin.priv", pin_priv, sizeof(pin_priv));
	return 0;
}

#define NEED_TPM() do { if (!port) { skip(); } } while (0)

static void test_get_capability(void **state)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	uint32_t h[64], n;
	bool more, found = false;
	(void)state;
	NEED_TPM();
	er_tpm_cmd_get_capability(&c, TPM2_CAP_HANDLES, 0x81000000, 64);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_get_handles(&r, h, 64, &n, &more));
	for (uint32_t i = 0; i < n; i++)
		found |= h[i] == TPM2_SRK_HANDLE;
	assert_true(found);
	/* the same response cut short by a byte: refused, nothing read past the buffer */
	assert_int_equal(er_tpm_rsp_read(rbuf, rlen - 1, 0, 0, &r), ER_TPM_E_MALFORMED);
}

static void test_pcr_read(void **state)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	struct er_tpm_pcr_selection sel;
	struct er_tpm_pcr_values v;
	uint8_t want[32], raw[128];
	size_t n;
	(void)state;
	NEED_TPM();
	n = read_file("pcr7", raw, sizeof(raw));
	raw[n] = 0;
	if (n && raw[n - 1] == '\n')
		raw[n - 1] = 0;
	assert_int_equal(unhex((char *)raw, want, 32), 32);
	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, 1u << 7);
	er_tpm_cmd_pcr_read(&c, &sel);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_pcr_read(&r, &v));
	assert_int_equal(v.count, 1);
	assert_int_equal(v.len[0], 32);
	assert_memory_equal(v.d[0], want, 32);
	assert_int_equal(v.sel.s[0].sel[0], 0x80);
}

static void read_srk(struct er_tpm_public *pub)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	er_tpm_cmd_read_public(&c, TPM2_SRK_HANDLE);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_read_public(&r, pub));
}

static void test_read_public_and_create_primary(void **state)
{
	struct er_tpm_public srk, prim;
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	(void)state;
	NEED_TPM();
	read_srk(&srk);
	assert_int_equal(srk.type, TPM2_ALG_ECC);
	assert_int_equal(srk.curve, TPM2_ECC_NIST_P256);
	assert_true(er_p256_on_curve(srk.ecc_point));
	/* our template in the owner hierarchy derives the very same key */
	er_tpm_cmd_create_primary_srk(&c, TPM2_RH_OWNER, TPM2_ALG_ECC);
	er_tpm_cmd_password(&c, NULL, 0);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_create_primary(&r, &prim));
	assert_int_equal((r.handle >> 24), TPM2_HT_TRANSIENT);
	flush(r.handle);
	assert_int_equal(prim.area_len, srk.area_len);
	assert_memory_equal(prim.area, srk.area, srk.area_len);
	assert_memory_equal(prim.name.b, srk.name.b, 34);
}

/* StartAuthSession: salted on the SRK when srk is given (salt_fault: flip a salt bit on
 * our side only) */
static void start_session(struct er_tpm_session *s, uint8_t type, const struct er_tpm_public *srk,
			  bool salt_fault)
{
	struct er_tpm_cmd c;
	uint8_t nonce[32], eph[32], salt[32], enc[68], cmd[512];
	size_t n;

	rnd(nonce, 32);
	if (srk) {
		do
			rnd(eph, 32);
		while (!er_tpm_salt_ecc(srk->ecc_point, eph, salt, enc));
		er_tpm_cmd_start_auth_session(&c, s, TPM2_SRK_HANDLE, enc, sizeof(enc), type, &aes128cfb, nonce);
		/* the tpmKey's Name is not part of StartAuthSession's cpHash (no session) */
	} else {
		er_tpm_cmd_start_auth_session(&c, s, TPM2_RH_NULL, NULL, 0, type, &aes128cfb, nonce);
	}
	n = er_tpm_cmd_write(&c, cmd, sizeof(cmd));
	assert_true(n > 0);
	rlen = transact(cmd, n, rbuf, sizeof(rbuf));
	if (salt_fault)
		salt[5] ^= 0x10;
	assert_int_equal(er_tpm_rsp_start_auth_session(rbuf, rlen, s, srk ? salt : NULL, srk ? 32 : 0), 0);
	assert_int_equal(s->handle >> 24, type == TPM2_SE_HMAC ? 0x02 : 0x03);
}

static uint32_t load_blob(const uint8_t *bpriv, size_t bpriv_len, const uint8_t *bpub, size_t bpub_len,
			  struct er_tpm_session *hmac, struct er_tpm_name *name, uint32_t *h)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	struct er_tpm_public srk;
	struct er_tpm_rd rp, rq;
	const uint8_t *priv, *pub;
	size_t pl, ql;
	uint32_t rc;

	er_tpm_rd_init(&rp, bpriv, bpriv_len);
	er_tpm_rd_init(&rq, bpub, bpub_len);
	assert_true(er_tpm_get_tpm2b(&rp, &priv, &pl, bpriv_len));
	assert_true(er_tpm_get_tpm2b(&rq, &pub, &ql, bpub_len));
	read_srk(&srk);
	er_tpm_cmd_load(&c, TPM2_SRK_HANDLE, srk.name.b, srk.name.n, priv, pl, pub, ql);
	if (hmac) {
		struct er_tpm_session *ss[1] = { hmac };
		er_tpm_cmd_use_session(&c, hmac, TPMA_SESSION_CONTINUESESSION);
		rc = run_sess(&c, ss, &r, 0);
	} else {
		er_tpm_cmd_password(&c, NULL, 0);
		rc = run_plain(&c, &r);
	}
	if (rc)
		return rc;
	assert_true(er_tpm_rsp_load(&r, name));
	*h = r.handle;
	return 0;
}

static uint32_t load_sealed(struct er_tpm_session *hmac, struct er_tpm_name *name, uint32_t *h)
{
	return load_blob(seal_priv, seal_priv_len, seal_pub, seal_pub_len, hmac, name, h);
}

/* PolicyPCR(sha256:7) on s, then Unseal with s (attrs) */
static uint32_t policy_unseal(struct er_tpm_session *s, uint32_t item, const struct er_tpm_name *name,
			      uint8_t attrs, uint8_t *out, size_t *out_len, size_t tamper, bool *secret_in_clear)
{
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	struct er_tpm_pcr_selection sel;
	struct er_tpm_session *ss[1] = { s };
	uint32_t rc;

	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, 1u << 7);
	er_tpm_cmd_policy_pcr(&c, s->handle, NULL, 0, &sel);
	assert_int_equal(run_plain(&c, &r), 0);
	if (s->auth_in_key) {
		er_tpm_cmd_policy_auth_value(&c, s->handle);
		assert_int_equal(run_plain(&c, &r), 0);
	}
	/* TPM_RC_RETRY / YIELDED / TESTING: the TPM did nothing, send again (as a TSS does;
	 * swtpm answers RETRY to the first DA-protected command after its DA parameters
	 * changed). The command is rebuilt: a new nonce, a new HMAC. */
	for (int tries = 0;; tries++) {
		struct er_tpm_rc_info i;
		er_tpm_cmd_unseal(&c, item, name->b, name->n);
		er_tpm_cmd_use_session(&c, s, attrs);
		rc = run_sess(&c, ss, &r, tamper);
		er_tpm_rc_decode(rc, &i);
		if (i.kind != ER_TPM_RC_RETRY || tries == 5)
			break;
	}
	if (secret_in_clear)
		*secret_in_clear = memmem(rraw, rlen, secret, secret_len) != NULL;
	if (rc)
		return rc;
	assert_true(er_tpm_rsp_unseal(&r, out, 128, out_len));
	return 0;
}

static void test_unsalted_policy_unseal(void **state)
{
	struct er_tpm_session s;
	struct er_tpm_name name;
	uint32_t item;
	uint8_t out[128];
	size_t n;
	bool clear;
	(void)state;
	NEED_TPM();
	assert_int_equal(load_sealed(NULL, &name, &item), 0);
	start_session(&s, TPM2_SE_POLICY, NULL, false);
	assert_int_equal(policy_unseal(&s, item, &name, 0, out, &n, 0, &clear), 0);
	assert_int_equal(n, secret_len);
	assert_memory_equal(out, secret, n);
	assert_true(clear);                      /* no encryption: the secret crossed in clear */
	flush(item);
}

static void test_salted_encrypted_unseal(void **state)
{
	struct er_tpm_public srk;
	struct er_tpm_session s, h;
	struct er_tpm_name name;
	uint32_t item;
	uint8_t out[128];
	size_t n;
	bool clear = true;
	(void)state;
	NEED_TPM();
	read_srk(&srk);
	/* Load authorized by a salted HMAC session: the TPM checks our command HMAC */
	start_session(&h, TPM2_SE_HMAC, &srk, false);
	assert_int_equal(load_sealed(&h, &name, &item), 0);
	flush(h.handle);
	start_session(&s, TPM2_SE_POLICY, &srk, false);
	assert_int_equal(policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT, out, &n, 0, &clear), 0);
	assert_int_equal(n, secret_len);
	assert_memory_equal(out, secret, n);
	assert_false(clear);                     /* encrypted on the wire */
	flush(item);
	er_tpm_session_wipe(&s);
	er_tpm_session_wipe(&h);
}

static void test_wrong_salt_refused(void **state)
{
	struct er_tpm_public srk;
	struct er_tpm_session s, h;
	struct er_tpm_name name;
	struct er_tpm_rc_info i;
	uint32_t item, rc;
	uint8_t out[128];
	size_t n = 0;
	(void)state;
	NEED_TPM();
	read_srk(&srk);
	/* an HMAC session whose salt we got wrong: the TPM refuses our HMAC */
	start_session(&h, TPM2_SE_HMAC, &srk, true);
	rc = load_sealed(&h, &name, &item);
	er_tpm_rc_decode(rc, &i);
	assert_int_equal(i.kind, ER_TPM_RC_BAD_AUTH);   /* the SRK is noDA */
	assert_int_equal(i.session, 1);
	flush(h.handle);
	/* a policy session with a wrong salt: refused (the TPM checks the command HMAC of a
	 * salted policy session too: TPM_RC_BAD_AUTH; were it not to, our check of its
	 * response HMAC would refuse) */
	assert_int_equal(load_sealed(NULL, &name, &item), 0);
	start_session(&s, TPM2_SE_POLICY, &srk, true);
	rc = policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, out, &n, 0, NULL);
	er_tpm_rc_decode(rc, &i);
	assert_true(i.kind == ER_TPM_RC_BAD_AUTH || i.kind == ER_TPM_RC_HMAC);
	assert_true(n == 0 || memcmp(out, secret, secret_len) != 0);
	flush(s.handle);
	flush(item);
}

static void test_tampered_response_refused(void **state)
{
	struct er_tpm_public srk;
	struct er_tpm_session s;
	struct er_tpm_name name;
	uint32_t item, rc;
	uint8_t out[128];
	size_t n;
	(void)state;
	NEED_TPM();
	read_srk(&srk);
	assert_int_equal(load_sealed(NULL, &name, &item), 0);
	/* flip one byte of the encrypted secret (the response ends with nonce(2+32), attrs (1),
	 * hmac (2+32): 70 bytes from the end is inside the parameters) */
	start_session(&s, TPM2_SE_POLICY, &srk, false);
	rc = policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, out, &n, 70, NULL);
	assert_int_equal(rc, ER_TPM_E_RSP_HMAC);
	flush(s.handle);
	/* and a byte of the HMAC itself */
	start_session(&s, TPM2_SE_POLICY, &srk, false);
	rc = policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, out, &n, 3, NULL);
	assert_int_equal(rc, ER_TPM_E_RSP_HMAC);
	flush(s.handle);
	flush(item);
}

/* the PIN: salted policy session, PolicyPCR + PolicyAuthValue, the PIN in the HMAC key */
static uint32_t pin_unseal(const char *pin, uint8_t *out, size_t *n)
{
	struct er_tpm_public srk;
	struct er_tpm_session s;
	struct er_tpm_name name;
	uint32_t item, rc;
	uint8_t digest[64];
	size_t dl;
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;

	read_srk(&srk);
	assert_int_equal(load_blob(pin_priv, pin_priv_len, pin_pub, pin_pub_len, NULL, &name, &item), 0);
	start_session(&s, TPM2_SE_POLICY, &srk, false);
	s.auth_in_key = true;
	s.auth_len = (uint8_t)strlen(pin);
	memcpy(s.auth, pin, s.auth_len);
	rc = policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, out, n, 0, NULL);
	/* PolicyGetDigest after the failure or success: the session's digest is the sealed one */
	er_tpm_cmd_policy_get_digest(&c, s.handle);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_policy_get_digest(&r, digest, sizeof(digest), &dl));
	assert_int_equal(dl, 32);
	flush(s.handle);
	flush(item);
	er_tpm_session_wipe(&s);
	return rc;
}

static void test_pin_unseal(void **state)
{
	uint8_t out[128];
	size_t n = 0;
	struct er_tpm_rc_info i;
	(void)state;
	NEED_TPM();
	assert_int_equal(pin_unseal("1234", out, &n), 0);
	assert_int_equal(n, secret_len);
	assert_memory_equal(out, secret, n);
	/* a wrong PIN: TPM_RC_AUTH_FAIL (counted by the dictionary-attack logic), session 1 */
	er_tpm_rc_decode(pin_unseal("1235", out, &n), &i);
	assert_int_equal(i.kind, ER_TPM_RC_AUTH_FAIL);
	assert_int_equal(i.session, 1);
}

static void test_pin_lockout(void **state)
{
	uint8_t out[128];
	size_t n = 0;
	struct er_tpm_rc_info i;
	int tries = 0;
	(void)state;
	NEED_TPM();
	/* wrong PINs until the TPM locks out (3 tries set; one was spent above) */
	do {
		er_tpm_rc_decode(pin_unseal("0000", out, &n), &i);
		tries++;
		assert_true(i.kind == ER_TPM_RC_AUTH_FAIL || i.kind == ER_TPM_RC_LOCKOUT);
	} while (i.kind != ER_TPM_RC_LOCKOUT && tries < 5);
	printf("# locked out after %d more wrong PINs\n", tries);
	assert_int_equal(i.kind, ER_TPM_RC_LOCKOUT);
	assert_true(i.warning);
	/* now even the right PIN is refused, with LOCKOUT, not AUTH_FAIL */
	er_tpm_rc_decode(pin_unseal("1234", out, &n), &i);
	assert_int_equal(i.kind, ER_TPM_RC_LOCKOUT);
}

/* An RSA SRK (systemd's RSA template, CreatePrimary, transient): a session salted by
 * RSA-OAEP to it authorizes Load under the ECC SRK (the TPM checks our HMAC, so it decrypted
 * our salt), and with the salt wrong on our side the TPM refuses with TPM_RC_BAD_AUTH */
static void test_rsa_salted_session(void **state)
{
	struct er_tpm_public rsa, ecc;
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	struct er_tpm_name name;
	struct er_tpm_rc_info i;
	uint32_t rsa_h, item;
	(void)state;
	NEED_TPM();
	er_tpm_cmd_create_primary_srk(&c, TPM2_RH_OWNER, TPM2_ALG_RSA);
	er_tpm_cmd_password(&c, NULL, 0);
	assert_int_equal(run_plain(&c, &r), 0);
	assert_true(er_tpm_rsp_create_primary(&r, &rsa));
	rsa_h = r.handle;
	assert_int_equal(rsa.type, TPM2_ALG_RSA);
	assert_int_equal(rsa.rsa_n_len, 256);
	assert_int_equal(rsa.rsa_exp, 65537);
	read_srk(&ecc);
	for (int fault = 0; fault < 2; fault++) {
		struct er_tpm_session h;
		uint8_t nonce[32], rr[64], salt[32], enc[256], cmd[1024];
		size_t n;
		rnd(nonce, 32);
		rnd(rr, 64);
		assert_true(er_tpm_salt_rsa(rsa.rsa_n, rsa.rsa_n_len, rsa.rsa_exp, rr, salt, enc));
		er_tpm_cmd_start_auth_session(&c, &h, rsa_h, enc, sizeof(enc), TPM2_SE_HMAC, &aes128cfb, nonce);
		n = er_tpm_cmd_write(&c, cmd, sizeof(cmd));
		rlen = transact(cmd, n, rbuf, sizeof(rbuf));
		if (fault)
			salt[0] ^= 1;
		assert_int_equal(er_tpm_rsp_start_auth_session(rbuf, rlen, &h, salt, 32), 0);
		er_tpm_rc_decode(load_sealed(&h, &name, &item), &i);
		if (!fault) {
			assert_int_equal(i.kind, ER_TPM_RC_OK);
			flush(item);
		} else {
			assert_int_equal(i.kind, ER_TPM_RC_BAD_AUTH);
		}
		flush(h.handle);
	}
	flush(rsa_h);
}

static void test_pcr_extended_policy_fail(void **state)
{
	struct er_tpm_public srk;
	struct er_tpm_session s;
	struct er_tpm_name name;
	struct er_tpm_cmd c;
	struct er_tpm_rsp r;
	struct er_tpm_rc_info i;
	uint8_t d[32], out[128];
	uint32_t item, rc;
	size_t n;
	char m[160];
	(void)state;
	NEED_TPM();
	/* PCR_Extend(7, sha256: random) */
	er_tpm_cmd_init(&c, TPM2_CC_PCR_Extend, 0);
	er_tpm_cmd_handle(&c, 7, NULL, 0, true);
	er_tpm_cmd_password(&c, NULL, 0);
	rnd(d, 32);
	er_tpm_put_u32(&c.pw, 1);
	er_tpm_put_u16(&c.pw, TPM2_ALG_SHA256);
	er_tpm_put_bytes(&c.pw, d, 32);
	assert_int_equal(run_plain(&c, &r), 0);

	read_srk(&srk);
	assert_int_equal(load_sealed(NULL, &name, &item), 0);
	start_session(&s, TPM2_SE_POLICY, &srk, false);
	rc = policy_unseal(&s, item, &name, TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, out, &n, 0, NULL);
	er_tpm_rc_decode(rc, &i);
	er_tpm_rc_format(rc, m, sizeof(m));
	printf("# after PCR 7 extended: %s\n", m);
	assert_int_equal(i.kind, ER_TPM_RC_POLICY_FAIL);
	assert_true(i.fmt1);
	assert_int_equal(i.session, 1);
	assert_non_null(strstr(m, "TPM_RC_POLICY_FAIL"));
	flush(s.handle);
	flush(item);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_capability),
		cmocka_unit_test(test_pcr_read),
		cmocka_unit_test(test_read_public_and_create_primary),
		cmocka_unit_test(test_unsalted_policy_unseal),
		cmocka_unit_test(test_salted_encrypted_unseal),
		cmocka_unit_test(test_wrong_salt_refused),
		cmocka_unit_test(test_tampered_response_refused),
		cmocka_unit_test(test_rsa_salted_session),
		cmocka_unit_test(test_pin_unseal),
		cmocka_unit_test(test_pin_lockout),
		cmocka_unit_test(test_pcr_extended_policy_fail),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
