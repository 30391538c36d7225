/* Host tests for loader/config.c (efiresume.conf parser). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "loader/config.h"

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
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
