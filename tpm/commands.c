// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 command builders and response parsers: see commands.h. */
#include "tpm/commands.h"
#include "crypto/sha.h"
#include "image/freestanding.h"

void er_tpm_cmd_get_capability(struct er_tpm_cmd *c, uint32_t cap, uint32_t prop, uint32_t count)
{
	er_tpm_cmd_init(c, TPM2_CC_GetCapability, 0);
	er_tpm_put_u32(&c->pw, cap);
	er_tpm_put_u32(&c->pw, prop);
	er_tpm_put_u32(&c->pw, count);
}

bool er_tpm_rsp_get_handles(const struct er_tpm_rsp *r, uint32_t *handles, uint32_t max,
			    uint32_t *n, bool *more)
{
	struct er_tpm_rd rd;
	uint8_t yes;
	uint32_t cnt;

	*n = 0;
	er_tpm_rd_init(&rd, r->params, r->params_len);
	yes = er_tpm_get_u8(&rd);
	if (er_tpm_get_u32(&rd) != TPM2_CAP_HANDLES || yes > 1)
		return false;
	cnt = er_tpm_get_u32(&rd);
	if (rd.err || cnt > (rd.len - rd.off) / 4 || cnt > max)
		return false;
	for (uint32_t i = 0; i < cnt; i++)
		handles[i] = er_tpm_get_u32(&rd);
	if (rd.err || rd.off != rd.len)
		return false;
	*n = cnt;
	*more = yes != 0;
	return true;
}

void er_tpm_cmd_pcr_read(struct er_tpm_cmd *c, const struct er_tpm_pcr_selection *sel)
{
	er_tpm_cmd_init(c, TPM2_CC_PCR_Read, 0);
	er_tpm_put_pcr_selection(&c->pw, sel);
}

bool er_tpm_rsp_pcr_read(const struct er_tpm_rsp *r, struct er_tpm_pcr_values *v)
{
	struct er_tpm_rd rd;

	er_memset(v, 0, sizeof(*v));
	er_tpm_rd_init(&rd, r->params, r->params_len);
	v->update_counter = er_tpm_get_u32(&rd);
	if (!er_tpm_get_pcr_selection(&rd, &v->sel))
		return false;
	v->count = er_tpm_get_u32(&rd);
	if (rd.err || v->count > ER_TPM_MAX_PCR_VALUES) {
		v->count = 0;
		return false;
	}
	for (uint32_t i = 0; i < v->count; i++) {
		size_t n;
		if (!er_tpm_get_tpm2b_copy(&rd, v->d[i], ER_TPM_MAX_DIGEST, &n))
			return false;
		v->len[i] = (uint16_t)n;
	}
	return !rd.err && rd.off == rd.len;
}

void er_tpm_cmd_read_public(struct er_tpm_cmd *c, uint32_t handle)
{
	er_tpm_cmd_init(c, TPM2_CC_ReadPublic, 0);
	er_tpm_cmd_handle(c, handle, NULL, 0, false);
}

static void skip_scheme(struct er_tpm_rd *rd)
{
	/* TPMT_*_SCHEME: an alg, and for anything but NULL its hashAlg (every scheme the ECC and
	 * RSA parameters take carries just a hash; ECDAA's count is refused) */
	uint16_t alg = er_tpm_get_u16(rd);
	if (alg == 0x001A /* ECDAA */)
		rd->err = true;
	else if (alg != TPM2_ALG_NULL)
		er_tpm_get_u16(rd);
}

bool er_tpm_parse_public(const uint8_t *p, size_t n, struct er_tpm_public *pub)
{
	struct er_tpm_rd rd;
	const uint8_t *b;
	size_t bl;

	er_memset(pub, 0, sizeof(*pub));
	if (n > sizeof(pub->area) || n < 10)
		return false;
	er_memcpy(pub->area, p, n);
	pub->area_len = (uint16_t)n;
	er_tpm_rd_init(&rd, p, n);
	pub->type = er_tpm_get_u16(&rd);
	pub->name_alg = er_tpm_get_u16(&rd);
	pub->attrs = er_tpm_get_u32(&rd);
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST);      /* authPolicy */
	if (rd.err || pub->name_alg != TPM2_ALG_SHA256)
		return false;
	if (pub->type == TPM2_ALG_ECC) {
		const uint8_t *x, *y;
		size_t xl, yl;
		er_tpm_get_sym(&rd, &pub->sym);
		skip_scheme(&rd);
		pub->curve = er_tpm_get_u16(&rd);
		skip_scheme(&rd);                                /* kdf */
		er_tpm_get_tpm2b(&rd, &x, &xl, 66);
		er_tpm_get_tpm2b(&rd, &y, &yl, 66);
		if (rd.err || rd.off != rd.len)
			return false;
		if (pub->curve == TPM2_ECC_NIST_P256) {
			if (xl != 32 || yl != 32)
				return false;
			er_memcpy(pub->ecc_point, x, 32);
			er_memcpy(pub->ecc_point + 32, y, 32);
		}
	} else if (pub->type == TPM2_ALG_RSA) {
		const uint8_t *nb;
		size_t nl;
		er_tpm_get_sym(&rd, &pub->sym);
		skip_scheme(&rd);
		pub->rsa_bits = er_tpm_get_u16(&rd);
		pub->rsa_exp = er_tpm_get_u32(&rd);
		if (pub->rsa_exp == 0)
			pub->rsa_exp = 65537;
		er_tpm_get_tpm2b(&rd, &nb, &nl, sizeof(pub->rsa_n));
		if (rd.err || rd.off != rd.len || nl * 8 != pub->rsa_bits)
			return false;
		er_memcpy(pub->rsa_n, nb, nl);
		pub->rsa_n_len = (uint16_t)nl;
	}
	/* Name = nameAlg || H(TPMT_PUBLIC) */
	pub->name.b[0] = (uint8_t)(TPM2_ALG_SHA256 >> 8);
	pub->name.b[1] = (uint8_t)TPM2_ALG_SHA256;
	er_hash(ER_HASH_SHA256, p, n, pub->name.b + 2);
	pub->name.n = 34;
	return true;
}

bool er_tpm_rsp_read_public(const struct er_tpm_rsp *r, struct er_tpm_public *pub)
{
	struct er_tpm_rd rd;
	const uint8_t *area, *name, *qname;
	size_t al, nl, ql;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	er_tpm_get_tpm2b(&rd, &area, &al, ER_TPM_MAX_PUBLIC);
	er_tpm_get_tpm2b(&rd, &name, &nl, ER_TPM_MAX_NAME);
	er_tpm_get_tpm2b(&rd, &qname, &ql, ER_TPM_MAX_NAME);
	if (rd.err || rd.off != rd.len || !er_tpm_parse_public(area, al, pub))
		return false;
	/* the TPM's Name must be the one its public area hashes to */
	return nl == pub->name.n && er_memcmp(name, pub->name.b, nl) == 0;
}

size_t er_tpm_primary_template(uint16_t alg, bool noda, uint8_t *out, size_t cap)
{
	struct er_tpm_wr w;
	const struct er_tpm_sym aes = { TPM2_ALG_AES, 128, TPM2_ALG_CFB };

	if (alg != TPM2_ALG_ECC && alg != TPM2_ALG_RSA)
		return 0;
	er_tpm_wr_init(&w, out, cap);
	er_tpm_put_u16(&w, alg);
	er_tpm_put_u16(&w, TPM2_ALG_SHA256);
	er_tpm_put_u32(&w, TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			   TPMA_OBJECT_USERWITHAUTH | (noda ? TPMA_OBJECT_NODA : 0) | TPMA_OBJECT_RESTRICTED |
			   TPMA_OBJECT_DECRYPT);
	er_tpm_put_u16(&w, 0);                   /* authPolicy: empty */
	er_tpm_put_sym(&w, &aes);
	er_tpm_put_u16(&w, TPM2_ALG_NULL);       /* scheme */
	if (alg == TPM2_ALG_ECC) {
		er_tpm_put_u16(&w, TPM2_ECC_NIST_P256);
		er_tpm_put_u16(&w, TPM2_ALG_NULL);       /* kdf */
		er_tpm_put_u16(&w, 0);                   /* unique.x */
		er_tpm_put_u16(&w, 0);                   /* unique.y */
	} else {
		er_tpm_put_u16(&w, 2048);                /* keyBits */
		er_tpm_put_u32(&w, 0);                   /* exponent: the default */
		er_tpm_put_u16(&w, 0);                   /* unique: empty */
	}
	return w.err ? 0 : w.len;
}

size_t er_tpm_srk_template(uint16_t alg, uint8_t *out, size_t cap)
{
	return er_tpm_primary_template(alg, true, out, cap);
}

void er_tpm_cmd_create_primary_srk(struct er_tpm_cmd *c, uint32_t hierarchy, uint16_t alg)
{
	uint8_t t[64];
	size_t n = er_tpm_srk_template(alg, t, sizeof(t));

	er_tpm_cmd_init(c, TPM2_CC_CreatePrimary, 1);
	er_tpm_cmd_handle(c, hierarchy, NULL, 0, true);
	if (!n)
		c->pw.err = true;
	er_tpm_put_u16(&c->pw, 4);               /* TPM2B_SENSITIVE_CREATE: */
	er_tpm_put_u16(&c->pw, 0);               /*   userAuth empty */
	er_tpm_put_u16(&c->pw, 0);               /*   data empty */
	er_tpm_put_tpm2b(&c->pw, t, n);          /* inPublic */
	er_tpm_put_u16(&c->pw, 0);               /* outsideInfo */
	er_tpm_put_u32(&c->pw, 0);               /* creationPCR: none */
}

bool er_tpm_rsp_create_primary(const struct er_tpm_rsp *r, struct er_tpm_public *pub)
{
	struct er_tpm_rd rd;
	const uint8_t *area, *b;
	size_t al, bl;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	er_tpm_get_tpm2b(&rd, &area, &al, ER_TPM_MAX_PUBLIC);
	er_tpm_get_tpm2b(&rd, &b, &bl, 0xFFFF);         /* creationData */
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST);   /* creationHash */
	er_tpm_get_u16(&rd);                             /* creationTicket: tag */
	er_tpm_get_u32(&rd);                             /*   hierarchy */
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST);   /*   digest */
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_NAME);     /* name */
	if (rd.err || rd.off != rd.len || !er_tpm_parse_public(area, al, pub))
		return false;
	return bl == pub->name.n && er_memcmp(b, pub->name.b, bl) == 0;
}

void er_tpm_cmd_policy_pcr(struct er_tpm_cmd *c, uint32_t session, const uint8_t *pcr_digest,
			   size_t digest_len, const struct er_tpm_pcr_selection *sel)
{
	er_tpm_cmd_init(c, TPM2_CC_PolicyPCR, 0);
	er_tpm_cmd_handle(c, session, NULL, 0, false);
	er_tpm_put_tpm2b(&c->pw, pcr_digest, pcr_digest ? digest_len : 0);
	er_tpm_put_pcr_selection(&c->pw, sel);
}

void er_tpm_cmd_policy_auth_value(struct er_tpm_cmd *c, uint32_t session)
{
	er_tpm_cmd_init(c, TPM2_CC_PolicyAuthValue, 0);
	er_tpm_cmd_handle(c, session, NULL, 0, false);
}

void er_tpm_cmd_policy_get_digest(struct er_tpm_cmd *c, uint32_t session)
{
	er_tpm_cmd_init(c, TPM2_CC_PolicyGetDigest, 0);
	er_tpm_cmd_handle(c, session, NULL, 0, false);
}

bool er_tpm_rsp_policy_get_digest(const struct er_tpm_rsp *r, uint8_t *d, size_t cap, size_t *n)
{
	struct er_tpm_rd rd;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	return er_tpm_get_tpm2b_copy(&rd, d, cap, n) && rd.off == rd.len;
}

void er_tpm_policy_pcr_update(uint8_t digest[32], const struct er_tpm_pcr_selection *sel,
			      const uint8_t pcr_values_hash[32])
{
	uint8_t buf[4 + 4 + ER_TPM_MAX_PCR_BANKS * 7];
	struct er_tpm_wr w;
	struct er_hash_ctx h;

	er_tpm_wr_init(&w, buf, sizeof(buf));
	er_tpm_put_u32(&w, TPM2_CC_PolicyPCR);
	er_tpm_put_pcr_selection(&w, sel);
	er_hash_init(&h, ER_HASH_SHA256);
	er_hash_update(&h, digest, 32);
	er_hash_update(&h, buf, w.len);
	er_hash_update(&h, pcr_values_hash, 32);
	er_hash_final(&h, digest);
}

void er_tpm_cmd_load(struct er_tpm_cmd *c, uint32_t parent, const uint8_t *parent_name, size_t parent_name_len,
		     const uint8_t *priv, size_t priv_len, const uint8_t *pub, size_t pub_len)
{
	er_tpm_cmd_init(c, TPM2_CC_Load, 1);
	er_tpm_cmd_handle(c, parent, parent_name, parent_name_len, true);
	er_tpm_put_tpm2b(&c->pw, priv, priv_len);
	er_tpm_put_tpm2b(&c->pw, pub, pub_len);
}

bool er_tpm_rsp_load(const struct er_tpm_rsp *r, struct er_tpm_name *name)
{
	struct er_tpm_rd rd;
	size_t n;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	if (!er_tpm_get_tpm2b_copy(&rd, name->b, sizeof(name->b), &n) || rd.off != rd.len)
		return false;
	name->n = (uint16_t)n;
	return true;
}

void er_tpm_cmd_unseal(struct er_tpm_cmd *c, uint32_t item, const uint8_t *item_name, size_t item_name_len)
{
	er_tpm_cmd_init(c, TPM2_CC_Unseal, 0);
	er_tpm_cmd_handle(c, item, item_name, item_name_len, true);
}

bool er_tpm_rsp_unseal(const struct er_tpm_rsp *r, uint8_t *out, size_t cap, size_t *n)
{
	struct er_tpm_rd rd;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	return er_tpm_get_tpm2b_copy(&rd, out, cap, n) && rd.off == rd.len;
}

void er_tpm_cmd_flush_context(struct er_tpm_cmd *c, uint32_t handle)
{
	er_tpm_cmd_init(c, TPM2_CC_FlushContext, 0);
	er_tpm_put_u32(&c->pw, handle);      /* a parameter, not a handle (Part 3, 28.4) */
}
