// SPDX-License-Identifier: GPL-2.0-or-later
/* Bounded JSON reader; see json.h.
 *
 * er_json_parse is an iterative state machine with an explicit stack of at most
 * ER_JSON_MAX_DEPTH containers. When an object closes, a second pass over its members
 * (values skipped) checks for duplicate keys: a 32-bit hash of every unescaped key in a
 * fixed array, full comparison only on equal hashes. That pass costs the object's bytes
 * once per enclosing level, so at most ER_JSON_MAX_DEPTH times the document, and
 * ER_JSON_MAX_MEMBERS^2 / 2 hash comparisons per object.
 *
 * The accessors walk spans of a document er_json_parse accepted, so they skip values
 * without checking them again; they still never read outside the span they are given. */
#include "volume/json.h"

typedef const uint8_t *cptr;

static bool is_ws(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static cptr skip_ws(cptr p, cptr end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static int hex4(cptr p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		uint8_t c = p[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* ------------------------------------------------------------------ validation */

/* A string starting at *pp (the opening quote); on success *pp is past the closing quote. */
static int scan_string(cptr *pp, cptr end)
{
	cptr p = *pp + 1;
	for (;;) {
		if (p >= end)
			return ER_JSON_E_SYNTAX;
		uint8_t c = *p;
		if (c == '"') {
			*pp = p + 1;
			return ER_JSON_OK;
		}
		if (c < 0x20) {
			*pp = p;
			return ER_JSON_E_SYNTAX;          /* control characters must be escaped */
		}
		if (c == '\\') {
			if (end - p < 2) {
				*pp = p;
				return ER_JSON_E_SYNTAX;
			}
			uint8_t e = p[1];
			if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
			    e == 't') {
				p += 2;
				continue;
			}
			if (e != 'u' || end - p < 6 || hex4(p + 2) < 0) {
				*pp = p;
				return ER_JSON_E_SYNTAX;
			}
			int u = hex4(p + 2);
			if (u >= 0xdc00 && u <= 0xdfff) {
				*pp = p;
				return ER_JSON_E_UTF8;            /* a low surrogate alone */
			}
			if (u >= 0xd800 && u <= 0xdbff) {
				int lo;
				if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || (lo = hex4(p + 8)) < 0xdc00 ||
				    lo > 0xdfff) {
					*pp = p;
					return ER_JSON_E_UTF8;    /* a high surrogate without its pair */
				}
				p += 12;
			} else {
				p += 6;
			}
			continue;
		}
		if (c < 0x80) {
			p++;
			continue;
		}
		/* UTF-8, strictly (RFC 3629): no overlong forms, no surrogates, at most U+10FFFF */
		size_t more;
		uint8_t lo = 0x80, hi = 0xbf;
		if (c >= 0xc2 && c <= 0xdf) {
			more = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			more = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			more = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			*pp = p;
			return ER_JSON_E_UTF8;
		}
		if ((size_t)(end - p) < more + 1 || p[1] < lo || p[1] > hi) {
			*pp = p;
			return ER_JSON_E_UTF8;
		}
		for (size_t i = 2; i <= more; i++)
			if ((p[i] & 0xc0) != 0x80) {
				*pp = p;
				return ER_JSON_E_UTF8;
			}
		p += more + 1;
	}
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; what follows is the caller's business */
static int scan_number(cptr *pp, cptr end)
{
	cptr p = *pp;
	if (p < end && *p == '-')
		p++;
	if (p >= end || !is_digit(*p))
		goto bad;
	if (*p == '0') {
		p++;
	} else {
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !is_digit(*p))
			goto bad;
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !is_digit(*p))
			goto bad;
		while (p < end && is_digit(*p))
			p++;
	}
	*pp = p;
	return ER_JSON_OK;
bad:
	*pp = p;
	return ER_JSON_E_SYNTAX;
}

static bool scan_literal(cptr *pp, cptr end, const char *lit, size_t n)
{
	if ((size_t)(end - *pp) < n || er_memcmp(*pp, lit, n) != 0)
		return false;
	*pp += n;
	return true;
}

/* ------------------------------------------------------------------ walking valid spans */

/* Past a string that starts at p (its opening quote). */
static cptr skip_string(cptr p, cptr end)
{
	p++;
	while (p < end) {
		if (*p == '\\')
			p += (end - p >= 2) ? 2 : 1;
		else if (*p == '"')
			return p + 1;
		else
			p++;
	}
	return end;
}

/* Past the value that starts at p (no leading whitespace). */
static cptr skip_value(cptr p, cptr end)
{
	if (p >= end)
		return end;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		size_t depth = 0;
		while (p < end) {
			uint8_t c = *p;
			if (c == '"') {
				p = skip_string(p, end);
				continue;
			}
			p++;
			if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				if (--depth == 0)
					return p;
			}
		}
		return end;
	}
	while (p < end && !is_ws(*p) && *p != ',' && *p != ']' && *p != '}' && *p != ':')
		p++;
	return p;
}

static enum er_json_type type_of(uint8_t c)
{
	switch (c) {
	case '{':
		return ER_JSON_OBJECT;
	case '[':
		return ER_JSON_ARRAY;
	case '"':
		return ER_JSON_STRING;
	case 't':
		return ER_JSON_TRUE;
	case 'f':
		return ER_JSON_FALSE;
	case 'n':
		return ER_JSON_NULL;
	default:
		return (c == '-' || is_digit(c)) ? ER_JSON_NUMBER : ER_JSON_NONE;
	}
}

static void make_value(struct er_json *v, cptr p, cptr end)
{
	cptr q = skip_value(p, end);
	v->p = (const char *)p;
	v->n = (size_t)(q - p);
	v->type = p < end ? type_of(*p) : ER_JSON_NONE;
}

int er_json_iter_init(struct er_json_iter *it, const struct er_json *v)
{
	er_memset(it, 0, sizeof(*it));
	if (!v || (v->type != ER_JSON_OBJECT && v->type != ER_JSON_ARRAY) || v->n < 2)
		return ER_JSON_E_TYPE;
	it->p = v->p + 1;
	it->end = v->p + v->n - 1;          /* the closing bracket */
	it->type = v->type;
	return ER_JSON_OK;
}

int er_json_next(struct er_json_iter *it, struct er_json *key, struct er_json *val)
{
	cptr p = (cptr)it->p, end = (cptr)it->end;
	struct er_json k = { NULL, 0, ER_JSON_NONE }, v;

	if (!p)
		return 0;
	p = skip_ws(p, end);
	if (p < end && it->index > 0) {
		if (*p != ',')
			goto stop;
		p = skip_ws(p + 1, end);
	}
	if (p >= end)
		goto stop;
	if (it->type == ER_JSON_OBJECT) {
		if (*p != '"')
			goto stop;
		make_value(&k, p, end);
		p = skip_ws((cptr)k.p + k.n, end);
		if (p >= end || *p != ':')
			goto stop;
		p = skip_ws(p + 1, end);
		if (p >= end)
			goto stop;
	}
	make_value(&v, p, end);
	if (v.type == ER_JSON_NONE || v.n == 0)
		goto stop;
	it->p = (const char *)p + v.n;
	it->index++;
	if (key)
		*key = k;
	if (val)
		*val = v;
	return 1;
stop:
	/* the end, or a span that did not come from a parsed document: yield nothing more */
	it->p = it->end;
	return 0;
}

/* Unescaped bytes of a valid string, one at a time. */
struct sdec {
	cptr p, end;
	uint8_t pend[4];
	uint8_t np, ip;
};

static void sdec_init(struct sdec *d, const struct er_json *s)
{
	er_memset(d, 0, sizeof(*d));
	d->p = (cptr)s->p + 1;
	d->end = (cptr)s->p + s->n - 1;     /* the closing quote */
}

/* The next byte, or -1 at the end. */
static int sdec_next(struct sdec *d)
{
	if (d->ip < d->np)
		return d->pend[d->ip++];
	if (d->p >= d->end)
		return -1;
	uint8_t c = *d->p++;
	if (c != '\\')
		return c;
	if (d->p >= d->end)
		return -1;
	uint8_t e = *d->p++;
	switch (e) {
	case 'b':
		return '\b';
	case 'f':
		return '\f';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 't':
		return '\t';
	case 'u':
		break;
	default:
		return e;                   /* " \ / */
	}
	if (d->end - d->p < 4)
		return -1;
	uint32_t cp = (uint32_t)hex4(d->p);
	d->p += 4;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (d->end - d->p < 6)
			return -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)hex4(d->p + 2) - 0xdc00);
		d->p += 6;
	}
	if (cp < 0x80)
		return (int)cp;
	d->ip = 1;
	if (cp < 0x800) {
		d->pend[0] = (uint8_t)(0xc0 | cp >> 6);
		d->pend[1] = (uint8_t)(0x80 | (cp & 0x3f));
		d->np = 2;
	} else if (cp < 0x10000) {
		d->pend[0] = (uint8_t)(0xe0 | cp >> 12);
		d->pend[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		d->pend[2] = (uint8_t)(0x80 | (cp & 0x3f));
		d->np = 3;
	} else {
		d->pend[0] = (uint8_t)(0xf0 | cp >> 18);
		d->pend[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
		d->pend[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		d->pend[3] = (uint8_t)(0x80 | (cp & 0x3f));
		d->np = 4;
	}
	return d->pend[0];
}

static uint32_t key_hash(const struct er_json *s)
{
	struct sdec d;
	uint32_t h = 2166136261u;           /* FNV-1a */
	int c;
	sdec_init(&d, s);
	while ((c = sdec_next(&d)) >= 0)
		h = (h ^ (uint32_t)c) * 16777619u;
	return h;
}

static bool key_equal(const struct er_json *a, const struct er_json *b)
{
	struct sdec x, y;
	int c;
	sdec_init(&x, a);
	sdec_init(&y, b);
	do {
		c = sdec_next(&x);
		if (c != sdec_next(&y))
			return false;
	} while (c >= 0);
	return true;
}

/* Duplicate keys of a closed object; *bad_at gets the second key's position. */
static int check_members(const struct er_json *obj, const char **bad_at)
{
	uint32_t hash[ER_JSON_MAX_MEMBERS];
	const char *keys[ER_JSON_MAX_MEMBERS];  /* 6 KiB of stack with hash[] on x64 */
	struct er_json key, other;
	struct er_json_iter it;
	size_t n = 0;

	er_json_iter_init(&it, obj);
	while (er_json_next(&it, &key, NULL) > 0) {
		if (n == ER_JSON_MAX_MEMBERS) {
			*bad_at = key.p;
			return ER_JSON_E_MEMBERS;
		}
		uint32_t h = key_hash(&key);
		for (size_t i = 0; i < n; i++) {
			if (hash[i] != h)
				continue;
			make_value(&other, (cptr)keys[i], (cptr)key.p);
			if (key_equal(&key, &other)) {
				*bad_at = key.p;
				return ER_JSON_E_DUPKEY;
			}
		}
		hash[n] = h;
		keys[n++] = key.p;
	}
	return ER_JSON_OK;
}

int er_json_parse(const void *buf, size_t len, struct er_json *root, size_t *err_at)
{
	cptr start = buf, p = buf, end = buf ? start + len : start;
	cptr open[ER_JSON_MAX_DEPTH];
	cptr first = NULL;
	size_t depth = 0;
	int err = ER_JSON_E_SYNTAX;

	er_memset(root, 0, sizeof(*root));
	while (end > p && end[-1] == 0)
		end--;
	p = skip_ws(p, end);

value:
	if (p >= end)
		goto fail;
	if (!first)
		first = p;
	switch (*p) {
	case '{':
	case '[':
		if (depth == ER_JSON_MAX_DEPTH) {
			err = ER_JSON_E_DEPTH;
			goto fail;
		}
		open[depth++] = p;
		p = skip_ws(p + 1, end);
		if (p < end && *p == (*open[depth - 1] == '{' ? '}' : ']'))
			goto close;
		if (*open[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		err = scan_string(&p, end);
		if (err)
			goto fail;
		break;
	case 't':
		if (!scan_literal(&p, end, "true", 4))
			goto fail;
		break;
	case 'f':
		if (!scan_literal(&p, end, "false", 5))
			goto fail;
		break;
	case 'n':
		if (!scan_literal(&p, end, "null", 4))
			goto fail;
		break;
	default:
		err = scan_number(&p, end);
		if (err)
			goto fail;
		break;
	}

after:
	p = skip_ws(p, end);
	if (depth == 0) {
		if (p != end)
			goto fail;                  /* something after the document */
		make_value(root, first, end);
		return ER_JSON_OK;
	}
	if (p >= end)
		goto fail;
	if (*p == ',') {
		p = skip_ws(p + 1, end);
		if (*open[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (*p != (*open[depth - 1] == '{' ? '}' : ']'))
		goto fail;
close:
	/* p is at the closing bracket of open[depth - 1] */
	if (*open[depth - 1] == '{') {
		struct er_json obj = { (const char *)open[depth - 1], (size_t)(p + 1 - open[depth - 1]),
				       ER_JSON_OBJECT };
		const char *bad = NULL;
		err = check_members(&obj, &bad);
		if (err) {
			p = (cptr)bad;
			goto fail;
		}
	}
	depth--;
	p++;
	goto after;

key:
	if (p >= end || *p != '"')
		goto fail;
	err = scan_string(&p, end);
	if (err)
		goto fail;
	p = skip_ws(p, end);
	if (p >= end || *p != ':') {
		err = ER_JSON_E_SYNTAX;
		goto fail;
	}
	p = skip_ws(p + 1, end);
	goto value;

fail:
	if (err == ER_JSON_OK)
		err = ER_JSON_E_SYNTAX;
	if (err_at)
		*err_at = (size_t)(p - start);
	er_memset(root, 0, sizeof(*root));
	return err;
}

const char *er_json_strerror(int err)
{
	switch (err) {
	case ER_JSON_OK:
		return "ok";
	case ER_JSON_E_SYNTAX:
		return "not JSON";
	case ER_JSON_E_UTF8:
		return "malformed UTF-8 or a lone surrogate";
	case ER_JSON_E_DEPTH:
		return "nested too deep";
	case ER_JSON_E_DUPKEY:
		return "an object has the same key twice";
	case ER_JSON_E_MEMBERS:
		return "an object has too many members";
	case ER_JSON_E_NOTFOUND:
		return "no such member";
	case ER_JSON_E_TYPE:
		return "a value of another type";
	case ER_JSON_E_RANGE:
		return "not an unsigned 64-bit integer";
	case ER_JSON_E_SPACE:
		return "does not fit";
	default:
		return "unknown JSON error";
	}
}

/* ------------------------------------------------------------------ access */

bool er_json_streq(const struct er_json *s, const char *lit)
{
	struct sdec d;
	int c;
	if (!s || s->type != ER_JSON_STRING || s->n < 2)
		return false;
	sdec_init(&d, s);
	while ((c = sdec_next(&d)) >= 0) {
		if (*lit == 0 || (uint8_t)*lit != c)
			return false;
		lit++;
	}
	return *lit == 0;
}

int er_json_get(const struct er_json *obj, const char *key, struct er_json *out)
{
	struct er_json_iter it;
	struct er_json k, v;
	int r = er_json_iter_init(&it, obj);   /* before out is touched: out may be obj */
	er_memset(out, 0, sizeof(*out));
	if (r || it.type != ER_JSON_OBJECT)
		return ER_JSON_E_TYPE;
	while (er_json_next(&it, &k, &v) > 0)
		if (er_json_streq(&k, key)) {   /* keys are unique: the first is the only one */
			*out = v;
			return ER_JSON_OK;
		}
	return ER_JSON_E_NOTFOUND;
}

int er_json_get_type(const struct er_json *obj, const char *key, enum er_json_type type, struct er_json *out)
{
	int r = er_json_get(obj, key, out);
	if (r)
		return r;
	if (out->type != type) {
		er_memset(out, 0, sizeof(*out));
		return ER_JSON_E_TYPE;
	}
	return ER_JSON_OK;
}

int er_json_index(const struct er_json *arr, size_t i, struct er_json *out)
{
	struct er_json_iter it;
	int r = er_json_iter_init(&it, arr);   /* before out is touched: out may be arr */
	er_memset(out, 0, sizeof(*out));
	if (r || it.type != ER_JSON_ARRAY)
		return ER_JSON_E_TYPE;
	while (er_json_next(&it, NULL, out) > 0)
		if (it.index == i + 1)
			return ER_JSON_OK;
	er_memset(out, 0, sizeof(*out));
	return ER_JSON_E_NOTFOUND;
}

size_t er_json_count(const struct er_json *v)
{
	struct er_json_iter it;
	if (er_json_iter_init(&it, v))
		return 0;
	while (er_json_next(&it, NULL, NULL) > 0)
		;
	return it.index;
}

int er_json_string(const struct er_json *s, char *buf, size_t cap, size_t *len)
{
	struct sdec d;
	size_t n = 0;
	int c;
	if (len)
		*len = 0;
	if (cap)
		buf[0] = 0;
	if (!s || s->type != ER_JSON_STRING || s->n < 2)
		return ER_JSON_E_TYPE;
	sdec_init(&d, s);
	while ((c = sdec_next(&d)) >= 0) {
		if (n + 1 < cap)
			buf[n] = (char)c;
		n++;
	}
	if (len)
		*len = n;
	if (n + 1 > cap) {
		if (cap)
			buf[0] = 0;
		return ER_JSON_E_SPACE;
	}
	buf[n] = 0;
	return ER_JSON_OK;
}

int er_json_get_string(const struct er_json *obj, const char *key, char *buf, size_t cap, size_t *len)
{
	struct er_json v;
	int r = er_json_get_type(obj, key, ER_JSON_STRING, &v);
	if (r) {
		if (len)
			*len = 0;
		if (cap)
			buf[0] = 0;
		return r;
	}
	return er_json_string(&v, buf, cap, len);
}

/* decimal digits -> value; false on anything else or beyond 2^64 - 1 */
static bool add_digit(uint64_t *x, int c)
{
	if (c < '0' || c > '9')
		return false;
	uint64_t d = (uint64_t)(c - '0');
	if (*x > (UINT64_MAX - d) / 10)
		return false;
	*x = *x * 10 + d;
	return true;
}

int er_json_u64(const struct er_json *v, uint64_t *out)
{
	uint64_t x = 0;
	*out = 0;
	if (!v || v->type != ER_JSON_NUMBER)
		return ER_JSON_E_TYPE;
	if (v->n == 0)
		return ER_JSON_E_RANGE;
	for (size_t i = 0; i < v->n; i++)
		if (!add_digit(&x, (uint8_t)v->p[i]))
			return ER_JSON_E_RANGE;     /* '-', '.', 'e', or too large */
	*out = x;
	return ER_JSON_OK;
}

int er_json_u64_text(const struct er_json *v, uint64_t *out)
{
	struct sdec d;
	uint64_t x = 0;
	size_t n = 0;
	int c;
	*out = 0;
	if (!v || v->type != ER_JSON_STRING || v->n < 2)
		return ER_JSON_E_TYPE;
	sdec_init(&d, v);
	while ((c = sdec_next(&d)) >= 0) {
		if (!add_digit(&x, c))
			return ER_JSON_E_RANGE;
		n++;
	}
	if (n == 0)
		return ER_JSON_E_RANGE;
	*out = x;
	return ER_JSON_OK;
}

int er_json_u64_any(const struct er_json *v, uint64_t *out)
{
	if (v && v->type == ER_JSON_STRING)
		return er_json_u64_text(v, out);
	return er_json_u64(v, out);
}

int er_json_get_u64(const struct er_json *obj, const char *key, uint64_t *out)
{
	struct er_json v;
	int r = er_json_get(obj, key, &v);
	*out = 0;
	if (r)
		return r;
	return er_json_u64_any(&v, out);
}
