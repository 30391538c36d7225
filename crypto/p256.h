// SPDX-License-Identifier: GPL-2.0-or-later
/* NIST P-256 (FIPS 186-4, SEC 2 secp256r1) for ECDH: public key from a private scalar and
 * the shared x-coordinate, as the TPM's salted sessions need (TPM 2.0 Part 1, 19.6.13 /
 * C.6.1: the salt is KDFe of the ECDH point). Written for this tree: eight 32-bit limbs,
 * Montgomery multiplication, the complete projective addition of Renes, Costello and
 * Batina (eprint 2015/1060, algorithm 4, a = -3) and a Montgomery ladder over all 256
 * scalar bits with constant-time swaps: no branch or index depends on the private scalar.
 * Freestanding, no allocation; intermediate values are wiped. */
#ifndef EFIRESUME_CRYPTO_P256_H
#define EFIRESUME_CRYPTO_P256_H

#include <stdint.h>
#include <stdbool.h>

/* Points are affine, big-endian x || y (32 bytes each), as the TPM's TPMS_ECC_POINT.
 * priv: a big-endian scalar, refused unless 1 <= priv < n. */
bool er_p256_public(const uint8_t priv[32], uint8_t pub[64]);
/* The shared secret x(priv * peer): refused for a priv out of range or a peer point not on
 * the curve (coordinates >= p included). */
bool er_p256_ecdh(const uint8_t priv[32], const uint8_t peer[64], uint8_t x_out[32]);
/* true when x || y is a point of the curve (not infinity), coordinates < p */
bool er_p256_on_curve(const uint8_t pub[64]);

#endif
