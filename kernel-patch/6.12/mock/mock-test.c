// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mock-check.sh's host test of kernel/power/hibernate_auth.c as patches 0001 + 0003
 * create it (included below, so its statics are reachable): key intake and its
 * lockdown rule, the resume slot, and the auth block + tag written into a swap header
 * page. Writes DISK (arg 1): a little swap area (page 0 the header, page 1 a swap map
 * page, pages 2.. the stream) that tests/e2e/kernel/verify-tag.py checks independently.
 */
#include "kernel.h"
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include "hibernate_auth.c"

enum lockdown_reason mock_lockdown;
int security_locked_down(enum lockdown_reason what)
{
	assert(what < LOCKDOWN_CONFIDENTIALITY_MAX);	/* the lockdown LSM WARNs on it */
	return mock_lockdown >= what ? -EPERM : 0;
}

/* shash over OpenSSL: the message is kept and HMAC'd at final */
struct mock_ctx { u8 *buf; size_t len; };
struct crypto_shash *crypto_alloc_shash(const char *name, u32 type, u32 mask)
{
	(void)type; (void)mask;
	assert(!strcmp(name, "hmac(sha256)"));
	return calloc(1, sizeof(struct crypto_shash));
}
void crypto_free_shash(struct crypto_shash *tfm) { free(tfm); }
int crypto_shash_setkey(struct crypto_shash *tfm, const u8 *key, unsigned int keylen)
{
	assert(keylen <= sizeof(tfm->key));
	memcpy(tfm->key, key, keylen);
	tfm->keylen = keylen;
	return 0;
}
unsigned int crypto_shash_descsize(struct crypto_shash *tfm) { (void)tfm; return sizeof(struct mock_ctx); }
static struct mock_ctx *ctx_of(struct shash_desc *d) { return (struct mock_ctx *)d->__ctx; }
int crypto_shash_init(struct shash_desc *d) { ctx_of(d)->buf = NULL; ctx_of(d)->len = 0; return 0; }
int crypto_shash_update(struct shash_desc *d, const u8 *data, unsigned int len)
{
	struct mock_ctx *c = ctx_of(d);
	c->buf = realloc(c->buf, c->len + len);
	memcpy(c->buf + c->len, data, len);
	c->len += len;
	return 0;
}
int crypto_shash_final(struct shash_desc *d, u8 *out)
{
	struct mock_ctx *c = ctx_of(d);
	unsigned int n = 32;
	HMAC(EVP_sha256(), d->tfm->key, d->tfm->keylen, c->buf, c->len, out, &n);
	free(c->buf);
	c->buf = NULL;
	return 0;
}
int crypto_shash_digest(struct shash_desc *d, const u8 *data, unsigned int len, u8 *out)
{
	crypto_shash_init(d);
	crypto_shash_update(d, data, len);
	return crypto_shash_final(d, out);
}
void shash_desc_zero(struct shash_desc *d) { memset(d, 0, sizeof(*d) + sizeof(struct mock_ctx)); }

/* the snapshot: NPAGES stream pages (info page, 1 PFN page, data pages) */
#define NPAGES 6
static u8 stream[NPAGES][4096];
int snapshot_read_next(struct snapshot_handle *h)
{
	if (h->cur >= NPAGES)
		return 0;
	h->buffer = stream[h->cur++];
	return 4096;
}
unsigned long snapshot_get_image_size(void) { return NPAGES; }

static const u8 test_key[32] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
				 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
static int failures;
#define CHECK(c, what) do { if (c) printf("  ok: %s\n", what); else { printf("  WRONG: %s\n", what); failures++; } } while (0)

static void make_table(struct efiresume_key_table *t, int good_id)
{
	unsigned int n = 32;
	u8 mac[32];
	memset(t, 0, sizeof(*t));
	t->magic = EFIRESUME_KEY_MAGIC;
	t->version = 1;
	t->size = sizeof(*t);
	memcpy(t->key, test_key, 32);
	HMAC(EVP_sha256(), test_key, 32, (const u8 *)"efiresume key id", 16, mac, &n);
	memcpy(t->key_id, mac, 8);
	if (!good_id)
		t->key_id[0] ^= 1;
}

static void fill(u8 *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (u8)(seed * 131 + i * 7 + (i >> 8));
}

int main(int argc, char **argv)
{
	static u8 header[4096], map[4096], zero[4096];
	struct efiresume_key_table t;
	FILE *f;

	assert(argc == 2);
	printf("sizeof(struct efiresume_key_table) = %zu, sizeof(struct swsusp_auth) = %zu\n",
	       sizeof(struct efiresume_key_table), sizeof(struct swsusp_auth));
	CHECK(sizeof(struct efiresume_key_table) == 64, "key table is 64 bytes");

	/* the lockdown rule */
	mock_lockdown = LOCKDOWN_INTEGRITY_MAX;
	CHECK(!hibernation_key_protected(), "integrity: not protected");
	mock_lockdown = LOCKDOWN_NONE;
	CHECK(!hibernation_key_protected(), "none: not protected");
	mock_lockdown = LOCKDOWN_CONFIDENTIALITY_MAX;
	CHECK(hibernation_key_protected(), "confidentiality: protected");

	/* intake at integrity: wiped before user space */
	mock_lockdown = LOCKDOWN_INTEGRITY_MAX;
	make_table(&t, 1);
	hibernation_key_from_table(&t);
	CHECK(hibernation_key_present(), "table taken");
	mock_late_initcall();
	CHECK(!hibernation_key_present(), "integrity: key wiped by the late initcall");
	t.version = 2;
	hibernation_key_from_table(&t);
	CHECK(!hibernation_key_present(), "version 2 table ignored");

	/* the resume slot */
	mock_lockdown = LOCKDOWN_CONFIDENTIALITY_MAX;
	make_table(&t, 1);
	memcpy(hibernation_key_slot, &t, sizeof(t));
	hib_key.valid = 0x5a5a5a5a;	/* garbage of the nosave variable after a restore */
	hibernation_key_resumed();
	CHECK(hibernation_key_present(), "slot: key taken at confidentiality");
	CHECK(!memcmp(hibernation_key_slot, zero, 4096), "slot page wiped");
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "empty slot after resume: no key");
	memcpy(hibernation_key_slot, &t, sizeof(t));
	mock_lockdown = LOCKDOWN_NONE;
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "slot at lockdown none: ignored");
	CHECK(!memcmp(hibernation_key_slot, zero, 4096), "slot page wiped anyway");

	/* a wrong key id: hibernation fails, nothing tagged, key wiped */
	mock_lockdown = LOCKDOWN_CONFIDENTIALITY_MAX;
	make_table(&t, 0);
	hibernation_key_from_table(&t);
	mock_late_initcall();
	fill(header, 4096, 1);
	memcpy(header + 512, "EFRHMAC1", 8);
	CHECK(hibernation_auth_sign(header, 1, 0x6, 0, 0x11223344, 0) == -EINVAL, "wrong key id: -EINVAL");
	CHECK(!memcmp(header + 512, zero, 128), "wrong key id: auth block zero");
	CHECK(!hibernation_key_present(), "wrong key id: key wiped");

	/* the real thing: a tagged header over a 6-page stream */
	make_table(&t, 1);
	hibernation_key_from_table(&t);
	mock_late_initcall();
	CHECK(hibernation_key_present(), "confidentiality: key kept");
	fill(header, 4096, 2);
	memcpy(header + 4076, "SWAPSPACE2", 10);
	memcpy(header + 4086, "S1SUSPEND\0", 10);
	for (int i = 0; i < NPAGES; i++)
		fill(stream[i], 4096, 10 + i);
	memset(stream[0] + 424, 0, 8);
	stream[0][424] = NPAGES;			/* swsusp_info.pages */
	/* swsusp_header fields as mark_swapfiles() has set them: image = page 1 */
	{
		u32 hw_sig = 0xabcdef01, crc = 0x12345678, flags = 0x2 | 0x8;
		u64 image = 1;
		memcpy(header + 4056, &hw_sig, 4);
		memcpy(header + 4060, &crc, 4);
		memcpy(header + 4064, &image, 8);
		memcpy(header + 4072, &flags, 4);
		CHECK(hibernation_auth_sign(header, image, flags, hw_sig, crc, 0) == 0, "tagged");
	}
	CHECK(!memcmp(header + 512, "EFRHMAC1", 8), "auth block at 512");
	CHECK(!hibernation_key_present(), "key wiped after tagging");
	for (int i = 0; i < NPAGES; i++) {
		u64 e = 2 + i;
		memcpy(map + 8 * i, &e, 8);
	}
	f = fopen(argv[1], "wb");
	fwrite(header, 1, 4096, f);
	fwrite(map, 1, 4096, f);
	fwrite(stream, 1, sizeof(stream), f);
	fclose(f);

	/* no key: nothing tagged, a stale block cleared */
	{
		u8 h2[4096];
		memcpy(h2, header, 4096);
		CHECK(hibernation_auth_sign(h2, 1, 0x2, 0, 0, 0) == 0, "no key: success");
		CHECK(!memcmp(h2 + 512, zero, 128), "no key: stale auth block cleared");
	}
	printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
