// SPDX-License-Identifier: GPL-2.0-or-later
/* Filesystem fingerprints: what a mount or a write changes in an ext2/3/4, XFS or Btrfs
 * superblock. efiresume records them the first time it sees an image and compares
 * before resuming it later: a filesystem mounted in between (the user booted normally
 * and kept the image, another system used the disk) would be corrupted by the resume. */
#ifndef EFIRESUME_VOLUME_FSPRINT_H
#define EFIRESUME_VOLUME_FSPRINT_H

#include "image/freestanding.h"

enum er_fs_kind { ER_FS_NONE = 0, ER_FS_EXT4 = 1, ER_FS_XFS = 2, ER_FS_BTRFS = 3 };

/* bytes from the start of a device that cover all three superblocks */
#define ER_FSPRINT_BYTES (65536 + 4096)

struct er_fsprint {
	uint8_t kind;            /* enum er_fs_kind */
	uint8_t uuid[16];        /* as blkid shows it (text order) */
	uint32_t sb_crc;         /* CRC32 of the superblock: any write of it changes it */
	uint32_t mtime;          /* ext4: s_mtime, the last mount */
	uint64_t mounts;         /* ext4: s_mnt_count; Btrfs: generation (every commit) */
	uint64_t written;        /* ext4: s_kbytes_written */
};

/* p: the first n bytes of a device. false when no superblock is recognised (n shorter
 * than ER_FSPRINT_BYTES only misses Btrfs). */
bool er_fsprint(const uint8_t *p, size_t n, struct er_fsprint *out);
const char *er_fs_kind_name(uint8_t kind);

/* then and now are the same filesystem (kind and UUID) */
bool er_fsprint_same_fs(const struct er_fsprint *then, const struct er_fsprint *now);
/* false when nothing changed; otherwise true and why says what ("was mounted since the
 * hibernation (mount count 3 -> 4)", "was written since the hibernation (...)") */
bool er_fsprint_changed(const struct er_fsprint *then, const struct er_fsprint *now, char *why, size_t n);

#endif
