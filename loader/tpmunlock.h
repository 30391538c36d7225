// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/tpmunlock.c: a LUKS2 container's systemd-tpm2 tokens (systemd-cryptenroll
 * --tpm2-device=) tried with the TPM before the passphrase is asked. Pure C (host-tested:
 * tests/unit/test_tpm_unseal.c); the transport, the PIN prompt and the keyslot check are
 * the caller's callbacks (loader/unlock.c on EFI_TCG2_PROTOCOL: efi/tcg2.c).
 *
 * For each systemd-tpm2 token of the JSON area, in token order: parsed (volume/tpm2token.h;
 * a variant efiresume cannot unseal is said and skipped), the sealed object unsealed
 * (tpm/unseal.h); with tpm2-pin the PIN is asked (up to ER_TPMUNLOCK_PIN_TRIES; a TPM in
 * dictionary-attack lockout ends the tries); the secret becomes the passphrase systemd
 * derives (er_tpm2_passphrase) and is tried on the keyslots the token names only. Every
 * refusal is one log line; the caller then asks the passphrase. */
#ifndef EFIRESUME_LOADER_TPMUNLOCK_H
#define EFIRESUME_LOADER_TPMUNLOCK_H

#include "image/freestanding.h"
#include "volume/json.h"
#include "volume/tpm2token.h"
#include "tpm/unseal.h"

#define ER_TPMUNLOCK_MAX_TOKENS 8
#define ER_TPMUNLOCK_PIN_TRIES 3

/* The ids of the JSON area's tokens whose type is systemd-tpm2 (ascending), at most max;
 * returns how many (0 when the JSON does not parse or has no tokens). */
unsigned er_tpmunlock_token_ids(const char *json, size_t len, unsigned *ids, unsigned max);
/* Token id parsed into *t (er_tpm2_token_parse's status and reason). */
int er_tpmunlock_token(const char *json, size_t len, unsigned id, struct er_tpm2_token *t, const char **why);
/* The unseal request for token t; srk_name receives the Name tpm2_srk records (when
 * present), q points into t and srk_name. False when tpm2_srk is there but unreadable. */
bool er_tpmunlock_req(const struct er_tpm2_token *t, struct er_tpmu_req *q, struct er_tpm_name *srk_name);

struct er_tpmunlock_ops {
	void *ctx;
	/* One line for the log (no newline). */
	void (*log)(void *ctx, const char *line);
	/* Asks the PIN of token id (try of tries) into buf (cap bytes, NUL-terminated);
	 * returns its length, or < 0: not given (Esc, no console, timeout: the caller said so) */
	long (*ask_pin)(void *ctx, unsigned id, unsigned try, unsigned tries, char *buf, size_t cap);
	/* Tries the passphrase on the keyslots in mask; true when one opened (*slot) */
	bool (*try_keyslots)(void *ctx, uint32_t mask, const char *pass, size_t len, unsigned *slot);
	/* A monotonic clock in microseconds, or NULL: the unlocked line then gives no times
	 * (with one it says how long the TPM took, the PIN prompt not counted, and the keyslot) */
	uint64_t (*now_us)(void *ctx);
};

enum er_tpmunlock_result {
	ER_TPMUNLOCK_UNLOCKED,      /* a token's keyslot opened */
	ER_TPMUNLOCK_NONE,          /* no systemd-tpm2 token */
	ER_TPMUNLOCK_REFUSED,       /* tokens were tried, none opened (each said why) */
	ER_TPMUNLOCK_SKIPPED,       /* the PIN prompt was left (Esc, timeout): no passphrase either */
};

/* The tokens of the container uuid tried in order; scratch: the caller's memory for the
 * token and the unsealer (er_tpmunlock_scratch_size bytes, wiped on return). *token_id
 * and *slot say which opened. */
struct er_tpmunlock_scratch {
	struct er_tpm2_token tok;
	struct er_tpmu u;
	struct er_tpmu_req req;
	struct er_tpm_name srk_name;
	uint8_t auth[32];
	char pin[ER_TPM2_PIN_MAX + 1];
	uint8_t secret[ER_TPMU_SECRET_MAX];
	char pass[2 * ER_TPMU_SECRET_MAX];
	char line[320];
};
enum er_tpmunlock_result er_tpmunlock_run(const char *uuid, const char *json, size_t len, const struct er_tpm_io *io,
					   const struct er_tpmunlock_ops *ops, struct er_tpmunlock_scratch *s,
					   unsigned *token_id, unsigned *slot);

#endif
