// SPDX-License-Identifier: GPL-2.0-or-later
/* The TPM 2.0 commands the firmware unseal needs (Part 3), as builders into a struct
 * er_tpm_cmd (marshal.h) and response parsers. Builders leave sessions to the caller
 * (er_tpm_cmd_password, or session.h's er_tpm_cmd_use_session + er_tpm_cmd_seal_sessions);
 * parsers take the response's parameter area (struct er_tpm_rsp from er_tpm_rsp_read or
 * er_tpm_rsp_sessions) and refuse anything that does not fit exactly. */
#ifndef EFIRESUME_TPM_COMMANDS_H
#define EFIRESUME_TPM_COMMANDS_H

#include "tpm/marshal.h"

/* ---- TPM2_GetCapability(TPM_CAP_HANDLES, first, count) ---- */
void er_tpm_cmd_get_capability(struct er_tpm_cmd *c, uint32_t cap, uint32_t prop, uint32_t count);
/* the handles listed (at most max), *more = moreData */
bool er_tpm_rsp_get_handles(const struct er_tpm_rsp *r, uint32_t *handles, uint32_t max,
			    uint32_t *n, bool *more);

/* ---- TPM2_PCR_Read ---- */
#define ER_TPM_MAX_PCR_VALUES 8
void er_tpm_cmd_pcr_read(struct er_tpm_cmd *c, const struct er_tpm_pcr_selection *sel);
struct er_tpm_pcr_values {
	uint32_t update_counter;
	struct er_tpm_pcr_selection sel;
	uint32_t count;
	uint8_t d[ER_TPM_MAX_PCR_VALUES][ER_TPM_MAX_DIGEST];
	uint16_t len[ER_TPM_MAX_PCR_VALUES];
};
bool er_tpm_rsp_pcr_read(const struct er_tpm_rsp *r, struct er_tpm_pcr_values *v);

/* ---- TPM2_ReadPublic ---- */
void er_tpm_cmd_read_public(struct er_tpm_cmd *c, uint32_t handle);
/* An ECC key's public area, with its Name (nameAlg || H(TPMT_PUBLIC)), checked against
 * the Name the TPM gives (SHA-256 names only). */
#define ER_TPM_MAX_PUBLIC 640
struct er_tpm_public {
	uint8_t area[ER_TPM_MAX_PUBLIC];     /* TPMT_PUBLIC as marshalled (TPM2B_PUBLIC body) */
	uint16_t area_len;
	uint16_t type, name_alg;
	uint32_t attrs;
	struct er_tpm_sym sym;               /* parameters.symmetric */
	uint16_t curve;                      /* ECC */
	uint8_t ecc_point[64];               /* ECC P-256: x || y */
	uint16_t rsa_bits;                   /* RSA: keyBits, exponent (0 read as 65537), modulus */
	uint32_t rsa_exp;
	uint8_t rsa_n[512];
	uint16_t rsa_n_len;
	struct er_tpm_name name;
};
/* Parses a TPMT_PUBLIC (the body of a TPM2B_PUBLIC) and computes its Name. ECC NIST P-256
 * keys fill ecc_point, RSA keys rsa_*; other types are read as far as type/nameAlg/attrs. */
bool er_tpm_parse_public(const uint8_t *p, size_t n, struct er_tpm_public *pub);
bool er_tpm_rsp_read_public(const struct er_tpm_rsp *r, struct er_tpm_public *pub);

/* ---- TPM2_CreatePrimary with the storage-key templates (TCG provisioning guidance,
 * as systemd's tpm2_get_srk_template): SHA-256, fixedTPM|fixedParent|sensitiveDataOrigin|
 * userWithAuth|noDA|restricted|decrypt, AES-128-CFB, no scheme, empty unique; alg
 * TPM2_ALG_ECC: NIST P-256, no KDF; TPM2_ALG_RSA: 2048 bits, exponent 0 (65537). In the
 * owner hierarchy (password session added by the caller). ---- */
size_t er_tpm_srk_template(uint16_t alg, uint8_t *out, size_t cap);      /* TPMT_PUBLIC bytes */
/* the same template with noDA as asked (without: systemd's legacy primary, tpm/unseal.h) */
size_t er_tpm_primary_template(uint16_t alg, bool noda, uint8_t *out, size_t cap);
void er_tpm_cmd_create_primary_srk(struct er_tpm_cmd *c, uint32_t hierarchy, uint16_t alg);
/* the new object's handle is r->handle */
bool er_tpm_rsp_create_primary(const struct er_tpm_rsp *r, struct er_tpm_public *pub);

/* ---- policy commands (the session handle needs no authorization) ---- */
/* pcr_digest may be empty (NULL, 0): the TPM uses the PCRs' current values */
void er_tpm_cmd_policy_pcr(struct er_tpm_cmd *c, uint32_t session, const uint8_t *pcr_digest,
			   size_t digest_len, const struct er_tpm_pcr_selection *sel);
void er_tpm_cmd_policy_auth_value(struct er_tpm_cmd *c, uint32_t session);
void er_tpm_cmd_policy_get_digest(struct er_tpm_cmd *c, uint32_t session);
bool er_tpm_rsp_policy_get_digest(const struct er_tpm_rsp *r, uint8_t *d, size_t cap, size_t *n);
/* The policy digest a trial would give: PolicyPCR updates
 * digest = H(digest || TPM_CC_PolicyPCR || pcrs || H(selected PCR values)) */
void er_tpm_policy_pcr_update(uint8_t digest[32], const struct er_tpm_pcr_selection *sel,
			      const uint8_t pcr_values_hash[32]);

/* ---- TPM2_Load(parent, inPrivate, inPublic): the blobs pass through unchanged;
 * parent_name is the parent's Name (for an HMAC session's cpHash) or NULL ---- */
void er_tpm_cmd_load(struct er_tpm_cmd *c, uint32_t parent, const uint8_t *parent_name, size_t parent_name_len,
		     const uint8_t *priv, size_t priv_len, const uint8_t *pub, size_t pub_len);
/* the loaded object's handle is r->handle; its Name (copied) */
bool er_tpm_rsp_load(const struct er_tpm_rsp *r, struct er_tpm_name *name);

/* ---- TPM2_Unseal(item) ---- */
void er_tpm_cmd_unseal(struct er_tpm_cmd *c, uint32_t item, const uint8_t *item_name, size_t item_name_len);
/* outData, copied into out (cap bytes) */
bool er_tpm_rsp_unseal(const struct er_tpm_rsp *r, uint8_t *out, size_t cap, size_t *n);

/* ---- TPM2_FlushContext(handle) ---- */
void er_tpm_cmd_flush_context(struct er_tpm_cmd *c, uint32_t handle);

#endif
