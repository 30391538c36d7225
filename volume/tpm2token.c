// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd's "systemd-tpm2" LUKS2 token: see volume/tpm2token.h and docs/tpm2-token.md. */
#include "volume/tpm2token.h"
#include "volume/luks.h"
#include "crypto/sha.h"
#include "crypto/pbkdf2.h"
#include "crypto/wipe.h"

/* the longest base64 text a field may have: the blob (the largest binary field) */
#define B64_TEXT_MAX (((ER_TPM2_BLOB_MAX + 2) / 3) * 4)

struct pctx {
	const char *why;
};

static int bad(struct pctx *c, int st, const char *why)
{
	c->why = why;
	return st;
}
#define MALFORMED(c, w) bad(c, ER_TPM2TOK_MALFORMED, w)
#define UNSUPPORTED(c, w) bad(c, ER_TPM2TOK_UNSUPPORTED, w)

static char lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* ASCII case-insensitive comparison of a JSON string value with lit (systemd: strcaseeq) */
static bool str_caseeq(const struct er_json *v, const char *lit)
{
	char buf[16];
	size_t len, i;
	if (er_json_string(v, buf, sizeof(buf), &len) || len != er_strnlen(buf, sizeof(buf)))
		return false;
	for (i = 0; lit[i]; i++)
		if (i >= len || lower(buf[i]) != lit[i])
			return false;
	return i == len;
}

/* A string member holding base64 (RFC 4648, padded, no whitespace) of 1..cap bytes.
 * v: the value (a string). */
static bool b64_value(const struct er_json *v, uint8_t *out, size_t cap, size_t *n)
{
	char text[B64_TEXT_MAX + 1];
	size_t len;
	bool ok;
	if (v->type != ER_JSON_STRING || er_json_string(v, text, sizeof(text), &len) ||
	    len != er_strnlen(text, sizeof(text)))
		return false;
	ok = er_luks_base64(text, len, out, cap, n) && *n > 0;
	er_wipe(text, sizeof(text));
	return ok;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9') return ch - '0';
	ch = lower(ch);
	if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
	return -1;
}

/* a string of hex digits (either case, even count) of 1..cap bytes */
static bool hex_value(const struct er_json *v, uint8_t *out, size_t cap, size_t *n)
{
	char text[2 * ER_TPM2_POLICY_MAX + 1];
	size_t len;
	if (v->type != ER_JSON_STRING || er_json_string(v, text, sizeof(text), &len) ||
	    len != er_strnlen(text, sizeof(text)) || len == 0 || len % 2 || len / 2 > cap)
		return false;
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval(text[i]), lo = hexval(text[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*n = len / 2;
	return true;
}

/* systemd 257 tpm2_parse_shard_array: "tpm2-blob" and "tpm2-policy-hash" are a string,
 * or an array of strings (one per key shard). Only one shard is supported: *one gets the
 * string (a one-element array's element). */
static int one_shard(struct pctx *c, const struct er_json *v, struct er_json *one,
		     const char *empty, const char *several)
{
	if (v->type == ER_JSON_STRING) {
		*one = *v;
		return ER_TPM2TOK_OK;
	}
	if (v->type != ER_JSON_ARRAY)
		return MALFORMED(c, empty);
	size_t n = er_json_count(v);
	if (n == 0)
		return MALFORMED(c, empty);
	if (n > 1)
		return UNSUPPORTED(c, several);
	er_json_index(v, 0, one);
	return ER_TPM2TOK_OK;
}

/* a PCR list: an array of unsigned integers below ER_TPM2_PCRS_MAX (duplicates allowed,
 * as systemd's tpm2_parse_pcr_json_array ORs them into a mask) */
static bool pcr_array(const struct er_json *v, uint32_t *mask)
{
	struct er_json_iter it;
	struct er_json e;
	uint32_t m = 0;
	if (v->type != ER_JSON_ARRAY)
		return false;
	er_json_iter_init(&it, v);
	while (er_json_next(&it, NULL, &e) > 0) {
		uint64_t u;
		if (er_json_u64(&e, &u) || u >= ER_TPM2_PCRS_MAX)
			return false;
		m |= UINT32_C(1) << u;
	}
	*mask = m;
	return true;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* tpm2-blob: TPM2B_PRIVATE || TPM2B_PUBLIC [|| TPM2B_ENCRYPTED_SECRET] (systemd 252
 * tpm2_seal, 257 tpm2_marshal_blob). The public area must be systemd's sealed keyed-hash
 * object, its authPolicy the token's policy hash. */
static int check_blob(struct pctx *c, struct er_tpm2_token *t)
{
	const uint8_t *b = t->blob;
	size_t n = t->blob_len, off = 0, sz;

	if (n < 2 || (sz = be16(b)) == 0 || sz > n - 2)
		return MALFORMED(c, "tpm2-blob: truncated TPM2B_PRIVATE");
	t->priv_len = 2 + sz;
	off = t->priv_len;
	if (n - off < 2 || (sz = be16(b + off)) == 0 || sz > n - off - 2)
		return MALFORMED(c, "tpm2-blob: truncated TPM2B_PUBLIC");
	t->pub_len = 2 + sz;
	const uint8_t *p = b + off + 2;          /* TPMT_PUBLIC, sz bytes */
	off += t->pub_len;
	if (off != n) {
		/* systemd >= 254 offline sealing appends the encrypted import seed */
		if (n - off >= 2 && be16(b + off) == n - off - 2 && n - off > 2)
			return UNSUPPORTED(c, "tpm2-blob carries an encrypted seed (sealed offline, "
					   "needs TPM2_Import)");
		return MALFORMED(c, "tpm2-blob: bytes after TPM2B_PUBLIC");
	}
	/* type, nameAlg, objectAttributes, authPolicy (TPM2B_DIGEST) */
	if (sz < 2 + 2 + 4 + 2)
		return MALFORMED(c, "tpm2-blob: TPMT_PUBLIC too short");
	if (be16(p) != ER_TPM2_ALG_KEYEDHASH)
		return MALFORMED(c, "tpm2-blob: sealed object is not a keyed-hash object");
	if (be16(p + 2) != ER_TPM2_ALG_SHA256)
		return MALFORMED(c, "tpm2-blob: sealed object's nameAlg is not SHA-256");
	size_t pol = be16(p + 8);
	if (pol > sz - 10)
		return MALFORMED(c, "tpm2-blob: authPolicy overruns TPMT_PUBLIC");
	if (pol != t->policy_hash_len || er_memcmp(p + 10, t->policy_hash, pol))
		return MALFORMED(c, "tpm2-policy-hash is not the sealed object's authPolicy");
	return ER_TPM2TOK_OK;
}

static int parse(struct pctx *c, const struct er_json *tok, struct er_tpm2_token *t)
{
	struct er_json v, one, e;
	struct er_json_iter it;
	int st;

	if (tok->type != ER_JSON_OBJECT)
		return MALFORMED(c, "token is not a JSON object");
	if (er_json_get(tok, "type", &v) || !er_json_streq(&v, "systemd-tpm2"))
		return MALFORMED(c, "token type is not systemd-tpm2");

	/* keyslots: LUKS2 token keyslots, strings of digits ("1") */
	if (er_json_get_type(tok, "keyslots", ER_JSON_ARRAY, &v) || er_json_count(&v) == 0)
		return MALFORMED(c, "keyslots missing or empty");
	if (er_json_count(&v) > ER_TPM2_KEYSLOTS_MAX)
		return MALFORMED(c, "too many keyslots");
	er_json_iter_init(&it, &v);
	while (er_json_next(&it, NULL, &e) > 0) {
		uint64_t id;
		if (er_json_u64_any(&e, &id) || id >= ER_TPM2_KEYSLOTS_MAX)
			return MALFORMED(c, "keyslots: not a keyslot number 0..31");
		t->keyslots |= UINT32_C(1) << id;
	}

	/* tpm2-pcrs: required (may be empty) */
	if (er_json_get(tok, "tpm2-pcrs", &v))
		return MALFORMED(c, "tpm2-pcrs missing");
	if (!pcr_array(&v, &t->pcr_mask))
		return MALFORMED(c, "tpm2-pcrs: not an array of PCR numbers 0..23");

	/* tpm2-pcr-bank: optional since systemd 250; before, always SHA-256 */
	t->pcr_bank = ER_TPM2_ALG_SHA256;
	t->pcr_bank_implied = true;
	if (!er_json_get(tok, "tpm2-pcr-bank", &v)) {
		static const struct { const char *name; uint16_t alg; } banks[] = {
			{ "sha1", ER_TPM2_ALG_SHA1 }, { "sha256", ER_TPM2_ALG_SHA256 },
			{ "sha384", ER_TPM2_ALG_SHA384 }, { "sha512", ER_TPM2_ALG_SHA512 },
		};
		size_t i;
		if (v.type != ER_JSON_STRING)
			return MALFORMED(c, "tpm2-pcr-bank is not a string");
		for (i = 0; i < ER_ARRAY_SIZE(banks); i++)
			if (str_caseeq(&v, banks[i].name))
				break;
		if (i == ER_ARRAY_SIZE(banks))
			return UNSUPPORTED(c, "tpm2-pcr-bank names an unknown PCR bank");
		t->pcr_bank = banks[i].alg;
		t->pcr_bank_implied = false;
	}

	/* tpm2-primary-alg: optional since systemd 250; before, always ECC */
	t->primary_alg = ER_TPM2_ALG_ECC;
	if (!er_json_get(tok, "tpm2-primary-alg", &v)) {
		if (v.type != ER_JSON_STRING)
			return MALFORMED(c, "tpm2-primary-alg is not a string");
		if (str_caseeq(&v, "ecc"))
			t->primary_alg = ER_TPM2_ALG_ECC;
		else if (str_caseeq(&v, "rsa"))
			t->primary_alg = ER_TPM2_ALG_RSA;
		else
			return UNSUPPORTED(c, "tpm2-primary-alg names an unknown algorithm");
	}

	/* tpm2-pin (optional boolean); tpm2_pcrlock (systemd >= 255) */
	if (!er_json_get(tok, "tpm2-pin", &v)) {
		if (v.type != ER_JSON_TRUE && v.type != ER_JSON_FALSE)
			return MALFORMED(c, "tpm2-pin is not a boolean");
		t->pin = v.type == ER_JSON_TRUE;
	}
	if (!er_json_get(tok, "tpm2_pcrlock", &v)) {
		if (v.type != ER_JSON_TRUE && v.type != ER_JSON_FALSE)
			return MALFORMED(c, "tpm2_pcrlock is not a boolean");
		if (v.type == ER_JSON_TRUE)
			return UNSUPPORTED(c, "pcrlock policy (tpm2_pcrlock, PolicyAuthorizeNV) is not supported");
	}

	/* signed PCR policy (systemd >= 252: --tpm2-public-key) */
	if (!er_json_get(tok, "tpm2_pubkey_pcrs", &v)) {
		uint32_t m;
		if (!pcr_array(&v, &m))
			return MALFORMED(c, "tpm2_pubkey_pcrs: not an array of PCR numbers 0..23");
		if (m && er_json_get(tok, "tpm2_pubkey", &v))
			return MALFORMED(c, "tpm2_pubkey_pcrs without tpm2_pubkey");
	}
	if (!er_json_get(tok, "tpm2_pubkey", &v))
		return UNSUPPORTED(c, "signed PCR policy (tpm2_pubkey, PolicyAuthorize) is not supported");

	/* tpm2-policy-hash, then tpm2-blob (checked against it) */
	if (er_json_get(tok, "tpm2-policy-hash", &v))
		return MALFORMED(c, "tpm2-policy-hash missing");
	if ((st = one_shard(c, &v, &one, "tpm2-policy-hash is neither a string nor a non-empty array",
			    "tpm2-policy-hash has several shards (sharded key) - not supported")))
		return st;
	if (!hex_value(&one, t->policy_hash, sizeof(t->policy_hash), &t->policy_hash_len))
		return MALFORMED(c, "tpm2-policy-hash: not 1..64 bytes of hex");

	if (er_json_get(tok, "tpm2-blob", &v))
		return MALFORMED(c, "tpm2-blob missing");
	if ((st = one_shard(c, &v, &one, "tpm2-blob is neither a string nor a non-empty array",
			    "tpm2-blob has several shards (sharded key) - not supported")))
		return st;
	if (!b64_value(&one, t->blob, sizeof(t->blob), &t->blob_len))
		return MALFORMED(c, "tpm2-blob: not base64 of 1..2048 bytes");
	if ((st = check_blob(c, t)))
		return st;

	/* tpm2_salt (systemd >= 253, only with a PIN) */
	if (!er_json_get(tok, "tpm2_salt", &v) &&
	    !b64_value(&v, t->salt, sizeof(t->salt), &t->salt_len))
		return MALFORMED(c, "tpm2_salt: not base64 of 1..64 bytes");

	/* tpm2_srk (systemd >= 255): serialized ESYS_TR, starting with the TPM handle */
	if (!er_json_get(tok, "tpm2_srk", &v)) {
		if (!b64_value(&v, t->srk, sizeof(t->srk), &t->srk_len) || t->srk_len < 4)
			return MALFORMED(c, "tpm2_srk: not base64 of 4..1024 bytes");
		t->srk_handle = be32(t->srk);
		if ((t->srk_handle >> 24) != 0x81)
			return MALFORMED(c, "tpm2_srk: not a persistent handle (0x81xxxxxx)");
	}
	return ER_TPM2TOK_OK;
}

int er_tpm2_token_parse(const struct er_json *tok, struct er_tpm2_token *t, const char **why)
{
	struct pctx c = { "" };
	er_memset(t, 0, sizeof(*t));
	int st = parse(&c, tok, t);
	if (st)
		er_wipe(t, sizeof(*t));
	if (why)
		*why = c.why;
	return st;
}

/* ------------------------------------------------------------------ PIN */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool er_tpm2_passphrase(const uint8_t *secret, size_t n, char *out, size_t cap, size_t *out_len)
{
	size_t need = (n + 2) / 3 * 4, o = 0;
	if (n > ((size_t)-1) / 2 || need + 1 > cap)
		return false;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)secret[i] << 16;
		if (i + 1 < n) v |= (uint32_t)secret[i + 1] << 8;
		if (i + 2 < n) v |= secret[i + 2];
		out[o++] = b64chars[v >> 18 & 63];
		out[o++] = b64chars[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64chars[v & 63] : '=';
	}
	out[o] = 0;
	*out_len = o;
	return true;
}

bool er_tpm2_pin_auth(const uint8_t *pin, size_t pin_len, const uint8_t *salt, size_t salt_len,
		      uint8_t out[32], size_t *out_len)
{
	uint8_t dk[32];
	char b64[45];
	size_t n;

	if (!pin || pin_len == 0 || pin_len > ER_TPM2_PIN_MAX || (salt_len && !salt))
		return false;
	for (size_t i = 0; i < pin_len; i++)
		if (pin[i] == 0)
			return false;          /* systemd's PIN is a C string */
	if (salt_len) {
		/* systemd >= 253: tpm2_util_pbkdf2_hmac_sha256 (10000 iterations, 32 bytes),
		 * then base64mem, and that string is "the PIN" hashed below */
		if (!er_pbkdf2(ER_HASH_SHA256, pin, pin_len, salt, salt_len, 10000, dk, sizeof(dk)) ||
		    !er_tpm2_passphrase(dk, sizeof(dk), b64, sizeof(b64), &n)) {
			er_wipe(dk, sizeof(dk));
			return false;
		}
		er_hash(ER_HASH_SHA256, b64, n, out);
		er_wipe(b64, sizeof(b64));
		er_wipe(dk, sizeof(dk));
	} else {
		er_hash(ER_HASH_SHA256, pin, pin_len, out);
	}
	n = 32;
	while (n > 0 && out[n - 1] == 0)
		n--;
	*out_len = n;
	return true;
}

/* ------------------------------------------------------------------ policy */

size_t er_tpm2_bank_digest_len(uint16_t bank)
{
	switch (bank) {
	case ER_TPM2_ALG_SHA1: return 20;
	case ER_TPM2_ALG_SHA256: return 32;
	case ER_TPM2_ALG_SHA384: return 48;
	case ER_TPM2_ALG_SHA512: return 64;
	default: return 0;
	}
}

#define TPM2_CC_PolicyAuthValue 0x0000016Bu
#define TPM2_CC_PolicyPCR       0x0000017Fu

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

bool er_tpm2_policy_digest(uint32_t pcr_mask, uint16_t bank, const uint8_t *values,
			   size_t values_len, bool pin, uint8_t out[32])
{
	struct er_hash_ctx h;
	uint8_t d[32] = { 0 };

	if (pcr_mask >> ER_TPM2_PCRS_MAX)
		return false;
	if (pcr_mask) {
		size_t dl = er_tpm2_bank_digest_len(bank), npcr = 0;
		uint8_t pcr_digest[32], cmd[4 + 4 + 2 + 1 + 3];
		for (uint32_t m = pcr_mask; m; m &= m - 1)
			npcr++;
		if (!dl || !values || values_len != npcr * dl)
			return false;
		/* pcrDigest: SHA-256 (the session's hash) of the values in selection order */
		er_hash(ER_HASH_SHA256, values, values_len, pcr_digest);
		/* TPM_CC_PolicyPCR || TPML_PCR_SELECTION {count 1, {bank, sizeofSelect 3, mask}} */
		put_be32(cmd, TPM2_CC_PolicyPCR);
		put_be32(cmd + 4, 1);
		cmd[8] = (uint8_t)(bank >> 8);
		cmd[9] = (uint8_t)bank;
		cmd[10] = 3;
		cmd[11] = (uint8_t)pcr_mask;
		cmd[12] = (uint8_t)(pcr_mask >> 8);
		cmd[13] = (uint8_t)(pcr_mask >> 16);
		er_hash_init(&h, ER_HASH_SHA256);
		er_hash_update(&h, d, sizeof(d));
		er_hash_update(&h, cmd, sizeof(cmd));
		er_hash_update(&h, pcr_digest, sizeof(pcr_digest));
		er_hash_final(&h, d);
	}
	if (pin) {
		uint8_t cc[4];
		put_be32(cc, TPM2_CC_PolicyAuthValue);
		er_hash_init(&h, ER_HASH_SHA256);
		er_hash_update(&h, d, sizeof(d));
		er_hash_update(&h, cc, sizeof(cc));
		er_hash_final(&h, d);
	}
	er_memcpy(out, d, sizeof(d));
	return true;
}
