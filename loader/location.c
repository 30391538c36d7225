/* HibernateLocation parsing; see location.h. The variable is read with image/json: the
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

bool er_location_parse(const char *buf, size_t len, struct er_location *out)
{
	struct er_json root, v;
	char text[40];
	size_t n;
	int r;

	er_memset(out, 0, sizeof(*out));
	/* the whole document must be JSON: a value we do not use is still checked */
	if (er_json_parse(buf, len, &root, NULL) != ER_JSON_OK || root.type != ER_JSON_OBJECT)
		return false;

	if (er_json_get_string(&root, "uuid", text, sizeof(text), &n) != ER_JSON_OK ||
	    !er_uuid_text_parse(text, n, out->uuid))
		goto bad;

	/* absent: a swap partition; otherwise an unsigned 64-bit integer (overflow refuses) */
	r = er_json_get(&root, "offset", &v);
	if (r == ER_JSON_OK) {
		if (er_json_u64_any(&v, &out->offset) != ER_JSON_OK)
			goto bad;
	} else if (r != ER_JSON_E_NOTFOUND) {
		goto bad;
	}

	/* informational: a kernelVersion that is not a string or does not fit stays "" */
	if (er_json_get_string(&root, "kernelVersion", out->kernel, sizeof(out->kernel), &n) != ER_JSON_OK ||
	    er_strnlen(out->kernel, sizeof(out->kernel)) != n)
		out->kernel[0] = 0;

	/* efiresume's sleep hook also names the swap device: "device":"MAJ:MIN" */
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
	return true;
bad:
	er_memset(out, 0, sizeof(*out));
	return false;
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
