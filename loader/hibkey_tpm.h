// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: the hibernation key K sealed to the TPM (the pure flow; the
 * firmware side is loader/hibkey.c with efi/secboot.c). Host-testable: no firmware call, no
 * allocation; the transport and the randomness are the caller's (struct er_tpm_io).
 *
 *   begin   PCR_Read(SHA-256 PCR 7): the value at efiresume's start, and the policy digest
 *           PolicyPCR(sha256:7) gives with it (computed here, as a trial session would);
 *           the storage key (SRK): the persistent 0x81000001 when its public area is the
 *           standard ECC P-256 (or RSA 2048) storage template, else CreatePrimary of the ECC
 *           template in the owner hierarchy (flushed by end)
 *   unseal  the previous boot's record (tpm/seal.h): its parent must be this SRK (by Name);
 *           Load (password session), StartAuthSession (policy, salted to the SRK, AES-128-CFB),
 *           PolicyPCR over the record's PCRs, PolicyGetDigest compared with the record's
 *           digest (different: ER_HTPM_PCR_CHANGED, no Unseal sent), Unseal with the response
 *           encrypted and its HMAC checked, K's id compared with the record's
 *   seal    StartAuthSession (HMAC, salted to the SRK, AES-128-CFB), Create of a sealed-data
 *           object (tpm/seal.h) with authPolicy = begin's digest, its first parameter (K)
 *           encrypted (DECRYPT), the response HMAC checked; the record of it
 *   end     the transient SRK flushed, everything wiped
 * Every handle created is flushed on every path; every copy of K is wiped. A command the TPM
 * answers TPM_RC_RETRY/YIELDED/TESTING is sent again, byte for byte.
 *
 * The transport is tpm/unseal.h's struct er_tpm_io (efi/tcg2.c gives one over
 * EFI_TCG2_PROTOCOL.SubmitCommand). */
#ifndef EFIRESUME_LOADER_HIBKEY_TPM_H
#define EFIRESUME_LOADER_HIBKEY_TPM_H

#include "image/freestanding.h"
#include "tpm/marshal.h"
#include "tpm/commands.h"
#include "tpm/seal.h"
#include "tpm/unseal.h"      /* struct er_tpm_io: the transport and the randomness */

#define ER_HTPM_PCR       7u
#define ER_HTPM_RESENDS   8
#define ER_HTPM_RSP_MAX   4096

enum er_htpm_status {
	ER_HTPM_OK = 0,
	ER_HTPM_NO_TPM,        /* the transport failed, no SHA-256 PCR 7, no storage key: not usable */
	ER_HTPM_PCR_CHANGED,   /* PCR 7 is not what K was sealed to (unseal only) */
	ER_HTPM_FOREIGN,       /* the record's parent is not this TPM's storage key (unseal only) */
	ER_HTPM_BAD_RECORD,    /* the record is not one efiresume writes, or K's id is not its id */
	ER_HTPM_TPM,           /* the TPM refused a command, or its answer did not verify */
};

struct er_hibkey_tpm {
	const struct er_tpm_io *io;
	bool up;                             /* begin succeeded */
	uint32_t srk;
	bool srk_transient;                  /* created by begin: flushed by end */
	struct er_tpm_public srk_pub;
	uint8_t pcr[32];                     /* PCR 7 (SHA-256) at begin */
	uint8_t policy[32];                  /* PolicyPCR(sha256:7) with that value */
	unsigned commands;                   /* sent (tests, statistics) */
	char why[200];                       /* the last failure, one line */
	struct er_tpm_cmd c;
	uint8_t wire[ER_TPM_MAX_PARAMS + 512];
	uint8_t rsp[ER_HTPM_RSP_MAX];
};

/* "ok", "no-tpm", "pcr-changed", "foreign", "bad-record", "tpm" */
const char *er_htpm_status_name(enum er_htpm_status s);

enum er_htpm_status er_htpm_begin(struct er_hibkey_tpm *t, const struct er_tpm_io *io);
/* rec: the record's bytes (n); K and its id (8 bytes) in key/key_id on success, wiped else. */
enum er_htpm_status er_htpm_unseal(struct er_hibkey_tpm *t, const uint8_t *rec, size_t n, uint8_t key[32],
				   uint8_t key_id[ER_SEALREC_KEY_ID_LEN]);
/* K sealed; its record in out (cap >= ER_SEALREC_MAX), its length in *len. */
enum er_htpm_status er_htpm_seal(struct er_hibkey_tpm *t, const uint8_t key[32], uint8_t *out, size_t cap,
				 size_t *len);
void er_htpm_end(struct er_hibkey_tpm *t);

/* The PolicyPCR digest (from an all-zero digest) of SHA-256 PCR values: vals holds the
 * selected PCRs' values in ascending order, 32 bytes each. */
void er_htpm_policy(uint32_t pcr_mask, const uint8_t *vals, size_t nvals, uint8_t policy[32]);

#endif
