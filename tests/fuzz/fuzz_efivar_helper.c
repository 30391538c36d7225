// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for tools/efiresume-efivar.c (the installer's reader of binary EFI
 * variables). The first byte picks the subcommand; the rest, on an exactly sized heap copy
 * (ASan sees any read beyond it), is the variable. Checked:
 *  - var-u16: nothing under 6 bytes, else 4 hex digits and a newline;
 *  - boot-order: one "XXXX" per whole u16 after the 4 attribute bytes, commas between,
 *    a newline;
 *  - load-option: status 1 exactly when under 10 bytes or when the file path list runs
 *    past the end (worked out here on its own); else the six key=value lines in order,
 *    optkind one of none|text|ascii|binary, and no byte under 0x20 but the newlines;
 *  - esl-certs: every certificate lies inside the input, numbered from 0, none after a
 *    failing writer;
 *  - shim-vendor-cert: status 0 exactly when the header fits, the size is not 0 and the
 *    certificate fits; its output is those bytes;
 *  - decode-location (both encodings): status 0, lines of json=/uuid=/offset=/kernel=, or
 *    a single error= line, no byte under 0x20 but the newlines, json= at most 1024
 *    characters (13 bytes each at most). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EFV_NO_MAIN
#include "tools/efiresume-efivar.c"

struct ctx {
	const uint8_t *lo, *hi;
	unsigned next;
	unsigned fail_at;
};

static int emit(void *p, unsigned idx, const uint8_t *der, size_t len)
{
	struct ctx *c = p;
	if (idx != c->next || der < c->lo || der > c->hi || len > (size_t)(c->hi - der))
		abort();
	if (len)
		{ volatile uint8_t t = der[0] ^ der[len - 1]; (void)t; } /* ASan: inside the copy */
	c->next++;
	return idx == c->fail_at ? -1 : 0;
}

static void no_controls_but_newlines(const struct efv_out *o)
{
	for (size_t i = 0; i < o->len; i++)
		if ((unsigned char)o->s[i] < 0x20 && o->s[i] != '\n')
			abort();
	if (o->len && o->s[o->len - 1] != '\n')
		abort();
}

static size_t count_lines(const struct efv_out *o)
{
	size_t n = 0;
	for (size_t i = 0; i < o->len; i++)
		n += o->s[i] == '\n';
	return n;
}

static void load_option(const uint8_t *v, size_t len)
{
	struct efv_out o = { 0 };
	int rc = efv_load_option(v, len, &o);
	int want = 0;
	if (len < 10) {
		want = 1;
	} else {
		size_t p = 10, fplen = (size_t)v[8] | (size_t)v[9] << 8;
		while (p + 2 <= len) {
			int nul = !v[p] && !v[p + 1];
			p += 2;
			if (nul)
				break;
		}
		want = p + fplen > len;
	}
	if (o.oom || rc != want)
		abort();
	if (!rc) {
		static const char *const keys[] = { "desc=", "path=", "part=", "partguid=", "optkind=", "opt=" };
		const char *l = o.s;
		no_controls_but_newlines(&o);
		if (count_lines(&o) != 6)
			abort();
		for (int k = 0; k < 6; k++) {
			if (strncmp(l, keys[k], strlen(keys[k])))
				abort();
			if (k == 4) {
				const char *kind = l + strlen(keys[k]);
				if (strncmp(kind, "none\n", 5) && strncmp(kind, "text\n", 5) &&
				    strncmp(kind, "ascii\n", 6) && strncmp(kind, "binary\n", 7))
					abort();
			}
			l = strchr(l, '\n') + 1;
		}
	}
	out_free(&o);
}

static void decode_location(const uint8_t *v, size_t len, int utf16)
{
	struct efv_out o = { 0 };
	if (efv_decode_location(v, len, utf16, &o) != 0 || o.oom || !o.len)
		abort();
	no_controls_but_newlines(&o);
	if (!strncmp(o.s, "error=", 6)) {
		if (count_lines(&o) != 1)
			abort();
	} else {
		if (strncmp(o.s, "json=", 5) || (size_t)(strchr(o.s, '\n') - o.s) > 5 + 13 * 1024)
			abort();
		for (const char *l = strchr(o.s, '\n') + 1; *l; l = strchr(l, '\n') + 1)
			if (strncmp(l, "uuid=", 5) && strncmp(l, "offset=", 7) && strncmp(l, "kernel=", 7))
				abort();
	}
	out_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t len = size - 1;
	uint8_t *v = malloc(len ? len : 1);
	if (!v)
		return 0;
	memcpy(v, data + 1, len);
	struct efv_out o = { 0 };
	switch (data[0] % 7) {
	case 0:
		efv_var_u16(v, len, &o);
		if (o.len != (len < 6 ? 0u : 5u))
			abort();
		break;
	case 1: {
		efv_boot_order(v, len, &o);
		size_t n = len > 4 ? (len - 4) / 2 : 0;
		if (o.len != (n ? 5 * n : 1) || o.s[o.len - 1] != '\n')
			abort();
		break;
	}
	case 2:
		load_option(v, len);
		break;
	case 3: {
		struct ctx c = { v, v + len, 0, (unsigned)-1 };
		if (efv_esl_certs(v, len, emit, &c) != 0)
			abort();
		unsigned all = c.next;
		if (all) { /* a writer failing at the last one: status 1, nothing after it */
			c = (struct ctx){ v, v + len, 0, all - 1 };
			if (efv_esl_certs(v, len, emit, &c) != 1 || c.next != all)
				abort();
		}
		break;
	}
	case 4: {
		int rc = efv_shim_vendor_cert(v, len, &o);
		uint64_t sz = len >= 16 ? (uint64_t)v[0] | (uint64_t)v[1] << 8 | (uint64_t)v[2] << 16 | (uint64_t)v[3] << 24 : 0;
		uint64_t off = len >= 16 ? (uint64_t)v[8] | (uint64_t)v[9] << 8 | (uint64_t)v[10] << 16 | (uint64_t)v[11] << 24 : 0;
		int want = len < 16 || !sz || off + sz > len;
		if (rc != want || (!rc && (o.len != sz || memcmp(o.s, v + off, sz))))
			abort();
		break;
	}
	case 5:
		decode_location(v, len, 1);
		break;
	case 6:
		decode_location(v, len, 0);
		break;
	}
	out_free(&o);
	free(v);
	return 0;
}
