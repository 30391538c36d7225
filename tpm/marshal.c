// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 command marshalling and bounds-checked response reading: see marshal.h. */
#include "tpm/marshal.h"
#include "image/freestanding.h"
#include "image/fmt.h"

void er_tpm_put_bytes(struct er_tpm_wr *w, const void *b, size_t n)
{
	if (w->err || n > w->cap - w->len) {
		w->err = true;
		return;
	}
	if (n)
		er_memcpy(w->p + w->len, b, n);
	w->len += n;
}

void er_tpm_put_u8(struct er_tpm_wr *w, uint8_t v)
{
	er_tpm_put_bytes(w, &v, 1);
}

void er_tpm_put_u16(struct er_tpm_wr *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	er_tpm_put_bytes(w, b, 2);
}

void er_tpm_put_u32(struct er_tpm_wr *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	er_tpm_put_bytes(w, b, 4);
}

void er_tpm_put_tpm2b(struct er_tpm_wr *w, const void *b, size_t n)
{
	if (n > 0xFFFF) {
		w->err = true;
		return;
	}
	er_tpm_put_u16(w, (uint16_t)n);
	er_tpm_put_bytes(w, b, n);
}

void er_tpm_set_u32_at(struct er_tpm_wr *w, size_t at, uint32_t v)
{
	if (w->err || at > w->len || w->len - at < 4) {
		w->err = true;
		return;
	}
	w->p[at] = (uint8_t)(v >> 24);
	w->p[at + 1] = (uint8_t)(v >> 16);
	w->p[at + 2] = (uint8_t)(v >> 8);
	w->p[at + 3] = (uint8_t)v;
}

const uint8_t *er_tpm_get_bytes(struct er_tpm_rd *r, size_t n)
{
	const uint8_t *p;

	if (r->err || r->off > r->len || n > r->len - r->off) {
		r->err = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	return p;
}

uint8_t er_tpm_get_u8(struct er_tpm_rd *r)
{
	const uint8_t *p = er_tpm_get_bytes(r, 1);
	return p ? p[0] : 0;
}

uint16_t er_tpm_get_u16(struct er_tpm_rd *r)
{
	const uint8_t *p = er_tpm_get_bytes(r, 2);
	return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

uint32_t er_tpm_get_u32(struct er_tpm_rd *r)
{
	const uint8_t *p = er_tpm_get_bytes(r, 4);
	return p ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3] : 0;
}

bool er_tpm_get_tpm2b(struct er_tpm_rd *r, const uint8_t **out, size_t *n, size_t max)
{
	uint16_t sz = er_tpm_get_u16(r);
	const uint8_t *p;

	*out = NULL;
	*n = 0;
	if (r->err)
		return false;
	if (sz > max) {
		r->err = true;
		return false;
	}
	p = er_tpm_get_bytes(r, sz);
	if (!p)
		return false;
	*out = p;
	*n = sz;
	return true;
}

bool er_tpm_get_tpm2b_copy(struct er_tpm_rd *r, uint8_t *buf, size_t cap, size_t *n)
{
	const uint8_t *p;

	if (!er_tpm_get_tpm2b(r, &p, n, cap))
		return false;
	if (*n)
		er_memcpy(buf, p, *n);
	return true;
}

void er_tpm_pcr_selection_one(struct er_tpm_pcr_selection *ps, uint16_t hash, uint32_t mask)
{
	er_memset(ps, 0, sizeof(*ps));
	ps->count = 1;
	ps->s[0].hash = hash;
	ps->s[0].n = 3;
	ps->s[0].sel[0] = (uint8_t)mask;
	ps->s[0].sel[1] = (uint8_t)(mask >> 8);
	ps->s[0].sel[2] = (uint8_t)(mask >> 16);
}

void er_tpm_put_pcr_selection(struct er_tpm_wr *w, const struct er_tpm_pcr_selection *ps)
{
	if (ps->count > ER_TPM_MAX_PCR_BANKS) {
		w->err = true;
		return;
	}
	er_tpm_put_u32(w, ps->count);
	for (uint32_t i = 0; i < ps->count; i++) {
		if (ps->s[i].n > 4) {
			w->err = true;
			return;
		}
		er_tpm_put_u16(w, ps->s[i].hash);
		er_tpm_put_u8(w, ps->s[i].n);
		er_tpm_put_bytes(w, ps->s[i].sel, ps->s[i].n);
	}
}

bool er_tpm_get_pcr_selection(struct er_tpm_rd *r, struct er_tpm_pcr_selection *ps)
{
	er_memset(ps, 0, sizeof(*ps));
	ps->count = er_tpm_get_u32(r);
	if (r->err || ps->count > ER_TPM_MAX_PCR_BANKS) {
		r->err = true;
		ps->count = 0;
		return false;
	}
	for (uint32_t i = 0; i < ps->count; i++) {
		const uint8_t *p;

		ps->s[i].hash = er_tpm_get_u16(r);
		ps->s[i].n = er_tpm_get_u8(r);
		if (ps->s[i].n > 4) {
			r->err = true;
			return false;
		}
		p = er_tpm_get_bytes(r, ps->s[i].n);
		if (!p)
			return false;
		er_memcpy(ps->s[i].sel, p, ps->s[i].n);
	}
	return !r->err;
}

void er_tpm_put_sym(struct er_tpm_wr *w, const struct er_tpm_sym *s)
{
	er_tpm_put_u16(w, s->alg);
	if (s->alg == TPM2_ALG_NULL)
		return;
	er_tpm_put_u16(w, s->bits);
	er_tpm_put_u16(w, s->mode);
}

bool er_tpm_get_sym(struct er_tpm_rd *r, struct er_tpm_sym *s)
{
	s->alg = er_tpm_get_u16(r);
	s->bits = s->mode = 0;
	if (s->alg != TPM2_ALG_NULL) {
		s->bits = er_tpm_get_u16(r);
		s->mode = er_tpm_get_u16(r);
	}
	return !r->err;
}

/* ---- commands ---- */

void er_tpm_cmd_init(struct er_tpm_cmd *c, uint32_t cc, uint8_t rsp_handles)
{
	er_memset(c, 0, sizeof(*c));
	c->cc = cc;
	c->rsp_handles = rsp_handles;
	er_tpm_wr_init(&c->pw, c->params, sizeof(c->params));
}

void er_tpm_cmd_handle(struct er_tpm_cmd *c, uint32_t h, const uint8_t *name, size_t name_len, bool need_auth)
{
	struct er_tpm_name *nm;

	if (c->nhandles >= ER_TPM_MAX_HANDLES || name_len > ER_TPM_MAX_NAME) {
		c->pw.err = true;
		return;
	}
	nm = &c->names[c->nhandles];
	if (name && name_len) {
		er_memcpy(nm->b, name, name_len);
		nm->n = (uint16_t)name_len;
	} else {
		nm->b[0] = (uint8_t)(h >> 24);
		nm->b[1] = (uint8_t)(h >> 16);
		nm->b[2] = (uint8_t)(h >> 8);
		nm->b[3] = (uint8_t)h;
		nm->n = 4;
	}
	c->handles[c->nhandles++] = h;
	if (need_auth)
		c->nauth++;
}

void er_tpm_cmd_password(struct er_tpm_cmd *c, const uint8_t *pw, size_t n)
{
	struct er_tpm_auth_cmd *a;

	if (c->nsessions >= ER_TPM_MAX_SESSIONS || n > ER_TPM_MAX_DIGEST) {
		c->pw.err = true;
		return;
	}
	a = &c->auth[c->nsessions++];
	er_memset(a, 0, sizeof(*a));
	a->handle = TPM2_RS_PW;
	a->attrs = TPMA_SESSION_CONTINUESESSION;
	if (n)
		er_memcpy(a->hmac, pw, n);
	a->hmac_len = (uint16_t)n;
}

size_t er_tpm_cmd_write(const struct er_tpm_cmd *c, uint8_t *out, size_t cap)
{
	struct er_tpm_wr w;
	size_t authsz_at;

	if (c->pw.err)
		return 0;
	er_tpm_wr_init(&w, out, cap);
	er_tpm_put_u16(&w, c->nsessions ? TPM2_ST_SESSIONS : TPM2_ST_NO_SESSIONS);
	er_tpm_put_u32(&w, 0);                  /* size, patched below */
	er_tpm_put_u32(&w, c->cc);
	for (unsigned i = 0; i < c->nhandles; i++)
		er_tpm_put_u32(&w, c->handles[i]);
	if (c->nsessions) {
		authsz_at = w.len;
		er_tpm_put_u32(&w, 0);
		for (unsigned i = 0; i < c->nsessions; i++) {
			const struct er_tpm_auth_cmd *a = &c->auth[i];
			er_tpm_put_u32(&w, a->handle);
			er_tpm_put_tpm2b(&w, a->nonce, a->nonce_len);
			er_tpm_put_u8(&w, a->attrs);
			er_tpm_put_tpm2b(&w, a->hmac, a->hmac_len);
		}
		if (!w.err)
			er_tpm_set_u32_at(&w, authsz_at, (uint32_t)(w.len - authsz_at - 4));
	}
	er_tpm_put_bytes(&w, c->params, c->pw.len);
	if (!w.err)
		er_tpm_set_u32_at(&w, 2, (uint32_t)w.len);
	return w.err ? 0 : w.len;
}

/* ---- responses ---- */

uint32_t er_tpm_rsp_read(const uint8_t *buf, size_t buf_len, uint8_t rsp_handles,
			 uint8_t nsessions, struct er_tpm_rsp *rsp)
{
	struct er_tpm_rd r;

	er_memset(rsp, 0, sizeof(*rsp));
	if (rsp_handles > 1 || nsessions > ER_TPM_MAX_SESSIONS)
		return ER_TPM_E_MALFORMED;
	er_tpm_rd_init(&r, buf, buf_len);
	rsp->tag = er_tpm_get_u16(&r);
	rsp->size = er_tpm_get_u32(&r);
	rsp->rc = er_tpm_get_u32(&r);
	if (r.err || rsp->size < 10 || rsp->size > buf_len)
		return rsp->rc = ER_TPM_E_MALFORMED;
	if (rsp->tag != TPM2_ST_NO_SESSIONS && rsp->tag != TPM2_ST_SESSIONS)
		return rsp->rc = ER_TPM_E_MALFORMED;
	if (rsp->rc != TPM2_RC_SUCCESS) {
		/* an error response is the header alone (Part 1, 18.4), tagged NO_SESSIONS; a
		 * TPM 1.2-style tag was refused above */
		if (rsp->size != 10 || rsp->rc >= 0x10000)
			return rsp->rc = ER_TPM_E_MALFORMED;
		return rsp->rc;
	}
	/* from here on read only up to the response's own size */
	r.len = rsp->size;
	if (rsp_handles)
		rsp->handle = er_tpm_get_u32(&r);
	if (rsp->tag == TPM2_ST_SESSIONS) {
		uint32_t psz = er_tpm_get_u32(&r);
		if (r.err || psz > r.len - r.off)
			return rsp->rc = ER_TPM_E_MALFORMED;
		rsp->params = er_tpm_get_bytes(&r, psz);
		rsp->params_len = psz;
		if (!nsessions)
			return rsp->rc = ER_TPM_E_MALFORMED;
		for (unsigned i = 0; i < nsessions; i++) {
			struct er_tpm_auth_rsp *a = &rsp->auth[i];
			er_tpm_get_tpm2b(&r, &a->nonce, &a->nonce_len, ER_TPM_MAX_DIGEST);
			a->attrs = er_tpm_get_u8(&r);
			er_tpm_get_tpm2b(&r, &a->hmac, &a->hmac_len, ER_TPM_MAX_DIGEST);
		}
		rsp->nauth = nsessions;
	} else {
		if (nsessions)
			return rsp->rc = ER_TPM_E_MALFORMED;
		rsp->params = r.p + r.off;
		rsp->params_len = r.len - r.off;
		r.off = r.len;
	}
	if (r.err || r.off != r.len) {
		er_memset(rsp, 0, sizeof(*rsp));
		return rsp->rc = ER_TPM_E_MALFORMED;
	}
	return TPM2_RC_SUCCESS;
}

/* ---- TPM_RC ---- */

static const struct { uint16_t rc; const char *name; } rc_names[] = {
	{ 0x000, "TPM_RC_SUCCESS" },
	{ 0x100, "TPM_RC_INITIALIZE" }, { 0x101, "TPM_RC_FAILURE" }, { 0x103, "TPM_RC_SEQUENCE" },
	{ 0x10B, "TPM_RC_PRIVATE" }, { 0x119, "TPM_RC_HMAC" }, { 0x120, "TPM_RC_DISABLED" },
	{ 0x121, "TPM_RC_EXCLUSIVE" }, { 0x124, "TPM_RC_AUTH_TYPE" }, { 0x125, "TPM_RC_AUTH_MISSING" },
	{ 0x126, "TPM_RC_POLICY" }, { 0x127, "TPM_RC_PCR" }, { 0x128, "TPM_RC_PCR_CHANGED" },
	{ 0x12D, "TPM_RC_UPGRADE" }, { 0x12E, "TPM_RC_TOO_MANY_CONTEXTS" },
	{ 0x12F, "TPM_RC_AUTH_UNAVAILABLE" }, { 0x130, "TPM_RC_REBOOT" },
	{ 0x131, "TPM_RC_UNBALANCED" }, { 0x142, "TPM_RC_COMMAND_SIZE" },
	{ 0x143, "TPM_RC_COMMAND_CODE" }, { 0x144, "TPM_RC_AUTHSIZE" },
	{ 0x145, "TPM_RC_AUTH_CONTEXT" }, { 0x14B, "TPM_RC_SENSITIVE" },
	{ 0x153, "TPM_RC_POLICY_CC" }, { 0x159, "TPM_RC_OBJECT_MEMORY" },
	{ 0x167, "TPM_RC_PCR_CHANGED" },
	{ 0x081, "TPM_RC_ASYMMETRIC" }, { 0x082, "TPM_RC_ATTRIBUTES" }, { 0x083, "TPM_RC_HASH" },
	{ 0x084, "TPM_RC_VALUE" }, { 0x085, "TPM_RC_HIERARCHY" }, { 0x087, "TPM_RC_KEY_SIZE" },
	{ 0x088, "TPM_RC_MGF" }, { 0x089, "TPM_RC_MODE" }, { 0x08A, "TPM_RC_TYPE" },
	{ 0x08B, "TPM_RC_HANDLE" }, { 0x08C, "TPM_RC_KDF" }, { 0x08D, "TPM_RC_RANGE" },
	{ 0x08E, "TPM_RC_AUTH_FAIL" }, { 0x08F, "TPM_RC_NONCE" }, { 0x090, "TPM_RC_PP" },
	{ 0x092, "TPM_RC_SCHEME" }, { 0x095, "TPM_RC_SIZE" }, { 0x096, "TPM_RC_SYMMETRIC" },
	{ 0x097, "TPM_RC_TAG" }, { 0x098, "TPM_RC_SELECTOR" }, { 0x09A, "TPM_RC_INSUFFICIENT" },
	{ 0x09B, "TPM_RC_SIGNATURE" }, { 0x09C, "TPM_RC_KEY" }, { 0x09D, "TPM_RC_POLICY_FAIL" },
	{ 0x09F, "TPM_RC_INTEGRITY" }, { 0x0A0, "TPM_RC_TICKET" }, { 0x0A1, "TPM_RC_RESERVED_BITS" },
	{ 0x0A2, "TPM_RC_BAD_AUTH" }, { 0x0A3, "TPM_RC_EXPIRED" }, { 0x0A4, "TPM_RC_POLICY_CC" },
	{ 0x0A5, "TPM_RC_BINDING" }, { 0x0A6, "TPM_RC_CURVE" }, { 0x0A7, "TPM_RC_ECC_POINT" },
	{ 0x901, "TPM_RC_CONTEXT_GAP" }, { 0x902, "TPM_RC_OBJECT_MEMORY" },
	{ 0x903, "TPM_RC_SESSION_MEMORY" }, { 0x904, "TPM_RC_MEMORY" },
	{ 0x905, "TPM_RC_SESSION_HANDLES" }, { 0x906, "TPM_RC_OBJECT_HANDLES" },
	{ 0x907, "TPM_RC_LOCALITY" }, { 0x908, "TPM_RC_YIELDED" }, { 0x909, "TPM_RC_CANCELED" },
	{ 0x90A, "TPM_RC_TESTING" }, { 0x920, "TPM_RC_NV_RATE" }, { 0x921, "TPM_RC_LOCKOUT" },
	{ 0x922, "TPM_RC_RETRY" }, { 0x923, "TPM_RC_NV_UNAVAILABLE" },
};

const char *er_tpm_rc_name(uint16_t base)
{
	for (size_t i = 0; i < sizeof(rc_names) / sizeof(rc_names[0]); i++)
		if (rc_names[i].rc == base)
			return rc_names[i].name;
	return NULL;
}

void er_tpm_rc_decode(uint32_t rc, struct er_tpm_rc_info *i)
{
	er_memset(i, 0, sizeof(*i));
	i->rc = rc;
	i->layer = (uint8_t)(rc >> 16);
	if (rc == ER_TPM_E_MALFORMED || rc == ER_TPM_E_NOSPACE || rc == ER_TPM_E_CRYPTO) {
		i->kind = ER_TPM_RC_MALFORMED;
		return;
	}
	if (rc == ER_TPM_E_RSP_HMAC) {
		i->kind = ER_TPM_RC_HMAC;
		return;
	}
	if (rc == 0) {
		i->kind = ER_TPM_RC_OK;
		return;
	}
	if (rc & 0x80) {
		i->fmt1 = true;
		i->base = (uint16_t)(TPM2_RC_FMT1 | (rc & 0x3F));
		if (rc & 0x40)
			i->param = (uint8_t)((rc >> 8) & 0xF);
		else if (rc & 0x800)
			i->session = (uint8_t)((rc >> 8) & 0x7);
		else
			i->handle = (uint8_t)((rc >> 8) & 0x7);
	} else {
		i->base = (uint16_t)(rc & 0xFFF);
		i->tpm12 = !(rc & 0x100);
		i->vendor = (rc & 0x400) != 0;
		i->warning = (rc & 0x800) != 0;
	}
	if (i->layer != 0)
		i->kind = ER_TPM_RC_OTHER;
	else if (i->base == TPM2_RC_LOCKOUT)
		i->kind = ER_TPM_RC_LOCKOUT;
	else if (i->base == TPM2_RC_AUTH_FAIL)
		i->kind = ER_TPM_RC_AUTH_FAIL;
	else if (i->base == TPM2_RC_BAD_AUTH)
		i->kind = ER_TPM_RC_BAD_AUTH;
	else if (i->base == TPM2_RC_POLICY_FAIL)
		i->kind = ER_TPM_RC_POLICY_FAIL;
	else if (i->base == TPM2_RC_PCR_CHANGED)
		i->kind = ER_TPM_RC_PCR_CHANGED;
	else if (i->base == TPM2_RC_RETRY || i->base == TPM2_RC_TESTING || i->base == TPM2_RC_YIELDED)
		i->kind = ER_TPM_RC_RETRY;
	else
		i->kind = ER_TPM_RC_OTHER;
}

size_t er_tpm_rc_format(uint32_t rc, char *buf, size_t cap)
{
	struct er_tpm_rc_info i;
	const char *nm;
	size_t n;

	er_tpm_rc_decode(rc, &i);
	if (i.kind == ER_TPM_RC_MALFORMED || i.kind == ER_TPM_RC_HMAC)
		return er_snprintf(buf, cap, "rc 0x%08x: %s", (unsigned)rc,
				   rc == ER_TPM_E_RSP_HMAC ? "response HMAC does not verify" :
				   rc == ER_TPM_E_NOSPACE ? "command does not fit" :
				   rc == ER_TPM_E_CRYPTO ? "session crypto refused its input" :
				   "malformed response");
	nm = i.layer == 0 ? er_tpm_rc_name(i.base) : NULL;
	n = er_snprintf(buf, cap, "rc 0x%08x: %s (format %d, 0x%03x%s%s%s)", (unsigned)rc,
			nm ? nm : "unknown", i.fmt1 ? 1 : 0, (unsigned)i.base,
			i.warning ? ", warning" : "", i.vendor ? ", vendor" : "",
			!i.fmt1 && i.tpm12 ? ", TPM 1.2" : "");
	if (i.param)
		n += er_snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", parameter %u", i.param);
	if (i.handle)
		n += er_snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", handle %u", i.handle);
	if (i.session)
		n += er_snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", session %u", i.session);
	n += er_snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", layer %u", i.layer);
	return n;
}
