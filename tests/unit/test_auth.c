// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/auth.c (Secure Boot hibernation, contract v2 in
 * kernel-patch/6.12/README) through the real image reader (image/reader.c's er_crypt):
 * a swap area written here by a reference writer built on OpenSSL alone (HKDF by
 * EVP_PKEY_HKDF, AES-256-GCM by EVP, HMAC by HMAC(): the oracle) is decrypted and
 * verified page for page; a flipped ciphertext byte (data page, header page, tag page),
 * two pages swapped in the map, another key, a changed header field, a changed page count,
 * a stream not read to its end are refused; v1 and unknown versions refused by the
 * parser; the swap header page is never read again by er_image_open_at (a device that
 * answers differently the second time cannot make the parsed bytes differ from the
 * authenticated ones). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/sha.h>

#include "loader/auth.h"
#include "image/swsusp.h"
#include "image/reader.h"

#define PG 4096
#define GROUP 256

static uint32_t rnd_state = 12345;
static uint8_t rnd8(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (uint8_t)(rnd_state >> 16);
}
static void rnd_fill(uint8_t *p, size_t n) { for (size_t i = 0; i < n; i++) p[i] = rnd8(); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint64_t get64(const uint8_t *p) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }

static const uint8_t key1[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
static const uint8_t key2[32] = { 9 };

/* ------------------------------------------------------------ the reference writer */
static void oracle_hkdf(const uint8_t *salt, const uint8_t *k, const char *info, uint8_t out[32])
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t len = 32;
	assert_non_null(c);
	assert_int_equal(EVP_PKEY_derive_init(c), 1);
	assert_int_equal(EVP_PKEY_CTX_set_hkdf_md(c, EVP_sha256()), 1);
	assert_int_equal(EVP_PKEY_CTX_set1_hkdf_salt(c, salt, 32), 1);
	assert_int_equal(EVP_PKEY_CTX_set1_hkdf_key(c, k, 32), 1);
	assert_int_equal(EVP_PKEY_CTX_add1_hkdf_info(c, (const unsigned char *)info, (int)strlen(info)), 1);
	assert_int_equal(EVP_PKEY_derive(c, out, &len), 1);
	assert_int_equal(len, 32);
	EVP_PKEY_CTX_free(c);
}

static void oracle_gcm(const uint8_t k[32], uint64_t i, const uint8_t *in, uint8_t *out, uint8_t tag[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t iv[12];
	int l = 0;
	put64(iv, i);
	put32(iv + 8, 0);
	assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, k, iv), 1);
	assert_int_equal(EVP_EncryptUpdate(c, out, &l, in, PG), 1);
	assert_int_equal(l, PG);
	assert_int_equal(EVP_EncryptFinal_ex(c, out + l, &l), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
	EVP_CIPHER_CTX_free(c);
}

/* A swap area holding an encrypted, uncompressed x86_64 image. */
struct area {
	uint8_t *dev;                /* pages of the device */
	uint64_t pages;
	uint64_t header_page;        /* 0 */
	uint64_t n;                  /* stream pages */
	uint8_t *plain;              /* the plaintext stream (n pages) */
	uint64_t image_pages, nr_meta;
	uint64_t *stored_at;         /* device page of stored position p */
	uint64_t nstored;
	uint64_t first_map;
};

static uint8_t *pg(struct area *a, uint64_t p) { return a->dev + p * PG; }

/* image_pages data pages at PFNs 0x100.., one meta page per 512 PFNs */
static void area_make(struct area *a, uint64_t image_pages, const uint8_t key[32])
{
	memset(a, 0, sizeof(*a));
	a->image_pages = image_pages;
	a->nr_meta = (image_pages * 8 + PG - 1) / PG;
	a->n = 1 + a->nr_meta + image_pages;
	a->plain = calloc(a->n, PG);
	/* header page (swsusp_info with the x86_64 restore record) */
	uint8_t *h = a->plain;
	put64(h + 0, 0xffffffff81000000ull);   /* jump_address */
	put64(h + 8, 0x1000000ull);            /* jump_address_phys: same offset in the page */
	put64(h + 16, 0x2000000ull);           /* cr3 */
	put64(h + 24, ER_RESTORE_MAGIC_64);
	put64(h + 32, 0x1234);                 /* e820 checksum */
	memcpy(h + 130, "6.12.0-efiresume", 16);
	put32(h + 392, 0x060c00);
	put64(h + 400, 0x100000);              /* num_physpages */
	put32(h + 408, 1);                     /* cpus */
	put64(h + 416, image_pages);
	put64(h + 424, a->n);                  /* pages = image + meta + 1 */
	put64(h + 432, a->n * PG);
	/* PFN pages: 0x100.., ~0 after the last when there is room */
	for (uint64_t k = 0; k < a->nr_meta * 512; k++) {
		uint8_t *m = a->plain + (1 + k / 512) * PG + (k % 512) * 8;
		if (k < image_pages)
			put64(m, 0x100 + k);
		else {
			put64(m, ~0ull);
			break;
		}
	}
	rnd_fill(a->plain + (1 + a->nr_meta) * PG, image_pages * PG);

	a->nstored = a->n + (a->n + GROUP - 1) / GROUP;
	uint64_t map_pages = (a->nstored + 510) / 511;
	a->pages = 1 + map_pages + a->nstored + 8;
	a->dev = calloc(a->pages, PG);
	a->stored_at = calloc(a->nstored, sizeof(uint64_t));
	a->first_map = 1;
	/* stored positions from page 1 + map_pages on, in order */
	for (uint64_t p = 0; p < a->nstored; p++)
		a->stored_at[p] = 1 + map_pages + p;
	for (uint64_t m = 0; m < map_pages; m++) {
		uint8_t *mp = pg(a, 1 + m);
		for (uint64_t e = 0; e < 511 && m * 511 + e < a->nstored; e++)
			put64(mp + 8 * e, a->stored_at[m * 511 + e]);
		put64(mp + 8 * 511, m + 1 < map_pages ? 2 + m : 0);
	}

	/* page 0: the swap header */
	uint8_t *p0 = pg(a, 0);
	rnd_fill(p0 + 1036, 16);                  /* swap UUID */
	put32(p0 + ER_HDR_HW_SIG, 0);
	put32(p0 + ER_HDR_CRC32, 0);
	put64(p0 + ER_HDR_IMAGE, a->first_map);
	put32(p0 + ER_HDR_FLAGS, ER_SF_NOCOMPRESS_MODE);
	memcpy(p0 + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10);
	memcpy(p0 + ER_HDR_SIG, "S1SUSPEND\0", 10);

	/* the auth block, keys, the stream, the tag */
	uint8_t *ab = p0 + 512, id[32], salt[32], kenc[32], kmac[32];
	unsigned int l = 32;
	rnd_fill(salt, 32);
	memcpy(ab, "EFRHMAC1", 8);
	put32(ab + 8, 2);
	put64(ab + 16, 0x3000000);
	HMAC(EVP_sha256(), key, 32, (const uint8_t *)"efiresume key id", 16, id, &l);
	memcpy(ab + 24, id, 8);
	memcpy(ab + 32, p0 + 1036, 16);
	put64(ab + 48, 0);
	memcpy(ab + 56, salt, 32);
	put64(ab + 88, a->n);
	oracle_hkdf(salt, key, "efiresume v2 aes-256-gcm", kenc);
	oracle_hkdf(salt, key, "efiresume v2 hmac-sha256", kmac);

	size_t msg_len = 16 + 16 * a->n + 96 + 20, o = 0;
	uint8_t *msg = malloc(msg_len);
	memcpy(msg, "efiresume-swsusp", 16), o = 16;
	for (uint64_t i = 0; i < a->n; i++) {
		uint64_t g = i / GROUP;
		uint64_t tag_pos = g * (GROUP + 1) + (a->n - g * GROUP < GROUP ? a->n - g * GROUP : GROUP);
		uint8_t *tags = pg(a, a->stored_at[tag_pos]);
		oracle_gcm(kenc, i, a->plain + i * PG, pg(a, a->stored_at[i + i / GROUP]), tags + (i % GROUP) * 16);
		memcpy(msg + o, tags + (i % GROUP) * 16, 16), o += 16;
	}
	memcpy(msg + o, ab, 96), o += 96;
	memcpy(msg + o, p0 + ER_HDR_IMAGE, 8), o += 8;
	memcpy(msg + o, p0 + ER_HDR_FLAGS, 4), o += 4;
	memcpy(msg + o, p0 + ER_HDR_HW_SIG, 4), o += 4;
	memcpy(msg + o, p0 + ER_HDR_CRC32, 4), o += 4;
	assert_int_equal(o, msg_len);
	HMAC(EVP_sha256(), kmac, 32, msg, msg_len, ab + 96, &l);
	free(msg);
}

static void area_free(struct area *a)
{
	free(a->dev);
	free(a->plain);
	free(a->stored_at);
}

/* ------------------------------------------------------------ efiresume's side */
struct src_ctx {
	struct area *a;
	uint64_t reads_of[4];        /* reads that touched device pages 0..3 */
	int lie_page;                /* this device page reads as lie on its second read (-1: never) */
	const uint8_t *lie;
};

static int src_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct src_ctx *c = ctx;
	memcpy(buf, c->a->dev + page * PG, count * PG);
	for (uint64_t p = page; p < page + count; p++) {
		if (p < 4)
			c->reads_of[p]++;
		if (c->lie && (int)p == c->lie_page && c->reads_of[p] >= 2)
			memcpy((uint8_t *)buf + (p - page) * PG, c->lie, PG);
	}
	return 0;
}

struct collect {
	struct area *a;
	uint64_t got, bad;
};
static int sink_page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct collect *c = ctx;
	(void)err;
	uint64_t k = (pfn & ~ER_PFN_ZERO) - 0x100;
	if (k >= c->a->image_pages || memcmp(data, c->a->plain + (1 + c->a->nr_meta + k) * PG, PG) != 0)
		c->bad++;
	c->got++;
	return 0;
}

/* The whole read as efiresume does it: page 0 read once, parse, open_at through the
 * crypt, the map, the stream, the final tag. Returns the reader's reason, or -1 for a
 * tag that does not verify after a clean stream. */
static int run(struct area *a, const uint8_t key[32], struct src_ctx *sc, uint64_t *delivered)
{
	struct er_source src = { sc, a->pages, src_read, a->header_page };
	uint8_t page0[PG], page[PG], tags[PG], id[8];
	struct er_auth_block blk;
	struct er_auth_stream st;
	struct er_crypt crypt;
	struct er_image img;
	struct er_error e = { 0 };
	char why[200];
	int r;

	src_read(sc, a->header_page, 1, page0);
	if (er_auth_parse(page0, a->header_page, &blk, why, sizeof(why)) != ER_AUTH_OK)
		return -2;
	er_key_id(key, id);
	if (memcmp(id, blk.key_id, 8) != 0)
		return -3;
	er_auth_stream_init(&st, key, &blk);
	crypt = (struct er_crypt){ &st, blk.enc_pages, er_auth_stream_feed, er_auth_stream_open, tags, 0 };
	r = er_image_open_at(&img, &src, page0, page, &crypt, &e);
	if (r == ER_OK) {
		uint8_t *map = calloc(img.map_pages_max, PG);
		r = er_image_load_map(&img, &src, map, img.map_pages_max, &e);
		if (r == ER_OK) {
			uint8_t *io = malloc(128 * PG), *unc = malloc(32 * PG);
			uint64_t *pfns = calloc(img.pfn_cap, 8);
			struct collect c = { a, 0, 0 };
			struct er_stream_buffers b = { io, 128, unc, pfns, NULL, NULL };
			struct er_sink sink = { &c, NULL, sink_page, NULL, NULL };
			r = er_image_stream(&img, &src, &b, &sink, &e);
			if (delivered)
				*delivered = c.got;
			if (r == ER_OK)
				assert_int_equal(c.bad, 0);
			free(io), free(unc), free(pfns);
		}
		free(map);
	}
	if (r != ER_OK) {
		er_auth_stream_wipe(&st);
		return r;
	}
	return er_auth_stream_end(&st, page0, blk.tag) ? 0 : -1;
}

static void test_accept(void **state)
{
	(void)state;
	/* stream lengths around the tag-page boundaries: 1 + meta + data = 254, 256, 257, 513, 769 */
	static const uint64_t sizes[] = { 252, 254, 255, 510, 765, 2000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct area a;
		struct src_ctx sc = { 0 };
		uint64_t got = 0;
		area_make(&a, sizes[k], key1);
		sc.a = &a;
		sc.lie_page = -1;
		assert_int_equal(run(&a, key1, &sc, &got), 0);
		assert_int_equal(got, sizes[k]);
		area_free(&a);
	}
}

static struct area one;
static void fresh(void)
{
	area_free(&one);
	area_make(&one, 600, key1);
}
static int run_one(const uint8_t *key)
{
	struct src_ctx sc = { &one, { 0 }, -1, NULL };
	return run(&one, key, &sc, NULL);
}

static void test_refuse(void **state)
{
	(void)state;
	memset(&one, 0, sizeof(one));
	fresh();
	assert_int_equal(run_one(key1), 0);                         /* control: accepted */

	pg(&one, one.stored_at[300 + 300 / GROUP])[77] ^= 1;        /* a data page's ciphertext */
	assert_int_equal(run_one(key1), ER_R_AUTH);
	fresh();
	pg(&one, one.stored_at[0])[5] ^= 0x80;                      /* the header page's */
	assert_int_equal(run_one(key1), ER_R_AUTH);
	fresh();
	pg(&one, one.stored_at[GROUP])[16 * 3] ^= 1;                /* group 0's tag page */
	assert_int_equal(run_one(key1), ER_R_AUTH);
	fresh();
	/* two data pages swapped in the map (with their ciphertexts and their tags intact) */
	{
		uint8_t *m = pg(&one, one.first_map);
		uint64_t x = get64(m + 8 * 10), y = get64(m + 8 * 11);
		put64(m + 8 * 10, y);
		put64(m + 8 * 11, x);
		assert_int_equal(run_one(key1), ER_R_AUTH);
	}
	fresh();
	assert_int_equal(run_one(key2), -3);                        /* another key: another key id */
	fresh();
	/* another key with this key's id: every page fails (the header page first) */
	{
		uint8_t id[8];
		er_key_id(key2, id);
		memcpy(pg(&one, 0) + 512 + 24, id, 8);
		assert_int_equal(run_one(key2), ER_R_AUTH);
	}
	fresh();
	put32(pg(&one, 0) + ER_HDR_HW_SIG, 0x1234);                 /* a header field the tag covers */
	assert_int_equal(run_one(key1), -1);
	fresh();
	/* the image field: another first map page */
	{
		/* a copy of the first map page elsewhere: the same stream, but image changed */
		uint64_t spare = one.pages - 1;
		memcpy(pg(&one, spare), pg(&one, one.first_map), PG);
		put64(pg(&one, 0) + ER_HDR_IMAGE, spare);
		assert_int_equal(run_one(key1), -1);
	}
	fresh();
	put64(pg(&one, 0) + 512 + 88, one.n - 1);                   /* enc_pages: the map lists more */
	assert_int_equal(run_one(key1), ER_R_MAP);
	fresh();
	pg(&one, 0)[512 + 56] ^= 1;                                 /* the salt: other keys */
	assert_int_equal(run_one(key1), ER_R_AUTH);
	area_free(&one);
}

/* A stream whose pages are not all read never verifies, whatever the tag. */
static void test_truncated(void **state)
{
	(void)state;
	struct area a;
	struct er_auth_block blk;
	struct er_auth_stream st;
	uint8_t page[PG];
	area_make(&a, 300, key1);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, NULL, 0), ER_AUTH_OK);
	er_auth_stream_init(&st, key1, &blk);
	for (uint64_t i = 0; i + 1 < a.n; i++) {
		uint64_t g = i / GROUP, tp = g * (GROUP + 1) + (a.n - g * GROUP < GROUP ? a.n - g * GROUP : GROUP);
		memcpy(page, pg(&a, a.stored_at[i + i / GROUP]), PG);
		assert_int_equal(er_auth_stream_feed(&st, i, pg(&a, a.stored_at[tp]) + (i % GROUP) * 16), 0);
		assert_int_equal(er_auth_stream_open(&st, i, page, pg(&a, a.stored_at[tp]) + (i % GROUP) * 16), 0);
		assert_memory_equal(page, a.plain + i * PG, PG);
	}
	assert_false(er_auth_stream_end(&st, pg(&a, 0), blk.tag));
	/* out of order: page 2 before page 1 */
	er_auth_stream_init(&st, key1, &blk);
	memcpy(page, pg(&a, a.stored_at[0]), PG);
	assert_int_equal(er_auth_stream_feed(&st, 0, pg(&a, a.stored_at[GROUP]) + 0), 0);
	assert_int_equal(er_auth_stream_open(&st, 0, page, pg(&a, a.stored_at[GROUP]) + 0), 0);
	assert_int_not_equal(er_auth_stream_feed(&st, 2, pg(&a, a.stored_at[GROUP]) + 32), 0);
	/* the stream is spoiled: even the right order does not verify now */
	assert_int_not_equal(er_auth_stream_feed(&st, 1, pg(&a, a.stored_at[GROUP]) + 16), 0);
	er_auth_stream_wipe(&st);
	area_free(&a);
}

/* The swap header page is parsed from the caller's copy: a device that answers
 * differently when read again changes nothing (er_image_open, which reads it itself,
 * is the control: it parses what the second read returns). */
static void test_read_once(void **state)
{
	(void)state;
	struct area a;
	uint8_t lie[PG], page[PG], page0[PG];
	struct er_image img;
	struct er_error e = { 0 };
	area_make(&a, 300, key1);
	memcpy(lie, pg(&a, 0), PG);
	put32(lie + ER_HDR_FLAGS, ER_SF_NOCOMPRESS_MODE | ER_SF_PLATFORM_MODE);

	struct src_ctx sc = { &a, { 0 }, 0, lie };
	assert_int_equal(run(&a, key1, &sc, NULL), 0);
	assert_int_equal(sc.reads_of[0], 1);    /* read once, by the caller */

	/* control: the reader that reads page 0 itself parses what the second read returns */
	(void)page0;
	struct src_ctx sc3 = { &a, { 0 }, 0, lie };
	struct er_source src3 = { &sc3, a.pages, src_read, 0 };
	uint8_t first[PG];
	src_read(&sc3, 0, 1, first);            /* the first read: what would be authenticated */
	/* (the header page is encrypted and no crypt is given: it stops there, after page 0) */
	assert_int_equal(er_image_open(&img, &src3, page, &e), ER_R_MAGIC);
	assert_int_equal(sc3.reads_of[0], 2);
	assert_int_equal(er_le32(first + ER_HDR_FLAGS) & ER_SF_PLATFORM_MODE, 0);
	assert_int_equal(img.flags & ER_SF_PLATFORM_MODE, ER_SF_PLATFORM_MODE);
	area_free(&a);
}

static void test_parse(void **state)
{
	(void)state;
	struct area a;
	struct er_auth_block blk;
	char why[200];
	area_make(&a, 252, key1);
	uint8_t *ab = pg(&a, 0) + 512;
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_OK);
	assert_int_equal(blk.enc_pages, a.n);
	assert_int_equal(er_auth_parse(pg(&a, 0), 7, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);   /* resume offset */
	put32(ab + 8, 1);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);
	assert_non_null(strstr(why, "version 1"));
	put32(ab + 8, 3);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);
	put32(ab + 8, 2);
	put32(ab + 12, 1);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);  /* flags */
	put32(ab + 12, 0);
	put64(ab + 16, 0x3000010);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);  /* key page */
	put64(ab + 16, 0x3000000);
	put64(ab + 88, 0);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);  /* no pages */
	put64(ab + 88, a.n);
	pg(&a, 0)[1036] ^= 1;
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_MALFORMED);  /* swap UUID */
	memset(ab, 0, 8);
	assert_int_equal(er_auth_parse(pg(&a, 0), 0, &blk, why, sizeof(why)), ER_AUTH_NONE);
	area_free(&a);
}

static void test_keys(void **state)
{
	(void)state;
	uint8_t salt[32], e1[32], m1[32], e2[32], m2[32], id[32];
	unsigned int l = 32;
	struct er_key_table t;
	for (int k = 0; k < 20; k++) {
		uint8_t key[32];
		rnd_fill(key, 32);
		rnd_fill(salt, 32);
		er_auth_keys(key, salt, e1, m1);
		oracle_hkdf(salt, key, "efiresume v2 aes-256-gcm", e2);
		oracle_hkdf(salt, key, "efiresume v2 hmac-sha256", m2);
		assert_memory_equal(e1, e2, 32);
		assert_memory_equal(m1, m2, 32);
		assert_memory_not_equal(e1, m1, 32);
	}
	er_key_table_fill(&t, key1);
	const uint8_t *b = (const uint8_t *)&t;
	assert_int_equal(sizeof(t), 64);
	assert_memory_equal(b, "EFRK", 4);
	assert_int_equal(b[4], 2);
	assert_int_equal(b[8], 64);
	assert_memory_equal(t.key, key1, 32);
	HMAC(EVP_sha256(), key1, 32, (const uint8_t *)"efiresume key id", 16, id, &l);
	assert_memory_equal(t.key_id, id, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_read_once),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
