// SPDX-License-Identifier: GPL-2.0-or-later
/* LVM2 reader; see lvm.h. Every on-disk field is bounds-checked before use; the text
 * parser follows libdm's config grammar (libdm/libdm-config.c) with bounded depth,
 * names and counts, and extracts only what mapping a linear LV needs. */
#include "volume/lvm.h"
#include "image/crc32.h"
#include "image/fmt.h"
#include <stdarg.h>

#define ULL(x) ((unsigned long long)(x))

#define SET_ERR(err, st, ...)                                                       \
	do {                                                                        \
		if (err) {                                                          \
			(err)->status = (st);                                       \
			er_snprintf((err)->detail, sizeof((err)->detail), __VA_ARGS__); \
		}                                                                   \
	} while (0)
#define FAIL(err, st, ...)                                                          \
	do {                                                                        \
		SET_ERR(err, st, __VA_ARGS__);                                      \
		return (st);                                                        \
	} while (0)

static const char LABEL_ID[8] = { 'L', 'A', 'B', 'E', 'L', 'O', 'N', 'E' };
static const char LABEL_TYPE[8] = { 'L', 'V', 'M', '2', ' ', '0', '0', '1' };
static const char MDA_MAGIC[16] = { ' ', 'L', 'V', 'M', '2', ' ', 'x', '[', '5', 'A', '%', 'r', '0', 'N', '*', '>' };

/* label_header: id[8] sector u64 crc u32 offset u32 type[8] */
#define LH_SECTOR 8
#define LH_CRC 16
#define LH_OFFSET 20
#define LH_TYPE 24
#define LH_SIZE 32
/* pv_header: uuid[32] device_size u64, then disk_locn {u64 offset, u64 size} lists */
#define PVH_SIZE 40
#define DLOCN 16
/* mda_header: checksum u32, magic[16], version u32, start u64, size u64, raw_locn[] */
#define MDA_HDR 512u
#define MH_MAGIC 4
#define MH_VERSION 20
#define MH_START 24
#define MH_SIZE 32
#define MH_RLOCN 40
#define RAW_LOCN_IGNORED 1u

const char *er_lvm_status_name(enum er_lvm_status s)
{
	static const char *const names[ER_LVM_COUNT] = {
		"ok", "lvm-not-pv", "lvm-no-metadata", "lvm-io", "lvm-corrupt", "lvm-limit",
		"lvm-not-found", "lvm-unsupported", "lvm-missing-pv", "lvm-range",
	};
	return (unsigned)s < ER_LVM_COUNT ? names[s] : "lvm-?";
}

static uint32_t lvm_crc(const void *p, size_t n)
{
	return er_crc32_le(ER_LVM_INITIAL_CRC, p, n);
}

/* lvm2 ids: 32 characters of [0-9a-zA-Z!#] (lib/uuid/uuid.c) */
static bool id_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '!' ||
	       c == '#';
}

/* ------------------------------------------------------------------ PV label */

enum er_lvm_status er_lvm_pv_probe(const uint8_t *head, size_t len, uint64_t dev_bytes,
				   struct er_lvm_label *label, struct er_lvm_error *err)
{
	enum er_lvm_status bad = ER_LVM_NOT_PV;
	char why[112] = "";

	er_memset(label, 0, sizeof(*label));
	if (len < ER_LVM_LABEL_BYTES)
		FAIL(err, ER_LVM_NOT_PV, "%llu bytes: too small for an LVM2 label", ULL(len));
	for (unsigned s = 0; s < ER_LVM_LABEL_BYTES / ER_LVM_SECTOR; s++) {
		const uint8_t *sec = head + s * ER_LVM_SECTOR;
		if (er_memcmp(sec, LABEL_ID, 8) != 0)
			continue;
		/* a LABELONE that fails a check is skipped, as lvm2 does; remember why */
		er_memset(label, 0, sizeof(*label));
		if (bad != ER_LVM_UNSUPPORTED)
			bad = ER_LVM_CORRUPT;
		if (er_le64(sec + LH_SECTOR) != s) {
			er_snprintf(why, sizeof(why), "LABELONE in sector %u says sector %llu", s,
				    ULL(er_le64(sec + LH_SECTOR)));
			continue;
		}
		uint32_t want = lvm_crc(sec + LH_OFFSET, ER_LVM_SECTOR - LH_OFFSET);
		if (er_le32(sec + LH_CRC) != want) {
			er_snprintf(why, sizeof(why), "label in sector %u: CRC 0x%08x, computed 0x%08x", s,
				    er_le32(sec + LH_CRC), want);
			continue;
		}
		if (er_memcmp(sec + LH_TYPE, LABEL_TYPE, 8) != 0) {
			bad = ER_LVM_UNSUPPORTED;
			er_snprintf(why, sizeof(why), "label in sector %u is not of type \"LVM2 001\"", s);
			continue;
		}
		uint32_t off = er_le32(sec + LH_OFFSET);
		if (off < LH_SIZE || off > ER_LVM_SECTOR - PVH_SIZE - 2 * DLOCN) {
			er_snprintf(why, sizeof(why), "label in sector %u: pv_header offset %u", s, off);
			continue;
		}
		const uint8_t *ph = sec + off;
		for (unsigned i = 0; i < ER_LVM_UUID_LEN; i++) {
			if (!id_char((char)ph[i])) {
				er_snprintf(why, sizeof(why), "PV header in sector %u: uuid byte %u is 0x%02x", s, i,
					    ph[i]);
				goto next;
			}
			label->uuid[i] = (char)ph[i];
		}
		label->uuid[ER_LVM_UUID_LEN] = 0;
		label->dev_size = er_le64(ph + 32);
		label->sector = s;
		uint64_t limit = dev_bytes ? dev_bytes : label->dev_size;
		/* two lists of disk_locn ended by a zero offset, inside this sector */
		const uint8_t *p = ph + PVH_SIZE, *end = sec + ER_LVM_SECTOR;
		unsigned list = 0, n_data = 0;
		label->n_mdas = 0;
		while (list < 2) {
			if (p + DLOCN > end) {
				er_snprintf(why, sizeof(why), "PV header in sector %u: area lists run past the sector", s);
				goto next;
			}
			uint64_t o = er_le64(p), sz = er_le64(p + 8);
			p += DLOCN;
			if (o == 0) {
				list++;
				continue;
			}
			if (list == 0) {
				if (n_data++ == 0)
					label->data_offset = o;
				if (o % ER_LVM_SECTOR || (limit && o > limit)) {
					er_snprintf(why, sizeof(why), "data area at %llu (device %llu bytes)", ULL(o),
						    ULL(limit));
					goto next;
				}
				continue;
			}
			if (label->n_mdas == ER_LVM_PV_MDAS) {
				SET_ERR(err, ER_LVM_LIMIT, "PV %s: more than %u metadata areas", label->uuid,
					ER_LVM_PV_MDAS);
				er_memset(label, 0, sizeof(*label));
				return ER_LVM_LIMIT;
			}
			if (o % ER_LVM_SECTOR || sz <= MDA_HDR || sz > UINT64_MAX - o || (limit && o + sz > limit)) {
				er_snprintf(why, sizeof(why), "PV %s: metadata area %llu+%llu outside the device (%llu bytes)",
					    label->uuid, ULL(o), ULL(sz), ULL(limit));
				goto next;
			}
			label->mda[label->n_mdas].offset = o;
			label->mda[label->n_mdas].size = sz;
			label->n_mdas++;
		}
		return ER_LVM_OK;
	next:;
	}
	er_memset(label, 0, sizeof(*label));
	if (bad == ER_LVM_NOT_PV)
		FAIL(err, ER_LVM_NOT_PV, "no LVM2 label in the first 4 sectors");
	FAIL(err, bad, "%s", why);
}

/* ------------------------------------------------------------------ metadata area */

enum er_lvm_status er_lvm_mda_text(const struct er_lvm_label *label, unsigned mda, er_lvm_read_fn read,
				   void *ctx, char *text, size_t cap, size_t *len,
				   struct er_lvm_text_info *info, struct er_lvm_error *err)
{
	uint8_t h[MDA_HDR];

	*len = 0;
	if (mda >= label->n_mdas)
		FAIL(err, ER_LVM_NO_METADATA, "PV %s has no metadata area %u", label->uuid, mda);
	uint64_t at = label->mda[mda].offset, area = label->mda[mda].size;
	if (read(ctx, at, h, MDA_HDR))
		FAIL(err, ER_LVM_IO, "PV %s: reading the metadata area header at %llu failed", label->uuid, ULL(at));
	uint32_t crc = lvm_crc(h + 4, MDA_HDR - 4);
	if (er_le32(h) != crc)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata area header at %llu: CRC 0x%08x, computed 0x%08x",
		     label->uuid, ULL(at), er_le32(h), crc);
	if (er_memcmp(h + MH_MAGIC, MDA_MAGIC, 16) != 0)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata area header at %llu: wrong magic", label->uuid, ULL(at));
	if (er_le32(h + MH_VERSION) != 1)
		FAIL(err, ER_LVM_UNSUPPORTED, "PV %s: metadata area header version %u (want 1)", label->uuid,
		     er_le32(h + MH_VERSION));
	uint64_t start = er_le64(h + MH_START), size = er_le64(h + MH_SIZE);
	if (start != at)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata area header at %llu says it starts at %llu", label->uuid,
		     ULL(at), ULL(start));
	if (size <= MDA_HDR || size > area)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata area at %llu: size %llu (area of %llu bytes)", label->uuid,
		     ULL(at), ULL(size), ULL(area));
	/* raw_locn[0] is the committed metadata (slot 1 is a precommit in flight) */
	const uint8_t *rl = h + MH_RLOCN;
	uint64_t off = er_le64(rl), n = er_le64(rl + 8);
	uint32_t want = er_le32(rl + 16), flags = er_le32(rl + 20);
	if (off == 0 && n == 0)
		FAIL(err, ER_LVM_NO_METADATA, "PV %s: metadata area at %llu holds no volume group", label->uuid,
		     ULL(at));
	if (flags & ~RAW_LOCN_IGNORED)
		FAIL(err, ER_LVM_UNSUPPORTED, "PV %s: metadata area at %llu: unknown flags 0x%x", label->uuid,
		     ULL(at), flags);
	if (flags & RAW_LOCN_IGNORED)
		FAIL(err, ER_LVM_NO_METADATA, "PV %s: metadata area at %llu is marked ignored", label->uuid, ULL(at));
	if (off < MDA_HDR || off >= size || n == 0 || n > size - MDA_HDR)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata text at %llu+%llu outside the area (%llu bytes)",
		     label->uuid, ULL(off), ULL(n), ULL(size));
	/* past the end of the area the text continues right after the header; with
	 * n <= size - 512 the wrapped part always ends before off */
	uint64_t wrap = off + n > size ? off + n - size : 0;
	if (n > cap)
		FAIL(err, ER_LVM_LIMIT, "PV %s: metadata text of %llu bytes, buffer of %llu", label->uuid, ULL(n),
		     ULL(cap));
	if (read(ctx, at + off, text, (size_t)(n - wrap)) || (wrap && read(ctx, at + MDA_HDR, text + (n - wrap), (size_t)wrap)))
		FAIL(err, ER_LVM_IO, "PV %s: reading the metadata text at %llu failed", label->uuid, ULL(at + off));
	crc = lvm_crc(text, (size_t)n);
	if (crc != want)
		FAIL(err, ER_LVM_CORRUPT, "PV %s: metadata text at %llu: CRC 0x%08x, header says 0x%08x", label->uuid,
		     ULL(at + off), crc, want);
	*len = (size_t)n;
	if (info) {
		info->area_offset = at;
		info->text_offset = off;
		info->size = n;
		info->wrap = wrap;
		info->crc = crc;
	}
	return ER_LVM_OK;
}

/* ------------------------------------------------------------------ text parser */

enum tok { T_EOF, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_COMMA, T_EQ, T_DQ, T_SQ, T_INT, T_FLOAT, T_WORD };

#define MAX_ORIGINS 16

#define PV_HAS_START 1
#define PV_HAS_COUNT 2

struct parser {
	const char *s;
	size_t n;               /* text ends at n or at the first NUL */
	size_t pos;
	enum tok t;
	size_t tb, te;          /* current token */
	unsigned line;
	struct er_lvm_vg *vg;
	struct er_lvm_error *err;
	bool have_vg, have_extent_size, have_seqno;
	uint8_t pv_seen[ER_LVM_MAX_PVS];   /* PV_HAS_* */
	/* LVs that a segment names as its origin (snapshots, thin snapshots) */
	unsigned n_origins;
	char origin[MAX_ORIGINS][ER_LVM_NAME_MAX];
	int origin_of[MAX_ORIGINS];
	bool origin_store[MAX_ORIGINS];   /* cow_store, not origin */
};

/* a token kept aside (the key of a section) */
struct tokv {
	enum tok t;
	size_t tb, te;
};

static enum er_lvm_status pfail(struct parser *p, enum er_lvm_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum er_lvm_status pfail(struct parser *p, enum er_lvm_status st, const char *fmt, ...)
{
	va_list ap;
	if (p->err) {
		size_t o = er_snprintf(p->err->detail, sizeof(p->err->detail), "metadata line %u: ", p->line);
		if (o >= sizeof(p->err->detail))
			o = sizeof(p->err->detail) - 1;
		va_start(ap, fmt);
		er_vsnprintf(p->err->detail + o, sizeof(p->err->detail) - o, fmt, ap);
		va_end(ap);
		p->err->status = st;
	}
	return st;
}
#define PFAIL(p, st, ...) return pfail(p, st, __VA_ARGS__)

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool at_end(const struct parser *p, size_t i)
{
	return i >= p->n || p->s[i] == 0;
}

/* Next token; values_allowed after '=', '[' and ',' (numbers and bare strings). */
static enum er_lvm_status next(struct parser *p)
{
	bool values = p->t == T_EQ || p->t == T_LBRACK || p->t == T_COMMA;
	size_t i = p->pos;

	for (;;) {
		while (!at_end(p, i) && is_space(p->s[i])) {
			if (p->s[i] == '\n')
				p->line++;
			i++;
		}
		if (!at_end(p, i) && p->s[i] == '#') {
			while (!at_end(p, i) && p->s[i] != '\n')
				i++;
			continue;
		}
		break;
	}
	p->tb = i;
	if (at_end(p, i)) {
		p->t = T_EOF;
		p->te = p->pos = i;
		return ER_LVM_OK;
	}
	char c = p->s[i];
	switch (c) {
	case '{': p->t = T_LBRACE; i++; break;
	case '}': p->t = T_RBRACE; i++; break;
	case '[': p->t = T_LBRACK; i++; break;
	case ']': p->t = T_RBRACK; i++; break;
	case ',': p->t = T_COMMA; i++; break;
	case '=': p->t = T_EQ; i++; break;
	case '"':
		p->t = T_DQ;
		for (i++; !at_end(p, i) && p->s[i] != '"'; i++) {
			if (p->s[i] == '\\' && !at_end(p, i + 1))
				i++;
			else if (p->s[i] == '\n')
				p->line++;
		}
		if (at_end(p, i))
			PFAIL(p, ER_LVM_CORRUPT, "unterminated string");
		i++;
		break;
	case '\'':
		p->t = T_SQ;
		for (i++; !at_end(p, i) && p->s[i] != '\''; i++)
			if (p->s[i] == '\n')
				p->line++;
		if (at_end(p, i))
			PFAIL(p, ER_LVM_CORRUPT, "unterminated string");
		i++;
		break;
	default:
		if (values && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
			p->t = c == '.' ? T_FLOAT : T_INT;
			for (i++; !at_end(p, i); i++) {
				if (p->s[i] >= '0' && p->s[i] <= '9')
					continue;
				if (p->s[i] == '.' && p->t != T_FLOAT) {
					p->t = T_FLOAT;
					continue;
				}
				break;
			}
			break;
		}
		p->t = T_WORD;
		while (!at_end(p, i) && !is_space(p->s[i]) && p->s[i] != '#' && p->s[i] != '=' && p->s[i] != '{' &&
		       p->s[i] != '}')
			i++;
		break;
	}
	p->te = p->pos = i;
	return ER_LVM_OK;
}

static struct tokv cur(const struct parser *p)
{
	struct tokv k = { p->t, p->tb, p->te };
	return k;
}

/* a token's text without the quotes */
static void inner_of(const struct tokv *k, size_t *b, size_t *e)
{
	*b = k->tb;
	*e = k->te;
	if (k->t == T_DQ || k->t == T_SQ) {
		(*b)++;
		(*e)--;
	}
}

static void inner(const struct parser *p, size_t *b, size_t *e)
{
	struct tokv k = cur(p);
	inner_of(&k, b, e);
}

static bool key_is(const struct parser *p, size_t kb, size_t ke, const char *lit)
{
	size_t l = er_strnlen(lit, 64);
	return ke - kb == l && er_memcmp(p->s + kb, lit, l) == 0;
}

/* A string token into dst (unescaping \" and \\ in "..." strings, as
 * dm_unescape_double_quotes does); false when it does not fit in cap - 1. */
static bool copy_tokv(const struct parser *p, const struct tokv *k, char *dst, size_t cap)
{
	size_t b, e, o = 0;
	inner_of(k, &b, &e);
	for (size_t i = b; i < e; i++) {
		char c = p->s[i];
		if (k->t == T_DQ && c == '\\' && i + 1 < e && (p->s[i + 1] == '"' || p->s[i + 1] == '\\'))
			c = p->s[++i];
		if (o + 1 >= cap)
			return false;
		dst[o++] = c;
	}
	dst[o] = 0;
	return true;
}

static bool copy_tok(const struct parser *p, char *dst, size_t cap)
{
	struct tokv k = cur(p);
	return copy_tokv(p, &k, dst, cap);
}

static bool tok_is_string(const struct parser *p)
{
	return p->t == T_DQ || p->t == T_SQ || p->t == T_WORD;
}

/* The current token as a non-negative decimal integer. lvm2 writes plain decimal;
 * libdm reads with strtoll(base 0), so a leading 0 would mean octal: refused. */
static enum er_lvm_status tok_uint(struct parser *p, const char *what, uint64_t *v)
{
	size_t i = p->tb;
	uint64_t x = 0;
	if (p->t != T_INT)
		PFAIL(p, ER_LVM_CORRUPT, "%s is not an integer", what);
	if (p->s[i] == '+')
		i++;
	if (i == p->te || p->s[i] == '-')
		PFAIL(p, ER_LVM_CORRUPT, "%s is negative or empty", what);
	if (p->s[i] == '0' && i + 1 < p->te)
		PFAIL(p, ER_LVM_CORRUPT, "%s has a leading zero (octal?)", what);
	for (; i < p->te; i++) {
		uint64_t d = (uint64_t)(p->s[i] - '0');
		if (x > (UINT64_MAX / 2 - d) / 10)   /* int64 range, as libdm */
			PFAIL(p, ER_LVM_CORRUPT, "%s is too large", what);
		x = x * 10 + d;
	}
	*v = x;
	return ER_LVM_OK;
}

/* dashes removed, 32 id characters */
static enum er_lvm_status tok_uuid(struct parser *p, const char *what, char *out)
{
	size_t b, e, o = 0;
	if (p->t != T_DQ && p->t != T_SQ && p->t != T_WORD)
		PFAIL(p, ER_LVM_CORRUPT, "%s is not a string", what);
	inner(p, &b, &e);
	for (size_t i = b; i < e; i++) {
		char c = p->s[i];
		if (c == '-')
			continue;
		if (!id_char(c) || o == ER_LVM_UUID_LEN)
			PFAIL(p, ER_LVM_CORRUPT, "%s is not an lvm2 id", what);
		out[o++] = c;
	}
	if (o != ER_LVM_UUID_LEN)
		PFAIL(p, ER_LVM_CORRUPT, "%s has %u id characters, not 32", what, (unsigned)o);
	out[o] = 0;
	return ER_LVM_OK;
}

/* lvm2 names: [a-zA-Z0-9+_.-], not starting with '-', not "." or ".." */
static bool valid_name(const char *s)
{
	size_t n = er_strnlen(s, ER_LVM_NAME_MAX);
	if (n == 0 || n >= ER_LVM_NAME_MAX || s[0] == '-')
		return false;
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

enum ctx { C_TOP, C_VG, C_PVS, C_PV, C_LVS, C_LV, C_SEG, C_SKIP };

struct where {
	enum ctx c;
	int pv, lv, seg;        /* indices of the object being filled, -1 when none */
};

static void lv_refuse(struct er_lvm_lv *lv, enum er_lvm_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lv_refuse(struct er_lvm_lv *lv, enum er_lvm_status st, const char *fmt, ...)
{
	va_list ap;
	if (lv->layout != ER_LVM_OK)
		return;       /* the first reason stays */
	lv->layout = st;
	va_start(ap, fmt);
	er_vsnprintf(lv->why, sizeof(lv->why), fmt, ap);
	va_end(ap);
}

static bool has_flag(const struct parser *p, const char *flag)
{
	size_t b, e;
	inner(p, &b, &e);
	return (p->t == T_DQ || p->t == T_SQ) && key_is(p, b, e, flag);
}

/* The value items of each section: idx -1 a scalar, 0.. an array element, of key [kb, ke). */

static enum er_lvm_status vg_item(struct parser *p, size_t kb, size_t ke, int idx)
{
	struct er_lvm_vg *vg = p->vg;
	enum er_lvm_status r = ER_LVM_OK;

	if (idx >= 0)
		return ER_LVM_OK;   /* status, flags, tags */
	if (key_is(p, kb, ke, "id"))
		r = tok_uuid(p, "VG id", vg->uuid);
	else if (key_is(p, kb, ke, "seqno")) {
		r = tok_uint(p, "seqno", &vg->seqno);
		p->have_seqno = true;
	}
	else if (key_is(p, kb, ke, "extent_size")) {
		r = tok_uint(p, "extent_size", &vg->extent_size);
		p->have_extent_size = true;
	}
	return r;
}

static enum er_lvm_status pv_item(struct parser *p, const struct where *w, size_t kb, size_t ke, int idx)
{
	struct er_lvm_pv *pv = &p->vg->pv[w->pv];
	enum er_lvm_status r = ER_LVM_OK;

	if ((key_is(p, kb, ke, "status") || key_is(p, kb, ke, "flags")) && has_flag(p, "MISSING"))
		pv->missing = true;
	if (idx >= 0)
		return ER_LVM_OK;
	if (key_is(p, kb, ke, "id"))
		r = tok_uuid(p, "PV id", pv->uuid);
	else if (key_is(p, kb, ke, "pe_start")) {
		r = tok_uint(p, "pe_start", &pv->pe_start);
		p->pv_seen[w->pv] |= PV_HAS_START;
	} else if (key_is(p, kb, ke, "pe_count")) {
		r = tok_uint(p, "pe_count", &pv->pe_count);
		p->pv_seen[w->pv] |= PV_HAS_COUNT;
	}
	else if (key_is(p, kb, ke, "dev_size"))
		r = tok_uint(p, "dev_size", &pv->dev_size);
	return r;
}

static enum er_lvm_status lv_item(struct parser *p, const struct where *w, size_t kb, size_t ke, int idx)
{
	struct er_lvm_lv *lv = &p->vg->lv[w->lv];
	enum er_lvm_status r = ER_LVM_OK;

	if (key_is(p, kb, ke, "status") || key_is(p, kb, ke, "flags")) {
		if (has_flag(p, "VISIBLE"))
			lv->visible = true;
		if (has_flag(p, "LOCKED") || has_flag(p, "PVMOVE"))
			lv_refuse(lv, ER_LVM_UNSUPPORTED, "%s: a pvmove is in progress", lv->name);
	}
	if (idx >= 0)
		return ER_LVM_OK;
	if (key_is(p, kb, ke, "id"))
		r = tok_uuid(p, "LV id", lv->uuid);
	else if (key_is(p, kb, ke, "segment_count")) {
		uint64_t v;
		r = tok_uint(p, "segment_count", &v);
		lv->segment_count = v > 1000000 ? 1000000 : (int64_t)v;
	}
	return r;
}

/* one element of a segment's stripes list: [ "pv0", extent0, "pv1", extent1, ... ] */
static enum er_lvm_status seg_stripes_item(struct parser *p, const struct where *w, int idx)
{
	struct er_lvm_vg *vg = p->vg;
	struct er_lvm_lv *lv = &vg->lv[w->lv];
	struct er_lvm_seg *sg = &lv->seg[w->seg];
	uint32_t *items = &sg->stripe_items;
	enum er_lvm_status r = ER_LVM_OK;

	if (idx < 0)
		PFAIL(p, ER_LVM_CORRUPT, "stripes is not a list");
	if (*items < UINT32_MAX)
		(*items)++;
	if (idx == 0) {
		char name[ER_LVM_NAME_MAX];
		if (!tok_is_string(p))
			PFAIL(p, ER_LVM_CORRUPT, "stripes[0] is not a name");
		if (!copy_tok(p, name, sizeof(name)))
			PFAIL(p, ER_LVM_LIMIT, "stripes[0] is a name longer than %u", ER_LVM_NAME_MAX - 1);
		sg->pv = -1;
		for (unsigned i = 0; i < vg->n_pvs; i++)
			if (er_memcmp(vg->pv[i].name, name, er_strnlen(name, sizeof(name)) + 1) == 0)
				sg->pv = (int)i;
		if (sg->pv < 0)
			lv_refuse(lv, ER_LVM_UNSUPPORTED, "stacked on \"%s\", not a PV (pvmove?)", name);
		sg->stripe_named = true;
	} else if (idx == 1) {
		r = tok_uint(p, "stripes[1]", &sg->pv_extent);
	} else if (idx % 2 == 0 && !tok_is_string(p)) {
		PFAIL(p, ER_LVM_CORRUPT, "stripes[%d] is not a name", idx);
	} else if (idx % 2 == 1 && p->t != T_INT) {
		PFAIL(p, ER_LVM_CORRUPT, "stripes[%d] is not an extent", idx);
	}
	return r;
}

/* a segment's type: striped/linear, or another kind (refused later) */
static enum er_lvm_status seg_type(struct parser *p, struct er_lvm_seg *sg)
{
	if (p->t != T_DQ && p->t != T_SQ && p->t != T_WORD)
		PFAIL(p, ER_LVM_CORRUPT, "segment type is not a string");
	if (!copy_tok(p, sg->type, sizeof(sg->type))) {
		/* longer than any lvm2 type: keep what fits, it is refused anyway */
		size_t b, e;
		inner(p, &b, &e);
		er_memcpy(sg->type, p->s + b, sizeof(sg->type) - 1);
		sg->type[sizeof(sg->type) - 1] = 0;
		sg->kind = ER_LVM_SEG_OTHER;
	} else {
		bool lin = er_memcmp(sg->type, "striped", 8) == 0 || er_memcmp(sg->type, "linear", 7) == 0;
		sg->kind = lin ? ER_LVM_SEG_STRIPED : ER_LVM_SEG_OTHER;
	}
	return ER_LVM_OK;
}

/* origin, external_origin, cow_store, merging_store: a snapshot (or thin snapshot) of that
 * LV, or its copy-on-write store: reading or writing either directly bypasses the
 * snapshot, so the named LV is refused later */
static enum er_lvm_status seg_snapshot_ref(struct parser *p, const struct where *w, size_t kb, size_t ke)
{
	if (!tok_is_string(p))
		PFAIL(p, ER_LVM_CORRUPT, "snapshot reference is not a name");
	if (p->n_origins == MAX_ORIGINS)
		PFAIL(p, ER_LVM_LIMIT, "more than %u snapshot references", MAX_ORIGINS);
	if (!copy_tok(p, p->origin[p->n_origins], ER_LVM_NAME_MAX))
		PFAIL(p, ER_LVM_LIMIT, "snapshot reference longer than %u", ER_LVM_NAME_MAX - 1);
	p->origin_of[p->n_origins] = w->lv;
	p->origin_store[p->n_origins] = key_is(p, kb, ke, "cow_store") || key_is(p, kb, ke, "merging_store");
	p->n_origins++;
	return ER_LVM_OK;
}

static enum er_lvm_status seg_item(struct parser *p, const struct where *w, size_t kb, size_t ke, int idx)
{
	struct er_lvm_seg *sg = &p->vg->lv[w->lv].seg[w->seg];
	enum er_lvm_status r = ER_LVM_OK;

	if (key_is(p, kb, ke, "stripes"))
		return seg_stripes_item(p, w, idx);
	if (idx >= 0)
		return ER_LVM_OK;
	if (key_is(p, kb, ke, "start_extent"))
		r = tok_uint(p, "start_extent", &sg->start_extent);
	else if (key_is(p, kb, ke, "extent_count"))
		r = tok_uint(p, "extent_count", &sg->extent_count);
	else if (key_is(p, kb, ke, "stripe_count")) {
		uint64_t v;
		r = tok_uint(p, "stripe_count", &v);
		sg->stripe_count = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	} else if (key_is(p, kb, ke, "type"))
		r = seg_type(p, sg);
	else if (key_is(p, kb, ke, "origin") || key_is(p, kb, ke, "external_origin") ||
		 key_is(p, kb, ke, "cow_store") || key_is(p, kb, ke, "merging_store"))
		r = seg_snapshot_ref(p, w, kb, ke);
	return r;
}

/* One value item (idx -1: a scalar; 0.. an array element) of key [kb, ke) in w. */
static enum er_lvm_status on_item(struct parser *p, const struct where *w, size_t kb, size_t ke, int idx)
{
	switch (w->c) {
	case C_VG: return vg_item(p, kb, ke, idx);
	case C_PV: return pv_item(p, w, kb, ke, idx);
	case C_LV: return lv_item(p, w, kb, ke, idx);
	case C_SEG: return seg_item(p, w, kb, ke, idx);
	default: return ER_LVM_OK;
	}
}

/* keys whose value must be one item, not a list */
static bool scalar_key(const struct parser *p, enum ctx c, size_t kb, size_t ke)
{
	static const char *const vg[] = { "id", "seqno", "extent_size", NULL };
	static const char *const pv[] = { "id", "pe_start", "pe_count", "dev_size", NULL };
	static const char *const lv[] = { "id", "segment_count", NULL };
	static const char *const seg[] = { "start_extent", "extent_count", "type", "stripe_count", "origin",
					   "external_origin", "merging_store", NULL };
	const char *const *k = c == C_VG ? vg : c == C_PV ? pv : c == C_LV ? lv : c == C_SEG ? seg : NULL;
	for (; k && *k; k++)
		if (key_is(p, kb, ke, *k))
			return true;
	return false;
}

/* value: '[' item (','? item)* ']' or one item */
static enum er_lvm_status value(struct parser *p, const struct where *w, size_t kb, size_t ke)
{
	enum er_lvm_status r;
	if (p->t == T_LBRACK && scalar_key(p, w->c, kb, ke)) {
		char k[32];
		size_t n = ER_MIN(ke - kb, sizeof(k) - 1);
		er_memcpy(k, p->s + kb, n);
		k[n] = 0;
		PFAIL(p, ER_LVM_CORRUPT, "%s is a list, not a single value", k);
	}
	if (p->t == T_LBRACK) {
		int idx = 0;
		if ((r = next(p)))
			return r;
		while (p->t != T_RBRACK) {
			if (p->t != T_INT && p->t != T_FLOAT && p->t != T_DQ && p->t != T_SQ && p->t != T_WORD)
				PFAIL(p, ER_LVM_CORRUPT, "expected a value in a list");
			if ((r = on_item(p, w, kb, ke, idx)))
				return r;
			if (idx < 1 << 20)
				idx++;
			if ((r = next(p)))
				return r;
			if (p->t == T_COMMA && (r = next(p)))
				return r;
		}
		return next(p);
	}
	if (p->t != T_INT && p->t != T_FLOAT && p->t != T_DQ && p->t != T_SQ && p->t != T_WORD)
		PFAIL(p, ER_LVM_CORRUPT, "expected a value");
	if ((r = on_item(p, w, kb, ke, -1)))
		return r;
	return next(p);
}

static enum er_lvm_status body(struct parser *p, const struct where *w, unsigned depth);

/* The section named by the current key token: what it is, and its slot. */
static enum er_lvm_status enter(struct parser *p, const struct where *w, size_t kb, size_t ke, unsigned depth,
				const struct tokv *keytok)
{
	struct er_lvm_vg *vg = p->vg;
	struct where in = { C_SKIP, w->pv, w->lv, w->seg };
	enum er_lvm_status r;

	if (depth >= ER_LVM_MAX_DEPTH)
		PFAIL(p, ER_LVM_LIMIT, "sections nested deeper than %u", ER_LVM_MAX_DEPTH);
	switch (w->c) {
	case C_TOP:
		if (!p->have_vg) {
			if (!copy_tokv(p, keytok, vg->name, sizeof(vg->name)) || !valid_name(vg->name))
				PFAIL(p, ER_LVM_CORRUPT, "volume group name is not a valid lvm2 name");
			p->have_vg = true;
			in.c = C_VG;
		}
		break;
	case C_VG:
		if (key_is(p, kb, ke, "physical_volumes"))
			in.c = C_PVS;
		else if (key_is(p, kb, ke, "logical_volumes"))
			in.c = C_LVS;
		break;
	case C_PVS: {
		if (vg->n_pvs == ER_LVM_MAX_PVS)
			PFAIL(p, ER_LVM_LIMIT, "volume group %s has more than %u PVs", vg->name, ER_LVM_MAX_PVS);
		struct er_lvm_pv *pv = &vg->pv[vg->n_pvs];
		er_memset(pv, 0, sizeof(*pv));
		if (!copy_tokv(p, keytok, pv->name, sizeof(pv->name)))
			PFAIL(p, ER_LVM_LIMIT, "PV name longer than %u", (unsigned)sizeof(pv->name) - 1);
		for (unsigned i = 0; i < vg->n_pvs; i++)
			if (er_memcmp(vg->pv[i].name, pv->name, sizeof(pv->name)) == 0)
				PFAIL(p, ER_LVM_CORRUPT, "PV %s listed twice", pv->name);
		pv->device = -1;
		in.pv = (int)vg->n_pvs++;
		in.c = C_PV;
		break;
	}
	case C_LVS: {
		if (vg->n_lvs == ER_LVM_MAX_LVS)
			PFAIL(p, ER_LVM_LIMIT, "volume group %s has more than %u LVs", vg->name, ER_LVM_MAX_LVS);
		struct er_lvm_lv *lv = &vg->lv[vg->n_lvs];
		er_memset(lv, 0, sizeof(*lv));
		if (!copy_tokv(p, keytok, lv->name, sizeof(lv->name)) || !valid_name(lv->name))
			PFAIL(p, ER_LVM_CORRUPT, "LV name is not a valid lvm2 name");
		for (unsigned i = 0; i < vg->n_lvs; i++)
			if (er_memcmp(vg->lv[i].name, lv->name, sizeof(lv->name)) == 0)
				PFAIL(p, ER_LVM_CORRUPT, "LV %s listed twice", lv->name);
		lv->segment_count = -1;
		in.lv = (int)vg->n_lvs++;
		in.c = C_LV;
		break;
	}
	case C_LV: {
		/* every subsection of an LV is a segment (lvm2 import_vsn1.c) */
		struct er_lvm_lv *lv = &vg->lv[w->lv];
		if (lv->n_segs == ER_LVM_MAX_SEGS) {
			lv_refuse(lv, ER_LVM_LIMIT, "%s has more than %u segments", lv->name, ER_LVM_MAX_SEGS);
			lv->n_segs++;      /* counted, not stored: segment_count still checks out */
			break;
		}
		if (lv->n_segs > ER_LVM_MAX_SEGS) {
			if (lv->n_segs < UINT32_MAX)
				lv->n_segs++;
			break;
		}
		struct er_lvm_seg *sg = &lv->seg[lv->n_segs];
		/* without a type lvm2 reads a segment as "striped"; start_extent must be given */
		sg->kind = ER_LVM_SEG_STRIPED;
		er_memcpy(sg->type, "striped", 8);
		sg->start_extent = UINT64_MAX;
		sg->pv = -1;
		in.seg = (int)lv->n_segs++;
		in.c = C_SEG;
		break;
	}
	default:
		break;
	}
	if ((r = next(p)))   /* past '{' */
		return r;
	if ((r = body(p, &in, depth + 1)))
		return r;
	if (p->t != T_RBRACE)
		PFAIL(p, ER_LVM_CORRUPT, "expected '}'");
	return next(p);
}

/* key '=' value | key '{' body '}' ... until '}' (or the end at the top) */
static enum er_lvm_status body(struct parser *p, const struct where *w, unsigned depth)
{
	enum er_lvm_status r;
	for (;;) {
		if (p->t == T_EOF) {
			if (w->c == C_TOP)
				return ER_LVM_OK;
			PFAIL(p, ER_LVM_CORRUPT, "text ends inside a section");
		}
		if (p->t == T_RBRACE) {
			if (w->c == C_TOP)
				PFAIL(p, ER_LVM_CORRUPT, "unexpected '}'");
			return ER_LVM_OK;
		}
		if (p->t != T_WORD && p->t != T_DQ && p->t != T_SQ)
			PFAIL(p, ER_LVM_CORRUPT, "expected a name");
		size_t kb, ke;
		inner(p, &kb, &ke);
		if (kb == ke)
			PFAIL(p, ER_LVM_CORRUPT, "empty name");
		struct tokv keytok = cur(p);
		if ((r = next(p)))
			return r;
		if (p->t == T_LBRACE) {
			if ((r = enter(p, w, kb, ke, depth, &keytok)))
				return r;
		} else if (p->t == T_EQ) {
			if ((r = next(p)) || (r = value(p, w, kb, ke)))
				return r;
		} else {
			PFAIL(p, ER_LVM_CORRUPT, "expected '=' or '{'");
		}
	}
}

static bool name_eq(const char *a, const char *b)
{
	size_t n = er_strnlen(a, ER_LVM_NAME_MAX);
	return n == er_strnlen(b, ER_LVM_NAME_MAX) && er_memcmp(a, b, n) == 0;
}

/* After the text: check what the mapping relies on, per LV. */
static enum er_lvm_status check_vg(struct parser *p)
{
	struct er_lvm_vg *vg = p->vg;
	struct er_lvm_error *err = p->err;

	if (!p->have_vg)
		FAIL(err, ER_LVM_CORRUPT, "metadata without a volume group section");
	if (!vg->uuid[0])
		FAIL(err, ER_LVM_CORRUPT, "volume group %s has no id", vg->name);
	if (!p->have_extent_size || vg->extent_size == 0)
		FAIL(err, ER_LVM_CORRUPT, "volume group %s has no extent_size", vg->name);
	if (!p->have_seqno)
		FAIL(err, ER_LVM_CORRUPT, "volume group %s has no seqno", vg->name);
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		struct er_lvm_pv *pv = &vg->pv[i];
		if (!pv->uuid[0])
			FAIL(err, ER_LVM_CORRUPT, "%s: PV %s has no id", vg->name, pv->name);
		if (p->pv_seen[i] != (PV_HAS_START | PV_HAS_COUNT))
			FAIL(err, ER_LVM_CORRUPT, "%s: PV %s lacks pe_start or pe_count", vg->name, pv->name);
		for (unsigned j = 0; j < i; j++)
			if (er_memcmp(vg->pv[j].uuid, pv->uuid, ER_LVM_UUID_LEN) == 0)
				FAIL(err, ER_LVM_CORRUPT, "%s: PVs %s and %s have the same id", vg->name, vg->pv[j].name,
				     pv->name);
		if (pv->pe_count && (pv->pe_count > UINT64_MAX / vg->extent_size ||
				     pv->pe_start > UINT64_MAX - pv->pe_count * vg->extent_size))
			FAIL(err, ER_LVM_CORRUPT, "%s: PV %s: pe_start %llu + %llu extents overflow", vg->name, pv->name,
			     ULL(pv->pe_start), ULL(pv->pe_count));
	}
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		struct er_lvm_lv *lv = &vg->lv[l];
		if (!lv->uuid[0])
			lv_refuse(lv, ER_LVM_CORRUPT, "%s has no id", lv->name);
		if (lv->segment_count != (int64_t)lv->n_segs)
			lv_refuse(lv, ER_LVM_CORRUPT, "%s: segment_count and the segments listed (%u) differ", lv->name,
				  lv->n_segs);
		if (lv->n_segs == 0 || lv->n_segs > ER_LVM_MAX_SEGS) {
			lv_refuse(lv, ER_LVM_CORRUPT, "%s has no segments", lv->name);
			lv->n_segs = 0;
			lv->extents = 0;
			continue;
		}
		/* segments in logical order, each starting where the previous ended */
		for (unsigned i = 1; i < lv->n_segs; i++)
			for (unsigned j = i; j > 0 && lv->seg[j - 1].start_extent > lv->seg[j].start_extent; j--) {
				struct er_lvm_seg t = lv->seg[j];
				lv->seg[j] = lv->seg[j - 1];
				lv->seg[j - 1] = t;
			}
		uint64_t le = 0;
		for (unsigned i = 0; i < lv->n_segs; i++) {
			struct er_lvm_seg *sg = &lv->seg[i];
			if (sg->start_extent != le || sg->extent_count == 0 || sg->extent_count > UINT64_MAX / vg->extent_size - le) {
				lv_refuse(lv, ER_LVM_CORRUPT, "%s: segments do not follow each other at extent %llu", lv->name,
					  ULL(le));
				break;
			}
			le += sg->extent_count;
		}
		lv->extents = lv->layout == ER_LVM_OK ? le : 0;
		for (unsigned i = 0; i < lv->n_segs && lv->layout == ER_LVM_OK; i++) {
			struct er_lvm_seg *sg = &lv->seg[i];
			uint32_t items = sg->stripe_items;
			if (sg->kind != ER_LVM_SEG_STRIPED) {
				lv_refuse(lv, ER_LVM_UNSUPPORTED, "segment type \"%s\" (only linear LVs are mapped)",
					  sg->type[0] ? sg->type : "?");
			} else if (sg->stripe_count == 0) {
				lv_refuse(lv, ER_LVM_CORRUPT, "%s: a striped segment without stripe_count", lv->name);
			} else if (sg->stripe_count != 1) {
				lv_refuse(lv, ER_LVM_UNSUPPORTED, "%s is striped over %u stripes (only linear LVs are mapped)",
					  lv->name, sg->stripe_count);
			} else if (items != 2 || !sg->stripe_named) {
				lv_refuse(lv, ER_LVM_CORRUPT, "%s: a stripes list of %u items for one stripe", lv->name, items);
			} else if (sg->pv >= 0) {
				const struct er_lvm_pv *pv = &vg->pv[sg->pv];
				if (sg->pv_extent > pv->pe_count || sg->extent_count > pv->pe_count - sg->pv_extent)
					lv_refuse(lv, ER_LVM_CORRUPT, "%s: extents beyond the end of %s", lv->name,
						  pv->name);
			}
		}
	}
	for (unsigned o = 0; o < p->n_origins; o++)
		for (unsigned l = 0; l < vg->n_lvs; l++)
			if (name_eq(vg->lv[l].name, p->origin[o]))
				lv_refuse(&vg->lv[l], ER_LVM_UNSUPPORTED,
					  p->origin_store[o] ? "copy-on-write store of snapshot %s: not the snapshot's data"
							     : "origin of %s: writing it would bypass the snapshot",
					  vg->lv[p->origin_of[o]].name);
	/* sub-LVs of raid, mirror, thin and cache LVs: their data belongs to the LV above */
	for (unsigned l = 0; l < vg->n_lvs; l++)
		if (!vg->lv[l].visible)
			lv_refuse(&vg->lv[l], ER_LVM_UNSUPPORTED, "%s is an internal LV (not VISIBLE)", vg->lv[l].name);
	return ER_LVM_OK;
}

enum er_lvm_status er_lvm_vg_parse(const char *text, size_t len, struct er_lvm_vg *vg, struct er_lvm_error *err)
{
	struct parser p;     /* about 2 KiB of stack */
	enum er_lvm_status r;
	struct where top = { C_TOP, -1, -1, -1 };

	/* the PV and LV slots are cleared as they are taken (the whole model is ~94 KiB) */
	er_memset(vg, 0, __builtin_offsetof(struct er_lvm_vg, pv));
	er_memset(&p, 0, sizeof(p));
	p.s = text;
	p.n = len;
	p.line = 1;
	p.vg = vg;
	p.err = err;
	p.t = T_LBRACE;        /* not a value context */
	vg->text_len = len;
	vg->text_crc = lvm_crc(text, len);
	if ((r = next(&p)) || (r = body(&p, &top, 0)) || (r = check_vg(&p))) {
		er_memset(vg, 0, __builtin_offsetof(struct er_lvm_vg, pv));   /* no PV, no LV */
		return r;
	}
	return ER_LVM_OK;
}

/* ------------------------------------------------------------------ model */

enum er_lvm_cmp er_lvm_vg_compare(const struct er_lvm_vg *kept, const struct er_lvm_vg *cand)
{
	if (er_memcmp(kept->uuid, cand->uuid, ER_LVM_UUID_LEN) != 0)
		return ER_LVM_CMP_OTHER_VG;
	if (cand->seqno > kept->seqno)
		return ER_LVM_CMP_NEWER;
	if (cand->seqno < kept->seqno)
		return ER_LVM_CMP_OLDER;
	if (cand->text_crc == kept->text_crc && cand->text_len == kept->text_len)
		return ER_LVM_CMP_SAME;
	return ER_LVM_CMP_CONFLICT;
}

int er_lvm_vg_attach(struct er_lvm_vg *vg, const struct er_lvm_label *label, int device, uint64_t dev_bytes,
		     struct er_lvm_error *err)
{
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		struct er_lvm_pv *pv = &vg->pv[i];
		if (er_memcmp(pv->uuid, label->uuid, ER_LVM_UUID_LEN + 1) != 0)
			continue;
		uint64_t end = pv->pe_start + pv->pe_count * vg->extent_size;   /* checked by the parse */
		if (pv->present && pv->device != device) {
			/* a cloned disk, or the members of a RAID1 or multipath: which one is current
			 * is not something to guess; the LVs on this PV are refused */
			pv->duplicate = true;
			SET_ERR(err, ER_LVM_CORRUPT, "%s: PV %s (%s) found on two devices", vg->name, pv->name, pv->uuid);
			return -1;
		}
		if (dev_bytes && end > dev_bytes / ER_LVM_SECTOR) {
			SET_ERR(err, ER_LVM_CORRUPT, "%s: PV %s ends at sector %llu, the device has %llu", vg->name,
				pv->name, ULL(end), ULL(dev_bytes / ER_LVM_SECTOR));
			return -1;
		}
		pv->present = true;
		pv->device = device;
		pv->device_sectors = dev_bytes / ER_LVM_SECTOR;
		return (int)i;
	}
	SET_ERR(err, ER_LVM_NOT_FOUND, "PV %s is not in volume group %s", label->uuid, vg->name);
	return -1;
}

static int lv_index(const struct er_lvm_vg *vg, const char *name)
{
	for (unsigned i = 0; i < vg->n_lvs; i++)
		if (name_eq(vg->lv[i].name, name))
			return (int)i;
	return -1;
}

int er_lvm_find_lv(const struct er_lvm_vg *vg, const char *spec, struct er_lvm_error *err)
{
	char vgn[ER_LVM_NAME_MAX], lvn[ER_LVM_NAME_MAX];
	size_t n = er_strnlen(spec, 2 * ER_LVM_NAME_MAX + 16), i = 0, o = 0;
	bool have_vg = false;

	if (n >= 2 * ER_LVM_NAME_MAX + 16)
		goto none;
	if (n > 12 && er_memcmp(spec, "/dev/mapper/", 12) == 0) {
		/* device-mapper name: vg-lv with every '-' inside a name doubled */
		char *dst = vgn;
		for (i = 12; i < n; i++) {
			char c = spec[i];
			if (c == '-' && i + 1 < n && spec[i + 1] == '-')
				i++;
			else if (c == '-' && dst == vgn) {
				vgn[o] = 0;
				dst = lvn;
				o = 0;
				continue;
			}
			if (o + 1 >= ER_LVM_NAME_MAX)
				goto none;
			dst[o++] = c;
		}
		if (dst != lvn)
			goto none;
		lvn[o] = 0;
		have_vg = true;
	} else {
		if (n > 5 && er_memcmp(spec, "/dev/", 5) == 0)
			i = 5;
		size_t slash = n;
		for (size_t k = i; k < n; k++)
			if (spec[k] == '/') {
				if (slash != n)
					goto none;
				slash = k;
			}
		if (slash != n) {
			if (slash - i >= ER_LVM_NAME_MAX)
				goto none;
			er_memcpy(vgn, spec + i, slash - i);
			vgn[slash - i] = 0;
			have_vg = true;
			i = slash + 1;
		} else if (i == 5) {
			goto none;   /* "/dev/x" names no LV */
		}
		if (n - i >= ER_LVM_NAME_MAX)
			goto none;
		er_memcpy(lvn, spec + i, n - i);
		lvn[n - i] = 0;
	}
	if (have_vg && !name_eq(vgn, vg->name))
		goto none;
	int l = lv_index(vg, lvn);
	if (l >= 0)
		return l;
none:
	SET_ERR(err, ER_LVM_NOT_FOUND, "no logical volume \"%s\" in volume group %s", spec, vg->name);
	return -1;
}

uint64_t er_lvm_lv_sectors(const struct er_lvm_vg *vg, unsigned lv)
{
	if (lv >= vg->n_lvs)
		return 0;
	return vg->lv[lv].extents * vg->extent_size;
}

enum er_lvm_status er_lvm_lv_check(const struct er_lvm_vg *vg, unsigned l, struct er_lvm_error *err)
{
	if (l >= vg->n_lvs)
		FAIL(err, ER_LVM_NOT_FOUND, "LV index %u out of range", l);
	const struct er_lvm_lv *lv = &vg->lv[l];
	if (lv->layout != ER_LVM_OK)
		FAIL(err, lv->layout, "%s/%s refused: %s", vg->name, lv->name, lv->why);
	for (unsigned i = 0; i < lv->n_segs; i++) {
		const struct er_lvm_pv *pv = &vg->pv[lv->seg[i].pv];
		if (pv->missing)
			FAIL(err, ER_LVM_MISSING_PV, "%s/%s refused: PV %s (%s) is marked missing", vg->name, lv->name,
			     pv->name, pv->uuid);
		if (pv->duplicate)
			FAIL(err, ER_LVM_CORRUPT, "%s/%s refused: PV %s (%s) is on two devices", vg->name, lv->name,
			     pv->name, pv->uuid);
		if (!pv->present)
			FAIL(err, ER_LVM_MISSING_PV, "%s/%s refused: PV %s (%s) is on no device found", vg->name, lv->name,
			     pv->name, pv->uuid);
	}
	return ER_LVM_OK;
}

enum er_lvm_status er_lvm_map(const struct er_lvm_vg *vg, unsigned l, uint64_t sector, struct er_lvm_extent *out,
			      struct er_lvm_error *err)
{
	enum er_lvm_status r = er_lvm_lv_check(vg, l, err);
	if (r)
		return r;
	const struct er_lvm_lv *lv = &vg->lv[l];
	uint64_t es = vg->extent_size, le = sector / es, within = sector % es;
	if (le >= lv->extents)
		FAIL(err, ER_LVM_RANGE, "%s/%s: sector %llu beyond its %llu sectors", vg->name, lv->name, ULL(sector),
		     ULL(lv->extents * es));
	for (unsigned i = 0; i < lv->n_segs; i++) {
		const struct er_lvm_seg *sg = &lv->seg[i];
		if (le >= sg->start_extent + sg->extent_count)
			continue;
		const struct er_lvm_pv *pv = &vg->pv[sg->pv];
		out->pv = (unsigned)sg->pv;
		out->pv_sector = pv->pe_start + (sg->pv_extent + (le - sg->start_extent)) * es + within;
		out->run = (sg->start_extent + sg->extent_count - le) * es - within;
		return ER_LVM_OK;
	}
	FAIL(err, ER_LVM_RANGE, "%s/%s: no segment holds extent %llu", vg->name, lv->name, ULL(le));
}
