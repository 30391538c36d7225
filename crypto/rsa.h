// SPDX-License-Identifier: GPL-2.0-or-later
/* RSA public-key operations for a TPM session salted by an RSA SRK (TPM 2.0 Part 1,
 * C.6.3 / B.10.3: the salt is RSA-OAEP-encrypted to the tpmKey with label "SECRET\0"):
 * the raw public operation m^e mod n (Montgomery multiplication over 32-bit limbs) and
 * RSAES-OAEP encryption with SHA-256 and MGF1-SHA-256 (RFC 8017, 7.1.1). Only public
 * values are exponentiated, so nothing here needs constant time beyond the message
 * itself (the salt), whose handling does not branch on its bits. Freestanding. */
#ifndef EFIRESUME_CRYPTO_RSA_H
#define EFIRESUME_CRYPTO_RSA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ER_RSA_MAX_BYTES 512          /* 4096-bit moduli */

/* out = in^e mod n, all big-endian of nlen bytes (n odd, top byte non-zero, in < n,
 * 64 <= nlen <= ER_RSA_MAX_BYTES); false otherwise. */
bool er_rsa_public(const uint8_t *n, size_t nlen, uint32_t e, const uint8_t *in, uint8_t *out);
/* RSAES-OAEP-ENCRYPT with SHA-256: label (may include its own terminating zero, as the TPM's
 * "SECRET\0"), seed = 32 random bytes from the caller; out has nlen bytes. false when the
 * message is too long (mlen > nlen - 66) or the key is refused. */
bool er_rsa_oaep_sha256_encrypt(const uint8_t *n, size_t nlen, uint32_t e,
				const uint8_t *label, size_t label_len,
				const uint8_t *msg, size_t mlen, const uint8_t seed[32], uint8_t *out);

#endif
