/* The assessment as JSON (jansson), the shape result.json embeds. */
#include <stdlib.h>

#include "assess.h"

/* Forcing BLOCKED first, then by score, then in line order. */
static int by_weight(const void *a, const void *b, void *findings)
{
	const struct assess_finding *x = (const struct assess_finding *)findings + *(const size_t *)a;
	const struct assess_finding *y = (const struct assess_finding *)findings + *(const size_t *)b;
	if (x->block != y->block)
		return x->block > y->block ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The findings the JSON lists: all, or beyond max_findings the most severe,
 * in line order. *keep is NULL (all) or their indices (caller frees). */
static size_t findings_listed(const struct assess_result *r, size_t **keep)
{
	*keep = NULL;
	if (!r->max_findings || r->n_findings <= r->max_findings)
		return r->n_findings;
	size_t *idx = xmalloc(r->n_findings * sizeof(*idx));
	for (size_t i = 0; i < r->n_findings; i++)
		idx[i] = i;
	qsort_r(idx, r->n_findings, sizeof(*idx), by_weight, r->findings);
	qsort(idx, r->max_findings, sizeof(*idx), by_index);
	*keep = idx;
	return r->max_findings;
}

json_t *assess_result_to_json(const struct assess_result *r)
{
	json_t *o = json_object(), *fs = json_array(), *notes = json_array();
	const struct py_metrics *m = &r->metrics;
	_cleanup_free_ size_t *keep = NULL;
	size_t listed = findings_listed(r, &keep);

	json_object_set_new(o, "level", json_string(level_to_string(r->level)));
	json_object_set_new(o, "score", json_real(r->score));
	if (r->reason)
		json_object_set_new(o, "reason", json_string(r->reason));
	for (size_t k = 0; k < listed; k++) {
		const struct assess_finding *f = &r->findings[keep ? keep[k] : k];
		json_t *j = json_object();
		json_object_set_new(j, "rule_id", json_string(f->rule_id));
		json_object_set_new(j, "bandit_id", f->bandit_id ? json_string(f->bandit_id) : json_null());
		json_object_set_new(j, "severity", json_string(assess_severity_to_string(f->severity)));
		json_object_set_new(j, "confidence", json_string(assess_severity_to_string(f->confidence)));
		json_object_set_new(j, "cwe", f->cwe ? json_integer(f->cwe) : json_null());
		json_object_set_new(j, "line", json_integer(f->line));
		json_object_set_new(j, "col", json_integer(f->col));
		json_object_set_new(j, "message", json_string(f->message));
		json_object_set_new(j, "source", json_string(f->source));
		json_object_set_new(j, "score", json_real(f->score));
		if (f->origin != ASSESS_ORIGIN_NONE)
			json_object_set_new(j, "origin", json_string(assess_origin_to_string(f->origin)));
		if (f->contained != ASSESS_CONTAINED_NONE) {
			json_object_set_new(j, "contained",
					    json_string(assess_containment_to_string(f->contained)));
			json_object_set_new(j, "contained_why",
					    json_string(assess_containment_describe(f->contained)));
		}
		if (f->weighed != ASSESS_WEIGHED_NONE)
			json_object_set_new(j, "weighed", json_string(assess_weighed_to_string(f->weighed)));
		json_array_append_new(fs, j);
	}
	json_object_set_new(o, "findings", fs);
	if (listed < r->n_findings) {
		json_object_set_new(o, "findings_total", json_integer((json_int_t)r->n_findings));
		json_object_set_new(o, "findings_dropped", json_integer((json_int_t)(r->n_findings - listed)));
		json_object_set_new(o, "max_findings", json_integer((json_int_t)r->max_findings));
	}
	json_t *mj = json_object();
	json_object_set_new(mj, "bytes", json_integer((json_int_t)m->bytes));
	json_object_set_new(mj, "lines", json_integer((json_int_t)m->lines));
	json_object_set_new(mj, "statements", json_integer((json_int_t)m->statements));
	json_object_set_new(mj, "loops", json_integer((json_int_t)m->loops));
	json_object_set_new(mj, "imports", json_integer((json_int_t)m->imports));
	json_object_set_new(mj, "functions", json_integer((json_int_t)m->functions));
	json_object_set_new(mj, "max_nesting", json_integer((json_int_t)m->max_nesting));
	json_object_set_new(o, "metrics", mj);
	if (r->rejection) {
		json_object_set_new(o, "rejection", json_string(r->rejection));
		json_object_set_new(o, "rejection_offset", json_integer((json_int_t)r->rejection_offset));
	}
	for (size_t i = 0; i < r->n_notes; i++)
		json_array_append_new(notes, json_string(r->notes[i]));
	json_object_set_new(o, "notes", notes);
	return o;
}
