// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: the pure side of contract v2 with the patched kernel
 * (kernel-patch/6.12/README, "The contract (v2)"). Host-testable: no firmware calls.
 *
 *   key id      = HMAC-SHA256(K, "efiresume key id")[0..7]   (public: it is on disk)
 *   key table   = struct er_key_table (64 bytes, version 2): what the key protocol hands
 *                 out and what the key page of a resumed kernel receives
 *   auth block  = 128 bytes at offset 512 of the swap header page
 *   keys        = HKDF-SHA256(salt, K): K_enc ("efiresume v2 aes-256-gcm"), K_mac
 *   stream      = page i: AES-256-GCM(K_enc, le64(i) || le32(0)), tags in tag pages
 *                 (image/reader.h, struct er_crypt)
 *   tag         = HMAC-SHA256(K_mac, "efiresume-swsusp" || T_0 .. T_n-1 || auth[0..96) ||
 *                 image u64 || flags u32 || hw_sig u32 || crc32 u32) */
#ifndef EFIRESUME_LOADER_AUTH_H
#define EFIRESUME_LOADER_AUTH_H

#include "image/freestanding.h"
#include "crypto/sha.h"
#include "crypto/gcm.h"

#define ER_KEY_LEN        32u
#define ER_KEY_ID_LEN     8u
#define ER_KEY_TABLE_MAGIC 0x4b524645u   /* "EFRK" little endian */
#define ER_KEY_TABLE_VERSION 2u
#define ER_KEY_TABLE_SIZE 64u
#define ER_AUTH_OFFSET    512u
#define ER_AUTH_SIZE      128u
#define ER_AUTH_VERSION   2u
#define ER_AUTH_SIGNED    96u            /* the bytes before the tag */
#define ER_AUTH_SALT_LEN  32u
#define ER_AUTH_TAG_LEN   32u

/* as it lies in memory (the key protocol's output and the key page), little endian */
struct er_key_table {
	uint32_t magic, version, size, reserved;
	uint8_t key[ER_KEY_LEN];
	uint8_t key_id[ER_KEY_ID_LEN];
	uint64_t reserved2;
} __attribute__((packed));

void er_key_id(const uint8_t key[ER_KEY_LEN], uint8_t id[ER_KEY_ID_LEN]);
/* K = SHA-256(rng || cpu): the firmware's RNG output mixed with the CPU's (cpu may be
 * NULL/0 when the CPU has no RDRAND) */
void er_key_mix(const uint8_t *rng, size_t rng_len, const uint8_t *cpu, size_t cpu_len, uint8_t key[ER_KEY_LEN]);
void er_key_table_fill(struct er_key_table *t, const uint8_t key[ER_KEY_LEN]);

/* The auth block, as read from the swap header page. */
struct er_auth_block {
	uint32_t version, flags;
	uint64_t key_slot_phys;
	uint8_t key_id[ER_KEY_ID_LEN];
	uint8_t swap_uuid[16];
	uint64_t resume_offset;
	uint8_t salt[ER_AUTH_SALT_LEN];
	uint64_t enc_pages;
	uint8_t tag[ER_AUTH_TAG_LEN];
};

enum er_auth_status {
	ER_AUTH_OK = 0,
	ER_AUTH_NONE,       /* no "EFRHMAC1" at offset 512: an image from an unpatched kernel */
	ER_AUTH_MALFORMED,  /* the magic is there but a field is wrong (why says which) */
};
/* page: the swap header page (the one holding swsusp_header), header_page: its page
 * number on the device (the kernel's resume_offset). Only version 2 is accepted. */
enum er_auth_status er_auth_parse(const uint8_t *page, uint64_t header_page, struct er_auth_block *a, char *why,
				  size_t why_len);

/* One image's decryption and authentication (contract v2). gcm is const after
 * er_auth_stream_init (er_auth_stream_open may run on several CPUs at once); mac, fed and
 * bad belong to the reading CPU (er_auth_stream_feed, in stream order). */
struct er_auth_stream {
	struct er_gcm gcm;          /* K_enc */
	struct er_hmac_ctx mac;     /* K_mac, fed "efiresume-swsusp" || T_0 .. */
	uint64_t n;                 /* enc_pages */
	uint64_t fed;               /* tags fed to mac so far */
	bool bad;                   /* out of order: nothing verifies any more */
};
/* K_enc and K_mac from K and the block's salt; the label is fed. */
void er_auth_stream_init(struct er_auth_stream *s, const uint8_t key[ER_KEY_LEN], const struct er_auth_block *a);
/* image/reader.h's er_crypt feed(): page i's tag into the final HMAC; i must be the next
 * one due (else -1, and every later check fails). */
int er_auth_stream_feed(void *s, uint64_t i, const uint8_t tag[16]);
/* image/reader.h's er_crypt open(): decrypt page i in place and check its tag (any CPU).
 * 0 when authentic; on a failure the page is zeroed. */
int er_auth_stream_open(void *s, uint64_t i, uint8_t *page, const uint8_t tag[16]);
/* After the stream: every page fed, then auth[0..96) and the header fields from page0
 * (the swap header page as parsed), compared with the block's tag in constant time.
 * The state is wiped either way. */
bool er_auth_stream_end(struct er_auth_stream *s, const uint8_t *page0, const uint8_t tag[ER_AUTH_TAG_LEN]);
/* The tag itself (the reference side in tests): the state is wiped. */
void er_auth_stream_final(struct er_auth_stream *s, const uint8_t *page0, uint8_t tag[ER_AUTH_TAG_LEN]);
void er_auth_stream_wipe(struct er_auth_stream *s);

/* The derivation, for the tests and the inspector: K_enc and K_mac of (K, salt). */
void er_auth_keys(const uint8_t key[ER_KEY_LEN], const uint8_t salt[ER_AUTH_SALT_LEN], uint8_t k_enc[32],
		  uint8_t k_mac[32]);

#endif
