// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS1 / LUKS2: see luks.h. Layouts and rules from the LUKS1 spec 1.2.3, the LUKS2
 * on-disk format document and cryptsetup's behaviour (lib/luks1/keymanage.c, af.c,
 * lib/luks2/luks2_disk_metadata.c, luks2_json_metadata.c, dm-crypt's plain64 IV). */
#include "volume/luks.h"
#include "image/fmt.h"
#include "volume/json.h"
#include "crypto/pbkdf2.h"
#include "crypto/wipe.h"

#define LFAIL(err, st, ...)                                                     \
	do {                                                                    \
		if (err) {                                                      \
			(err)->status = (st);                                   \
			er_snprintf((err)->detail, sizeof((err)->detail), __VA_ARGS__); \
		}                                                               \
		return (st);                                                    \
	} while (0)

static void set_err(struct er_luks_err *err, enum er_luks_status st, const char *msg)
{
	if (err) {
		err->status = st;
		er_snprintf(err->detail, sizeof(err->detail), "%s", msg);
	}
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static const uint8_t magic1[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static const uint8_t magic2[6] = { 'S', 'K', 'U', 'L', 0xba, 0xbe };

const char *er_luks_status_name(enum er_luks_status s)
{
	switch (s) {
	case ER_LUKS_OK: return "ok";
	case ER_LUKS_NOT_LUKS: return "not-luks";
	case ER_LUKS_IO: return "io-error";
	case ER_LUKS_CORRUPT: return "corrupt-header";
	case ER_LUKS_UNSUPPORTED: return "unsupported";
	case ER_LUKS_TOKEN_ONLY: return "token-only";
	case ER_LUKS_NO_KEYSLOT: return "no-keyslot";
	case ER_LUKS_NOMEM: return "no-memory";
	case ER_LUKS_WRONG_PASSPHRASE: return "wrong-passphrase";
	case ER_LUKS_BAD_ARG: return "bad-argument";
	case ER_LUKS_INTERRUPTED: return "interrupted";
	}
	return "?";
}

unsigned er_luks_probe(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	if (!b || len < 8 || er_memcmp(b, magic1, 6))
		return 0;
	uint16_t v = be16(b + 6);
	return v == 1 || v == 2 ? v : 0;
}

/* ------------------------------------------------------------------ helpers */

bool er_luks_base64(const char *s, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
	size_t o = 0;
	if (n % 4)
		return false;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = 0;
		unsigned pad = 0;
		for (unsigned j = 0; j < 4; j++) {
			char c = s[i + j];
			uint32_t d;
			if (c >= 'A' && c <= 'Z') d = (uint32_t)(c - 'A');
			else if (c >= 'a' && c <= 'z') d = (uint32_t)(c - 'a' + 26);
			else if (c >= '0' && c <= '9') d = (uint32_t)(c - '0' + 52);
			else if (c == '+') d = 62;
			else if (c == '/') d = 63;
			else if (c == '=' && i + 4 == n && j >= 2) { d = 0; pad++; }
			else return false;
			if (pad && c != '=')
				return false;       /* data after padding */
			v = v << 6 | d;
		}
		unsigned bytes = 3 - pad;
		if (o + bytes > cap)
			return false;
		/* the bits the padding drops must be zero (canonical encoding) */
		if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
			return false;
		out[o++] = (uint8_t)(v >> 16);
		if (bytes > 1) out[o++] = (uint8_t)(v >> 8);
		if (bytes > 2) out[o++] = (uint8_t)v;
	}
	*out_len = o;
	return true;
}

/* cryptsetup af.c: each digest-sized block i of buf becomes H(be32(i) || block), the last
 * partial block truncated. */
static void diffuse(uint8_t *buf, uint32_t size, enum er_hash h)
{
	size_t ds = er_hash_len(h);
	uint8_t out[ER_HASH_MAX_LEN];
	struct er_hash_ctx c;
	uint32_t blocks = (uint32_t)((size + ds - 1) / ds);
	for (uint32_t i = 0; i < blocks; i++) {
		size_t off = (size_t)i * ds;
		size_t n = ER_MIN(ds, size - off);
		uint8_t iv[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i };
		er_hash_init(&c, h);
		er_hash_update(&c, iv, 4);
		er_hash_update(&c, buf + off, n);
		er_hash_final(&c, out);
		er_memcpy(buf + off, out, n);
	}
	er_wipe(out, sizeof(out));
}

bool er_luks_af_merge(const uint8_t *src, uint32_t key_size, uint32_t stripes, enum er_hash h,
		      uint8_t *key)
{
	if (!src || !key || key_size == 0 || key_size > ER_LUKS_MAX_KEY || stripes == 0 ||
	    er_hash_len(h) == 0)
		return false;
	uint8_t acc[ER_LUKS_MAX_KEY];
	er_memset(acc, 0, sizeof(acc));
	for (uint32_t i = 0; i + 1 < stripes; i++) {
		const uint8_t *s = src + (size_t)i * key_size;
		for (uint32_t j = 0; j < key_size; j++)
			acc[j] ^= s[j];
		diffuse(acc, key_size, h);
	}
	const uint8_t *last = src + (size_t)(stripes - 1) * key_size;
	for (uint32_t j = 0; j < key_size; j++)
		key[j] = acc[j] ^ last[j];
	er_wipe(acc, sizeof(acc));
	return true;
}

/* bytes of the AF-split key material, whole 512-byte sectors */
static uint64_t af_area_bytes(uint32_t key_size, uint32_t stripes)
{
	return ((uint64_t)key_size * stripes + 511) / 512 * 512;
}

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* copies a fixed on-disk char field that must hold a NUL */
static bool fixed_str(const uint8_t *p, size_t n, char *out)
{
	size_t l = er_strnlen((const char *)p, n);
	if (l == n)
		return false;
	er_memcpy(out, p, l);
	out[l] = 0;
	return true;
}

static bool streq(const char *a, const char *b)
{
	size_t la = er_strnlen(a, 256), lb = er_strnlen(b, 256);
	return la == lb && !er_memcmp(a, b, la);
}

static bool hash_name(const char *s, enum er_hash *h)
{
	return er_hash_from_name(s, er_strnlen(s, 64), h);
}

static void *mem_alloc(const struct er_luks_mem *m, uint64_t n)
{
	if (!m || !m->alloc || !m->free || (uint64_t)(size_t)n != n)
		return 0;
	return m->alloc(m->ctx, n);
}

static bool dev_read(const struct er_luks_dev *dev, uint64_t off, size_t len, void *buf)
{
	if (off > dev->size || len > dev->size - off)
		return false;
	return dev->read(dev->ctx, off, len, buf);
}

/* ------------------------------------------------------------------ LUKS1 */

#define L1_HDR_SIZE 592
#define L1_KEY_ENABLED 0x00AC71F3u
#define L1_KEY_DISABLED 0x0000DEADu

static enum er_luks_status luks1_open(struct er_luks_header *h, const struct er_luks_dev *dev,
				      const uint8_t *b, struct er_luks_err *err)
{
	char cname[32], cmode[32], hspec[32];
	enum er_hash hash;
	if (!fixed_str(b + 8, 32, cname) || !fixed_str(b + 40, 32, cmode) || !fixed_str(b + 72, 32, hspec))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS1: cipher, mode or hash name not terminated");
	if (!streq(cname, "aes") || !streq(cmode, "xts-plain64"))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1 cipher %s-%s (only aes-xts-plain64 is supported)",
		      cname, cmode);
	if (!hash_name(hspec, &hash))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1 hash %s (only sha1, sha256, sha512)", hspec);
	uint32_t payload = be32(b + 104), key_bytes = be32(b + 108), mk_iter = be32(b + 164);
	if (key_bytes != 32 && key_bytes != 64)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1 key of %u bytes (aes-xts-plain64 takes 32 or 64)",
		      key_bytes);
	if (payload == 0)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1 payload offset 0 (a detached header)");
	uint64_t data_off = (uint64_t)payload * 512;
	if (data_off >= dev->size)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 payload offset %llu beyond the device (%llu bytes)",
		      (unsigned long long)data_off, (unsigned long long)dev->size);
	if (mk_iter == 0)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 master key digest iterations 0");
	if (mk_iter > ER_LUKS_PBKDF2_MAX_ITERATIONS)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1 master key digest iterations %u over the cap %u",
		      mk_iter, ER_LUKS_PBKDF2_MAX_ITERATIONS);
	if (!fixed_str(b + 168, 40, h->uuid))
		er_memcpy(h->uuid, b + 168, 40), h->uuid[40] = 0;

	h->version = 1;
	h->seg.offset = data_off;
	h->seg.size = dev->size - data_off;
	h->seg.dynamic = true;
	h->seg.iv_tweak = 0;
	h->seg.sector_size = 512;
	h->seg.iv_large_sectors = false;
	h->seg.key_size = key_bytes;
	h->digest.hash = (uint8_t)hash;
	h->digest.iterations = mk_iter;
	h->digest.salt_len = 32;
	er_memcpy(h->digest.salt, b + 132, 32);
	h->digest.digest_len = 20;
	er_memcpy(h->digest.digest, b + 112, 20);

	uint64_t area = af_area_bytes(key_bytes, ER_LUKS_STRIPES);
	char skip[80] = "";
	for (unsigned i = 0; i < 8; i++) {
		const uint8_t *k = b + 208 + 48 * i;
		uint32_t active = be32(k), iter = be32(k + 4), off = be32(k + 40), stripes = be32(k + 44);
		struct er_luks_keyslot *ks = &h->ks[i];
		if (active == L1_KEY_DISABLED)
			continue;
		if (active != L1_KEY_ENABLED)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 keyslot %u: state 0x%x", i, active);
		if (stripes != ER_LUKS_STRIPES)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 keyslot %u: %u stripes (LUKS uses 4000)", i, stripes);
		if (iter == 0)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 keyslot %u: 0 iterations", i);
		uint64_t a = (uint64_t)off * 512;
		if (a < L1_HDR_SIZE || a + area > data_off)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS1 keyslot %u: key material at sector %u outside "
			      "the header area (payload at sector %u)", i, off, payload);
		if (iter > ER_LUKS_PBKDF2_MAX_ITERATIONS) {
			if (!skip[0])
				er_snprintf(skip, sizeof(skip), "keyslot %u: pbkdf2 iterations %u over the cap %u",
					    i, iter, ER_LUKS_PBKDF2_MAX_ITERATIONS);
			continue;
		}
		ks->usable = true;
		ks->priority = 1;
		ks->kdf = ER_LUKS_KDF_PBKDF2;
		ks->kdf_hash = (uint8_t)hash;
		ks->af_hash = (uint8_t)hash;
		ks->iterations = iter;
		ks->salt_len = 32;
		er_memcpy(ks->salt, k + 8, 32);
		ks->area_offset = a;
		ks->area_size = area;
		ks->area_key_size = key_bytes;
		ks->key_size = key_bytes;
		ks->stripes = stripes;
		h->order[h->n_order++] = (uint8_t)i;
	}
	if (h->n_order == 0 && skip[0])
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS1: no usable keyslot (%s)", skip);
	if (h->n_order == 0)
		LFAIL(err, ER_LUKS_NO_KEYSLOT, "LUKS1: no active keyslot");
	return ER_LUKS_OK;
}

/* ------------------------------------------------------------------ LUKS2 binary headers */

static const uint32_t l2_hdr2_offsets[] = {
	0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000,
};

/* Whether a valid LUKS2 secondary header starts at off: the magic, version 2, hdr_size =
 * off (the secondary follows a primary of the same size), hdr_offset = off and the
 * checksum over the copy (read in pieces: no allocator here). */
static bool l2_secondary_at(const struct er_luks_dev *dev, uint64_t off)
{
	uint8_t b[ER_LUKS2_BIN_SIZE], want[ER_HASH_MAX_LEN], got[ER_HASH_MAX_LEN];
	char alg[32];
	enum er_hash h;
	struct er_hash_ctx c;

	if (off > dev->size || dev->size - off < ER_LUKS2_BIN_SIZE || !dev_read(dev, off, sizeof(b), b))
		return false;
	if (er_memcmp(b, magic2, 6) || be16(b + 6) != 2 || be64(b + 8) != off || be64(b + 256) != off ||
	    dev->size - off < off || !fixed_str(b + 72, 32, alg) || !hash_name(alg, &h))
		return false;
	size_t hl = er_hash_len(h);
	er_memcpy(want, b + 448, hl);
	er_memset(b + 448, 0, 64);
	er_hash_init(&c, h);
	er_hash_update(&c, b, sizeof(b));
	for (uint64_t at = ER_LUKS2_BIN_SIZE; at < off; at += sizeof(b)) {
		if (!dev_read(dev, off + at, sizeof(b), b))
			return false;
		er_hash_update(&c, b, sizeof(b));
	}
	er_hash_final(&c, got);
	return !er_memcmp(want, got, hl);
}

unsigned er_luks_probe_dev(const struct er_luks_dev *dev)
{
	uint8_t b[8];                   /* magic and version: all er_luks_probe reads */

	if (!dev || !dev->read || dev->size < sizeof(b) || !dev_read(dev, 0, sizeof(b), b))
		return 0;
	unsigned v = er_luks_probe(b, sizeof(b));
	if (v)
		return v;
	/* the primary is damaged: a secondary at one of the offsets cryptsetup tries */
	for (unsigned i = 0; i < ER_ARRAY_SIZE(l2_hdr2_offsets); i++)
		if (l2_secondary_at(dev, l2_hdr2_offsets[i]))
			return 2;
	return 0;
}

struct l2_copy {
	uint8_t *buf;                   /* hdr_size bytes, from the allocator */
	uint64_t size, seqid, offset;
	size_t json_len;                /* up to the first NUL of the JSON area */
	char why[100];                  /* why it is not valid */
	bool magic;                     /* the magic was there */
};

static void l2_free(const struct er_luks_mem *m, struct l2_copy *c)
{
	if (c->buf)
		m->free(m->ctx, c->buf, c->size);
	c->buf = 0;
}

/* Reads and checks the header copy at off; ER_LUKS_OK with c->buf set when valid,
 * ER_LUKS_CORRUPT (c->why) when not, ER_LUKS_IO / ER_LUKS_NOMEM. */
static enum er_luks_status l2_read_copy(const struct er_luks_dev *dev, const struct er_luks_mem *m,
					uint64_t off, bool secondary, struct l2_copy *c)
{
	uint8_t bin[ER_LUKS2_BIN_SIZE];
	char alg[32];
	enum er_hash h;
	c->buf = 0;
	c->size = 0;
	c->offset = off;
	c->magic = false;
	if (off > dev->size || dev->size - off < ER_LUKS2_BIN_SIZE) {
		er_snprintf(c->why, sizeof(c->why), "beyond the device");
		return ER_LUKS_CORRUPT;
	}
	if (!dev_read(dev, off, sizeof(bin), bin))
		return ER_LUKS_IO;
	if (er_memcmp(bin, secondary ? magic2 : magic1, 6)) {
		er_snprintf(c->why, sizeof(c->why), "no magic");
		return ER_LUKS_CORRUPT;
	}
	c->magic = true;
	uint16_t ver = be16(bin + 6);
	uint64_t size = be64(bin + 8), hoff = be64(bin + 256);
	if (ver != 2) {
		er_snprintf(c->why, sizeof(c->why), "version %u", ver);
		return ER_LUKS_CORRUPT;
	}
	if (!is_pow2(size) || size < ER_LUKS2_HDR_MIN || size > ER_LUKS2_HDR_MAX) {
		er_snprintf(c->why, sizeof(c->why), "hdr_size %llu", (unsigned long long)size);
		return ER_LUKS_CORRUPT;
	}
	if (secondary && size != off) {
		/* both copies have the same size; the secondary starts where the primary ends */
		er_snprintf(c->why, sizeof(c->why), "hdr_size %llu at offset %llu",
			    (unsigned long long)size, (unsigned long long)off);
		return ER_LUKS_CORRUPT;
	}
	if (hoff != off) {
		er_snprintf(c->why, sizeof(c->why), "hdr_offset %llu read at %llu",
			    (unsigned long long)hoff, (unsigned long long)off);
		return ER_LUKS_CORRUPT;
	}
	if (dev->size - off < size) {
		er_snprintf(c->why, sizeof(c->why), "hdr_size %llu beyond the device",
			    (unsigned long long)size);
		return ER_LUKS_CORRUPT;
	}
	if (!fixed_str(bin + 72, 32, alg) || !hash_name(alg, &h)) {
		er_snprintf(c->why, sizeof(c->why), "checksum algorithm not sha1/sha256/sha512");
		return ER_LUKS_CORRUPT;
	}
	c->buf = mem_alloc(m, size);
	if (!c->buf)
		return ER_LUKS_NOMEM;
	c->size = size;
	er_memcpy(c->buf, bin, sizeof(bin));
	if (!dev_read(dev, off + ER_LUKS2_BIN_SIZE, (size_t)(size - ER_LUKS2_BIN_SIZE),
		      c->buf + ER_LUKS2_BIN_SIZE)) {
		l2_free(m, c);
		return ER_LUKS_IO;
	}
	uint8_t want[ER_HASH_MAX_LEN], got[ER_HASH_MAX_LEN];
	size_t hl = er_hash_len(h);
	er_memcpy(want, c->buf + 448, hl);
	er_memset(c->buf + 448, 0, 64);
	er_hash(h, c->buf, (size_t)size, got);
	er_memcpy(c->buf + 448, want, hl);
	if (er_memcmp(want, got, hl)) {
		er_snprintf(c->why, sizeof(c->why), "checksum mismatch");
		l2_free(m, c);
		return ER_LUKS_CORRUPT;
	}
	const char *json = (const char *)c->buf + ER_LUKS2_BIN_SIZE;
	size_t area = (size_t)(size - ER_LUKS2_BIN_SIZE);
	c->json_len = er_strnlen(json, area);
	struct er_json root;
	size_t at = 0;
	int r = c->json_len == area ? ER_JSON_E_SYNTAX : er_json_parse(json, c->json_len, &root, &at);
	if (r || root.type != ER_JSON_OBJECT) {
		er_snprintf(c->why, sizeof(c->why), "JSON area: %s at byte %llu",
			    c->json_len == area ? "not terminated" :
			    r ? er_json_strerror(r) : "not an object", (unsigned long long)at);
		l2_free(m, c);
		return ER_LUKS_CORRUPT;
	}
	c->seqid = be64(bin + 16);
	return ER_LUKS_OK;
}

/* ------------------------------------------------------------------ LUKS2 JSON */

/* decimal string of a small id ("0".."31") */
static bool id_of(const struct er_json *s, unsigned max, unsigned *id)
{
	uint64_t v;
	if (er_json_u64_text(s, &v) || v >= max)
		return false;
	*id = (unsigned)v;
	return true;
}

static bool get_str(const struct er_json *o, const char *key, char *buf, size_t cap)
{
	size_t len;
	if (er_json_get_string(o, key, buf, cap, &len))
		return false;
	return len == er_strnlen(buf, cap);
}

static bool get_b64(const struct er_json *o, const char *key, uint8_t *out, size_t cap, uint32_t *n)
{
	char s[2 * ER_LUKS_MAX_SALT + 8];
	size_t len;
	if (!get_str(o, key, s, sizeof(s)))
		return false;
	bool ok = er_luks_base64(s, er_strnlen(s, sizeof(s)), out, cap, &len) && len > 0;
	*n = (uint32_t)len;
	return ok;
}

static bool get_u32(const struct er_json *o, const char *key, uint32_t *out)
{
	uint64_t v;
	if (er_json_get_u64(o, key, &v) || v > 0xffffffffu)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* whether the array of id strings arr names id */
static bool names_id(const struct er_json *arr, unsigned id)
{
	struct er_json_iter it;
	struct er_json v;
	unsigned x;
	if (er_json_iter_init(&it, arr))
		return false;
	while (er_json_next(&it, 0, &v) > 0)
		if (id_of(&v, 0xffffffffu, &x) && x == id)
			return true;
	return false;
}

struct l2_ctx {
	struct er_luks_header *h;
	uint64_t dev_size, ks_start, ks_end;
	unsigned seg_id;
	uint32_t digest_ks;             /* bit mask of keyslots the segment's digest names */
	uint32_t present;               /* keyslots of any type in the JSON */
	char skip[110];                 /* first reason a keyslot was not usable */
};

static void skip_slot(struct l2_ctx *x, unsigned id, const char *what, const char *name)
{
	if (!x->skip[0])
		er_snprintf(x->skip, sizeof(x->skip), "keyslot %u: %s%s", id, what, name);
}

/* The parts of a luks2 keyslot: each returns CORRUPT for a broken field, or OK with *use
 * false when it skipped the keyslot (skip_slot says why). */

/* area: raw aes-xts-plain64 inside the keyslots area */
static enum er_luks_status l2_ks_area(struct l2_ctx *x, unsigned id, const struct er_json *area,
				      bool *use, struct er_luks_err *err)
{
	struct er_luks_keyslot *k = &x->h->ks[id];
	char s[40];
	uint64_t off, size, aks;

	*use = false;
	if (!get_str(area, "type", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area type", id);
	if (!streq(s, "raw")) {
		skip_slot(x, id, "area type ", s);
		return ER_LUKS_OK;
	}
	if (er_json_get_u64(area, "offset", &off) || er_json_get_u64(area, "size", &size) ||
	    er_json_get_u64(area, "key_size", &aks))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area offset, size or key_size", id);
	if (off < x->ks_start || off > x->ks_end || size > x->ks_end - off || off % 512)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area [%llu, +%llu) outside the keyslots "
		      "area [%llu, %llu)", id, (unsigned long long)off, (unsigned long long)size,
		      (unsigned long long)x->ks_start, (unsigned long long)x->ks_end);
	if (!get_str(area, "encryption", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area encryption", id);
	if (!streq(s, "aes-xts-plain64")) {
		skip_slot(x, id, "keyslot cipher ", s);
		return ER_LUKS_OK;
	}
	if (aks != 32 && aks != 64) {
		skip_slot(x, id, "keyslot cipher key size not 32/64 bytes", "");
		return ER_LUKS_OK;
	}
	k->area_offset = off;
	k->area_size = size;
	k->area_key_size = (uint32_t)aks;
	*use = true;
	return ER_LUKS_OK;
}

/* af: luks1 with 4000 stripes and a known hash, fitting the area */
static enum er_luks_status l2_ks_af(struct l2_ctx *x, unsigned id, const struct er_json *af,
				    bool *use, struct er_luks_err *err)
{
	struct er_luks_keyslot *k = &x->h->ks[id];
	char s[40];
	enum er_hash hh;

	*use = false;
	if (!get_str(af, "type", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: af type", id);
	if (!streq(s, "luks1")) {
		skip_slot(x, id, "af type ", s);
		return ER_LUKS_OK;
	}
	if (!get_u32(af, "stripes", &k->stripes) || k->stripes != ER_LUKS_STRIPES)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: af stripes (LUKS uses 4000)", id);
	if (!get_str(af, "hash", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: af hash", id);
	if (!hash_name(s, &hh)) {
		skip_slot(x, id, "af hash ", s);
		return ER_LUKS_OK;
	}
	k->af_hash = (uint8_t)hh;
	if (k->key_size > ER_LUKS_MAX_KEY) {
		skip_slot(x, id, "volume key longer than 64 bytes", "");
		return ER_LUKS_OK;
	}
	if (af_area_bytes(k->key_size, k->stripes) > k->area_size)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area of %llu bytes holds no %u x %u key "
		      "material", id, (unsigned long long)k->area_size, k->key_size, k->stripes);
	*use = true;
	return ER_LUKS_OK;
}

/* kdf: pbkdf2 (sha1/256/512) or argon2i/id, within the caps of luks.h, and its salt */
static enum er_luks_status l2_ks_kdf(struct l2_ctx *x, unsigned id, const struct er_json *kdf,
				     bool *use, struct er_luks_err *err)
{
	struct er_luks_keyslot *k = &x->h->ks[id];
	char s[40], why[80];       /* s: as the keyslot's other strings, 40 bytes */
	enum er_hash hh;

	*use = false;
	if (!get_str(kdf, "type", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: kdf type", id);
	if (streq(s, "pbkdf2")) {
		char hs[16];
		k->kdf = ER_LUKS_KDF_PBKDF2;
		if (!get_str(kdf, "hash", hs, sizeof(hs)))
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: pbkdf2 hash", id);
		if (!hash_name(hs, &hh)) {
			skip_slot(x, id, "pbkdf2 hash ", hs);
			return ER_LUKS_OK;
		}
		k->kdf_hash = (uint8_t)hh;
		if (!get_u32(kdf, "iterations", &k->iterations) || k->iterations == 0)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: pbkdf2 iterations", id);
		if (k->iterations > ER_LUKS_PBKDF2_MAX_ITERATIONS) {
			er_snprintf(why, sizeof(why), "pbkdf2 iterations %u over the cap %u", k->iterations,
				    ER_LUKS_PBKDF2_MAX_ITERATIONS);
			skip_slot(x, id, why, "");
			return ER_LUKS_OK;
		}
	} else if (streq(s, "argon2i") || streq(s, "argon2id")) {
		k->kdf = streq(s, "argon2i") ? ER_LUKS_KDF_ARGON2I : ER_LUKS_KDF_ARGON2ID;
		if (!get_u32(kdf, "time", &k->iterations) || !get_u32(kdf, "memory", &k->memory_kib) ||
		    !get_u32(kdf, "cpus", &k->cpus) || k->iterations == 0 || k->cpus == 0 ||
		    k->memory_kib < 8 * k->cpus)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: argon2 time, memory or cpus", id);
		if (k->memory_kib > ER_LUKS_ARGON2_MAX_KIB || k->cpus > ER_LUKS_ARGON2_MAX_CPUS) {
			er_snprintf(why, sizeof(why), "argon2 %u KiB x%u (caps 4 GiB, 16)", k->memory_kib, k->cpus);
			skip_slot(x, id, why, "");
			return ER_LUKS_OK;
		}
		if ((uint64_t)k->iterations * k->memory_kib > ER_LUKS_ARGON2_MAX_WORK_KIB) {
			er_snprintf(why, sizeof(why), "argon2 time %u x %u KiB over the cap %llu KiB",
				    k->iterations, k->memory_kib, (unsigned long long)ER_LUKS_ARGON2_MAX_WORK_KIB);
			skip_slot(x, id, why, "");
			return ER_LUKS_OK;
		}
	} else {
		skip_slot(x, id, "kdf ", s);
		return ER_LUKS_OK;
	}
	if (!get_b64(kdf, "salt", k->salt, sizeof(k->salt), &k->salt_len))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: kdf salt", id);
	if (k->kdf != ER_LUKS_KDF_PBKDF2 && k->salt_len < 8)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: argon2 salt shorter than 8 bytes", id);
	*use = true;
	return ER_LUKS_OK;
}

/* one keyslot of type luks2; CORRUPT for broken fields, OK otherwise (usable or skipped) */
static enum er_luks_status l2_keyslot(struct l2_ctx *x, unsigned id, const struct er_json *ks,
				      struct er_luks_err *err)
{
	struct er_luks_keyslot *k = &x->h->ks[id];
	struct er_json area, kdf, af;
	uint64_t v;
	enum er_luks_status st;
	bool use;

	if (er_json_get_u64(ks, "key_size", &v) || v == 0 || v > 512)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: key_size", id);
	k->key_size = (uint32_t)v;
	k->priority = 1;
	if (!er_json_get_u64(ks, "priority", &v)) {
		if (v > 2)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: priority %llu", id, (unsigned long long)v);
		k->priority = (uint8_t)v;
	}
	if (er_json_get_type(ks, "area", ER_JSON_OBJECT, &area) ||
	    er_json_get_type(ks, "kdf", ER_JSON_OBJECT, &kdf) ||
	    er_json_get_type(ks, "af", ER_JSON_OBJECT, &af))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: area, kdf or af missing", id);
	if ((st = l2_ks_area(x, id, &area, &use, err)) || !use ||
	    (st = l2_ks_af(x, id, &af, &use, err)) || !use ||
	    (st = l2_ks_kdf(x, id, &kdf, &use, err)) || !use)
		return st;

	if (!(x->digest_ks & (1u << id))) {
		skip_slot(x, id, "not bound to the data segment's digest", "");
		return ER_LUKS_OK;
	}
	if (k->key_size != x->h->seg.key_size)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: key_size %u, the digest's keyslots disagree",
		      id, k->key_size);
	k->usable = true;
	return ER_LUKS_OK;
}

static enum er_luks_status l2_segment(struct l2_ctx *x, const struct er_json *segs,
				      struct er_luks_err *err)
{
	struct er_luks_segment *sg = &x->h->seg;
	struct er_json_iter it;
	struct er_json key, seg, v;
	char s[48];
	size_t n = er_json_count(segs);
	if (n == 0)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: no data segment");
	if (n > 1)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: %u data segments (a reencryption in progress?)",
		      (unsigned)n);
	er_json_iter_init(&it, segs);
	if (er_json_next(&it, &key, &seg) <= 0 || !id_of(&key, 0xffffffffu, &x->seg_id) ||
	    seg.type != ER_JSON_OBJECT)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment id or object");
	if (!get_str(&seg, "type", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment type");
	if (!streq(s, "crypt"))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: segment type %s (a reencryption in progress?)", s);
	if (!er_json_get(&seg, "flags", &v) && er_json_count(&v))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: segment with flags (a reencryption in progress)");
	if (!er_json_get(&seg, "integrity", &v))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: authenticated encryption (dm-integrity) "
		      "is not supported");
	if (!get_str(&seg, "encryption", s, sizeof(s)))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment encryption");
	if (!streq(s, "aes-xts-plain64"))
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: data cipher %s (only aes-xts-plain64 is supported)", s);
	uint64_t ss;
	if (er_json_get_u64(&seg, "offset", &sg->offset) || er_json_get_u64(&seg, "iv_tweak", &sg->iv_tweak) ||
	    er_json_get_u64(&seg, "sector_size", &ss))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment offset, iv_tweak or sector_size");
	if (!is_pow2(ss) || ss < 512 || ss > 4096)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment sector_size %llu", (unsigned long long)ss);
	sg->sector_size = (uint32_t)ss;
	/* LUKS2 sectors larger than 512 bytes still count the IV in 512-byte units: cryptsetup
	 * sets dm-crypt's iv_large_sectors only for plain and BitLocker mappings (checked in
	 * test_luks.c against data that cryptsetup itself encrypted with 4096-byte sectors) */
	sg->iv_large_sectors = false;
	if (er_json_get(&seg, "size", &v))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment size missing");
	if (er_json_streq(&v, "dynamic")) {
		sg->dynamic = true;
	} else if (er_json_u64_any(&v, &sg->size) || sg->size == 0 || sg->size % ss) {
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment size");
	}
	if (sg->offset % ss)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: segment offset %llu not a multiple of the sector size",
		      (unsigned long long)sg->offset);
	if (sg->offset < x->ks_end)
		LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: data segment at %llu inside the metadata "
		      "(a detached header?)", (unsigned long long)sg->offset);
	if (sg->offset >= x->dev_size || (!sg->dynamic && sg->size > x->dev_size - sg->offset))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: data segment beyond the device (%llu bytes)",
		      (unsigned long long)x->dev_size);
	if (sg->dynamic)
		sg->size = (x->dev_size - sg->offset) / ss * ss;
	return ER_LUKS_OK;
}

static enum er_luks_status l2_digest(struct l2_ctx *x, const struct er_json *digs,
				     struct er_luks_err *err)
{
	struct er_luks_digest *d = &x->h->digest;
	struct er_json_iter it;
	struct er_json key, dg, segs, kss, v;
	char s[16];
	enum er_hash hh;
	bool found = false;
	er_json_iter_init(&it, digs);
	while (er_json_next(&it, &key, &dg) > 0) {
		if (dg.type != ER_JSON_OBJECT || er_json_get_type(&dg, "segments", ER_JSON_ARRAY, &segs) ||
		    er_json_get_type(&dg, "keyslots", ER_JSON_ARRAY, &kss))
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: digest without segments or keyslots");
		if (!names_id(&segs, x->seg_id))
			continue;
		if (found)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: two digests for the data segment");
		found = true;
		if (!get_str(&dg, "type", s, sizeof(s)))
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: digest type");
		if (!streq(s, "pbkdf2"))
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: digest type %s", s);
		if (!get_str(&dg, "hash", s, sizeof(s)) || !hash_name(s, &hh))
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: digest hash (only sha1, sha256, sha512)");
		d->hash = (uint8_t)hh;
		if (!get_u32(&dg, "iterations", &d->iterations) || d->iterations == 0)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: digest iterations");
		if (d->iterations > ER_LUKS_PBKDF2_MAX_ITERATIONS)
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: digest pbkdf2 iterations %u over the cap %u",
			      d->iterations, ER_LUKS_PBKDF2_MAX_ITERATIONS);
		if (!get_b64(&dg, "salt", d->salt, sizeof(d->salt), &d->salt_len) ||
		    !get_b64(&dg, "digest", d->digest, sizeof(d->digest), &d->digest_len) ||
		    d->digest_len < 16)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: digest salt or value");
		struct er_json_iter ki;
		unsigned id;
		er_json_iter_init(&ki, &kss);
		while (er_json_next(&ki, 0, &v) > 0) {
			if (!id_of(&v, ER_LUKS_MAX_KEYSLOTS, &id))
				LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: digest names a keyslot out of range");
			x->digest_ks |= 1u << id;
		}
	}
	if (!found)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: no digest for the data segment");
	return ER_LUKS_OK;
}

static unsigned token_rank(uint8_t t)
{
	return t == ER_LUKS_TOKEN_HW ? 3 : t == ER_LUKS_TOKEN_TPM2 ? 2 : t == ER_LUKS_TOKEN_OTHER ? 1 : 0;
}

/* config: json_size for the header size, the keyslots area; no mandatory requirement */
static enum er_luks_status l2_config(struct l2_ctx *x, const struct er_json *cfg, struct er_luks_err *err)
{
	struct er_json v;
	char s[48];
	uint64_t json_size, ks_size;

	if (er_json_get_u64(cfg, "json_size", &json_size) || er_json_get_u64(cfg, "keyslots_size", &ks_size))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: config json_size or keyslots_size");
	if (json_size != x->h->hdr_size - ER_LUKS2_BIN_SIZE)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: json_size %llu for hdr_size %llu",
		      (unsigned long long)json_size, (unsigned long long)x->h->hdr_size);
	x->ks_start = 2 * x->h->hdr_size;
	if (ks_size > x->dev_size || x->ks_start > x->dev_size - ks_size || ks_size % 4096)
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: keyslots_size %llu", (unsigned long long)ks_size);
	x->ks_end = x->ks_start + ks_size;
	if (!er_json_get(cfg, "requirements", &v)) {
		struct er_json mand, first;
		if (!er_json_get_type(&v, "mandatory", ER_JSON_ARRAY, &mand) && er_json_count(&mand)) {
			size_t l = 0;
			if (er_json_index(&mand, 0, &first) || er_json_string(&first, s, sizeof(s), &l))
				er_snprintf(s, sizeof(s), "?");
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: mandatory requirement %s", s);
		}
	}
	return ER_LUKS_OK;
}

/* the volume key size: from the first keyslot the segment's digest names (the others are
 * checked against it in l2_keyslot); also refuses ids out of range or named twice */
static enum er_luks_status l2_volume_key_size(struct l2_ctx *x, const struct er_json *slots,
					      struct er_luks_err *err)
{
	struct er_luks_header *h = x->h;
	struct er_json_iter it;
	struct er_json key, val;
	uint32_t ids = 0;

	er_json_iter_init(&it, slots);
	while (er_json_next(&it, &key, &val) > 0) {
		unsigned id;
		uint64_t ksz;
		if (!id_of(&key, ER_LUKS_MAX_KEYSLOTS, &id) || val.type != ER_JSON_OBJECT)
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: keyslot id out of range 0..31");
		if (ids & (1u << id))           /* "1" and "01" */
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: keyslot %u named twice", id);
		ids |= 1u << id;
		if ((x->digest_ks & (1u << id)) && !h->seg.key_size && !er_json_get_u64(&val, "key_size", &ksz))
			h->seg.key_size = ksz <= 512 ? (uint32_t)ksz : 0;
	}
	if (h->seg.key_size != 32 && h->seg.key_size != 64)
		LFAIL(err, h->seg.key_size > 64 || !h->seg.key_size ? ER_LUKS_CORRUPT : ER_LUKS_UNSUPPORTED,
		      "LUKS2: volume key of %u bytes (aes-xts-plain64 takes 32 or 64)", h->seg.key_size);
	return ER_LUKS_OK;
}

/* every keyslot: luks2 ones through l2_keyslot, other types skipped, reencrypt refused */
static enum er_luks_status l2_keyslots(struct l2_ctx *x, const struct er_json *slots,
				       struct er_luks_err *err)
{
	struct er_json_iter it;
	struct er_json key, val;
	char s[48];
	enum er_luks_status st;

	er_json_iter_init(&it, slots);
	while (er_json_next(&it, &key, &val) > 0) {
		unsigned id = 0;
		id_of(&key, ER_LUKS_MAX_KEYSLOTS, &id);   /* checked by l2_volume_key_size */
		x->present |= 1u << id;
		if (!get_str(&val, "type", s, sizeof(s)))
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2 keyslot %u: type", id);
		if (streq(s, "reencrypt"))
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: a reencryption keyslot (reencryption in progress)");
		if (!streq(s, "luks2")) {
			skip_slot(x, id, "type ", s);
			continue;
		}
		st = l2_keyslot(x, id, &val, err);
		if (st)
			return st;
	}
	return ER_LUKS_OK;
}

/* tokens: which keyslots belong to one, and of what kind */
static enum er_luks_status l2_tokens(struct l2_ctx *x, const struct er_json *root, struct er_luks_err *err)
{
	struct er_json toks, key, val;
	struct er_json_iter it;
	char s[48];

	if (er_json_get_type(root, "tokens", ER_JSON_OBJECT, &toks))
		return ER_LUKS_OK;
	er_json_iter_init(&it, &toks);
	while (er_json_next(&it, &key, &val) > 0) {
		struct er_json kss, e;
		struct er_json_iter ki;
		uint8_t kind;
		if (val.type != ER_JSON_OBJECT || !get_str(&val, "type", s, sizeof(s)) ||
		    er_json_get_type(&val, "keyslots", ER_JSON_ARRAY, &kss))
			LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: token without type or keyslots");
		if (streq(s, "systemd-tpm2"))
			kind = ER_LUKS_TOKEN_TPM2;
		else if (streq(s, "systemd-fido2") || streq(s, "systemd-pkcs11"))
			kind = ER_LUKS_TOKEN_HW;
		else
			kind = ER_LUKS_TOKEN_OTHER;
		er_json_iter_init(&ki, &kss);
		while (er_json_next(&ki, 0, &e) > 0) {
			unsigned id;
			if (!id_of(&e, ER_LUKS_MAX_KEYSLOTS, &id))
				LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: token names a keyslot out of range");
			/* named by several tokens: hardware > TPM2 > other */
			if (token_rank(kind) > token_rank(x->h->ks[id].token))
				x->h->ks[id].token = kind;
		}
	}
	return ER_LUKS_OK;
}

/* which keyslots a passphrase is tried on, and in what order; TPM2-only / token-only */
static enum er_luks_status l2_order(struct l2_ctx *x, struct er_luks_err *err)
{
	struct er_luks_header *h = x->h;
	unsigned n_tpm2 = 0, n_hw = 0, n_tok = 0, n_all = 0;

	for (unsigned i = 0; i < ER_LUKS_MAX_KEYSLOTS; i++) {
		if (!(x->present & (1u << i)))
			continue;
		n_all++;
		n_tok += h->ks[i].token != ER_LUKS_TOKEN_NONE;
		n_tpm2 += h->ks[i].token == ER_LUKS_TOKEN_TPM2;
		n_hw += h->ks[i].token == ER_LUKS_TOKEN_HW;
	}
	for (unsigned prio = 2; prio >= 1; prio--)
		for (unsigned bound = 0; bound < 2; bound++)
			for (unsigned i = 0; i < ER_LUKS_MAX_KEYSLOTS; i++) {
				const struct er_luks_keyslot *k = &h->ks[i];
				if (k->usable && k->priority == prio && (k->token != ER_LUKS_TOKEN_NONE) == bound)
					h->order[h->n_order++] = (uint8_t)i;
			}
	if (n_all && n_tpm2 == n_all)
		LFAIL(err, ER_LUKS_TOKEN_ONLY, "LUKS2: TPM2-only: every keyslot (%u) belongs to a "
		      "systemd-tpm2 token; no passphrase keyslot", n_all);
	if (n_all && n_tok == n_all && n_hw)
		LFAIL(err, ER_LUKS_TOKEN_ONLY, "LUKS2: every keyslot (%u) belongs to a token "
		      "(FIDO2/PKCS#11/TPM2 hardware); no passphrase keyslot", n_all);
	if (h->n_order == 0) {
		if (x->skip[0])
			LFAIL(err, ER_LUKS_UNSUPPORTED, "LUKS2: no usable keyslot (%s)", x->skip);
		LFAIL(err, ER_LUKS_NO_KEYSLOT, "LUKS2: no keyslot a passphrase can open (%u keyslots, "
		      "priority ignore or none)", n_all);
	}
	return ER_LUKS_OK;
}

static enum er_luks_status l2_parse(struct er_luks_header *h, const char *json, size_t len,
				    uint64_t dev_size, struct er_luks_err *err)
{
	struct l2_ctx x;
	struct er_json root, cfg, segs, digs, slots;
	enum er_luks_status st;

	er_memset(&x, 0, sizeof(x));
	x.h = h;
	x.dev_size = dev_size;
	if (er_json_parse(json, len, &root, 0) ||
	    er_json_get_type(&root, "config", ER_JSON_OBJECT, &cfg) ||
	    er_json_get_type(&root, "segments", ER_JSON_OBJECT, &segs) ||
	    er_json_get_type(&root, "digests", ER_JSON_OBJECT, &digs) ||
	    er_json_get_type(&root, "keyslots", ER_JSON_OBJECT, &slots))
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: JSON without config, segments, digests or keyslots");
	if ((st = l2_config(&x, &cfg, err)) || (st = l2_segment(&x, &segs, err)) ||
	    (st = l2_digest(&x, &digs, err)) || (st = l2_volume_key_size(&x, &slots, err)) ||
	    (st = l2_keyslots(&x, &slots, err)) || (st = l2_tokens(&x, &root, err)))
		return st;
	return l2_order(&x, err);
}

static enum er_luks_status luks2_open(struct er_luks_header *h, const struct er_luks_dev *dev,
				      const struct er_luks_mem *m, struct er_luks_err *err)
{
	struct l2_copy p, s;
	enum er_luks_status st;
	er_memset(&p, 0, sizeof(p));
	er_memset(&s, 0, sizeof(s));

	st = l2_read_copy(dev, m, 0, false, &p);
	if (st == ER_LUKS_IO || st == ER_LUKS_NOMEM)
		goto io;
	if (st == ER_LUKS_OK) {
		st = l2_read_copy(dev, m, p.size, true, &s);
		if (st == ER_LUKS_IO || st == ER_LUKS_NOMEM)
			goto io;
	} else {
		/* the primary is damaged: the secondary sits at one of the sizes LUKS2 allows;
		 * like cryptsetup (LUKS2_disk_hdr_read), the first valid one; the reason the
		 * first one with a magic is not valid is kept for the message */
		struct l2_copy t;
		for (unsigned i = 0; i < ER_ARRAY_SIZE(l2_hdr2_offsets); i++) {
			er_memset(&t, 0, sizeof(t));
			st = l2_read_copy(dev, m, l2_hdr2_offsets[i], true, &t);
			if (st == ER_LUKS_IO || st == ER_LUKS_NOMEM)
				goto io;
			if (st == ER_LUKS_OK) {
				s = t;
				break;
			}
			if (t.magic && !s.magic)
				s = t;          /* no buffer: l2_read_copy gave it back */
		}
	}
	if (!p.buf && !s.buf) {
		if (!p.magic && !s.magic)
			LFAIL(err, ER_LUKS_NOT_LUKS, "no LUKS header");
		LFAIL(err, ER_LUKS_CORRUPT, "LUKS2: both header copies invalid (primary: %s; secondary: %s)",
		      p.why, s.magic ? s.why : "not found");
	}
	h->primary_ok = p.buf != 0;
	h->secondary_ok = s.buf != 0;
	struct l2_copy *c = !s.buf || (p.buf && p.seqid >= s.seqid) ? &p : &s;
	h->version = 2;
	h->copy = c == &s;
	h->seqid = c->seqid;
	h->hdr_size = c->size;
	if (!fixed_str(c->buf + 168, 40, h->uuid))
		er_memcpy(h->uuid, c->buf + 168, 40), h->uuid[40] = 0;
	st = l2_parse(h, (const char *)c->buf + ER_LUKS2_BIN_SIZE, c->json_len, dev->size, err);
	l2_free(m, &p);
	l2_free(m, &s);
	return st;
io:
	l2_free(m, &p);
	l2_free(m, &s);
	if (st == ER_LUKS_NOMEM)
		LFAIL(err, st, "LUKS2: no memory for a %llu-byte header", (unsigned long long)ER_LUKS2_HDR_MAX);
	LFAIL(err, st, "LUKS2: read error in the header");
}

enum er_luks_status er_luks_open(struct er_luks_header *h, const struct er_luks_dev *dev,
				 const struct er_luks_mem *mem, struct er_luks_err *err)
{
	uint8_t b[1024];
	if (!h || !dev || !dev->read || !mem || !mem->alloc || !mem->free)
		LFAIL(err, ER_LUKS_BAD_ARG, "er_luks_open: missing argument");
	er_memset(h, 0, sizeof(*h));
	if (dev->size < sizeof(b))
		LFAIL(err, ER_LUKS_NOT_LUKS, "device smaller than a LUKS header");
	if (!dev_read(dev, 0, sizeof(b), b))
		LFAIL(err, ER_LUKS_IO, "read error at sector 0");
	if (er_luks_probe(b, sizeof(b)) == 1)
		return luks1_open(h, dev, b, err);
	return luks2_open(h, dev, mem, err);
}

/* ------------------------------------------------------------------ unlock */

/* the KDFs' stop hook: the caller's cancel hook */
static bool cancel_requested(void *ctx)
{
	const struct er_luks_cancel *c = ctx;
	return c->requested(c->ctx);
}

static enum er_luks_status try_keyslot(const struct er_luks_header *h, unsigned id,
				       const struct er_luks_dev *dev, const struct er_luks_mem *m,
				       const struct er_lanes *lanes, const struct er_luks_cancel *cancel,
				       const uint8_t *pw, size_t pwlen, uint8_t *vk, struct er_luks_err *err)
{
	bool (*stop)(void *) = cancel && cancel->requested ? cancel_requested : 0;
	void *sctx = (void *)cancel;
	bool stopped = false;
	const struct er_luks_keyslot *k = &h->ks[id];
	const struct er_luks_digest *d = &h->digest;
	uint8_t kk[ER_LUKS_MAX_KEY], cand[ER_LUKS_MAX_KEY];
	struct er_aes_xts x;
	enum er_luks_status st = ER_LUKS_OK;

	if (k->kdf == ER_LUKS_KDF_PBKDF2) {
		if (!er_pbkdf2_poll((enum er_hash)k->kdf_hash, pw, pwlen, k->salt, k->salt_len, k->iterations,
				    kk, k->area_key_size, stop, sctx, &stopped)) {
			er_wipe(kk, sizeof(kk));
			if (stopped)
				LFAIL(err, ER_LUKS_INTERRUPTED, "keyslot %u: interrupted", id);
			LFAIL(err, ER_LUKS_UNSUPPORTED, "keyslot %u: pbkdf2 parameters refused", id);
		}
	} else {
		struct er_argon2_params p = {
			.type = k->kdf == ER_LUKS_KDF_ARGON2I ? ER_ARGON2I : ER_ARGON2ID,
			.t_cost = k->iterations, .m_cost_kib = k->memory_kib, .lanes = k->cpus,
			.pwd = pw, .pwdlen = pwlen, .salt = k->salt, .saltlen = k->salt_len,
		};
		uint64_t n = er_argon2_mem_bytes(&p);
		void *mem = n ? mem_alloc(m, n) : 0;
		if (!n)
			LFAIL(err, ER_LUKS_UNSUPPORTED, "keyslot %u: argon2 parameters refused", id);
		if (!mem)
			LFAIL(err, ER_LUKS_NOMEM, "keyslot %u: no memory for argon2 (%llu KiB)", id,
			      (unsigned long long)(n >> 10));
		bool ok = er_argon2_poll(&p, mem, n, lanes, stop, sctx, &stopped, kk, k->area_key_size);
		m->free(m->ctx, mem, n);         /* er_argon2_poll wiped it */
		if (!ok) {
			er_wipe(kk, sizeof(kk));
			if (stopped)
				LFAIL(err, ER_LUKS_INTERRUPTED, "keyslot %u: interrupted", id);
			LFAIL(err, ER_LUKS_UNSUPPORTED, "keyslot %u: argon2 parameters refused", id);
		}
	}

	uint64_t n = af_area_bytes(k->key_size, k->stripes);
	uint8_t *buf = mem_alloc(m, n);
	if (!buf) {
		er_wipe(kk, sizeof(kk));
		LFAIL(err, ER_LUKS_NOMEM, "keyslot %u: no memory for %llu bytes of key material", id,
		      (unsigned long long)n);
	}
	if (!dev_read(dev, k->area_offset, (size_t)n, buf)) {
		set_err(err, ER_LUKS_IO, "read error in a keyslot area");
		st = ER_LUKS_IO;
		goto out;
	}
	if (!er_aes_xts_init(&x, kk, k->area_key_size)) {
		er_aes_xts_wipe(&x);
		set_err(err, ER_LUKS_UNSUPPORTED, "keyslot cipher key refused");
		st = ER_LUKS_UNSUPPORTED;
		goto out;
	}
	for (uint64_t i = 0; i < n / 512; i++)
		er_aes_xts_decrypt(&x, i, buf + i * 512, 512);
	er_aes_xts_wipe(&x);
	er_luks_af_merge(buf, k->key_size, k->stripes, (enum er_hash)k->af_hash, cand);

	uint8_t dig[ER_LUKS_MAX_KEY];
	if (!er_pbkdf2_poll((enum er_hash)d->hash, cand, k->key_size, d->salt, d->salt_len, d->iterations,
			    dig, d->digest_len, stop, sctx, &stopped)) {
		st = stopped ? ER_LUKS_INTERRUPTED : ER_LUKS_UNSUPPORTED;
		set_err(err, st, stopped ? "interrupted in the digest" : "digest parameters refused");
	} else if (er_ct_equal(dig, d->digest, d->digest_len)) {
		er_memcpy(vk, cand, k->key_size);
	} else {
		st = ER_LUKS_WRONG_PASSPHRASE;
	}
	er_wipe(dig, sizeof(dig));
out:
	er_wipe(kk, sizeof(kk));
	er_wipe(cand, sizeof(cand));
	er_wipe(buf, (size_t)n);
	m->free(m->ctx, buf, n);
	return st;
}

enum er_luks_status er_luks_unlock(const struct er_luks_header *h, const struct er_luks_dev *dev,
				   const struct er_luks_mem *mem, const struct er_lanes *lanes,
				   const struct er_luks_cancel *cancel, const uint8_t *pw, size_t pwlen,
				   uint8_t *vk, size_t *vk_len, unsigned *slot, struct er_luks_err *err)
{
	if (!h || !dev || !dev->read || !mem || !mem->alloc || !mem->free || (!pw && pwlen) || !vk ||
	    !vk_len || (h->version != 1 && h->version != 2) || h->n_order > ER_LUKS_MAX_KEYSLOTS)
		LFAIL(err, ER_LUKS_BAD_ARG, "er_luks_unlock: bad argument");
	*vk_len = 0;
	if (h->n_order == 0)
		LFAIL(err, ER_LUKS_NO_KEYSLOT, "no keyslot to try");
	enum er_luks_status last = ER_LUKS_WRONG_PASSPHRASE;
	for (unsigned i = 0; i < h->n_order; i++) {
		unsigned id = h->order[i];
		if (id >= ER_LUKS_MAX_KEYSLOTS || !h->ks[id].usable)
			continue;
		enum er_luks_status st = try_keyslot(h, id, dev, mem, lanes, cancel, pw, pwlen, vk, err);
		if (st == ER_LUKS_OK) {
			*vk_len = h->ks[id].key_size;
			if (slot)
				*slot = id;
			if (err) {
				err->status = ER_LUKS_OK;
				err->detail[0] = 0;
			}
			return ER_LUKS_OK;
		}
		/* I/O and memory failures stop: a later keyslot would not make them right; an
		 * interruption is the user's wish */
		if (st == ER_LUKS_IO || st == ER_LUKS_NOMEM || st == ER_LUKS_INTERRUPTED) {
			er_wipe(vk, ER_LUKS_MAX_KEY);
			return st;
		}
		if (st != ER_LUKS_WRONG_PASSPHRASE)
			last = st;
	}
	er_wipe(vk, ER_LUKS_MAX_KEY);
	if (last != ER_LUKS_WRONG_PASSPHRASE)
		return last;                     /* err says which keyslot was refused */
	LFAIL(err, ER_LUKS_WRONG_PASSPHRASE, "no keyslot opened with this passphrase (%u tried)",
	      h->n_order);
}

/* ------------------------------------------------------------------ data segment */

uint64_t er_luks_iv_sector(const struct er_luks_segment *seg, uint64_t off)
{
	uint64_t s = off / 512 + seg->iv_tweak;
	if (seg->iv_large_sectors)
		for (uint32_t u = seg->sector_size / 512; u > 1; u >>= 1)
			s >>= 1;
	return s;
}

bool er_luks_segment_crypt(const struct er_luks_segment *seg, uint64_t dev_size,
			   const struct er_aes_xts *x, uint64_t off, uint8_t *buf, size_t len,
			   bool encrypt)
{
	if (!seg || !x || (!buf && len))
		return false;
	uint32_t ss = seg->sector_size;
	if (!is_pow2(ss) || ss < 512 || ss > 4096 || off % ss || len % ss)
		return false;
	uint64_t size = seg->size;
	if (seg->dynamic) {
		if (dev_size < seg->offset)
			return false;
		size = (dev_size - seg->offset) / ss * ss;
	}
	if (off > size || len > size - off)
		return false;
	for (size_t i = 0; i < len; i += ss) {
		uint64_t iv = er_luks_iv_sector(seg, off + i);
		if (encrypt)
			er_aes_xts_encrypt(x, iv, buf + i, ss);
		else
			er_aes_xts_decrypt(x, iv, buf + i, ss);
	}
	return true;
}

/* ------------------------------------------------------------------ for the loader */

uint64_t er_luks_max_unlock_memory(const struct er_luks_header *h)
{
	uint64_t most = 0;
	for (unsigned i = 0; i < h->n_order && i < ER_LUKS_MAX_KEYSLOTS; i++) {
		const struct er_luks_keyslot *k = &h->ks[h->order[i] % ER_LUKS_MAX_KEYSLOTS];
		uint64_t n = af_area_bytes(k->key_size, k->stripes);
		if (k->kdf == ER_LUKS_KDF_ARGON2I || k->kdf == ER_LUKS_KDF_ARGON2ID) {
			struct er_argon2_params p = {
				.type = k->kdf == ER_LUKS_KDF_ARGON2I ? ER_ARGON2I : ER_ARGON2ID,
				.t_cost = k->iterations, .m_cost_kib = k->memory_kib, .lanes = k->cpus,
			};
			n = ER_MAX(n, er_argon2_mem_bytes(&p));
		}
		most = ER_MAX(most, n);
	}
	return most;
}

static const char *kdf_name(uint8_t kdf)
{
	return kdf == ER_LUKS_KDF_PBKDF2 ? "pbkdf2" : kdf == ER_LUKS_KDF_ARGON2I ? "argon2i" : "argon2id";
}

static const char *hash_text(uint8_t h)
{
	return h == ER_HASH_SHA1 ? "sha1" : h == ER_HASH_SHA256 ? "sha256" : h == ER_HASH_SHA512 ? "sha512" : "?";
}

void er_luks_summary(const struct er_luks_header *h, char *buf, size_t cap)
{
	size_t n;
	if (!buf || !cap)
		return;
	n = er_snprintf(buf, cap, "LUKS%u aes-xts-plain64 %u-bit, %u-byte sectors, data at %llu; keyslots",
			h->version, h->seg.key_size * 8, h->seg.sector_size, (unsigned long long)h->seg.offset);
	for (unsigned i = 0; i < h->n_order && i < ER_LUKS_MAX_KEYSLOTS && n + 1 < cap; i++) {
		const struct er_luks_keyslot *k = &h->ks[h->order[i] % ER_LUKS_MAX_KEYSLOTS];
		if (k->kdf == ER_LUKS_KDF_PBKDF2)
			n += er_snprintf(buf + n, cap - n, "%s %u pbkdf2 %s", i ? "," : "", h->order[i],
					 hash_text(k->kdf_hash));
		else
			n += er_snprintf(buf + n, cap - n, "%s %u %s %u KiB x%u", i ? "," : "", h->order[i],
					 kdf_name(k->kdf), k->memory_kib, k->cpus);
		if (k->token)
			n += er_snprintf(buf + n, cap - n, " (token)");
	}
	if (!h->n_order && n + 1 < cap)
		er_snprintf(buf + n, cap - n, " none usable");
}
