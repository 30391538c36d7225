// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mock-check.sh's host test of kernel/power/hibernate_auth.c as the series leaves it
 * (included below, so its statics are reachable): key intake and the lockdown decision,
 * the kexec wipe, the key page after a resume, and the v2 write side driven the way
 * kernel/power/swap.c drives it (swap_write_page(): encrypt, write, a tag page after
 * every 256; swap_writer_finish(): the last tag page, then mark_swapfiles()), over an
 * NPAGES-page stream. Writes DISK (arg 1): a swap area (page 0 the header, then the
 * swap map pages, then the pages in write order) that tests/e2e/kernel/verify-tag.py
 * checks independently (python3-cryptography).
 */
#include "kernel.h"
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include "hibernate_auth.c"

enum lockdown_reason mock_lockdown;
int security_locked_down(enum lockdown_reason what)
{
	assert(what < LOCKDOWN_CONFIDENTIALITY_MAX);	/* the lockdown LSM WARNs on it */
	return mock_lockdown >= what ? -EPERM : 0;
}
void get_random_bytes(void *buf, size_t n) { assert(RAND_bytes(buf, (int)n) == 1); }

/* shash over OpenSSL: the message is kept and HMAC'd at final */
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
void shash_desc_zero(struct shash_desc *d) { memset(d, 0, sizeof(*d) + sizeof(struct mock_ctx)); }

/* AEAD over OpenSSL: in place, src == dst = { page, tag } as hibernate_auth.c sets it up */
struct crypto_aead *crypto_alloc_aead(const char *name, u32 type, u32 mask)
{
	(void)type; (void)mask;
	assert(!strcmp(name, "gcm(aes)"));
	return calloc(1, sizeof(struct crypto_aead));
}
void crypto_free_aead(struct crypto_aead *tfm) { free(tfm); }
int crypto_aead_setkey(struct crypto_aead *tfm, const u8 *key, unsigned int keylen)
{
	assert(keylen == 32);
	memcpy(tfm->key, key, 32);
	tfm->keylen = keylen;
	return 0;
}
int crypto_aead_setauthsize(struct crypto_aead *tfm, unsigned int authsize) { tfm->authsize = authsize; return 0; }
void crypto_req_done(void *data, int err) { struct crypto_wait *w = data; w->err = err; w->done = 1; }
int crypto_aead_encrypt(struct aead_request *r)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int len, ok;

	assert(r->src == r->dst && r->assoclen == 0 && r->tfm->authsize == 16);
	assert(r->src[0].len == r->cryptlen && r->src[1].len == 16);
	ok = EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL) &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) &&
	     EVP_EncryptInit_ex(c, NULL, NULL, r->tfm->key, r->iv) &&
	     EVP_EncryptUpdate(c, r->src[0].buf, &len, r->src[0].buf, (int)r->cryptlen) &&
	     EVP_EncryptFinal_ex(c, (u8 *)r->src[0].buf + len, &len) &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, r->src[1].buf);
	EVP_CIPHER_CTX_free(c);
	if (r->tfm->calls++ & 1) {		/* "async": completed through the callback */
		r->complete(r->data, ok ? 0 : -EIO);
		return -EINPROGRESS;
	}
	return ok ? 0 : -EIO;
}

#define NPAGES 600			/* 3 tag groups: 256, 256, 88 */
#define NTAGS ((NPAGES + 255) / 256)
#define NMAP ((NPAGES + NTAGS + 510) / 511)
static u8 stream[NPAGES][4096];
static u8 area[1 + NMAP + NPAGES + NTAGS][4096];
static unsigned int written;
static u64 map_entries[NPAGES + NTAGS];

static const u8 test_key[32] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
				 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
static int failures;
#define CHECK(c, what) do { if (c) printf("  ok: %s\n", what); else { printf("  WRONG: %s\n", what); failures++; } } while (0)

static void make_table(struct efiresume_key_table *t, int good_id, u32 version)
{
	unsigned int n = 32;
	u8 mac[32];
	memset(t, 0, sizeof(*t));
	t->magic = EFIRESUME_KEY_MAGIC;
	t->version = version;
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

/* swap_write_raw_page(): the page goes to the next free slot, listed in the map */
static void raw_write(const void *buf)
{
	unsigned int slot = 1 + NMAP + written;
	memcpy(area[slot], buf, 4096);
	map_entries[written++] = slot;
}

/* boot: the table arrives in setup_arch(), the decision after security_init() */
static void boot(enum lockdown_reason level, int good_id, u32 version)
{
	struct efiresume_key_table t;

	hibernation_key_wipe();
	WRITE_ONCE(hib_key_kexec, false);
	mock_lockdown = level;
	make_table(&t, good_id, version);
	hibernation_key_from_table(&t);
	hibernation_key_check();
}

int main(int argc, char **argv)
{
	static u8 header[4096], zero[4096];
	struct efiresume_key_table t;
	struct hib_enc *e;
	void *out;
	int ret = 0;
	FILE *f;

	assert(argc == 2);
	CHECK(sizeof(struct efiresume_key_table) == 64, "key table is 64 bytes");
	CHECK(sizeof(struct swsusp_auth) == 128, "auth block is 128 bytes");

	/* the lockdown rule */
	mock_lockdown = LOCKDOWN_INTEGRITY_MAX;
	CHECK(!hibernation_key_protected(), "integrity: not protected");
	mock_lockdown = LOCKDOWN_NONE;
	CHECK(!hibernation_key_protected(), "none: not protected");
	mock_lockdown = LOCKDOWN_CONFIDENTIALITY_MAX;
	CHECK(hibernation_key_protected(), "confidentiality: protected");

	/* intake */
	boot(LOCKDOWN_INTEGRITY_MAX, 1, 2);
	CHECK(!hibernation_key_present(), "integrity: key wiped at the decision");
	boot(LOCKDOWN_NONE, 1, 2);
	CHECK(!hibernation_key_present(), "none: key wiped at the decision");
	boot(LOCKDOWN_CONFIDENTIALITY_MAX, 1, 1);
	CHECK(!hibernation_key_present(), "version 1 table ignored");
	boot(LOCKDOWN_CONFIDENTIALITY_MAX, 1, 2);
	CHECK(hibernation_key_present(), "confidentiality: key kept");

	/* kexec: wiped, and no key after a resume either */
	hibernation_key_kexec();
	CHECK(!hibernation_key_present(), "kexec load: key wiped");
	make_table(&t, 1, 2);
	memcpy(hibernation_key_page, &t, sizeof(t));
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "kexec seen: key page after resume refused");
	CHECK(!memcmp(hibernation_key_page, zero, 4096), "key page wiped anyway");
	WRITE_ONCE(hib_key_kexec, false);

	/* the key page after a resume */
	mock_lockdown = LOCKDOWN_CONFIDENTIALITY_MAX;
	memcpy(hibernation_key_page, &t, sizeof(t));
	hib_key.valid = 0x5a5a5a5a;	/* garbage of the nosave variable after a restore */
	hibernation_key_resumed();
	CHECK(hibernation_key_present(), "key page: key taken at confidentiality");
	CHECK(!memcmp(hibernation_key_page, zero, 4096), "key page wiped");
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "empty key page after resume: no key");
	make_table(&t, 1, 1);
	memcpy(hibernation_key_page, &t, sizeof(t));
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "key page of version 1: ignored");
	make_table(&t, 1, 2);
	memcpy(hibernation_key_page, &t, sizeof(t));
	mock_lockdown = LOCKDOWN_NONE;
	hibernation_key_resumed();
	CHECK(!hibernation_key_present(), "key page at lockdown none: ignored");
	CHECK(!memcmp(hibernation_key_page, zero, 4096), "key page wiped anyway");

	/* a wrong key id: no image, key wiped */
	boot(LOCKDOWN_CONFIDENTIALITY_MAX, 0, 2);
	e = hibernation_enc_begin();
	CHECK(IS_ERR(e) && PTR_ERR(e) == -EINVAL, "wrong key id: -EINVAL");
	CHECK(!hibernation_key_present(), "wrong key id: key wiped");

	/* no key: NULL (upstream image), a stale auth block cleared, unmark too */
	CHECK(hibernation_enc_begin() == NULL, "no key: no encryption");
	fill(header, 4096, 1);
	memcpy(header + 512, "EFRHMAC1", 8);
	CHECK(hibernation_enc_finish(NULL, header, 1, 2, 0, 0, 0) == 0, "no key: finish succeeds");
	CHECK(!memcmp(header + 512, zero, 128), "no key: stale auth block cleared");

	/* a pending tag page at finish: refused, key wiped */
	boot(LOCKDOWN_CONFIDENTIALITY_MAX, 1, 2);
	e = hibernation_enc_begin();
	CHECK(!IS_ERR_OR_NULL(e), "begin");
	fill(stream[0], 4096, 3);
	CHECK(hibernation_enc_page(e, stream[0], &out) == 0, "one page encrypted");
	CHECK(hibernation_enc_finish(e, header, 1, 2, 0, 0, 0) == -EINVAL, "tag page not written: refused");
	CHECK(!hibernation_key_present(), "key wiped at finish, even refused");
	CHECK(!memcmp(header + 512, zero, 128), "refused: auth block zero");
	hibernation_enc_free(e);

	/* the real thing, as swap.c drives it */
	boot(LOCKDOWN_CONFIDENTIALITY_MAX, 1, 2);
	e = hibernation_enc_begin();
	CHECK(!IS_ERR_OR_NULL(e), "begin with the key");
	CHECK(hibernation_key_present(), "the key stays until finish");
	for (int i = 0; i < NPAGES; i++)
		fill(stream[i], 4096, 10 + i);
	*(u64 *)(stream[0] + 424) = NPAGES;			/* swsusp_info.pages */
	*(u64 *)(stream[0] + 432) = NPAGES * 4096ULL;		/* swsusp_info.size */
	for (int i = 0; i < NPAGES && !ret; i++) {
		void *tags;
		ret = hibernation_enc_page(e, stream[i], &out);
		if (ret)
			break;
		CHECK(i % 100 || memcmp(out, stream[i], 4096), "page encrypted");
		raw_write(out);
		tags = hibernation_enc_tag_page(e, false);
		if (tags) {
			raw_write(tags);
			hibernation_enc_tag_page_done(e);
		}
	}
	CHECK(ret == 0, "every page encrypted");
	{
		void *tags = hibernation_enc_tag_page(e, true);
		CHECK(tags != NULL, "a last (partial) tag page");
		raw_write(tags);
		hibernation_enc_tag_page_done(e);
		CHECK(hibernation_enc_tag_page(e, true) == NULL, "nothing pending after it");
	}
	CHECK(written == NPAGES + NTAGS, "n + ceil(n/256) pages written");
	/* the swap map pages, chained from page 1 */
	for (unsigned int m = 0; m < NMAP; m++) {
		u64 *mp = (u64 *)area[1 + m];
		for (unsigned int k = 0; k < 511 && m * 511 + k < written; k++)
			mp[k] = map_entries[m * 511 + k];
		mp[511] = m + 1 < NMAP ? 2 + m : 0;
	}
	fill(header, 4096, 2);
	memcpy(header + 4076, "SWAPSPACE2", 10);
	memcpy(header + 4086, "S1SUSPEND\0", 10);
	{
		u32 hw_sig = 0xabcdef01, crc = 0x12345678, flags = 0x2 | 0x8;
		u64 image = 1;
		memcpy(header + 4056, &hw_sig, 4);
		memcpy(header + 4060, &crc, 4);
		memcpy(header + 4064, &image, 8);
		memcpy(header + 4072, &flags, 4);
		CHECK(hibernation_enc_finish(e, header, image, flags, hw_sig, crc, 0) == 0, "finished");
	}
	hibernation_enc_free(e);
	CHECK(!memcmp(header + 512, "EFRHMAC1", 8), "auth block at 512");
	CHECK(!hibernation_key_present(), "key wiped after the image");
	CHECK(hibernation_enc_begin() == NULL, "a second image: no key");
	memcpy(area[0], header, 4096);
	f = fopen(argv[1], "wb");
	fwrite(area, 1, sizeof(area), f);
	fclose(f);

	/* a hybrid-sleep wake: swsusp_unmark() zeroes the block */
	hibernation_enc_unmark(header);
	CHECK(!memcmp(header + 512, zero, 128), "unmark: auth block zeroed");
	printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
