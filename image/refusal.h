// SPDX-License-Identifier: GPL-2.0-or-later
/* Internal to image/: return a refusal reason with a formatted detail. */
#ifndef EFIRESUME_IMAGE_REFUSAL_H
#define EFIRESUME_IMAGE_REFUSAL_H

#include "image/fmt.h"

#define FAIL(err, r, ...)                                                   \
	do {                                                                \
		if (err) {                                                  \
			(err)->reason = (r);                                \
			er_snprintf((err)->detail, sizeof((err)->detail), __VA_ARGS__); \
		}                                                           \
		return (r);                                                 \
	} while (0)

/* an unsigned long of an image: 4 or 8 bytes, little endian */
static inline uint64_t er_get_word(const uint8_t *p, unsigned word)
{
	return word == 8 ? er_le64(p) : er_le32(p);
}

#endif
