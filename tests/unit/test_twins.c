// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/twins.c, issue 24 finding 4: a LUKS device whose header was not read (an I/O
 * error, or a container beyond the ones looked at) is still a member of the group of its
 * UUID (as the probe saw it): its readable twin must not be unlocked alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "loader/twins.h"
#include "luks_fixture.h"  /* luks_hdr_fill */

static const char *U = "6ce86568-1c76-4e86-844e-0579d53755ed";
static const char *OTHER = "11111111-2222-3333-4444-555555555555";

/* RAID1 member 0 readable, member 1 an I/O error past the binary header (its UUID known
 * from the probe), and an unrelated container */
static void t_unreadable_member(void **state)
{
	(void)state;
	static struct er_luks_header h[3];
	bool ok[3] = { true, false, true }, refused[3];
	unsigned lead[3];
	luks_hdr_fill(&h[0], U);
	memset(&h[1], 0, sizeof(h[1]));
	snprintf(h[1].uuid, sizeof(h[1].uuid), "%s", U);
	luks_hdr_fill(&h[2], OTHER);
	er_luks_twins(h, ok, 3, lead, refused);
	assert_int_equal(lead[0], 0);
	assert_int_equal(lead[2], 2);
	if (!refused[0])
		fail_msg("member 0 is unlocked alone while its twin (member 1) could not be read");
	assert_int_equal(lead[1], 0);
	assert_false(refused[2]);

	/* the unreadable one first: the same */
	luks_hdr_fill(&h[1], U);
	memset(&h[0], 0, sizeof(h[0]));
	snprintf(h[0].uuid, sizeof(h[0].uuid), "%s", U);
	bool ok2[3] = { false, true, true };
	er_luks_twins(h, ok2, 3, lead, refused);
	assert_int_equal(lead[1], 1);
	assert_true(refused[1]);
	assert_false(refused[2]);
}

/* 8 containers looked at, the 9th (not looked at: ok false, its UUID from the probe) is
 * the twin of the 3rd */
static void t_ninth_container(void **state)
{
	(void)state;
	static struct er_luks_header h[9];
	bool ok[9], refused[9];
	unsigned lead[9];
	for (unsigned k = 0; k < 8; k++) {
		char u[41];
		snprintf(u, sizeof(u), "%08x-1c76-4e86-844e-0579d53755ed", k);
		luks_hdr_fill(&h[k], u);
		ok[k] = true;
	}
	memset(&h[8], 0, sizeof(h[8]));
	snprintf(h[8].uuid, sizeof(h[8].uuid), "%s", h[2].uuid);
	ok[8] = false;
	er_luks_twins(h, ok, 9, lead, refused);
	if (!refused[2])
		fail_msg("container 2 is unlocked alone while its twin (the 9th, not looked at) is not");
	for (unsigned k = 0; k < 8; k++)
		if (k != 2)
			assert_false(refused[k]);
}

/* a device not read whose UUID is not known either: it may be anyone's twin */
static void t_unknown_uuid(void **state)
{
	(void)state;
	static struct er_luks_header h[3];
	bool ok[3] = { true, true, false }, refused[3];
	unsigned lead[3];
	luks_hdr_fill(&h[0], U);
	luks_hdr_fill(&h[1], OTHER);
	memset(&h[2], 0, sizeof(h[2]));
	er_luks_twins(h, ok, 3, lead, refused);
	assert_true(refused[0]);
	assert_true(refused[1]);
	/* every header read: nothing refused */
	ok[2] = true;
	luks_hdr_fill(&h[2], "22222222-2222-3333-4444-555555555555");
	er_luks_twins(h, ok, 3, lead, refused);
	assert_false(refused[0] || refused[1] || refused[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_unreadable_member),
		cmocka_unit_test(t_ninth_container),
		cmocka_unit_test(t_unknown_uuid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
