// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: the pure side of the contract with the patched kernel
 * (notes: "Secure Boot hibernation: the contract between efiresume and the patched
 * kernel (v1)"; the kernel side cites the same text). Host-testable: no firmware calls.
 *
 *   key id      = first 8 bytes of HMAC-SHA256(K, "efiresume key id")
 *   key table   = struct er_key_table (64 bytes), the configuration table
 *                 (GUID f81507ad-4bd7-47e1-92c8-5dbd29e50049) and the rotated key's page
 *   auth block  = 128 bytes at offset 512 of the swap header page
 *   tag         = HMAC-SHA256(K, "efiresume-swsusp" || auth[0..96) || image u64 || flags u32
 *                 || hw_sig u32 || crc32 u32 || header page || PFN pages || data pages) */
#ifndef EFIRESUME_LOADER_AUTH_H
#define EFIRESUME_LOADER_AUTH_H

#include "image/freestanding.h"
#include "crypto/sha.h"

#define ER_KEY_LEN        32u
#define ER_KEY_ID_LEN     8u
#define ER_KEY_TABLE_MAGIC 0x4b524645u   /* "EFRK" little endian */
#define ER_KEY_TABLE_SIZE 64u
#define ER_AUTH_OFFSET    512u
#define ER_AUTH_SIZE      128u
#define ER_AUTH_SIGNED    96u            /* the bytes before the tag */
#define ER_AUTH_TAG_LEN   32u

/* as it lies in memory (the table and the key page), little endian */
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
	uint8_t tag[ER_AUTH_TAG_LEN];
};

enum er_auth_status {
	ER_AUTH_OK = 0,
	ER_AUTH_NONE,       /* no "EFRHMAC1" at offset 512: an image from an unpatched kernel */
	ER_AUTH_MALFORMED,  /* the magic is there but a field is wrong (why says which) */
};
/* page: the swap header page (the one holding swsusp_header), header_page: its page
 * number on the device (the kernel's resume_offset). */
enum er_auth_status er_auth_parse(const uint8_t *page, uint64_t header_page, struct er_auth_block *a, char *why,
				  size_t why_len);

/* The tag, fed in stream order. */
struct er_auth_mac {
	struct er_hmac_ctx h;
	uint64_t pages;     /* stream pages fed so far (header + PFN + data) */
};
/* page: the swap header page (auth block at 512, swsusp_header at its end) */
void er_auth_begin(struct er_auth_mac *m, const uint8_t key[ER_KEY_LEN], const uint8_t *page);
void er_auth_page(struct er_auth_mac *m, const uint8_t *page);
/* The PFN pages exactly as the kernel's snapshot_read_next() makes them (clear_page,
 * pack_pfns): nr_meta_pages pages of word-sized PFNs (the zero-page flag in the word's
 * top bit), ~0 after the last one when there is room, zeros after that. pfns: the
 * reader's list (ER_PFN_ZERO in bit 63). Rebuilt from the parsed list, so the tag
 * covers what the loader acts on. */
void er_auth_pfn_pages(struct er_auth_mac *m, const uint64_t *pfns, uint64_t n, unsigned word, uint64_t nr_meta_pages);
/* Constant-time comparison with tag; the state is wiped. true when equal. */
bool er_auth_end(struct er_auth_mac *m, const uint8_t tag[ER_AUTH_TAG_LEN]);
/* The tag itself (tests, the reference side); the state is wiped. */
void er_auth_final(struct er_auth_mac *m, uint8_t tag[ER_AUTH_TAG_LEN]);

#endif
