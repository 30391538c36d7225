// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/twins.c: the UUID of a LUKS device as the probe saw it (er_luks_uuid_seen), the
 * twin check's key for a header that could not be read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "loader/twins.h"

static void t_seen(void **state)
{
	(void)state;
	static uint8_t b[4096];
	char u[41];
	const char *id = "6ce86568-1c76-4e86-844e-0579d53755ed";
	memcpy(b, "LUKS\xba\xbe\x00\x02", 8);
	memcpy(b + 168, id, strlen(id));
	assert_true(er_luks_uuid_seen(b, sizeof(b), u));
	assert_string_equal(u, id);
	b[7] = 1;       /* LUKS1: the same place */
	assert_true(er_luks_uuid_seen(b, sizeof(b), u));
	assert_string_equal(u, id);
	/* not terminated within 40 bytes, empty, no magic, too short */
	memset(b + 168, 'a', 40);
	assert_false(er_luks_uuid_seen(b, sizeof(b), u));
	assert_string_equal(u, "");
	memset(b + 168, 0, 40);
	assert_false(er_luks_uuid_seen(b, sizeof(b), u));
	memcpy(b + 168, id, strlen(id));
	assert_false(er_luks_uuid_seen(b, 200, u));
	b[0] = 'X';
	assert_false(er_luks_uuid_seen(b, sizeof(b), u));
	assert_string_equal(u, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
