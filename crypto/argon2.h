// SPDX-License-Identifier: GPL-2.0-or-later
/* Argon2i / Argon2id, version 0x13 (RFC 9106), freestanding, as cryptsetup uses them for
 * LUKS2 keyslots: no secret key, no associated data, output length = the key size.
 *
 * Memory comes from the caller: er_argon2_mem_bytes() says how much (computed in uint64_t,
 * so memory up to 4 GiB never overflows a 32-bit size_t; er_argon2 refuses what does not fit
 * in the address space). The lanes of one slice are independent: er_argon2 hands them to an
 * er_lanes engine (once per slice, 4 per pass, n = lanes; er_argon2_poll: once per piece of
 * a slice), which may run them in any order
 * and on other CPUs (EFI MP services in the loader, pthreads in the host tests).
 *
 * Everything derived from the password (H0, the memory blocks, blocks on the stack) is wiped
 * before er_argon2 returns. A refusal (false) happens before anything is derived and leaves
 * mem untouched. mem must be 8-byte aligned (any allocator's memory is). */
#ifndef EFIRESUME_CRYPTO_ARGON2_H
#define EFIRESUME_CRYPTO_ARGON2_H

#include "image/freestanding.h"

enum er_argon2_type { ER_ARGON2I = 1, ER_ARGON2ID = 2 };   /* version 0x13 only */

struct er_argon2_params {
	enum er_argon2_type type;
	uint32_t t_cost;        /* passes (LUKS2 "time") */
	uint32_t m_cost_kib;    /* LUKS2 "memory", KiB */
	uint32_t lanes;         /* LUKS2 "cpus" */
	const uint8_t *pwd; size_t pwdlen;
	const uint8_t *salt; size_t saltlen;
};

typedef void (*er_lane_fn)(void *arg, uint32_t lane);

/* Runs fn(arg, i) for i in [0, n) (in any order, possibly at once on other CPUs) and returns
 * when every call has returned. NULL engine or NULL run = one after the other on this CPU.
 * costly: each run starts and joins other CPUs through the firmware, which reports a CPU
 * back only on its own timer (edk2's MP services: every 100 ms), so a run costs up to that
 * much on top of the work: er_argon2_poll then hands the lanes whole segments (4 runs a
 * pass) instead of pieces. */
struct er_lanes { void *ctx; void (*run)(void *ctx, er_lane_fn fn, void *arg, uint32_t n); bool costly; };

/* Limits checked by er_argon2 (RFC 9106 section 3.1, as libargon2 checks them). */
#define ER_ARGON2_BLOCK_SIZE    1024u
#define ER_ARGON2_MIN_LANES     1u
#define ER_ARGON2_MAX_LANES     0xFFFFFFu      /* 2^24 - 1 */
#define ER_ARGON2_MIN_OUTLEN    4u
#define ER_ARGON2_MIN_SALTLEN   8u             /* libargon2's ARGON2_MIN_SALT_LENGTH */
#define ER_ARGON2_SYNC_POINTS   4u

/* bytes of working memory er_argon2 needs for p (the caller allocates and frees it):
 * the effective block count (m_cost rounded down to a multiple of 4 * lanes, at least
 * 8 * lanes) times 1024. 0 for parameters er_argon2 would refuse (lanes 0 or too many). */
uint64_t er_argon2_mem_bytes(const struct er_argon2_params *p);

/* returns false for parameters out of range (RFC 9106 limits; memory smaller than needed) */
bool er_argon2(const struct er_argon2_params *p, void *mem, uint64_t memlen, const struct er_lanes *lanes,
               uint8_t *out, size_t outlen);   /* wipes mem before returning */

/* Blocks (all lanes together) filled between two polls of er_argon2_poll's stop hook: 8 MiB
 * of memory, about 30 ms on one CPU of the build host (0.28 GiB/s); a multiple of 128 (one
 * block of addresses). */
#define ER_ARGON2_POLL_BLOCKS   8192u

/* er_argon2 that can be stopped. stop(ctx) (when not NULL) is called on the calling CPU
 * only, never from a lane: once before anything is derived, then between pieces of each
 * slice. With a stop hook the segments are handed to lanes in pieces of
 * max(128, ER_ARGON2_POLL_BLOCKS / lanes) blocks (rounded down to a multiple of 128): one
 * lanes->run per piece, the lanes' blocks depend only on earlier pieces, so the result is
 * the same; with a costly engine (lanes->costly) in whole segments, stop polled between
 * slices (1 GiB, 4 passes, 2 lanes: 16 runs, not 512: at up to 100 ms a run for the
 * firmware to report the other CPU back, 512 runs took 41 s more under QEMU). When stop returns true: mem and every intermediate secret are wiped, out is
 * wiped, *stopped is set and the result is false. Without a hook: exactly er_argon2. */
bool er_argon2_poll(const struct er_argon2_params *p, void *mem, uint64_t memlen,
		    const struct er_lanes *lanes, bool (*stop)(void *ctx), void *ctx, bool *stopped,
		    uint8_t *out, size_t outlen);

/* er_argon2 with RFC 9106's secret value K and associated data X (LUKS uses neither;
 * this is for the RFC's test vectors). Either may be NULL with length 0. */
bool er_argon2_ex(const struct er_argon2_params *p, const uint8_t *secret, size_t secretlen,
		  const uint8_t *ad, size_t adlen, void *mem, uint64_t memlen, const struct er_lanes *lanes,
		  uint8_t *out, size_t outlen);

#endif
