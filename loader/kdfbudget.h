// SPDX-License-Identifier: GPL-2.0-or-later
/* loader/kdfbudget.c: a bound on the key-derivation work of one passphrase attempt
 * (issue 24 finding 7). The caps of volume/luks.h are per keyslot: a header with 32
 * keyslots at the caps makes one wrong passphrase cost 32 capped derivations (about 2
 * hours on one CPU). The work of the keyslots a passphrase is tried on, in the order
 * er_luks_unlock tries them (hdr->order: LUKS2 priority "prefer" first), is added up;
 * a keyslot that would take the sum over the budget is skipped. The first keyslot is
 * always tried (the per-keyslot caps bound it). Pure C. */
#ifndef EFIRESUME_LOADER_KDFBUDGET_H
#define EFIRESUME_LOADER_KDFBUDGET_H

#include "image/freestanding.h"
#include "volume/luks.h"

/* The unit: a thousandth of a keyslot at a cap (an Argon2 keyslot of
 * ER_LUKS_ARGON2_MAX_WORK_KIB, or ER_LUKS_PBKDF2_MAX_ITERATIONS PBKDF2 iterations per
 * output block), digest check included. */
#define ER_KDF_MILLICAPS 1000u
/* The budget of one passphrase attempt: 2 keyslots at a cap (about 8 minutes on one
 * CPU of the build host, 2 with 4 CPUs for Argon2); 6 to 30 keyslots as cryptsetup
 * writes them by default. */
#define ER_KDF_BUDGET (2u * ER_KDF_MILLICAPS)

/* The work of trying keyslot id of h (its KDF and the digest check), in millicaps
 * (rounded up, saturated). */
uint64_t er_kdf_cost(const struct er_luks_header *h, unsigned id);

/* Keeps in h->order (the order preserved) the keyslots within budget; the ones dropped
 * go to dropped[0..return) (ER_LUKS_MAX_KEYSLOTS entries), *spent is the work kept. */
unsigned er_kdf_budget(struct er_luks_header *h, uint64_t budget, uint8_t *dropped, uint64_t *spent);

#endif
