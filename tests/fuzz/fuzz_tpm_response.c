// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for tpm/'s response reader (marshal.c), the command parsers
 * (commands.c) and the session response check (session.c).
 *
 * Input: byte 0 chooses the shape (bit 0: the command returns a handle; bits 1-2: the
 * number of sessions 0..3; bits 3-5: which parser reads the parameters), the rest is the
 * response, copied into a buffer of exactly its size (ASan catches any read past it).
 * Checked: nothing reads outside the buffer or past the response's size field; an accepted
 * response's parameters lie inside it; every rc formats into a small buffer without
 * overrun; and a response to a command with an HMAC session whose key the fuzzer does not
 * know is never accepted (er_tpm_rsp_sessions must not return success). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm/marshal.h"
#include "tpm/commands.h"
#include "tpm/session.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct er_tpm_rsp r;
	uint8_t shape, handles, nsess, which;
	uint8_t *buf;
	size_t len;
	uint32_t rc;
	char msg[24];

	if (size < 1)
		return 0;
	shape = data[0];
	handles = shape & 1;
	nsess = (shape >> 1) & 3;
	which = (shape >> 3) & 7;
	len = size - 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);

	rc = er_tpm_rsp_read(buf, len, handles, nsess, &r);
	er_tpm_rc_format(rc, msg, sizeof(msg));
	check(strlen(msg) < sizeof(msg));
	if (rc == 0) {
		check(r.size <= len);
		check(r.params == NULL ? r.params_len == 0 :
		      (r.params >= buf && r.params + r.params_len <= buf + r.size));
		for (unsigned i = 0; i < r.nauth; i++) {
			check(r.auth[i].nonce_len <= ER_TPM_MAX_DIGEST && r.auth[i].hmac_len <= ER_TPM_MAX_DIGEST);
			if (r.auth[i].nonce_len)
				check(r.auth[i].nonce >= buf && r.auth[i].nonce + r.auth[i].nonce_len <= buf + r.size);
			if (r.auth[i].hmac_len)
				check(r.auth[i].hmac >= buf && r.auth[i].hmac + r.auth[i].hmac_len <= buf + r.size);
		}
		switch (which) {
		case 0: { uint32_t h[16], n; bool more; er_tpm_rsp_get_handles(&r, h, 16, &n, &more); break; }
		case 1: { struct er_tpm_pcr_values v; er_tpm_rsp_pcr_read(&r, &v); break; }
		case 2: { struct er_tpm_public p; er_tpm_rsp_read_public(&r, &p); break; }
		case 3: { struct er_tpm_public p; er_tpm_rsp_create_primary(&r, &p); break; }
		case 4: { struct er_tpm_name nm; er_tpm_rsp_load(&r, &nm); break; }
		case 5: { uint8_t o[128]; size_t n; er_tpm_rsp_unseal(&r, o, sizeof(o), &n); break; }
		case 6: { uint8_t d[64]; size_t n; er_tpm_rsp_policy_get_digest(&r, d, sizeof(d), &n); break; }
		default: { struct er_tpm_public p; er_tpm_parse_public(r.params, r.params_len, &p); break; }
		}
	}

	if (nsess) {
		/* the same bytes as the answer to an Unseal with keyed HMAC sessions that encrypt */
		struct er_tpm_session s[3];
		struct er_tpm_session *ss[3] = { &s[0], &s[1], &s[2] };
		struct er_tpm_cmd c;
		uint8_t rnd[96];

		er_tpm_cmd_unseal(&c, 0x80000001, NULL, 0);
		for (unsigned i = 0; i < nsess; i++) {
			memset(&s[i], 0, sizeof(s[i]));
			s[i].handle = 0x02000000 + i;
			s[i].type = TPM2_SE_HMAC;
			s[i].sym.alg = TPM2_ALG_AES; s[i].sym.bits = 128; s[i].sym.mode = TPM2_ALG_CFB;
			s[i].nonce_len = 32;
			s[i].key_len = 32;
			memset(s[i].key, 0xA5 + i, 32);
			er_tpm_cmd_use_session(&c, &s[i], i == 0 ? TPMA_SESSION_ENCRYPT : 0);
		}
		memset(rnd, 0x5A, sizeof(rnd));
		check(er_tpm_cmd_seal_sessions(&c, ss, rnd, sizeof(rnd)));
		c.rsp_handles = handles;
		rc = er_tpm_rsp_sessions(&c, ss, buf, len, &r);
		check(rc != 0);
	}
	free(buf);
	return 0;
}
