// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for tools/efiresume-efivar.c, the installer's reader of binary EFI variables.
 * Load options are made by libefiboot (efi_loadopt_create, efidp_make_hd/file/vendor/end,
 * efi_loadopt_args_as_ucs2/utf8: what efibootmgr writes) and read back both by the helper
 * and by libefiboot's own readers (efi_loadopt_desc, efi_loadopt_path,
 * efi_loadopt_optional_data) as the oracle; malformed ones are made by hand (truncated at
 * every length, lengths past the end, no End node, a node of length 0 or 3, odd UCS-2
 * lengths). The program's main is left out (EFV_NO_MAIN). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define EFV_NO_MAIN
#include "tools/efiresume-efivar.c"

/* ------------------------------------------------------------------ building options */
struct opt {
	uint8_t v[8192]; /* efivarfs form: 4 attribute bytes, then the load option */
	size_t len;
};

static uint8_t dp[4096];
static ssize_t dpl;

static const uint8_t sig[16] = { 0x4a, 0x1e, 0x9f, 0x0c, 0x7d, 0x3b, 0x62, 0x4e,
				 0x9a, 0x51, 0x7d, 0x1c, 0x2b, 0x3e, 0x4f, 0x50 };
#define SIG_TEXT "0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f50"

static void dp_hd(int gpt, uint32_t part)
{
	ssize_t n = efidp_make_hd(dp + dpl, (ssize_t)sizeof dp - dpl, part, 2048, 1048576, (uint8_t *)sig,
				  gpt ? EFIDP_HD_FORMAT_GPT : EFIDP_HD_FORMAT_PCAT,
				  gpt ? EFIDP_HD_SIGNATURE_GUID : EFIDP_HD_SIGNATURE_MBR);
	assert_true(n > 0);
	dpl += n;
}

static void dp_file(const char *f)
{
	ssize_t n = efidp_make_file(dp + dpl, (ssize_t)sizeof dp - dpl, (char *)f);
	assert_true(n > 0);
	dpl += n;
}

static void dp_end(void)
{
	ssize_t n = efidp_make_end_entire(dp + dpl, (ssize_t)sizeof dp - dpl);
	assert_true(n > 0);
	dpl += n;
}

static void dp_end_instance(void)
{
	ssize_t n = efidp_make_end_instance(dp + dpl, (ssize_t)sizeof dp - dpl);
	assert_true(n > 0);
	dpl += n;
}

/* the option with the path built so far (then reset); KIND: 0, 'u' (efibootmgr -u), 'a' */
static void make(struct opt *o, const char *desc, int kind, const char *args)
{
	uint8_t data[1024];
	ssize_t dl = 0;
	if (kind == 'u') {
		dl = efi_loadopt_args_as_ucs2(NULL, 0, (uint8_t *)args);
		assert_true(dl > 0 && dl <= (ssize_t)sizeof data);
		assert_true(efi_loadopt_args_as_ucs2((uint16_t *)data, dl, (uint8_t *)args) >= 0);
	} else if (kind == 'a') {
		dl = efi_loadopt_args_as_utf8(data, sizeof data, (uint8_t *)args);
		assert_true(dl > 0);
	}
	memset(o, 0, sizeof *o);
	o->v[0] = 7;
	ssize_t sz = efi_loadopt_create(NULL, 0, 1 /* LOAD_OPTION_ACTIVE */, (efidp)dp, dpl, (unsigned char *)desc,
					dl ? data : NULL, (size_t)dl);
	assert_true(sz > 0 && (size_t)sz <= sizeof o->v - 4);
	assert_int_equal(efi_loadopt_create(o->v + 4, sz, 1 /* LOAD_OPTION_ACTIVE */, (efidp)dp, dpl,
					    (unsigned char *)desc, dl ? data : NULL, (size_t)dl), sz);
	o->len = 4 + (size_t)sz;
	dpl = 0;
}

/* the helper's answer on V; returns its status, the output in OUT (static) */
static char out_text[65536];
static int run_lo(const uint8_t *v, size_t len)
{
	struct efv_out o = { 0 };
	int rc = efv_load_option(v, len, &o);
	assert_false(o.oom);
	assert_true(o.len < sizeof out_text);
	memcpy(out_text, o.s ? o.s : "", o.len);
	out_text[o.len] = '\0';
	out_free(&o);
	return rc;
}

/* the value of KEY in out_text */
static const char *field(const char *key)
{
	static char val[4096];
	size_t kl = strlen(key);
	for (const char *l = out_text; *l; ) {
		const char *e = strchr(l, '\n');
		assert_non_null(e);
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			size_t n = (size_t)(e - l) - kl - 1;
			assert_true(n < sizeof val);
			memcpy(val, l + kl + 1, n);
			val[n] = '\0';
			return val;
		}
		l = e + 1;
	}
	fail_msg("no %s= line in: %s", key, out_text);
	return NULL;
}

/* ------------------------------------------------------------------ load options from libefiboot */
static void test_libefiboot_option(void **state)
{
	(void)state;
	static struct opt o;
	dp_hd(1, 1);
	dp_file("\\EFI\\efiresume\\efiresume.efi");
	dp_end();
	make(&o, "efiresume", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(out_text, "desc=efiresume\npath=\\EFI\\efiresume\\efiresume.efi\npart=1\n"
				      "partguid=" SIG_TEXT "\noptkind=none\nopt=\n");

	/* the oracle: libefiboot's readers on the same, valid, option */
	efi_load_option *lo = (efi_load_option *)(o.v + 4);
	size_t sz = o.len - 4;
	assert_true(efi_loadopt_is_valid(lo, sz));
	assert_string_equal((const char *)efi_loadopt_desc(lo, (ssize_t)sz / 2), "efiresume");
	efidp path = efi_loadopt_path(lo, (ssize_t)sz);
	assert_non_null(path);
	char text[512];
	assert_true(efidp_format_device_path((char *)text, sizeof text, path, efi_loadopt_pathlen(lo, (ssize_t)sz)) > 0);
	assert_non_null(strstr(text, "HD(1,GPT," SIG_TEXT ",0x800,0x100000)/File(\\EFI\\efiresume\\efiresume.efi)"));
	unsigned char *od = NULL;
	size_t odl = 99;
	assert_int_equal(efi_loadopt_optional_data(lo, sz, &od, &odl), 0);
	assert_int_equal(odl, 0);
}

static void test_libefiboot_optional_data(void **state)
{
	(void)state;
	static struct opt o;
	/* efibootmgr -u: UCS-2, as the installer writes efiresume's and the fallback's options */
	dp_hd(1, 2);
	dp_file("\\EFI\\debian\\vmlinuz.efi");
	dp_end();
	make(&o, "D\xc3\xa9""bian \xc3\xbc", 'u', "root=/dev/vda3\tro caf\xc3\xa9");
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("desc"), "D\xc3\xa9""bian \xc3\xbc");
	assert_string_equal(field("optkind"), "text");
	assert_string_equal(field("opt"), "root=/dev/vda3 ro caf\xc3\xa9");
	/* libefiboot agrees on the description and on where the optional data starts */
	efi_load_option *lo = (efi_load_option *)(o.v + 4);
	assert_string_equal((const char *)efi_loadopt_desc(lo, (ssize_t)(o.len - 4) / 2), "D\xc3\xa9""bian \xc3\xbc");
	unsigned char *od;
	size_t odl;
	assert_int_equal(efi_loadopt_optional_data(lo, o.len - 4, &od, &odl), 0);
	assert_int_equal(odl, 2 * strlen("root=/dev/vda3\tro cafe"));

	/* three-byte characters: whatever libefiboot wrote, the helper reads as libefiboot
	 * does (efivar 37's utf8_to_ucs2 stores U+2603 as U+0E03: its shift is 10, not 12) */
	dp_end();
	make(&o, "\xe2\x98\x83 \xe4\xb8\xad", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	lo = (efi_load_option *)(o.v + 4);
	assert_string_equal(field("desc"), (const char *)efi_loadopt_desc(lo, (ssize_t)(o.len - 4) / 2));

	/* efibootmgr without -u: the bytes */
	dp_hd(1, 1);
	dp_file("\\EFI\\debian\\vmlinuz.efi");
	dp_end();
	make(&o, "stub", 'a', "initrd=\\initrd.img\troot=/dev/vda3");
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("optkind"), "ascii");
	assert_string_equal(field("opt"), "initrd=\\initrd.img root=/dev/vda3");
}

static void test_libefiboot_paths(void **state)
{
	(void)state;
	static struct opt o;
	dp_hd(0, 3); /* MBR: a partition number, no GUID */
	dp_file("\\EFI\\BOOT\\BOOTX64.EFI");
	dp_end();
	make(&o, "mbr", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("part"), "3");
	assert_string_equal(field("partguid"), "");

	dp_hd(1, 1); /* two File nodes: joined with one backslash */
	dp_file("\\EFI");
	dp_file("debian\\grubx64.efi");
	dp_end();
	make(&o, "two", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("path"), "\\EFI\\debian\\grubx64.efi");

	dp_hd(1, 1); /* forward slashes */
	dp_file("/EFI/x/y.efi");
	dp_end();
	make(&o, "fwd", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("path"), "\\EFI\\x\\y.efi");

	dp_hd(1, 1); /* two instances: the first one's file */
	dp_file("\\EFI\\a.efi");
	dp_end_instance();
	dp_hd(1, 2);
	dp_file("\\EFI\\b.efi");
	dp_end();
	make(&o, "inst", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(field("path"), "\\EFI\\a.efi");
	assert_string_equal(field("part"), "1");

	uint8_t data[2] = { 1, 2 }; /* a vendor node only (OVMF's UiApp is a firmware file) */
	ssize_t n = efidp_make_vendor(dp, sizeof dp, EFIDP_MEDIA_TYPE, EFIDP_MEDIA_VENDOR, efi_guid_x509_cert, data, 2);
	assert_true(n > 0);
	dpl = n;
	dp_end();
	make(&o, "UiApp", 0, NULL);
	assert_int_equal(run_lo(o.v, o.len), 0);
	assert_string_equal(out_text, "desc=UiApp\npath=\npart=\npartguid=\noptkind=none\nopt=\n");
}

/* every prefix of a real option: status 1 exactly when under 10 bytes or when the file
 * path list does not fit; never a read past the end (ASan: the prefix is a fresh copy) */
static void test_truncated_at_every_length(void **state)
{
	(void)state;
	static struct opt o;
	dp_hd(1, 1);
	dp_file("\\EFI\\efiresume\\efiresume.efi");
	dp_end();
	make(&o, "efiresume", 'u', "resume");
	size_t desc_end = 4 + 6 + 2 * (strlen("efiresume") + 1);
	size_t fplen = le16(o.v + 8);
	for (size_t l = 0; l <= o.len; l++) {
		uint8_t *copy = malloc(l ? l : 1);
		assert_non_null(copy);
		memcpy(copy, o.v, l);
		int rc = run_lo(copy, l);
		int want;
		if (l < 10)
			want = 1;
		else if (l < desc_end) /* the description unterminated: the path must be empty */
			want = 2 * ((l - 10) / 2) + 10 + fplen > l ? 1 : 0;
		else
			want = desc_end + fplen > l ? 1 : 0;
		assert_int_equal(rc, want);
		if (rc == 0 && l >= desc_end)
			assert_string_equal(field("path"), "\\EFI\\efiresume\\efiresume.efi");
		free(copy);
	}
}

/* ------------------------------------------------------------------ hand-made malformed options */
static size_t put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); return 2; }
static size_t put_ucs2(uint8_t *p, const char *s, int nul)
{
	size_t n = 0;
	for (; *s; s++)
		n += put16(p + n, (uint8_t)*s);
	if (nul)
		n += put16(p + n, 0);
	return n;
}
static size_t put_node(uint8_t *p, uint8_t type, uint8_t sub, uint16_t len) { p[0] = type; p[1] = sub; put16(p + 2, len); return 4; }

/* an option: desc "d", the FP bytes with FPLEN in the header, then EXTRA bytes */
static size_t hand(uint8_t *v, const uint8_t *fp, size_t fpn, size_t fplen, const uint8_t *extra, size_t en)
{
	size_t n = 0;
	v[n++] = 7, v[n++] = 0, v[n++] = 0, v[n++] = 0;
	v[n++] = 1, v[n++] = 0, v[n++] = 0, v[n++] = 0;
	n += put16(v + n, (uint16_t)fplen);
	n += put_ucs2(v + n, "d", 1);
	memcpy(v + n, fp, fpn);
	n += fpn;
	if (en)
		memcpy(v + n, extra, en);
	return n + en;
}

static void test_malformed_paths(void **state)
{
	(void)state;
	uint8_t fp[256], v[512];
	size_t n, f;

	/* the file path list one byte past the end, and far past it */
	f = put_node(fp, 4, 4, 4 + 6);
	f += put_ucs2(fp + f, "\\a", 1);
	f += put_node(fp + f, 0x7f, 0xff, 4);
	n = hand(v, fp, f, f + 1, NULL, 0);
	assert_int_equal(run_lo(v, n), 1);
	n = hand(v, fp, f, 0xffff, NULL, 0);
	assert_int_equal(run_lo(v, n), 1);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "\\a");

	/* no End node: the File node is read all the same (as the perl did) */
	f = put_node(fp, 4, 4, 4 + 8);
	f += put_ucs2(fp + f, "\\ne", 1);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "\\ne");

	/* a node of length 0, of length 3, and one past the list: the walk stops there */
	f = put_node(fp, 4, 4, 0);
	f += put_ucs2(fp + f, "\\x", 1);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "");
	f = put_node(fp, 0x7f, 0xff, 0); /* efidp_is_valid would spin on this one */
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "");
	f = put_node(fp, 4, 4, 40);
	f += put_ucs2(fp + f, "\\x", 1);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "");

	/* an odd-length file name: the last byte is not a character */
	f = put_node(fp, 4, 4, 4 + 4 + 1);
	f += put_ucs2(fp + f, "\\o", 0);
	fp[f++] = 'Z';
	f += put_node(fp + f, 0x7f, 0xff, 4);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "\\o");

	/* an HD node shorter than 42 bytes: no partition */
	f = put_node(fp, 4, 1, 41);
	memset(fp + f, 0x02, 37);
	f += 37;
	f += put_node(fp + f, 0x7f, 0xff, 4);
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("part"), "");

	/* control characters as '?', a lone surrogate as the perl wrote it (ED A0 80) */
	f = put_node(fp, 4, 4, 4 + 8);
	put16(fp + f, '\\'), put16(fp + f + 2, '\n'), put16(fp + f + 4, 0xd800), put16(fp + f + 6, 0);
	f += 8;
	n = hand(v, fp, f, f, NULL, 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("path"), "\\?\xed\xa0\x80");
}

static void test_malformed_descriptions_and_data(void **state)
{
	(void)state;
	uint8_t v[64];
	size_t n = 0;
	/* the description runs to the end, unterminated, an odd byte after it */
	memcpy(v, "\7\0\0\0\1\0\0\0\0\0", 10);
	n = 10 + put_ucs2(v + 10, "abc", 0);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("desc"), "abc");
	assert_string_equal(field("optkind"), "none");
	v[n++] = 'x';
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("desc"), "abc");
	assert_string_equal(field("optkind"), "ascii"); /* the odd byte, as the perl took it */
	assert_string_equal(field("opt"), "x");
	assert_int_equal(run_lo(v, 9), 1);

	/* optional data: odd-length UCS-2 is binary; a final NUL or two */
	uint8_t fp[4];
	put_node(fp, 0x7f, 0xff, 4);
	uint8_t data[32];
	size_t dl = put_ucs2(data, "ro", 0);
	data[dl++] = 'r';
	n = hand(v, fp, 4, 4, data, dl);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("optkind"), "binary");
	assert_string_equal(field("opt"), "");
	n = hand(v, fp, 4, 4, (const uint8_t *)"ro\0", 3);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("optkind"), "ascii");
	assert_string_equal(field("opt"), "ro");
	n = hand(v, fp, 4, 4, (const uint8_t *)"ro\0\0", 4); /* as UCS-2: U+6F72 (the perl's reading too) */
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("optkind"), "text");
	assert_string_equal(field("opt"), "\xe6\xbd\xb2");
	n = hand(v, fp, 4, 4, (const uint8_t *)"\0", 1);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("optkind"), "binary");
	dl = put_ucs2(data, "a\x01", 0); /* a control character: not text */
	n = hand(v, fp, 4, 4, data, dl);
	assert_int_equal(run_lo(v, n), 0);
	assert_string_equal(field("optkind"), "binary");
}

/* ------------------------------------------------------------------ the other subcommands */
static void test_u16_and_order(void **state)
{
	(void)state;
	const uint8_t v[] = { 7, 0, 0, 0, 0x0a, 0x00, 0xcd, 0xab, 0x01 };
	struct efv_out o = { 0 };
	assert_int_equal(efv_var_u16(v, 5, &o), 0);
	assert_int_equal(o.len, 0);
	assert_int_equal(efv_var_u16(v, 6, &o), 0);
	assert_string_equal(o.s, "000A\n");
	out_free(&o);
	assert_int_equal(efv_boot_order(v, 9, &o), 0);
	assert_string_equal(o.s, "000A,ABCD\n");
	out_free(&o);
	assert_int_equal(efv_boot_order(v, 3, &o), 0);
	assert_string_equal(o.s, "\n");
	out_free(&o);
}

struct certs {
	unsigned n;
	size_t len[8];
	uint8_t first[8];
	int fail_at;
};
static int collect(void *ctx, unsigned idx, const uint8_t *der, size_t len)
{
	struct certs *c = ctx;
	if ((int)idx == c->fail_at)
		return -1;
	assert_int_equal(idx, c->n);
	if (c->n < 8) {
		c->len[c->n] = len;
		c->first[c->n] = len ? der[0] : 0;
	}
	c->n++;
	return 0;
}

static size_t esl(uint8_t *p, const efi_guid_t *type, uint32_t ls, uint32_t hs, uint32_t ss)
{
	memcpy(p, type, 16);
	p[16] = (uint8_t)ls, p[17] = (uint8_t)(ls >> 8), p[18] = (uint8_t)(ls >> 16), p[19] = (uint8_t)(ls >> 24);
	p[20] = (uint8_t)hs, p[21] = (uint8_t)(hs >> 8), p[22] = (uint8_t)(hs >> 16), p[23] = (uint8_t)(hs >> 24);
	p[24] = (uint8_t)ss, p[25] = (uint8_t)(ss >> 8), p[26] = (uint8_t)(ss >> 16), p[27] = (uint8_t)(ss >> 24);
	return 28;
}

static void test_esl(void **state)
{
	(void)state;
	uint8_t v[512];
	memset(v, 0, sizeof v);
	size_t n = 4;
	/* a SHA-256 list (skipped), an X.509 list of two 20-byte entries with a 3-byte header,
	 * then a list whose size runs past the end (the walk stops) */
	n += esl(v + n, &efi_guid_sha256, 28 + 48, 0, 48);
	n += 48;
	n += esl(v + n, &efi_guid_x509_cert, 28 + 3 + 2 * 20, 3, 20);
	n += 3;
	for (int i = 0; i < 2; i++) {
		memset(v + n, 0xee, 16);
		memset(v + n + 16, 0x30 + i, 4);
		n += 20;
	}
	size_t past = n;
	n += esl(v + n, &efi_guid_x509_cert, 28 + 20 + 1, 0, 20);
	memset(v + n, 0x41, 20);
	n += 20;
	struct certs c = { .fail_at = -1 };
	assert_int_equal(efv_esl_certs(v, n, collect, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.len[0], 4);
	assert_int_equal(c.first[0], 0x30);
	assert_int_equal(c.first[1], 0x31);
	/* every truncation: never past the end, never more than those */
	for (size_t l = 0; l <= n; l++) {
		uint8_t *copy = malloc(l ? l : 1);
		memcpy(copy, v, l);
		struct certs t = { .fail_at = -1 };
		assert_int_equal(efv_esl_certs(copy, l, collect, &t), 0);
		assert_true(t.n <= 2);
		assert_int_equal(t.n, l >= past ? 2 : 0);
		free(copy);
	}
	/* huge header and signature sizes: nothing, no overflow */
	n = 4 + esl(v + 4, &efi_guid_x509_cert, 28 + 20, 0xffffffffu, 20) + 20;
	c = (struct certs){ .fail_at = -1 };
	assert_int_equal(efv_esl_certs(v, n, collect, &c), 0);
	assert_int_equal(c.n, 0);
	n = 4 + esl(v + 4, &efi_guid_x509_cert, 28 + 20, 0, 0xffffffffu) + 20;
	assert_int_equal(efv_esl_certs(v, n, collect, &c), 0);
	assert_int_equal(c.n, 0);
	/* the writer failing: status 1 */
	n = 4 + esl(v + 4, &efi_guid_x509_cert, 28 + 20, 0, 20) + 20;
	c = (struct certs){ .fail_at = 0 };
	assert_int_equal(efv_esl_certs(v, n, collect, &c), 1);
}

static void test_shim_vendor_cert(void **state)
{
	(void)state;
	uint8_t v[32] = { 4, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 'c', 'e', 'r', 't' };
	struct efv_out o = { 0 };
	assert_int_equal(efv_shim_vendor_cert(v, 20, &o), 0);
	assert_int_equal(o.len, 4);
	assert_memory_equal(o.s, "cert", 4);
	out_free(&o);
	assert_int_equal(efv_shim_vendor_cert(v, 19, &o), 1); /* one byte short */
	assert_int_equal(efv_shim_vendor_cert(v, 15, &o), 1);
	v[8] = 0xfc, v[9] = 0xff, v[10] = 0xff, v[11] = 0xff; /* offset + size wraps in 32 bits */
	assert_int_equal(efv_shim_vendor_cert(v, 20, &o), 1);
	v[0] = 0; /* size 0 */
	v[8] = 16, v[9] = 0, v[10] = 0, v[11] = 0;
	assert_int_equal(efv_shim_vendor_cert(v, 20, &o), 1);
	out_free(&o);
}

static const char *loc(const uint8_t *d, size_t n, int utf16)
{
	static uint8_t v[4 + 70000];
	struct efv_out o = { 0 };
	assert_true(n <= sizeof v - 4);
	memcpy(v, "\7\0\0\0", 4);
	memcpy(v + 4, d, n);
	assert_int_equal(efv_decode_location(v, 4 + n, utf16, &o), 0);
	assert_true(o.len < sizeof out_text);
	memcpy(out_text, o.s ? o.s : "", o.len);
	out_text[o.len] = '\0';
	out_free(&o);
	return out_text;
}

static void test_location(void **state)
{
	(void)state;
	const char j[] = "{\"uuid\":\"5B3A0C9E-1122-4344-8566-778899AABBCC\",\"offset\":34816,\"kernelVersion\":\"6.12\"}";
	assert_string_equal(loc((const uint8_t *)j, sizeof j, 0),
			    "json={\"uuid\":\"5B3A0C9E-1122-4344-8566-778899AABBCC\",\"offset\":34816,\"kernelVersion\":\"6.12\"}\n"
			    "uuid=5b3a0c9e-1122-4344-8566-778899aabbcc\noffset=34816\nkernel=6.12\n");
	/* UTF-16LE: a surrogate pair joined, a lone one refused, a NUL inside refused */
	const uint8_t pair[] = { '"', 0, 0x3d, 0xd8, 0x00, 0xde, '"', 0, 0, 0 };
	assert_string_equal(loc(pair, sizeof pair, 1), "json=\"\xf0\x9f\x98\x80\"\n");
	const uint8_t lone[] = { '"', 0, 0x3d, 0xd8, '"', 0 };
	assert_string_equal(loc(lone, sizeof lone, 1), "error=an unpaired surrogate\n");
	const uint8_t nul[] = { 'a', 0, 0, 0, 'b', 0 };
	assert_string_equal(loc(nul, sizeof nul, 1), "error=a NUL before the end\n");
	assert_string_equal(loc(nul, 5, 1), "error=an odd number of bytes for UTF-16LE\n");
	assert_string_equal(loc(nul, 0, 1), "error=empty\n");
	/* UTF-8: malformed as Latin-1; Perl's extended forms kept */
	assert_string_equal(loc((const uint8_t *)"a\xc0\x80", 3, 0), "json=a\xc3\x80\xc2\x80\n");
	assert_string_equal(loc((const uint8_t *)"\xed\xa0\x80", 3, 0), "json=\xed\xa0\x80\n");
	assert_string_equal(loc((const uint8_t *)"\xf8\x88\x80\x80\x80", 5, 0), "json=\xf8\x88\x80\x80\x80\n");
	assert_string_equal(loc((const uint8_t *)"a\0b\0\0", 5, 0), "json=a?b\n");
	/* offset: up to 20 digits, then not a word character */
	assert_string_equal(loc((const uint8_t *)"\"offset\": 12345678901234567890}", 31, 0),
			    "json=\"offset\": 12345678901234567890}\noffset=12345678901234567890\n");
	assert_string_equal(loc((const uint8_t *)"\"offset\":123456789012345678901", 30, 0),
			    "json=\"offset\":123456789012345678901\n");
	assert_string_equal(loc((const uint8_t *)"\"offset\":1_,\"offset\":2", 23, 0),
			    "json=\"offset\":1_,\"offset\":2\noffset=2\n");
	/* a key at the very end: nothing read past the decoded text (the buffer is exactly
	 * as long as the text here: ASCII, no final NUL) */
	assert_string_equal(loc((const uint8_t *)"\"kernelVersion\":", 16, 0), "json=\"kernelVersion\":\n");
	assert_string_equal(loc((const uint8_t *)"\"uuid\": ", 8, 0), "json=\"uuid\": \n");
	assert_string_equal(loc((const uint8_t *)"\"offset\":", 9, 0), "json=\"offset\":\n");
	/* json= is the first 1024 characters */
	static uint8_t big[3000];
	memset(big, 'x', sizeof big);
	const char *r = loc(big, sizeof big, 0);
	assert_int_equal(strlen(r), 5 + 1024 + 1);
}

static void test_out_cp_forms(void **state)
{
	(void)state;
	static const struct { uint64_t cp; const char *bytes; size_t n; } t[] = {
		{ 0x7f, "\x7f", 1 },
		{ 0x80, "\xc2\x80", 2 },
		{ 0xffff, "\xef\xbf\xbf", 3 },
		{ 0x10ffff, "\xf4\x8f\xbf\xbf", 4 },
		{ 0x200000, "\xf8\x88\x80\x80\x80", 5 },
		{ 0x4000000, "\xfc\x84\x80\x80\x80\x80", 6 },
		{ 0x80000000u, "\xfe\x82\x80\x80\x80\x80\x80", 7 },
		{ UINT64_C(1) << 36, "\xff\x80\x80\x80\x80\x80\x81\x80\x80\x80\x80\x80\x80", 13 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct efv_out o = { 0 };
		out_cp(&o, t[i].cp);
		assert_int_equal(o.len, t[i].n);
		assert_memory_equal(o.s, t[i].bytes, t[i].n);
		uint64_t back[2];
		size_t c = 0;
		assert_true(perl_utf8_decode((const uint8_t *)o.s, o.len, back, &c));
		assert_int_equal(c, 1);
		assert_true(back[0] == t[i].cp);
		out_free(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libefiboot_option),
		cmocka_unit_test(test_libefiboot_optional_data),
		cmocka_unit_test(test_libefiboot_paths),
		cmocka_unit_test(test_truncated_at_every_length),
		cmocka_unit_test(test_malformed_paths),
		cmocka_unit_test(test_malformed_descriptions_and_data),
		cmocka_unit_test(test_u16_and_order),
		cmocka_unit_test(test_esl),
		cmocka_unit_test(test_shim_vendor_cert),
		cmocka_unit_test(test_location),
		cmocka_unit_test(test_out_cp_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
