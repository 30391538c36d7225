// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/kdfbudget.c, issue 24 finding 7: the KDF work of one passphrase attempt is
 * bounded across keyslots (the caps of volume/luks.h are per keyslot: 32 keyslots at
 * the cap made one attempt take about 2 hours on one CPU). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "loader/kdfbudget.h"

static void hdr_slots(struct er_luks_header *h, unsigned n, unsigned kdf, uint32_t iterations, uint32_t memory_kib)
{
	memset(h, 0, sizeof(*h));
	h->version = 2;
	h->digest.hash = ER_HASH_SHA256;
	h->digest.iterations = 1000;
	h->digest.digest_len = 32;
	for (unsigned k = 0; k < n; k++) {
		struct er_luks_keyslot *s = &h->ks[k];
		s->usable = true;
		s->priority = 1;
		s->kdf = (uint8_t)kdf;
		s->kdf_hash = ER_HASH_SHA256;
		s->iterations = iterations;
		s->memory_kib = memory_kib;
		s->cpus = 4;
		s->area_key_size = 64;
		s->key_size = 64;
		s->stripes = 4000;
		/* the order er_luks_unlock tries: reversed, as a "prefer" priority would */
		h->order[k] = (uint8_t)(n - 1 - k);
	}
	h->n_order = n;
}

/* 32 argon2id keyslots at the cap (time 16 x 4 GiB): the first 2 in the order are kept */
static void t_argon2_at_cap(void **state)
{
	(void)state;
	static struct er_luks_header h;
	uint8_t dropped[ER_LUKS_MAX_KEYSLOTS];
	uint64_t spent = 0;
	hdr_slots(&h, 32, ER_LUKS_KDF_ARGON2ID, 16, 4u * 1024 * 1024);
	uint64_t one = er_kdf_cost(&h, 0);
	assert_true(one >= ER_KDF_MILLICAPS && one <= ER_KDF_MILLICAPS + 1);
	unsigned nd = er_kdf_budget(&h, ER_KDF_BUDGET, dropped, &spent);
	if (h.n_order * one > ER_KDF_BUDGET)
		fail_msg("%u keyslots at the cap are tried per passphrase (%llu millicaps, budget %u)", h.n_order,
			 (unsigned long long)(h.n_order * one), ER_KDF_BUDGET);
	assert_int_equal(h.n_order, 1);   /* 2 x (1000 + the digest) > 2000: the first only */
	assert_int_equal(h.order[0], 31);
	assert_int_equal(nd, 31);
	assert_int_equal(dropped[0], 30);
	assert_int_equal(dropped[30], 0);
	assert_int_equal(spent, one);
}

/* cryptsetup's default argon2id (1 GiB x 4, time 4 to 10): several fit, in order */
static void t_default_slots(void **state)
{
	(void)state;
	static struct er_luks_header h;
	uint8_t dropped[ER_LUKS_MAX_KEYSLOTS];
	uint64_t spent = 0;
	hdr_slots(&h, 32, ER_LUKS_KDF_ARGON2ID, 8, 1024 * 1024);
	uint64_t one = er_kdf_cost(&h, 0);   /* 8 GiB of 64: 125 + the digest */
	assert_int_equal(one, 125 + 1);
	unsigned nd = er_kdf_budget(&h, ER_KDF_BUDGET, dropped, &spent);
	assert_int_equal(h.n_order, ER_KDF_BUDGET / one);
	assert_int_equal(nd, 32 - ER_KDF_BUDGET / one);
	assert_true(spent <= ER_KDF_BUDGET);
	for (unsigned i = 0; i < h.n_order; i++)
		assert_int_equal(h.order[i], 31 - i);
	/* one keyslot: never dropped */
	hdr_slots(&h, 1, ER_LUKS_KDF_PBKDF2, ER_LUKS_PBKDF2_MAX_ITERATIONS, 0);
	h.ks[0].kdf_hash = ER_HASH_SHA1;    /* 64 bytes of sha1: 4 blocks, 4000 */
	assert_int_equal(er_kdf_budget(&h, ER_KDF_BUDGET, dropped, &spent), 0);
	assert_int_equal(h.n_order, 1);
	assert_int_equal(spent, 4000 + 1);
}

/* a cheap keyslot after an expensive one still fits; saturation */
static void t_mixed(void **state)
{
	(void)state;
	static struct er_luks_header h;
	uint8_t dropped[ER_LUKS_MAX_KEYSLOTS];
	uint64_t spent = 0;
	hdr_slots(&h, 3, ER_LUKS_KDF_PBKDF2, 1000000, 0);   /* 64 bytes sha256: 2 blocks, 20 */
	h.ks[1].kdf = ER_LUKS_KDF_ARGON2I;
	h.ks[1].iterations = 0xffffffffu;
	h.ks[1].memory_kib = 0xffffffffu;
	assert_true(er_kdf_cost(&h, 1) > ER_KDF_BUDGET);
	assert_int_equal(er_kdf_budget(&h, ER_KDF_BUDGET, dropped, &spent), 1);
	assert_int_equal(dropped[0], 1);
	assert_int_equal(h.n_order, 2);
	assert_int_equal(h.order[0], 2);
	assert_int_equal(h.order[1], 0);
	assert_int_equal(spent, 2 * (20 + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_argon2_at_cap),
		cmocka_unit_test(t_default_slots),
		cmocka_unit_test(t_mixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
