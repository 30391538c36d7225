// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase dialogue for one LUKS container; see unlock.h. The argon2 lanes run on
 * the other CPUs (loader/lanes.c on EFI MP services). The KDF's memory is given back
 * before er_unlock returns. */
#include "loader/unlock.h"
#include "loader/kdfbudget.h"
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

bool er_unlock(struct er_lane_sched *lanes, const struct er_blockdev *lower, const struct er_luks_dev *dev,
		  const struct er_luks_header *hdr, UINT8 *vk, UINTN *vk_len)
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
	struct er_lanes engine = { lanes, er_lanes_run };
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
