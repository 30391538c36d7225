// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for volume/tpm2token.c: systemd's "systemd-tpm2" LUKS2 token.
 *
 * The input is a JSON document (an exactly sized heap copy, so ASan sees any read beyond
 * it): a token object, or an object with a "tokens" object (the LUKS2 JSON area shape)
 * whose every member is tried as a token. Checked for each token:
 *  - the status is OK, MALFORMED or UNSUPPORTED, with an empty reason exactly on OK;
 *  - a refused token leaves the struct all zero;
 *  - an accepted one is self-consistent: at least one keyslot, PCR mask below 2^24, a
 *    known bank and primary algorithm, blob = TPM2B_PRIVATE || TPM2B_PUBLIC exactly, with
 *    the policy hash as the public area's authPolicy, lengths within their limits, an srk
 *    handle 0x81xxxxxx exactly when there is an srk;
 *  - the policy digest of the token's PCR selection (values from the input) is computed,
 *    and refused for a wrong length of values;
 *  - the passphrase encoding of the blob decodes back to the blob (er_luks_base64), and
 *    the unsalted PIN authValue of the first bytes of the input is at most 32 bytes with
 *    no trailing zero. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volume/tpm2token.h"
#include "volume/luks.h"

static struct er_tpm2_token tok;
static char text[ER_TPM2_BLOB_MAX * 2];
static uint8_t back[ER_TPM2_BLOB_MAX];

static void check(const struct er_json *v, const uint8_t *data, size_t size)
{
	const char *why = NULL;
	int st = er_tpm2_token_parse(v, &tok, &why);
	if (!why)
		abort();
	if (st != ER_TPM2TOK_OK) {
		static const struct er_tpm2_token zero;
		if ((st != ER_TPM2TOK_MALFORMED && st != ER_TPM2TOK_UNSUPPORTED) || !why[0] ||
		    memcmp(&tok, &zero, sizeof(zero)))
			abort();
		return;
	}
	if (why[0] || !tok.keyslots || tok.pcr_mask >> 24 || !er_tpm2_bank_digest_len(tok.pcr_bank) ||
	    (tok.primary_alg != ER_TPM2_ALG_ECC && tok.primary_alg != ER_TPM2_ALG_RSA))
		abort();
	if (tok.blob_len > ER_TPM2_BLOB_MAX || tok.priv_len + tok.pub_len != tok.blob_len ||
	    tok.priv_len < 3 || tok.pub_len < 12 ||
	    tok.policy_hash_len < 1 || tok.policy_hash_len > ER_TPM2_POLICY_MAX ||
	    tok.salt_len > ER_TPM2_SALT_MAX || tok.srk_len > ER_TPM2_SRK_MAX ||
	    (tok.srk_len && (tok.srk_len < 4 || tok.srk_handle >> 24 != 0x81)) ||
	    (!tok.srk_len && tok.srk_handle))
		abort();
	const uint8_t *pub = tok.blob + tok.priv_len + 2;
	size_t pol = (size_t)pub[8] << 8 | pub[9];
	if (pol != tok.policy_hash_len || memcmp(pub + 10, tok.policy_hash, pol))
		abort();

	/* the policy digest over values taken from the input */
	size_t npcr = (size_t)__builtin_popcount(tok.pcr_mask);
	size_t need = npcr * er_tpm2_bank_digest_len(tok.pcr_bank);
	uint8_t *vals = malloc(need + 1), d[32];
	if (!vals)
		return;
	for (size_t i = 0; i < need + 1; i++)
		vals[i] = size ? data[i % size] : 0;
	if (!er_tpm2_policy_digest(tok.pcr_mask, tok.pcr_bank, npcr ? vals : NULL, need, tok.pin, d))
		abort();
	if (npcr && er_tpm2_policy_digest(tok.pcr_mask, tok.pcr_bank, vals, need + 1, tok.pin, d))
		abort();
	free(vals);

	/* passphrase encoding round trip */
	size_t n, m;
	if (!er_tpm2_passphrase(tok.blob, tok.blob_len, text, sizeof(text), &n) ||
	    n != strlen(text) || !er_luks_base64(text, n, back, sizeof(back), &m) ||
	    m != tok.blob_len || memcmp(back, tok.blob, m))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(size ? size : 1);
	if (!doc)
		return 0;
	memcpy(doc, data, size);
	struct er_json root, toks, key, val;
	if (er_json_parse(doc, size, &root, NULL) == ER_JSON_OK) {
		if (!er_json_get_type(&root, "tokens", ER_JSON_OBJECT, &toks)) {
			struct er_json_iter it;
			er_json_iter_init(&it, &toks);
			while (er_json_next(&it, &key, &val) > 0)
				check(&val, data, size);
		} else {
			check(&root, data, size);
		}
	}
	/* the unsalted PIN authValue (the salted one is 10000 HMACs: too slow to fuzz) */
	uint8_t auth[32];
	size_t an;
	size_t pl = size < 16 ? size : 16;
	if (er_tpm2_pin_auth(data, pl, NULL, 0, auth, &an)) {
		if (an > 32 || (an && auth[an - 1] == 0) || memchr(data, 0, pl) || !pl)
			abort();
	} else if (pl && !memchr(data, 0, pl)) {
		abort();
	}
	free(doc);
	return 0;
}
