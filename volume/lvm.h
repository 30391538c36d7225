// SPDX-License-Identifier: GPL-2.0-or-later
/* LVM2 reader: physical volume labels, metadata areas, the text metadata of a
 * volume group, and the mapping of a linear logical volume to PV sectors.
 *
 * On a physical volume (lvm2 lib/label/label.h, lib/format_text/layout.h; all
 * fields little-endian):
 *   one of sectors 0..3   label_header: "LABELONE", its own sector number, a CRC
 *                         of bytes 20..511 of that sector, the offset of the
 *                         pv_header from the sector start, "LVM2 001"
 *   pv_header             pv uuid (32 chars, no dashes), device size in bytes,
 *                         then two lists of {offset, size} (bytes) each ended by
 *                         a zero offset: data areas, then metadata areas
 *   metadata area         a 512-byte mda_header (CRC of bytes 4..511, magic
 *                         " LVM2 x[5A%r0N*>", version 1, its own start, the area
 *                         size, raw_locn entries {offset, size, crc, flags}); the
 *                         text of raw_locn[0] starts at area + offset and wraps
 *                         past the end of the area to area + 512
 * The CRC is lvm2's calc_crc(): crc32_le (reflected 0xEDB88320, no inversion)
 * started at 0xf597a6cf.
 *
 * Use:
 *   er_lvm_pv_probe()    the first 2048 bytes of a device -> its label (or NOT_PV)
 *   er_lvm_mda_text()    one metadata area of that PV -> the committed text
 *   er_lvm_vg_parse()    text -> struct er_lvm_vg (PVs, LVs, segments)
 *   er_lvm_vg_compare()  which of two parsed copies of a VG to keep (seqno)
 *   er_lvm_vg_attach()   tell the VG which device holds one of its PVs
 *   er_lvm_find_lv()     "vg/lv", "/dev/vg/lv", "/dev/mapper/vg-lv" or "lv"
 *   er_lvm_lv_check()    can this LV be mapped (linear, every PV attached)?
 *   er_lvm_map()         LV sector -> (PV index, sector on that PV, run length)
 * Sectors are 512 bytes everywhere in this API (LVM's unit), whatever the
 * device's block size.
 *
 * Limits (anything larger is refused with ER_LVM_LIMIT and says so): 16 PVs per
 * VG, 64 LVs per VG (hidden sub-LVs count), 16 segments per LV (only that LV is
 * refused), 2 metadata areas per PV, 8 nested sections, names of 127 chars.
 * sizeof(struct er_lvm_vg) is about 94 KiB: the caller provides it (not on the
 * firmware stack).
 *
 * Pure and freestanding (image/freestanding.h only), no allocation, no mutable globals. */
#ifndef EFIRESUME_VOLUME_LVM_H
#define EFIRESUME_VOLUME_LVM_H

#include "image/freestanding.h"

#define ER_LVM_SECTOR      512u
#define ER_LVM_LABEL_BYTES 2048u   /* the label is in one of the first 4 sectors */
#define ER_LVM_UUID_LEN    32u     /* PV/VG/LV ids without the dashes */
#define ER_LVM_NAME_MAX    128u    /* lvm2 NAME_LEN: 127 characters + NUL */
#define ER_LVM_PV_MDAS     2u
#define ER_LVM_MAX_PVS     16u
#define ER_LVM_MAX_LVS     64u
#define ER_LVM_MAX_SEGS    16u
#define ER_LVM_MAX_DEPTH   8u
#define ER_LVM_INITIAL_CRC 0xf597a6cfu

enum er_lvm_status {
	ER_LVM_OK = 0,
	ER_LVM_NOT_PV,        /* no LVM2 label in the first 4 sectors (not a PV; say nothing) */
	ER_LVM_NO_METADATA,   /* this metadata area holds no VG (orphan PV, ignored area) */
	ER_LVM_IO,            /* the read callback failed */
	ER_LVM_CORRUPT,       /* checksum, magic, bounds or syntax wrong */
	ER_LVM_LIMIT,         /* valid for lvm2 but beyond the limits above */
	ER_LVM_NOT_FOUND,     /* no such logical volume */
	ER_LVM_UNSUPPORTED,   /* a layout efiresume does not map (striped, raid, thin, ...) */
	ER_LVM_MISSING_PV,    /* the LV needs a PV that no device holds */
	ER_LVM_RANGE,         /* a sector beyond the end of the LV */
	ER_LVM_COUNT
};

/* short identifier, e.g. "lvm-unsupported" */
const char *er_lvm_status_name(enum er_lvm_status s);

struct er_lvm_error {
	enum er_lvm_status status;
	char detail[160];
};

struct er_lvm_area {
	uint64_t offset, size;          /* bytes from the start of the device */
};

/* What a PV says about itself (label + pv_header). */
struct er_lvm_label {
	unsigned sector;                /* where LABELONE was (0..3) */
	char uuid[ER_LVM_UUID_LEN + 1]; /* as on disk, 32 characters, NUL-terminated */
	uint64_t dev_size;              /* bytes, as recorded by pvcreate/pvresize */
	uint64_t data_offset;           /* first data area (pe_start) in bytes, 0 if none */
	unsigned n_mdas;                /* 0..2 metadata areas */
	struct er_lvm_area mda[ER_LVM_PV_MDAS];
};

/* Reads len bytes at byte offset of the device into buf; 0 on success. Offsets and
 * lengths are byte-granular (a block-device adapter rounds and bounces). */
typedef int (*er_lvm_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

/* Where the text of a metadata area came from (for messages and tests). */
struct er_lvm_text_info {
	uint64_t area_offset;           /* the metadata area (bytes on the device) */
	uint64_t text_offset;           /* raw_locn offset inside the area */
	uint64_t size;                  /* text bytes (lvm2 counts the final NUL) */
	uint64_t wrap;                  /* bytes of it that wrapped to area + 512 */
	uint32_t crc;
};

enum er_lvm_segtype {
	ER_LVM_SEG_STRIPED = 0,         /* "striped" (what lvm2 writes for linear) or "linear" */
	ER_LVM_SEG_OTHER                /* anything else: type[] says what */
};

struct er_lvm_seg {
	uint64_t start_extent;          /* first logical extent of the LV it covers */
	uint64_t extent_count;
	enum er_lvm_segtype kind;
	char type[24];                  /* as written, cut to 23 characters */
	uint32_t stripe_count;
	int pv;                         /* first stripe: index in vg->pv, -1 if not a PV */
	uint64_t pv_extent;             /* first stripe: first extent on that PV */
	uint32_t stripe_items;          /* parse bookkeeping: items in "stripes" */
	bool stripe_named;              /* parse bookkeeping: stripes[0] was a name */
};

struct er_lvm_pv {
	char name[32];                  /* "pv0", ... as the metadata names it */
	char uuid[ER_LVM_UUID_LEN + 1]; /* without dashes */
	uint64_t pe_start;              /* sectors */
	uint64_t pe_count;
	uint64_t dev_size;              /* sectors, 0 when not recorded */
	bool missing;                   /* flagged MISSING in the metadata */
	/* set by er_lvm_vg_attach */
	bool present;
	bool duplicate;                 /* attached from two devices: its LVs are refused */
	int device;                     /* caller's handle for the device holding it */
	uint64_t device_sectors;
};

struct er_lvm_lv {
	char name[ER_LVM_NAME_MAX];
	char uuid[ER_LVM_UUID_LEN + 1];
	bool visible;                   /* status has VISIBLE (not an internal sub-LV) */
	uint64_t extents;               /* sum of the segments */
	unsigned n_segs;
	struct er_lvm_seg seg[ER_LVM_MAX_SEGS];
	/* ER_LVM_OK when every segment is linear (striped, 1 stripe, on a PV); else the
	 * refusal (UNSUPPORTED, LIMIT, CORRUPT, MISSING_PV) and why */
	enum er_lvm_status layout;
	char why[112];
	int64_t segment_count;          /* parse bookkeeping: as declared, -1 if absent */
};

struct er_lvm_vg {
	char name[ER_LVM_NAME_MAX];
	char uuid[ER_LVM_UUID_LEN + 1];
	uint64_t seqno;
	uint64_t extent_size;           /* sectors */
	uint32_t text_crc;              /* lvm2 CRC of the text parsed (to compare copies) */
	uint64_t text_len;
	unsigned n_pvs, n_lvs;
	struct er_lvm_pv pv[ER_LVM_MAX_PVS];
	struct er_lvm_lv lv[ER_LVM_MAX_LVS];
};

/* The label of a device from its first bytes (head, len >= 2048). dev_bytes: the
 * device's size in bytes (0 = unknown: the PV header's size is used for bounds).
 * ER_LVM_NOT_PV when there is no label; CORRUPT when a LABELONE is there but no
 * copy is valid. */
enum er_lvm_status er_lvm_pv_probe(const uint8_t *head, size_t len, uint64_t dev_bytes,
				   struct er_lvm_label *label, struct er_lvm_error *err);

/* The committed metadata text of metadata area `mda` of a probed PV, into text
 * (cap bytes; lvm2 writes a few KiB per VG, the area is 1 MiB by default), checked
 * against the header's and the text's CRC; *len is the text length (its final NUL
 * included, as lvm2 counts it). info may be NULL. NO_METADATA for an area without a
 * VG or marked ignored (pvchange --metadataignore). */
enum er_lvm_status er_lvm_mda_text(const struct er_lvm_label *label, unsigned mda, er_lvm_read_fn read,
				   void *ctx, char *text, size_t cap, size_t *len,
				   struct er_lvm_text_info *info, struct er_lvm_error *err);

/* Parses the text metadata of one VG (stops at len or at a NUL). Syntax errors and
 * broken PV references fail the whole VG; an LV that cannot be mapped only gets
 * lv->layout != OK (so a thin pool next to swap_1 does not hide swap_1). */
enum er_lvm_status er_lvm_vg_parse(const char *text, size_t len, struct er_lvm_vg *vg,
				   struct er_lvm_error *err);

enum er_lvm_cmp {
	ER_LVM_CMP_OTHER_VG = 0,        /* a different VG (another id) */
	ER_LVM_CMP_SAME,                /* same VG, same seqno, same text */
	ER_LVM_CMP_NEWER,               /* cand has a higher seqno: keep cand */
	ER_LVM_CMP_OLDER,               /* cand is older: keep kept */
	ER_LVM_CMP_CONFLICT             /* same seqno, different text: trust neither */
};
enum er_lvm_cmp er_lvm_vg_compare(const struct er_lvm_vg *kept, const struct er_lvm_vg *cand);

/* Records that `device` (the caller's handle, dev_bytes long) holds the PV with this
 * label. Returns the PV's index, or -1 (err says why): NOT_FOUND when the VG has no
 * such PV; CORRUPT when the PV's extents do not fit on the device, or when another
 * device was attached as the same PV (a clone, RAID1 members, multipath: the LVs on
 * it are then refused rather than guessed). */
int er_lvm_vg_attach(struct er_lvm_vg *vg, const struct er_lvm_label *label, int device, uint64_t dev_bytes,
		     struct er_lvm_error *err);

/* Index of the LV named by spec, or -1 (err: NOT_FOUND). spec: "vg/lv", "/dev/vg/lv",
 * "/dev/mapper/vg-lv" (dashes in names doubled, as device-mapper writes them) or a
 * bare "lv"; a vg part must name this VG. */
int er_lvm_find_lv(const struct er_lvm_vg *vg, const char *spec, struct er_lvm_error *err);

/* ER_LVM_OK when the LV can be read and written through er_lvm_map: every segment
 * linear and every PV it uses attached and not missing. */
enum er_lvm_status er_lvm_lv_check(const struct er_lvm_vg *vg, unsigned lv, struct er_lvm_error *err);

/* LV size in sectors. */
uint64_t er_lvm_lv_sectors(const struct er_lvm_vg *vg, unsigned lv);

struct er_lvm_extent {
	unsigned pv;                    /* index in vg->pv (its .device is the caller's handle) */
	uint64_t pv_sector;             /* sector on that PV's device */
	uint64_t run;                   /* sectors from here that follow on the same PV */
};

/* Maps sector `sector` of LV `lv`; checks as er_lvm_lv_check. RANGE past the end. */
enum er_lvm_status er_lvm_map(const struct er_lvm_vg *vg, unsigned lv, uint64_t sector,
			      struct er_lvm_extent *out, struct er_lvm_error *err);

#endif
