// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for volume/json.c.
 *
 * Oracle: python3's json module. A generator (embedded below, run with a fixed seed)
 * writes documents, valid and mutated, and judges each with json.loads (strict UTF-8,
 * no NaN/Infinity, duplicate keys and nesting beyond ER_JSON_MAX_DEPTH counted as
 * invalid, lone surrogates invalid); for an accepted document it also prints a
 * canonical walk (keys and strings unescaped, numbers as written, and the unsigned
 * 64-bit value of every number and every string, or "not one"). Each document must be
 * accepted or refused as python does, and the walk volume/json.c gives must be the same
 * bytes. Then hand cases: 2^64 boundaries, depth and member limits, escapes, surrogates,
 * control characters, duplicate keys after unescaping, trailing NULs, the LUKS2 shape. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "volume/json.h"

static const char oracle_py[] =
	"# JSON oracle for test_json.c: generates documents (valid and broken), judges them with\n"
	"# python's json module, prints \"HEXDOC VERDICT\" lines (VERDICT: \"-\" rejected, else the\n"
	"# hex of a canonical walk the C side rebuilds with volume/json.c).\n"
	"import sys, json, random, re\n"
	"if hasattr(sys, 'set_int_max_str_digits'):\n"
	"    sys.set_int_max_str_digits(0)\n"
	"seed = int(sys.argv[1]); count = int(sys.argv[2])\n"
	"rnd = random.Random(seed)\n"
	"MAXD = 32; MAXM = 512; U64 = 1 << 64\n"
	"POOL = ['a', 'b', 'z', '0', '1', '9', ' ', '\"', '\\\\', '/', '\\x00', '\\x01', '\\x08', '\\x0b', '\\x1f',\n"
	"        '\\x7f', '\\xe9', '\\u20ac', '\\U0001f600', '\\ud800', '\\udc00', 'uuid', 'offset', '{', '}']\n"
	"def rstr():\n"
	"    n = rnd.choice([0, 1, 1, 2, 3, 5, 8])\n"
	"    s = ''.join(rnd.choice(POOL[:20]) if rnd.random() < 0.97 else rnd.choice(POOL[20:]) for _ in range(n))\n"
	"    if rnd.random() < 0.2:\n"
	"        s = rnd.choice(['0', '1', '17', '007', '18446744073709551615', '18446744073709551616', '', '-1', ' 1'])\n"
	"    return s\n"
	"SHORT = {'\"': '\\\\\"', '\\\\': '\\\\\\\\', '\\b': '\\\\b', '\\f': '\\\\f', '\\n': '\\\\n', '\\r': '\\\\r', '\\t': '\\\\t', '/': '\\\\/'}\n"
	"def uesc(o):\n"
	"    f = rnd.choice(['\\\\u%04x', '\\\\u%04X'])\n"
	"    return f % o\n"
	"def enc_str(s):\n"
	"    out = ['\"']\n"
	"    for ch in s:\n"
	"        o = ord(ch)\n"
	"        if ch in SHORT and (o < 0x20 or ch in '\"\\\\' or rnd.random() < 0.3):\n"
	"            out.append(SHORT[ch] if rnd.random() < 0.7 else uesc(o))\n"
	"        elif o < 0x20 or 0xd800 <= o <= 0xdfff:\n"
	"            out.append(uesc(o))\n"
	"        elif rnd.random() < 0.1:\n"
	"            if o > 0xffff:\n"
	"                v = o - 0x10000\n"
	"                out.append(uesc(0xd800 + (v >> 10)) + uesc(0xdc00 + (v & 0x3ff)))\n"
	"            else:\n"
	"                out.append(uesc(o))\n"
	"        else:\n"
	"            out.append(ch)\n"
	"    out.append('\"')\n"
	"    return ''.join(out)\n"
	"NUMS = ['0', '1', '42', '-0', '-1', '0.5', '1e3', '1E+3', '2e-3', '-12.5e10', '18446744073709551615',\n"
	"        '18446744073709551616', '18446744073709551614', '99999999999999999999', '4294967296',\n"
	"        '10000000000000000000', '1' + '0' * 30, '123.0', '0e0']\n"
	"def rnum():\n"
	"    if rnd.random() < 0.5:\n"
	"        return rnd.choice(NUMS)\n"
	"    return str(rnd.randrange(0, 1 << rnd.choice([4, 16, 32, 63, 64, 65])))\n"
	"def ws():\n"
	"    return rnd.choice(['', '', '', ' ', '\\n', '\\t', '\\r\\n', '  '])\n"
	"def gen(d):\n"
	"    r = rnd.random()\n"
	"    if d < 6 and r < 0.25:\n"
	"        keys = [rstr() for _ in range(rnd.choice([0, 1, 2, 3, 5]))]\n"
	"        if keys and rnd.random() < 0.1:\n"
	"            keys.append(rnd.choice(keys))\n"
	"        return '{' + ws() + ','.join(ws() + enc_str(k) + ws() + ':' + ws() + gen(d + 1) + ws() for k in keys) + '}'\n"
	"    if d < 6 and r < 0.45:\n"
	"        return '[' + ws() + ','.join(ws() + gen(d + 1) + ws() for _ in range(rnd.choice([0, 1, 2, 4]))) + ']'\n"
	"    if r < 0.65:\n"
	"        return enc_str(rstr())\n"
	"    if r < 0.9:\n"
	"        return rnum()\n"
	"    return rnd.choice(['true', 'false', 'null'])\n"
	"def deep():\n"
	"    d = rnd.randrange(28, 36)\n"
	"    if rnd.random() < 0.5:\n"
	"        return '[' * d + rnd.choice(['', '1', '{}']) + ']' * d\n"
	"    return '{\"a\":' * d + rnd.choice(['1', '[]']) + '}' * d\n"
	"ALPH = b'{}[]\":,\\\\ -+.eE0123456789tfnulrsa\\x00\\x01\\x1f\\x7f\\xff\\xc3\\xa9\\xed\\xa0\\x80\\xf4\\x90'\n"
	"def mutate(b):\n"
	"    b = bytearray(b)\n"
	"    for _ in range(rnd.choice([1, 1, 2, 3])):\n"
	"        op = rnd.randrange(4)\n"
	"        i = rnd.randrange(len(b) + 1)\n"
	"        if op == 0 and i < len(b):\n"
	"            b[i] = rnd.choice(ALPH)\n"
	"        elif op == 1 and i < len(b):\n"
	"            del b[i]\n"
	"        elif op == 2:\n"
	"            b.insert(i, rnd.choice(ALPH))\n"
	"        else:\n"
	"            b = b[:i]\n"
	"    return bytes(b)\n"
	"\n"
	"class Bad(Exception):\n"
	"    pass\n"
	"def pairs(ps):\n"
	"    seen = set()\n"
	"    for k, _ in ps:\n"
	"        if k in seen:\n"
	"            raise Bad('dup')\n"
	"        seen.add(k)\n"
	"    if len(ps) > MAXM:\n"
	"        raise Bad('members')\n"
	"    return ('obj', ps)\n"
	"def num(x):\n"
	"    return ('num', x)\n"
	"def const(x):\n"
	"    raise Bad('const')\n"
	"def u8(s):\n"
	"    return s.encode('utf-8')   # raises on lone surrogates\n"
	"def res(v):\n"
	"    return b'!;' if v is None else b'=%d;' % v\n"
	"def S(b):\n"
	"    return b'%d:' % len(b) + b\n"
	"def canon(v, d):\n"
	"    if isinstance(v, tuple) and v[0] == 'obj':\n"
	"        if d >= MAXD:\n"
	"            raise Bad('depth')\n"
	"        return b'{' + b''.join(b'k' + S(u8(k)) + canon(x, d + 1) for k, x in v[1]) + b'}'\n"
	"    if isinstance(v, list):\n"
	"        if d >= MAXD:\n"
	"            raise Bad('depth')\n"
	"        return b'[' + b''.join(canon(x, d + 1) for x in v) + b']'\n"
	"    if isinstance(v, tuple):\n"
	"        raw = v[1]\n"
	"        ok = re.fullmatch(r'[0-9]+', raw, re.ASCII) and int(raw) < U64\n"
	"        return b'n' + raw.encode() + b';' + res(int(raw) if ok else None)\n"
	"    if isinstance(v, str):\n"
	"        ok = v != '' and re.fullmatch(r'[0-9]+', v, re.ASCII) and int(v) < U64\n"
	"        return b's' + S(u8(v)) + res(int(v) if ok else None)\n"
	"    if v is True:\n"
	"        return b't'\n"
	"    if v is False:\n"
	"        return b'f'\n"
	"    if v is None:\n"
	"        return b'z'\n"
	"    raise Bad('type')\n"
	"def judge(b):\n"
	"    t = b.rstrip(b'\\0')\n"
	"    try:\n"
	"        s = t.decode('utf-8')\n"
	"        v = json.loads(s, object_pairs_hook=pairs, parse_int=num, parse_float=num, parse_constant=const)\n"
	"        return canon(v, 0).hex()\n"
	"    except (ValueError, Bad, UnicodeError, RecursionError):\n"
	"        return '-'\n"
	"out = sys.stdout\n"
	"for i in range(count):\n"
	"    r = rnd.random()\n"
	"    doc = ws() + (deep() if r < 0.03 else gen(0)) + ws()\n"
	"    b = doc.encode('utf-8', 'surrogatepass')\n"
	"    if rnd.random() < 0.1:\n"
	"        b += b'\\0' * rnd.randrange(1, 3)\n"
	"    if rnd.random() < 0.4:\n"
	"        b = mutate(b)\n"
	"    out.write('x' + b.hex() + ' ' + judge(b) + '\\n')\n"
	"\n";

/* ---------------------------------------------------------------- helpers */

struct buf {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct buf *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 64;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void puts_(struct buf *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_len(struct buf *o, const char *p, size_t n)
{
	char t[32];
	snprintf(t, sizeof(t), "%zu:", n);
	puts_(o, t);
	put(o, p, n);
}

static void put_u64(struct buf *o, int r, uint64_t v)
{
	char t[32];
	if (r == ER_JSON_OK)
		snprintf(t, sizeof(t), "=%llu;", (unsigned long long)v);
	else
		snprintf(t, sizeof(t), "!;");
	assert_true(r == ER_JSON_OK || r == ER_JSON_E_RANGE);
	puts_(o, t);
}

/* the string's unescaped bytes (heap), checking the buffer-size contract on the way */
static char *copy_string(const struct er_json *s, size_t *len)
{
	size_t n = 12345;
	char small[1];
	int r = er_json_string(s, NULL, 0, &n);
	assert_int_equal(r, ER_JSON_E_SPACE);
	char *b = malloc(n + 1);
	assert_non_null(b);
	if (n > 0) {   /* one byte short: refused, buffer left as "" */
		memset(b, 'x', n);
		assert_int_equal(er_json_string(s, b, n, len), ER_JSON_E_SPACE);
		assert_int_equal(b[0], 0);
	}
	assert_int_equal(er_json_string(s, small, 1, NULL), n == 0 ? ER_JSON_OK : ER_JSON_E_SPACE);
	assert_int_equal(er_json_string(s, b, n + 1, len), ER_JSON_OK);
	assert_int_equal(*len, n);
	assert_int_equal(b[n], 0);
	return b;
}

/* The canonical walk the oracle prints; also checks lookups against iteration. */
static void walk(struct buf *o, const struct er_json *v, unsigned depth)
{
	struct er_json_iter it;
	struct er_json k, x, y;
	uint64_t u;
	size_t n;
	int r;
	char *s;

	assert_true(depth < ER_JSON_MAX_DEPTH + 1);
	switch (v->type) {
	case ER_JSON_OBJECT:
	case ER_JSON_ARRAY:
		assert_int_equal(er_json_iter_init(&it, v), ER_JSON_OK);
		puts_(o, v->type == ER_JSON_OBJECT ? "{" : "[");
		while (er_json_next(&it, &k, &x) > 0) {
			if (v->type == ER_JSON_OBJECT) {
				s = copy_string(&k, &n);
				puts_(o, "k");
				put_len(o, s, n);
				/* the member is found by its unescaped name (unless it holds a NUL) */
				if (strlen(s) == n) {
					assert_int_equal(er_json_get(v, s, &y), ER_JSON_OK);
					assert_ptr_equal(y.p, x.p);
					assert_int_equal(y.n, x.n);
					assert_int_equal(y.type, x.type);
					assert_true(er_json_streq(&k, s));
				}
				free(s);
			} else {
				assert_int_equal(k.type, ER_JSON_NONE);
				assert_int_equal(er_json_index(v, it.index - 1, &y), ER_JSON_OK);
				assert_ptr_equal(y.p, x.p);
				assert_int_equal(y.n, x.n);
			}
			walk(o, &x, depth + 1);
		}
		assert_int_equal(er_json_count(v), it.index);
		if (v->type == ER_JSON_ARRAY)
			assert_int_equal(er_json_index(v, it.index, &y), ER_JSON_E_NOTFOUND);
		puts_(o, v->type == ER_JSON_OBJECT ? "}" : "]");
		break;
	case ER_JSON_STRING:
		s = copy_string(v, &n);
		puts_(o, "s");
		put_len(o, s, n);
		free(s);
		r = er_json_u64_text(v, &u);
		put_u64(o, r, u);
		assert_int_equal(er_json_u64(v, &u), ER_JSON_E_TYPE);
		break;
	case ER_JSON_NUMBER:
		puts_(o, "n");
		put(o, v->p, v->n);
		puts_(o, ";");
		r = er_json_u64(v, &u);
		put_u64(o, r, u);
		assert_int_equal(er_json_u64_text(v, &u), ER_JSON_E_TYPE);
		break;
	case ER_JSON_TRUE:
		puts_(o, "t");
		break;
	case ER_JSON_FALSE:
		puts_(o, "f");
		break;
	case ER_JSON_NULL:
		puts_(o, "z");
		break;
	default:
		fail_msg("value of no type");
	}
}

static size_t unhex(const char *h, size_t n, uint8_t *out)
{
	size_t o = 0;
	for (size_t i = 0; i + 1 < n + 1 && i + 1 < n + 1 && i + 2 <= n; i += 2) {
		unsigned v;
		assert_int_equal(sscanf(h + i, "%2x", &v), 1);
		out[o++] = (uint8_t)v;
	}
	return o;
}

static void test_python_oracle(void **state)
{
	(void)state;
	char path[] = "/tmp/efiresume-json-oracle-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, oracle_py, sizeof(oracle_py) - 1), (ssize_t)(sizeof(oracle_py) - 1));
	close(fd);
	const char *seed = getenv("JSON_ORACLE_SEED");
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "python3 %s %s 30000", path, seed ? seed : "20261203");
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned docs = 0, valid = 0, mismatches = 0;
	while ((got = getline(&line, &cap, f)) > 0) {
		char *sp = strchr(line, ' ');
		assert_non_null(sp);
		assert_int_equal(line[0], 'x');
		size_t hn = (size_t)(sp - line - 1);
		char *want = sp + 1;
		size_t wn = strlen(want);
		while (wn && (want[wn - 1] == '\n'))
			want[--wn] = 0;
		/* an exactly sized heap copy: ASan sees any read beyond the document */
		uint8_t *doc = malloc(hn / 2 ? hn / 2 : 1);
		size_t dn = unhex(line + 1, hn, doc);
		struct er_json root;
		size_t at = 0;
		int r = er_json_parse(doc, dn, &root, &at);
		bool py_ok = strcmp(want, "-") != 0;
		docs++;
		if ((r == ER_JSON_OK) != py_ok) {
			if (mismatches++ < 10)
				print_error("verdict differs (ours %s, python %s) for %.*s\n", er_json_strerror(r),
					    py_ok ? "valid" : "invalid", (int)dn, (const char *)doc);
		} else if (r == ER_JSON_OK) {
			struct buf o = { 0 };
			valid++;
			walk(&o, &root, 0);
			uint8_t *w = malloc(wn / 2 + 1);
			size_t n = unhex(want, wn, w);
			if (n != o.n || memcmp(w, o.b, n) != 0) {
				if (mismatches++ < 10)
					print_error("values differ for %.*s\n ours   %.*s\n python %.*s\n", (int)dn,
						    (const char *)doc, (int)o.n, (const char *)o.b, (int)n, (const char *)w);
			}
			free(w);
			free(o.b);
		} else {
			assert_true(at <= dn);
			assert_int_equal(root.type, ER_JSON_NONE);
			assert_null(root.p);
		}
		free(doc);
	}
	free(line);
	assert_int_equal(pclose(f), 0);
	unlink(path);
	print_message("python oracle: %u documents, %u valid, %u mismatches\n", docs, valid, mismatches);
	assert_int_equal(docs, 30000);
	assert_true(valid > 5000 && docs - valid > 5000);   /* both kinds well represented */
	assert_int_equal(mismatches, 0);
}

/* ---------------------------------------------------------------- hand cases */

static int parse(const char *s, struct er_json *root)
{
	return er_json_parse(s, strlen(s), root, NULL);
}

static int parse_n(const char *s, size_t n)
{
	struct er_json root;
	char *c = malloc(n ? n : 1);
	memcpy(c, s, n);
	int r = er_json_parse(c, n, &root, NULL);
	free(c);
	return r;
}

static void test_u64_boundaries(void **state)
{
	(void)state;
	struct er_json root, v;
	uint64_t u = 1;
	assert_int_equal(parse("{\"a\":18446744073709551615,\"b\":18446744073709551616,\"c\":\"18446744073709551615\","
			       "\"d\":\"18446744073709551616\",\"e\":\"00000000000000000000000000042\",\"f\":-0,"
			       "\"g\":1.0,\"h\":1e3,\"i\":\"\",\"j\":\"+1\",\"k\":\" 1\",\"l\":\"1 \",\"m\":0,"
			       "\"n\":\"\\u0031\\u0032\",\"o\":true,\"p\":99999999999999999999,\"q\":\"-1\"}", &root),
			 ER_JSON_OK);
	assert_int_equal(er_json_get_u64(&root, "a", &u), ER_JSON_OK);
	assert_true(u == UINT64_MAX);
	assert_int_equal(er_json_get_u64(&root, "b", &u), ER_JSON_E_RANGE);
	assert_int_equal(u, 0);
	assert_int_equal(er_json_get_u64(&root, "c", &u), ER_JSON_OK);
	assert_true(u == UINT64_MAX);
	assert_int_equal(er_json_get_u64(&root, "d", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "e", &u), ER_JSON_OK);
	assert_int_equal(u, 42);
	assert_int_equal(er_json_get_u64(&root, "f", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "g", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "h", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "i", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "j", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "k", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "l", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "m", &u), ER_JSON_OK);
	assert_int_equal(u, 0);
	assert_int_equal(er_json_get_u64(&root, "n", &u), ER_JSON_OK);
	assert_int_equal(u, 12);
	assert_int_equal(er_json_get_u64(&root, "o", &u), ER_JSON_E_TYPE);
	assert_int_equal(er_json_get_u64(&root, "p", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "q", &u), ER_JSON_E_RANGE);
	assert_int_equal(er_json_get_u64(&root, "zz", &u), ER_JSON_E_NOTFOUND);
	/* number only / text only */
	assert_int_equal(er_json_get(&root, "c", &v), ER_JSON_OK);
	assert_int_equal(er_json_u64(&v, &u), ER_JSON_E_TYPE);
	assert_int_equal(er_json_get(&root, "a", &v), ER_JSON_OK);
	assert_int_equal(er_json_u64_text(&v, &u), ER_JSON_E_TYPE);
	/* a top-level number */
	assert_int_equal(parse(" 18446744073709551615 ", &v), ER_JSON_OK);
	assert_int_equal(er_json_u64(&v, &u), ER_JSON_OK);
	assert_true(u == UINT64_MAX);
	assert_int_equal(parse("184467440737095516150", &v), ER_JSON_OK);
	assert_int_equal(er_json_u64(&v, &u), ER_JSON_E_RANGE);
}

static void test_depth_and_members(void **state)
{
	(void)state;
	char s[4096];
	struct er_json root;
	size_t at;
	for (int d = 1; d <= ER_JSON_MAX_DEPTH + 2; d++) {
		memset(s, '[', d);
		memset(s + d, ']', d);
		s[2 * d] = 0;
		assert_int_equal(parse(s, &root), d <= ER_JSON_MAX_DEPTH ? ER_JSON_OK : ER_JSON_E_DEPTH);
		size_t o = 0;
		for (int i = 0; i < d; i++)
			o += (size_t)sprintf(s + o, "{\"a\":");
		o += (size_t)sprintf(s + o, "1");
		memset(s + o, '}', d);
		s[o + d] = 0;
		assert_int_equal(er_json_parse(s, strlen(s), &root, &at), d <= ER_JSON_MAX_DEPTH ? ER_JSON_OK : ER_JSON_E_DEPTH);
		if (d > ER_JSON_MAX_DEPTH)
			assert_int_equal(at, 5 * ER_JSON_MAX_DEPTH);
	}
	/* a hostile depth far beyond the limit: refused without recursion */
	static char big[1 << 20];
	memset(big, '[', sizeof(big));
	assert_int_equal(er_json_parse(big, sizeof(big), &root, NULL), ER_JSON_E_DEPTH);

	/* ER_JSON_MAX_MEMBERS members are fine, one more is not */
	static char obj[16 * (ER_JSON_MAX_MEMBERS + 2)];
	for (int extra = 0; extra <= 1; extra++) {
		size_t o = 0;
		obj[o++] = '{';
		for (int i = 0; i < ER_JSON_MAX_MEMBERS + extra; i++)
			o += (size_t)sprintf(obj + o, "%s\"%d\":%d", i ? "," : "", i, i);
		obj[o++] = '}';
		assert_int_equal(er_json_parse(obj, o, &root, NULL), extra ? ER_JSON_E_MEMBERS : ER_JSON_OK);
		if (!extra) {
			uint64_t u;
			assert_int_equal(er_json_count(&root), ER_JSON_MAX_MEMBERS);
			assert_int_equal(er_json_get_u64(&root, "511", &u), ER_JSON_OK);
			assert_int_equal(u, 511);
		}
	}
	/* arrays have no member limit */
	size_t o = 0;
	obj[o++] = '[';
	for (int i = 0; i < 2000; i++) {
		obj[o++] = '0';
		obj[o++] = ',';
	}
	obj[o - 1] = ']';
	assert_int_equal(er_json_parse(obj, o, &root, NULL), ER_JSON_OK);
	assert_int_equal(er_json_count(&root), 2000);
}

static void test_strings(void **state)
{
	(void)state;
	struct er_json root, v;
	char b[64];
	size_t n;
	/* every escape */
	assert_int_equal(parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00\\u0000z\"", &root),
			 ER_JSON_OK);
	assert_int_equal(er_json_string(&root, b, sizeof(b), &n), ER_JSON_OK);
	static const char want[] = "\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\0z";
	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(b, want, n);
	/* bad escapes */
	const char *bad[] = { "\"\\x\"", "\"\\u12G4\"", "\"\\U0041\"", "\"\\u004\"", "\"\\\"", "\"\\", "\"abc",
			      "\"\\'\"", "\"\\a\"", "\"\\0\"" };
	for (size_t i = 0; i < ER_ARRAY_SIZE(bad); i++)
		assert_int_equal(parse(bad[i], &root), ER_JSON_E_SYNTAX);
	/* lone surrogates */
	const char *lone[] = { "\"\\ud800\"", "\"\\udbff x\"", "\"\\ud800\\u0041\"", "\"\\udc00\"", "\"\\udfff\\ud800\"",
			       "\"\\ud800\\ud800\"", "\"\\ud800\\\"", "\"\\ud800\\n\"" };
	for (size_t i = 0; i < ER_ARRAY_SIZE(lone); i++)
		assert_int_equal(parse(lone[i], &root), ER_JSON_E_UTF8);
	/* raw control characters: every one below 0x20 is refused, DEL is a character */
	for (int c = 0; c < 0x20; c++) {
		char s[8] = { '"', 'a', (char)c, 'b', '"' };
		assert_int_equal(parse_n(s, 5), ER_JSON_E_SYNTAX);
	}
	assert_int_equal(parse("\"a\x7f" "b\"", &root), ER_JSON_OK);
	/* UTF-8: overlong, surrogates, beyond U+10FFFF, truncated, stray continuation */
	const char *utf[] = { "\"\xc0\xaf\"", "\"\xc1\xbf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
			      "\"\xf5\x80\x80\x80\"", "\"\xe2\x82\"", "\"\x80\"", "\"\xff\"", "\"\xf0\x8f\xbf\xbf\"" };
	for (size_t i = 0; i < ER_ARRAY_SIZE(utf); i++)
		assert_int_equal(parse(utf[i], &root), ER_JSON_E_UTF8);
	assert_int_equal(parse("\"\xf4\x8f\xbf\xbf\xed\x9f\xbf\xc2\x80\"", &root), ER_JSON_OK);
	/* non-ASCII outside strings */
	assert_int_equal(parse("\xc2\xa0" "1", &root), ER_JSON_E_SYNTAX);
	/* copy-out: exactly fitting, one short */
	assert_int_equal(parse("{\"k\":\"abcd\"}", &root), ER_JSON_OK);
	assert_int_equal(er_json_get_string(&root, "k", b, 5, &n), ER_JSON_OK);
	assert_string_equal(b, "abcd");
	assert_int_equal(er_json_get_string(&root, "k", b, 4, &n), ER_JSON_E_SPACE);
	assert_string_equal(b, "");
	assert_int_equal(er_json_get_string(&root, "x", b, 4, &n), ER_JSON_E_NOTFOUND);
	assert_int_equal(er_json_get(&root, "k", &v), ER_JSON_OK);
	assert_true(er_json_streq(&v, "abcd"));
	assert_false(er_json_streq(&v, "abc"));
	assert_false(er_json_streq(&v, "abcde"));
}

static void test_duplicates_and_lookup(void **state)
{
	(void)state;
	struct er_json root, v;
	size_t at = 0;
	const char *s = "{\"a\":1,\"b\":{\"a\":2},\"\\u0061\":3}";
	assert_int_equal(er_json_parse(s, strlen(s), &root, &at), ER_JSON_E_DUPKEY);
	assert_int_equal(at, strlen("{\"a\":1,\"b\":{\"a\":2},"));
	assert_int_equal(parse("[{\"x\":1,\"x\":1}]", &root), ER_JSON_E_DUPKEY);
	assert_int_equal(parse("{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}", &root), ER_JSON_E_DUPKEY);
	assert_int_equal(parse("{\"a\\u0000\":1,\"a\":2}", &root), ER_JSON_OK);   /* different keys */
	/* the same key in different objects is fine; lookups are exact */
	assert_int_equal(parse("{\"a\":1,\"b\":{\"a\":2},\"ab\":3,\"A\":4}", &root), ER_JSON_OK);
	uint64_t u;
	assert_int_equal(er_json_get_u64(&root, "a", &u), ER_JSON_OK);
	assert_int_equal(u, 1);
	assert_int_equal(er_json_get_type(&root, "b", ER_JSON_OBJECT, &v), ER_JSON_OK);
	assert_int_equal(er_json_get_u64(&v, "a", &u), ER_JSON_OK);
	assert_int_equal(u, 2);
	assert_int_equal(er_json_get_u64(&root, "A", &u), ER_JSON_OK);
	assert_int_equal(u, 4);
	assert_int_equal(er_json_get(&root, "", &v), ER_JSON_E_NOTFOUND);
	assert_int_equal(er_json_get_type(&root, "a", ER_JSON_STRING, &v), ER_JSON_E_TYPE);
	assert_int_equal(er_json_get(&v, "a", &v), ER_JSON_E_TYPE);   /* v was zeroed: not an object */
	assert_int_equal(er_json_index(&root, 0, &v), ER_JSON_E_TYPE);
	struct er_json_iter it;
	assert_int_equal(er_json_iter_init(&it, &v), ER_JSON_E_TYPE);
	assert_int_equal(er_json_next(&it, NULL, NULL), 0);
}

static void test_document_edges(void **state)
{
	(void)state;
	struct er_json root;
	size_t at;
	/* trailing whitespace, then NUL bytes (an EFI variable's terminator) */
	assert_int_equal(parse_n("{} \n\0\0", 6), ER_JSON_OK);
	assert_int_equal(parse_n("{}\0 ", 4), ER_JSON_E_SYNTAX);
	assert_int_equal(parse_n("{}\0x\0", 5), ER_JSON_E_SYNTAX);
	assert_int_equal(parse_n("\0{}", 3), ER_JSON_E_SYNTAX);
	assert_int_equal(parse_n("", 0), ER_JSON_E_SYNTAX);
	assert_int_equal(parse_n("\0\0", 2), ER_JSON_E_SYNTAX);
	assert_int_equal(parse_n(" \t\r\n", 4), ER_JSON_E_SYNTAX);
	assert_int_equal(er_json_parse(NULL, 0, &root, NULL), ER_JSON_E_SYNTAX);
	/* the span of the root: without the surrounding whitespace */
	assert_int_equal(er_json_parse(" [1, 2] \0", 9, &root, NULL), ER_JSON_OK);
	assert_int_equal(root.type, ER_JSON_ARRAY);
	assert_int_equal(root.n, 6);
	/* trailing garbage, BOM, two documents, stray separators */
	const char *bad[] = { "{}x", "{} {}", "\xef\xbb\xbf{}", "1 2", "[1,]", "{\"a\":1,}", "[,1]", "{,}", "{\"a\"}",
			      "{\"a\":}", "{1:2}", "[1 2]", "tru", "nul", "falsey", "True", "NaN", "Infinity", "-", "01",
			      "1.", ".5", "1e", "1e+", "-a", "+1", "0x10", "[1]]", "{\"a\":1}}", "\x0b{}", "{}\x0c" };
	for (size_t i = 0; i < ER_ARRAY_SIZE(bad); i++) {
		at = 999;
		assert_int_equal(er_json_parse(bad[i], strlen(bad[i]), &root, &at), ER_JSON_E_SYNTAX);
		assert_true(at <= strlen(bad[i]));
	}
	at = 0;
	assert_int_equal(er_json_parse("[1,2,x]", 7, &root, &at), ER_JSON_E_SYNTAX);
	assert_int_equal(at, 5);
	/* every prefix of a document is refused (exactly sized copies: ASan checks reads) */
	const char *doc = "{\"a\":[1,-2.5e3,\"x\\u00e9\\ud83d\\ude00\",true,false,null,{}],\"b\":\"7\"}";
	for (size_t n = 0; n < strlen(doc); n++)
		assert_int_not_equal(parse_n(doc, n), ER_JSON_OK);
	assert_int_equal(parse_n(doc, strlen(doc)), ER_JSON_OK);
}

/* The shape of a LUKS2 JSON area (as cryptsetup writes it), read as the LUKS code will. */
static void test_luks2_shape(void **state)
{
	(void)state;
	static const char area[] =
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"key_size\":64,\"af\":{\"type\":\"luks1\",\"stripes\":4000,"
		"\"hash\":\"sha256\"},\"area\":{\"type\":\"raw\",\"offset\":\"32768\",\"size\":\"258048\","
		"\"encryption\":\"aes-xts-plain64\",\"key_size\":64},\"kdf\":{\"type\":\"argon2id\",\"time\":4,"
		"\"memory\":1048576,\"cpus\":4,\"salt\":\"c2FsdA==\"}},\"1\":{\"type\":\"luks2\",\"key_size\":64,"
		"\"area\":{\"offset\":\"290816\",\"size\":\"258048\"}}},\"tokens\":{},\"segments\":{\"0\":{\"type\":"
		"\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\",\"iv_tweak\":\"0\",\"encryption\":"
		"\"aes-xts-plain64\",\"sector_size\":512}},\"digests\":{\"0\":{\"type\":\"pbkdf2\",\"keyslots\":[\"0\",\"1\"],"
		"\"segments\":[\"0\"],\"hash\":\"sha256\",\"iterations\":1000}},\"config\":{\"json_size\":\"12288\","
		"\"keyslots_size\":\"16744448\"}}\0\0\0\0";
	struct er_json root, slots, key, slot, a, seg, dig, arr, el;
	struct er_json_iter it;
	uint64_t u, want_off[2] = { 32768, 290816 };
	char name[16];
	size_t n;
	assert_int_equal(er_json_parse(area, sizeof(area), &root, NULL), ER_JSON_OK);
	assert_int_equal(er_json_get_type(&root, "keyslots", ER_JSON_OBJECT, &slots), ER_JSON_OK);
	assert_int_equal(er_json_count(&slots), 2);
	er_json_iter_init(&it, &slots);
	while (er_json_next(&it, &key, &slot) > 0) {
		assert_int_equal(er_json_u64_text(&key, &u), ER_JSON_OK);
		assert_int_equal(u, it.index - 1);
		assert_int_equal(er_json_get_type(&slot, "area", ER_JSON_OBJECT, &a), ER_JSON_OK);
		assert_int_equal(er_json_get_u64(&a, "offset", &u), ER_JSON_OK);
		assert_int_equal(u, want_off[it.index - 1]);
		assert_int_equal(er_json_get_u64(&slot, "key_size", &u), ER_JSON_OK);
		assert_int_equal(u, 64);
	}
	assert_int_equal(it.index, 2);
	assert_int_equal(er_json_get_type(&root, "segments", ER_JSON_OBJECT, &seg), ER_JSON_OK);
	assert_int_equal(er_json_get_type(&seg, "0", ER_JSON_OBJECT, &seg), ER_JSON_OK);
	assert_int_equal(er_json_get_u64(&seg, "offset", &u), ER_JSON_OK);
	assert_int_equal(u, 16777216);
	assert_int_equal(er_json_get_u64(&seg, "size", &u), ER_JSON_E_RANGE);   /* "dynamic" */
	assert_int_equal(er_json_get_string(&seg, "size", name, sizeof(name), &n), ER_JSON_OK);
	assert_string_equal(name, "dynamic");
	assert_int_equal(er_json_get_string(&seg, "encryption", name, sizeof(name), &n), ER_JSON_OK);
	assert_string_equal(name, "aes-xts-plain64");
	assert_int_equal(er_json_get_type(&root, "digests", ER_JSON_OBJECT, &dig), ER_JSON_OK);
	assert_int_equal(er_json_get(&dig, "0", &dig), ER_JSON_OK);
	assert_int_equal(er_json_get_type(&dig, "keyslots", ER_JSON_ARRAY, &arr), ER_JSON_OK);
	assert_int_equal(er_json_count(&arr), 2);
	assert_int_equal(er_json_index(&arr, 1, &el), ER_JSON_OK);
	assert_true(er_json_streq(&el, "1"));
	assert_int_equal(er_json_index(&arr, 2, &el), ER_JSON_E_NOTFOUND);
	assert_int_equal(er_json_get_type(&root, "tokens", ER_JSON_OBJECT, &a), ER_JSON_OK);
	assert_int_equal(er_json_count(&a), 0);
	er_json_iter_init(&it, &a);
	assert_int_equal(er_json_next(&it, &key, &slot), 0);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e >= -9; e--)
		assert_string_not_equal(er_json_strerror(e), "unknown JSON error");
	assert_string_equal(er_json_strerror(-100), "unknown JSON error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python_oracle),
		cmocka_unit_test(test_u64_boundaries),
		cmocka_unit_test(test_depth_and_members),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_duplicates_and_lookup),
		cmocka_unit_test(test_document_edges),
		cmocka_unit_test(test_luks2_shape),
		cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
