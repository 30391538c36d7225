// SPDX-License-Identifier: GPL-2.0-or-later
/* The location variables: systemd's HibernateLocation (UTF-16LE) and efiresume's
 * EfiresumeLocation (UTF-8), JSON naming the swap device of the last hibernation, e.g.
 * {"uuid":"5b3a...","offset":0,"kernelVersion":"6.1.0-..." ...}. Pure C, host-tested. */
#ifndef EFIRESUME_LOADER_LOCATION_H
#define EFIRESUME_LOADER_LOCATION_H

#include "image/freestanding.h"

struct er_location {
	uint8_t uuid[16];          /* the swap partition's UUID (as mkswap stores it at offset 1036);
	                            * for a swap file, its filesystem's UUID */
	uint64_t offset;           /* resume_offset: non-zero for a swap file */
	char kernel[65];           /* kernelVersion, "" if absent, not a string or longer */
	bool have_device;          /* "device":"MAJ:MIN" was given (efiresume's own
	                            * EfiresumeLocation; systemd does not write it) */
	uint32_t dev_major;        /* the swap device's Linux device number (decimal */
	uint32_t dev_minor;        /* "8:2"; major < 2^12, minor < 2^20), 0:0 if absent */
	char luks[41];             /* "luks": the UUID of the LUKS container holding the swap,
	                            * as in its header (1..40 of [0-9a-fA-F-], kept as given);
	                            * "" if absent (efiresume's sleep hook writes it) */
	char lv[256];              /* "lv": "<vg>/<lv>", the logical volume holding the swap
	                            * (3..255 printable non-space bytes, exactly one '/', neither
	                            * name empty); "" if absent */
};

/* Parses the variable's bytes (UTF-8 JSON, possibly NUL-terminated). Returns false (and
 * *out zeroed) when the text is not one valid JSON document (volume/json.h: duplicate
 * keys, nesting beyond 32, malformed UTF-8 are invalid too) whose top level is an object
 * with a well-formed "uuid" string; or when "offset" is present and not an unsigned
 * 64-bit integer (a JSON number or a string of digits; beyond 2^64 - 1 refuses); or
 * when "device" is present and not a "MAJ:MIN" string. A "luks" or "lv" member that is
 * not a string of the form described above is ignored alone (its field stays "", the
 * rest of the variable still counts): they are hints. Other members are ignored. */
bool er_location_parse(const char *buf, size_t len, struct er_location *out);

/* How a location variable's bytes are written, by the one program that writes each:
 *  - ER_LOC_UTF8: EfiresumeLocation, by efiresume-install's sleep hook (tools/, printf
 *    of UTF-8 JSON, no NUL);
 *  - ER_LOC_UTF16LE: HibernateLocation, by systemd-sleep (systemd 254+, and elogind):
 *    efi_set_variable_string() writes the JSON as UTF-16LE with its terminating NUL
 *    (utf8_to_utf16), attributes NV|BS|RT. No writer of UTF-8 HibernateLocation exists,
 *    so none is taken. */
enum er_location_enc { ER_LOC_UTF8, ER_LOC_UTF16LE };

/* Do two location variables name one place: the same "uuid" and "offset" (what each
 * writer takes from /sys/power/resume and resume_offset at the same hibernation)? The
 * other members (kernelVersion, device, luks, lv) do not take part: systemd writes no
 * device, luks or lv, and an offset of 0 is a swap partition or LV in both. */
bool er_location_same_place(const struct er_location *a, const struct er_location *b);

/* The largest variable taken (bytes, as stored). */
#define ER_LOCATION_MAX 4096

/* A location variable as stored, in its encoding. ER_LOC_UTF8: er_location_parse.
 * ER_LOC_UTF16LE: converted strictly to UTF-8, then er_location_parse; refused when
 * the byte count is odd, a surrogate is unpaired, a NUL comes before the last code
 * unit (one terminating NUL is optional: systemd's reader does not need it), or more
 * than ER_LOCATION_MAX bytes; and, as systemd's reader does, when "offset" is absent.
 * (systemd's utf16_to_utf8 drops a trailing odd byte and unpaired surrogates and stops
 * at the first NUL; here each of those refuses the variable: no writer produces them,
 * and dropping code units could splice a different text together.)
 * why (may be NULL): on refusal, a short reason for the log; "" on success. */
bool er_location_read(const void *buf, size_t len, enum er_location_enc enc, struct er_location *out,
		      const char **why);

/* UTF-16LE (len bytes) to UTF-8 in out[cap], as er_location_read does: returns the
 * UTF-8 length (no NUL added), or -1 with *why set (odd length, unpaired surrogate, a
 * NUL before the last code unit, out too small). A final NUL code unit is dropped. */
long er_utf16le_to_utf8(const uint8_t *in, size_t len, char *out, size_t cap, const char **why);

/* The swap UUID from page 0 of a swap device (bytes 1036..1051). */
void er_swap_uuid(const uint8_t *page0, uint8_t out[16]);

/* The UUID of the filesystem a swap file lives in, as blkid reports it (and systemd
 * writes into HibernateLocation): ext2/3/4, XFS or Btrfs, recognised by their magic.
 * p holds the partition's first n bytes; n >= ER_FS_UUID_BYTES covers all three
 * (Btrfs keeps its superblock at 64 KiB), a shorter n only the others. Returns the
 * filesystem's name, or NULL when none is recognised. */
#define ER_FS_UUID_BYTES (65536 + 4096)
const char *er_fs_uuid(const uint8_t *p, size_t n, uint8_t out[16]);

/* 16 bytes in text order (as libuuid prints them) -> 36 characters + NUL. */
void er_uuid_format(const uint8_t u[16], char out[37]);

#endif
