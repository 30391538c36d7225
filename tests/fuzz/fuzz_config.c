// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
/* libFuzzer target for loader/config.c (efiresume.conf).
 *
 * er_config_parse on an exactly sized heap copy of the input (ASan sees any read
 * beyond it). Checked:
 *  - the return value equals the number of warning calls; each warning has a line
 *    number that grows and lies within the text, a printable key of at most 31 bytes
 *    and a reason;
 *  - a line holding a control character (below 0x20 but tab, or 0x7f; not counting a
 *    line end's CR) is never taken: counted independently, such lines all warn;
 *  - the result is sane: timeout <= 3600; fallback empty or starting with '\', no '/',
 *    no "\\", no control character; options without control characters but tab;
 *    resume-offset <= 2^52; a DOS partition number 1..255;
 *  - parsing is deterministic (same text, same result) and parsing on top of a
 *    result with the same text changes nothing;
 *  - resume: at most one of PARTUUID=/LV=/UUID= set, the other kinds zeroed; an LV text
 *    is printable ASCII without space, within the input, and splits into VG and LV;
 *  - er_utf8_to_ucs2 stays within any capacity, and GUIDs round-trip. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loader/config.h"

struct seen {
	unsigned calls, last_line, lines;
	unsigned char warned[4096];         /* lines (up to 4095) that warned */
};

static void on_warn(void *ctx, unsigned line, const char *key, const char *reason)
{
	struct seen *s = ctx;
	s->calls++;
	if (line <= s->last_line || line > s->lines || !reason || !reason[0] || !key)
		abort();
	s->last_line = line;
	size_t kl = strnlen(key, 32);
	if (kl > 31)
		abort();
	for (size_t i = 0; i < kl; i++)
		if ((unsigned char)key[i] < 0x20 || (unsigned char)key[i] >= 0x7f)
			abort();
	if (line < sizeof(s->warned))
		s->warned[line] = 1;
}

static bool is_ctl(uint8_t c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	struct seen *s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	size_t start = (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) ? 3 : 0;
	for (size_t i = start; i < size; i++)
		if (data[i] == '\n')
			s->lines++;
	if (size > start && data[size - 1] != '\n')
		s->lines++;

	struct er_config c, c2;
	er_config_defaults(&c);
	unsigned w = er_config_parse(&c, buf, size, on_warn, s);
	if (w != s->calls)
		abort();

	/* lines with a control character (outside comments, CR at the end not counted) */
	unsigned line = 0;
	for (size_t p = start; p < size;) {
		size_t e = p;
		while (e < size && data[e] != '\n')
			e++;
		line++;
		size_t a = p, b = e;
		while (a < b && (data[a] == ' ' || data[a] == '\t'))
			a++;
		while (b > a && (data[b - 1] == ' ' || data[b - 1] == '\t' || data[b - 1] == '\r'))
			b--;
		if (a < b && data[a] != '#') {
			for (size_t i = a; i < b; i++)
				if (is_ctl(data[i])) {
					if (line < sizeof(s->warned) && !s->warned[line])
						abort();
					break;
				}
		}
		p = e + 1;
	}

	if (c.timeout > ER_CONF_TIMEOUT_MAX)
		abort();
	size_t fl = strnlen(c.fallback, sizeof(c.fallback));
	if (fl == sizeof(c.fallback) || (fl && c.fallback[0] != '\\'))
		abort();
	for (size_t i = 0; i < fl; i++)
		if (c.fallback[i] == '/' || is_ctl((uint8_t)c.fallback[i]) || (i && c.fallback[i] == '\\' && c.fallback[i - 1] == '\\'))
			abort();
	size_t ol = strnlen(c.options, sizeof(c.options));
	if (ol == sizeof(c.options))
		abort();
	for (size_t i = 0; i < ol; i++)
		if (is_ctl((uint8_t)c.options[i]))
			abort();
	if (c.resume_offset > ER_CONF_RESUME_OFFSET_MAX || c.resume_mbr_part > 255 ||
	    (c.resume_mbr_part && !c.have_resume))
		abort();
	/* resume: at most one kind, the others zero; an LV text is one of its forms */
	static const uint8_t zero16[16];
	static const char zlv[ER_CONF_LV_MAX];
	if ((int)c.have_resume + (int)c.have_resume_lv + (int)c.have_resume_uuid > 1)
		abort();
	if (!c.have_resume && (memcmp(c.resume_partuuid, zero16, 16) != 0 || c.resume_mbr_part))
		abort();
	if (c.have_resume_uuid == (memcmp(c.resume_uuid, zero16, 16) == 0))
		abort();
	if (c.have_resume_lv) {
		char vg[ER_CONF_LV_MAX], lv[ER_CONF_LV_MAX];
		size_t ll = strnlen(c.resume_lv, sizeof(c.resume_lv));
		if (ll == 0 || ll == sizeof(c.resume_lv) || !er_config_lv_names(c.resume_lv, vg, lv) || !vg[0] || !lv[0] ||
		    strlen(vg) + strlen(lv) + 1 > ll)
			abort();
		for (size_t i = 0; i < ll; i++)
			if ((unsigned char)c.resume_lv[i] <= 0x20 || (unsigned char)c.resume_lv[i] >= 0x7f)
				abort();
		/* the text is in the input */
		if (!memmem(data, size, c.resume_lv, ll))
			abort();
	} else if (memcmp(c.resume_lv, zlv, sizeof(zlv)) != 0) {
		abort();
	}

	/* deterministic, and idempotent on top of its own result */
	er_config_defaults(&c2);
	if (er_config_parse(&c2, buf, size, NULL, NULL) != w || memcmp(&c, &c2, sizeof(c)) != 0)
		abort();
	er_config_parse(&c2, buf, size, NULL, NULL);
	if (memcmp(&c, &c2, sizeof(c)) != 0)
		abort();

	/* UCS-2 conversion of the options into a buffer sized by the first byte */
	uint16_t *u = malloc(sizeof(uint16_t) * (ER_CONF_OPTIONS_MAX + 1));
	if (!u)
		abort();
	size_t cap = size ? data[0] % (ER_CONF_OPTIONS_MAX + 1) : 0;
	uint16_t *exact = malloc(sizeof(uint16_t) * (cap ? cap : 1));
	size_t got = er_utf8_to_ucs2(c.options, exact, cap);
	if (cap ? (got >= cap || exact[got] != 0) : got != 0)
		abort();
	free(exact);
	free(u);

	/* GUID text: parse, format, parse again gives the same bytes */
	if (size >= 36) {
		uint8_t g[16], g2[16];
		char t[37];
		if (er_guid_parse((const char *)data, 36, g)) {
			er_guid_format(g, t);
			if (!er_guid_parse(t, 36, g2) || memcmp(g, g2, 16) != 0 || strncasecmp(t, (const char *)data, 36) != 0)
				abort();
		}
	}
	free(s);
	free(buf);
	return 0;
}
