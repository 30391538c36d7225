/* PBKDF2 with HMAC-SHA-1/256/512 (RFC 8018 section 5.2), as LUKS1 and LUKS2 keyslots use it. */
#ifndef EFIRESUME_CRYPTO_PBKDF2_H
#define EFIRESUME_CRYPTO_PBKDF2_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "crypto/sha.h"

/* PBKDF2-HMAC (RFC 8018); returns false for a bad argument (iterations 0, unknown hash,
 * outlen 0 or more than (2^32 - 1) hash lengths). The intermediate state is wiped. */
bool er_pbkdf2(enum er_hash h, const uint8_t *pw, size_t pwlen, const uint8_t *salt, size_t saltlen,
	       uint32_t iterations, uint8_t *out, size_t outlen);

#endif
