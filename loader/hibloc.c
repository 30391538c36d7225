/* HibernateLocation parsing; see hibloc.h. A small scanner, not a general JSON parser:
 * it walks the top-level object's members, skipping values it does not need. */
#include "loader/hibloc.h"

struct scan {
	const char *p, *end;
};

static void ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* A JSON string without escapes that matter to us; copies up to cap-1 bytes. */
static bool string(struct scan *s, char *out, size_t cap, size_t *len)
{
	size_t n = 0;
	if (s->p >= s->end || *s->p != '"')
		return false;
	s->p++;
	while (s->p < s->end && *s->p != '"') {
		char c = *s->p++;
		if (c == '\\') {
			if (s->p >= s->end)
				return false;
			c = *s->p++;
			if (c == 'u') {       /* \uXXXX: keep as '?' */
				if (s->end - s->p < 4)
					return false;
				s->p += 4;
				c = '?';
			}
		} else if ((unsigned char)c < 0x20) {
			return false;
		}
		if (out && n + 1 < cap)
			out[n] = c;
		n++;
	}
	if (s->p >= s->end)
		return false;
	s->p++;
	if (out && cap)
		out[n < cap ? n : cap - 1] = 0;
	if (len)
		*len = n;
	return true;
}

/* Skip any value (string, number, literal, nested array/object). */
static bool skip_value(struct scan *s)
{
	int depth = 0;
	ws(s);
	do {
		if (s->p >= s->end)
			return false;
		char c = *s->p;
		if (c == '"') {
			if (!string(s, NULL, 0, NULL))
				return false;
		} else if (c == '{' || c == '[') {
			depth++;
			s->p++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return false;
			depth--;
			s->p++;
		} else {
			s->p++;
		}
		ws(s);
	} while (depth > 0);
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "5b3a0c9e-...": 36 characters, big-endian byte order (libuuid text order) */
static bool uuid_parse(const char *t, size_t n, uint8_t out[16])
{
	size_t b = 0;
	if (n != 36)
		return false;
	for (size_t i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (t[i] != '-')
				return false;
			i++;
			continue;
		}
		int hi = hexval(t[i]), lo = hexval(t[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[b++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return true;
}

bool er_hibloc_parse(const char *buf, size_t len, struct er_hibloc *out)
{
	struct scan s = { buf, buf + len };
	bool have_uuid = false;

	er_memset(out, 0, sizeof(*out));
	while (s.end > s.p && s.end[-1] == 0)
		s.end--;
	ws(&s);
	if (s.p >= s.end || *s.p != '{')
		return false;
	s.p++;
	ws(&s);
	if (s.p < s.end && *s.p == '}')
		return false;
	for (;;) {
		char key[32], val[80];
		size_t vlen;
		ws(&s);
		if (!string(&s, key, sizeof(key), NULL))
			return false;
		ws(&s);
		if (s.p >= s.end || *s.p != ':')
			return false;
		s.p++;
		ws(&s);
		if (er_memcmp(key, "uuid", 5) == 0) {
			if (!string(&s, val, sizeof(val), &vlen) || !uuid_parse(val, vlen, out->uuid))
				return false;
			have_uuid = true;
		} else if (er_memcmp(key, "kernelVersion", 14) == 0 && s.p < s.end && *s.p == '"') {
			if (!string(&s, out->kernel, sizeof(out->kernel), NULL))
				return false;
		} else if (er_memcmp(key, "offset", 7) == 0) {
			uint64_t v = 0;
			size_t digits = 0;
			while (s.p < s.end && *s.p >= '0' && *s.p <= '9' && digits < 20) {
				v = v * 10 + (uint64_t)(*s.p++ - '0');
				digits++;
			}
			if (digits == 0)
				return false;
			out->offset = v;
		} else if (!skip_value(&s)) {
			return false;
		}
		ws(&s);
		if (s.p < s.end && *s.p == ',') {
			s.p++;
			continue;
		}
		if (s.p < s.end && *s.p == '}')
			return have_uuid;
		return false;
	}
}

void er_swap_uuid(const uint8_t *page0, uint8_t out[16])
{
	er_memcpy(out, page0 + 1036, 16);
}

const char *er_fs_uuid(const uint8_t *p, size_t n, uint8_t out[16])
{
	/* ext2/3/4: superblock at 1024, s_magic 0xEF53 at +0x38, s_uuid at +0x68 */
	if (n >= 2048 && er_le16(p + 1024 + 0x38) == 0xEF53) {
		er_memcpy(out, p + 1024 + 0x68, 16);
		return "ext4";
	}
	/* XFS: superblock at 0, "XFSB", sb_uuid at 32 */
	if (n >= 512 && er_memcmp(p, "XFSB", 4) == 0) {
		er_memcpy(out, p + 32, 16);
		return "xfs";
	}
	/* Btrfs: superblock at 64 KiB, fsid at +0x20, magic "_BHRfS_M" at +0x40 */
	if (n >= ER_FS_UUID_BYTES && er_memcmp(p + 65536 + 0x40, "_BHRfS_M", 8) == 0) {
		er_memcpy(out, p + 65536 + 0x20, 16);
		return "btrfs";
	}
	return NULL;
}

void er_uuid_format(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t b = 0; b < 16; b++) {
		if (b == 4 || b == 6 || b == 8 || b == 10)
			out[o++] = '-';
		out[o++] = hex[u[b] >> 4];
		out[o++] = hex[u[b] & 15];
	}
	out[o] = 0;
}
