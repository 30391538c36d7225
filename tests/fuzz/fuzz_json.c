// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for volume/json.c.
 *
 * The input is one document (an exactly sized heap copy, so ASan sees any read beyond
 * it). When er_json_parse accepts it, the whole tree is walked and checked:
 *  - every value's span lies inside the input and is itself a document that
 *    er_json_parse accepts with the same type and length (the reader's view of a
 *    sub-value agrees with its view of the whole);
 *  - every object member is found again by er_json_get with its unescaped name (names
 *    holding a NUL byte excepted) at the same span, no two names of an object are
 *    equal, and er_json_count / er_json_index agree with iteration;
 *  - every string copies out as valid UTF-8 without surrogates, of the length
 *    er_json_string reports, and a buffer one byte short is refused;
 *  - er_json_u64 accepts exactly the numbers made of digits below 2^64 (compared with
 *    a decimal-string comparison), er_json_u64_text exactly such strings;
 *  - nesting never exceeds ER_JSON_MAX_DEPTH.
 * A refused input has err_at within the input and a zeroed root. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volume/json.h"

static const char *doc_lo, *doc_hi;

static bool valid_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		uint32_t cp;
		size_t more;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			more = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			more = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			more = 3, cp = c & 0x07;
		else
			return false;
		if (i + more >= n)
			return false;
		for (size_t k = 1; k <= more; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t min[4] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < min[more] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += more + 1;
	}
	return true;
}

/* the value of a string of ASCII digits, if below 2^64 */
static bool ref_u64(const char *p, size_t n, uint64_t *out)
{
	static const char max[] = "18446744073709551615";
	size_t z = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	while (z + 1 < n && p[z] == '0')
		z++;
	p += z;
	n -= z;
	if (n > 20 || (n == 20 && memcmp(p, max, 20) > 0))
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (uint64_t)(p[i] - '0');
	*out = x;
	return true;
}

static char *copy_string(const struct er_json *s, size_t *len)
{
	size_t n;
	if (er_json_string(s, NULL, 0, &n) != ER_JSON_E_SPACE)
		abort();
	char *b = malloc(n + 1);
	if (!b)
		abort();
	if (n && er_json_string(s, b, n, len) != ER_JSON_E_SPACE)
		abort();
	if (er_json_string(s, b, n + 1, len) != ER_JSON_OK || *len != n || b[n] != 0)
		abort();
	if (!valid_utf8((const uint8_t *)b, n))
		abort();
	return b;
}

static void walk(const struct er_json *v, unsigned depth)
{
	struct er_json k, x, y, again;
	struct er_json_iter it;
	uint64_t u, r;
	size_t n;
	char *s;

	if (v->p < doc_lo || v->p + v->n > doc_hi || v->n == 0)
		abort();
	/* the span alone is a document of the same type and length */
	char *copy = malloc(v->n);
	if (!copy)
		abort();
	memcpy(copy, v->p, v->n);
	if (er_json_parse(copy, v->n, &again, NULL) != ER_JSON_OK || again.type != v->type || again.n != v->n ||
	    again.p != copy)
		abort();
	free(copy);

	switch (v->type) {
	case ER_JSON_OBJECT:
	case ER_JSON_ARRAY:
		if (depth >= ER_JSON_MAX_DEPTH)
			abort();
		if (er_json_iter_init(&it, v) != ER_JSON_OK)
			abort();
		while (er_json_next(&it, &k, &x) > 0) {
			if (v->type == ER_JSON_OBJECT) {
				if (k.type != ER_JSON_STRING)
					abort();
				s = copy_string(&k, &n);
				if (strlen(s) == n) {
					if (er_json_get(v, s, &y) != ER_JSON_OK || y.p != x.p || y.n != x.n || y.type != x.type)
						abort();
					if (!er_json_streq(&k, s))
						abort();
				}
				/* no earlier member has the same name */
				struct er_json_iter jt;
				struct er_json k2;
				er_json_iter_init(&jt, v);
				while (er_json_next(&jt, &k2, NULL) > 0 && jt.index < it.index) {
					size_t n2;
					char *s2 = copy_string(&k2, &n2);
					if (n2 == n && memcmp(s, s2, n) == 0)
						abort();
					free(s2);
				}
				free(s);
			} else {
				if (k.type != ER_JSON_NONE)
					abort();
				if (er_json_index(v, it.index - 1, &y) != ER_JSON_OK || y.p != x.p || y.n != x.n)
					abort();
			}
			walk(&x, depth + 1);
		}
		if (er_json_count(v) != it.index)
			abort();
		if (v->type == ER_JSON_ARRAY && er_json_index(v, it.index, &y) != ER_JSON_E_NOTFOUND)
			abort();
		break;
	case ER_JSON_STRING:
		s = copy_string(v, &n);
		{
			int rc = er_json_u64_text(v, &u);
			bool ok = ref_u64(s, n, &r);
			if ((rc == ER_JSON_OK) != ok || (ok && u != r) || (rc != ER_JSON_OK && rc != ER_JSON_E_RANGE))
				abort();
		}
		free(s);
		if (er_json_u64(v, &u) != ER_JSON_E_TYPE)
			abort();
		break;
	case ER_JSON_NUMBER: {
		int rc = er_json_u64(v, &u);
		bool ok = ref_u64(v->p, v->n, &r);
		if ((rc == ER_JSON_OK) != ok || (ok && u != r) || (rc != ER_JSON_OK && rc != ER_JSON_E_RANGE))
			abort();
		if (er_json_u64_text(v, &u) != ER_JSON_E_TYPE || er_json_iter_init(&it, v) != ER_JSON_E_TYPE)
			abort();
		break;
	}
	case ER_JSON_TRUE:
	case ER_JSON_FALSE:
	case ER_JSON_NULL:
		if (er_json_string(v, NULL, 0, &n) != ER_JSON_E_TYPE || er_json_get(v, "a", &y) != ER_JSON_E_TYPE)
			abort();
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(size ? size : 1);
	if (!doc)
		return 0;
	memcpy(doc, data, size);
	struct er_json root;
	size_t at = (size_t)-1;
	int r = er_json_parse(doc, size, &root, &at);
	if (r == ER_JSON_OK) {
		doc_lo = doc;
		doc_hi = doc + size;
		walk(&root, 0);
	} else {
		if (r > 0 || r < ER_JSON_E_MEMBERS || at > size || root.p || root.n || root.type != ER_JSON_NONE)
			abort();
		if (er_json_strerror(r) == NULL)
			abort();
	}
	free(doc);
	return 0;
}
