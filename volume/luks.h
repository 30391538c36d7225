// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS1 and LUKS2 containers: header reading, passphrase unlock, the data segment's
 * sector cipher. Pure C (image/), no firmware calls, no allocation of its own: the
 * device is read through a caller callback, memory comes from a caller allocator.
 *
 * What is accepted (everything else is refused with one line saying why):
 *   LUKS2: a valid binary header copy (magic, version 2, hdr_size one of 16 KiB..4 MiB,
 *          hdr_offset, checksum over the binary header with csum zeroed plus the JSON
 *          area); of two valid copies the one with the higher seqid. The JSON area:
 *          exactly one segment "0", type crypt, aes-xts-plain64, sector_size 512 or 4096,
 *          no integrity, no reencryption; a pbkdf2 digest bound to that segment; keyslots
 *          of type luks2 with kdf pbkdf2 (sha1/sha256/sha512), argon2i or argon2id, area
 *          raw aes-xts-plain64 (32/64-byte key) inside the keyslots area, af luks1 with
 *          4000 stripes. Keyslots that are not usable (another cipher, kdf, type, a KDF
 *          cost over the caps below) are skipped; no usable keyslot left is a refusal.
 *   LUKS1: cipher aes, mode xts-plain64, hash sha1/sha256/sha512, key 32 or 64 bytes,
 *          active keyslots with 4000 stripes inside the header area before the payload
 *          (iterations over ER_LUKS_PBKDF2_MAX_ITERATIONS: the keyslot is skipped).
 *
 * Tokens (LUKS2): a passphrase can be tried on every keyslot whose priority is not 0
 * ("ignore"); keyslots that no token names are tried first. When every keyslot is named
 * by a systemd-tpm2 token the container is "TPM2-only" (ER_LUKS_TOKEN_ONLY); when every
 * keyslot is named by a token and some by systemd-fido2/systemd-pkcs11 it is "hardware
 * token only" (same status): the header cannot say whether a passphrase exists, but no
 * keyslot is left that could hold one.
 *
 * Use:
 *   er_luks_probe(first 512 bytes)       1, 2 or 0: a quick look at the primary magic
 *   er_luks_probe_dev(&dev)              the same, or 2 for a valid LUKS2 secondary header
 *                                        when the primary is damaged (what the loader uses)
 *   er_luks_open(&hdr, &dev, &mem, &err) reads and checks the header(s) into hdr (no
 *                                        pointers into the device; buffers given back)
 *   er_luks_unlock(&hdr, &dev, &mem, lanes, cancel, pw, pwlen, vk, &vklen, &slot, &err)
 *                                        the volume key (wiped by the caller when done)
 *   er_luks_segment_crypt(&hdr.seg, &xts, offset, buf, len, encrypt)
 *                                        data sectors, with er_aes_xts_init(&xts, vk, vklen)
 */
#ifndef EFIRESUME_VOLUME_LUKS_H
#define EFIRESUME_VOLUME_LUKS_H

#include "image/freestanding.h"
#include "crypto/sha.h"
#include "crypto/argon2.h"
#include "crypto/aes.h"

#define ER_LUKS_MAX_KEYSLOTS 32         /* LUKS2's limit; LUKS1 has 8 */
#define ER_LUKS_MAX_KEY      64         /* aes-xts-plain64 with AES-256 */
#define ER_LUKS_MAX_SALT     64
#define ER_LUKS_STRIPES      4000       /* the only AF stripe count LUKS writes */
#define ER_LUKS2_HDR_MIN     0x4000u    /* hdr_size: a power of two in [16 KiB, 4 MiB] */
#define ER_LUKS2_HDR_MAX     0x400000u
#define ER_LUKS2_BIN_SIZE    4096u      /* the binary part of a LUKS2 header copy */
#define ER_LUKS_ARGON2_MAX_KIB (4u * 1024 * 1024)  /* 4 GiB, cryptsetup's maximum */
#define ER_LUKS_ARGON2_MAX_CPUS 16u     /* cryptsetup writes at most 4 (its max_parallel) */

/* Caps on the KDF cost a header may ask for. The header is not authenticated: without a
 * cap a keyslot with 2^32 - 1 iterations would keep the firmware busy for days before the
 * fallback boot. A keyslot over a cap is not usable (skipped, with the reason in the
 * detail; none left: the container is refused at once); a digest over the cap refuses the
 * container. The caps are far above what cryptsetup writes:
 *   PBKDF2: cryptsetup benchmarks the iterations for --iter-time (default 2000 ms for
 *   keyslots, 125 ms for the digest; its limits are 1000 .. 2^32 - 1); its benchmark
 *   reports 2-8 million iterations a second on current CPUs (sha256 with SHA-NI being the
 *   fastest), so a default keyslot has up to about 16 million. The cap, 10^8, is 6x that
 *   (or a 12 s --iter-time on the fastest CPU). efiresume's own PBKDF2 does 1.3 (SHA-512),
 *   2.8 (SHA-1) and 5.7 (SHA-256 with SHA-NI) million iterations a second on one CPU of the
 *   build host, so a keyslot at the cap costs 20 to 75 s per 32-byte output block.
 *   Argon2: cryptsetup's default is 1 GiB x 4 threads with the time (passes, at least 4)
 *   benchmarked for 2000 ms, typically 4-10; its limits are 4 GiB, 4 threads and time
 *   2^32 - 1. The cost is time x memory (blocks filled), so that is what is capped:
 *   at most 2^26 KiB (64 GiB of blocks), 6x to 16x a default keyslot (4-10 GiB), 16 passes
 *   over cryptsetup's 4 GiB maximum. efiresume's Argon2 fills about 0.28 GiB of blocks a
 *   second per CPU on the build host: a default keyslot takes about 18 s on one CPU, one at
 *   the cap about 4 minutes (1 with 4 CPUs). The cancel hook (Esc) stops either sooner. */
#define ER_LUKS_PBKDF2_MAX_ITERATIONS 100000000u
#define ER_LUKS_ARGON2_MAX_WORK_KIB   (1ull << 26)   /* time x memory, KiB */

enum er_luks_status {
	ER_LUKS_OK = 0,
	ER_LUKS_NOT_LUKS,               /* no LUKS magic at 0 nor a LUKS2 secondary header */
	ER_LUKS_IO,                     /* the read callback failed */
	ER_LUKS_CORRUPT,                /* a header that is not valid (checksum, bounds, JSON) */
	ER_LUKS_UNSUPPORTED,            /* valid, but something efiresume does not handle */
	ER_LUKS_TOKEN_ONLY,             /* every keyslot belongs to a TPM2/hardware token */
	ER_LUKS_NO_KEYSLOT,             /* no keyslot a passphrase could open */
	ER_LUKS_NOMEM,                  /* the allocator said no */
	ER_LUKS_WRONG_PASSPHRASE,       /* no keyslot opened with this passphrase */
	ER_LUKS_BAD_ARG,                /* a caller mistake (NULL, lengths) */
	ER_LUKS_INTERRUPTED,            /* the cancel hook asked to stop (the user pressed Esc) */
};

struct er_luks_err {
	enum er_luks_status status;
	char detail[160];
};

/* The device holding the container: size in bytes, and a read of len bytes at byte
 * offset off (within size; returns false on an I/O error). */
struct er_luks_dev {
	void *ctx;
	uint64_t size;
	bool (*read)(void *ctx, uint64_t off, size_t len, void *buf);
};

/* Working memory: headers (up to 2 x 4 MiB), the keyslot area (key * 4000 bytes), the
 * argon2 memory (up to 4 GiB). Everything allocated is freed before a function returns. */
struct er_luks_mem {
	void *ctx;
	void *(*alloc)(void *ctx, uint64_t bytes);      /* NULL when there is not enough */
	void (*free)(void *ctx, void *p, uint64_t bytes);
};

enum er_luks_kdf { ER_LUKS_KDF_PBKDF2 = 1, ER_LUKS_KDF_ARGON2I, ER_LUKS_KDF_ARGON2ID };
enum er_luks_token { ER_LUKS_TOKEN_NONE = 0, ER_LUKS_TOKEN_TPM2, ER_LUKS_TOKEN_HW, ER_LUKS_TOKEN_OTHER };

struct er_luks_keyslot {
	bool usable;                    /* present, supported, bound to the segment's digest */
	uint8_t priority;               /* 0 ignore, 1 normal, 2 prefer (LUKS1: 1) */
	uint8_t token;                  /* enum er_luks_token: the kind of token naming it */
	uint8_t kdf;                    /* enum er_luks_kdf */
	uint8_t kdf_hash;               /* enum er_hash (pbkdf2) */
	uint8_t af_hash;                /* enum er_hash */
	uint32_t iterations;            /* pbkdf2 iterations; argon2 time */
	uint32_t memory_kib, cpus;      /* argon2 */
	uint32_t salt_len;
	uint8_t salt[ER_LUKS_MAX_SALT];
	uint64_t area_offset, area_size;  /* bytes from the start of the device */
	uint32_t area_key_size;         /* bytes of the area cipher's key (= KDF output) */
	uint32_t key_size;              /* bytes of the volume key */
	uint32_t stripes;
};

struct er_luks_digest {
	uint8_t hash;                   /* enum er_hash */
	uint32_t iterations;
	uint32_t salt_len, digest_len;
	uint8_t salt[ER_LUKS_MAX_SALT];
	uint8_t digest[ER_LUKS_MAX_KEY];
};

/* The data segment, for the mapping layer. */
struct er_luks_segment {
	uint64_t offset;                /* bytes from the start of the device */
	uint64_t size;                  /* bytes; with dynamic: device size - offset */
	bool dynamic;                   /* "size":"dynamic" (LUKS1 always) */
	uint64_t iv_tweak;              /* added to the 512-byte sector number (LUKS2 iv_tweak) */
	uint32_t sector_size;           /* 512 or 4096 */
	bool iv_large_sectors;          /* IV counts sector_size units: never for LUKS1/LUKS2
					 * (dm-crypt's flag, which cryptsetup sets only for plain
					 * and BitLocker mappings); a 4096-byte LUKS2 sector n of
					 * the segment has the IV 8n + iv_tweak */
	uint32_t key_size;              /* volume key bytes: 32 or 64 (aes-xts-plain64) */
};

struct er_luks_header {
	unsigned version;               /* 1 or 2 */
	unsigned copy;                  /* LUKS2: 0 primary, 1 secondary header used */
	bool primary_ok, secondary_ok;  /* LUKS2: which copies were valid */
	uint64_t seqid, hdr_size;       /* LUKS2 */
	char uuid[41];
	struct er_luks_segment seg;
	struct er_luks_digest digest;
	struct er_luks_keyslot ks[ER_LUKS_MAX_KEYSLOTS];
	unsigned n_order;               /* keyslots a passphrase is tried on, in order */
	uint8_t order[ER_LUKS_MAX_KEYSLOTS];
};

/* 1 (LUKS1), 2 (LUKS2) or 0 from the first bytes of a device (len >= 8). */
unsigned er_luks_probe(const void *buf, size_t len);

/* Like er_luks_probe, but for a whole device: also finds a LUKS2 container whose primary
 * header is damaged by its secondary header (at the offsets cryptsetup tries), so that
 * er_luks_open's recovery is reachable. 0 when neither is there or a read fails. */
unsigned er_luks_probe_dev(const struct er_luks_dev *dev);

/* Polled while a key derivation runs (often enough to answer a key press within about a
 * tenth of a second): returning true stops the unlock with ER_LUKS_INTERRUPTED, every
 * secret wiped and every allocation freed. NULL: never interrupted. */
struct er_luks_cancel {
	void *ctx;
	bool (*requested)(void *ctx);
};

/* Reads and checks the header. ER_LUKS_TOKEN_ONLY and ER_LUKS_NO_KEYSLOT still fill hdr
 * (the segment is known, nothing can be unlocked with a passphrase). */
enum er_luks_status er_luks_open(struct er_luks_header *hdr, const struct er_luks_dev *dev,
				 const struct er_luks_mem *mem, struct er_luks_err *err);

/* Tries the passphrase on the keyslots of hdr->order; on success vk[0..*vk_len) is the
 * volume key (vk has ER_LUKS_MAX_KEY bytes) and *slot the keyslot that opened. lanes may be
 * NULL (argon2 lanes one after the other). Every intermediate secret is wiped, and every
 * allocation freed, before it returns; on failure vk is wiped too. */
enum er_luks_status er_luks_unlock(const struct er_luks_header *hdr, const struct er_luks_dev *dev,
				   const struct er_luks_mem *mem, const struct er_lanes *lanes,
				   const struct er_luks_cancel *cancel, const uint8_t *pw, size_t pwlen, uint8_t *vk, size_t *vk_len,
				   unsigned *slot, struct er_luks_err *err);

/* The plain64 IV (sector number) dm-crypt uses for the data unit that starts at byte
 * offset off of the segment (off a multiple of seg->sector_size): off / 512 + iv_tweak,
 * shifted right by log2(sector_size / 512) only with iv_large_sectors (never for LUKS). */
uint64_t er_luks_iv_sector(const struct er_luks_segment *seg, uint64_t off);

/* Decrypts (encrypt false) or encrypts buf[0..len) in place, the segment's bytes
 * [off, off + len): off and len multiples of seg->sector_size, inside the segment when
 * its size is known (dev_size: the device's size, for a dynamic segment). false for
 * arguments that break this. x from er_aes_xts_init with the volume key. */
bool er_luks_segment_crypt(const struct er_luks_segment *seg, uint64_t dev_size,
			   const struct er_aes_xts *x, uint64_t off, uint8_t *buf, size_t len,
			   bool encrypt);

const char *er_luks_status_name(enum er_luks_status s);   /* "corrupt-header", "token-only"... */

/* The most memory one passphrase attempt asks the allocator for at once (the largest
 * argon2 memory of the keyslots tried, or the keyslot area): for planning. */
uint64_t er_luks_max_unlock_memory(const struct er_luks_header *hdr);

/* One line for the console, e.g. "LUKS2 aes-xts-plain64 512-bit, 4096-byte sectors, data
 * at 16777216; keyslots 0 argon2id 1048576 KiB x4, 1 pbkdf2 sha256" (truncated to cap). */
void er_luks_summary(const struct er_luks_header *hdr, char *buf, size_t cap);

/* internal, exposed for tests and the fuzzer: base64 (RFC 4648, padded) into out[0..cap) */
bool er_luks_base64(const char *s, size_t n, uint8_t *out, size_t cap, size_t *out_len);
/* internal, exposed for tests: the AF merge (cryptsetup af.c semantics) of src (key_size *
 * stripes bytes) into key; h the AF hash. */
bool er_luks_af_merge(const uint8_t *src, uint32_t key_size, uint32_t stripes, enum er_hash h,
		      uint8_t *key);

#endif
