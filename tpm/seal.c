// SPDX-License-Identifier: GPL-2.0-or-later
/* Sealing to the TPM and the sealed-key record: see seal.h. */
#include "tpm/seal.h"
#include "image/freestanding.h"

size_t er_tpm_seal_template(const uint8_t policy[32], uint8_t *out, size_t cap)
{
	struct er_tpm_wr w;

	er_tpm_wr_init(&w, out, cap);
	er_tpm_put_u16(&w, TPM2_ALG_KEYEDHASH);
	er_tpm_put_u16(&w, TPM2_ALG_SHA256);
	er_tpm_put_u32(&w, ER_TPM_SEAL_ATTRS);
	er_tpm_put_tpm2b(&w, policy, 32);        /* authPolicy */
	er_tpm_put_u16(&w, TPM2_ALG_NULL);       /* TPMT_KEYEDHASH_SCHEME: NULL (sealed data) */
	er_tpm_put_u16(&w, 0);                   /* unique: empty (the TPM fills it) */
	return w.err ? 0 : w.len;
}

void er_tpm_cmd_create_sealed(struct er_tpm_cmd *c, uint32_t parent, const uint8_t *parent_name,
			      size_t parent_name_len, const uint8_t *data, size_t data_len,
			      const uint8_t policy[32])
{
	uint8_t t[96];
	size_t n = er_tpm_seal_template(policy, t, sizeof(t));

	er_tpm_cmd_init(c, TPM2_CC_Create, 0);
	er_tpm_cmd_handle(c, parent, parent_name, parent_name_len, true);
	if (!n || data_len > ER_TPM_SEAL_MAX_DATA)
		c->pw.err = true;
	/* TPM2B_SENSITIVE_CREATE { TPM2B_AUTH userAuth (empty), TPM2B_SENSITIVE_DATA data }:
	 * the first parameter, the one a DECRYPT session encrypts whole */
	er_tpm_put_u16(&c->pw, (uint16_t)(2 + 2 + data_len));
	er_tpm_put_u16(&c->pw, 0);
	er_tpm_put_tpm2b(&c->pw, data, data_len);
	er_tpm_put_tpm2b(&c->pw, t, n);          /* inPublic */
	er_tpm_put_u16(&c->pw, 0);               /* outsideInfo */
	er_tpm_put_u32(&c->pw, 0);               /* creationPCR: none */
}

bool er_tpm_rsp_create(const struct er_tpm_rsp *r, const uint8_t **priv, size_t *priv_len,
		       const uint8_t **pub, size_t *pub_len)
{
	struct er_tpm_rd rd;
	const uint8_t *b;
	size_t bl;

	er_tpm_rd_init(&rd, r->params, r->params_len);
	er_tpm_get_tpm2b(&rd, priv, priv_len, ER_SEALREC_MAX_PRIVATE);   /* outPrivate */
	er_tpm_get_tpm2b(&rd, pub, pub_len, ER_SEALREC_MAX_PUBLIC);      /* outPublic */
	er_tpm_get_tpm2b(&rd, &b, &bl, 0xFFFF);                           /* creationData */
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST);                /* creationHash */
	er_tpm_get_u16(&rd);                                               /* creationTicket: tag */
	er_tpm_get_u32(&rd);                                               /*   hierarchy */
	er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST);                /*   digest */
	return !rd.err && rd.off == rd.len && *priv_len > 0 && *pub_len > 0;
}

bool er_tpm_sealed_public_ok(const uint8_t *pub, size_t n, const uint8_t policy[32])
{
	struct er_tpm_rd rd;
	const uint8_t *ap, *u;
	size_t al, ul;

	er_tpm_rd_init(&rd, pub, n);
	if (er_tpm_get_u16(&rd) != TPM2_ALG_KEYEDHASH || er_tpm_get_u16(&rd) != TPM2_ALG_SHA256 ||
	    er_tpm_get_u32(&rd) != ER_TPM_SEAL_ATTRS)
		return false;
	er_tpm_get_tpm2b(&rd, &ap, &al, ER_TPM_MAX_DIGEST);
	if (rd.err || al != 32 || er_memcmp(ap, policy, 32) != 0)
		return false;
	if (er_tpm_get_u16(&rd) != TPM2_ALG_NULL)
		return false;
	er_tpm_get_tpm2b(&rd, &u, &ul, ER_TPM_MAX_DIGEST);  /* unique: H(seedValue || data) */
	return !rd.err && rd.off == rd.len && ul == 32;
}

size_t er_sealrec_write(const struct er_sealrec *r, uint8_t *out, size_t cap)
{
	struct er_tpm_wr w;

	if (r->pub_len > ER_SEALREC_MAX_PUBLIC || r->priv_len > ER_SEALREC_MAX_PRIVATE ||
	    r->parent.n > ER_TPM_MAX_NAME)
		return 0;
	er_tpm_wr_init(&w, out, cap);
	er_tpm_put_bytes(&w, ER_SEALREC_MAGIC, 4);
	er_tpm_put_u16(&w, r->version);
	er_tpm_put_u16(&w, r->bank);
	er_tpm_put_u32(&w, r->pcr_mask);
	er_tpm_put_tpm2b(&w, r->policy, 32);
	er_tpm_put_bytes(&w, r->key_id, ER_SEALREC_KEY_ID_LEN);
	er_tpm_put_tpm2b(&w, r->parent.b, r->parent.n);
	er_tpm_put_tpm2b(&w, r->pub, r->pub_len);
	er_tpm_put_tpm2b(&w, r->priv, r->priv_len);
	return w.err ? 0 : w.len;
}

#define REFUSE(msg) do { *why = (msg); er_memset(r, 0, sizeof(*r)); return false; } while (0)

bool er_sealrec_parse(const uint8_t *p, size_t n, struct er_sealrec *r, const char **why)
{
	struct er_tpm_rd rd;
	const uint8_t *m, *b;
	size_t bl;

	er_memset(r, 0, sizeof(*r));
	er_tpm_rd_init(&rd, p, n);
	m = er_tpm_get_bytes(&rd, 4);
	if (!m || er_memcmp(m, ER_SEALREC_MAGIC, 4) != 0)
		REFUSE("not a sealed-key record (no \"EFRT\")");
	r->version = er_tpm_get_u16(&rd);
	if (rd.err || r->version != ER_SEALREC_VERSION)
		REFUSE("a sealed-key record of another version");
	r->bank = er_tpm_get_u16(&rd);
	r->pcr_mask = er_tpm_get_u32(&rd);
	if (rd.err || r->bank != TPM2_ALG_SHA256)
		REFUSE("the record's PCR bank is not SHA-256");
	if (r->pcr_mask == 0 || r->pcr_mask > 0xFFFFFFu)
		REFUSE("the record's PCR mask is empty or names PCRs past 23");
	if (!er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_DIGEST) || bl != 32)
		REFUSE("the record's policy digest is not 32 bytes");
	er_memcpy(r->policy, b, 32);
	b = er_tpm_get_bytes(&rd, ER_SEALREC_KEY_ID_LEN);
	if (!b)
		REFUSE("the record is cut short");
	er_memcpy(r->key_id, b, ER_SEALREC_KEY_ID_LEN);
	if (!er_tpm_get_tpm2b(&rd, &b, &bl, ER_TPM_MAX_NAME) || bl != 34 ||
	    ((uint16_t)(b[0] << 8 | b[1])) != TPM2_ALG_SHA256)
		REFUSE("the record's parent Name is not a SHA-256 Name");
	er_memcpy(r->parent.b, b, bl);
	r->parent.n = (uint16_t)bl;
	if (!er_tpm_get_tpm2b(&rd, &b, &bl, ER_SEALREC_MAX_PUBLIC) || bl == 0)
		REFUSE("the record's public area is missing or too large");
	er_memcpy(r->pub, b, bl);
	r->pub_len = (uint16_t)bl;
	if (!er_tpm_get_tpm2b(&rd, &b, &bl, ER_SEALREC_MAX_PRIVATE) || bl == 0)
		REFUSE("the record's private area is missing or too large");
	er_memcpy(r->priv, b, bl);
	r->priv_len = (uint16_t)bl;
	if (rd.off != rd.len)
		REFUSE("bytes after the record");
	if (!er_tpm_sealed_public_ok(r->pub, r->pub_len, r->policy))
		REFUSE("the record's public area is not a sealed object under its policy");
	*why = NULL;
	return true;
}
