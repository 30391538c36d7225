// SPDX-License-Identifier: GPL-2.0-or-later
/* HKDF-SHA256 (RFC 5869) over crypto/sha.c's HMAC.
 *   PRK = HMAC(salt, IKM)            (an empty salt is the same key as 32 zero bytes)
 *   T(i) = HMAC(PRK, T(i-1) || info || i), T(0) empty; OKM = T(1) || T(2) ... */
#include "crypto/hkdf.h"
#include "crypto/sha.h"
#include "crypto/wipe.h"
#include "image/freestanding.h"

void er_hkdf_sha256(const uint8_t *salt, size_t salt_len, const uint8_t *ikm, size_t ikm_len,
		    const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len)
{
	struct er_hmac_ctx c;
	uint8_t prk[32], t[32];
	uint8_t i = 0;

	if (out_len > ER_HKDF_SHA256_MAX_OUT) {
		er_memset(out, 0, out_len);
		return;
	}
	er_hmac(ER_HASH_SHA256, salt, salt_len, ikm, ikm_len, prk);
	for (size_t done = 0; done < out_len;) {
		size_t n = ER_MIN(out_len - done, sizeof(t));

		er_hmac_init(&c, ER_HASH_SHA256, prk, sizeof(prk));
		if (i)
			er_hmac_update(&c, t, sizeof(t));
		er_hmac_update(&c, info, info_len);
		i++;
		er_hmac_update(&c, &i, 1);
		er_hmac_final(&c, t);
		er_memcpy(out + done, t, n);
		done += n;
	}
	er_wipe(prk, sizeof(prk));
	er_wipe(t, sizeof(t));
	er_wipe(&c, sizeof(c));
}
