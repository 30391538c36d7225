// SPDX-License-Identifier: GPL-2.0-or-later
/* efiresume.conf parser; see config.h. */
#include "loader/config.h"

void er_config_defaults(struct er_config *c)
{
	er_memset(c, 0, sizeof(*c));
	c->timeout = ER_CONF_TIMEOUT_DEFAULT;
}

/* Separators: space and tab only. Other control characters are not white space here
 * (a shell's echo turns "\vmlinuz.efi" into a vertical tab and "mlinuz.efi"): a line
 * holding one is refused as a whole. '\r' is only taken off the end of a line (CRLF). */
static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

static bool is_control(char ch)
{
	return ((unsigned char)ch < 0x20 && ch != '\t') || ch == 0x7f;
}


static bool word_is(const char *w, size_t n, const char *lit)
{
	size_t l = er_strnlen(lit, 64);
	return n == l && er_memcmp(w, lit, n) == 0;
}

static bool parse_bool(const char *v, size_t n, bool *out)
{
	if (word_is(v, n, "yes") || word_is(v, n, "true") || word_is(v, n, "on") || word_is(v, n, "1")) {
		*out = true;
		return true;
	}
	if (word_is(v, n, "no") || word_is(v, n, "false") || word_is(v, n, "off") || word_is(v, n, "0")) {
		*out = false;
		return true;
	}
	return false;
}

static bool parse_uint(const char *v, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		uint64_t d = (uint64_t)(v[i] - '0');
		if (x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

/* Copy a value into a fixed buffer; fails (leaving dst alone) if it does not fit. */
static bool copy_value(char *dst, size_t cap, const char *v, size_t n)
{
	if (n + 1 > cap)
		return false;
	er_memcpy(dst, v, n);
	dst[n] = 0;
	return true;
}

static const char *set_fallback(struct er_config *c, const char *v, size_t n)
{
	char tmp[ER_CONF_PATH_MAX];
	size_t o = 0;

	if (n == 0)
		return "empty path";
	if (n + 2 > sizeof(tmp))
		return "path too long";
	if (v[0] != '\\' && v[0] != '/')
		tmp[o++] = '\\';
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		if (ch == '/')
			ch = '\\';
		if ((unsigned char)ch < 0x20 || ch == 0x7f)
			return "control character in path";
		if (ch == '\\' && o > 0 && tmp[o - 1] == '\\')
			continue; /* fold "\\" */
		tmp[o++] = ch;
	}
	tmp[o] = 0;
	er_memcpy(c->fallback, tmp, o + 1);
	return NULL;
}

static bool has_prefix(const char *v, size_t n, const char *pfx)
{
	size_t l = er_strnlen(pfx, 64);
	return n >= l && er_memcmp(v, pfx, l) == 0;
}

/* Every kind of "resume" value off, before one is set (a later line replaces an earlier) */
static void clear_resume(struct er_config *c)
{
	c->have_resume = false;
	er_memset(c->resume_partuuid, 0, sizeof(c->resume_partuuid));
	c->resume_mbr_part = 0;
	c->have_resume_lv = false;
	er_memset(c->resume_lv, 0, sizeof(c->resume_lv));
	c->have_resume_uuid = false;
	er_memset(c->resume_uuid, 0, sizeof(c->resume_uuid));
}

/* A name taken from an LV text: non-empty, not "." or ".." */
static bool lv_name_ok(const char *s, size_t n)
{
	return n > 0 && !(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.');
}

/* Splits v[0..n) (no NUL needed) as er_config_lv_names describes; NULL when taken, else
 * why not. vg and lv (ER_CONF_LV_MAX each) get the names. */
static const char *lv_split(const char *v, size_t n, char *vg, char *lv)
{
	static const char mapper[] = "/dev/mapper/", dev[] = "/dev/";
	size_t vn = 0, ln = 0;

	vg[0] = lv[0] = 0;
	if (n == 0)
		return "empty LV name";
	if (n >= ER_CONF_LV_MAX)
		return "LV name too long (at most 255 bytes)";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] <= 0x20 || (unsigned char)v[i] >= 0x7f)
			return "LV name holds a space or a byte that is not printable ASCII";

	if (has_prefix(v, n, mapper)) {
		/* device-mapper's "<vg>-<lv>": "--" is a '-' inside a name */
		bool in_lv = false;
		for (size_t i = sizeof(mapper) - 1; i < n; i++) {
			char ch = v[i];
			if (ch == '/')
				return "expects /dev/mapper/<vg>-<lv>";
			if (ch == '-') {
				if (i + 1 < n && v[i + 1] == '-') {
					i++;
				} else {
					if (in_lv)
						return "expects /dev/mapper/<vg>-<lv> ('-' in names doubled), not an LVM layer";
					in_lv = true;
					continue;
				}
			}
			if (in_lv)
				lv[ln++] = ch;
			else
				vg[vn++] = ch;
		}
		if (!in_lv)
			return "expects /dev/mapper/<vg>-<lv> ('-' in names doubled)";
	} else {
		size_t s = has_prefix(v, n, dev) ? sizeof(dev) - 1 : 0;
		bool in_lv = false;
		for (size_t i = s; i < n; i++) {
			if (v[i] == '/') {
				if (in_lv)
					return "expects <vg>/<lv> (one '/')";
				in_lv = true;
				continue;
			}
			if (in_lv)
				lv[ln++] = v[i];
			else
				vg[vn++] = v[i];
		}
		if (!in_lv)
			return s ? "a device path is taken as /dev/<vg>/<lv> or /dev/mapper/<vg>-<lv> only"
				 : "expects LV=<vg>/<lv>";
	}
	vg[vn] = 0;
	lv[ln] = 0;
	if (!lv_name_ok(vg, vn) || !lv_name_ok(lv, ln)) {
		vg[0] = lv[0] = 0;
		return "empty, \".\" or \"..\" volume group or LV name";
	}
	return NULL;
}

bool er_config_lv_names(const char *s, char vg[ER_CONF_LV_MAX], char lv[ER_CONF_LV_MAX])
{
	size_t n = er_strnlen(s, ER_CONF_LV_MAX);
	if (lv_split(s, n, vg, lv) != NULL) {
		vg[0] = lv[0] = 0;
		return false;
	}
	return true;
}


static const char *set_resume_lv(struct er_config *c, const char *v, size_t n)
{
	char vg[ER_CONF_LV_MAX], lv[ER_CONF_LV_MAX];
	const char *why = lv_split(v, n, vg, lv);
	if (why)
		return why;
	clear_resume(c);
	er_memcpy(c->resume_lv, v, n);
	c->resume_lv[n] = 0;
	c->have_resume_lv = true;
	return NULL;
}

static const char *set_resume_uuid(struct er_config *c, const char *v, size_t n)
{
	static const uint8_t nil[16];
	uint8_t u[16];
	if (!er_uuid_text_parse(v, n, u))
		return "malformed UUID (expects 8-4-4-4-12 hex digits, as blkid prints it)";
	if (er_memcmp(u, nil, 16) == 0)
		return "the nil UUID names no swap area";
	clear_resume(c);
	er_memcpy(c->resume_uuid, u, 16);
	c->have_resume_uuid = true;
	return NULL;
}

static const char *set_resume(struct er_config *c, const char *v, size_t n)
{
	static const char pfx[] = "PARTUUID=";
	size_t pl = sizeof(pfx) - 1;
	uint8_t g[16];

	if (has_prefix(v, n, "LV="))
		return set_resume_lv(c, v + 3, n - 3);
	if (has_prefix(v, n, "/dev/"))
		return set_resume_lv(c, v, n);
	if (has_prefix(v, n, "UUID="))
		return set_resume_uuid(c, v + 5, n - 5);
	if (n < pl || er_memcmp(v, pfx, pl) != 0)
		return "expects PARTUUID=<id>, UUID=<uuid>, LV=<vg>/<lv>, /dev/<vg>/<lv> or /dev/mapper/<vg>-<lv>";
	v += pl;
	n -= pl;
	/* a DOS partition table: disk signature and partition number, "5f0a9a56-02" */
	if (n == 11 && v[8] == '-') {
		uint32_t sig = 0, part = 0;
		for (size_t i = 0; i < 11; i++) {
			int h = i == 8 ? 0 : er_hexval(v[i]);
			if (h < 0)
				return "malformed PARTUUID";
			if (i < 8)
				sig = sig << 4 | (uint32_t)h;
			else if (i > 8)
				part = part << 4 | (uint32_t)h;
		}
		if (part == 0)
			return "malformed PARTUUID";
		clear_resume(c);
		er_put_le32(c->resume_partuuid, sig);
		c->resume_mbr_part = part;
		c->have_resume = true;
		return NULL;
	}
	if (!er_guid_parse(v, n, g))
		return "malformed PARTUUID";
	clear_resume(c);
	er_memcpy(c->resume_partuuid, g, 16);
	c->have_resume = true;
	return NULL;
}

/* Handle one key/value pair; returns NULL when taken, else the reason it was ignored. */
static const char *apply(struct er_config *c, const char *k, size_t kn, const char *v, size_t vn)
{
	if (word_is(k, kn, "timeout")) {
		uint64_t t;
		if (!parse_uint(v, vn, ER_CONF_TIMEOUT_MAX, &t))
			return "expects seconds from 0 to 3600";
		c->timeout = (uint32_t)t;
		return NULL;
	}
	if (word_is(k, kn, "fallback"))
		return set_fallback(c, v, vn);
	if (word_is(k, kn, "options")) {
		for (size_t i = 0; i < vn; i++)
			if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
				return "control character in options";
		return copy_value(c->options, sizeof(c->options), v, vn) ? NULL : "options too long";
	}
	if (word_is(k, kn, "resume"))
		return set_resume(c, v, vn);
	if (word_is(k, kn, "resume-offset")) {
		uint64_t o;
		if (!parse_uint(v, vn, ER_CONF_RESUME_OFFSET_MAX, &o) || o == 0)
			return "expects the swap file's first page in the partition (as resume_offset=), from 1";
		c->resume_offset = o;
		return NULL;
	}
	if (word_is(k, kn, "dry-run")) {
		bool b;
		if (!parse_bool(v, vn, &b))
			return "expects yes or no";
		c->dry_run = b;
		return NULL;
	}
	return "unknown key";
}

/* "control character 0x0b in column 10" into why[48] */
static const char *control_reason(char why[48], uint8_t ch, size_t col)
{
	static const char hex[] = "0123456789abcdef";
	static const char head[] = "control character 0x";
	char digits[24];
	size_t o = sizeof(head) - 1, nd = 0;

	er_memcpy(why, head, o);
	why[o++] = hex[ch >> 4];
	why[o++] = hex[ch & 15];
	er_memcpy(why + o, " in column ", 11);
	o += 11;
	do {
		digits[nd++] = (char)('0' + col % 10);
		col /= 10;
	} while (col && nd < sizeof(digits));
	while (nd && o < 47)
		why[o++] = digits[--nd];
	why[o] = 0;
	return why;
}

unsigned er_config_parse(struct er_config *c, const char *buf, size_t len,
			 er_config_warn_fn warn, void *ctx)
{
	unsigned warnings = 0, lineno = 0;
	size_t pos = 0;

	/* UTF-8 byte order mark */
	if (len >= 3 && (uint8_t)buf[0] == 0xef && (uint8_t)buf[1] == 0xbb && (uint8_t)buf[2] == 0xbf)
		pos = 3;

	while (pos < len) {
		size_t end = pos, ls = pos, ks, ke, vs, ve;
		char key[32], why[48];
		const char *reason = NULL;

		while (end < len && buf[end] != '\n')
			end++;
		lineno++;
		ks = pos;
		ve = end;
		pos = end + 1;

		while (ks < ve && is_space(buf[ks]))
			ks++;
		while (ve > ks && (is_space(buf[ve - 1]) || buf[ve - 1] == '\r'))
			ve--;
		if (ks == ve || buf[ks] == '#')
			continue;

		ke = ks;
		while (ke < ve && !is_space(buf[ke]) && buf[ke] != 0)
			ke++;
		vs = ke;
		while (vs < ve && is_space(buf[vs]))
			vs++;

		/* the key as shown in warnings, cut to a printable prefix */
		size_t kl = ER_MIN(ke - ks, sizeof(key) - 1);
		for (size_t i = 0; i < kl; i++) {
			unsigned char ch = (unsigned char)buf[ks + i];
			key[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
		}
		key[kl] = 0;

		for (size_t i = ks; i < ve; i++) {
			if (buf[i] == 0) {
				reason = "NUL byte in line";
				break;
			}
			if (is_control(buf[i]) && !reason)
				reason = control_reason(why, (uint8_t)buf[i], i - ls + 1);
		}
		if (!reason && vs == ve)
			reason = "missing value";
		if (!reason)
			reason = apply(c, buf + ks, ke - ks, buf + vs, ve - vs);
		if (reason) {
			warnings++;
			if (warn)
				warn(ctx, lineno, key, reason);
		}
	}
	return warnings;
}

size_t er_utf8_to_ucs2(const char *s, uint16_t *out, size_t cap)
{
	size_t o = 0;
	const uint8_t *p = (const uint8_t *)s;

	if (cap == 0)
		return 0;
	while (*p && o + 1 < cap) {
		uint32_t cp;
		unsigned extra;
		if (p[0] < 0x80) {
			cp = p[0];
			extra = 0;
		} else if ((p[0] & 0xe0) == 0xc0) {
			cp = p[0] & 0x1f;
			extra = 1;
		} else if ((p[0] & 0xf0) == 0xe0) {
			cp = p[0] & 0x0f;
			extra = 2;
		} else {
			cp = '?';
			extra = 0;
			/* 4-byte sequences (outside the BMP) and stray bytes: skip continuation bytes */
			p++;
			while ((*p & 0xc0) == 0x80)
				p++;
			out[o++] = (uint16_t)cp;
			continue;
		}
		p++;
		for (unsigned i = 0; i < extra; i++, p++) {
			if ((*p & 0xc0) != 0x80) {
				cp = '?';
				break;
			}
			cp = cp << 6 | (*p & 0x3f);
		}
		out[o++] = (uint16_t)cp;
	}
	out[o] = 0;
	return o;
}
