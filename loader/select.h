// SPDX-License-Identifier: GPL-2.0-or-later
/* Which swap device's image to resume: the decision, without the firmware (host-tested).
 * loader/find.c reads page 0 of every swap device and hands the facts here. */
#ifndef EFIRESUME_LOADER_SELECT_H
#define EFIRESUME_LOADER_SELECT_H

#include "image/freestanding.h"

struct er_candidate {
	uint8_t kind;           /* enum er_swap_kind of its page 0 */
	bool eligible;          /* passes `resume PARTUUID=` (true when none is configured) */
	uint8_t uuid[16];       /* the swap area's UUID (page 0, bytes 1036..1051) */
	uint8_t tail[40];       /* page 0 bytes 4056..4095: hw_sig, crc32, first map page, flags, orig_sig, sig */
};

enum er_select_why {
	ER_SEL_NONE = 0,        /* no image on an eligible device */
	ER_SEL_FIRST,           /* the first image on an eligible device */
	ER_SEL_HINT,            /* the device the location variable names */
	ER_SEL_HINT_STALE,      /* the named device holds no image: the hint is stale; nothing taken (another
	                         * image would be older than the last hibernation) */
	ER_SEL_HINT_MISSING,    /* the named device is not visible: nothing taken */
	ER_SEL_HINT_EXCLUDED,   /* the named device holds an image the configuration excludes: nothing taken */
	ER_SEL_TWIN,            /* the image has a twin on another device (same swap UUID): nothing taken */
};

struct er_selection {
	int index;              /* chosen candidate, -1 for none */
	enum er_select_why why;
	int subject;            /* ER_SEL_TWIN: the image that would have been taken */
	int twin;               /* ER_SEL_TWIN: the other device */
	bool identical;         /* ER_SEL_TWIN: page 0 of both is the same (RAID1 members, a copied disk) */
};

/* hint: the swap UUID named by HibernateLocation/EfiresumeLocation (NULL: none). */
void er_select_image(const struct er_candidate *c, size_t n, const uint8_t *hint, struct er_selection *out);
const char *er_select_why_text(enum er_select_why w);

#endif
