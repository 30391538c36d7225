// SPDX-License-Identifier: GPL-2.0-or-later
/* Wiping secrets and comparing them in constant time. */
#ifndef EFIRESUME_CRYPTO_WIPE_H
#define EFIRESUME_CRYPTO_WIPE_H

#include <stddef.h>
#include <stdbool.h>

void er_wipe(void *p, size_t n);                              /* not optimised away */
bool er_ct_equal(const void *a, const void *b, size_t n);     /* constant time in n */

#endif
