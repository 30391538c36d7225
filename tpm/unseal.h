// SPDX-License-Identifier: GPL-2.0-or-later
/* The unseal of a systemd-cryptenroll TPM2 object, as systemd's tpm2_unseal does it
 * (src/shared/tpm2-util.c, 252 and 257; docs/tpm2-token.md), over a transport the caller
 * gives (EFI_TCG2_PROTOCOL.SubmitCommand in the firmware, swtpm's socket or a script in
 * the tests). Pure C, no allocation, no firmware call; every handle it creates is flushed
 * on every path and every secret wiped.
 *
 *   open:  the parent: the persistent SRK the token names (tpm2_srk: its Name must be the
 *          one the token recorded), or a primary re-created in the owner hierarchy from
 *          systemd's legacy template (ECC P-256 or RSA 2048, no noDA) when there is none;
 *          Load of TPM2B_PRIVATE/TPM2B_PUBLIC under it (password session, empty). With a
 *          PIN, also the policy check below on an unsalted session, so that a PCR change
 *          is told before the PIN is asked.
 *   try:   StartAuthSession (policy, salted to the parent: ECDH P-256 or RSA-OAEP, AES-128-
 *          CFB), PolicyPCR over the token's bank and mask (skipped for an empty mask),
 *          PolicyAuthValue with a PIN, PolicyGetDigest compared with the token's policy
 *          hash (different: ER_TPMU_POLICY, no Unseal sent), then Unseal with the response
 *          encrypted (the secret never crosses in clear) and its HMAC checked. A PCR that
 *          changes during the session (TPM_RC_PCR_CHANGED) restarts it (ER_TPMU_PCR_TRIES).
 *   close: FlushContext of the loaded object and a transient parent.
 * Any command the TPM answers TPM_RC_RETRY, TPM_RC_YIELDED or TPM_RC_TESTING is sent again,
 * byte for byte (as tpm2-tss does), up to ER_TPMU_RESENDS times. */
#ifndef EFIRESUME_TPM_UNSEAL_H
#define EFIRESUME_TPM_UNSEAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "tpm/marshal.h"
#include "tpm/session.h"
#include "tpm/commands.h"

#define ER_TPMU_RESENDS    8      /* RETRY/YIELDED/TESTING: the same command again */
#define ER_TPMU_PCR_TRIES  3      /* PCR_CHANGED: the policy session again (systemd: 30) */
#define ER_TPMU_RSP_MAX    4096
#define ER_TPMU_SECRET_MAX 128    /* TPM2B_SENSITIVE_DATA */

/* The transport and the randomness. submit sends one command (len bytes) and puts the
 * response in rsp (cap bytes), its length in *rsp_len; false when the transport failed
 * (then nothing is read). random fills buf with n bytes; false when it cannot. */
struct er_tpm_io {
	void *ctx;
	bool (*submit)(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len);
	bool (*random)(void *ctx, uint8_t *buf, size_t n);
};

/* What to unseal (from a systemd-tpm2 token: volume/tpm2token.h) */
struct er_tpmu_req {
	const uint8_t *priv; size_t priv_len;      /* TPM2B_PRIVATE, with its 2-byte size */
	const uint8_t *pub; size_t pub_len;        /* TPM2B_PUBLIC, with its 2-byte size */
	const uint8_t *policy_hash; size_t policy_hash_len;   /* the object's authPolicy (32) */
	uint16_t pcr_bank;                         /* TPM2_ALG_SHA1/256/384/512 */
	uint32_t pcr_mask;                         /* bit i: PCR i; 0: no PolicyPCR */
	bool pin;                                  /* PolicyAuthValue, authValue from the PIN */
	uint16_t primary_alg;                      /* TPM2_ALG_ECC or _RSA (no srk) */
	uint32_t srk_handle;                       /* tpm2_srk's persistent handle, 0: none */
	const uint8_t *srk_name; size_t srk_name_len;   /* its Name as recorded (NULL: unchecked) */
};

enum er_tpmu_status {
	ER_TPMU_OK = 0,
	ER_TPMU_POLICY,        /* the PCRs are not what the object was sealed to */
	ER_TPMU_AUTH_FAIL,     /* wrong PIN (TPM_RC_AUTH_FAIL: counted by the DA logic; or BAD_AUTH) */
	ER_TPMU_LOCKOUT,       /* the TPM is in dictionary-attack lockout */
	ER_TPMU_FOREIGN,       /* sealed by another TPM (or its SRK is gone / replaced) */
	ER_TPMU_TPM,           /* the TPM refused something else (rc in the result) */
	ER_TPMU_IO,            /* the transport failed, or a response malformed / its HMAC wrong */
	ER_TPMU_BAD_ARG,       /* a request efiresume cannot send (sizes, algorithms, no randomness) */
};

struct er_tpmu_result {
	enum er_tpmu_status status;
	uint32_t rc;           /* the TPM's (or ER_TPM_E_*) rc of the failing command, 0 */
	const char *step;      /* the failing step ("Load", "Unseal"...), "" */
	char msg[200];         /* one line for the log: why, in words */
};

/* The unsealer's state between open and close: the caller's memory (about 9 KiB: it
 * holds the command and response buffers), never copied. */
struct er_tpmu {
	const struct er_tpm_io *io;
	const struct er_tpmu_req *req;
	uint32_t parent;
	bool parent_transient;             /* created here: flushed by close */
	struct er_tpm_public parent_pub;
	uint32_t item;                     /* the loaded object, 0 none */
	struct er_tpm_name item_name;
	unsigned commands;                 /* commands sent (statistics, tests) */
	struct er_tpm_cmd c;
	uint8_t wire[ER_TPM_MAX_PARAMS + 512];
	uint8_t rsp[ER_TPMU_RSP_MAX];
};

/* status names: "ok", "policy", "auth-fail", "lockout", "foreign", "tpm", "io", "bad-arg" */
const char *er_tpmu_status_name(enum er_tpmu_status s);

/* The parent and the loaded object. On failure nothing stays loaded (close is harmless). */
enum er_tpmu_status er_tpmu_open(struct er_tpmu *u, const struct er_tpm_io *io, const struct er_tpmu_req *req,
				 struct er_tpmu_result *res);
/* One unseal attempt: auth is the object's authValue (er_tpm2_pin_auth of the PIN) when
 * req->pin, else NULL/0. The secret in secret[0..*secret_len) (cap >= ER_TPMU_SECRET_MAX
 * recommended); on failure it is wiped. May be called again (another PIN) after
 * ER_TPMU_AUTH_FAIL. */
enum er_tpmu_status er_tpmu_try(struct er_tpmu *u, const uint8_t *auth, size_t auth_len, uint8_t *secret,
				size_t cap, size_t *secret_len, struct er_tpmu_result *res);
/* Flushes what open loaded (quietly: a failure to flush changes nothing the caller could
 * act on) and wipes u. */
void er_tpmu_close(struct er_tpmu *u);

/* open + try + close */
enum er_tpmu_status er_tpmu_unseal(struct er_tpmu *u, const struct er_tpm_io *io, const struct er_tpmu_req *req,
				   const uint8_t *auth, size_t auth_len, uint8_t *secret, size_t cap,
				   size_t *secret_len, struct er_tpmu_result *res);

/* systemd's legacy primary template (tpm2_get_legacy_template, 252's tpm2_make_primary):
 * the SRK template without noDA. TPMT_PUBLIC bytes into out; 0 for another alg. */
size_t er_tpm_legacy_template(uint16_t alg, uint8_t *out, size_t cap);

/* The handle and Name of a serialized ESYS_TR (tpm2-tss Esys_TR_Serialize: u32 handle,
 * TPM2B_NAME, ...), as systemd >= 254 stores in tpm2_srk. */
bool er_tpm_esys_tr_name(const uint8_t *tr, size_t n, uint32_t *handle, struct er_tpm_name *name);

#endif
