// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/select.c: which image to resume when several devices, twins
 * (RAID1 members, cloned disks) or a location variable are involved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loader/select.h"
#include "image/swsusp.h"

static struct er_candidate cand(enum er_swap_kind k, uint8_t uuid_byte, uint8_t tail_byte)
{
	struct er_candidate c;
	memset(&c, 0, sizeof(c));
	c.kind = (uint8_t)k;
	c.eligible = true;
	if (k != ER_SWAP_NONE)
		memset(c.uuid, uuid_byte, 16);
	memset(c.tail, tail_byte, sizeof(c.tail));
	return c;
}

static void test_no_image(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_PLAIN, 1, 0), cand(ER_SWAP_NONE, 0, 0) };
	struct er_selection s;
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_NONE);
}

static void test_first_eligible_image(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_PLAIN, 1, 0), cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_IMAGE, 3, 8) };
	struct er_selection s;
	er_select_image(c, 3, NULL, &s);
	assert_int_equal(s.index, 1);
	assert_int_equal(s.why, ER_SEL_FIRST);
	c[1].eligible = false;   /* `resume PARTUUID=` names the third */
	er_select_image(c, 3, NULL, &s);
	assert_int_equal(s.index, 2);
}

/* RAID1 members (metadata at the end) show one swap area twice, byte for byte. */
static void test_identical_twins_refused(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 4, 9), cand(ER_SWAP_PLAIN, 1, 0), cand(ER_SWAP_IMAGE, 4, 9) };
	struct er_selection s;
	er_select_image(c, 3, NULL, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_TWIN);
	assert_int_equal(s.subject, 0);
	assert_int_equal(s.twin, 2);
	assert_true(s.identical);
}

/* A cloned disk that hibernated on its own: same swap UUID, another image. Still
 * refused: either one may be resumed later over filesystems that moved on. */
static void test_same_uuid_other_image_refused(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 4, 9), cand(ER_SWAP_IMAGE, 4, 10) };
	struct er_selection s;
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.why, ER_SEL_TWIN);
	assert_false(s.identical);
	assert_int_equal(s.index, -1);
}

/* The twin counts even where `resume` does not look: the kernel's own resume might. */
static void test_twin_outside_configured_device(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 4, 9), cand(ER_SWAP_IMAGE, 4, 9) };
	c[1].eligible = false;
	struct er_selection s;
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.why, ER_SEL_TWIN);
}

/* Two swap areas (different UUIDs) each with an image: not twins. */
static void test_different_areas_not_twins(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 4, 9), cand(ER_SWAP_IMAGE, 5, 9) };
	struct er_selection s;
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.index, 0);
	assert_int_equal(s.why, ER_SEL_FIRST);
}

/* Areas without a UUID (all zero) are twins only when page 0 is the same. */
static void test_zero_uuid_compares_page0(void **state)
{
	(void)state;
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 0, 9), cand(ER_SWAP_IMAGE, 0, 10) };
	struct er_selection s;
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.index, 0);
	c[1] = cand(ER_SWAP_IMAGE, 0, 9);
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.why, ER_SEL_TWIN);
}

static void test_hint_picks_named(void **state)
{
	(void)state;
	uint8_t hint[16];
	memset(hint, 3, 16);
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_IMAGE, 3, 8) };
	struct er_selection s;
	er_select_image(c, 2, hint, &s);
	assert_int_equal(s.index, 1);
	assert_int_equal(s.why, ER_SEL_HINT);
}

/* The named swap area is not visible (a disk the firmware cannot see): another image
 * would be an older one; nothing is taken. */
static void test_hint_missing_takes_nothing(void **state)
{
	(void)state;
	uint8_t hint[16];
	memset(hint, 9, 16);
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_PLAIN, 3, 0) };
	struct er_selection s;
	er_select_image(c, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_MISSING);
}

/* The named area is there without an image (the kernel resumed it, or the hibernation
 * failed): the hint is stale, and an image elsewhere is older than the last hibernation:
 * nothing is taken, as for a stale hint naming a swap file (issue 24 finding 6). */
static void test_hint_stale(void **state)
{
	(void)state;
	uint8_t hint[16];
	memset(hint, 3, 16);
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_PLAIN, 3, 0) };
	struct er_selection s;
	er_select_image(c, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_STALE);
	struct er_candidate d[] = { cand(ER_SWAP_PLAIN, 3, 0) };
	er_select_image(d, 1, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_STALE);
}

/* The named area holds an image that has a twin: refused, not the next image. */
static void test_hint_with_twin(void **state)
{
	(void)state;
	uint8_t hint[16];
	memset(hint, 3, 16);
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_IMAGE, 3, 8), cand(ER_SWAP_IMAGE, 3, 8) };
	struct er_selection s;
	er_select_image(c, 3, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_TWIN);
	assert_int_equal(s.subject, 1);
}

/* Issue 15 defect 7: the hint names a swap area whose image the configuration excludes
 * (`resume` names another device, or another swap UUID): the image the hint names is
 * the last hibernation, so another image would be an older one. Nothing is taken, as
 * for a hint naming a swap area that is not visible. */
static void test_hint_excluded_takes_nothing(void **state)
{
	(void)state;
	uint8_t hint[16];
	memset(hint, 3, 16);
	struct er_candidate c[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_IMAGE, 3, 8) };
	c[1].eligible = false;
	struct er_selection s;
	er_select_image(c, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_EXCLUDED);
	/* the image named first, the eligible one after it */
	struct er_candidate d[] = { cand(ER_SWAP_IMAGE, 3, 8), cand(ER_SWAP_IMAGE, 2, 7) };
	d[0].eligible = false;
	er_select_image(d, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_EXCLUDED);
	/* a 2004-format image counts as an image too */
	d[0].kind = ER_SWAP_IMAGE_2004;
	er_select_image(d, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_EXCLUDED);
	/* the same area without an image, excluded: a stale hint; the configuration's image
	 * is older than the last hibernation: not taken either */
	struct er_candidate e[] = { cand(ER_SWAP_IMAGE, 2, 7), cand(ER_SWAP_PLAIN, 3, 0) };
	e[1].eligible = false;
	er_select_image(e, 2, hint, &s);
	assert_int_equal(s.index, -1);
	assert_int_equal(s.why, ER_SEL_HINT_STALE);
	/* no hint: the configuration alone decides */
	er_select_image(c, 2, NULL, &s);
	assert_int_equal(s.index, 0);
	assert_int_equal(s.why, ER_SEL_FIRST);
	assert_string_equal(er_select_why_text(ER_SEL_HINT_EXCLUDED),
			    "the swap area the location variable names holds an image the resume configuration excludes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_image),
		cmocka_unit_test(test_first_eligible_image),
		cmocka_unit_test(test_identical_twins_refused),
		cmocka_unit_test(test_same_uuid_other_image_refused),
		cmocka_unit_test(test_twin_outside_configured_device),
		cmocka_unit_test(test_different_areas_not_twins),
		cmocka_unit_test(test_zero_uuid_compares_page0),
		cmocka_unit_test(test_hint_picks_named),
		cmocka_unit_test(test_hint_missing_takes_nothing),
		cmocka_unit_test(test_hint_stale),
		cmocka_unit_test(test_hint_with_twin),
		cmocka_unit_test(test_hint_excluded_takes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
