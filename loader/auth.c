// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: key id, key table, auth block, keys, the encrypted stream and
 * its tag (loader/auth.h; contract v2 in kernel-patch/6.12/README). Pure C. */
#include "loader/auth.h"
#include "image/swsusp.h"
#include "image/reader.h"
#include "image/fmt.h"
#include "crypto/wipe.h"
#include "crypto/hkdf.h"

static const char key_id_label[] = "efiresume key id";     /* 16 bytes, no NUL */
static const char tag_label[] = "efiresume-swsusp";        /* 16 bytes, no NUL */
static const char enc_info[] = "efiresume v2 aes-256-gcm";
static const char mac_info[] = "efiresume v2 hmac-sha256";
static const uint8_t auth_magic[8] = { 'E', 'F', 'R', 'H', 'M', 'A', 'C', '1' };

/* offsets in the auth block */
#define A_MAGIC    0
#define A_VERSION  8
#define A_FLAGS    12
#define A_SLOT     16
#define A_KEY_ID   24
#define A_UUID     32
#define A_OFFSET   48
#define A_SALT     56
#define A_NPAGES   88
#define A_TAG      96
#define SWAP_UUID_AT 1036   /* union swap_header.info.sws_uuid */

void er_key_id(const uint8_t key[ER_KEY_LEN], uint8_t id[ER_KEY_ID_LEN])
{
	uint8_t mac[32];
	er_hmac(ER_HASH_SHA256, key, ER_KEY_LEN, key_id_label, 16, mac);
	er_memcpy(id, mac, ER_KEY_ID_LEN);
	er_wipe(mac, sizeof(mac));
}

void er_key_mix(const uint8_t *rng, size_t rng_len, const uint8_t *cpu, size_t cpu_len, uint8_t key[ER_KEY_LEN])
{
	struct er_hash_ctx c;
	er_hash_init(&c, ER_HASH_SHA256);
	er_hash_update(&c, rng, rng_len);
	if (cpu && cpu_len)
		er_hash_update(&c, cpu, cpu_len);
	er_hash_final(&c, key);
}

void er_key_table_fill(struct er_key_table *t, const uint8_t key[ER_KEY_LEN])
{
	uint8_t *b = (uint8_t *)t;
	er_memset(t, 0, sizeof(*t));
	er_put_le32(b + 0, ER_KEY_TABLE_MAGIC);
	er_put_le32(b + 4, ER_KEY_TABLE_VERSION);
	er_put_le32(b + 8, ER_KEY_TABLE_SIZE);
	er_memcpy(t->key, key, ER_KEY_LEN);
	er_key_id(key, t->key_id);
}

#define WHY(...) do { if (why && why_len) er_snprintf(why, why_len, __VA_ARGS__); return ER_AUTH_MALFORMED; } while (0)

enum er_auth_status er_auth_parse(const uint8_t *page, uint64_t header_page, struct er_auth_block *a, char *why,
				  size_t why_len)
{
	const uint8_t *p = page + ER_AUTH_OFFSET;

	er_memset(a, 0, sizeof(*a));
	if (why && why_len)
		why[0] = 0;
	if (er_memcmp(p + A_MAGIC, auth_magic, sizeof(auth_magic)) != 0) {
		if (why && why_len)
			er_snprintf(why, why_len, "no auth block (EFRHMAC1) in the swap header: written by a kernel without the Secure Boot hibernation patch");
		return ER_AUTH_NONE;
	}
	a->version = er_le32(p + A_VERSION);
	a->flags = er_le32(p + A_FLAGS);
	a->key_slot_phys = er_le64(p + A_SLOT);
	er_memcpy(a->key_id, p + A_KEY_ID, ER_KEY_ID_LEN);
	er_memcpy(a->swap_uuid, p + A_UUID, 16);
	a->resume_offset = er_le64(p + A_OFFSET);
	er_memcpy(a->salt, p + A_SALT, ER_AUTH_SALT_LEN);
	a->enc_pages = er_le64(p + A_NPAGES);
	er_memcpy(a->tag, p + A_TAG, ER_AUTH_TAG_LEN);
	if (a->version == 1)
		WHY("auth block version 1: a tagged but unencrypted image (contract v1, an older kernel patch); this efiresume resumes only encrypted images (version 2)");
	if (a->version != ER_AUTH_VERSION)
		WHY("auth block version %u (this efiresume knows 2)", a->version);
	if (a->flags != 0)
		WHY("auth block flags 0x%x (none are defined)", a->flags);
	if (a->key_slot_phys % ER_PAGE_SIZE)
		WHY("key page 0x%llx is not page-aligned", (unsigned long long)a->key_slot_phys);
	if (a->enc_pages < 2 || a->enc_pages > (1ull << 40))
		WHY("auth block names %llu encrypted pages", (unsigned long long)a->enc_pages);
	/* the block names the place it was written for: a copied header does not fit elsewhere */
	if (er_memcmp(a->swap_uuid, page + SWAP_UUID_AT, 16) != 0)
		WHY("auth block names another swap area (UUID differs from the swap header's)");
	if (a->resume_offset != header_page)
		WHY("auth block written for resume_offset %llu, found at page %llu", (unsigned long long)a->resume_offset,
		    (unsigned long long)header_page);
	return ER_AUTH_OK;
}

void er_auth_keys(const uint8_t key[ER_KEY_LEN], const uint8_t salt[ER_AUTH_SALT_LEN], uint8_t k_enc[32],
		  uint8_t k_mac[32])
{
	er_hkdf_sha256(salt, ER_AUTH_SALT_LEN, key, ER_KEY_LEN, (const uint8_t *)enc_info, sizeof(enc_info) - 1, k_enc, 32);
	er_hkdf_sha256(salt, ER_AUTH_SALT_LEN, key, ER_KEY_LEN, (const uint8_t *)mac_info, sizeof(mac_info) - 1, k_mac, 32);
}

void er_auth_stream_init(struct er_auth_stream *s, const uint8_t key[ER_KEY_LEN], const struct er_auth_block *a)
{
	uint8_t k_enc[32], k_mac[32];

	er_memset(s, 0, sizeof(*s));
	er_auth_keys(key, a->salt, k_enc, k_mac);
	er_gcm_init(&s->gcm, k_enc);
	er_hmac_init(&s->mac, ER_HASH_SHA256, k_mac, sizeof(k_mac));
	er_hmac_update(&s->mac, tag_label, 16);
	s->n = a->enc_pages;
	er_wipe(k_enc, sizeof(k_enc));
	er_wipe(k_mac, sizeof(k_mac));
}

int er_auth_stream_feed(void *ctx, uint64_t i, const uint8_t tag[16])
{
	struct er_auth_stream *s = ctx;

	if (s->bad || i != s->fed || i >= s->n) {
		s->bad = true;
		return -1;
	}
	er_hmac_update(&s->mac, tag, 16);
	s->fed++;
	return 0;
}

int er_auth_stream_open(void *ctx, uint64_t i, uint8_t *page, const uint8_t tag[16])
{
	const struct er_auth_stream *s = ctx;
	uint8_t iv[12];

	if (i >= s->n) {
		er_memset(page, 0, ER_PAGE_SIZE);
		return -1;
	}
	er_put_le64(iv, i);
	er_put_le32(iv + 8, 0);
	return er_gcm_decrypt(&s->gcm, iv, NULL, 0, page, page, ER_PAGE_SIZE, tag) ? 0 : -1;
}

void er_auth_stream_final(struct er_auth_stream *s, const uint8_t *page0, uint8_t tag[ER_AUTH_TAG_LEN])
{
	uint8_t f[20];

	er_hmac_update(&s->mac, page0 + ER_AUTH_OFFSET, ER_AUTH_SIGNED);
	/* swsusp_header: image (sector_t as u64), flags, hw_sig, crc32, as written */
	er_memcpy(f, page0 + ER_HDR_IMAGE, 8);
	er_memcpy(f + 8, page0 + ER_HDR_FLAGS, 4);
	er_memcpy(f + 12, page0 + ER_HDR_HW_SIG, 4);
	er_memcpy(f + 16, page0 + ER_HDR_CRC32, 4);
	er_hmac_update(&s->mac, f, sizeof(f));
	er_hmac_final(&s->mac, tag);
	er_auth_stream_wipe(s);
}

bool er_auth_stream_end(struct er_auth_stream *s, const uint8_t *page0, const uint8_t tag[ER_AUTH_TAG_LEN])
{
	uint8_t got[ER_AUTH_TAG_LEN];
	bool whole = !s->bad && s->fed == s->n;

	er_auth_stream_final(s, page0, got);
	bool ok = er_ct_equal(got, tag, ER_AUTH_TAG_LEN) && whole;
	er_wipe(got, sizeof(got));
	return ok;
}

void er_auth_stream_wipe(struct er_auth_stream *s)
{
	er_gcm_wipe(&s->gcm);
	er_wipe(s, sizeof(*s));
}
