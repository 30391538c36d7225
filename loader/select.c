// SPDX-License-Identifier: GPL-2.0-or-later
/* Image selection; see select.h. */
#include "loader/select.h"
#include "image/swsusp.h"

static bool is_image(const struct er_candidate *c)
{
	return c->kind == ER_SWAP_IMAGE || c->kind == ER_SWAP_IMAGE_2004;
}

static bool zero_uuid(const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

/* Two images are twins when their swap areas share a UUID (one area seen twice: RAID1
 * members, a cloned disk), or, for areas without a UUID, when page 0 is the same. */
static bool twins(const struct er_candidate *a, const struct er_candidate *b)
{
	if (!is_image(a) || !is_image(b))
		return false;
	if (!zero_uuid(a->uuid) || !zero_uuid(b->uuid))
		return er_memcmp(a->uuid, b->uuid, 16) == 0;
	return er_memcmp(a->tail, b->tail, sizeof(a->tail)) == 0;
}

void er_select_image(const struct er_candidate *c, size_t n, const uint8_t *hint, struct er_selection *out)
{
	int chosen = -1, named = -1;
	enum er_select_why why = ER_SEL_NONE;

	out->index = -1;
	out->subject = -1;
	out->twin = -1;
	out->identical = false;
	if (hint) {
		for (size_t i = 0; i < n; i++)
			if (c[i].kind != ER_SWAP_NONE && er_memcmp(c[i].uuid, hint, 16) == 0) {
				/* an image on it wins over a plain swap area with the same UUID */
				if (named < 0 || (is_image(&c[i]) && !is_image(&c[named])))
					named = (int)i;
			}
		if (named < 0) {
			out->why = ER_SEL_HINT_MISSING;
			return;
		}
		if (is_image(&c[named])) {
			/* the last hibernation is there: when the configuration excludes it,
			 * any other image is an older one (issue 15 defect 7) */
			if (!c[named].eligible) {
				out->why = ER_SEL_HINT_EXCLUDED;
				return;
			}
			chosen = named;
			why = ER_SEL_HINT;
		}
	}
	/* a hint naming an area without an image is stale: the last hibernation is not
	 * there, and any other image is an older one (as for a swap file, loader/find.c) */
	if (chosen < 0 && hint) {
		out->why = ER_SEL_HINT_STALE;
		return;
	}
	if (chosen < 0)
		for (size_t i = 0; i < n; i++)
			if (is_image(&c[i]) && c[i].eligible) {
				chosen = (int)i;
				why = ER_SEL_FIRST;
				break;
			}
	if (chosen < 0) {
		out->why = ER_SEL_NONE;
		return;
	}
	/* a twin anywhere, configured or not: resuming one and resetting its signature
	 * would leave the other to be resumed later over filesystems that moved on */
	for (size_t i = 0; i < n; i++)
		if ((int)i != chosen && twins(&c[chosen], &c[i])) {
			out->why = ER_SEL_TWIN;
			out->subject = chosen;
			out->twin = (int)i;
			out->identical = er_memcmp(c[chosen].tail, c[i].tail, sizeof(c[i].tail)) == 0;
			return;
		}
	out->index = chosen;
	out->why = why;
}

const char *er_select_why_text(enum er_select_why w)
{
	switch (w) {
	case ER_SEL_NONE: return "no image";
	case ER_SEL_FIRST: return "the first image found";
	case ER_SEL_HINT: return "the swap area the location variable names";
	case ER_SEL_HINT_STALE: return "the location variable names a swap area without an image (stale)";
	case ER_SEL_HINT_MISSING: return "the swap area the location variable names is not visible";
	case ER_SEL_HINT_EXCLUDED:
		return "the swap area the location variable names holds an image the resume configuration excludes";
	case ER_SEL_TWIN: return "the same swap area holds an image on two devices";
	}
	return "?";
}
