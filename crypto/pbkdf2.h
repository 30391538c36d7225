// SPDX-License-Identifier: GPL-2.0-or-later
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

/* Iterations between two polls of er_pbkdf2_poll's stop hook: about 6 ms of HMAC-SHA-512,
 * the slowest (1.3 million iterations a second on one CPU of the build host). */
#define ER_PBKDF2_POLL_ITERATIONS 8192u

/* er_pbkdf2 that can be stopped: stop(ctx) (when stop is not NULL) is called before each
 * output block and then every ER_PBKDF2_POLL_ITERATIONS iterations; when it returns true
 * the derivation stops, out[0..outlen) and every intermediate state are wiped, *stopped is
 * set and the result is false. *stopped is false after a refusal or a completed run. */
bool er_pbkdf2_poll(enum er_hash h, const uint8_t *pw, size_t pwlen, const uint8_t *salt,
		    size_t saltlen, uint32_t iterations, uint8_t *out, size_t outlen,
		    bool (*stop)(void *ctx), void *ctx, bool *stopped);

#endif
