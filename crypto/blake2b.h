// SPDX-License-Identifier: GPL-2.0-or-later
/* BLAKE2b (RFC 7693), freestanding, and Argon2's variable-length hash H' (RFC 9106 3.3). */
#ifndef EFIRESUME_CRYPTO_BLAKE2B_H
#define EFIRESUME_CRYPTO_BLAKE2B_H

#include "image/freestanding.h"

#define ER_BLAKE2B_BLOCK  128u
#define ER_BLAKE2B_OUTMAX 64u
#define ER_BLAKE2B_KEYMAX 64u

struct er_blake2b {
	uint64_t h[8];
	uint64_t t[2];                      /* bytes hashed so far (128-bit counter) */
	uint8_t buf[ER_BLAKE2B_BLOCK];
	size_t buflen;
	size_t outlen;
};

/* outlen 1..64, keylen 0..64 (key may be NULL when keylen is 0); false for a bad length. */
bool er_blake2b_init_key(struct er_blake2b *c, size_t outlen, const void *key, size_t keylen);
bool er_blake2b_init(struct er_blake2b *c, size_t outlen);
void er_blake2b_update(struct er_blake2b *c, const void *data, size_t n);
/* writes c->outlen bytes to out, then wipes the context */
void er_blake2b_final(struct er_blake2b *c, uint8_t *out);
/* one shot, unkeyed; false for outlen outside 1..64 */
bool er_blake2b(uint8_t *out, size_t outlen, const void *data, size_t n);

/* H'^outlen(a || b): Argon2's variable-length hash of the concatenation of two inputs
 * (b may be NULL with blen 0). outlen 1..2^32-1; false for outlen 0 or above. */
bool er_blake2b_long(uint8_t *out, size_t outlen, const void *a, size_t alen, const void *b, size_t blen);

#endif
