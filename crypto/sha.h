// SPDX-License-Identifier: GPL-2.0-or-later
/* SHA-1, SHA-256, SHA-512 (FIPS 180-4) and HMAC (RFC 2104) for the LUKS key
 * derivation. Freestanding: no allocation, the caller owns every context. */
#ifndef EFIRESUME_CRYPTO_SHA_H
#define EFIRESUME_CRYPTO_SHA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum er_hash { ER_HASH_SHA1 = 1, ER_HASH_SHA256 = 2, ER_HASH_SHA512 = 3 };
#define ER_HASH_MAX_LEN 64      /* largest digest (SHA-512) */
#define ER_HASH_MAX_BLOCK 128   /* largest block (SHA-512) */

/* 20, 32, 64; 0 for an unknown value */
size_t er_hash_len(enum er_hash h);
/* 64, 64, 128; 0 for an unknown value */
size_t er_hash_block_len(enum er_hash h);
/* "sha1" "sha256" "sha512" (ASCII case ignored), exactly n bytes, no NUL counted;
 * false for anything else */
bool er_hash_from_name(const char *name, size_t n, enum er_hash *out);

struct er_sha1_state { uint32_t h[5]; uint64_t len; uint8_t buf[64]; uint32_t fill; };
struct er_sha256_state { uint32_t h[8]; uint64_t len; uint8_t buf[64]; uint32_t fill; };
struct er_sha512_state { uint64_t h[8]; uint64_t len; uint8_t buf[128]; uint32_t fill; };

struct er_hash_ctx {
	enum er_hash h;
	union {
		struct er_sha1_state s1;
		struct er_sha256_state s256;
		struct er_sha512_state s512;
	} u;
};

/* An unknown h gives a context whose final output is all zero bytes of length 0
 * (er_hash_len(h) == 0): check the hash first. */
void er_hash_init(struct er_hash_ctx *c, enum er_hash h);
void er_hash_update(struct er_hash_ctx *c, const void *data, size_t n);
void er_hash_final(struct er_hash_ctx *c, uint8_t *out);   /* er_hash_len(h) bytes; wipes the ctx */
void er_hash(enum er_hash h, const void *data, size_t n, uint8_t *out);

/* HMAC over any of the three hashes. */
struct er_hmac_ctx { struct er_hash_ctx inner, outer; };
void er_hmac_init(struct er_hmac_ctx *c, enum er_hash h, const void *key, size_t keylen);
void er_hmac_update(struct er_hmac_ctx *c, const void *data, size_t n);
void er_hmac_final(struct er_hmac_ctx *c, uint8_t *out);   /* er_hash_len(h) bytes; wipes the ctx */
void er_hmac(enum er_hash h, const void *key, size_t keylen, const void *data, size_t n, uint8_t *out);

/* The raw compression functions (big-endian message blocks), for PBKDF2's inner loop. */
void er_sha1_blocks(uint32_t h[5], const uint8_t *p, size_t nblocks);
void er_sha256_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks);
void er_sha512_blocks(uint64_t h[8], const uint8_t *p, size_t nblocks);


/* SHA-256 uses the CPU's SHA extensions when they are there (and SSE is enabled);
 * er_sha_force_soft(true) makes it use the portable code (tests, bench). */
bool er_sha_hw_available(void);
void er_sha_force_soft(bool soft);

#endif
