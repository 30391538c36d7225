// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS twins; see twins.h. */
#include "loader/twins.h"

bool er_uuid_text_eq(const char *a, const char *b)
{
	size_t i;
	for (i = 0; a[i] && b[i]; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return a[i] == b[i];
}

/* Field by field (struct padding is not compared): the same key opens both and maps
 * both the same way. */
static bool same_ks(const struct er_luks_keyslot *a, const struct er_luks_keyslot *b)
{
	return a->usable == b->usable && a->priority == b->priority && a->token == b->token && a->kdf == b->kdf &&
	       a->kdf_hash == b->kdf_hash && a->af_hash == b->af_hash && a->iterations == b->iterations &&
	       a->memory_kib == b->memory_kib && a->cpus == b->cpus && a->salt_len == b->salt_len &&
	       a->salt_len <= ER_LUKS_MAX_SALT && er_memcmp(a->salt, b->salt, a->salt_len) == 0 &&
	       a->area_offset == b->area_offset && a->area_size == b->area_size && a->area_key_size == b->area_key_size &&
	       a->key_size == b->key_size && a->stripes == b->stripes;
}

static bool same_header(const struct er_luks_header *a, const struct er_luks_header *b)
{
	const struct er_luks_segment *s = &a->seg, *t = &b->seg;
	const struct er_luks_digest *d = &a->digest, *e = &b->digest;
	if (a->version != b->version || a->n_order != b->n_order || a->n_order > ER_LUKS_MAX_KEYSLOTS)
		return false;
	if (s->offset != t->offset || s->size != t->size || s->dynamic != t->dynamic || s->iv_tweak != t->iv_tweak ||
	    s->sector_size != t->sector_size || s->iv_large_sectors != t->iv_large_sectors || s->key_size != t->key_size)
		return false;
	if (d->hash != e->hash || d->iterations != e->iterations || d->salt_len != e->salt_len ||
	    d->digest_len != e->digest_len || d->salt_len > ER_LUKS_MAX_SALT || d->digest_len > ER_LUKS_MAX_KEY ||
	    er_memcmp(d->salt, e->salt, d->salt_len) != 0 || er_memcmp(d->digest, e->digest, d->digest_len) != 0)
		return false;
	for (unsigned i = 0; i < a->n_order; i++) {
		unsigned k = a->order[i];
		if (k != b->order[i] || k >= ER_LUKS_MAX_KEYSLOTS || !same_ks(&a->ks[k], &b->ks[k]))
			return false;
	}
	return true;
}

void er_luks_twins(const struct er_luks_header *h, const bool *ok, unsigned n, unsigned *lead, bool *refused)
{
	bool unknown = false;
	/* the groups: the first readable header of a UUID leads */
	for (unsigned k = 0; k < n; k++) {
		lead[k] = k;
		refused[k] = false;
		if (!ok[k] || !h[k].uuid[0])
			continue;
		for (unsigned j = 0; j < k; j++)
			if (ok[j] && lead[j] == j && er_uuid_text_eq(h[j].uuid, h[k].uuid)) {
				lead[k] = j;
				if (!same_header(&h[j], &h[k]))
					refused[j] = true;
				break;
			}
	}
	/* a header that was not read (an I/O error, or not looked at) belongs to the group
	 * of its UUID: that group cannot be shown to be one header, so none of it is
	 * unlocked; one whose UUID is not known either may belong to any group */
	for (unsigned k = 0; k < n; k++) {
		if (ok[k])
			continue;
		if (!h[k].uuid[0]) {
			unknown = true;
			continue;
		}
		for (unsigned j = 0; j < n; j++)
			if (ok[j] && lead[j] == j && er_uuid_text_eq(h[j].uuid, h[k].uuid)) {
				lead[k] = j;
				refused[j] = true;
				break;
			}
	}
	for (unsigned k = 0; k < n; k++)
		if (refused[lead[k]] || (unknown && ok[k]))
			refused[k] = true;
}

bool er_luks_uuid_seen(const void *head, size_t len, char uuid[41])
{
	const char *b = head;
	size_t i;
	uuid[0] = 0;
	if (len < 208 || er_luks_probe(head, len) == 0)
		return false;
	for (i = 0; i < 40 && b[168 + i]; i++)
		uuid[i] = b[168 + i];
	if (i == 0 || i == 40) {
		uuid[0] = 0;
		return false;
	}
	uuid[i] = 0;
	return true;
}
