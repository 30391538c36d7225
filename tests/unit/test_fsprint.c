// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for volume/fsprint.c and loader/seen.c: fingerprints of real ext4, XFS and
 * Btrfs superblocks (made by mkfs, then really mounted and written through a loop
 * device), and the EfiresumeSeen record (round trip, every corruption refused). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "volume/fsprint.h"
#include "loader/seen.h"
#include "loader/location.h"

static char dir[] = "/tmp/efiresume-fsprint-XXXXXX";

static int run(const char *cmd)
{
	char c[2048];
	if ((size_t)snprintf(c, sizeof(c), "%s >/dev/null 2>&1", cmd) >= sizeof(c))
		return -1;
	return system(c);
}

static void read_head(const char *path, uint8_t *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, n, f), n);
	fclose(f);
}

static void uuid_of(const char *path, char out[37])
{
	char c[512];
	snprintf(c, sizeof(c), "blkid -p -s UUID -o value %s", path);
	FILE *p = popen(c, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, 37, p));
	pclose(p);
}

/* mkfs, fingerprint; mount through a loop device, write a file, unmount; fingerprint */
static void mount_and_write(const char *img, const char *mkfs, uint8_t kind, const char *want_why)
{
	static uint8_t buf[ER_FSPRINT_BYTES];
	char c[1024], u[37], blk[37];
	struct er_fsprint a, b, a2;
	snprintf(c, sizeof(c), "%s %s", mkfs, img);
	assert_int_equal(run(c), 0);
	read_head(img, buf, sizeof(buf));
	assert_true(er_fsprint(buf, sizeof(buf), &a));
	assert_int_equal(a.kind, kind);
	er_uuid_format(a.uuid, u);
	uuid_of(img, blk);
	assert_string_equal(u, blk);                        /* the UUID blkid reports */
	/* the same bytes give the same print, nothing changed */
	assert_true(er_fsprint(buf, sizeof(buf), &a2));
	assert_true(er_fsprint_same_fs(&a, &a2));
	char why[160] = "";
	assert_false(er_fsprint_changed(&a, &a2, why, sizeof(why)));
	/* a real mount and write */
	snprintf(c, sizeof(c), "mkdir -p %s/mnt && mount -o loop %s %s/mnt && echo data > %s/mnt/f && umount %s/mnt", dir,
		 img, dir, dir, dir);
	assert_int_equal(run(c), 0);
	read_head(img, buf, sizeof(buf));
	assert_true(er_fsprint(buf, sizeof(buf), &b));
	assert_true(er_fsprint_same_fs(&a, &b));
	assert_true(er_fsprint_changed(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, want_why));
}

static void test_ext4(void **state)
{
	(void)state;
	char img[256];
	snprintf(img, sizeof(img), "%s/ext4.img", dir);
	char c[512];
	snprintf(c, sizeof(c), "truncate -s 16M %s", img);
	assert_int_equal(run(c), 0);
	mount_and_write(img, "mkfs.ext4 -q -F", ER_FS_EXT4, "was mounted since the hibernation (mount count 0 -> 1)");
}

static void test_xfs(void **state)
{
	(void)state;
	char img[256], c[512];
	snprintf(img, sizeof(img), "%s/xfs.img", dir);
	snprintf(c, sizeof(c), "truncate -s 300M %s", img);
	assert_int_equal(run(c), 0);
	mount_and_write(img, "mkfs.xfs -q -f", ER_FS_XFS, "its superblock changed");
}

static void test_btrfs(void **state)
{
	(void)state;
	char img[256], c[512];
	snprintf(img, sizeof(img), "%s/btrfs.img", dir);
	snprintf(c, sizeof(c), "truncate -s 200M %s", img);
	assert_int_equal(run(c), 0);
	mount_and_write(img, "mkfs.btrfs -q -f", ER_FS_BTRFS, "(generation ");
}

static void test_not_a_filesystem(void **state)
{
	(void)state;
	static uint8_t buf[ER_FSPRINT_BYTES];
	struct er_fsprint p;
	memset(buf, 0, sizeof(buf));
	assert_false(er_fsprint(buf, sizeof(buf), &p));
	memcpy(buf + 65536 + 0x40, "_BHRfS_M", 8);
	assert_false(er_fsprint(buf, 65536, &p));           /* too short for Btrfs */
	assert_true(er_fsprint(buf, sizeof(buf), &p));
	buf[1024 + 0x38] = 0x53;
	buf[1024 + 0x39] = 0xef;
	assert_false(er_fsprint(buf, 2047, &p));            /* too short for ext4 */
	assert_true(er_fsprint(buf, 2048, &p));
	assert_int_equal(p.kind, ER_FS_EXT4);
}

static struct er_seen sample(uint32_t n)
{
	struct er_seen s;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 16; i++)
		s.swap_uuid[i] = (uint8_t)(i * 7 + 1);
	s.image_id = 0xdeadbeef;
	s.n = n;
	for (uint32_t i = 0; i < n; i++) {
		s.fs[i].kind = (uint8_t)(ER_FS_EXT4 + i % 3);
		memset(s.fs[i].uuid, (int)i + 1, 16);
		s.fs[i].sb_crc = 0x1000 + i;
		s.fs[i].mtime = 77 + i;
		s.fs[i].mounts = 5 + i;
		s.fs[i].written = (uint64_t)1 << 40 | i;
	}
	return s;
}

static void test_seen_round_trip_and_corruption(void **state)
{
	(void)state;
	uint8_t buf[ER_SEEN_MAX_BYTES];
	for (uint32_t n = 0; n <= ER_SEEN_MAX_FS; n += 8) {
		struct er_seen s = sample(n), d;
		size_t len = er_seen_encode(&s, buf, sizeof(buf));
		assert_int_equal(len, 32 + n * ER_SEEN_ENTRY_BYTES + 4);
		assert_true(er_seen_decode(buf, len, &d));
		assert_memory_equal(&s, &d, sizeof(s));
		/* every single-bit flip anywhere is refused */
		for (size_t i = 0; i < len; i++)
			for (int bit = 0; bit < 8; bit++) {
				buf[i] ^= (uint8_t)(1 << bit);
				assert_false(er_seen_decode(buf, len, &d));
				buf[i] ^= (uint8_t)(1 << bit);
			}
		/* and every truncation or extension */
		for (size_t l = 0; l < len; l++)
			assert_false(er_seen_decode(buf, l, &d));
		assert_false(er_seen_decode(buf, len + 1, &d));
	}
	struct er_seen big = sample(ER_SEEN_MAX_FS);
	big.n = ER_SEEN_MAX_FS + 1;
	assert_int_equal(er_seen_encode(&big, buf, sizeof(buf)), 0);
	big.n = 2;
	assert_int_equal(er_seen_encode(&big, buf, 40), 0);   /* too small a buffer */
}

static void test_seen_compare(void **state)
{
	(void)state;
	struct er_seen then = sample(3);
	struct er_fsprint now[3];
	char why[160];
	memcpy(now, then.fs, sizeof(now));
	assert_int_equal(er_seen_compare(&then, now, 3, why, sizeof(why)), -1);
	/* a filesystem not visible now is not judged */
	assert_int_equal(er_seen_compare(&then, now + 1, 2, why, sizeof(why)), -1);
	/* order does not matter; the changed one is named */
	struct er_fsprint swapped[3] = { now[2], now[0], now[1] };
	swapped[1].mounts++;   /* then->fs[0] (ext4) mounted once more */
	assert_int_equal(er_seen_compare(&then, swapped, 3, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "mount count 5 -> 6"));
	/* a new filesystem that was not recorded changes nothing */
	struct er_fsprint other = now[0];
	other.uuid[0] ^= 1;
	other.mounts += 9;
	assert_int_equal(er_seen_compare(&then, &other, 1, why, sizeof(why)), -1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char c[512];
	snprintf(c, sizeof(c), "umount %s/mnt 2>/dev/null; rm -rf %s", dir, dir);
	return system(c) < 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext4),
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_not_a_filesystem),
		cmocka_unit_test(test_seen_round_trip_and_corruption),
		cmocka_unit_test(test_seen_compare),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
