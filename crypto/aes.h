// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-128/256 in XTS mode (IEEE 1619, NIST SP 800-38E) with the plain64 tweak, as
 * dm-crypt's aes-xts-plain64 and OpenSSL's EVP_aes_{128,256}_xts compute it: one data
 * unit per sector, no ciphertext stealing (lengths are whole 16-byte blocks).
 * AES-NI when the CPU has it (and, on ia32, the OS/firmware enabled SSE: CR4.OSFXSR),
 * otherwise a table-free constant-time bitsliced implementation. */
#ifndef EFIRESUME_CRYPTO_AES_H
#define EFIRESUME_CRYPTO_AES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ER_AES_MAX_ROUNDS 14

/* Two expanded keys (K1 data, K2 tweak), each in two forms: bytes for AES-NI (K1 also
 * as decryption round keys, InvMixColumns applied) and bit-sliced for the soft path.
 * No alignment is assumed. Wipe with er_aes_xts_wipe. */
struct er_aes_xts {
	uint32_t rounds;                                   /* 10 or 14 */
	bool hw;                                           /* AES-NI usable (checked at init) */
	uint8_t ek1[(ER_AES_MAX_ROUNDS + 1) * 16];         /* K1 encryption round keys */
	uint8_t dk1[(ER_AES_MAX_ROUNDS + 1) * 16];         /* K1 decryption round keys (AES-NI order) */
	uint8_t ek2[(ER_AES_MAX_ROUNDS + 1) * 16];         /* K2 encryption round keys */
	uint64_t bs1[ER_AES_MAX_ROUNDS + 1][8];            /* K1 bit-sliced */
	uint64_t bs2[ER_AES_MAX_ROUNDS + 1][8];            /* K2 bit-sliced */
};

/* key is 32 bytes (AES-128-XTS) or 64 bytes (AES-256-XTS), as LUKS key_size 32/64: the
 * first half is the data key, the second the tweak key. false for another length. */
bool er_aes_xts_init(struct er_aes_xts *x, const uint8_t *key, size_t keylen);
/* One data unit (sector): len a multiple of 16 and >= 16 (512 or 4096 in LUKS); the tweak is
 * the plain64 IV: the 64-bit sector number little-endian in the first 8 of 16 bytes, rest 0.
 * A len that is 0 or not a multiple of 16 leaves buf untouched (callers check first). */
void er_aes_xts_decrypt(const struct er_aes_xts *x, uint64_t sector, uint8_t *buf, size_t len);
void er_aes_xts_encrypt(const struct er_aes_xts *x, uint64_t sector, uint8_t *buf, size_t len);
void er_aes_xts_wipe(struct er_aes_xts *x);
bool er_aes_hw_available(void);     /* CPUID.AES (and, on ia32, CR4.OSFXSR set) */
void er_aes_force_soft(bool soft);  /* tests/bench: use the table-free code even with AES-NI */

/* The AES core, for the other modes in crypto/ (gcm.c): FIPS-197 key expansion into
 * (rounds + 1) * 16 bytes (keylen 16 or 32; returns rounds), the round keys in the
 * bit-sliced form, and 1..4 blocks encrypted at once through the table-free,
 * constant-time cipher (in and out may be the same). */
uint32_t er_aes_expand_key(const uint8_t *key, size_t keylen, uint8_t *rk);
void er_aes_bs_keys(const uint8_t *rk, uint32_t rounds, uint64_t (*bs)[8]);
void er_aes_bs_encrypt(const uint64_t (*bs)[8], uint32_t rounds, const uint8_t *in, uint8_t *out, size_t n);

/* Single-block AES (ECB) on the soft path, for tests: key 16 or 32 bytes. */
bool er_aes_soft_block_test(const uint8_t *key, size_t keylen, bool decrypt, const uint8_t in[16], uint8_t out[16]);

#endif
