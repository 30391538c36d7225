// SPDX-License-Identifier: GPL-2.0-or-later
/* HKDF-SHA256 (RFC 5869): extract then expand. Freestanding, no allocation. */
#ifndef EFIRESUME_CRYPTO_HKDF_H
#define EFIRESUME_CRYPTO_HKDF_H

#include <stddef.h>
#include <stdint.h>

#define ER_HKDF_SHA256_MAX_OUT (255 * 32)

/* out_len bytes of OKM = HKDF-Expand(HKDF-Extract(salt, ikm), info, out_len). salt may be
 * empty (then HashLen zero bytes, as RFC 5869 says); NULL is fine with a length of 0.
 * out_len must be <= ER_HKDF_SHA256_MAX_OUT (255 * 32): beyond it out is zeroed (RFC 5869
 * defines no output there). The PRK and every T(i) are wiped. */
void er_hkdf_sha256(const uint8_t *salt, size_t salt_len, const uint8_t *ikm, size_t ikm_len,
		    const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len);

#endif
