/* The assessor: lexes and analyzes one snapshot, turns the analyzer's events
 * into findings through the rules, scores them and picks the level. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "assess_intent.h"
#include "assess_rules.h"
#include "pylex.h"

const char *assess_severity_to_string(enum assess_severity s)
{
	switch (s) {
	case ASSESS_SEV_LOW: return "LOW";
	case ASSESS_SEV_MEDIUM: return "MEDIUM";
	case ASSESS_SEV_HIGH: return "HIGH";
	case ASSESS_SEV_CRITICAL: return "CRITICAL";
	}
	return "?";
}

void assess_result_add(struct assess_result *r, const struct assess_finding *f)
{
	struct assess_finding *d;

	if ((r->n_findings & (r->n_findings - 1)) == 0 || r->n_findings == 0) {
		size_t cap = r->n_findings ? r->n_findings * 2 : 8;
		r->findings = xrealloc(r->findings, cap * sizeof(*r->findings));
	}
	d = &r->findings[r->n_findings++];
	*d = *f;
	d->rule_id = xstrdup(f->rule_id);
	d->bandit_id = f->bandit_id ? xstrdup(f->bandit_id) : NULL;
	d->message = xstrdup(f->message ? f->message : "");
	d->source = xstrdup(f->source ? f->source : "mai");
}

enum assess_severity assess_finding_counted_severity(const struct assess_finding *f)
{
	if (f->weighed == ASSESS_WEIGHED_NATIVE)
		return ASSESS_SEV_LOW;
	if (f->contained != ASSESS_CONTAINED_NONE && f->severity > ASSESS_SEV_MEDIUM)
		return ASSESS_SEV_MEDIUM;
	return f->severity;
}

char *assess_finding_describe(const struct assess_finding *f)
{
	const char *origin = assess_origin_describe(f->origin);
	const char *contained = assess_containment_describe(f->contained);
	const char *weighed = f->weighed == ASSESS_WEIGHED_NATIVE
		? "Bandit's finding, not counted: the native analyzer judges this check"
		: f->weighed == ASSESS_WEIGHED_EVIDENCE
		? "Bandit's finding, counted at its severity and confidence" : NULL;
	const char *parts[3] = { NULL, contained, weighed };
	_cleanup_free_ char *arg = origin ? xasprintf("arguments: %s", origin) : NULL;
	char *out = xstrdup(f->message);
	int n = 0;

	parts[0] = arg;
	for (int i = 0; i < 3; i++) {
		if (!parts[i])
			continue;
		char *next = xasprintf("%s%s%s", out, n++ ? "; " : " (", parts[i]);
		free(out);
		out = next;
	}
	if (n) {
		char *next = xasprintf("%s)", out);
		free(out);
		out = next;
	}
	return out;
}

void assess_result_add_note(struct assess_result *r, const char *note)
{
	r->notes = xrealloc(r->notes, (r->n_notes + 1) * sizeof(char *));
	r->notes[r->n_notes++] = xstrdup(note);
}

static void finding_free(struct assess_finding *f)
{
	free(f->rule_id);
	free(f->bandit_id);
	free(f->message);
	free(f->source);
}

void assess_result_clear(struct assess_result *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		finding_free(&r->findings[i]);
	free(r->findings);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->rejection);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

struct match_ctx {
	const struct assess_rules *rules;
	struct assess_result *out;
	struct assess_intent intent;
};

static void add_finding(void *p, const struct assess_rule *r, const struct pya_event *ev)
{
	const struct match_ctx *m = p;
	struct assess_finding f = {
		.rule_id = r->id, .bandit_id = r->bandit_id, .severity = r->severity,
		.confidence = r->confidence, .cwe = r->cwe, .line = ev->line, .col = ev->col,
		.message = r->message, .source = "mai", .score = assess_rule_score(r),
		.block = r->block, .origin = (enum assess_origin)ev->origin,
	};
	/* What the sandbox denies counts as MEDIUM at most, whatever the
	 * rule's severity: it is reported, it does not hold the script. */
	if (assess_rules_contains(m->rules, r->contained)) {
		f.contained = r->contained;
		f.block = 0;
		if (r->severity > ASSESS_SEV_MEDIUM)
			f.score = assess_score(ASSESS_SEV_MEDIUM, r->confidence) * r->weight;
	}
	/* Outside data and values nobody can follow may raise the score; a
	 * literal keeps the rule's own. */
	f.score *= r->origin_weight[ev->origin];
	assess_result_add(m->out, &f);
}

static void on_event(void *p, const struct pya_event *ev)
{
	struct match_ctx *m = p;

	assess_intent_event(&m->intent, ev);
	assess_rules_each_match(m->rules, ev, add_finding, m);
}

static int finding_cmp(const void *a, const void *b)
{
	const struct assess_finding *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	int c = strcmp(x->rule_id, y->rule_id);
	if (c)
		return c;
	return strcmp(x->source, y->source);
}

/* Is g a native finding on f's line with f's Bandit id (the same check)? */
static int same_check(const struct assess_finding *f, const struct assess_finding *g)
{
	return !strcmp(g->source, "mai") && f->bandit_id && g->bandit_id &&
	       !strcmp(f->bandit_id, g->bandit_id);
}

/* Does an enabled native rule evaluate this Bandit check? */
static int native_evaluates(const struct assess_rules *rules, const char *bandit_id)
{
	for (size_t i = 0; bandit_id && i < rules->n; i++)
		if (rules->r[i].enabled && rules->r[i].bandit_id &&
		    !strcmp(rules->r[i].bandit_id, bandit_id))
			return 1;
	return 0;
}

struct bandit_tally {
	size_t merged, native, evidence, dropped;
	char dropped_ids[64]; /* "B322, B325" */
};

/* Weighs one Bandit finding not yet weighed (bandit_checks in the rules):
 * a check whose premise is Python 2's is dropped (-1), one the native
 * analyzer evaluates counts for nothing (its own finding, or none, is the
 * judgment), the rest is evidence at Bandit's severity and confidence,
 * contained as its entry says. */
static int bandit_weigh(const struct assess_rules *rules, struct assess_finding *f,
			struct bandit_tally *t)
{
	const struct assess_bandit_check *c = assess_bandit_check(rules, f->bandit_id);

	if (c && c->judged == ASSESS_BANDIT_PYTHON2) {
		t->dropped++;
		if (!strstr(t->dropped_ids, f->bandit_id) &&
		    strlen(t->dropped_ids) + 8 < sizeof(t->dropped_ids))
			snprintf(t->dropped_ids + strlen(t->dropped_ids), 8, "%s%s",
				 t->dropped_ids[0] ? ", " : "", f->bandit_id);
		return -1;
	}
	if ((c && c->judged == ASSESS_BANDIT_NATIVE) || native_evaluates(rules, f->bandit_id)) {
		f->weighed = ASSESS_WEIGHED_NATIVE;
		f->score = 0;
		t->native++;
		return 0;
	}
	f->weighed = ASSESS_WEIGHED_EVIDENCE;
	if (c && assess_rules_contains(rules, c->contained)) {
		f->contained = c->contained;
		if (f->severity > ASSESS_SEV_MEDIUM)
			f->score = assess_score(ASSESS_SEV_MEDIUM, f->confidence);
	}
	t->evidence++;
	return 0;
}

/* The note that says how Bandit's findings were weighed. */
static void bandit_note(const struct assess_rules *rules, struct assess_result *r,
			const struct bandit_tally *t)
{
	size_t n = t->merged + t->native + t->evidence + t->dropped;
	if (!n)
		return;
	char *note = xasprintf("Bandit's findings, %zu: %zu the same as the native analyzer's on "
			       "their line (merged), %zu not counted (checks the native analyzer "
			       "judges itself, knowing where arguments come from), %zu counted as "
			       "evidence at Bandit's severity and confidence, %zu dropped as Python 2 "
			       "only%s%s%s", n, t->merged, t->native, t->evidence, t->dropped,
			       t->dropped ? " (" : "", t->dropped_ids, t->dropped ? ")" : "");
	assess_result_add_note(r, note);
	free(note);
	/* Why each dropped check does not apply, once. */
	for (size_t i = 0; i < rules->n_bandit; i++) {
		const struct assess_bandit_check *c = &rules->bandit[i];
		if (c->judged != ASSESS_BANDIT_PYTHON2 || !strstr(t->dropped_ids, c->id))
			continue;
		note = xasprintf("Bandit's %s dropped: %s", c->id, c->why);
		assess_result_add_note(r, note);
		free(note);
	}
}

/* The one reason a person should look at a held script: its worst
 * finding (one that forces BLOCKED first), with where and why. */
static void hold_reason(struct assess_result *r)
{
	const struct assess_finding *w = NULL;

	free(r->reason);
	r->reason = NULL;
	if (r->level < LEVEL_HIGH)
		return;
	if (r->rejection) {
		r->reason = xasprintf("the file is not valid source text: %s", r->rejection);
		return;
	}
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct assess_finding *f = &r->findings[i];
		if (!w || f->block > w->block || (f->block == w->block && f->score > w->score))
			w = f;
	}
	if (!w)
		return;
	const char *origin = assess_origin_describe(w->origin);
	r->reason = xasprintf("line %u: %s%s%s%s [%s]%s", w->line, w->message,
			      origin ? " (arguments: " : "", origin ? origin : "", origin ? ")" : "",
			      w->rule_id, !strcmp(w->source, "mai") ? "" : w->source[0] == 'b'
			      ? " (Bandit's finding)" : " (Semgrep's finding)");
}

void assess_result_finish(const struct assess_rules *rules, struct assess_result *r)
{
	size_t o = 0;
	double max = 0, sum = 0;
	int block = 0;
	struct bandit_tally tally = { 0 };

	if (r->n_findings)
		qsort(r->findings, r->n_findings, sizeof(*r->findings), finding_cmp);
	/* A Bandit or Semgrep finding with the line and Bandit id of a native
	 * one adds nothing; the same rule at the same place (a call seen twice,
	 * e.g. in exec'd text) is one finding. Sorted by line, so only the
	 * findings of the same line are compared. */
	size_t line_start = 0;
	for (size_t i = 0; i < r->n_findings; i++) {
		struct assess_finding *f = &r->findings[i];
		int dup = 0, fresh_bandit = !strcmp(f->source, "bandit") && !f->weighed;
		if (i == 0 || r->findings[i - 1].line != f->line)
			line_start = i;
		for (size_t k = line_start; k < r->n_findings && r->findings[k].line == f->line && !dup; k++) {
			const struct assess_finding *g = &r->findings[k];
			if (k == i)
				continue;
			if (strcmp(f->source, "mai") != 0 && !strcmp(g->source, "mai"))
				dup = same_check(f, g);
			else if (k < i && !strcmp(g->source, f->source))
				dup = !strcmp(g->rule_id, f->rule_id) && g->col == f->col;
		}
		if (dup && fresh_bandit)
			tally.merged++;
		else if (!dup && fresh_bandit && bandit_weigh(rules, f, &tally) < 0)
			dup = 1;
		f->block = dup ? -1 : f->block; /* marked; removed below */
	}
	for (size_t i = 0; i < r->n_findings; i++) {
		struct assess_finding *f = &r->findings[i];
		if (f->block < 0) {
			finding_free(f);
			continue;
		}
		r->findings[o++] = *f;
	}
	r->n_findings = o;
	r->max_findings = rules->max_findings;
	bandit_note(rules, r, &tally);
	for (size_t i = 0; i < o; i++) {
		const struct assess_finding *f = &r->findings[i];
		sum += f->score;
		if (f->score > max)
			max = f->score;
		block |= f->block;
	}
	/* The others only order scripts within a level: a pile of findings
	 * never crosses into the next level, the worst one decides. */
	double rest = (sum - max) / 10.0;
	r->score = max + (rest < 9.9 ? rest : 9.9);
	const double limits[] = { rules->medium, rules->high, rules->blocked };
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		if (max < limits[i] && r->score >= limits[i])
			r->score = limits[i] - 0.1;
	if (block || r->rejection || r->score >= rules->blocked)
		r->level = LEVEL_BLOCKED;
	else if (r->score >= rules->high)
		r->level = LEVEL_HIGH;
	else if (r->score >= rules->medium)
		r->level = LEVEL_MEDIUM;
	else
		r->level = LEVEL_LOW;
	hold_reason(r);
}

int assess_source(const struct assess_rules *rules, const char *name, const uint8_t *data,
		  size_t len, struct assess_result *out)
{
	struct pylex lx;
	const char *reason = NULL;
	size_t offset = 0;
	struct match_ctx m = { .rules = rules, .out = out };

	memset(out, 0, sizeof(*out));
	out->metrics.bytes = len;
	if (pylex_open(&lx, data, len, &reason, &offset) < 0) {
		out->rejection = xstrdup(reason);
		out->rejection_offset = offset;
		out->level = LEVEL_BLOCKED;
		hold_reason(out);
		pylex_close(&lx);
		return -EINVAL;
	}
	if (lx.encoding_status != PYLEX_ENC_OK) {
		struct pya_event ev = {
			/* Only a coding cookie, on its line, makes the encoding other than OK. */
			.kind = PYA_SPECIAL, .line = lx.encoding_line, .col = 1,
			.dynamic = 1,
			.name = lx.encoding_status == PYLEX_ENC_UNKNOWN ? "encoding-unknown"
								       : "encoding-abusable",
		};
		on_event(&m, &ev);
		char *note = xasprintf("%s: source encoding '%s'%s", name, lx.encoding,
				       lx.encoding_status == PYLEX_ENC_CONFLICT
					       ? " contradicts the UTF-8 byte order mark" : "");
		assess_result_add_note(out, note);
		free(note);
	}
	struct pya_filter filter;
	assess_rules_filter(rules, &filter);
	pya_analyze(&lx, on_event, &m, &out->metrics, &filter);
	assess_intent_finish(&m.intent, on_event, &m);
	out->metrics.bytes = len;
	if (lx.error) {
		char *note = xasprintf("%s:%u:%u: %s (Python will refuse to run this file)", name,
				       lx.error_line, lx.error_col, lx.error);
		assess_result_add_note(out, note);
		free(note);
	}
	pylex_close(&lx);
	assess_result_finish(rules, out);
	return 0;
}
