// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/find.c: which swap partition or swap file er_find_image takes, and
 * when it flags the location variable stale (loader.c then deletes EfiresumeLocation).
 *
 * find.c is compiled into this test against a stand-in for efi/efi.h (the include guard is
 * defined first): block devices are buffers in memory, the log is kept in a buffer the
 * tests read, variables are not there. Only what find.c uses is provided. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <cmocka.h>

/* ---- the stand-in for efi/efi.h */
#define EFIRESUME_EFI_EFI_H
#include "image/freestanding.h"
#include "image/swsusp.h"

typedef uint8_t UINT8;
typedef uint16_t UINT16;
typedef uint32_t UINT32;
typedef uint64_t UINT64;
typedef int32_t INT32;
typedef uint64_t UINTN;
typedef int64_t INTN;
typedef uint8_t BOOLEAN;
typedef wchar_t CHAR16;   /* L"..." literals as they are */
typedef uint64_t EFI_STATUS;
typedef struct {
	UINT32 Data1;
	UINT16 Data2, Data3;
	UINT8 Data4[8];
} EFI_GUID;
#define TRUE 1
#define FALSE 0
#define EFI_SUCCESS 0
#define EFI_ERR(n) (((EFI_STATUS)1 << 63) | (n))
#define EFI_ERROR(s) (((INTN)(s)) < 0)
#define EFI_DEVICE_ERROR EFI_ERR(7)
#define EFI_OUT_OF_RESOURCES EFI_ERR(9)
#define EFI_NOT_FOUND EFI_ERR(14)
#define EFI_END_OF_MEDIA EFI_ERR(28)
#define ER_VAR_NV_BS_RT 7

enum er_part_scheme { ER_PART_NONE = 0, ER_PART_MBR = 1, ER_PART_GPT = 2 };
struct er_blockdev {
	UINT8 *data;   /* the device's bytes (test only) */
	UINT64 size;
	enum er_part_scheme scheme;
	UINT32 part_number;
	UINT8 partuuid[16];
	BOOLEAN type_swap;
	char id[48];
};

static char logbuf[16384];
static size_t loglen;

/* efi/log.c's format, as far as find.c uses it: %a (char *), %s (CHAR16 *), %ld/%d (64 bits) */
static void log_add(const char *prefix, const CHAR16 *fmt, va_list ap)
{
	char *out = logbuf + loglen;
	size_t cap = sizeof(logbuf) - loglen, o = (size_t)snprintf(out, cap, "%s", prefix);
	for (const CHAR16 *f = fmt; *f && o + 256 < cap; f++) {
		if (*f != L'%') {
			out[o++] = (char)*f;
			continue;
		}
		f++;
		while (*f >= L'0' && *f <= L'9')
			f++;
		if (*f == L'l')
			f++;
		if (*f == L'a')
			o += (size_t)snprintf(out + o, cap - o, "%s", va_arg(ap, const char *));
		else if (*f == L's')
			o += (size_t)snprintf(out + o, cap - o, "%ls", va_arg(ap, const CHAR16 *));
		else if (*f == L'd')
			o += (size_t)snprintf(out + o, cap - o, "%lld", (long long)va_arg(ap, INTN));
		else
			out[o++] = (char)*f;
	}
	out[o] = 0;
	loglen += o;
}

static void log_info(const CHAR16 *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_add("", fmt, ap);
	va_end(ap);
}

static void log_warn(const CHAR16 *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_add("warning: ", fmt, ap);
	va_end(ap);
}

static EFI_STATUS er_alloc_zero(UINTN size, void **out)
{
	*out = calloc(1, size);
	return *out ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
}

static void er_free(void *p)
{
	free(p);
}

static EFI_STATUS er_alloc_pages(UINTN pages, void **out)
{
	*out = aligned_alloc(ER_PAGE_SIZE, pages * ER_PAGE_SIZE);
	return *out ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
}

static void er_free_pages(void *p, UINTN pages)
{
	(void)pages;
	free(p);
}

static EFI_STATUS er_blockdev_read(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len)
{
	if (offset > d->size || len > d->size - offset)
		return EFI_DEVICE_ERROR;
	memcpy(buf, d->data + offset, len);
	return EFI_SUCCESS;
}

static EFI_STATUS er_blockdev_probe(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len)
{
	return er_blockdev_read(d, offset, buf, len);
}

static EFI_STATUS er_blockdev_probe_head(const struct er_blockdev *d, void *buf, UINTN max, UINTN least, UINTN *got)
{
	*got = d->size < max ? d->size : max;
	if (*got < least)
		return EFI_END_OF_MEDIA;
	return er_blockdev_read(d, 0, buf, *got);
}

/* no variable is set: the hint is handed to er_find_image directly */
static EFI_STATUS er_get_variable(const CHAR16 *name, const EFI_GUID *guid, UINTN max, void **data, UINTN *size)
{
	(void)name, (void)guid, (void)max, (void)data, (void)size;
	return EFI_NOT_FOUND;
}

static int vars_set;
static EFI_STATUS er_set_variable(const CHAR16 *name, const EFI_GUID *guid, UINT32 attr, const void *data, UINTN size)
{
	(void)name, (void)guid, (void)attr, (void)data, (void)size;
	vars_set++;
	return EFI_SUCCESS;
}

static const EFI_GUID er_vendor_guid = { 0x1, 0x2, 0x3, { 4, 5, 6, 7, 8, 9, 10, 11 } };

#include "loader/find.c"

/* loader/volumes.c: no logical volume here */
bool er_volume_is_lv(const struct er_blockdev *d, const char *spec)
{
	(void)d, (void)spec;
	return false;
}

/* ---- the devices */

#define DEV_PAGES 64
#define FILE_AT 16   /* the swap file's first block: page 16 of its filesystem */

static struct er_blockdev devs[4];
static UINTN ndevs;

static struct er_blockdev *add_dev(const char *id)
{
	struct er_blockdev *d = &devs[ndevs++];
	memset(d, 0, sizeof(*d));
	d->size = DEV_PAGES * ER_PAGE_SIZE;
	d->data = calloc(1, d->size);
	d->scheme = ER_PART_GPT;
	memset(d->partuuid, (int)ndevs, 16);
	snprintf(d->id, sizeof(d->id), "%s", id);
	return d;
}

/* a swap header (page 0 of a swap area) at page `at` of d: its UUID and signature */
static void put_swap(struct er_blockdev *d, UINT64 at, uint8_t uuid_byte, const char *sig)
{
	uint8_t *p = d->data + at * ER_PAGE_SIZE;
	memset(p + 1036, uuid_byte, 16);
	memcpy(p + ER_HDR_ORIG_SIG, "SWAPSPACE2", 10);
	memcpy(p + ER_HDR_SIG, sig, 10);
}

/* an ext4 filesystem with the UUID fs_byte.. holding a swap file (with an image when sig
 * is "S1SUSPEND") at page FILE_AT */
static struct er_blockdev *add_fs_with_file(const char *id, uint8_t fs_byte, uint8_t swap_byte, const char *sig)
{
	struct er_blockdev *d = add_dev(id);
	d->data[1024 + 0x38] = 0x53;
	d->data[1024 + 0x39] = 0xEF;
	memset(d->data + 1024 + 0x68, fs_byte, 16);
	put_swap(d, FILE_AT, swap_byte, sig);
	return d;
}

static struct er_blockdev *add_swap_partition(const char *id, uint8_t uuid_byte, const char *sig)
{
	struct er_blockdev *d = add_dev(id);
	d->type_swap = TRUE;
	put_swap(d, 0, uuid_byte, sig);
	return d;
}

static struct er_config cfg;
static struct er_hint hint;

static int setup(void **state)
{
	(void)state;
	ndevs = 0;
	loglen = 0;
	logbuf[0] = 0;
	vars_set = 0;
	er_config_defaults(&cfg);
	memset(&hint, 0, sizeof(hint));
	hint.name = L"EfiresumeLocation";
	hint.ours = TRUE;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (UINTN i = 0; i < ndevs; i++)
		free(devs[i].data);
	return 0;
}

/* the location variable names the swap file: filesystem UUID + offset */
static void hint_file(uint8_t fs_byte)
{
	hint.have = TRUE;
	memset(hint.loc.uuid, fs_byte, 16);
	hint.loc.offset = FILE_AT;
}

static void hint_partition(uint8_t uuid_byte)
{
	hint.have = TRUE;
	memset(hint.loc.uuid, uuid_byte, 16);
}

static struct er_swapdev find(void)
{
	struct er_swapdev image;
	assert_int_equal(er_find_image(&cfg, &hint, devs, ndevs, &image), EFI_SUCCESS);
	return image;
}

/* ---- swap files */

static void test_hint_file_taken(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=swap", 0x22, "SWAPSPACE2");
	struct er_blockdev *fs = add_fs_with_file("PARTUUID=root", 0xf1, 0x55, "S1SUSPEND");
	hint_file(0xf1);
	struct er_swapdev image = find();
	assert_ptr_equal(image.dev, fs);
	assert_int_equal(image.header_page, FILE_AT);
	assert_true(image.named);
	assert_false(image.stale_location);
}

/* the named swap file holds no image: the hint is stale (deleted), nothing else taken */
static void test_hint_file_stale(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=swap", 0x22, "S1SUSPEND");
	add_fs_with_file("PARTUUID=root", 0xf1, 0x55, "SWAPSPACE2");
	hint_file(0xf1);
	struct er_swapdev image = find();
	assert_null(image.dev);
	assert_true(image.stale_location);
}

/* `resume UUID=` names a swap area: the configuration wins over the location variable
 * (efiresume.conf(5)); a swap file whose swap area has another UUID is not taken, and
 * neither is an image elsewhere (it would be an older one) (issue 24 finding 1) */
static void test_hint_file_resume_uuid_excludes(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=swap", 0x22, "S1SUSPEND");
	add_fs_with_file("PARTUUID=root", 0xf1, 0x55, "S1SUSPEND");
	hint_file(0xf1);
	cfg.have_resume_uuid = true;
	memset(cfg.resume_uuid, 0x22, 16);
	struct er_swapdev image = find();
	assert_null(image.dev);
	assert_false(image.stale_location);   /* the image is there: the variable is right */
	assert_non_null(strstr(logbuf, "excludes"));
}

/* ... and one naming the swap file's own swap area takes it */
static void test_hint_file_resume_uuid_names_it(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=swap", 0x22, "SWAPSPACE2");
	struct er_blockdev *fs = add_fs_with_file("PARTUUID=root", 0xf1, 0x55, "S1SUSPEND");
	hint_file(0xf1);
	cfg.have_resume_uuid = true;
	memset(cfg.resume_uuid, 0x55, 16);
	struct er_swapdev image = find();
	assert_ptr_equal(image.dev, fs);
	assert_int_equal(image.header_page, FILE_AT);
	/* the filesystem holding it (Debian's RESUME=UUID= without the offset) names it too */
	memset(cfg.resume_uuid, 0xf1, 16);
	image = find();
	assert_ptr_equal(image.dev, fs);
}

/* two filesystems with the hinted UUID (RAID1 members, a cloned disk): refused, logged as
 * an ambiguous location, and the variable is not flagged stale: the image is there
 * (issue 24 finding 5) */
static void test_hint_file_ambiguous(void **state)
{
	(void)state;
	add_fs_with_file("PARTUUID=a", 0xf1, 0x55, "S1SUSPEND");
	add_fs_with_file("PARTUUID=b", 0xf1, 0x55, "S1SUSPEND");
	hint_file(0xf1);
	struct er_swapdev image = find();
	assert_null(image.dev);
	assert_false(image.stale_location);
	assert_null(strstr(logbuf, "no image"));
	assert_non_null(strstr(logbuf, "ambiguous"));
}

/* ---- swap partitions */

static void test_hint_partition_taken(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=old", 0x11, "S1SUSPEND");
	struct er_blockdev *named = add_swap_partition("PARTUUID=new", 0x22, "S1SUSPEND");
	hint_partition(0x22);
	struct er_swapdev image = find();
	assert_ptr_equal(image.dev, named);
	assert_true(image.named);
}

/* the named swap partition holds no image: stale, and an image elsewhere (older than the
 * last hibernation) is not taken, as for a swap file (issue 24 finding 6) */
static void test_hint_partition_stale_takes_nothing(void **state)
{
	(void)state;
	add_swap_partition("PARTUUID=old", 0x11, "S1SUSPEND");
	add_swap_partition("PARTUUID=named", 0x22, "SWAPSPACE2");
	hint_partition(0x22);
	struct er_swapdev image = find();
	assert_null(image.dev);
	assert_true(image.stale_location);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hint_file_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_file_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_file_resume_uuid_excludes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_file_resume_uuid_names_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_file_ambiguous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_partition_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_partition_stale_takes_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
