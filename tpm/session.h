// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 authorization-session crypto (TPM 2.0 Part 1, 11.4.9 KDFa/KDFe, 19.6 HMAC
 * sessions, 21 parameter encryption), SHA-256 sessions only:
 *  - KDFa: SP 800-108 counter-mode KDF with HMAC; KDFe: SP 800-56A one-step KDF (hash);
 *  - the salt of a salted session: ECDH on NIST P-256 with the TPM key's public point
 *    (the SRK), KDFe(Z.x, "SECRET", ephemeral.x, tpmkey.x);
 *  - sessionKey = KDFa(bind.authValue || salt, "ATH", nonceTPM, nonceCaller);
 *  - command HMAC over cpHash (cc, handle Names, parameters) and response HMAC over
 *    rpHash (rc, cc, parameters), nonces rolled on every command/response;
 *  - AES-CFB encryption of the first parameter when it is a TPM2B (the "decrypt"
 *    attribute on a command, "encrypt" on a response).
 * The caller supplies all randomness (nonces, the ephemeral ECDH scalar): this code has
 * none. Secrets (salt, session key, auth values) are wiped with er_tpm_session_wipe. */
#ifndef EFIRESUME_TPM_SESSION_H
#define EFIRESUME_TPM_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "tpm/marshal.h"

#define ER_TPM_SHA256_LEN 32

/* KDFa(SHA-256, key, label, u, v, bits): bits a multiple of 8, out bits/8 bytes; label
 * is a C string (its terminating zero is part of the input, as the spec says). */
void er_tpm_kdfa(const uint8_t *key, size_t key_len, const char *label,
		 const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		 uint8_t *out, size_t bits);
/* KDFe(SHA-256, Z, label, partyU, partyV, bits) */
void er_tpm_kdfe(const uint8_t *z, size_t z_len, const char *label,
		 const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		 uint8_t *out, size_t bits);

/* The salt for a session whose tpmKey is an ECC P-256 key with public point tpm_pub
 * (x || y): eph_priv is 32 random bytes from the caller (refused when not in [1, n-1]:
 * draw again). Writes the 32-byte salt and the encryptedSalt body (TPMS_ECC_POINT:
 * TPM2B x, TPM2B y: 68 bytes) for StartAuthSession. */
bool er_tpm_salt_ecc(const uint8_t tpm_pub[64], const uint8_t eph_priv[32],
		     uint8_t salt[32], uint8_t enc_salt[68]);

/* The same for an RSA tpmKey (modulus n of nlen bytes, exponent e): the salt is 32 random
 * bytes (rnd[0..31]) RSA-OAEP-SHA-256-encrypted with label "SECRET\0" (Part 1, B.10.3),
 * the OAEP seed rnd[32..63]. enc_salt gets nlen bytes. */
bool er_tpm_salt_rsa(const uint8_t *n, size_t nlen, uint32_t e, const uint8_t rnd[64],
		     uint8_t salt[32], uint8_t *enc_salt);

struct er_tpm_session {
	uint32_t handle;
	uint8_t type;                            /* TPM2_SE_HMAC / POLICY / TRIAL */
	struct er_tpm_sym sym;                   /* AES-128/256 CFB or NULL */
	uint8_t key[ER_TPM_SHA256_LEN];          /* sessionKey (empty if unsalted, unbound) */
	uint8_t key_len;
	uint8_t nonce_caller[ER_TPM_SHA256_LEN];
	uint8_t nonce_tpm[ER_TPM_SHA256_LEN];
	uint8_t nonce_len;
	uint8_t attrs;                           /* TPMA_SESSION for the next command */
	/* the authValue of the entity this session authorizes, appended to the HMAC key
	 * (HMAC sessions always; policy sessions after PolicyAuthValue) */
	uint8_t auth[ER_TPM_SHA256_LEN];
	uint8_t auth_len;
	bool auth_in_key;
};

/* StartAuthSession's command: tpm_key TPM2_RH_NULL for an unsalted session (enc_salt
 * NULL), else the SRK's handle with enc_salt from er_tpm_salt_ecc; bind TPM2_RH_NULL.
 * nonce_caller (32 bytes, random) is kept in s. */
void er_tpm_cmd_start_auth_session(struct er_tpm_cmd *c, struct er_tpm_session *s,
				   uint32_t tpm_key, const uint8_t *enc_salt, size_t enc_salt_len,
				   uint8_t type, const struct er_tpm_sym *sym,
				   const uint8_t nonce_caller[32]);
/* Its response: the session handle and nonceTPM; sessionKey from salt (NULL/0 when
 * unsalted). Returns the rc (ER_TPM_E_MALFORMED for a bad nonce size). */
uint32_t er_tpm_rsp_start_auth_session(const uint8_t *buf, size_t len, struct er_tpm_session *s,
				       const uint8_t *salt, size_t salt_len);

/* Adds s as the command's next session (attrs: TPMA_SESSION bits for this command). */
void er_tpm_cmd_use_session(struct er_tpm_cmd *c, const struct er_tpm_session *s, uint8_t attrs);
/* Finishes a command that uses sessions: for each session i, sess[i] is the session of
 * c->auth[i] (NULL for a password session); rnd holds 32 fresh random bytes per
 * session (the new nonceCaller). Encrypts the first parameter for the session that has
 * DECRYPT, computes cpHash and each HMAC. false (ER_TPM_E_* in *err) when the
 * parameters do not allow it (DECRYPT without a TPM2B first parameter). */
bool er_tpm_cmd_seal_sessions(struct er_tpm_cmd *c, struct er_tpm_session *const *sess,
			      const uint8_t *rnd, size_t rnd_len);
/* Reads a response to c (buf is modified in place: the first response parameter is
 * decrypted when a session has ENCRYPT), rolls each session's nonceTPM and checks each
 * response HMAC in constant time. Returns the TPM's rc, ER_TPM_E_MALFORMED or
 * ER_TPM_E_RSP_HMAC (then rsp and the parameters must not be used). */
uint32_t er_tpm_rsp_sessions(const struct er_tpm_cmd *c, struct er_tpm_session *const *sess,
			     uint8_t *buf, size_t len, struct er_tpm_rsp *rsp);

void er_tpm_session_wipe(struct er_tpm_session *s);

#endif
