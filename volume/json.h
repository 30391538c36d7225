// SPDX-License-Identifier: GPL-2.0-or-later
/* A small bounded JSON reader (RFC 8259) for hostile input: systemd's HibernateLocation
 * variable, the LUKS2 JSON area.
 *
 * er_json_parse() validates the whole document once: UTF-8 (strict: no overlong forms,
 * no UTF-16 surrogates, nothing above U+10FFFF), strings with every escape (\uXXXX with
 * surrogate pairs; a lone surrogate is an error), numbers per the grammar, the literals
 * true/false/null, nesting at most ER_JSON_MAX_DEPTH deep, at most ER_JSON_MAX_MEMBERS
 * members per object, and no duplicate key in any object (compared after unescaping):
 * a document with a duplicate key is invalid, so a lookup can never see a different
 * member than another reader. After the value only whitespace may follow, then NUL
 * bytes (EFI variables often carry a terminating NUL). No recursion, no allocation.
 *
 * The values handed out are spans into the caller's buffer, which must stay in place
 * while they are used. Every accessor takes only values that came from er_json_parse,
 * er_json_get*, er_json_index or er_json_next on a parsed document.
 *
 * Pure C (image/): builds into the EFI binaries and for the host.
 *
 * Example (a LUKS2 JSON area):
 *	struct er_json root, slots, key, slot;
 *	struct er_json_iter it;
 *	uint64_t off;
 *	if (er_json_parse(area, area_len, &root, NULL) ||
 *	    er_json_get_type(&root, "keyslots", ER_JSON_OBJECT, &slots))
 *		...;
 *	er_json_iter_init(&it, &slots);
 *	while (er_json_next(&it, &key, &slot) > 0) {
 *		uint64_t id;
 *		if (er_json_u64_any(&key, &id))      // "0", "1", ...
 *			...;
 *		struct er_json area_obj;
 *		if (er_json_get_type(&slot, "area", ER_JSON_OBJECT, &area_obj) ||
 *		    er_json_get_u64(&area_obj, "offset", &off))   // "offset":"32768"
 *			...;
 *	}
 */
#ifndef EFIRESUME_VOLUME_JSON_H
#define EFIRESUME_VOLUME_JSON_H

#include "image/freestanding.h"

#define ER_JSON_MAX_DEPTH   32      /* nested arrays/objects: "[[1]]" is depth 2 */
#define ER_JSON_MAX_MEMBERS 512     /* members of one object (bounds the duplicate check) */

enum er_json_type {
	ER_JSON_NONE = 0,               /* not a value (an array element's key, an error) */
	ER_JSON_OBJECT,
	ER_JSON_ARRAY,
	ER_JSON_STRING,
	ER_JSON_NUMBER,
	ER_JSON_TRUE,
	ER_JSON_FALSE,
	ER_JSON_NULL,
};

/* Results: 0 = success, negative = why not. */
enum {
	ER_JSON_OK = 0,
	ER_JSON_E_SYNTAX = -1,          /* not JSON (er_json_parse's err_at says where) */
	ER_JSON_E_UTF8 = -2,            /* malformed UTF-8 or a lone surrogate escape */
	ER_JSON_E_DEPTH = -3,           /* nested deeper than ER_JSON_MAX_DEPTH */
	ER_JSON_E_DUPKEY = -4,          /* an object has the same key twice */
	ER_JSON_E_MEMBERS = -5,         /* an object has more than ER_JSON_MAX_MEMBERS members */
	ER_JSON_E_NOTFOUND = -6,        /* no such member / element */
	ER_JSON_E_TYPE = -7,            /* the value has another type than asked for */
	ER_JSON_E_RANGE = -8,           /* not an unsigned integer, or beyond 2^64 - 1 */
	ER_JSON_E_SPACE = -9,           /* the caller's buffer is too small */
};

/* A value: a span of the document. */
struct er_json {
	const char *p;                  /* first byte of the value */
	size_t n;                       /* its length in bytes (a string: with its quotes) */
	enum er_json_type type;
};

/* Validates buf[0..len) as one JSON document (see the top of this file) and returns its
 * top-level value in *root (any type; the span without the whitespace around it). On
 * failure *root is zeroed and, when err_at is not NULL, *err_at is the byte offset where
 * the document went wrong (for a duplicate key: the second occurrence). */
int er_json_parse(const void *buf, size_t len, struct er_json *root, size_t *err_at);

/* A short English explanation of a result code. */
const char *er_json_strerror(int err);

/* ---- objects and arrays */

/* (In all lookups out may be the same struct as the container.)
 * The member of object obj named key (a NUL-terminated UTF-8 string, compared with the
 * unescaped member name). E_TYPE when obj is not an object, E_NOTFOUND when absent. */
int er_json_get(const struct er_json *obj, const char *key, struct er_json *out);
/* The same, and E_TYPE unless the member has the given type. */
int er_json_get_type(const struct er_json *obj, const char *key, enum er_json_type type,
		     struct er_json *out);
/* Element i (from 0) of an array. E_TYPE when arr is not an array, E_NOTFOUND past the end. */
int er_json_index(const struct er_json *arr, size_t i, struct er_json *out);
/* Members of an object / elements of an array; 0 for any other value. */
size_t er_json_count(const struct er_json *v);

/* Iteration in document order over an object's members or an array's elements. */
struct er_json_iter {
	const char *p, *end;            /* private */
	enum er_json_type type;         /* the container's type */
	size_t index;                   /* elements returned so far */
};
/* E_TYPE when v is neither an object nor an array (the iterator then yields nothing). */
int er_json_iter_init(struct er_json_iter *it, const struct er_json *v);
/* 1 and the next member (key: its name as a string value; for an array key->type is
 * ER_JSON_NONE) and value; 0 at the end. key may be NULL. */
int er_json_next(struct er_json_iter *it, struct er_json *key, struct er_json *val);

/* ---- strings */

/* Copies the unescaped string into buf[0..cap) with a terminating NUL; *len (may be
 * NULL) gets its length without the NUL. E_TYPE when s is not a string, E_SPACE when
 * length + 1 > cap (buf then holds "" when cap > 0, and *len still gets the length:
 * buf may be NULL with cap 0 to ask for it). A "\u0000" escape yields a NUL
 * byte inside the string: callers that want a C string check *len == strlen(buf). */
int er_json_string(const struct er_json *s, char *buf, size_t cap, size_t *len);
/* Whether s is a string whose unescaped bytes equal the NUL-terminated lit. */
bool er_json_streq(const struct er_json *s, const char *lit);
/* er_json_get_type(obj, key, ER_JSON_STRING) + er_json_string. */
int er_json_get_string(const struct er_json *obj, const char *key, char *buf, size_t cap, size_t *len);

/* ---- unsigned integers */

/* A number that is a plain unsigned integer: no '-', no fraction, no exponent
 * ("0", "16777216"). E_TYPE for another type, E_RANGE for other numbers and above
 * 2^64 - 1. */
int er_json_u64(const struct er_json *v, uint64_t *out);
/* A string of decimal digits only (LUKS2 writes "offset":"16777216"): at least one
 * digit, no sign, no space. E_TYPE for another type, E_RANGE for other strings and
 * above 2^64 - 1. */
int er_json_u64_text(const struct er_json *v, uint64_t *out);
/* Either of the two. */
int er_json_u64_any(const struct er_json *v, uint64_t *out);
/* er_json_get + er_json_u64_any: "size":4096 and "size":"4096" both give 4096. */
int er_json_get_u64(const struct er_json *obj, const char *key, uint64_t *out);

#endif
