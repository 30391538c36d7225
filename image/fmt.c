// SPDX-License-Identifier: GPL-2.0-or-later
/* See fmt.h. Output is always NUL-terminated when cap > 0; returns the length written. */
#include "image/fmt.h"

struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->buf[o->len++] = c;
}

static void put_num(struct out *o, uint64_t v, unsigned base, bool upper, bool neg, unsigned width, char pad)
{
	char tmp[24];
	unsigned n = 0;
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	while (width > n) {
		put(o, pad);
		width--;
	}
	while (n)
		put(o, tmp[--n]);
}

size_t er_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct out o = { buf, cap, 0 };
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		char pad = ' ';
		unsigned width = 0, lng = 0;
		if (*p == '0') {
			pad = '0';
			p++;
		}
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (unsigned)(*p++ - '0');
		while (*p == 'l') {
			lng++;
			p++;
		}
		switch (*p) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			size_t l = 0;
			if (!s)
				s = "(null)";
			while (s[l])
				l++;
			while (width > l) {
				put(&o, ' ');
				width--;
			}
			while (*s)
				put(&o, *s++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			int64_t v = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
			put_num(&o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10, false, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng >= 2 ? va_arg(ap, unsigned long long)
				   : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			put_num(&o, v, *p == 'u' ? 10 : 16, *p == 'X', false, width, pad);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, width, pad);
			break;
		case '%':
			put(&o, '%');
			break;
		case 0:
			p--;
			break;
		default:
			put(&o, '%');
			put(&o, *p);
		}
	}
	if (cap)
		buf[o.len] = 0;
	return o.len;
}

size_t er_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = er_vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
