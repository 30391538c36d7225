// SPDX-License-Identifier: GPL-2.0-or-later
/* EfiresumeSeen records; see seen.h. Layout (little endian):
 *   0  "ERSEEN01"   8  swap UUID (16)   24 image id (4)   28 count (4)
 *   32 count entries of 48 bytes: kind (1), 3 zero, UUID (16), sb CRC (4), mtime (4),
 *      mounts (8), written (8), 4 zero
 *   then CRC32 (zlib) of everything before it. */
#include "loader/seen.h"
#include "image/crc32.h"

static const char magic[8] = { 'E', 'R', 'S', 'E', 'E', 'N', '0', '1' };

size_t er_seen_encode(const struct er_seen *s, uint8_t *buf, size_t cap)
{
	if (s->n > ER_SEEN_MAX_FS)
		return 0;
	size_t len = 32 + (size_t)s->n * ER_SEEN_ENTRY_BYTES + 4;
	if (cap < len)
		return 0;
	er_memset(buf, 0, len);
	er_memcpy(buf, magic, 8);
	er_memcpy(buf + 8, s->swap_uuid, 16);
	er_put_le32(buf + 24, s->image_id);
	er_put_le32(buf + 28, s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		uint8_t *e = buf + 32 + i * ER_SEEN_ENTRY_BYTES;
		const struct er_fsprint *f = &s->fs[i];
		e[0] = f->kind;
		er_memcpy(e + 4, f->uuid, 16);
		er_put_le32(e + 20, f->sb_crc);
		er_put_le32(e + 24, f->mtime);
		er_put_le64(e + 28, f->mounts);
		er_put_le64(e + 36, f->written);
	}
	er_put_le32(buf + len - 4, er_crc32_zlib(0, buf, len - 4));
	return len;
}

bool er_seen_decode(const uint8_t *buf, size_t n, struct er_seen *s)
{
	er_memset(s, 0, sizeof(*s));
	if (n < 36 || n > ER_SEEN_MAX_BYTES || er_memcmp(buf, magic, 8) != 0)
		return false;
	uint32_t count = er_le32(buf + 28);
	if (count > ER_SEEN_MAX_FS || n != 32 + (size_t)count * ER_SEEN_ENTRY_BYTES + 4)
		return false;
	if (er_le32(buf + n - 4) != er_crc32_zlib(0, buf, n - 4))
		return false;
	er_memcpy(s->swap_uuid, buf + 8, 16);
	s->image_id = er_le32(buf + 24);
	s->n = count;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = buf + 32 + i * ER_SEEN_ENTRY_BYTES;
		struct er_fsprint *f = &s->fs[i];
		if (e[0] < ER_FS_EXT4 || e[0] > ER_FS_BTRFS)
			return false;
		f->kind = e[0];
		er_memcpy(f->uuid, e + 4, 16);
		f->sb_crc = er_le32(e + 20);
		f->mtime = er_le32(e + 24);
		f->mounts = er_le64(e + 28);
		f->written = er_le64(e + 36);
	}
	return true;
}

int er_seen_compare(const struct er_seen *then, const struct er_fsprint *now, size_t n, char *why, size_t cap)
{
	for (uint32_t i = 0; i < then->n && i < ER_SEEN_MAX_FS; i++)
		for (size_t j = 0; j < n; j++)
			if (er_fsprint_same_fs(&then->fs[i], &now[j]) && er_fsprint_changed(&then->fs[i], &now[j], why, cap))
				return (int)i;
	return -1;
}
