// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/auth.c (the Secure Boot hibernation contract, v1): a synthetic
 * image stream tagged by a small reference written here on OpenSSL's HMAC (the oracle:
 * the message M of the contract built byte by byte, PFN pages packed as the kernel's
 * pack_pfns does) is accepted; a flipped data byte, a changed header field, a changed
 * auth field, a PFN flag, another key are refused; the parser's refusals; key id and
 * key table against the oracle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "loader/auth.h"
#include "image/swsusp.h"
#include "image/reader.h"

#define PG 4096

struct synth {
	unsigned word;
	uint64_t header_page;
	uint8_t page0[PG];      /* swap header page with swsusp_header and the auth block */
	uint8_t header[PG];     /* swsusp_info page */
	uint64_t npfns, nr_meta;
	uint64_t pfns[3000];    /* the reader's form: ER_PFN_ZERO in bit 63 */
	uint8_t *meta;          /* nr_meta pages, packed as the kernel does */
	uint64_t ndata;
	uint8_t *data;          /* one page per non-zero PFN */
};

static uint32_t rnd_state = 12345;
static uint8_t rnd8(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (uint8_t)(rnd_state >> 16);
}

static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* The kernel's pack_pfns after clear_page, written independently of loader/auth.c */
static void kernel_pack(struct synth *s)
{
	unsigned per = PG / s->word;
	s->nr_meta = (s->npfns * s->word + PG - 1) / PG;
	s->meta = calloc(s->nr_meta ? s->nr_meta : 1, PG);
	uint64_t k = 0;
	for (uint64_t pg = 0; pg < s->nr_meta; pg++) {
		uint8_t *b = s->meta + pg * PG;
		for (unsigned j = 0; j < per; j++) {
			uint64_t v;
			if (k == s->npfns) {
				v = s->word == 8 ? ~0ull : 0xffffffffull;
			} else {
				v = s->pfns[k] & ~ER_PFN_ZERO;
				if (s->pfns[k] & ER_PFN_ZERO)
					v |= s->word == 8 ? 1ull << 63 : 1ull << 31;
				k++;
			}
			if (s->word == 8)
				put64(b + 8 * j, v);
			else
				put32(b + 4 * j, (uint32_t)v);
			if (v == (s->word == 8 ? ~0ull : 0xffffffffull))
				break;
		}
	}
}

static void synth_make(struct synth *s, unsigned word, uint64_t npfns, uint64_t header_page)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	s->header_page = header_page;
	s->npfns = npfns;
	uint64_t pfn = 0x10;
	for (uint64_t i = 0; i < npfns; i++) {
		pfn += 1 + rnd8() % 3;
		bool zero = rnd8() % 5 == 0;
		s->pfns[i] = pfn | (zero ? ER_PFN_ZERO : 0);
		if (!zero)
			s->ndata++;
	}
	kernel_pack(s);
	s->data = malloc(s->ndata * PG);
	for (uint64_t i = 0; i < s->ndata * PG; i++)
		s->data[i] = rnd8();
	for (unsigned i = 0; i < PG; i++)
		s->header[i] = rnd8();
	/* swap header page: bootbits, uuid at 1036, swsusp_header at the end */
	for (unsigned i = 1024; i < PG; i++)
		s->page0[i] = rnd8();
	memcpy(s->page0 + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10);
	memcpy(s->page0 + ER_HDR_SIG, "S1SUSPEND\0", 10);
}

/* The oracle: writes the auth block for key and tags the stream with OpenSSL. */
static void oracle_tag(struct synth *s, const uint8_t key[32], uint64_t slot)
{
	uint8_t *a = s->page0 + 512, id[32];
	unsigned int l = 32;
	memset(a, 0, 128);
	memcpy(a, "EFRHMAC1", 8);
	put32(a + 8, 1);
	put64(a + 16, slot);
	HMAC(EVP_sha256(), key, 32, (const uint8_t *)"efiresume key id", 16, id, &l);
	memcpy(a + 24, id, 8);
	memcpy(a + 32, s->page0 + 1036, 16);
	put64(a + 48, s->header_page);

	/* M, built whole, in the contract's order */
	size_t n = 16 + 96 + 20 + PG + s->nr_meta * PG + s->ndata * PG, o = 0;
	uint8_t *msg = malloc(n);
	memcpy(msg + o, "efiresume-swsusp", 16), o += 16;
	memcpy(msg + o, a, 96), o += 96;
	memcpy(msg + o, s->page0 + 4064, 8), o += 8;   /* image */
	memcpy(msg + o, s->page0 + 4072, 4), o += 4;   /* flags */
	memcpy(msg + o, s->page0 + 4056, 4), o += 4;   /* hw_sig */
	memcpy(msg + o, s->page0 + 4060, 4), o += 4;   /* crc32 */
	memcpy(msg + o, s->header, PG), o += PG;
	memcpy(msg + o, s->meta, s->nr_meta * PG), o += s->nr_meta * PG;
	memcpy(msg + o, s->data, s->ndata * PG), o += s->ndata * PG;
	assert_int_equal(o, n);
	HMAC(EVP_sha256(), key, 32, msg, n, a + 96, &l);
	free(msg);
}

/* efiresume's side: parse, then the tag over what the loader has (the parsed PFN list) */
static int verify(struct synth *s, const uint8_t key[32])
{
	struct er_auth_block a;
	char why[160];
	struct er_auth_mac m;
	uint8_t id[8];
	if (er_auth_parse(s->page0, s->header_page, &a, why, sizeof(why)) != ER_AUTH_OK)
		return -1;
	er_key_id(key, id);
	if (memcmp(id, a.key_id, 8) != 0)
		return -2;
	er_auth_begin(&m, key, s->page0);
	er_auth_page(&m, s->header);
	er_auth_pfn_pages(&m, s->pfns, s->npfns, s->word, s->nr_meta);
	for (uint64_t i = 0; i < s->ndata; i++)
		er_auth_page(&m, s->data + i * PG);
	return er_auth_end(&m, a.tag) ? 0 : -3;
}

static void synth_free(struct synth *s)
{
	free(s->meta);
	free(s->data);
}

static const uint8_t key1[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

static void test_accept_and_refuse(void **state)
{
	(void)state;
	static struct synth s;
	uint8_t key2[32];
	memcpy(key2, key1, 32);
	key2[31] ^= 1;
	/* 64-bit: a PFN list ending mid-page, exactly filling pages, and one past; i386 */
	const struct { unsigned word; uint64_t n, hp; } shapes[] = {
		{ 8, 700, 0 }, { 8, 1024, 0 }, { 8, 1025, 77 }, { 4, 1500, 0 }, { 4, 2048, 5 }, { 8, 3, 0 },
	};
	for (unsigned t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
		synth_make(&s, shapes[t].word, shapes[t].n, shapes[t].hp);
		oracle_tag(&s, key1, 0x1234000);
		assert_int_equal(verify(&s, key1), 0);
		/* another key: the key id says so */
		assert_int_equal(verify(&s, key2), -2);
		/* a flipped data byte (first, middle, last page) */
		uint64_t at[3] = { 0, s.ndata / 2 * PG + 100, s.ndata * PG - 1 };
		for (int i = 0; i < 3; i++) {
			s.data[at[i]] ^= 0x40;
			assert_int_equal(verify(&s, key1), -3);
			s.data[at[i]] ^= 0x40;
		}
		/* header page, swsusp_header fields (image, flags, hw_sig, crc32) */
		s.header[17] ^= 1;
		assert_int_equal(verify(&s, key1), -3);
		s.header[17] ^= 1;
		const unsigned fields[] = { 4064, 4071, 4072, 4056, 4060, 4063 };
		for (unsigned i = 0; i < 6; i++) {
			s.page0[fields[i]] ^= 0x80;
			assert_int_equal(verify(&s, key1), -3);
			s.page0[fields[i]] ^= 0x80;
		}
		/* the key page address in the auth block (still page-aligned) */
		s.page0[512 + 17] ^= 0x10;
		assert_int_equal(verify(&s, key1), -3);
		s.page0[512 + 17] ^= 0x10;
		/* a page's zero flag in the PFN list, and a PFN */
		s.pfns[1] ^= ER_PFN_ZERO;
		assert_int_equal(verify(&s, key1), -3);
		s.pfns[1] ^= ER_PFN_ZERO;
		s.pfns[2] += 0;
		s.pfns[s.npfns - 1] += 1;
		assert_int_equal(verify(&s, key1), -3);
		s.pfns[s.npfns - 1] -= 1;
		/* the tag itself */
		s.page0[512 + 96 + 31] ^= 1;
		assert_int_equal(verify(&s, key1), -3);
		s.page0[512 + 96 + 31] ^= 1;
		assert_int_equal(verify(&s, key1), 0);
		synth_free(&s);
	}
}

static void test_parse(void **state)
{
	(void)state;
	static struct synth s;
	struct er_auth_block a;
	char why[160];
	synth_make(&s, 8, 10, 3);
	assert_int_equal(er_auth_parse(s.page0, 3, &a, why, sizeof(why)), ER_AUTH_NONE);
	assert_non_null(strstr(why, "no auth block"));
	oracle_tag(&s, key1, 0x5000);
	assert_int_equal(er_auth_parse(s.page0, 3, &a, why, sizeof(why)), ER_AUTH_OK);
	assert_int_equal(a.key_slot_phys, 0x5000);
	assert_int_equal(a.resume_offset, 3);
	/* found at another page than it was written for (a copied header) */
	assert_int_equal(er_auth_parse(s.page0, 4, &a, why, sizeof(why)), ER_AUTH_MALFORMED);
	assert_non_null(strstr(why, "resume_offset"));
	/* each field */
	const struct { unsigned off; uint8_t x; const char *word; } bad[] = {
		{ 8, 2, "version" }, { 12, 1, "flags" }, { 16, 0x10, "page-aligned" }, { 60, 1, "reserved" },
		{ 95, 1, "reserved" }, { 32, 1, "UUID" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s.page0[512 + bad[i].off] ^= bad[i].x;
		assert_int_equal(er_auth_parse(s.page0, 3, &a, why, sizeof(why)), ER_AUTH_MALFORMED);
		assert_non_null(strstr(why, bad[i].word));
		s.page0[512 + bad[i].off] ^= bad[i].x;
	}
	/* the swap header's own UUID changed: the block no longer matches it */
	s.page0[1040] ^= 1;
	assert_int_equal(er_auth_parse(s.page0, 3, &a, why, sizeof(why)), ER_AUTH_MALFORMED);
	synth_free(&s);
}

static void test_key_table(void **state)
{
	(void)state;
	struct er_key_table t;
	uint8_t id[32], k[32];
	unsigned int l = 32;
	assert_int_equal(sizeof(t), 64);
	er_key_table_fill(&t, key1);
	const uint8_t *b = (const uint8_t *)&t;
	assert_memory_equal(b, "EFRK", 4);
	assert_int_equal(b[4], 1);
	assert_int_equal(b[8], 64);
	assert_memory_equal(b + 16, key1, 32);
	HMAC(EVP_sha256(), key1, 32, (const uint8_t *)"efiresume key id", 16, id, &l);
	assert_memory_equal(b + 48, id, 8);
	for (unsigned i = 56; i < 64; i++)
		assert_int_equal(b[i], 0);
	for (unsigned i = 12; i < 16; i++)
		assert_int_equal(b[i], 0);
	/* K = SHA-256(rng || rdrand) */
	uint8_t in[48], want[32];
	for (unsigned i = 0; i < 48; i++)
		in[i] = (uint8_t)(i * 7);
	SHA256(in, 48, want);
	er_key_mix(in, 32, in + 32, 16, k);
	assert_memory_equal(k, want, 32);
	SHA256(in, 32, want);
	er_key_mix(in, 32, NULL, 0, k);
	assert_memory_equal(k, want, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accept_and_refuse),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_key_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
