// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host mock of the kernel API that kernel/power/hibernate_auth.c (kernel-patch/6.12,
 * as the whole series leaves it) uses, for mock-check.sh: types, printing, lockdown,
 * pages, the crypto shash API (OpenSSL's HMAC-SHA256 underneath) and the AEAD API
 * ("gcm(aes)": OpenSSL's AES-256-GCM; every other request completes "asynchronously",
 * through the callback and -EINPROGRESS, as an async driver would).
 * Little-endian host assumed (x86_64), as the kernel it stands for.
 */
#ifndef MOCK_KERNEL_H
#define MOCK_KERNEL_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef uint32_t __le32;
typedef uint64_t __le64;
typedef uint64_t sector_t;
typedef uint64_t phys_addr_t;
#define cpu_to_le32(x) ((uint32_t)(x))
#define cpu_to_le64(x) ((uint64_t)(x))
#define le32_to_cpu(x) ((uint32_t)(x))
#define le64_to_cpu(x) ((uint64_t)(x))
#define __init
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __nosavedata __attribute__((section("mock_nosave")))
#define PAGE_SIZE 4096UL
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define WARN_ON_ONCE(c) ({ bool __c = (c); if (__c) printf("WARN_ON_ONCE(%s)\n", #c); __c; })
#define pr_info(fmt, ...) printf("info: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) printf("warn: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) printf("err: " pr_fmt(fmt), ##__VA_ARGS__)
static inline void memzero_explicit(void *p, size_t n) { memset(p, 0, n); __asm__ __volatile__("" : : "r"(p) : "memory"); }
#define GFP_KERNEL 0
#define kzalloc(n, f) calloc(1, n)
#define kfree(p) free(p)
#define kfree_sensitive(p) free(p)
#define __get_free_page(f) ((unsigned long)malloc(PAGE_SIZE))
#define get_zeroed_page(f) ((unsigned long)calloc(1, PAGE_SIZE))
#define free_page(a) free((void *)(a))
#define clear_page(p) memset(p, 0, PAGE_SIZE)
#define IS_ERR(p) ((uintptr_t)(p) >= (uintptr_t)-4095)
#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR(p))
#define PTR_ERR(p) ((long)(intptr_t)(p))
#define ERR_PTR(e) ((void *)(intptr_t)(e))
static inline void put_unaligned_le64(u64 v, void *p) { memcpy(p, &v, 8); }
static inline void put_unaligned_le32(u32 v, void *p) { memcpy(p, &v, 4); }
void get_random_bytes(void *buf, size_t n);

/* lockdown: the mock's level; a denied reason returns -EPERM like lockdown_is_locked_down() */
enum lockdown_reason {
	LOCKDOWN_NONE, LOCKDOWN_HIBERNATION, LOCKDOWN_INTEGRITY_MAX,
	LOCKDOWN_KCORE, LOCKDOWN_KPROBES, LOCKDOWN_BPF_READ_KERNEL, LOCKDOWN_DBG_READ_KERNEL,
	LOCKDOWN_PERF, LOCKDOWN_TRACEFS, LOCKDOWN_XMON_RW, LOCKDOWN_XFRM_SECRET,
	LOCKDOWN_CONFIDENTIALITY_MAX,
};
extern enum lockdown_reason mock_lockdown;
int security_locked_down(enum lockdown_reason what);

/* asm/page.h */
#define __pa_symbol(x) ((phys_addr_t)0x1234000)

/* crypto: shash */
#define SHA256_DIGEST_SIZE 32
struct crypto_shash { u8 key[64]; unsigned keylen; };
struct mock_ctx { u8 *buf; size_t len; };
struct shash_desc { struct crypto_shash *tfm; u8 __ctx[] __aligned(8); };
#define SHASH_DESC_ON_STACK(shash, ctx) \
	char __##shash##_desc[sizeof(struct shash_desc) + sizeof(struct mock_ctx)] __aligned(8); \
	struct shash_desc *shash = (struct shash_desc *)__##shash##_desc
struct crypto_shash *crypto_alloc_shash(const char *name, u32 type, u32 mask);
void crypto_free_shash(struct crypto_shash *tfm);
int crypto_shash_setkey(struct crypto_shash *tfm, const u8 *key, unsigned int keylen);
unsigned int crypto_shash_descsize(struct crypto_shash *tfm);
int crypto_shash_init(struct shash_desc *desc);
int crypto_shash_update(struct shash_desc *desc, const u8 *data, unsigned int len);
int crypto_shash_final(struct shash_desc *desc, u8 *out);
void shash_desc_zero(struct shash_desc *desc);
static inline int crypto_memneq(const void *a, const void *b, size_t n) { return memcmp(a, b, n) != 0; }

/* crypto: scatterlists, AEAD, waiting */
struct scatterlist { void *buf; unsigned int len; };
static inline void sg_init_table(struct scatterlist *sg, unsigned int n) { memset(sg, 0, n * sizeof(*sg)); }
static inline void sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int len) { sg->buf = (void *)buf; sg->len = len; }
typedef void (*crypto_completion_t)(void *data, int err);
struct crypto_wait { int err; int done; };
static inline void crypto_init_wait(struct crypto_wait *w) { w->err = 0; w->done = 0; }
void crypto_req_done(void *data, int err);
static inline int crypto_wait_req(int err, struct crypto_wait *w)
{
	if (err == -EINPROGRESS || err == -EBUSY) {
		assert(w->done);
		w->done = 0;
		err = w->err;
	}
	return err;
}
#define CRYPTO_TFM_REQ_MAY_BACKLOG 0x400
#define CRYPTO_TFM_REQ_MAY_SLEEP 0x200
struct crypto_aead { u8 key[32]; unsigned int keylen, authsize; unsigned long calls; };
struct aead_request {
	struct crypto_aead *tfm;
	crypto_completion_t complete; void *data;
	struct scatterlist *src, *dst; unsigned int cryptlen, assoclen; u8 *iv;
};
struct crypto_aead *crypto_alloc_aead(const char *name, u32 type, u32 mask);
void crypto_free_aead(struct crypto_aead *tfm);
int crypto_aead_setkey(struct crypto_aead *tfm, const u8 *key, unsigned int keylen);
int crypto_aead_setauthsize(struct crypto_aead *tfm, unsigned int authsize);
static inline unsigned int crypto_aead_ivsize(struct crypto_aead *tfm) { (void)tfm; return 12; }
static inline struct aead_request *aead_request_alloc(struct crypto_aead *tfm, int gfp)
{
	struct aead_request *r = calloc(1, sizeof(*r));
	(void)gfp;
	r->tfm = tfm;
	return r;
}
static inline void aead_request_free(struct aead_request *r) { free(r); }
static inline void aead_request_set_callback(struct aead_request *r, u32 flags, crypto_completion_t c, void *d)
{ (void)flags; r->complete = c; r->data = d; }
static inline void aead_request_set_crypt(struct aead_request *r, struct scatterlist *src,
					  struct scatterlist *dst, unsigned int cryptlen, u8 *iv)
{ r->src = src; r->dst = dst; r->cryptlen = cryptlen; r->iv = iv; }
static inline void aead_request_set_ad(struct aead_request *r, unsigned int assoclen) { r->assoclen = assoclen; }
int crypto_aead_encrypt(struct aead_request *r);
#endif
