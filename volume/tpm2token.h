// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd's LUKS2 "systemd-tpm2" token (systemd-cryptenroll --tpm2-device=), as systemd
 * 252 (Debian 12) and 257 (Debian 13) write and read it: docs/tpm2-token.md lists every
 * field and where systemd's source defines it.
 *
 * Pure C, no firmware calls, no allocation; builds into the EFI binaries and for the host.
 *
 *  - er_tpm2_token_parse() reads one token object (a value of the LUKS2 "tokens" object,
 *    from volume/json.c) into struct er_tpm2_token. A token that is not well formed is
 *    ER_TPM2TOK_MALFORMED; a well formed token that efiresume cannot satisfy (pcrlock,
 *    signed PCR policy, sharded key, offline-sealed blob) is ER_TPM2TOK_UNSUPPORTED. Both
 *    come with a short English reason.
 *  - er_tpm2_pin_auth() turns the PIN typed by the user into the sealed object's
 *    authValue, as systemd 252 (no tpm2_salt) and 253+ (tpm2_salt) do.
 *  - er_tpm2_policy_digest() computes the policy digest systemd seals against
 *    (PolicyPCR over one bank, then PolicyAuthValue when a PIN is used), from PCR values,
 *    so that it can be compared with the token's tpm2-policy-hash.
 *  - er_tpm2_passphrase() makes the LUKS passphrase from the unsealed secret (base64). */
#ifndef EFIRESUME_VOLUME_TPM2TOKEN_H
#define EFIRESUME_VOLUME_TPM2TOKEN_H

#include "image/freestanding.h"
#include "volume/json.h"

/* TPM 2.0 algorithm identifiers (TCG Algorithm Registry) the token names */
#define ER_TPM2_ALG_RSA     0x0001
#define ER_TPM2_ALG_SHA1    0x0004
#define ER_TPM2_ALG_SHA256  0x000B
#define ER_TPM2_ALG_SHA384  0x000C
#define ER_TPM2_ALG_SHA512  0x000D
#define ER_TPM2_ALG_KEYEDHASH 0x0008
#define ER_TPM2_ALG_ECC     0x0023

#define ER_TPM2_PCRS_MAX       24      /* systemd's TPM2_PCRS_MAX: PCRs 0..23 */
#define ER_TPM2_BLOB_MAX       2048    /* TPM2B_PRIVATE || TPM2B_PUBLIC (systemd: 240 bytes) */
#define ER_TPM2_POLICY_MAX     64      /* a digest (systemd: SHA-256, 32 bytes) */
#define ER_TPM2_SALT_MAX       64      /* tpm2_salt (systemd: 32 bytes) */
#define ER_TPM2_SRK_MAX        1024    /* tpm2_srk, a serialized ESYS_TR (about 100 bytes) */
#define ER_TPM2_KEYSLOTS_MAX   32      /* LUKS2 keyslot ids 0..31 */
#define ER_TPM2_PIN_MAX        256     /* longest PIN accepted, in bytes */

enum er_tpm2tok_status {
	ER_TPM2TOK_OK = 0,
	ER_TPM2TOK_MALFORMED = -1,      /* not a well formed systemd-tpm2 token */
	ER_TPM2TOK_UNSUPPORTED = -2,    /* well formed, but a variant efiresume cannot unlock */
};

struct er_tpm2_token {
	uint32_t keyslots;              /* bit i: LUKS2 keyslot "i" */
	uint32_t pcr_mask;              /* tpm2-pcrs: bit i = PCR i (hash-bound PolicyPCR) */
	uint16_t pcr_bank;              /* tpm2-pcr-bank as an ER_TPM2_ALG_SHA* */
	bool pcr_bank_implied;          /* absent: SHA-256 (systemd < 250 always sealed to it) */
	uint16_t primary_alg;           /* tpm2-primary-alg: ER_TPM2_ALG_ECC (default) or _RSA */
	bool pin;                       /* tpm2-pin: PolicyAuthValue, authValue from a PIN */
	/* tpm2-blob, decoded: TPM2B_PRIVATE then TPM2B_PUBLIC (each with its 2-byte size) */
	uint8_t blob[ER_TPM2_BLOB_MAX];
	size_t blob_len;
	size_t priv_len;                /* blob[0..priv_len): the TPM2B_PRIVATE */
	size_t pub_len;                 /* blob[priv_len..priv_len+pub_len): the TPM2B_PUBLIC */
	/* tpm2-policy-hash, decoded; equal to the sealed object's authPolicy */
	uint8_t policy_hash[ER_TPM2_POLICY_MAX];
	size_t policy_hash_len;
	/* tpm2_salt (systemd >= 253, with a PIN): the PBKDF2 salt of the PIN; 0 = none */
	uint8_t salt[ER_TPM2_SALT_MAX];
	size_t salt_len;
	/* tpm2_srk (systemd >= 255): serialized ESYS_TR of the storage root key the object was
	 * sealed under, instead of a primary created from the legacy template; 0 = none */
	uint8_t srk[ER_TPM2_SRK_MAX];
	size_t srk_len;
	uint32_t srk_handle;            /* its TPM handle (0x81xxxxxx), 0 when no srk */
};

/* Parses one token object. Returns ER_TPM2TOK_OK and fills *t, or a negative status with
 * *why (when why is not NULL) set to a static reason ("" on success). On failure *t is
 * wiped. A token whose "type" is not "systemd-tpm2" is MALFORMED. */
int er_tpm2_token_parse(const struct er_json *tok, struct er_tpm2_token *t, const char **why);

/* The authValue of a PIN-protected object, in out[0..*out_len) (at most 32 bytes):
 *   no salt (systemd 252):      SHA-256(pin)
 *   salt    (systemd 253..257): SHA-256(base64(PBKDF2-HMAC-SHA256(pin, salt, 10000, 32)))
 * with trailing zero bytes removed (TPM 2.0 Part 1, "Authorization Size Convention").
 * pin is the PIN's bytes (no NUL inside, 1..ER_TPM2_PIN_MAX bytes); false otherwise. */
bool er_tpm2_pin_auth(const uint8_t *pin, size_t pin_len, const uint8_t *salt, size_t salt_len,
		      uint8_t out[32], size_t *out_len);

/* Digest size of a PCR bank (20, 32, 48, 64); 0 for anything else. */
size_t er_tpm2_bank_digest_len(uint16_t bank);

/* The SHA-256 policy digest systemd seals against: from 32 zero bytes, PolicyPCR with
 * the selection {bank, 3 bytes of pcr_mask} and SHA-256 of the PCR values (values:
 * the selected PCRs' values in ascending PCR order, each er_tpm2_bank_digest_len(bank)
 * bytes; values_len must be exactly that many), skipped when pcr_mask is 0; then
 * PolicyAuthValue when pin. False for a bad argument. */
bool er_tpm2_policy_digest(uint32_t pcr_mask, uint16_t bank, const uint8_t *values,
			   size_t values_len, bool pin, uint8_t out[32]);

/* The LUKS2 passphrase systemd derives from the unsealed secret: its padded standard
 * base64 encoding, NUL-terminated in out[0..cap); *out_len gets its length. False when
 * it does not fit. */
bool er_tpm2_passphrase(const uint8_t *secret, size_t n, char *out, size_t cap, size_t *out_len);

#endif
