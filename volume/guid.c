// SPDX-License-Identifier: GPL-2.0-or-later
/* GUIDs as text, in the order blkid, lsblk and Linux's PARTUUID= show them; see guid.h. */
#include "volume/guid.h"

int er_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

bool er_uuid_text_parse(const char *s, size_t n, uint8_t out[16])
{
	uint8_t text[16];
	size_t i = 0, b = 0;

	if (n != 36)
		return false;
	while (i < n) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
			i++;
			continue;
		}
		int hi = er_hexval(s[i]), lo = er_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		text[b++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	er_memcpy(out, text, 16);
	return true;
}

bool er_guid_parse(const char *s, size_t n, uint8_t out[16])
{
	/* text order of the 16 bytes; the first three groups are little endian on disk */
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint8_t text[16];

	if (!er_uuid_text_parse(s, n, text))
		return false;
	for (size_t b = 0; b < 16; b++)
		out[order[b]] = text[b];
	return true;
}

void er_guid_format(const uint8_t g[16], char out[37])
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t b = 0; b < 16; b++) {
		if (b == 4 || b == 6 || b == 8 || b == 10)
			out[o++] = '-';
		out[o++] = hex[g[order[b]] >> 4];
		out[o++] = hex[g[order[b]] & 15];
	}
	out[o] = 0;
}
