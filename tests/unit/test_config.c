// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/config.c (efiresume.conf parser). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "loader/config.h"
#include "loader/location.h"
#include <stdlib.h>
#include <unistd.h>

struct warnlog {
	unsigned n;
	unsigned line[16];
	char key[16][32];
	char reason[16][80];
};

static void collect(void *ctx, unsigned line, const char *key, const char *reason)
{
	struct warnlog *w = ctx;
	if (w->n < 16) {
		w->line[w->n] = line;
		snprintf(w->key[w->n], sizeof(w->key[0]), "%s", key);
		snprintf(w->reason[w->n], sizeof(w->reason[0]), "%s", reason);
	}
	w->n++;
}

static unsigned parse(struct er_config *c, struct warnlog *w, const char *text)
{
	er_config_defaults(c);
	memset(w, 0, sizeof(*w));
	return er_config_parse(c, text, strlen(text), collect, w);
}

static void test_defaults(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, ""), 0);
	assert_int_equal(c.timeout, 3);
	assert_string_equal(c.fallback, "");
	assert_string_equal(c.options, "");
	assert_false(c.have_resume);
	assert_false(c.dry_run);
}

static void test_full(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	const char *text =
		"# efiresume configuration\n"
		"timeout 0\n"
		"  fallback   \\EFI\\debian\\grubx64.efi  \r\n"
		"options initrd=\\initrd.gz console=ttyS0,115200 quiet # not a comment\n"
		"\n"
		"\t# indented comment\n"
		"resume PARTUUID=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F\n"
		"dry-run yes\n";
	assert_int_equal(parse(&c, &w, text), 0);
	assert_int_equal(c.timeout, 0);
	assert_string_equal(c.fallback, "\\EFI\\debian\\grubx64.efi");
	assert_string_equal(c.options, "initrd=\\initrd.gz console=ttyS0,115200 quiet # not a comment");
	assert_true(c.have_resume);
	static const uint8_t want[16] = { 0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43,
					  0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f };
	assert_memory_equal(c.resume_partuuid, want, 16);
	assert_true(c.dry_run);
}

static void test_slashes_and_relative(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, "fallback EFI/linux//vmlinuz.efi"), 0);
	assert_string_equal(c.fallback, "\\EFI\\linux\\vmlinuz.efi");
}

static void test_malformed(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	const char *text =
		"timeout 5\n"
		"timeout soon\n"         /* 2: not a number, keeps 5 */
		"timeout 99999\n"        /* 3: out of range */
		"colour blue\n"          /* 4: unknown key */
		"fallback\n"             /* 5: missing value */
		"resume /dev/sda2\n"     /* 6: unsupported device form */
		"resume PARTUUID=1234\n" /* 7: malformed guid */
		"dry-run perhaps\n"      /* 8 */
		"options ok\n";
	assert_int_equal(parse(&c, &w, text), 7);
	assert_int_equal(w.n, 7);
	unsigned lines[7] = { 2, 3, 4, 5, 6, 7, 8 };
	for (int i = 0; i < 7; i++)
		assert_int_equal(w.line[i], lines[i]);
	assert_string_equal(w.key[2], "colour");
	assert_string_equal(w.reason[2], "unknown key");
	assert_string_equal(w.reason[3], "missing value");
	assert_int_equal(c.timeout, 5);
	assert_string_equal(c.fallback, "");
	assert_false(c.have_resume);
	assert_false(c.dry_run);
	assert_string_equal(c.options, "ok");
}

static void test_resume_offset(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, "resume PARTUUID=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F\nresume-offset 34816\n"), 0);
	assert_true(c.have_resume);
	assert_int_equal(c.resume_offset, 34816);
	/* the largest accepted value, then one beyond it; 0, signs, spaces inside, letters */
	assert_int_equal(parse(&c, &w, "resume-offset 4503599627370496"), 0);
	assert_int_equal(c.resume_offset, 1ull << 52);
	const char *bad[] = { "resume-offset 4503599627370497", "resume-offset 0", "resume-offset -5",
			      "resume-offset 12 34", "resume-offset 0x100", "resume-offset 99999999999999999999999",
			      "resume-offset" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&c, &w, bad[i]), 1);
		assert_int_equal(c.resume_offset, 0);
	}
}

static void test_resume_dos_partuuid(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, "resume PARTUUID=5f0a9A56-0b"), 0);
	assert_true(c.have_resume);
	assert_int_equal(c.resume_mbr_part, 11);
	static const uint8_t sig[4] = { 0x56, 0x9a, 0x0a, 0x5f };   /* as at byte 440 of the MBR */
	assert_memory_equal(c.resume_partuuid, sig, 4);
	/* a GUID after it switches back to GPT */
	assert_int_equal(er_config_parse(&c, "resume PARTUUID=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", 52, collect, &w), 0);
	assert_int_equal(c.resume_mbr_part, 0);
	const char *bad[] = { "resume PARTUUID=5f0a9a56-00", "resume PARTUUID=5f0a9a56-2", "resume PARTUUID=5f0a9a5g-02",
			      "resume PARTUUID=5f0a9a56_02", "resume PARTUUID=5f0a9a560-2", "resume PARTUUID=-5f0a9a5602" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&c, &w, bad[i]), 1);
		assert_false(c.have_resume);
	}
}

static void test_too_long(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	char text[4000];
	strcpy(text, "fallback \\");
	memset(text + 10, 'a', 300);
	strcpy(text + 310, "\noptions ");
	memset(text + 319, 'b', 2000);
	text[2319] = 0;
	assert_int_equal(parse(&c, &w, text), 2);
	assert_string_equal(w.reason[0], "path too long");
	assert_string_equal(w.reason[1], "options too long");
	assert_string_equal(c.fallback, "");
	assert_string_equal(c.options, "");
}

static void test_binary_garbage(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	const char text[] = "\xef\xbb\xbftimeout 7\nfall\0back x\n\x01\x02 y\noptions a\x01z\n";
	er_config_defaults(&c);
	memset(&w, 0, sizeof(w));
	unsigned n = er_config_parse(&c, text, sizeof(text) - 1, collect, &w);
	assert_int_equal(n, 3);
	assert_int_equal(c.timeout, 7);
	assert_string_equal(w.reason[0], "NUL byte in line");
	assert_string_equal(w.key[1], "??");
	assert_string_equal(w.reason[2], "control character 0x01 in column 10");
}

/* Defect 7: a shell's echo turns "fallback \vmlinuz.efi" into a vertical tab plus
 * "mlinuz.efi"; the line was taken as "fallback mlinuz.efi" without a word. Every byte
 * below 0x20 but tab, and 0x7f, now refuses its line with a warning. */
static void test_control_characters(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, "fallback \vmlinuz.efi\ntimeout 1\n"), 1);
	assert_string_equal(c.fallback, "");
	assert_int_equal(c.timeout, 1);
	assert_int_equal(w.line[0], 1);
	assert_string_equal(w.key[0], "fallback");
	assert_string_equal(w.reason[0], "control character 0x0b in column 10");
	for (int ch = 1; ch < 0x80; ch++) {
		if (ch == '\t' || ch == '\n' || (ch >= 0x20 && ch < 0x7f))
			continue;
		char text[128];
		/* in a path, in options, in a number, before the key, between key and value */
		const char *fmt[] = { "fallback \\EFI\\%cx.efi\n", "options a%cb\n", "timeout 1%c\n", "%ctimeout 1\n",
				      "timeout%c1\n", "dry-run yes%c \n", "fallback %c\\x.efi\n" };
		for (size_t f = 0; f < sizeof(fmt) / sizeof(fmt[0]); f++) {
			if (ch == '\r' && (f == 2 || f == 5))
				continue;   /* CR at the end of a line is a CRLF line end */
			snprintf(text, sizeof(text), fmt[f], ch);
			assert_int_equal(parse(&c, &w, text), 1);
			assert_int_equal(w.n, 1);
			assert_non_null(strstr(w.reason[0], "control character 0x"));
			assert_string_equal(c.fallback, "");
			assert_string_equal(c.options, "");
			assert_int_equal(c.timeout, 3);
			assert_false(c.dry_run);
		}
	}
	/* tab separates and may sit inside a value; CR only ends a line */
	assert_int_equal(parse(&c, &w, "options\ta\tb \r\nfallback\t\\x.efi\r\n"), 0);
	assert_string_equal(c.options, "a\tb");
	assert_string_equal(c.fallback, "\\x.efi");
	assert_int_equal(parse(&c, &w, "options a\rb\n"), 1);
	assert_string_equal(w.reason[0], "control character 0x0d in column 10");
	/* UTF-8 is not a control character */
	assert_int_equal(parse(&c, &w, "options caf\xc3\xa9\n"), 0);
	assert_string_equal(c.options, "caf\xc3\xa9");
	/* a comment may hold anything */
	assert_int_equal(parse(&c, &w, "# \x01\x7f\v\n"), 0);
}

static void test_no_trailing_newline_and_crlf(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	assert_int_equal(parse(&c, &w, "timeout 1\r\noptions a b c"), 0);
	assert_int_equal(c.timeout, 1);
	assert_string_equal(c.options, "a b c");
}

static void test_guid_roundtrip(void **state)
{
	(void)state;
	uint8_t g[16];
	char s[37];
	assert_true(er_guid_parse("0657fd6d-a4ab-43c4-84e5-0933c84b4f4f", 36, g));
	er_guid_format(g, s);
	assert_string_equal(s, "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f");
	assert_false(er_guid_parse("0657fd6d-a4ab-43c4-84e5-0933c84b4f4", 35, g));
	assert_false(er_guid_parse("0657fd6d_a4ab-43c4-84e5-0933c84b4f4f", 36, g));
	assert_false(er_guid_parse("0657fd6d-a4ab-43c4-84e5-0933c84b4fzz", 36, g));
}

/* Issue 11: resume LV=<vg>/<lv>, /dev/<vg>/<lv>, /dev/mapper/<vg>-<lv>; stored as written */
static void assert_lv(const char *line, const char *stored, const char *vg, const char *lv)
{
	struct er_config c;
	struct warnlog w;
	char v[ER_CONF_LV_MAX], l[ER_CONF_LV_MAX];
	assert_int_equal(parse(&c, &w, line), 0);
	assert_true(c.have_resume_lv);
	assert_false(c.have_resume);
	assert_false(c.have_resume_uuid);
	assert_string_equal(c.resume_lv, stored);
	assert_true(er_config_lv_names(c.resume_lv, v, l));
	assert_string_equal(v, vg);
	assert_string_equal(l, lv);
}

static void test_resume_lv_forms(void **state)
{
	(void)state;
	assert_lv("resume LV=vg0/swap_1", "vg0/swap_1", "vg0", "swap_1");
	assert_lv("resume   LV=debian-vg/swap_1  \r\n", "debian-vg/swap_1", "debian-vg", "swap_1");
	assert_lv("resume /dev/vg0/swap_1", "/dev/vg0/swap_1", "vg0", "swap_1");
	assert_lv("resume LV=/dev/vg0/swap_1", "/dev/vg0/swap_1", "vg0", "swap_1");
	assert_lv("resume /dev/mapper/vg0-swap_1", "/dev/mapper/vg0-swap_1", "vg0", "swap_1");
	assert_lv("resume /dev/mapper/debian--vg-swap--1", "/dev/mapper/debian--vg-swap--1", "debian-vg", "swap-1");
	assert_lv("resume LV=/dev/mapper/a---b", "/dev/mapper/a---b", "a-", "b");
	assert_lv("resume LV=a.b+c_d/x.y+z_-1", "a.b+c_d/x.y+z_-1", "a.b+c_d", "x.y+z_-1");
	/* 255 bytes fit, 256 do not */
	char line[400], want[300];
	memset(want, 'v', 255);
	want[127] = '/';
	want[255] = 0;
	snprintf(line, sizeof(line), "resume LV=%s", want);
	char wvg[200];
	memset(wvg, 'v', 127);
	wvg[127] = 0;
	assert_lv(line, want, wvg, want + 128);
	struct er_config c;
	struct warnlog w;
	snprintf(line, sizeof(line), "resume LV=%sv", want);
	assert_int_equal(parse(&c, &w, line), 1);
	assert_false(c.have_resume_lv);
	assert_string_equal(c.resume_lv, "");
}

/* "-" doubled, as LVM's dm_build_dm_name quotes a name */
static void dm_quote(const char *s, char *out)
{
	for (; *s; s++) {
		if (*s == '-')
			*out++ = '-';
		*out++ = *s;
	}
	*out = 0;
}

/* device-mapper's own splitting (dmsetup splitname, libdevmapper's dm_split_lvm_name) as
 * the oracle for /dev/mapper names: taken exactly when dmsetup finds a VG, an LV and no
 * layer, and LVM would build that very name from them (dm_split_lvm_name keeps a single
 * trailing '-', as in "vg-lv-", which no LV's name produces) */
static void test_resume_lv_mapper_vs_dmsetup(void **state)
{
	(void)state;
	const char *names[] = { "vg0-swap", "vg--0-swap--1", "a---b", "a----b", "a-----b", "a-b-c", "a-b-real",
				"a--b", "ab", "-ab", "a-", "a--", "a---", "vg-lv--", "vg-lv--x", "x-y_cdata", "my.vg-sw+ap",
				"a--b--c-d--e", "vg-lv-", "vg--lv" };
	unsigned taken = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char cmd[300], out[300] = "", vg[300] = "", lv[300] = "", layer[300] = "";
		snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin dmsetup splitname --noheadings --separator / -- '%s' LVM 2>/dev/null",
			 names[i]);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		bool got = fgets(out, sizeof(out), p) != NULL;
		int rc = pclose(p);
		assert_int_equal(rc, 0);
		assert_true(got);
		out[strcspn(out, "\n")] = 0;
		/* "VG/LV/LAYER", each part possibly empty ('/' is in no LVM name) */
		char *a = strchr(out, '/'), *b = a ? strchr(a + 1, '/') : NULL;
		assert_non_null(b);
		snprintf(vg, sizeof(vg), "%.*s", (int)(a - out), out);
		snprintf(lv, sizeof(lv), "%.*s", (int)(b - a - 1), a + 1);
		snprintf(layer, sizeof(layer), "%s", b + 1);
		char qvg[300], qlv[300], joined[700];
		dm_quote(vg, qvg);
		dm_quote(lv, qlv);
		snprintf(joined, sizeof(joined), "%s-%s", qvg, qlv);
		bool want = vg[0] && lv[0] && !layer[0] && strcmp(joined, names[i]) == 0;

		char text[300], v[ER_CONF_LV_MAX], l[ER_CONF_LV_MAX];
		snprintf(text, sizeof(text), "/dev/mapper/%s", names[i]);
		bool ok = er_config_lv_names(text, v, l);
		if (ok != want)
			fail_msg("%s: efiresume %s, dmsetup says vg '%s' lv '%s' layer '%s'", names[i], ok ? "takes it" : "refuses it",
				 vg, lv, layer);
		if (ok) {
			taken++;
			assert_string_equal(v, vg);
			assert_string_equal(l, lv);
		} else {
			assert_string_equal(v, "");
			assert_string_equal(l, "");
		}
		/* and through the parser */
		struct er_config c;
		struct warnlog w;
		snprintf(text, sizeof(text), "resume /dev/mapper/%s", names[i]);
		assert_int_equal(parse(&c, &w, text), want ? 0 : 1);
		assert_int_equal(c.have_resume_lv, want);
	}
	/* both outcomes seen (dmsetup answered something for each name) */
	assert_int_equal(taken, 9);   /* 9 of the 20 names above are LVs */
}

static void test_resume_lv_malformed(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	const char *bad[] = { "resume LV=", "resume LV=vg0", "resume LV=vg0/", "resume LV=/swap", "resume LV=vg0/sw/ap",
			      "resume LV=vg 0/swap", "resume LV=vg0/sw\xc3\xa9p", "resume LV=./swap", "resume LV=vg0/..",
			      "resume /dev/sda2", "resume /dev/", "resume /dev/vg0/", "resume /dev//swap", "resume /dev/a/b/c",
			      "resume /dev/disk/by-uuid/5b3a0c9e-1122-4344-8566-778899aabbcc", "resume /dev/mapper/",
			      "resume /dev/mapper/swap", "resume /dev/mapper/vg-lv-real", "resume /dev/mapper/vg-",
			      "resume /dev/mapper/-lv", "resume /dev/mapper/vg/lv", "resume lv=vg0/swap", "resume vg0/swap",
			      "resume LABEL=swap" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* on top of a valid LV line: warned, and the earlier value kept */
		char text[300];
		snprintf(text, sizeof(text), "resume LV=keep/me\n%s\n", bad[i]);
		if (parse(&c, &w, text) != 1)
			fail_msg("'%s' not warned once (%u warnings)", bad[i], w.n);
		assert_int_equal(w.line[0], 2);
		assert_string_equal(w.key[0], "resume");
		assert_true(c.have_resume_lv);
		assert_string_equal(c.resume_lv, "keep/me");
		assert_false(c.have_resume);
		assert_false(c.have_resume_uuid);
	}
	char v[ER_CONF_LV_MAX], l[ER_CONF_LV_MAX];
	memset(v, 'x', sizeof(v));
	memset(l, 'x', sizeof(l));
	assert_false(er_config_lv_names("vg0", v, l));
	assert_string_equal(v, "");
	assert_string_equal(l, "");
	assert_false(er_config_lv_names("", v, l));
}

/* resume UUID=: stored in text order, which is how mkswap writes it into the swap header
 * (the bytes the loader compares, er_swap_uuid); any case */
static void test_resume_uuid(void **state)
{
	(void)state;
	static const char text[] = "5b3a0c9e-1122-4344-8566-778899aabbcc";
	char path[] = "/tmp/efiresume-test-swap-XXXXXX", cmd[256];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin mkswap -U %s %s >/dev/null 2>&1", text, path);
	int rc = system(cmd);
	uint8_t page[4096], swap_uuid[16];
	ssize_t got = pread(fd, page, sizeof(page), 0);
	close(fd);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_int_equal(got, 4096);
	er_swap_uuid(page, swap_uuid);

	struct er_config c;
	struct warnlog w;
	const char *lines[] = { "resume UUID=5b3a0c9e-1122-4344-8566-778899aabbcc", "resume UUID=5B3A0C9E-1122-4344-8566-778899AABBCC",
				"resume UUID=5b3A0c9E-1122-4344-8566-778899AaBbCc" };
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(parse(&c, &w, lines[i]), 0);
		assert_true(c.have_resume_uuid);
		assert_false(c.have_resume);
		assert_false(c.have_resume_lv);
		assert_memory_equal(c.resume_uuid, swap_uuid, 16);
		char u[37];
		er_uuid_format(c.resume_uuid, u);
		assert_string_equal(u, text);
	}
	/* with resume-offset: a filesystem's UUID, as Debian's RESUME=UUID=... RESUME_OFFSET=... */
	assert_int_equal(parse(&c, &w, "resume-offset 34816\nresume UUID=5b3a0c9e-1122-4344-8566-778899aabbcc\n"), 0);
	assert_true(c.have_resume_uuid);
	assert_int_equal(c.resume_offset, 34816);
	assert_int_equal(parse(&c, &w, "resume LV=vg0/root\nresume-offset 99\n"), 0);
	assert_true(c.have_resume_lv);
	assert_int_equal(c.resume_offset, 99);

	const char *bad[] = { "resume UUID=", "resume UUID=5b3a0c9e-1122-4344-8566-778899aabbc",
			      "resume UUID=5b3a0c9e-1122-4344-8566-778899aabbccd", "resume UUID=5b3a0c9e11224344856677889 9aabbcc",
			      "resume UUID=5b3a0c9e_1122-4344-8566-778899aabbcc", "resume UUID=5b3a0c9e-1122-4344-8566-778899aabbcg",
			      "resume UUID=5b3a0c9e1122-4344-8566-778899aabbcc-", "resume UUID=00000000-0000-0000-0000-000000000000",
			      "resume uuid=5b3a0c9e-1122-4344-8566-778899aabbcc", "resume UUID=5b3a0c9e11224344856677 8899aabbcc",
			      "resume UUID={5b3a0c9e-1122-4344-8566-778899aabbcc}", "resume UUID=5b3a0c9e112243448566778899aabbcc" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char t[300];
		snprintf(t, sizeof(t), "%s\n%s\n", lines[0], bad[i]);
		if (parse(&c, &w, t) != 1)
			fail_msg("'%s' not warned once (%u warnings)", bad[i], w.n);
		assert_true(c.have_resume_uuid);
		assert_memory_equal(c.resume_uuid, swap_uuid, 16);
	}
}

/* A later valid resume line replaces an earlier one: exactly one kind set, the others cleared */
static void test_resume_replaces(void **state)
{
	(void)state;
	struct er_config c;
	struct warnlog w;
	static const char *kinds[] = { "resume PARTUUID=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", "resume PARTUUID=5f0a9a56-02",
				       "resume LV=vg0/swap", "resume /dev/mapper/vg0-swap",
				       "resume UUID=5b3a0c9e-1122-4344-8566-778899aabbcc" };
	for (size_t a = 0; a < 5; a++) {
		for (size_t b = 0; b < 5; b++) {
			char text[300];
			struct er_config only;
			snprintf(text, sizeof(text), "%s\n%s\n", kinds[a], kinds[b]);
			assert_int_equal(parse(&c, &w, text), 0);
			/* the same as the second line alone, byte for byte */
			assert_int_equal(parse(&only, &w, kinds[b]), 0);
			assert_memory_equal(&c, &only, sizeof(c));
			assert_int_equal((int)c.have_resume + (int)c.have_resume_lv + (int)c.have_resume_uuid, 1);
		}
	}
	/* the cleared kinds are zero */
	assert_int_equal(parse(&c, &w, "resume PARTUUID=5f0a9a56-02\nresume LV=vg0/swap\n"), 0);
	static const uint8_t zero[16];
	assert_memory_equal(c.resume_partuuid, zero, 16);
	assert_int_equal(c.resume_mbr_part, 0);
	assert_int_equal(parse(&c, &w, "resume LV=vg0/swap\nresume PARTUUID=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F\n"), 0);
	assert_string_equal(c.resume_lv, "");
	assert_false(c.have_resume_lv);
	/* a malformed line in between changes nothing */
	assert_int_equal(parse(&c, &w, "resume LV=vg0/swap\nresume PARTUUID=1234\nresume UUID=x\nresume /dev/sda2\n"), 3);
	assert_true(c.have_resume_lv);
	assert_string_equal(c.resume_lv, "vg0/swap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_slashes_and_relative),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_resume_offset),
		cmocka_unit_test(test_resume_dos_partuuid),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_no_trailing_newline_and_crlf),
		cmocka_unit_test(test_guid_roundtrip),
		cmocka_unit_test(test_resume_lv_forms),
		cmocka_unit_test(test_resume_lv_mapper_vs_dmsetup),
		cmocka_unit_test(test_resume_lv_malformed),
		cmocka_unit_test(test_resume_uuid),
		cmocka_unit_test(test_resume_replaces),
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
