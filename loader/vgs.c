// SPDX-License-Identifier: GPL-2.0-or-later
/* Volume groups from every PV recorded; see vgs.h. */
#include <stdarg.h>
#include "loader/vgs.h"
#include "image/fmt.h"

static void say(const struct er_vgs_ops *ops, bool warn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct er_vgs_ops *ops, bool warn, const char *fmt, ...)
{
	char line[240];
	va_list ap;
	va_start(ap, fmt);
	er_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ops->log)
		ops->log(ops->ctx, warn, line);
}

struct pv_read {
	const struct er_vgs_ops *ops;
	unsigned dev;
};

static int pv_read_fn(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct pv_read *r = ctx;
	return r->ops->read(r->ops->ctx, r->dev, off, buf, len) ? -1 : 0;
}

/* The VG metadata of one PV (the first area that has it), into vg. */
static enum er_lvm_status pv_metadata(const struct er_vgs_ops *ops, const struct er_vgs_pv *r, char *text,
				      struct er_lvm_vg *vg)
{
	struct pv_read rd = { ops, r->dev };
	enum er_lvm_status st = ER_LVM_NO_METADATA;
	for (unsigned a = 0; a < r->label.n_mdas; a++) {
		struct er_lvm_error e = { 0 };
		size_t len = 0;
		st = er_lvm_mda_text(&r->label, a, pv_read_fn, &rd, text, ER_VGS_MDA_TEXT_MAX, &len, NULL, &e);
		if (st == ER_LVM_OK)
			st = er_lvm_vg_parse(text, len, vg, &e);
		if (st == ER_LVM_OK)
			return st;
		if (st != ER_LVM_NO_METADATA)
			say(ops, true, "%s: LVM metadata area %u: %s: %s\n", r->id, a, er_lvm_status_name(st), e.detail);
	}
	return st;
}

int er_vgs_assemble(struct er_vgs_set *set, const struct er_vgs_pv *pv, unsigned npv, struct er_vgs **out)
{
	const struct er_vgs_ops *ops = set->ops;
	struct er_lvm_vg *cand = NULL;
	struct er_vgs *s;
	char *text = NULL;
	int err = 0;

	*out = NULL;
	s = ops->alloc(ops->ctx, sizeof(*s));
	if (!s)
		return -1;
	if (npv == 0) {
		*out = s;
		return 0;
	}
	text = ops->alloc(ops->ctx, ER_VGS_MDA_TEXT_MAX);
	if (!text) {
		ops->free(ops->ctx, s);
		return -1;
	}
	for (unsigned p = 0; p < npv; p++) {
		if (!cand) {
			cand = ops->alloc(ops->ctx, sizeof(*cand));
			if (!cand) {
				err = -1;
				break;
			}
		}
		if (pv_metadata(ops, &pv[p], text, cand) != ER_LVM_OK)
			continue;
		unsigned k;
		for (k = 0; k < s->n; k++) {
			enum er_lvm_cmp c = er_lvm_vg_compare(s->vg[k], cand);
			if (c == ER_LVM_CMP_OTHER_VG)
				continue;
			if (c == ER_LVM_CMP_NEWER) {
				struct er_lvm_vg *t = s->vg[k];
				s->vg[k] = cand;
				cand = t;
				s->conflict[k] = false;   /* the newer copy settles it */
			} else if (c == ER_LVM_CMP_CONFLICT && !s->conflict[k]) {
				s->conflict[k] = true;
				say(ops, true, "VG %s: two copies of its metadata with seqno %llu differ; its volumes are not used\n",
				    s->vg[k]->name, (unsigned long long)s->vg[k]->seqno);
			}
			break;
		}
		if (k == s->n) {
			if (s->n == ER_VGS_MAX) {
				say(ops, true, "VG %s: more than %u volume groups: ignored\n", cand->name, ER_VGS_MAX);
				continue;
			}
			s->conflict[s->n] = false;
			s->vg[s->n++] = cand;
			cand = NULL;
		}
	}
	ops->free(ops->ctx, cand);
	ops->free(ops->ctx, text);
	/* which device holds each PV */
	for (unsigned k = 0; k < s->n; k++)
		for (unsigned p = 0; p < npv; p++) {
			struct er_lvm_error e = { 0 };
			if (er_lvm_vg_attach(s->vg[k], &pv[p].label, (int)pv[p].dev, pv[p].size, &e) < 0 &&
			    e.status != ER_LVM_NOT_FOUND)
				say(ops, true, "VG %s: %s: %s\n", s->vg[k]->name, pv[p].id, e.detail);
		}
	if (err) {
		er_vgs_drop(set, s);
		return err;
	}
	*out = s;
	return 0;
}

int er_vgs_add_dev(struct er_vgs *a, void *ctx)
{
	if (a->ndev >= ER_VGS_MAX_DEVS)
		return -1;
	a->dev[a->ndev++] = ctx;
	return 0;
}

void er_vgs_drop(struct er_vgs_set *set, struct er_vgs *a)
{
	const struct er_vgs_ops *ops = set->ops;
	if (!a)
		return;
	for (unsigned i = 0; i < a->ndev; i++)
		ops->free(ops->ctx, a->dev[i]);
	for (unsigned k = 0; k < a->n; k++)
		ops->free(ops->ctx, a->vg[k]);
	ops->free(ops->ctx, a);
}

void er_vgs_keep(struct er_vgs_set *set, struct er_vgs *a)
{
	if (!a)
		return;
	a->next = set->kept;
	set->kept = a;
}

void er_vgs_free_kept(struct er_vgs_set *set)
{
	while (set->kept) {
		struct er_vgs *a = set->kept;
		set->kept = a->next;
		er_vgs_drop(set, a);
	}
}
