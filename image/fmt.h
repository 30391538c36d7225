// SPDX-License-Identifier: GPL-2.0-or-later
/* A small snprintf for freestanding code (image/ messages, shared with host tools).
 * Conversions: %s %c %d %u %x %X %p %%, length modifiers l and ll, width and '0' flag. */
#ifndef EFIRESUME_IMAGE_FMT_H
#define EFIRESUME_IMAGE_FMT_H

#include <stdarg.h>
#include "image/freestanding.h"

size_t er_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
size_t er_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
