// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/location.c (systemd HibernateLocation). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "loader/location.h"

static const uint8_t want_uuid[16] = { 0x5b, 0x3a, 0x0c, 0x9e, 0x11, 0x22, 0x43, 0x44,
				       0x85, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc };
static const char want_text[] = "5b3a0c9e-1122-4344-8566-778899aabbcc";

static void test_systemd_example(void **state)
{
	(void)state;
	/* shape written by systemd's hibernate-resume (src/shared/hibernate-util.c) */
	const char j[] = "{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,"
			 "\"kernelVersion\":\"6.1.0-57-cloud-amd64\",\"osReleaseId\":\"debian\","
			 "\"osReleaseVersionId\":\"12\"}";
	struct er_location h;
	assert_true(er_location_parse(j, sizeof(j), &h));   /* NUL included, as stored */
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_int_equal(h.offset, 0);
	assert_string_equal(h.kernel, "6.1.0-57-cloud-amd64");
	char u[37];
	er_uuid_format(h.uuid, u);
	assert_string_equal(u, "5b3a0c9e-1122-4344-8566-778899aabbcc");
}

static void test_swapfile_offset_and_spacing(void **state)
{
	(void)state;
	const char j[] = " {\n \"offset\" : 34816 ,\n \"nested\": {\"a\":[1,2,{\"b\":\"}\"}]},\n"
			 " \"uuid\" : \"5B3A0C9E-1122-4344-8566-778899AABBCC\" }\n";
	struct er_location h;
	assert_true(er_location_parse(j, strlen(j), &h));
	assert_int_equal(h.offset, 34816);
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_string_equal(h.kernel, "");
}

static void test_malformed(void **state)
{
	(void)state;
	const char *bad[] = {
		"", "[]", "{}", "{\"uuid\":5}", "{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbc\"}",
		"{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\"", "{\"offset\":0}",
		"{\"uuid\":\"5b3a0c9e_1122-4344-8566-778899aabbcc\"}", "{\"uuid\" \"x\"}",
		"{\"offset\":,\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\"}",
		"{\"x\":\"unterminated}",
	};
	struct er_location h;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(er_location_parse(bad[i], strlen(bad[i]), &h));
}

static void test_truncations_never_overrun(void **state)
{
	(void)state;
	const char j[] = "{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"k\":[\"\\u00e9\"]}";
	struct er_location h;
	/* every prefix is parsed from a heap copy of exactly that size (ASan checks bounds) */
	for (size_t n = 0; n < sizeof(j) - 1; n++) {
		char *c = malloc(n ? n : 1);
		memcpy(c, j, n);
		assert_false(er_location_parse(c, n, &h));
		free(c);
	}
	assert_true(er_location_parse(j, sizeof(j) - 1, &h));
}

#define UUID "\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\""

static bool parse_str(const char *j, struct er_location *h)
{
	/* an exactly sized heap copy: ASan sees any read beyond it */
	size_t n = strlen(j);
	char *c = malloc(n ? n : 1);
	memcpy(c, j, n);
	bool ok = er_location_parse(c, n, h);
	free(c);
	return ok;
}

/* Defect 6, first half: a value other than "offset" that is a number or literal of more
 * than one character was skipped one byte at a time, so a valid variable was refused
 * and a malformed one taken. */
static void test_values_of_every_kind(void **state)
{
	(void)state;
	struct er_location h;
	assert_true(parse_str("{\"n\":12345,\"t\":true,\"f\":false,\"z\":null,\"x\":-1.5e3," UUID
			      ",\"offset\":34816,\"a\":[1,\"x\",{\"b\":null}],\"s\":\"}\"}", &h));
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_int_equal(h.offset, 34816);
	assert_true(parse_str("{\"osReleaseVersionId\":12," UUID "}", &h));
	assert_memory_equal(h.uuid, want_uuid, 16);
	/* not JSON: each was taken before */
	const char *bad[] = {
		"{\"x\":-," UUID "}", "{\"x\":q," UUID "}", "{\"x\":+," UUID "}", "{\"x\":tru," UUID "}",
		"{\"x\":1.," UUID "}", "{\"x\":01," UUID "}", "{" UUID ",\"x\":[1,]}", "{" UUID ",\"x\":{\"a\"}}",
		"{" UUID "} trailing", "{" UUID ",}", "{" UUID ",\"k\":\"\\x\"}", "{" UUID ",\"k\":\"\\ud800\"}",
		"{" UUID ",\"k\":\"\xff\"}", "{" UUID ",\"x\":]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(parse_str(bad[i], &h));
		assert_int_equal(h.offset, 0);
	}
	/* duplicates are refused (another reader could take the other one) */
	assert_false(parse_str("{" UUID ",\"uuid\":\"00000000-1122-4344-8566-778899aabbcc\"}", &h));
	assert_false(parse_str("{" UUID ",\"offset\":1,\"offset\":2}", &h));
	/* member names are compared after unescaping */
	assert_true(parse_str("{\"\\u0075uid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"off\\u0073et\":7}", &h));
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_int_equal(h.offset, 7);
	assert_false(parse_str("{\"uuid \":\"5b3a0c9e-1122-4344-8566-778899aabbcc\"}", &h));
	/* the top level must be an object */
	assert_false(parse_str("[{" UUID "}]", &h));
	assert_false(parse_str("\"uuid\"", &h));
}

/* Defect 6, second half: a 20-digit offset wrapped modulo 2^64. */
static void test_offset_range(void **state)
{
	(void)state;
	struct er_location h;
	assert_true(parse_str("{" UUID ",\"offset\":18446744073709551615}", &h));
	assert_true(h.offset == UINT64_MAX);
	const char *bad[] = { "18446744073709551616", "18446744073709551617", "36893488147419103232",
			      "99999999999999999999", "184467440737095516150", "\"18446744073709551616\"", "-1", "-0",
			      "1.5", "1e3", "1E0", "007", "\"\"", "\"-1\"", "\"0x10\"", "\" 1\"", "null", "true", "[]", "{}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char j[200];
		snprintf(j, sizeof(j), "{" UUID ",\"offset\":%s}", bad[i]);
		assert_false(parse_str(j, &h));
		assert_int_equal(h.offset, 0);
	}
	/* a string of digits is taken too (as LUKS2 writes large numbers) */
	assert_true(parse_str("{" UUID ",\"offset\":\"18446744073709551615\"}", &h));
	assert_true(h.offset == UINT64_MAX);
}

/* efiresume's own EfiresumeLocation adds "device":"MAJ:MIN" */
static void test_device(void **state)
{
	(void)state;
	struct er_location h;
	assert_true(parse_str("{" UUID ",\"offset\":0,\"device\":\"8:2\",\"kernelVersion\":\"6.1.0-28-amd64\"}", &h));
	assert_true(h.have_device);
	assert_int_equal(h.dev_major, 8);
	assert_int_equal(h.dev_minor, 2);
	assert_string_equal(h.kernel, "6.1.0-28-amd64");
	assert_true(parse_str("{" UUID ",\"device\":\"4095:1048575\"}", &h));
	assert_int_equal(h.dev_major, 4095);
	assert_int_equal(h.dev_minor, 1048575);
	assert_true(parse_str("{" UUID "}", &h));
	assert_false(h.have_device);
	const char *bad[] = { "\"4096:0\"", "\"8:1048576\"", "\"8\"", "\":2\"", "\"8:\"", "\"8:2:1\"", "\" 8:2\"",
			      "\"8:2 \"", "\"-8:2\"", "\"8:+2\"", "\"99999999999:1\"", "\"\"", "82", "null", "[8,2]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char j[200];
		snprintf(j, sizeof(j), "{" UUID ",\"device\":%s}", bad[i]);
		assert_false(parse_str(j, &h));
		assert_false(h.have_device);
	}
}

/* systemd 254+ (src/sleep/sleep.c write_efi_hibernate_location): every member it may write */
static void test_systemd_all_members(void **state)
{
	(void)state;
	struct er_location h;
	assert_true(parse_str("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":1234567,"
			      "\"kernelVersion\":\"6.12.9+bpo-amd64\",\"osReleaseId\":\"debian\","
			      "\"osReleaseImageId\":\"img\",\"osReleaseVersionId\":\"12\","
			      "\"osReleaseImageVersion\":\"1.2\"}", &h));
	assert_int_equal(h.offset, 1234567);
	assert_string_equal(h.kernel, "6.12.9+bpo-amd64");
	assert_false(h.have_device);
	/* kernelVersion: 64 bytes fit, 65 do not (then ""), not a string is ignored */
	char j[300], k[70];
	memset(k, 'k', 65);
	k[64] = 0;
	snprintf(j, sizeof(j), "{" UUID ",\"kernelVersion\":\"%s\"}", k);
	assert_true(parse_str(j, &h));
	assert_string_equal(h.kernel, k);
	k[64] = 'k';
	k[65] = 0;
	snprintf(j, sizeof(j), "{" UUID ",\"kernelVersion\":\"%s\"}", k);
	assert_true(parse_str(j, &h));
	assert_string_equal(h.kernel, "");
	assert_true(parse_str("{" UUID ",\"kernelVersion\":null}", &h));
	assert_string_equal(h.kernel, "");
	assert_true(parse_str("{" UUID ",\"kernelVersion\":\"a\\u0000b\"}", &h));
	assert_string_equal(h.kernel, "");
}

static void test_swap_uuid(void **state)
{
	(void)state;
	uint8_t page[4096] = { 0 }, u[16];
	memcpy(page + 1036, want_uuid, 16);
	er_swap_uuid(page, u);
	assert_memory_equal(u, want_uuid, 16);
}

/* ext4 made by the real mkfs.ext4 with a chosen UUID, read back as efiresume reads it */
static void test_fs_uuid_ext4_mkfs(void **state)
{
	(void)state;
	char path[] = "/tmp/efiresume-test-ext4-XXXXXX", cmd[256];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin mkfs.ext4 -q -F -U %s %s", want_text, path);
	int rc = system(cmd);
	static uint8_t buf[ER_FS_UUID_BYTES];
	ssize_t got = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_int_equal(got, (ssize_t)sizeof(buf));
	uint8_t u[16];
	assert_string_equal(er_fs_uuid(buf, sizeof(buf), u), "ext4");
	assert_memory_equal(u, want_uuid, 16);
	/* only the first 2 KiB are needed for ext4 */
	assert_non_null(er_fs_uuid(buf, 2048, u));
	assert_null(er_fs_uuid(buf, 2047, u));
}

static void test_fs_uuid_xfs_btrfs_none(void **state)
{
	(void)state;
	static uint8_t buf[ER_FS_UUID_BYTES];
	uint8_t u[16];
	memset(buf, 0, sizeof(buf));
	assert_null(er_fs_uuid(buf, sizeof(buf), u));
	memcpy(buf, "XFSB", 4);
	memcpy(buf + 32, want_uuid, 16);
	assert_string_equal(er_fs_uuid(buf, 512, u), "xfs");
	assert_memory_equal(u, want_uuid, 16);
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 65536 + 0x40, "_BHRfS_M", 8);
	memcpy(buf + 65536 + 0x20, want_uuid, 16);
	assert_string_equal(er_fs_uuid(buf, sizeof(buf), u), "btrfs");
	assert_memory_equal(u, want_uuid, 16);
	/* the Btrfs superblock lies beyond a short buffer */
	assert_null(er_fs_uuid(buf, sizeof(buf) - 1, u));
}

/* Issue 11: "luks" and "lv" hints from efiresume's sleep hook */
static void test_luks_lv(void **state)
{
	(void)state;
	struct er_location h;
	assert_true(parse_str("{" UUID ",\"offset\":0,\"device\":\"254:1\",\"luks\":\"0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5b\","
			      "\"lv\":\"vg0/swap_1\",\"kernelVersion\":\"6.1.0-28-amd64\"}", &h));
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_true(h.have_device);
	assert_int_equal(h.dev_major, 254);
	assert_string_equal(h.luks, "0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5b");
	assert_string_equal(h.lv, "vg0/swap_1");
	assert_string_equal(h.kernel, "6.1.0-28-amd64");
	/* absent: "" (systemd's HibernateLocation never has them) */
	assert_true(parse_str("{" UUID "}", &h));
	assert_string_equal(h.luks, "");
	assert_string_equal(h.lv, "");
	/* kept as given: upper case, no dashes, the 40 bytes of a LUKS header's UUID field */
	char j[600], v[300];
	const char *luks_good[] = { "0F5E4C3A-1B2D-4E6F-8A9B-0C1D2E3F4A5B", "0f5e4c3a1b2d4e6f8a9b0c1d2e3f4a5b", "a",
				    "0123456789abcdef0123456789ABCDEF-------", "0123456789abcdef0123456789ABCDEF--------" };
	for (size_t i = 0; i < sizeof(luks_good) / sizeof(luks_good[0]); i++) {
		snprintf(j, sizeof(j), "{" UUID ",\"luks\":\"%s\"}", luks_good[i]);
		assert_true(parse_str(j, &h));
		assert_string_equal(h.luks, luks_good[i]);
	}
	const char *lv_good[] = { "a/b", "debian-vg/swap_1", "my.vg+x/lv--1" };
	for (size_t i = 0; i < sizeof(lv_good) / sizeof(lv_good[0]); i++) {
		snprintf(j, sizeof(j), "{" UUID ",\"lv\":\"%s\"}", lv_good[i]);
		assert_true(parse_str(j, &h));
		assert_string_equal(h.lv, lv_good[i]);
	}
	/* 255 bytes fit, 256 do not */
	memset(v, 'x', 255);
	v[100] = '/';
	v[255] = 0;
	snprintf(j, sizeof(j), "{" UUID ",\"lv\":\"%s\"}", v);
	assert_true(parse_str(j, &h));
	assert_string_equal(h.lv, v);
	snprintf(j, sizeof(j), "{" UUID ",\"lv\":\"%sx\"}", v);
	assert_true(parse_str(j, &h));
	assert_string_equal(h.lv, "");
}

/* A malformed hint is ignored alone: the variable (uuid, offset, device, the other hint) still counts */
static void test_luks_lv_malformed(void **state)
{
	(void)state;
	struct er_location h;
	char j[600];
	const char *bad_luks[] = { "\"\"", "\"0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5bx\"", "\"0f5e4c3a 1b2d\"",
				   "\"0123456789abcdef0123456789ABCDEF---------\"", "\"0f5e\\u0000\"", "\"{0f5e4c3a}\"",
				   "\"0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5g\"", "\"\\u00e9\"", "12345", "null", "true",
				   "[\"0f5e4c3a\"]", "{\"uuid\":\"0f5e4c3a\"}" };
	for (size_t i = 0; i < sizeof(bad_luks) / sizeof(bad_luks[0]); i++) {
		snprintf(j, sizeof(j), "{" UUID ",\"offset\":7,\"device\":\"254:0\",\"luks\":%s,\"lv\":\"vg0/swap\"}", bad_luks[i]);
		if (!parse_str(j, &h))
			fail_msg("luks %s refused the whole variable", bad_luks[i]);
		assert_memory_equal(h.uuid, want_uuid, 16);
		assert_int_equal(h.offset, 7);
		assert_true(h.have_device);
		assert_string_equal(h.luks, "");
		assert_string_equal(h.lv, "vg0/swap");
	}
	const char *bad_lv[] = { "\"\"", "\"ab\"", "\"/ab\"", "\"ab/\"", "\"a/b/c\"", "\"//\"", "\"vg0\"", "\"vg 0/swap\"",
				 "\"vg0/sw\\tap\"", "\"vg0/sw\\u00e9p\"", "\"vg0/s\\u0000\"", "\"vg0/\\u007f\"", "42", "null",
				 "[\"vg0/swap\"]", "{}" };
	for (size_t i = 0; i < sizeof(bad_lv) / sizeof(bad_lv[0]); i++) {
		snprintf(j, sizeof(j), "{" UUID ",\"offset\":7,\"luks\":\"0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5b\",\"lv\":%s}", bad_lv[i]);
		if (!parse_str(j, &h))
			fail_msg("lv %s refused the whole variable", bad_lv[i]);
		assert_memory_equal(h.uuid, want_uuid, 16);
		assert_int_equal(h.offset, 7);
		assert_string_equal(h.lv, "");
		assert_string_equal(h.luks, "0f5e4c3a-1b2d-4e6f-8a9b-0c1d2e3f4a5b");
	}
	/* a duplicate is still not JSON this parser takes (another reader could take the other one) */
	assert_false(parse_str("{" UUID ",\"lv\":\"a/b\",\"lv\":\"c/d\"}", &h));
	assert_string_equal(h.lv, "");
	/* a refusal for another reason leaves the hints "" too */
	assert_false(parse_str("{" UUID ",\"offset\":-1,\"luks\":\"0f5e\",\"lv\":\"a/b\"}", &h));
	assert_string_equal(h.luks, "");
	assert_string_equal(h.lv, "");
}

/* The LUKS header's own UUID, as cryptsetup writes and reads it (luksFormat --uuid, luksUUID),
 * is taken as a "luks" hint */
static void test_luks_uuid_cryptsetup(void **state)
{
	(void)state;
	char path[] = "/tmp/efiresume-test-luks-XXXXXX", cmd[512], got[64] = "";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 16 << 20), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "PATH=$PATH:/sbin:/usr/sbin; echo -n pw | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "
		 "--uuid 0F5E4C3A-1B2D-4E6F-8A9B-0C1D2E3F4A5B --key-file - %s >/dev/null 2>&1 && cryptsetup luksUUID %s", path, path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(got, sizeof(got), p))
		got[0] = 0;
	int rc = pclose(p);
	unlink(path);
	assert_int_equal(rc, 0);
	got[strcspn(got, "\n")] = 0;
	assert_int_equal(strlen(got), 36);
	char j[300];
	struct er_location h;
	snprintf(j, sizeof(j), "{" UUID ",\"luks\":\"%s\"}", got);
	assert_true(parse_str(j, &h));
	assert_string_equal(h.luks, got);
}

/* ---- Issue 18: HibernateLocation is UTF-16LE (systemd's efi_set_variable_string) ---- */

/* text (UTF-8) -> UTF-16LE by iconv (an encoder independent of location.c), plus nul
 * terminating NUL code units; returns a malloc'ed buffer of exactly *len bytes */
static uint8_t *iconv16(const char *text, int nul, size_t *len)
{
	char path[] = "/tmp/efiresume-test-u16-XXXXXX", cmd[300];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "iconv -f UTF-8 -t UTF-16LE %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	static uint8_t tmp[65536];
	size_t n = fread(tmp, 1, sizeof(tmp) - 8, p);
	assert_int_equal(pclose(p), 0);
	unlink(path);
	for (int i = 0; i < nul; i++) {
		tmp[n++] = 0;
		tmp[n++] = 0;
	}
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, tmp, n);
	*len = n;
	return b;
}

static bool read16(const uint8_t *b, size_t n, struct er_location *h, const char **why)
{
	uint8_t *c = malloc(n ? n : 1);   /* exactly sized: ASan sees any read beyond it */
	memcpy(c, b, n);
	bool ok = er_location_read(c, n, ER_LOC_UTF16LE, h, why);
	free(c);
	return ok;
}

#define DEB13 "{\"uuid\":\"041cb22c-7a3e-4b1f-9c2d-5e6f7a8b9c0d\",\"offset\":0,\"kernelVersion\":\"6.12.118+deb13-cloud-amd64\"," \
	      "\"osReleaseId\":\"debian\",\"osReleaseVersionId\":\"13\"}"
static const uint8_t deb13_uuid[16] = { 0x04, 0x1c, 0xb2, 0x2c, 0x7a, 0x3e, 0x4b, 0x1f,
					0x9c, 0x2d, 0x5e, 0x6f, 0x7a, 0x8b, 0x9c, 0x0d };

/* What systemd 257 on Debian 13 wrote (issue 18): UTF-16LE with its NUL. Before, the
 * one reader (er_location_parse, UTF-8) refused it: "not the JSON systemd writes". */
static void test_utf16_as_systemd_writes(void **state)
{
	(void)state;
	size_t n;
	uint8_t *b = iconv16(DEB13, 1, &n);
	struct er_location h;
	const char *why = "x";
	assert_int_equal(n, 2 * (strlen(DEB13) + 1));
	assert_true(read16(b, n, &h, &why));
	assert_string_equal(why, "");
	assert_memory_equal(h.uuid, deb13_uuid, 16);
	assert_int_equal(h.offset, 0);
	assert_string_equal(h.kernel, "6.12.118+deb13-cloud-amd64");
	assert_false(h.have_device);
	/* the UTF-8 reader (EfiresumeLocation) does not take these bytes */
	assert_false(er_location_read(b, n, ER_LOC_UTF8, &h, &why));
	assert_string_equal(why, "not one JSON object");
	assert_false(er_location_parse((const char *)b, n, &h));
	/* a swap file, every member systemd may write */
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":34816,\"kernelVersion\":\"6.1.0-57-cloud-amd64\","
		    "\"osReleaseId\":\"debian\",\"osReleaseImageId\":\"img\",\"osReleaseVersionId\":\"12\",\"osReleaseImageVersion\":\"1.2\"}",
		    1, &n);
	assert_true(read16(b, n, &h, &why));
	assert_memory_equal(h.uuid, want_uuid, 16);
	assert_int_equal(h.offset, 34816);
	assert_string_equal(h.kernel, "6.1.0-57-cloud-amd64");
	free(b);
}

/* systemd's reader (utf16_to_utf8 over the whole size) does not need the NUL; nor does this one */
/* One hibernation on Debian 13 with efiresume installed: systemd's HibernateLocation and
 * the sleep hook's EfiresumeLocation (with device, luks, lv) name one place; efiresume,
 * resuming through EfiresumeLocation, deletes HibernateLocation only then (issue 16:
 * left behind it made the next boot through efiresume ask for the passphrase again). */
static void test_same_place(void **state)
{
	(void)state;
	size_t n;
	uint8_t *b = iconv16(DEB13, 1, &n);
	struct er_location theirs, ours, other;
	assert_true(read16(b, n, &theirs, NULL));
	const char hook[] = "{\"uuid\":\"041cb22c-7a3e-4b1f-9c2d-5e6f7a8b9c0d\",\"offset\":0,\"device\":\"253:1\","
			    "\"kernelVersion\":\"6.12.118+deb13-amd64\",\"luks\":\"7d3e9a10-4c2b-4f1e-9a8d-5b6c7d8e9f01\","
			    "\"lv\":\"efiresume-debian-vg/swap_1\"}";
	assert_true(er_location_read(hook, strlen(hook), ER_LOC_UTF8, &ours, NULL));
	assert_true(er_location_same_place(&theirs, &ours));
	assert_true(er_location_same_place(&ours, &theirs));
	/* a swap file: the same filesystem, another page */
	other = ours;
	other.offset = 71680;
	assert_false(er_location_same_place(&theirs, &other));
	ours.offset = 71680;
	assert_true(er_location_same_place(&other, &ours));
	/* another swap area */
	other = theirs;
	other.uuid[15] ^= 1;
	assert_false(er_location_same_place(&theirs, &other));
	free(b);
}

static void test_utf16_without_nul(void **state)
{
	(void)state;
	size_t n;
	uint8_t *b = iconv16(DEB13, 0, &n);
	struct er_location h;
	const char *why;
	assert_true(read16(b, n, &h, &why));
	assert_memory_equal(h.uuid, deb13_uuid, 16);
	assert_string_equal(h.kernel, "6.12.118+deb13-cloud-amd64");
	free(b);
}

/* An odd byte count is not UTF-16 (systemd drops the last byte): refused, whatever the
 * byte; every even truncation is refused as JSON (or as a missing uuid) */
static void test_utf16_odd_and_truncated(void **state)
{
	(void)state;
	size_t n;
	uint8_t *b = iconv16(DEB13, 1, &n);
	struct er_location h;
	const char *why;
	for (size_t k = 0; k < n - 2; k++) {
		assert_false(read16(b, k, &h, &why));
		if (k == 0)
			assert_string_equal(why, "empty");
		else if (k % 2)
			assert_string_equal(why, "an odd number of bytes (not UTF-16)");
		for (size_t i = 0; i < sizeof(h); i++)
			assert_int_equal(((uint8_t *)&h)[i], 0);
	}
	/* n - 2: the whole text without its NUL */
	assert_true(read16(b, n - 2, &h, &why));
	assert_false(read16(b, n - 1, &h, &why));
	assert_string_equal(why, "an odd number of bytes (not UTF-16)");
	uint8_t *c = malloc(n + 1);
	memcpy(c, b, n);
	c[n] = 0;
	assert_false(er_location_read(c, n + 1, ER_LOC_UTF16LE, &h, &why));
	assert_string_equal(why, "an odd number of bytes (not UTF-16)");
	c[n] = '}';
	assert_false(er_location_read(c, n + 1, ER_LOC_UTF16LE, &h, &why));
	assert_string_equal(why, "an odd number of bytes (not UTF-16)");
	free(c);
	free(b);
}

/* A NUL before the last code unit: systemd stops there and ignores the rest; here the
 * variable is refused (truncated, or something appended) */
static void test_utf16_embedded_nul(void **state)
{
	(void)state;
	size_t n;
	struct er_location h;
	const char *why;
	/* two terminating NULs */
	uint8_t *b = iconv16(DEB13, 2, &n);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "a NUL before the end of the text");
	free(b);
	/* the document, a NUL, then more */
	b = iconv16(DEB13 " ", 1, &n);
	b[n - 4] = b[n - 3] = 0;
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "a NUL before the end of the text");
	/* a NUL inside a string value */
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"kernelVersion\":\"6.1x\"}", 1, &n);
	size_t at = 2 * (sizeof("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"kernelVersion\":\"6.1") - 1);
	assert_int_equal(b[at], 'x');
	b[at] = 0;
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "a NUL before the end of the text");
	/* only a NUL */
	static const uint8_t z[2] = { 0, 0 };
	assert_false(read16(z, 2, &h, &why));
	assert_string_equal(why, "not one JSON object");
	free(b);
}

/* Surrogates: a pair is one character (4 bytes of UTF-8); a lone one, high or low,
 * anywhere, refuses the variable (systemd drops it, which could splice a member name) */
static void test_utf16_surrogates(void **state)
{
	(void)state;
	size_t n;
	struct er_location h;
	const char *why;
	/* U+1F600 in an unknown member and in kernelVersion (iconv makes the pair) */
	uint8_t *b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"x\":\"\xf0\x9f\x98\x80\","
			     "\"kernelVersion\":\"k\xf0\x9f\x98\x80\"}", 1, &n);
	assert_true(read16(b, n, &h, &why));
	assert_string_equal(h.kernel, "k\xf0\x9f\x98\x80");
	free(b);
	/* "uu<lone>id": dropping the surrogate (as systemd's converter does) would read "uuid" */
	const char *j = "{\"uuXid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcd\",\"offset\":0}";
	static const uint16_t lone[] = { 0xd800, 0xdbff, 0xdc00, 0xdfff };
	for (size_t i = 0; i < 4; i++) {
		b = iconv16(j, 1, &n);
		b[2 * 3] = (uint8_t)lone[i];
		b[2 * 3 + 1] = (uint8_t)(lone[i] >> 8);
		assert_false(read16(b, n, &h, &why));
		assert_string_equal(why, "an unpaired UTF-16 surrogate");
		free(b);
	}
	/* a high surrogate as the last unit, before the NUL, or followed by another high one */
	b = iconv16(DEB13 " ", 1, &n);
	b[n - 4] = 0x00;
	b[n - 3] = 0xd8;
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "an unpaired UTF-16 surrogate");
	assert_false(read16(b, n - 2, &h, &why));
	assert_string_equal(why, "an unpaired UTF-16 surrogate");
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"x\":\"ab\"}", 1, &n);
	size_t at = 2 * (sizeof("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"x\":\"") - 1);
	b[at] = 0x3d;
	b[at + 1] = 0xd8;
	b[at + 2] = 0x3d;
	b[at + 3] = 0xd8;
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "an unpaired UTF-16 surrogate");
	b[at + 2] = 0x00;
	b[at + 3] = 0xde;   /* D83D DE00: U+1F600 */
	assert_true(read16(b, n, &h, &why));
	free(b);
}

/* UTF-8 in HibernateLocation: no writer produces it (systemd and elogind write UTF-16LE)
 * and systemd's reader does not take it; neither does this one */
static void test_utf16_refuses_utf8(void **state)
{
	(void)state;
	struct er_location h;
	const char *why;
	char j[300];
	snprintf(j, sizeof(j), "%s", DEB13);
	size_t n = strlen(j);
	assert_false(read16((const uint8_t *)j, n, &h, &why));
	assert_false(read16((const uint8_t *)j, n + 1, &h, &why));
	/* and the UTF-8 reader takes it (EfiresumeLocation) */
	assert_true(er_location_read(j, n, ER_LOC_UTF8, &h, &why));
	assert_memory_equal(h.uuid, deb13_uuid, 16);
}

/* The JSON checks stay: systemd's reader also requires "offset"; a byte order mark
 * is not JSON; non-ASCII text in members is converted and checked */
static void test_utf16_json_rules(void **state)
{
	(void)state;
	size_t n;
	struct er_location h;
	const char *why;
	uint8_t *b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"kernelVersion\":\"6.1\"}", 1, &n);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "no \"offset\" (systemd always writes one)");
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":-1}", 1, &n);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "\"offset\" is not an unsigned 64-bit integer");
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcX\",\"offset\":0}", 1, &n);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "no well-formed \"uuid\"");
	free(b);
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\"}", 1, &n);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "not one JSON object");
	free(b);
	b = iconv16("\xef\xbb\xbf" DEB13, 1, &n);   /* U+FEFF first */
	assert_int_equal(b[0], 0xff);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "not one JSON object");
	free(b);
	/* é (2 bytes of UTF-8), 日本 (3 each) */
	b = iconv16("{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":7,\"osReleaseId\":\"d\xc3\xa9\x62ian\","
		    "\"kernelVersion\":\"\xe6\x97\xa5\xe6\x9c\xac-\xc3\xa9\"}", 1, &n);
	assert_true(read16(b, n, &h, &why));
	assert_int_equal(h.offset, 7);
	assert_string_equal(h.kernel, "\xe6\x97\xa5\xe6\x9c\xac-\xc3\xa9");
	free(b);
	/* the UTF-8 reader keeps taking a variable without "offset" (a swap partition) */
	assert_true(er_location_read("{" UUID "}", strlen("{" UUID "}"), ER_LOC_UTF8, &h, &why));
	assert_int_equal(h.offset, 0);
}

/* Size: 4096 bytes are taken (the largest find.c reads), more are not; 4096 bytes of
 * 3-byte characters fill the conversion buffer exactly */
static void test_utf16_size_limits(void **state)
{
	(void)state;
	static char j[8192];
	size_t n;
	struct er_location h;
	const char *why;
	const char *head = "{\"uuid\":\"5b3a0c9e-1122-4344-8566-778899aabbcc\",\"offset\":0,\"x\":\"";
	/* units: head + k characters + "\"}" + NUL = 2048 */
	size_t k = 2048 - strlen(head) - 2 - 1;
	strcpy(j, head);
	for (size_t i = 0; i < k; i++)
		strcat(j, "\xe6\x97\xa5");
	strcat(j, "\"}");
	uint8_t *b = iconv16(j, 1, &n);
	assert_int_equal(n, 4096);
	assert_true(read16(b, n, &h, &why));
	assert_memory_equal(h.uuid, want_uuid, 16);
	free(b);
	/* one unit more: a space before the closing brace */
	strcpy(j + strlen(head) + 3 * k, "\" }");
	b = iconv16(j, 1, &n);
	assert_int_equal(n, 4098);
	assert_false(read16(b, n, &h, &why));
	assert_string_equal(why, "longer than 4096 bytes");
	assert_false(er_location_read(b, 4097, ER_LOC_UTF8, &h, &why));
	assert_string_equal(why, "longer than 4096 bytes");
	free(b);
	assert_false(er_location_read("", 0, ER_LOC_UTF8, &h, &why));
	assert_string_equal(why, "empty");
}

/* The converter alone, against iconv, and its bound */
static void test_utf16_converter(void **state)
{
	(void)state;
	const char *texts[] = { "a", "{}", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xef\xbf\xbd", "\xef\xbf\xbf",
				"\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "x\xe2\x82\xac y\xf0\x9f\x98\x80z" };
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t n;
		uint8_t *b = iconv16(texts[i], 1, &n);
		char out[64];
		const char *why;
		long got = er_utf16le_to_utf8(b, n, out, sizeof(out), &why);
		assert_int_equal(got, (long)strlen(texts[i]));
		assert_memory_equal(out, texts[i], strlen(texts[i]));
		/* one byte short of room */
		assert_int_equal(er_utf16le_to_utf8(b, n, out, strlen(texts[i]) - 1, &why), -1);
		assert_string_equal(why, "too long");
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_example),
		cmocka_unit_test(test_swapfile_offset_and_spacing),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncations_never_overrun),
		cmocka_unit_test(test_values_of_every_kind),
		cmocka_unit_test(test_offset_range),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_systemd_all_members),
		cmocka_unit_test(test_swap_uuid),
		cmocka_unit_test(test_fs_uuid_ext4_mkfs),
		cmocka_unit_test(test_fs_uuid_xfs_btrfs_none),
		cmocka_unit_test(test_luks_lv),
		cmocka_unit_test(test_luks_lv_malformed),
		cmocka_unit_test(test_luks_uuid_cryptsetup),
		cmocka_unit_test(test_utf16_as_systemd_writes),
		cmocka_unit_test(test_same_place),
		cmocka_unit_test(test_utf16_without_nul),
		cmocka_unit_test(test_utf16_odd_and_truncated),
		cmocka_unit_test(test_utf16_embedded_nul),
		cmocka_unit_test(test_utf16_surrogates),
		cmocka_unit_test(test_utf16_refuses_utf8),
		cmocka_unit_test(test_utf16_json_rules),
		cmocka_unit_test(test_utf16_size_limits),
		cmocka_unit_test(test_utf16_converter),
	};
	return cmocka_run_group_tests_name("location", tests, NULL, NULL);
}
