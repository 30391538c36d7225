// SPDX-License-Identifier: GPL-2.0-or-later
/* efiresume.conf: plain "key value" lines, '#' comments (systemd-boot loader.conf style).
 * Pure C: parsed from a byte buffer, so the same code runs in the loader and in host tests. */
#ifndef EFIRESUME_LOADER_CONFIG_H
#define EFIRESUME_LOADER_CONFIG_H

#include "image/freestanding.h"
#include "volume/guid.h"

#define ER_CONF_FILE        "efiresume.conf"
#define ER_CONF_PATH_MAX    256     /* bytes of a fallback path, NUL included */
#define ER_CONF_OPTIONS_MAX 1024    /* bytes of the options string, NUL included */
#define ER_CONF_TIMEOUT_MAX 3600u
#define ER_CONF_TIMEOUT_DEFAULT 3u
#define ER_CONF_RESUME_OFFSET_MAX (1ull << 52)   /* pages: 16 EiB partitions */
#define ER_CONF_LV_MAX      256     /* bytes of a resume LV text, NUL included */

struct er_config {
	uint32_t timeout;                   /* seconds a prompt may wait, 0 = never wait */
	char fallback[ER_CONF_PATH_MAX];    /* volume path with '\' separators, "" = none */
	char options[ER_CONF_OPTIONS_MAX];  /* load options for the fallback (UTF-8 here) */
	/* "resume": at most one of have_resume, have_resume_lv, have_resume_uuid is true; a
	 * later valid resume line replaces an earlier one (the other kinds are cleared), a
	 * malformed one is ignored (the earlier value stays). */
	bool have_resume;                   /* resume PARTUUID=... given */
	uint8_t resume_partuuid[16];        /* GPT: GUID, EFI byte order (as in a GPT entry);
					     * DOS table: the disk signature in [0..3] */
	uint32_t resume_mbr_part;           /* DOS table: partition number (1..), 0 = GPT */
	uint64_t resume_offset;             /* resume-offset N: a swap file whose header is at
					     * page N of that partition (the kernel's
					     * resume_offset); 0 = a swap partition. Also
					     * with LV= and UUID= (then the filesystem's UUID) */
	bool have_resume_lv;                /* resume LV=<vg>/<lv>, /dev/<vg>/<lv> or
					     * /dev/mapper/<vg>-<lv> given */
	char resume_lv[ER_CONF_LV_MAX];     /* that text as written, without a leading
					     * "LV=": 1..255 printable bytes, no space, one of
					     * the three forms (er_config_lv_names splits it) */
	bool have_resume_uuid;              /* resume UUID=<uuid> given: the swap area's UUID
					     * (mkswap/blkid); with resume-offset the UUID of
					     * the filesystem holding the swap file */
	uint8_t resume_uuid[16];            /* text order (as er_uuid_format prints it) */
	bool dry_run;                       /* verify and plan, never commit */
};

/* Called once for every ignored line: line number (1-based), the key as written
 * (may be "" for a line without one) and a short reason. */
typedef void (*er_config_warn_fn)(void *ctx, unsigned line, const char *key, const char *reason);

void er_config_defaults(struct er_config *c);

/* Parse buf[0..len) on top of the values already in *c. Returns the number of warnings. */
unsigned er_config_parse(struct er_config *c, const char *buf, size_t len,
			 er_config_warn_fn warn, void *ctx);

/* The volume group and logical volume names in a resume_lv text, whichever its form:
 * "vg/lv", "/dev/vg/lv" (each name non-empty, no further '/') or "/dev/mapper/vg-lv"
 * (device-mapper's name: a '-' inside a name is doubled, the first single '-' separates;
 * exactly one single '-'). Names "." and ".." are refused (LVM refuses them too). Both
 * outputs are NUL-terminated; returns false (outputs "") when s has none of the forms or
 * is not 1..255 printable non-space bytes. */
bool er_config_lv_names(const char *s, char vg[ER_CONF_LV_MAX], char lv[ER_CONF_LV_MAX]);

/* UTF-8 -> UCS-2 (characters beyond the BMP and malformed bytes become '?').
 * Writes at most cap units including the terminating 0; returns units written
 * without the terminator. */
size_t er_utf8_to_ucs2(const char *s, uint16_t *out, size_t cap);

#endif
