// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-128/256 in CFB mode with a full 128-bit feedback (NIST SP 800-38A, CFB-128), as the
 * TPM's session parameter encryption uses (TPM 2.0 Part 1, 21.4): any length, the last
 * partial block uses the leading bytes of the key stream. Through the constant-time
 * bit-sliced AES core of aes.c. Freestanding; the expanded key is wiped. */
#ifndef EFIRESUME_CRYPTO_CFB_H
#define EFIRESUME_CRYPTO_CFB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* In place; key 16 or 32 bytes (false and buf untouched otherwise). */
bool er_aes_cfb_encrypt(const uint8_t *key, size_t keylen, const uint8_t iv[16], uint8_t *buf, size_t len);
bool er_aes_cfb_decrypt(const uint8_t *key, size_t keylen, const uint8_t iv[16], uint8_t *buf, size_t len);

#endif
