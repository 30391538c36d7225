// SPDX-License-Identifier: GPL-2.0-or-later
/* Location variable parsing; see location.h. The variable is read with image/json: the
 * whole document is validated (a value we do not use, a duplicate key, a number beyond
 * 2^64 - 1 all refuse it), then the members we know are looked up. */
#include "loader/location.h"
#include "volume/json.h"
#include "volume/guid.h"


/* "MAJ:MIN" in decimal, within Linux's dev_t (12-bit major, 20-bit minor) */
static bool devnum_parse(const char *t, size_t n, uint32_t *major, uint32_t *minor)
{
	uint32_t v[2] = { 0, 0 };
	size_t part = 0, digits = 0;
	static const uint32_t max[2] = { (1u << 12) - 1, (1u << 20) - 1 };

	for (size_t i = 0; i < n; i++) {
		if (t[i] == ':' && part == 0 && digits > 0) {
			part = 1;
			digits = 0;
			continue;
		}
		if (t[i] < '0' || t[i] > '9')
			return false;
		v[part] = v[part] * 10 + (uint32_t)(t[i] - '0');
		if (v[part] > max[part])
			return false;
		digits++;
	}
	if (part != 1 || digits == 0)
		return false;
	*major = v[0];
	*minor = v[1];
	return true;
}

/* "luks": 1..40 characters of [0-9a-fA-F-] (a LUKS header's UUID field holds 40 bytes) */
static bool luks_ok(const char *t, size_t n)
{
	if (n == 0 || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (t[i] != '-' && er_hexval(t[i]) < 0)
			return false;
	return true;
}

/* "lv": "<vg>/<lv>", printable ASCII without space, exactly one '/', neither side empty */
static bool lv_ok(const char *t, size_t n)
{
	size_t slash = n;
	if (n < 3 || n > 255)
		return false;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return false;
		if (t[i] == '/') {
			if (slash != n)
				return false;
			slash = i;
		}
	}
	return slash > 0 && slash + 1 < n;
}

/* A hint member: copied into out[cap] when it is a string that ok() accepts, else "" */
static void hint_member(const struct er_json *root, const char *key, char *out, size_t cap,
			bool (*ok)(const char *, size_t))
{
	size_t n;
	if (er_json_get_string(root, key, out, cap, &n) != ER_JSON_OK || n >= cap ||
	    er_strnlen(out, cap) != n || !ok(out, n))
		er_memset(out, 0, cap);
}

/* The JSON of either variable; why: the reason of a refusal. need_offset: refuse a
 * variable without "offset" (systemd's reader requires it in HibernateLocation). */
static bool parse(const char *buf, size_t len, bool need_offset, struct er_location *out, const char **why)
{
	struct er_json root, v;
	char text[40];
	size_t n;
	int r;

	er_memset(out, 0, sizeof(*out));
	/* the whole document must be JSON: a value we do not use is still checked */
	*why = "not one JSON object";
	if (er_json_parse(buf, len, &root, NULL) != ER_JSON_OK || root.type != ER_JSON_OBJECT)
		return false;

	*why = "no well-formed \"uuid\"";
	if (er_json_get_string(&root, "uuid", text, sizeof(text), &n) != ER_JSON_OK ||
	    !er_uuid_text_parse(text, n, out->uuid))
		goto bad;

	/* absent: a swap partition; otherwise an unsigned 64-bit integer (overflow refuses) */
	*why = "\"offset\" is not an unsigned 64-bit integer";
	r = er_json_get(&root, "offset", &v);
	if (r == ER_JSON_OK) {
		if (er_json_u64_any(&v, &out->offset) != ER_JSON_OK)
			goto bad;
	} else if (r != ER_JSON_E_NOTFOUND || need_offset) {
		if (r == ER_JSON_E_NOTFOUND)
			*why = "no \"offset\" (systemd always writes one)";
		goto bad;
	}

	/* informational: a kernelVersion that is not a string or does not fit stays "" */
	if (er_json_get_string(&root, "kernelVersion", out->kernel, sizeof(out->kernel), &n) != ER_JSON_OK ||
	    er_strnlen(out->kernel, sizeof(out->kernel)) != n)
		out->kernel[0] = 0;

	/* efiresume's sleep hook also names the swap device: "device":"MAJ:MIN" */
	*why = "\"device\" is not \"MAJ:MIN\"";
	r = er_json_get(&root, "device", &v);
	if (r == ER_JSON_OK) {
		if (er_json_string(&v, text, sizeof(text), &n) != ER_JSON_OK ||
		    !devnum_parse(text, n, &out->dev_major, &out->dev_minor))
			goto bad;
		out->have_device = true;
	} else if (r != ER_JSON_E_NOTFOUND) {
		goto bad;
	}

	/* efiresume's sleep hook: the LUKS container and the LV holding the swap (hints) */
	hint_member(&root, "luks", out->luks, sizeof(out->luks), luks_ok);
	hint_member(&root, "lv", out->lv, sizeof(out->lv), lv_ok);
	*why = "";
	return true;
bad:
	er_memset(out, 0, sizeof(*out));
	return false;
}

bool er_location_parse(const char *buf, size_t len, struct er_location *out)
{
	const char *why;
	return parse(buf, len, false, out, &why);
}

long er_utf16le_to_utf8(const uint8_t *in, size_t len, char *out, size_t cap, const char **why)
{
	size_t units = len / 2, o = 0;

	if (len % 2) {
		*why = "an odd number of bytes (not UTF-16)";
		return -1;
	}
	for (size_t i = 0; i < units; i++) {
		uint32_t c = er_le16(in + 2 * i);
		size_t need;

		if (c == 0) {
			/* the terminating NUL systemd writes; anything after it is not its text */
			if (i + 1 == units)
				break;
			*why = "a NUL before the end of the text";
			return -1;
		}
		if (c >= 0xdc00 && c <= 0xdfff) {
			*why = "an unpaired UTF-16 surrogate";
			return -1;
		}
		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo = i + 1 < units ? er_le16(in + 2 * (i + 1)) : 0;
			if (lo < 0xdc00 || lo > 0xdfff) {
				*why = "an unpaired UTF-16 surrogate";
				return -1;
			}
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i++;
		}
		need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
		if (cap - o < need) {
			*why = "too long";
			return -1;
		}
		switch (need) {
		case 1:
			out[o++] = (char)c;
			break;
		case 2:
			out[o++] = (char)(0xc0 | (c >> 6));
			out[o++] = (char)(0x80 | (c & 0x3f));
			break;
		case 3:
			out[o++] = (char)(0xe0 | (c >> 12));
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
			break;
		default:
			out[o++] = (char)(0xf0 | (c >> 18));
			out[o++] = (char)(0x80 | ((c >> 12) & 0x3f));
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
			break;
		}
	}
	*why = "";
	return (long)o;
}

bool er_location_read(const void *buf, size_t len, enum er_location_enc enc, struct er_location *out,
		      const char **why)
{
	/* UTF-8 from UTF-16: at most 3 bytes per 2 (a surrogate pair: 4 per 4) */
	char text[ER_LOCATION_MAX / 2 * 3];
	const char *w = "";
	bool ok = false;
	long n;

	er_memset(out, 0, sizeof(*out));
	if (len == 0)
		w = "empty";
	else if (len > ER_LOCATION_MAX)
		w = "longer than 4096 bytes";
	else if (enc == ER_LOC_UTF8)
		ok = parse(buf, len, false, out, &w);
	else if ((n = er_utf16le_to_utf8(buf, len, text, sizeof(text), &w)) >= 0)
		ok = parse(text, (size_t)n, true, out, &w);
	if (why)
		*why = w;
	return ok;
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

bool er_location_same_place(const struct er_location *a, const struct er_location *b)
{
	return er_memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0 && a->offset == b->offset;
}
