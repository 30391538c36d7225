// SPDX-License-Identifier: GPL-2.0-or-later
/* Sealing a secret to the TPM (TPM 2.0 Part 3, 12.1 TPM2_Create; Part 2, 12.2 TPMT_PUBLIC of a
 * KEYEDHASH sealed-data object) and the record efiresume keeps of a sealed hibernation key.
 *
 * The sealed object: KEYEDHASH, nameAlg SHA-256, scheme NULL (neither sign nor decrypt),
 * fixedTPM | fixedParent | adminWithPolicy | noDA (userWithAuth CLEAR: only a policy session
 * satisfying authPolicy can Unseal it; sensitiveDataOrigin CLEAR: the data is ours), empty
 * authValue, authPolicy the digest the caller computed (er_tpm_policy_pcr_update). The data
 * travels in TPM2B_SENSITIVE_CREATE, Create's first parameter: a session with the DECRYPT
 * attribute encrypts it (AES-CFB, session.h), so it never crosses the bus in clear.
 *
 * The record (all integers big-endian, as the TPM's own structures):
 *   0   "EFRT"                      magic
 *   4   u16 version                 1
 *   6   u16 bank                    TPM_ALG_SHA256 (the PCR bank and the policy's hash)
 *   8   u32 pcr mask                bit i = PCR i (24 PCRs); efiresume seals to PCR 7 only
 *   12  TPM2B policy digest         32 bytes: the sealed object's authPolicy
 *   46  u8[8] key id                the sealed key's id (loader/auth.h: public, on disk too)
 *   54  TPM2B parent Name           the SRK's Name (nameAlg || H(public)): 34 bytes
 *   90  TPM2B public                the sealed object's TPMT_PUBLIC (Create's outPublic body)
 *   ..  TPM2B private               Create's outPrivate body (encrypted by the TPM's SRK seed)
 * nothing after it. The parser refuses anything else, and checks the public area against the
 * template with the record's policy (so a record cannot name an object that Unseals without
 * the PCR policy, or one with signing/decryption use). */
#ifndef EFIRESUME_TPM_SEAL_H
#define EFIRESUME_TPM_SEAL_H

#include "tpm/marshal.h"

#define TPM2_CC_Create 0x00000153
#ifndef TPMA_OBJECT_ADMINWITHPOLICY
#define TPMA_OBJECT_ADMINWITHPOLICY 0x00000080
#endif
#ifndef TPMA_OBJECT_SIGN_ENCRYPT
#define TPMA_OBJECT_SIGN_ENCRYPT 0x00040000
#endif

#define ER_TPM_SEAL_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_ADMINWITHPOLICY | \
			   TPMA_OBJECT_NODA)
#define ER_TPM_SEAL_MAX_DATA 128         /* TPM2B_SENSITIVE_DATA: MAX_SYM_DATA is 128 */

/* The sealed object's TPMT_PUBLIC for Create (unique empty); 0 if it does not fit. */
size_t er_tpm_seal_template(const uint8_t policy[32], uint8_t *out, size_t cap);

/* TPM2_Create(parent, {userAuth empty, data}, template(policy), outsideInfo empty, no
 * creation PCRs). parent_name: the parent's Name (cpHash of an HMAC session). The caller adds
 * the parent's authorization: a session with TPMA_SESSION_DECRYPT (er_tpm_cmd_use_session)
 * and er_tpm_cmd_seal_sessions, which encrypts the data. data_len <= ER_TPM_SEAL_MAX_DATA. */
void er_tpm_cmd_create_sealed(struct er_tpm_cmd *c, uint32_t parent, const uint8_t *parent_name,
			      size_t parent_name_len, const uint8_t *data, size_t data_len,
			      const uint8_t policy[32]);
/* Create's response parameters: *priv / *pub point at the bodies of outPrivate and outPublic
 * inside r's parameters; the rest (creationData, creationHash, creationTicket) must be well
 * formed and fill the parameters exactly. */
bool er_tpm_rsp_create(const struct er_tpm_rsp *r, const uint8_t **priv, size_t *priv_len,
		       const uint8_t **pub, size_t *pub_len);
/* A sealed object's TPMT_PUBLIC is the template with this policy: KEYEDHASH, SHA-256, the
 * attributes exactly, authPolicy == policy, scheme NULL, unique a SHA-256 digest. */
bool er_tpm_sealed_public_ok(const uint8_t *pub, size_t n, const uint8_t policy[32]);

/* ---- the record ---- */
#define ER_SEALREC_MAGIC      "EFRT"
#define ER_SEALREC_VERSION    1
#define ER_SEALREC_KEY_ID_LEN 8
#define ER_SEALREC_MAX_PUBLIC 256
#define ER_SEALREC_MAX_PRIVATE 512
#define ER_SEALREC_MAX (90 + 2 + ER_SEALREC_MAX_PUBLIC + 2 + ER_SEALREC_MAX_PRIVATE)

struct er_sealrec {
	uint16_t version;
	uint16_t bank;
	uint32_t pcr_mask;
	uint8_t policy[32];
	uint8_t key_id[ER_SEALREC_KEY_ID_LEN];
	struct er_tpm_name parent;
	uint8_t pub[ER_SEALREC_MAX_PUBLIC];
	uint16_t pub_len;
	uint8_t priv[ER_SEALREC_MAX_PRIVATE];
	uint16_t priv_len;
};

/* The record's bytes; 0 if it does not fit or a field is out of bounds. */
size_t er_sealrec_write(const struct er_sealrec *r, uint8_t *out, size_t cap);
/* Reads a record of exactly n bytes; false with *why (a constant string) when it is not one
 * efiresume writes: magic, version, bank SHA-256, mask non-zero within 24 PCRs, a 32-byte
 * policy, a 34-byte SHA-256 parent Name, bounded blobs, the public area a sealed object with
 * that policy, nothing left over. */
bool er_sealrec_parse(const uint8_t *p, size_t n, struct er_sealrec *r, const char **why);

#endif
