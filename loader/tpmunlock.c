// SPDX-License-Identifier: GPL-2.0-or-later
/* A LUKS2 container's systemd-tpm2 tokens tried with the TPM; see tpmunlock.h. */
#include "loader/tpmunlock.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

static bool tokens(const char *json, size_t len, struct er_json *toks)
{
	struct er_json root;
	return er_json_parse(json, len, &root, NULL) == 0 &&
	       er_json_get_type(&root, "tokens", ER_JSON_OBJECT, toks) == 0;
}

unsigned er_tpmunlock_token_ids(const char *json, size_t len, unsigned *ids, unsigned max)
{
	struct er_json toks, key, val, type;
	struct er_json_iter it;
	unsigned n = 0;

	if (!tokens(json, len, &toks))
		return 0;
	er_json_iter_init(&it, &toks);
	while (er_json_next(&it, &key, &val) > 0) {
		uint64_t id;
		if (er_json_u64_text(&key, &id) || id > 0xFFFF || val.type != ER_JSON_OBJECT ||
		    er_json_get_type(&val, "type", ER_JSON_STRING, &type) || !er_json_streq(&type, "systemd-tpm2"))
			continue;
		/* ascending, whatever the JSON's order */
		unsigned at = n < max ? n : max;
		while (at > 0 && ids[at - 1] > id) {
			if (at < max)
				ids[at] = ids[at - 1];
			at--;
		}
		if (at < max) {
			ids[at] = (unsigned)id;
			if (n < max)
				n++;
		}
	}
	return n;
}

int er_tpmunlock_token(const char *json, size_t len, unsigned id, struct er_tpm2_token *t, const char **why)
{
	struct er_json toks, key, val;
	struct er_json_iter it;

	if (!tokens(json, len, &toks)) {
		*why = "the LUKS2 JSON has no tokens";
		return ER_TPM2TOK_MALFORMED;
	}
	er_json_iter_init(&it, &toks);
	while (er_json_next(&it, &key, &val) > 0) {
		uint64_t k;
		if (!er_json_u64_text(&key, &k) && k == id)
			return er_tpm2_token_parse(&val, t, why);
	}
	*why = "no such token";
	return ER_TPM2TOK_MALFORMED;
}

bool er_tpmunlock_req(const struct er_tpm2_token *t, struct er_tpmu_req *q, struct er_tpm_name *srk_name)
{
	er_memset(q, 0, sizeof(*q));
	q->priv = t->blob;
	q->priv_len = t->priv_len;
	q->pub = t->blob + t->priv_len;
	q->pub_len = t->pub_len;
	q->policy_hash = t->policy_hash;
	q->policy_hash_len = t->policy_hash_len;
	q->pcr_bank = t->pcr_bank;
	q->pcr_mask = t->pcr_mask;
	q->pin = t->pin;
	q->primary_alg = t->primary_alg ? t->primary_alg : ER_TPM2_ALG_ECC;
	if (t->srk_len) {
		uint32_t h;
		if (!er_tpm_esys_tr_name(t->srk, t->srk_len, &h, srk_name) || h != t->srk_handle)
			return false;
		q->srk_handle = t->srk_handle;
		q->srk_name = srk_name->b;
		q->srk_name_len = srk_name->n;
	}
	return true;
}

static void say(const struct er_tpmunlock_ops *ops, struct er_tpmunlock_scratch *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct er_tpmunlock_ops *ops, struct er_tpmunlock_scratch *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	er_vsnprintf(s->line, sizeof(s->line), fmt, ap);
	va_end(ap);
	ops->log(ops->ctx, s->line);
}

static void slots_text(uint32_t mask, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 32; i++)
		if (mask & (1u << i))
			n += er_snprintf(buf + n, cap - n, "%s%u", n ? "," : "", i);
}

static uint64_t now(const struct er_tpmunlock_ops *ops)
{
	return ops->now_us ? ops->now_us(ops->ctx) : 0;
}

/* One token: 1 unlocked, 0 refused, -1 the prompt was left (no passphrase either) */
static int one(const char *uuid, unsigned id, const struct er_tpm_io *io, const struct er_tpmunlock_ops *ops,
	       struct er_tpmunlock_scratch *s, unsigned *slot)
{
	struct er_tpmu_result res;
	char ks[100];
	int ret = 0;

	if (!er_tpmunlock_req(&s->tok, &s->req, &s->srk_name)) {
		say(ops, s, "luks-%s: systemd-tpm2 token %u: its tpm2_srk cannot be read; not used", uuid, id);
		return 0;
	}
	slots_text(s->tok.keyslots, ks, sizeof(ks));
	uint64_t t0 = now(ops), tpm_us;
	if (er_tpmu_open(&s->u, io, &s->req, &res)) {
		if (res.status == ER_TPMU_LOCKOUT)
			say(ops, s, "luks-%s: systemd-tpm2 token %u: the TPM is in dictionary-attack lockout (too many wrong "
			    "PINs); not unsealed", uuid, id);
		else
			say(ops, s, "luks-%s: systemd-tpm2 token %u: not unsealed: %s", uuid, id, res.msg);
		return 0;
	}
	tpm_us = now(ops) - t0;
	for (unsigned t = 1; t <= (s->req.pin ? ER_TPMUNLOCK_PIN_TRIES : 1); t++) {
		size_t alen = 0, n = 0, plen = 0;
		if (s->req.pin) {
			long pl = ops->ask_pin(ops->ctx, id, t, ER_TPMUNLOCK_PIN_TRIES, s->pin, sizeof(s->pin));
			if (pl < 0) {
				ret = pl == -1 ? 0 : -1;
				break;
			}
			if (!er_tpm2_pin_auth((const uint8_t *)s->pin, (size_t)pl, s->tok.salt_len ? s->tok.salt : NULL,
					      s->tok.salt_len, s->auth, &alen)) {
				er_wipe(s->pin, sizeof(s->pin));
				say(ops, s, "luks-%s: systemd-tpm2 token %u: an empty PIN or one over %u bytes is not a PIN "
				    "(try %u of %u)", uuid, id, (unsigned)ER_TPM2_PIN_MAX, t, (unsigned)ER_TPMUNLOCK_PIN_TRIES);
				continue;
			}
			er_wipe(s->pin, sizeof(s->pin));
		}
		t0 = now(ops);
		enum er_tpmu_status st = er_tpmu_try(&s->u, s->req.pin ? s->auth : NULL, alen, s->secret,
						     sizeof(s->secret), &n, &res);
		tpm_us += now(ops) - t0;
		er_wipe(s->auth, sizeof(s->auth));
		if (st == ER_TPMU_AUTH_FAIL && s->req.pin) {
			say(ops, s, "luks-%s: systemd-tpm2 token %u: wrong PIN (try %u of %u; the TPM counts it against its "
			    "dictionary-attack limit)", uuid, id, t, (unsigned)ER_TPMUNLOCK_PIN_TRIES);
			continue;
		}
		if (st == ER_TPMU_LOCKOUT) {
			say(ops, s, "luks-%s: systemd-tpm2 token %u: the TPM is in dictionary-attack lockout (too many wrong "
			    "PINs); no more PIN tries", uuid, id);
			break;
		}
		if (st) {
			say(ops, s, "luks-%s: systemd-tpm2 token %u: not unsealed: %s", uuid, id, res.msg);
			break;
		}
		t0 = now(ops);
		bool ok = er_tpm2_passphrase(s->secret, n, s->pass, sizeof(s->pass), &plen) &&
			  ops->try_keyslots(ops->ctx, s->tok.keyslots, s->pass, plen, slot);
		uint64_t ks_us = now(ops) - t0;
		er_wipe(s->secret, sizeof(s->secret));
		er_wipe(s->pass, sizeof(s->pass));
		if (ok) {
			if (ops->now_us)
				say(ops, s, "luks-%s: unlocked with the TPM (systemd-tpm2 token %u), keyslot %u (%u ms: the "
				    "TPM %u ms, the keyslot %u ms)", uuid, id, *slot, (unsigned)((tpm_us + ks_us) / 1000),
				    (unsigned)(tpm_us / 1000), (unsigned)(ks_us / 1000));
			else
				say(ops, s, "luks-%s: unlocked with the TPM (systemd-tpm2 token %u), keyslot %u", uuid, id,
				    *slot);
			ret = 1;
		} else {
			say(ops, s, "luks-%s: systemd-tpm2 token %u: unsealed, but the key does not open keyslot %s",
			    uuid, id, ks);
		}
		break;
	}
	er_tpmu_close(&s->u);
	return ret;
}

enum er_tpmunlock_result er_tpmunlock_run(const char *uuid, const char *json, size_t len, const struct er_tpm_io *io,
					   const struct er_tpmunlock_ops *ops, struct er_tpmunlock_scratch *s,
					   unsigned *token_id, unsigned *slot)
{
	unsigned ids[ER_TPMUNLOCK_MAX_TOKENS];
	unsigned n = er_tpmunlock_token_ids(json, len, ids, ER_TPMUNLOCK_MAX_TOKENS);
	enum er_tpmunlock_result r = n ? ER_TPMUNLOCK_REFUSED : ER_TPMUNLOCK_NONE;

	for (unsigned k = 0; k < n; k++) {
		const char *why = "";
		int st = er_tpmunlock_token(json, len, ids[k], &s->tok, &why);
		if (st) {
			say(ops, s, "luks-%s: systemd-tpm2 token %u: %s: %s; not used", uuid, ids[k],
			    st == ER_TPM2TOK_UNSUPPORTED ? "not supported" : "malformed", why);
			continue;
		}
		int got = one(uuid, ids[k], io, ops, s, slot);
		if (got) {
			*token_id = ids[k];
			r = got > 0 ? ER_TPMUNLOCK_UNLOCKED : ER_TPMUNLOCK_SKIPPED;
			break;
		}
	}
	er_wipe(s, sizeof(*s));
	return r;
}
