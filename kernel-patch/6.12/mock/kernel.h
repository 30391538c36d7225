// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host mock of the kernel API that kernel/power/hibernate_auth.c (kernel-patch/6.12,
 * patches 0001 + 0003) uses, for mock-check.sh: types, printing, lockdown, the
 * crypto shash API (OpenSSL's HMAC-SHA256 underneath) and the snapshot reader.
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
typedef uint64_t u64;
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
#define late_initcall(f) int (*mock_late_initcall)(void) = f
#define pr_info(fmt, ...) printf("info: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) printf("warn: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) printf("err: " pr_fmt(fmt), ##__VA_ARGS__)
static inline void memzero_explicit(void *p, size_t n) { memset(p, 0, n); __asm__ __volatile__("" : : "r"(p) : "memory"); }
#define GFP_KERNEL 0
#define kmalloc(n, f) malloc(n)
#define kfree(p) free(p)
#define cond_resched() do { } while (0)
#define IS_ERR(p) ((uintptr_t)(p) >= (uintptr_t)-4095)
#define PTR_ERR(p) ((long)(intptr_t)(p))
#define ERR_PTR(e) ((void *)(intptr_t)(e))

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

/* crypto */
#define SHA256_DIGEST_SIZE 32
struct crypto_shash { u8 key[64]; unsigned keylen; };
struct shash_desc { struct crypto_shash *tfm; void *ctx; u8 __ctx[]; };
struct crypto_shash *crypto_alloc_shash(const char *name, u32 type, u32 mask);
void crypto_free_shash(struct crypto_shash *tfm);
int crypto_shash_setkey(struct crypto_shash *tfm, const u8 *key, unsigned int keylen);
unsigned int crypto_shash_descsize(struct crypto_shash *tfm);
int crypto_shash_init(struct shash_desc *desc);
int crypto_shash_update(struct shash_desc *desc, const u8 *data, unsigned int len);
int crypto_shash_final(struct shash_desc *desc, u8 *out);
int crypto_shash_digest(struct shash_desc *desc, const u8 *data, unsigned int len, u8 *out);
void shash_desc_zero(struct shash_desc *desc);
static inline int crypto_memneq(const void *a, const void *b, size_t n) { return memcmp(a, b, n) != 0; }

/* power.h: the snapshot reader */
struct snapshot_handle { unsigned int cur; void *buffer; int sync_read; };
#define data_of(handle) ((handle).buffer)
int snapshot_read_next(struct snapshot_handle *handle);
unsigned long snapshot_get_image_size(void);
bool hibernation_key_present(void);
bool hibernation_key_protected(void);
void hibernation_key_wipe(void);
void hibernation_key_resumed(void);
phys_addr_t hibernation_key_slot_phys(void);
int hibernation_auth_sign(void *header, u64 image, u32 flags, u32 hw_sig, u32 crc32, sector_t resume_block);
#endif
