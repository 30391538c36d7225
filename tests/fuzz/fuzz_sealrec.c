// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for tpm/seal.c's sealed-key record parser (EfiresumeHibernationKeyV3's
 * content: a variable's bytes are whatever the flash holds) and the Create response reader.
 *
 * Input: the record, copied into a buffer of exactly its size (ASan catches any read past it).
 * Checked: nothing reads outside it; a refusal always says why; an accepted record is
 * canonical (written back it is the input, byte for byte), its bank is SHA-256, its mask
 * non-zero within 24 PCRs, its parent Name a SHA-256 Name, its public area a sealed object
 * under its own policy; and the same bytes read as Create's response parameters give blobs
 * that lie inside them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm/seal.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct er_sealrec r;
	static uint8_t out[ER_SEALREC_MAX];
	struct er_tpm_rsp rsp;
	const uint8_t *priv, *pub;
	size_t pl, ql, n;
	const char *why = NULL;
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (er_sealrec_parse(buf, size, &r, &why)) {
		check(why == NULL);
		check(r.bank == TPM2_ALG_SHA256 && r.pcr_mask && r.pcr_mask <= 0xFFFFFF && r.version == 1);
		check(r.parent.n == 34 && r.pub_len && r.priv_len);
		check(er_tpm_sealed_public_ok(r.pub, r.pub_len, r.policy));
		n = er_sealrec_write(&r, out, sizeof(out));
		check(n == size && memcmp(out, buf, size) == 0);
	} else {
		check(why != NULL && why[0] != 0);
	}
	memset(&rsp, 0, sizeof(rsp));
	rsp.params = buf;
	rsp.params_len = size;
	if (er_tpm_rsp_create(&rsp, &priv, &pl, &pub, &ql)) {
		check(priv >= buf && priv + pl <= buf + size);
		check(pub >= buf && pub + ql <= buf + size);
		check(pl <= ER_SEALREC_MAX_PRIVATE && ql <= ER_SEALREC_MAX_PUBLIC);
	}
	free(buf);
	return 0;
}
