// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase dialogue for one LUKS container; see unlock.h. The argon2 lanes run on
 * the other CPUs (loader/lanes.c on EFI MP services). The KDF's memory is given back
 * before er_unlock returns. */
#include "loader/unlock.h"
#include "loader/kdfbudget.h"
#include "loader/tpmunlock.h"
#include "efi/mp.h"
#include "arch/cpu.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

#define PASS_MAX 512            /* cryptsetup's interactive limit */
#define PASS_TRIES 3
#define PASS_IDLE_S 300         /* no key for 5 minutes: boot normally */
#define LANE_JOIN_US (120ull * 1000000)

static void *luks_alloc(void *ctx, uint64_t bytes)
{
	UINT64 addr = 0;
	(void)ctx;
	if (bytes == 0 || bytes > (UINTN)-1 - ER_PAGE_SIZE)
		return NULL;
	if (EFI_ERROR(er_alloc_any((UINTN)((bytes + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE), 0, &addr)))
		return NULL;
	return (void *)(UINTN)addr;
}

/* ctx: the lane scheduler (a helper not confirmed back may still write to the memory) */
static void luks_free(void *ctx, void *p, uint64_t bytes)
{
	const struct er_lane_sched *lanes = ctx;
	if (p && !er_lanes_unconfirmed(lanes))
		er_free_pages(p, (UINTN)((bytes + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE));
}

struct er_luks_mem er_unlock_mem(struct er_lane_sched *lanes)
{
	struct er_luks_mem mem = { lanes, luks_alloc, luks_free };
	return mem;
}

/* The cancel hook of the key derivation: Esc pressed (ConIn: the keyboard and, through
 * the firmware's console splitter, the serial terminal) while it runs. Firmware calls
 * are made on the boot CPU only: called on a helper CPU (from a lane) it says what the
 * boot CPU saw, without looking. */
struct esc_poll {
	UINT32 boot_cpu;        /* the boot CPU's APIC id */
	bool seen;           /* written by the boot CPU only */
};

static UINT32 apic_id(void)
{
	UINT32 a, b, c, d;
	er_cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 0xb) {
		er_cpuid(0xb, 0, &a, &b, &c, &d);
		if (b & 0xffff)
			return d;       /* x2APIC id */
	}
	er_cpuid(1, 0, &a, &b, &c, &d);
	return b >> 24;
}

static bool esc_requested(void *ctx)
{
	struct esc_poll *p = ctx;
	if (__atomic_load_n(&p->seen, __ATOMIC_RELAXED))
		return true;
	if (apic_id() != p->boot_cpu)
		return false;
	for (int k = 0; k < 16; k++) {
		INT32 c = er_poll_key();
		if (c == 0)
			break;
		if (c == 27) {
			__atomic_store_n(&p->seen, true, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

static const char *kdf_name(unsigned kdf)
{
	return kdf == ER_LUKS_KDF_ARGON2ID ? "argon2id" : kdf == ER_LUKS_KDF_ARGON2I ? "argon2i" : "pbkdf2";
}

static int mp_start(void *ctx, unsigned i, void (*fn)(void *arg), void *arg)
{
	return er_mp_helper_start(ctx, i, fn, arg);
}

static int mp_join(void *ctx, unsigned i, uint64_t timeout_us)
{
	return er_mp_helper_join(ctx, i, timeout_us);
}

static void mp_stalled(void *ctx, uint32_t done)
{
	(void)ctx;
	log_warn(L"a helper CPU has held an argon2 lane for %d s (%d lanes done); waiting for it (reset the machine to "
		 L"boot normally: the image is kept)\n", (INTN)(LANE_JOIN_US / 1000000), (INTN)done);
}

static bool ask(struct er_lane_sched *lanes, const struct er_blockdev *lower, const struct er_luks_dev *dev,
		   const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len, unsigned helpers);

bool er_unlock_has_tpm2(const struct er_luks_header *hdr)
{
	for (unsigned i = 0; i < ER_LUKS_MAX_KEYSLOTS; i++)
		if (hdr->ks[i].usable && hdr->ks[i].token == ER_LUKS_TOKEN_TPM2)
			return true;
	return false;
}

/* ---- the TPM: the container's systemd-tpm2 tokens (loader/tpmunlock.c) */

struct tpm_ctx {
	struct er_lane_sched *lanes;
	const struct er_blockdev *lower;
	const struct er_luks_dev *dev;
	const struct er_luks_header *hdr;
	struct er_luks_header *tried;       /* scratch: hdr with the token's keyslots only */
	UINT8 *vk;
	size_t vk_len;
	int pin_end;                        /* the PIN prompt's negative answer, 0 */
};

static void tpm_log(void *ctx, const char *line)
{
	(void)ctx;
	log_info(L"%a\n", line);
}

static long tpm_pin(void *ctx, unsigned id, unsigned t, unsigned tries, char *buf, size_t cap)
{
	struct tpm_ctx *c = ctx;
	log_info(L"TPM PIN for luks-%a on %a (systemd-tpm2 token %d, try %d of %d, Esc: the passphrase instead): ",
		 c->hdr->uuid, c->lower->id, (INTN)id, (INTN)t, (INTN)tries);
	INTN n = er_read_secret(buf, cap > PASS_MAX ? PASS_MAX : cap, PASS_IDLE_S);
	if (n < 0) {
		c->pin_end = (int)n;
		log_info(L"luks-%a: TPM PIN %a\n", c->hdr->uuid, n == -1 ? "skipped (Esc)" : n == -3 ?
			 "not typed: no key for 5 minutes" : "not read: the console cannot be read");
	}
	return (long)n;
}

static uint64_t tpm_now(void *ctx)
{
	(void)ctx;
	return er_time_us();
}

/* the token's keyslots only; no KDF budget: systemd-cryptenroll makes them PBKDF2 with
 * the fewest iterations (its key has full entropy), and the header's caps hold anyway */
static bool tpm_try(void *ctx, uint32_t mask, const char *pass, size_t len, unsigned *slot)
{
	struct tpm_ctx *c = ctx;
	struct er_luks_err e = { 0 };
	struct er_luks_mem mem = er_unlock_mem(c->lanes);
	struct er_lanes engine = { c->lanes, er_lanes_run, er_lanes_parallel(c->lanes) };

	*c->tried = *c->hdr;
	c->tried->n_order = 0;
	for (unsigned i = 0; i < c->hdr->n_order; i++)
		if (mask & (1u << c->hdr->order[i]))
			c->tried->order[c->tried->n_order++] = c->hdr->order[i];
	if (!c->tried->n_order) {
		log_info(L"luks-%a: no usable keyslot among the token's\n", c->hdr->uuid);
		return false;
	}
	enum er_luks_status st = er_luks_unlock(c->tried, c->dev, &mem, &engine, NULL, (const UINT8 *)pass, len, c->vk,
						&c->vk_len, slot, &e);
	if (st != ER_LUKS_OK && st != ER_LUKS_WRONG_PASSPHRASE)
		log_info(L"luks-%a: %a: %a\n", c->hdr->uuid, er_luks_status_name(st), e.detail);
	return st == ER_LUKS_OK && !er_lanes_unconfirmed(c->lanes);
}

static UINT64 be64(const UINT8 *p)
{
	UINT64 v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The LUKS2 JSON area of the header copy er_luks_open used (re-read: the header keeps no
 * tokens), checked to be that copy still (magic, size, seqid); allocated, NUL-terminated */
static char *json_area(const struct er_luks_dev *dev, const struct er_luks_header *hdr, UINTN *len)
{
	static const UINT8 magic[2][6] = { { 'L', 'U', 'K', 'S', 0xba, 0xbe }, { 'S', 'K', 'U', 'L', 0xba, 0xbe } };
	UINT64 off = hdr->copy ? hdr->hdr_size : 0;
	char *buf = NULL;

	if (hdr->version != 2 || hdr->hdr_size < 8192 || hdr->hdr_size > (4u << 20))
		return NULL;
	if (EFI_ERROR(er_alloc((UINTN)hdr->hdr_size + 1, (void **)&buf)))
		return NULL;
	if (!dev->read(dev->ctx, off, (size_t)hdr->hdr_size, buf) || er_memcmp(buf, magic[hdr->copy ? 1 : 0], 6) ||
	    be64((UINT8 *)buf + 8) != hdr->hdr_size || be64((UINT8 *)buf + 16) != hdr->seqid) {
		log_info(L"luks-%a: its LUKS2 header changed or cannot be read again; the TPM is not asked\n", hdr->uuid);
		er_free(buf);
		return NULL;
	}
	buf[hdr->hdr_size] = 0;
	*len = er_strnlen(buf + 4096, (size_t)hdr->hdr_size - 4096);
	er_memmove(buf, buf + 4096, *len);
	buf[*len] = 0;
	return buf;
}

/* 1 unlocked, 0 not (the passphrase may be asked), -1 the PIN prompt was left: nothing more */
static int tpm_unlock(struct er_lane_sched *lanes, const struct er_tpm_io *tpm, const struct er_blockdev *lower,
		      const struct er_luks_dev *dev, const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len)
{
	struct er_tpmunlock_scratch *sc = NULL;
	struct er_luks_header *tried = NULL;
	UINTN len = 0;
	char *json = json_area(dev, hdr, &len);
	int ret = 0;

	if (!json)
		return 0;
	if (EFI_ERROR(er_alloc_zero(sizeof(*sc), (void **)&sc)) || EFI_ERROR(er_alloc_zero(sizeof(*tried), (void **)&tried)))
		goto out;
	struct tpm_ctx c = { lanes, lower, dev, hdr, tried, vk, 0, 0 };
	struct er_tpmunlock_ops ops = { &c, tpm_log, tpm_pin, tpm_try, tpm_now };
	unsigned tid = 0, slot = 0;
	enum er_tpmunlock_result r = er_tpmunlock_run(hdr->uuid, json, len, tpm, &ops, sc, &tid, &slot);
	if (r == ER_TPMUNLOCK_UNLOCKED) {
		*vk_len = c.vk_len;
		ret = 1;
	} else if (r == ER_TPMUNLOCK_SKIPPED) {
		log_info(L"luks-%a: booting normally (the initramfs will ask)\n", hdr->uuid);
		ret = -1;
	} else if (r == ER_TPMUNLOCK_REFUSED) {
		log_info(L"luks-%a: the TPM did not unlock it (the line above says why)\n", hdr->uuid);
	}
out:
	if (tried) {
		er_wipe(tried, sizeof(*tried));
		er_free(tried);
	}
	if (sc) {
		er_wipe(sc, sizeof(*sc));
		er_free(sc);
	}
	er_wipe(json, len);
	er_free(json);
	if (ret != 1)
		er_wipe(vk, ER_LUKS_MAX_KEY);
	return ret;
}

bool er_unlock(struct er_lane_sched *lanes, const struct er_tpm_io *tpm, const struct er_blockdev *lower,
	       const struct er_luks_dev *dev, const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len)
{
	unsigned helpers = er_mp_helpers_available();
	static const struct er_lanes_ops mp_ops = { NULL, mp_start, mp_join, er_mp_now_us, er_mp_relax, mp_stalled };
	char summary[200];

	*vk_len = 0;
	er_lanes_init(lanes, &mp_ops, helpers, LANE_JOIN_US);
	er_luks_summary(hdr, summary, sizeof(summary));
	log_info(L"luks-%a on %a: %a\n", hdr->uuid, lower->id, summary);
	if (er_lanes_unconfirmed(lanes)) {
		log_warn(L"luks-%a: a helper CPU of an earlier key derivation was not confirmed back; not unlocked\n",
			 hdr->uuid);
		return false;
	}
	if (er_unlock_has_tpm2(hdr)) {
		if (!tpm) {
			log_info(L"luks-%a: it has systemd-tpm2 token(s) and there is no TPM 2.0 (EFI_TCG2_PROTOCOL)\n",
				 hdr->uuid);
		} else {
			int t = tpm_unlock(lanes, tpm, lower, dev, hdr, vk, vk_len);
			if (er_lanes_unconfirmed(lanes)) {
				er_wipe(vk, ER_LUKS_MAX_KEY);
				*vk_len = 0;
				log_warn(L"luks-%a: a helper CPU was not confirmed back after the key derivation; not unlocked, "
					 L"and no image is resumed in this boot\n", hdr->uuid);
				return false;
			}
			if (t != 0)
				return t > 0;
		}
		/* TPM2-only (every keyslot a passphrase is tried on is a systemd-tpm2 token's): no prompt */
		bool passphrase = false;
		for (unsigned i = 0; i < hdr->n_order; i++)
			passphrase |= hdr->ks[hdr->order[i]].token != ER_LUKS_TOKEN_TPM2;
		if (!passphrase) {
			log_info(L"luks-%a on %a: not unlocked: token-only: every keyslot belongs to a systemd-tpm2 token and "
				 L"the TPM did not unlock it; booting normally (the initramfs will ask)\n", hdr->uuid, lower->id);
			return false;
		}
	}
	/* the keyslots one attempt tries, within the KDF budget (loader/kdfbudget.h); the
	 * rest are never tried in this boot */
	struct er_luks_header *tried;
	if (EFI_ERROR(er_alloc_zero(sizeof(*tried), (void **)&tried)))
		return false;
	*tried = *hdr;
	UINT8 dropped[ER_LUKS_MAX_KEYSLOTS];
	UINT64 spent = 0;
	unsigned ndropped = er_kdf_budget(tried, ER_KDF_BUDGET, dropped, &spent);
	for (unsigned i = 0; i < ndropped; i++)
		log_info(L"luks-%a: keyslot %d (%a, %ld/1000 of a capped keyslot) skipped: over the KDF budget of one "
			 L"passphrase attempt (%d/1000 kept of %d/1000: efiresume.conf(5))\n", hdr->uuid, (INTN)dropped[i],
			 kdf_name(hdr->ks[dropped[i]].kdf), er_kdf_cost(hdr, dropped[i]), (INTN)spent, (INTN)ER_KDF_BUDGET);
	bool unlocked = ask(lanes, lower, dev, tried, vk, vk_len, helpers);
	er_wipe(tried, sizeof(*tried));
	er_free(tried);
	return unlocked;
}

/* The passphrases, tried on hdr's keyslots (within the budget already). */
static bool ask(struct er_lane_sched *lanes, const struct er_blockdev *lower, const struct er_luks_dev *dev,
		   const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len, unsigned helpers)
{
	struct er_luks_err e = { 0 };
	struct er_luks_mem mem = er_unlock_mem(lanes);
	struct er_lanes engine = { lanes, er_lanes_run, er_lanes_parallel(lanes) };
	char *pw = NULL;
	size_t len = 0;
	unsigned slot = 0;
	struct esc_poll esc = { apic_id(), false };
	struct er_luks_cancel cancel = { &esc, esc_requested };
	bool unlocked = false;

	/* the key derivation's memory in one piece: there, or no passphrase is asked */
	UINT64 need = er_luks_max_unlock_memory(hdr), addr = 0;
	if (need) {
		UINTN pages = (UINTN)((need + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE);
		if (need > (UINTN)-1 - ER_PAGE_SIZE || EFI_ERROR(er_alloc_any(pages, 0, &addr))) {
			log_info(L"luks-%a: the key derivation needs %ld MiB in one piece and the firmware has no such free "
				 L"memory; not unlocked, booting normally (the initramfs will ask)\n", hdr->uuid,
				 (need + (1 << 20) - 1) >> 20);
			return false;
		}
		er_free_pages((void *)(UINTN)addr, pages);
	}
	if (EFI_ERROR(er_alloc_pages(1, (void **)&pw)))
		return false;
	for (unsigned t = 1; t <= PASS_TRIES; t++) {
		log_info(L"passphrase for luks-%a on %a (try %d of %d, Esc: skip): ", hdr->uuid, lower->id, (INTN)t,
			 (INTN)PASS_TRIES);
		INTN n = er_read_secret(pw, PASS_MAX, PASS_IDLE_S);
		if (n < 0) {
			log_info(L"luks-%a: %a; booting normally (the initramfs will ask)\n", hdr->uuid,
				 n == -1 ? "skipped (Esc)" : n == -3 ? "no key for 5 minutes" : "the console cannot be read");
			break;
		}
		UINT64 t0 = er_time_us();
		esc.seen = false;
		enum er_luks_status st = er_luks_unlock(hdr, dev, &mem, &engine, &cancel, (const UINT8 *)pw, (size_t)n, vk,
							&len, &slot, &e);
		UINT64 ms = (er_time_us() - t0) / 1000;
		er_wipe(pw, PASS_MAX);
		if (er_lanes_unconfirmed(lanes)) {
			er_wipe(vk, ER_LUKS_MAX_KEY);
			log_warn(L"luks-%a: a helper CPU was not confirmed back after the argon2 lanes; not unlocked, and no "
				 L"image is resumed in this boot\n", hdr->uuid);
			break;
		}
		if (st == ER_LUKS_OK) {
			log_info(L"luks-%a: unlocked (keyslot %d, %a, %ld ms on %d CPU(s))\n", hdr->uuid, (INTN)slot,
				 kdf_name(hdr->ks[slot].kdf), ms, (INTN)(helpers + 1));
			*vk_len = len;
			unlocked = true;
			break;
		}
		if (st == ER_LUKS_INTERRUPTED) {
			log_info(L"luks-%a: skipped (Esc during the key derivation); booting normally (the initramfs will ask)\n",
				 hdr->uuid);
			break;
		}
		if (st == ER_LUKS_WRONG_PASSPHRASE) {
			log_info(L"luks-%a: wrong passphrase (%ld ms)\n", hdr->uuid, ms);
			if (t == PASS_TRIES)
				log_info(L"luks-%a: %d wrong passphrases; booting normally (the initramfs will ask)\n", hdr->uuid,
					 (INTN)PASS_TRIES);
			continue;
		}
		log_info(L"luks-%a: not unlocked: %a: %a\n", hdr->uuid, er_luks_status_name(st), e.detail);
		break;
	}
	if (!unlocked)
		er_wipe(vk, ER_LUKS_MAX_KEY);
	er_wipe(pw, ER_PAGE_SIZE);
	er_free_pages(pw, 1);
	return unlocked;
}
