// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-256-GCM (NIST SP 800-38D) with 96-bit IVs and 128-bit tags, as OpenSSL's
 * EVP_aes_256_gcm computes it. Freestanding: no allocation, the caller owns the context.
 * Two paths: AES-NI + PCLMULQDQ (x86_64, when the CPU has both and, in the EFI build,
 * CR4.OSFXSR says SSE is enabled), and a portable constant-time one (the bit-sliced AES
 * of aes.c, GHASH by a table-free carry-less multiply). */
#ifndef EFIRESUME_CRYPTO_GCM_H
#define EFIRESUME_CRYPTO_GCM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Expanded AES-256 key + GHASH key material; caller-owned. Const after er_gcm_init, so
 * one context may be used from several CPUs at once. Wipe with er_gcm_wipe. */
struct er_gcm {
	uint8_t rk[15 * 16];        /* AES-256 round keys, bytes (AES-NI) */
	uint64_t bs[15][8];         /* the same, bit-sliced (portable path) */
	uint64_t h[2];              /* H = E_K(0^128), big-endian halves (portable GHASH) */
	uint8_t hk[8][16];          /* H^1..H^8 for PCLMULQDQ: each times x^-1, byte-reflected */
	uint8_t hkk[8][16];         /* their Karatsuba halves (hi ^ lo, low qword) */
	bool hw;                    /* AES-NI + PCLMULQDQ path usable (checked at init) */
};

void er_gcm_init(struct er_gcm *g, const uint8_t key[32]);
/* out = in encrypted (len bytes, any length; in == out allowed), tag over aad and out */
void er_gcm_encrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]);
/* in == out allowed; the tag is compared in constant time; on a mismatch out (len bytes)
 * is wiped (zeroed) and false returned */
bool er_gcm_decrypt(const struct er_gcm *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
		    const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]);
void er_gcm_wipe(struct er_gcm *g);
bool er_gcm_hw(const struct er_gcm *g);   /* AES-NI + PCLMULQDQ path in use */
void er_gcm_force_soft(bool soft);        /* tests/bench: portable path */

#endif
