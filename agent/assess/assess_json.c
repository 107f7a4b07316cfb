/* The assessment as JSON (jansson), the shape result.json embeds. */
#include "assess.h"

json_t *assess_result_to_json(const struct assess_result *r)
{
	json_t *o = json_object(), *fs = json_array(), *notes = json_array();
	const struct py_metrics *m = &r->metrics;

	json_object_set_new(o, "level", json_string(level_to_string(r->level)));
	json_object_set_new(o, "score", json_real(r->score));
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct assess_finding *f = &r->findings[i];
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
		json_array_append_new(fs, j);
	}
	json_object_set_new(o, "findings", fs);
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
