// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for loader/commit.c: the point of no return under scripted firmware
 * behaviour (a map that grows, ExitBootServices failing, a signature write failing). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "loader/commit.h"

/* A scripted firmware and disk. Each call consumes the next scripted status (0 when the
 * script is exhausted); the log records the order of calls. */
struct fw {
	int map[16], nmap, imap;            /* get_map results */
	int ebs[16], nebs, iebs;            /* exit_bs results */
	int commit_r, uncommit_r;
	/* what happened */
	char log[256];
	bool ebs_called;                    /* ExitBootServices was called at least once */
	bool boot_service_after_ebs;        /* anything but GetMemoryMap/EBS after the first EBS call */
	bool grew_after_ebs;                /* get_map(may_grow = true) after the first EBS call */
	bool signature_reset, reset_called;
};

static void logc(struct fw *f, char c)
{
	size_t n = strlen(f->log);
	if (n + 1 < sizeof(f->log)) {
		f->log[n] = c;
		f->log[n + 1] = 0;
	}
}

static int get_map(void *ctx, bool may_grow)
{
	struct fw *f = ctx;
	logc(f, may_grow ? 'M' : 'm');
	if (f->ebs_called && may_grow)
		f->grew_after_ebs = true;
	return f->imap < f->nmap ? f->map[f->imap++] : 0;
}

static int exit_bs(void *ctx)
{
	struct fw *f = ctx;
	logc(f, 'E');
	f->ebs_called = true;
	return f->iebs < f->nebs ? f->ebs[f->iebs++] : 0;
}

static int commit(void *ctx)
{
	struct fw *f = ctx;
	logc(f, 'C');
	if (f->ebs_called)
		f->boot_service_after_ebs = true;
	if (f->commit_r == 0)
		f->signature_reset = true;
	return f->commit_r;
}

static int uncommit(void *ctx)
{
	struct fw *f = ctx;
	logc(f, 'U');
	if (f->ebs_called)
		f->boot_service_after_ebs = true;
	if (f->uncommit_r == 0)
		f->signature_reset = false;
	return f->uncommit_r;
}

static void reset(void *ctx)
{
	struct fw *f = ctx;
	logc(f, 'R');
	f->reset_called = true;
}

static void note(void *ctx, const char *what, int status)
{
	struct fw *f = ctx;
	(void)what;
	(void)status;
	if (f->ebs_called)
		f->boot_service_after_ebs = true;   /* output is a boot service (ConOut) */
}

static enum er_pnr_result run(struct fw *f)
{
	struct er_pnr_ops ops = { f, get_map, exit_bs, commit, uncommit, reset, note };
	return er_point_of_no_return(&ops);
}

static void test_clean_exit(void **state)
{
	(void)state;
	struct fw f = { 0 };
	assert_int_equal(run(&f), ER_PNR_EXITED);
	/* map first, then the signature, then a fresh map and ExitBootServices */
	assert_string_equal(f.log, "MCME");
	assert_true(f.signature_reset);
}

static void test_no_map_nothing_written(void **state)
{
	(void)state;
	struct fw f = { .map = { -1 }, .nmap = 1 };
	assert_int_equal(run(&f), ER_PNR_NOT_COMMITTED);
	assert_string_equal(f.log, "M");
	assert_false(f.signature_reset);
}

static void test_commit_fails(void **state)
{
	(void)state;
	struct fw f = { .commit_r = -1 };
	assert_int_equal(run(&f), ER_PNR_NOT_COMMITTED);
	assert_string_equal(f.log, "MC");
	assert_false(f.ebs_called);
}

/* The map could not be fetched after the signature write, before any ExitBootServices
 * call: the signature goes back, the image is kept. */
static void test_map_fails_before_ebs_puts_signature_back(void **state)
{
	(void)state;
	struct fw f = { .map = { 0, ER_PNR_MAP_TOO_SMALL }, .nmap = 2 };
	assert_int_equal(run(&f), ER_PNR_NOT_COMMITTED);
	assert_string_equal(f.log, "MCMU");
	assert_false(f.signature_reset);
	assert_false(f.ebs_called);
}

static void test_uncommit_fails_is_lost(void **state)
{
	(void)state;
	struct fw f = { .map = { 0, -1 }, .nmap = 2, .uncommit_r = -1 };
	assert_int_equal(run(&f), ER_PNR_LOST);
	assert_true(f.signature_reset);
}

/* EFI_INVALID_PARAMETER once (the map changed): only GetMemoryMap (without growing) and
 * ExitBootServices again. */
static void test_stale_key_retried_without_boot_services(void **state)
{
	(void)state;
	struct fw f = { .ebs = { ER_PNR_STALE_KEY, ER_PNR_STALE_KEY }, .nebs = 2 };
	assert_int_equal(run(&f), ER_PNR_EXITED);
	assert_string_equal(f.log, "MCMEmEmE");
	assert_false(f.boot_service_after_ebs);
	assert_false(f.grew_after_ebs);
}

/* ExitBootServices failed with another error: it was called, so no going back (no
 * uncommit, no fallback with boot services); retried, then the machine is reset. */
static void test_ebs_fails_forever_resets(void **state)
{
	(void)state;
	struct fw f = { .nebs = 16 };
	for (int i = 0; i < 16; i++)
		f.ebs[i] = -5;
	run(&f);
	assert_true(f.reset_called);
	assert_false(f.boot_service_after_ebs);
	assert_false(f.grew_after_ebs);
	/* bounded: ER_PNR_TRIES exits at the most */
	int e = 0;
	for (const char *p = f.log; *p; p++)
		e += *p == 'E';
	assert_int_equal(e, ER_PNR_TRIES);
}

/* After a failed ExitBootServices the buffer may not grow: a map that no longer fits
 * means a reset, never an allocation. */
static void test_map_too_small_after_ebs_resets(void **state)
{
	(void)state;
	struct fw f = { .map = { 0, 0, ER_PNR_MAP_TOO_SMALL }, .nmap = 3, .ebs = { ER_PNR_STALE_KEY }, .nebs = 1 };
	run(&f);
	assert_string_equal(f.log, "MCMEmR");
	assert_true(f.reset_called);
	assert_false(f.boot_service_after_ebs);
	assert_false(f.grew_after_ebs);
}

/* The first ExitBootServices fails with an error other than a stale key: still no
 * uncommit (the firmware may have begun shutting down). */
static void test_first_ebs_other_error_no_uncommit(void **state)
{
	(void)state;
	struct fw f = { .ebs = { -3 }, .nebs = 1 };
	assert_int_equal(run(&f), ER_PNR_EXITED);
	assert_null(strchr(f.log, 'U'));
	assert_false(f.boot_service_after_ebs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_exit),
		cmocka_unit_test(test_no_map_nothing_written),
		cmocka_unit_test(test_commit_fails),
		cmocka_unit_test(test_map_fails_before_ebs_puts_signature_back),
		cmocka_unit_test(test_uncommit_fails_is_lost),
		cmocka_unit_test(test_stale_key_retried_without_boot_services),
		cmocka_unit_test(test_ebs_fails_forever_resets),
		cmocka_unit_test(test_map_too_small_after_ebs_resets),
		cmocka_unit_test(test_first_ebs_other_error_no_uncommit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
