// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot hibernation: key id, key table, auth block and tag (loader/auth.h; the
 * contract text is in the notes, "Secure Boot hibernation ... (v1)"). Pure C. */
#include "loader/auth.h"
#include "image/swsusp.h"
#include "image/reader.h"
#include "image/fmt.h"
#include "crypto/wipe.h"

static const char key_id_label[] = "efiresume key id";     /* 16 bytes, no NUL */
static const char tag_label[] = "efiresume-swsusp";        /* 16 bytes, no NUL */
static const uint8_t auth_magic[8] = { 'E', 'F', 'R', 'H', 'M', 'A', 'C', '1' };

/* offsets in the auth block */
#define A_MAGIC    0
#define A_VERSION  8
#define A_FLAGS    12
#define A_SLOT     16
#define A_KEY_ID   24
#define A_UUID     32
#define A_OFFSET   48
#define A_RESERVED 56
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
	er_put_le32(b + 4, 1);
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
	er_memcpy(a->tag, p + A_TAG, ER_AUTH_TAG_LEN);
	if (a->version != 1)
		WHY("auth block version %u (this efiresume knows 1)", a->version);
	if (a->flags != 0)
		WHY("auth block flags 0x%x (none are defined)", a->flags);
	if (a->key_slot_phys % ER_PAGE_SIZE)
		WHY("key page 0x%llx is not page-aligned", (unsigned long long)a->key_slot_phys);
	for (unsigned i = A_RESERVED; i < A_TAG; i++)
		if (p[i])
			WHY("auth block reserved byte %u is 0x%02x", i, p[i]);
	/* the block names the place it was written for: a copied header does not fit elsewhere */
	if (er_memcmp(a->swap_uuid, page + SWAP_UUID_AT, 16) != 0)
		WHY("auth block names another swap area (UUID differs from the swap header's)");
	if (a->resume_offset != header_page)
		WHY("auth block written for resume_offset %llu, found at page %llu", (unsigned long long)a->resume_offset,
		    (unsigned long long)header_page);
	return ER_AUTH_OK;
}

void er_auth_begin(struct er_auth_mac *m, const uint8_t key[ER_KEY_LEN], const uint8_t *page)
{
	uint8_t f[20];
	er_hmac_init(&m->h, ER_HASH_SHA256, key, ER_KEY_LEN);
	er_hmac_update(&m->h, tag_label, 16);
	er_hmac_update(&m->h, page + ER_AUTH_OFFSET, ER_AUTH_SIGNED);
	/* swsusp_header: image (sector_t as u64), flags, hw_sig, crc32, as written */
	er_memcpy(f, page + ER_HDR_IMAGE, 8);
	er_memcpy(f + 8, page + ER_HDR_FLAGS, 4);
	er_memcpy(f + 12, page + ER_HDR_HW_SIG, 4);
	er_memcpy(f + 16, page + ER_HDR_CRC32, 4);
	er_hmac_update(&m->h, f, sizeof(f));
	m->pages = 0;
}

void er_auth_page(struct er_auth_mac *m, const uint8_t *page)
{
	er_hmac_update(&m->h, page, ER_PAGE_SIZE);
	m->pages++;
}

void er_auth_pfn_pages(struct er_auth_mac *m, const uint64_t *pfns, uint64_t n, unsigned word, uint64_t nr_meta_pages)
{
	uint8_t buf[ER_PAGE_SIZE];
	unsigned per = ER_PAGE_SIZE / word;
	uint64_t zero_bit = word == 8 ? (1ull << 63) : (1ull << 31);
	uint64_t k = 0;
	bool ended = false;

	for (uint64_t pg = 0; pg < nr_meta_pages; pg++) {
		er_memset(buf, 0, sizeof(buf));                 /* clear_page */
		for (unsigned j = 0; j < per; j++) {            /* pack_pfns */
			uint64_t v;
			if (k < n) {
				v = (pfns[k] & ~ER_PFN_ZERO) | ((pfns[k] & ER_PFN_ZERO) ? zero_bit : 0);
				k++;
			} else {
				v = word == 8 ? ~0ull : 0xffffffffull;  /* BM_END_OF_MAP, then break */
				ended = true;
			}
			if (word == 8)
				er_put_le64(buf + j * 8, v);
			else
				er_put_le32(buf + j * 4, (uint32_t)v);
			if (ended)
				break;
		}
		er_auth_page(m, buf);
		ended = false;
	}
}

void er_auth_final(struct er_auth_mac *m, uint8_t tag[ER_AUTH_TAG_LEN])
{
	er_hmac_final(&m->h, tag);
	er_wipe(m, sizeof(*m));
}

bool er_auth_end(struct er_auth_mac *m, const uint8_t tag[ER_AUTH_TAG_LEN])
{
	uint8_t got[ER_AUTH_TAG_LEN];
	er_auth_final(m, got);
	bool ok = er_ct_equal(got, tag, ER_AUTH_TAG_LEN);
	er_wipe(got, sizeof(got));
	return ok;
}
