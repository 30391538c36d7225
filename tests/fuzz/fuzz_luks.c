// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for volume/luks.c: the LUKS1/LUKS2 header reader (binary headers, both
 * LUKS2 copies, the JSON area) and, when the parameters are cheap, the unlock path.
 *
 * Input byte 0: bit 0 set = before reading, put right the checksums of the LUKS2 header
 * copies that look like one (magic, a hdr_size that fits, a known checksum algorithm), so
 * that mutations of the JSON area get past the checksum; bit 1 = try an unlock with the
 * passphrase "p0"; bit 2 = the device is 32 MiB, zeros after the input (so that a seed
 * truncated to its headers still has room for the keyslots and data areas its JSON names);
 * bit 3 = the unlock gets a cancel hook that says stop at its (byte 0 >> 4)-th poll.
 * The rest of the input is the device (an exactly sized heap copy, so ASan sees every read
 * past it).
 * Checked: er_luks_probe_dev agrees with er_luks_probe on a primary magic, says 2 or 0
 * otherwise, never says 0 for a container open accepts and never 2 for one open calls not
 * LUKS; allocations are all given back; on success the segment, the keyslot areas and
 * the try order are inside the device and self-consistent; an unlock returns one of the
 * documented statuses and a volume key of the segment's key size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volume/luks.h"
#include "crypto/wipe.h"

struct mdev { const uint8_t *p; uint64_t n, size; };

static bool rd(void *ctx, uint64_t off, size_t len, void *buf)
{
	struct mdev *d = ctx;
	if (off > d->size || len > d->size - off)
		__builtin_trap();       /* luks.c checks against dev->size before reading */
	uint64_t have = off < d->n ? ER_MIN(d->n - off, len) : 0;
	memcpy(buf, d->p + off, (size_t)have);
	memset((uint8_t *)buf + have, 0, len - (size_t)have);
	return true;
}

static uint64_t outstanding;
static void *al(void *ctx, uint64_t n)
{
	(void)ctx;
	if (n > (64u << 20))            /* argon2 memory of a fuzzed header: say no */
		return NULL;
	void *p = malloc(n);
	if (p)
		outstanding += n;
	return p;
}
static void fr(void *ctx, void *p, uint64_t n)
{
	(void)ctx;
	outstanding -= n;
	free(p);
}

struct poll_count { unsigned polls, fire_at; };
static bool requested(void *ctx)
{
	struct poll_count *c = ctx;
	return c->polls++ >= c->fire_at;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void fix_copy(uint8_t *d, size_t n, uint64_t off)
{
	enum er_hash h;
	if (off > n || n - off < 4096)
		return;
	uint8_t *b = d + off;
	uint64_t hs = be64(b + 8);
	if (hs < 4096 || hs > n - off || hs > ER_LUKS2_HDR_MAX)
		return;
	size_t l = strnlen((const char *)b + 72, 32);
	if (l == 32 || !er_hash_from_name((const char *)b + 72, l, &h))
		return;
	memset(b + 448, 0, 64);
	er_hash(h, b, (size_t)hs, b + 448);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	size_t n = size - 1;
	uint8_t *d = malloc(n ? n : 1);
	memcpy(d, data + 1, n);
	if (mode & 1) {
		fix_copy(d, n, 0);
		if (n >= 16)
			fix_copy(d, n, be64(d + 8));
		for (uint64_t off = 0x4000; off <= 0x400000; off <<= 1)
			if (n > off + 8 && !memcmp(d + off, "SKUL\xba\xbe", 6))
				fix_copy(d, n, off);
	}
	struct mdev md = { d, n, (mode & 4) && n < (32u << 20) ? 32u << 20 : n };
	struct er_luks_dev dev = { .ctx = &md, .size = md.size, .read = rd };
	struct er_luks_mem mem = { .ctx = NULL, .alloc = al, .free = fr };
	static struct er_luks_header h;
	struct er_luks_err err;
	unsigned pv = er_luks_probe_dev(&dev), p0 = er_luks_probe(d, n);
	enum er_luks_status st = er_luks_open(&h, &dev, &mem, &err);
	if (outstanding)
		__builtin_trap();
	if ((p0 && pv != p0) || pv > 2 || (!p0 && pv == 1) || (st == ER_LUKS_OK && !pv) ||
	    (pv == 2 && !p0 && st == ER_LUKS_NOT_LUKS))
		__builtin_trap();
	if (st == ER_LUKS_OK) {
		const struct er_luks_segment *s = &h.seg;
		if (s->offset >= md.size || s->size > md.size - s->offset || (s->sector_size != 512 && s->sector_size != 1024 &&
		    s->sector_size != 2048 && s->sector_size != 4096) || s->offset % s->sector_size ||
		    (s->key_size != 32 && s->key_size != 64) || h.n_order == 0 || h.n_order > ER_LUKS_MAX_KEYSLOTS)
			__builtin_trap();
		bool cheap = h.digest.iterations <= 2000;
		for (unsigned i = 0; i < h.n_order; i++) {
			const struct er_luks_keyslot *k = &h.ks[h.order[i]];
			if (!k->usable || k->area_offset > md.size || k->area_size > md.size - k->area_offset ||
			    k->key_size != s->key_size || k->stripes != ER_LUKS_STRIPES ||
			    (k->area_key_size != 32 && k->area_key_size != 64) ||
			    (uint64_t)k->key_size * k->stripes > k->area_size)
				__builtin_trap();
			if (k->kdf == ER_LUKS_KDF_PBKDF2 ? k->iterations > 2000 :
			    k->iterations > 4 || k->memory_kib > 1024)
				cheap = false;
		}
		if ((mode & 2) && cheap) {
			uint8_t vk[ER_LUKS_MAX_KEY];
			size_t vl = 99;
			unsigned slot = 99;
			struct poll_count pc = { 0, mode >> 4 };
			struct er_luks_cancel cancel = { &pc, requested };
			st = er_luks_unlock(&h, &dev, &mem, NULL, (mode & 8) ? &cancel : NULL, (const uint8_t *)"p0", 2,
					    vk, &vl, &slot, &err);
			if (outstanding)
				__builtin_trap();
			if (st == ER_LUKS_OK ? vl != s->key_size || slot >= ER_LUKS_MAX_KEYSLOTS :
			    st != ER_LUKS_WRONG_PASSPHRASE && st != ER_LUKS_UNSUPPORTED && st != ER_LUKS_NOMEM &&
			    (st != ER_LUKS_INTERRUPTED || !(mode & 8)))
				__builtin_trap();
			if (st == ER_LUKS_INTERRUPTED && pc.polls != pc.fire_at + 1)
				__builtin_trap();   /* polled again after saying stop */
			er_wipe(vk, sizeof(vk));
		}
	} else if (st != ER_LUKS_NOT_LUKS && st != ER_LUKS_CORRUPT && st != ER_LUKS_UNSUPPORTED &&
		   st != ER_LUKS_TOKEN_ONLY && st != ER_LUKS_NO_KEYSLOT && st != ER_LUKS_NOMEM) {
		__builtin_trap();
	}
	free(d);
	return 0;
}
