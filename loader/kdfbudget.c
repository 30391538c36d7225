// SPDX-License-Identifier: GPL-2.0-or-later
/* The KDF work of one passphrase attempt, bounded; see kdfbudget.h. */
#include "loader/kdfbudget.h"

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > (uint64_t)-1 / a)
		return (uint64_t)-1;
	return a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? (uint64_t)-1 : a + b;
}

static uint64_t ceil_div(uint64_t a, uint64_t d)
{
	return a / d + (a % d != 0);
}

/* PBKDF2 work in millicaps: iterations per output block of the hash */
static uint64_t pbkdf2_cost(uint8_t hash, uint32_t iterations, uint32_t out_len)
{
	uint64_t hlen = hash == ER_HASH_SHA1 ? 20 : hash == ER_HASH_SHA512 ? 64 : 32;
	uint64_t blocks = ceil_div(out_len ? out_len : 1, hlen);
	return ceil_div(mul_sat(mul_sat(iterations, blocks), ER_KDF_MILLICAPS), ER_LUKS_PBKDF2_MAX_ITERATIONS);
}

uint64_t er_kdf_cost(const struct er_luks_header *h, unsigned id)
{
	const struct er_luks_keyslot *k = &h->ks[id % ER_LUKS_MAX_KEYSLOTS];
	uint64_t c;
	if (k->kdf == ER_LUKS_KDF_PBKDF2)
		c = pbkdf2_cost(k->kdf_hash, k->iterations, k->area_key_size);
	else
		c = ceil_div(mul_sat(mul_sat(k->iterations, k->memory_kib), ER_KDF_MILLICAPS), ER_LUKS_ARGON2_MAX_WORK_KIB);
	/* a candidate key from the keyslot is checked against the digest */
	return add_sat(c, pbkdf2_cost(h->digest.hash, h->digest.iterations, h->digest.digest_len));
}

unsigned er_kdf_budget(struct er_luks_header *h, uint64_t budget, uint8_t *dropped, uint64_t *spent)
{
	unsigned kept = 0, ndropped = 0;
	uint64_t sum = 0;
	for (unsigned i = 0; i < h->n_order && i < ER_LUKS_MAX_KEYSLOTS; i++) {
		uint8_t id = h->order[i];
		uint64_t c = er_kdf_cost(h, id);
		if (kept == 0 || (c <= budget && sum <= budget - c)) {
			sum = add_sat(sum, c);
			h->order[kept++] = id;
		} else
			dropped[ndropped++] = id;
	}
	h->n_order = kept;
	*spent = sum;
	return ndropped;
}
