// SPDX-License-Identifier: GPL-2.0-or-later
/* What the two tests of tpm/unseal.c and loader/tpmunlock.c share: test_tpm_unseal_swtpm.c
 * (swtpm, which records the transcripts) and test_tpm_unseal.c (which replays them).
 *   struct tpmu_det, tpmu_det_seed, tpmu_det_random   the deterministic randomness, so that a
 *       recorded transcript replays byte for byte: SHA-256(seed || 64-bit LE counter), the seed
 *       SHA-256 of the scenario's name. tpmu_det_random is an er_tpm_io.random whose ctx (the
 *       transport's context) holds a struct tpmu_det as its first member.
 *   tpmu_req(token, pin, ...)   er_tpmunlock_req, and the PIN's authValue (er_tpm2_pin_auth, the
 *       token's salt if any) when pin is neither NULL nor "" (else *al stays 0).
 *   struct tpmu_log, tpmu_run_log, tpmu_logged   er_tpmunlock_ops.log: each line printed as
 *       "# log: LINE" and the first 16 kept; tpmu_run_log's ctx (er_tpmunlock_ops.ctx) holds a
 *       struct tpmu_log as its first member; tpmu_logged: a kept line contains what.
 * For the cmocka unit tests: include after <cmocka.h>, <stdio.h>, <string.h>, "tpm/unseal.h",
 * "loader/tpmunlock.h" and "crypto/sha.h". */
#ifndef EFIRESUME_TESTS_TPMU_COMMON_H
#define EFIRESUME_TESTS_TPMU_COMMON_H

struct tpmu_det {
	uint8_t seed[32];
	uint64_t ctr;
};

static void tpmu_det_seed(struct tpmu_det *d, const char *scenario)
{
	d->ctr = 0;
	er_hash(ER_HASH_SHA256, scenario, strlen(scenario), d->seed);
}

static bool tpmu_det_random(void *ctx, uint8_t *buf, size_t n)
{
	struct tpmu_det *d = ctx;
	while (n) {
		uint8_t in[40], out[32];
		memcpy(in, d->seed, 32);
		for (int i = 0; i < 8; i++)
			in[32 + i] = (uint8_t)(d->ctr >> (8 * i));
		d->ctr++;
		er_hash(ER_HASH_SHA256, in, sizeof(in), out);
		size_t k = n < 32 ? n : 32;
		memcpy(buf, out, k);
		buf += k;
		n -= k;
	}
	return true;
}

static void tpmu_req(const struct er_tpm2_token *t, const char *pin, struct er_tpmu_req *q, struct er_tpm_name *srk,
		     uint8_t auth[32], size_t *al)
{
	assert_true(er_tpmunlock_req(t, q, srk));
	if (pin && pin[0])
		assert_true(er_tpm2_pin_auth((const uint8_t *)pin, strlen(pin), t->salt_len ? t->salt : NULL, t->salt_len,
					     auth, al));
}

struct tpmu_log {
	char line[16][400];
	unsigned n;
};

static void tpmu_run_log(void *ctx, const char *line)
{
	struct tpmu_log *l = ctx;
	printf("# log: %s\n", line);
	if (l->n < 16)
		snprintf(l->line[l->n++], sizeof(l->line[0]), "%s", line);
}

static bool tpmu_logged(const struct tpmu_log *l, const char *what)
{
	for (unsigned i = 0; i < l->n; i++)
		if (strstr(l->line[i], what))
			return true;
	return false;
}

#endif
