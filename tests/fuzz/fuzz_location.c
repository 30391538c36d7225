// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for loader/location.c (systemd's HibernateLocation, efiresume's
 * EfiresumeLocation).
 *
 * er_location_parse on an exactly sized heap copy of the input (ASan sees any read
 * beyond it). Checked against image/json read directly:
 *  - accepted only when the input is a JSON document whose top level is an object;
 *  - the parsed uuid, formatted, equals the "uuid" string (case-insensitively);
 *  - offset is the "offset" member's unsigned value (number or digit string), or 0
 *    when absent; an offset that is not one refuses the variable;
 *  - kernel is NUL-terminated within its array, and equals "kernelVersion" when that
 *    is a string without NUL that fits;
 *  - have_device/dev_major/dev_minor agree with a "device" string "MAJ:MIN" printed
 *    back, within Linux's dev_t limits;
 *  - luks and lv equal the "luks"/"lv" strings when those are well formed (1..40 of
 *    [0-9a-fA-F-]; 3..255 printable non-space bytes with one '/' inside), else "";
 *  - a refusal leaves the struct zeroed;
 *  - er_location_read(ER_LOC_UTF8) agrees with er_location_parse (1..4096 bytes).
 * The same bytes as UTF-16LE (HibernateLocation as systemd writes it), against a
 * separate strict decoder here (code points first, then UTF-8):
 *  - refused when the byte count is odd, 0 or above 4096, a surrogate is unpaired, or
 *    a NUL code unit comes before the last one;
 *  - otherwise the result is exactly er_location_read(ER_LOC_UTF8) of the decoded
 *    text, and an accepted variable has an "offset" member.
 * The filesystem UUID probe runs on the same bytes (padded) for bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loader/location.h"
#include "volume/json.h"

static const struct er_location zero;

/* the reference: UTF-16LE -> code points -> UTF-8; -1 when refused */
static long ref_utf16(const uint8_t *d, size_t size, char *out)
{
	static uint32_t cp[ER_LOCATION_MAX / 2];
	size_t units = size / 2, n = 0, o = 0;
	if (size == 0 || size > ER_LOCATION_MAX || size % 2)
		return -1;
	for (size_t i = 0; i < units; i++) {
		uint32_t u = (uint32_t)d[2 * i] | (uint32_t)d[2 * i + 1] << 8;
		if (u == 0) {
			if (i != units - 1)
				return -1;
			break;
		}
		if (u >= 0xd800 && u < 0xe000) {
			if (u >= 0xdc00 || i + 1 == units)
				return -1;
			uint32_t l = (uint32_t)d[2 * i + 2] | (uint32_t)d[2 * i + 3] << 8;
			if (l < 0xdc00 || l >= 0xe000)
				return -1;
			u = 0x10000 + ((u & 0x3ff) << 10 | (l & 0x3ff));
			i++;
		}
		cp[n++] = u;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t c = cp[i];
		if (c < 0x80) {
			out[o++] = (char)c;
		} else if (c < 0x800) {
			out[o++] = (char)(0xc0 | c >> 6);
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[o++] = (char)(0xe0 | c >> 12);
			out[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | c >> 18);
			out[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			out[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	return (long)o;
}

static void check_utf16(const uint8_t *data, size_t size)
{
	static char text[ER_LOCATION_MAX * 2];
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return;
	memcpy(buf, data, size);
	struct er_location h, w;
	const char *why = NULL;
	memset(&h, 0xa5, sizeof(h));
	bool ok = er_location_read(buf, size, ER_LOC_UTF16LE, &h, &why);
	if (!why || (ok && why[0]) || (!ok && !why[0]))
		abort();
	long n = ref_utf16(data, size, text);
	if (n < 0) {
		if (ok || memcmp(&h, &zero, sizeof(h)) != 0)
			abort();
	} else {
		char *t = malloc(n ? (size_t)n : 1);
		if (t) {
			memcpy(t, text, (size_t)n);
			/* (n == 0: "" is refused as not JSON, by either path) */
			bool want = n > 0 && er_location_read(t, (size_t)n, ER_LOC_UTF8, &w, NULL);
			struct er_json root, v;
			if (want && (er_json_parse(t, (size_t)n, &root, NULL) != ER_JSON_OK ||
				     er_json_get(&root, "offset", &v) != ER_JSON_OK))
				want = false;
			if (ok != want || (ok && memcmp(&h, &w, sizeof(h)) != 0) ||
			    (!ok && memcmp(&h, &zero, sizeof(h)) != 0))
				abort();
			free(t);
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct er_location h;
	memset(&h, 0xa5, sizeof(h));
	bool ok = er_location_parse(buf, size, &h);
	if (size >= 1 && size <= ER_LOCATION_MAX) {
		struct er_location r;
		memset(&r, 0x5a, sizeof(r));
		if (er_location_read(buf, size, ER_LOC_UTF8, &r, NULL) != ok || memcmp(&r, &h, sizeof(r)) != 0)
			abort();
	}
	check_utf16(data, size);

	struct er_json root, v;
	int jr = er_json_parse(buf, size, &root, NULL);
	if (!ok) {
		if (memcmp(&h, &zero, sizeof(h)) != 0)
			abort();
	} else {
		if (jr != ER_JSON_OK || root.type != ER_JSON_OBJECT)
			abort();
		char u[37], want[64];
		size_t n;
		er_uuid_format(h.uuid, u);
		if (er_json_get_string(&root, "uuid", want, sizeof(want), &n) != ER_JSON_OK || n != 36 ||
		    strcasecmp(u, want) != 0)
			abort();
		uint64_t off = 0;
		int r = er_json_get_u64(&root, "offset", &off);
		if (r == ER_JSON_E_NOTFOUND ? h.offset != 0 : (r != ER_JSON_OK || off != h.offset))
			abort();
		if (memchr(h.kernel, 0, sizeof(h.kernel)) == NULL)
			abort();
		char kv[sizeof(h.kernel)];
		if (er_json_get_string(&root, "kernelVersion", kv, sizeof(kv), &n) == ER_JSON_OK && strlen(kv) == n) {
			if (strcmp(kv, h.kernel) != 0)
				abort();
		} else if (h.kernel[0]) {
			abort();
		}
		char dev[64];
		r = er_json_get(&root, "device", &v);
		if (r == ER_JSON_E_NOTFOUND) {
			if (h.have_device || h.dev_major || h.dev_minor)
				abort();
		} else {
			if (!h.have_device || er_json_string(&v, dev, sizeof(dev), &n) != ER_JSON_OK)
				abort();
			if (h.dev_major >= 1u << 12 || h.dev_minor >= 1u << 20)
				abort();
			/* the text is MAJ:MIN in decimal, leading zeros allowed */
			const char *colon = memchr(dev, ':', n);
			if (!colon)
				abort();
			unsigned long ma = strtoul(dev, NULL, 10), mi = strtoul(colon + 1, NULL, 10);
			if (ma != h.dev_major || mi != h.dev_minor || dev[0] < '0' || dev[0] > '9' || colon[1] < '0' ||
			    colon[1] > '9')
				abort();
		}
		/* hints: equal to the member when it is a well-formed string, else "" */
		char hint[300];
		const char *keys[2] = { "luks", "lv" };
		const char *got[2] = { h.luks, h.lv };
		size_t caps[2] = { sizeof(h.luks), sizeof(h.lv) };
		for (int k = 0; k < 2; k++) {
			if (memchr(got[k], 0, caps[k]) == NULL)
				abort();
			bool good = er_json_get_string(&root, keys[k], hint, sizeof(hint), &n) == ER_JSON_OK && strlen(hint) == n;
			if (good && k == 0)
				good = n >= 1 && n <= 40 && strspn(hint, "0123456789abcdefABCDEF-") == n;
			if (good && k == 1) {
				const char *sl = strchr(hint, '/');
				good = n >= 3 && n <= 255 && sl && sl != hint && sl[1] && !strchr(sl + 1, '/');
				for (size_t i = 0; good && i < n; i++)
					good = hint[i] > 0x20 && hint[i] < 0x7f;
			}
			if (good ? strcmp(got[k], hint) != 0 : got[k][0] != 0)
				abort();
		}
	}

	/* the filesystem probe: the input at the start of a zeroed partition head */
	static uint8_t head[ER_FS_UUID_BYTES];
	uint8_t fsu[16];
	memset(head, 0, sizeof(head));
	memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
	size_t n = size < sizeof(head) ? size : sizeof(head);
	uint8_t *exact = malloc(n ? n : 1);
	if (exact) {
		memcpy(exact, head, n);
		er_fs_uuid(exact, n, fsu);
		free(exact);
	}
	free(buf);
	return 0;
}
