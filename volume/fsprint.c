// SPDX-License-Identifier: GPL-2.0-or-later
/* Filesystem fingerprints; see fsprint.h. Offsets: ext4 (Documentation/filesystems/ext4/
 * super.rst), XFS (xfs_format.h: struct xfs_dsb), Btrfs (struct btrfs_super_block). */
#include "volume/fsprint.h"
#include "image/crc32.h"
#include "image/fmt.h"

#define EXT4_SB      1024u
#define BTRFS_SB     65536u

bool er_fsprint(const uint8_t *p, size_t n, struct er_fsprint *out)
{
	er_memset(out, 0, sizeof(*out));
	/* ext2/3/4: s_magic 0xEF53 at +0x38; s_mtime +0x2C, s_mnt_count +0x34 (le16),
	 * s_uuid +0x68, s_kbytes_written +0x178 */
	if (n >= EXT4_SB + 1024 && er_le16(p + EXT4_SB + 0x38) == 0xEF53) {
		const uint8_t *s = p + EXT4_SB;
		out->kind = ER_FS_EXT4;
		er_memcpy(out->uuid, s + 0x68, 16);
		out->mtime = er_le32(s + 0x2C);
		out->mounts = er_le16(s + 0x34);
		out->written = er_le64(s + 0x178);
		out->sb_crc = er_crc32_zlib(0, s, 1024);
		return true;
	}
	/* XFS: "XFSB" at 0, sb_uuid at 32; the superblock sector changes when it is
	 * written (mount, unmount, log recovery) */
	if (n >= 512 && er_memcmp(p, "XFSB", 4) == 0) {
		out->kind = ER_FS_XFS;
		er_memcpy(out->uuid, p + 32, 16);
		out->sb_crc = er_crc32_zlib(0, p, 512);
		return true;
	}
	/* Btrfs: fsid at +0x20, magic "_BHRfS_M" at +0x40, generation at +0x48 */
	if (n >= BTRFS_SB + 4096 && er_memcmp(p + BTRFS_SB + 0x40, "_BHRfS_M", 8) == 0) {
		const uint8_t *s = p + BTRFS_SB;
		out->kind = ER_FS_BTRFS;
		er_memcpy(out->uuid, s + 0x20, 16);
		out->mounts = er_le64(s + 0x48);
		out->sb_crc = er_crc32_zlib(0, s, 4096);
		return true;
	}
	return false;
}

const char *er_fs_kind_name(uint8_t kind)
{
	switch (kind) {
	case ER_FS_EXT4: return "ext4";
	case ER_FS_XFS: return "xfs";
	case ER_FS_BTRFS: return "btrfs";
	}
	return "?";
}

bool er_fsprint_same_fs(const struct er_fsprint *then, const struct er_fsprint *now)
{
	return then->kind == now->kind && er_memcmp(then->uuid, now->uuid, 16) == 0;
}

bool er_fsprint_changed(const struct er_fsprint *then, const struct er_fsprint *now, char *why, size_t n)
{
	if (then->kind == ER_FS_EXT4 && (now->mounts != then->mounts || now->mtime != then->mtime)) {
		er_snprintf(why, n, "was mounted since the hibernation (mount count %llu -> %llu)",
			    (unsigned long long)then->mounts, (unsigned long long)now->mounts);
		return true;
	}
	if (then->kind == ER_FS_EXT4 && now->written != then->written) {
		er_snprintf(why, n, "was written since the hibernation (%llu -> %llu KiB written in its life)",
			    (unsigned long long)then->written, (unsigned long long)now->written);
		return true;
	}
	if (then->kind == ER_FS_BTRFS && now->mounts != then->mounts) {
		er_snprintf(why, n, "was written since the hibernation (generation %llu -> %llu)",
			    (unsigned long long)then->mounts, (unsigned long long)now->mounts);
		return true;
	}
	if (now->sb_crc != then->sb_crc) {
		er_snprintf(why, n, "was written since the hibernation (its superblock changed)");
		return true;
	}
	return false;
}
