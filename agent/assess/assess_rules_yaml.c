/* Rules from YAML: the `rules:` and `bandit_checks:` lists of a file on top
 * of a rule set; entries with a known id change that rule, new ids add rules.
 * Every error names the file, line and column. The built-in file
 * (assess_rules.yaml, which also sets the thresholds' and origins' defaults)
 * goes through here once, at build time (assess_rules_gen.c); security.yaml
 * at every start. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "assess_rules.h"

static const char *const rule_keys[] = {
	"id", "bandit", "match", "severity", "confidence", "cwe", "message", "block", "enabled",
	"weight", "origin_weights", "contained",
};
static const char *const match_keys[] = {
	"call", "import", "special", "dynamic", "in_loop", "kwarg", "unless_kwarg", "write_mode",
	"path", "arg_contains", "arg_ref", "not_call", "kwarg_true", "has_kwarg", "lacks_kwarg",
	"mode", "partial_path", "arg_glob", "string", "taint", "not_arg_ref", "program", "decoded",
};

static int fail(char **err, const char *name, const struct yt_node *n, const char *what,
		const char *expected)
{
	*err = xasprintf("%s:%u:%u: %s; expected %s", name, n->line, n->col, what, expected);
	return -EINVAL;
}

static int known_key(const char *k, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(k, keys[i]) == 0)
			return 1;
	return 0;
}

static int get_bool(const char *name, const struct yt_node *n, int *out, char **err)
{
	if (n->kind == YT_SCALAR && !n->quoted && strcmp(n->value, "true") == 0)
		return *out = 1, 0;
	if (n->kind == YT_SCALAR && !n->quoted && strcmp(n->value, "false") == 0)
		return *out = 0, 0;
	return fail(err, name, n, "not a boolean", "true or false");
}

static int get_level(const char *name, const struct yt_node *n, int allow_critical,
		     enum assess_severity *out, char **err)
{
	static const char *const names[] = { "LOW", "MEDIUM", "HIGH", "CRITICAL" };
	if (n->kind == YT_SCALAR)
		for (int i = 0; i < (allow_critical ? 4 : 3); i++)
			if (strcasecmp(n->value, names[i]) == 0)
				return *out = (enum assess_severity)(i + 1), 0;
	return fail(err, name, n, "unknown level",
		    allow_critical ? "LOW, MEDIUM, HIGH or CRITICAL" : "LOW, MEDIUM or HIGH");
}

static int get_strv(const char *name, const struct yt_node *n, struct assess_strv *out, char **err)
{
	struct assess_strv s = { 0 };
	if (n->kind == YT_SCALAR) {
		s.v = xmalloc(sizeof(char *));
		s.v[s.n++] = xstrdup(n->value);
	} else if (n->kind == YT_SEQUENCE) {
		s.v = xcalloc(n->n_items + 1, sizeof(char *));
		for (size_t i = 0; i < n->n_items; i++) {
			if (n->items[i]->kind != YT_SCALAR || !n->items[i]->value[0]) {
				assess_strv_free(&s);
				return fail(err, name, n->items[i], "not a name", "a non-empty string");
			}
			s.v[s.n++] = xstrdup(n->items[i]->value);
		}
	} else {
		return fail(err, name, n, "a mapping here", "a string or a list of strings");
	}
	assess_strv_free(out);
	*out = s;
	return 0;
}

/* taint: [typed, data, network, secret, host]: enum pya_taint bits. */
static int get_taint(const char *name, const struct yt_node *v, unsigned *out, char **err)
{
	struct assess_strv s = { 0 };
	unsigned bits = 0;
	int rc = get_strv(name, v, &s, err);

	for (size_t i = 0; rc == 0 && i < s.n; i++) {
		unsigned b = 1;
		while (b < (1u << PYA_TAINT_BITS) && strcmp(pya_taint_to_string(b), s.v[i]) != 0)
			b <<= 1;
		if (b >= (1u << PYA_TAINT_BITS))
			rc = fail(err, name, v, "unknown taint",
				  "typed, data, network, secret, host, system or credential");
		bits |= b;
	}
	assess_strv_free(&s);
	if (rc == 0)
		*out = bits;
	return rc;
}

static int get_containment(const char *name, const struct yt_node *v,
			   enum assess_containment *out, char **err)
{
	if (v->kind != YT_SCALAR || assess_containment_from_string(v->value, out) < 0)
		return fail(err, name, v, "unknown containment",
			    "network, filesystem, process, privileges, environment, limits or windows");
	return 0;
}

static int parse_match(const char *name, const struct yt_node *m, struct assess_rule *r, char **err)
{
	int rc = 0;
	if (m->kind != YT_MAPPING)
		return fail(err, name, m, "match is not a mapping", "keys such as call, import, special");
	for (size_t i = 0; i + 1 < m->n_items && rc == 0; i += 2) {
		const struct yt_node *k = m->items[i], *v = m->items[i + 1];
		const char *key = k->value;
		if (!known_key(key, match_keys, ARRAY_SIZE(match_keys)))
			return fail(err, name, k, "unknown match key",
				    "call, import, special, dynamic, in_loop, kwarg, unless_kwarg, "
				    "write_mode, path, arg_contains, arg_ref, not_call, kwarg_true, "
				    "has_kwarg, lacks_kwarg, mode, partial_path, arg_glob, string, taint, "
				    "not_arg_ref, program or decoded");
		size_t sk = 0;
		while (sk < ASSESS_STRV_KEYS && strcmp(key, assess_strv_keys[sk].key) != 0)
			sk++;
		if (sk < ASSESS_STRV_KEYS) {
			rc = get_strv(name, v, assess_rule_strv(r, sk), err);
			for (size_t mi = 0; rc == 0 && !strcmp(key, "mode") && mi < r->mode.n; mi++)
				if (!known_key(r->mode.v[mi], assess_mode_classes, ASSESS_MODE_CLASSES))
					return fail(err, name, v, "unknown mode class",
						    "world-writable-or-setid, group-writable-or-exec, "
						    "restricted or unknown");
		}
		else if (!strcmp(key, "partial_path")) rc = get_bool(name, v, &r->partial_path, err);
		else if (!strcmp(key, "taint")) rc = get_taint(name, v, &r->taint, err);
		else if (!strcmp(key, "decoded")) rc = get_bool(name, v, &r->decoded, err);
		else if (!strcmp(key, "dynamic")) rc = get_bool(name, v, &r->dynamic, err);
		else if (!strcmp(key, "in_loop")) rc = get_bool(name, v, &r->in_loop, err);
		else if (!strcmp(key, "write_mode")) rc = get_bool(name, v, &r->write_mode, err);
		else if (!strcmp(key, "kwarg")) {
			if (v->kind != YT_SCALAR || !strchr(v->value, '='))
				return fail(err, name, v, "bad kwarg", "NAME=VALUE, e.g. \"shell=True\"");
			free(r->kwarg);
			r->kwarg = xstrdup(v->value);
		} else if (!strcmp(key, "path")) {
			if (v->kind == YT_SCALAR && !strcmp(v->value, "outside"))
				r->path = 1;
			else if (v->kind == YT_SCALAR && !strcmp(v->value, "local"))
				r->path = 2;
			else if (v->kind == YT_SCALAR && !strcmp(v->value, "absolute"))
				r->path = 3;
			else
				return fail(err, name, v, "unknown path condition",
					    "outside, local or absolute");
		}
	}
	return rc;
}

/* origin_weights: {unresolved: W, outside: W}: factors on the score of a
 * finding whose call takes such arguments (a literal's is always 1). */
static int get_origin_weights(const char *name, const struct yt_node *m, double *w, char **err)
{
	static const char *const keys[] = { "unresolved", "outside" };
	static const enum pya_origin origins[] = { PYA_ORIGIN_UNRESOLVED, PYA_ORIGIN_OUTSIDE };

	if (m->kind != YT_MAPPING)
		return fail(err, name, m, "origin_weights is not a mapping",
			    "{unresolved: N, outside: N}");
	for (size_t i = 0; i + 1 < m->n_items; i += 2) {
		const struct yt_node *k = m->items[i], *v = m->items[i + 1];
		size_t o = 0;
		while (o < ARRAY_SIZE(keys) && strcmp(k->value, keys[o]) != 0)
			o++;
		if (o == ARRAY_SIZE(keys))
			return fail(err, name, k, "unknown origin", "unresolved or outside");
		char *end;
		double d = v->kind == YT_SCALAR ? strtod(v->value, &end) : -1;
		if (v->kind != YT_SCALAR || *end || !v->value[0] || !(d >= 1 && d <= 10))
			return fail(err, name, v, "bad origin weight", "a number from 1 to 10");
		w[origins[o]] = d;
	}
	return 0;
}

static int apply_one(struct assess_rules *rules, const char *name, const struct yt_node *e,
		     char **err)
{
	const struct yt_node *id = yt_map_get(e, "id");
	struct assess_rule *r = NULL;
	int fresh = 0, rc = 0;

	if (e->kind != YT_MAPPING)
		return fail(err, name, e, "a rule is not a mapping", "a mapping with id, match, ...");
	if (!id || id->kind != YT_SCALAR || !id->value[0])
		return fail(err, name, e, "rule without an id", "id: MAInnn (or your own id)");
	for (size_t i = 0; i < rules->n; i++)
		if (!strcmp(rules->r[i].id, id->value))
			r = &rules->r[i];
	if (!r) {
		rules->r = xrealloc(rules->r, (rules->n + 1) * sizeof(*rules->r));
		r = &rules->r[rules->n];
		memset(r, 0, sizeof(*r));
		r->id = xstrdup(id->value);
		r->enabled = 1;
		r->weight = 1.0;
		r->confidence = ASSESS_SEV_HIGH;
		r->dynamic = r->in_loop = r->write_mode = r->partial_path = r->decoded = -1;
		memcpy(r->origin_weight, rules->origin_weight, sizeof(r->origin_weight));
		fresh = 1;
	}
	r->line = e->line;
	r->col = e->col;
	for (size_t i = 0; i + 1 < e->n_items && rc == 0; i += 2) {
		const struct yt_node *k = e->items[i], *v = e->items[i + 1];
		if (!known_key(k->value, rule_keys, ARRAY_SIZE(rule_keys))) {
			rc = fail(err, name, k, "unknown rule key",
				  "id, bandit, match, severity, confidence, cwe, message, block, "
				  "enabled, weight, origin_weights or contained");
			break;
		}
		if (!strcmp(k->value, "origin_weights")) {
			rc = get_origin_weights(name, v, r->origin_weight, err);
			continue;
		}
		if (!strcmp(k->value, "contained")) {
			if (v->kind == YT_SCALAR && !v->quoted && !strcmp(v->value, "false"))
				r->contained = ASSESS_CONTAINED_NONE;
			else
				rc = get_containment(name, v, &r->contained, err);
			continue;
		}
		if (v->kind != YT_SCALAR && strcmp(k->value, "match")) {
			rc = fail(err, name, v, "not a single value", "a scalar");
			break;
		}
		if (!strcmp(k->value, "match")) {
			rc = parse_match(name, v, r, err);
		} else if (!strcmp(k->value, "bandit")) {
			if (v->value[0] != 'B' || strlen(v->value) != 4)
				rc = fail(err, name, v, "not a Bandit test id", "B followed by 3 digits (B602)");
			free(r->bandit_id);
			r->bandit_id = xstrdup(v->value);
		} else if (!strcmp(k->value, "message")) {
			free(r->message);
			r->message = xstrdup(v->value);
		} else if (!strcmp(k->value, "severity")) {
			rc = get_level(name, v, 1, &r->severity, err);
		} else if (!strcmp(k->value, "confidence")) {
			rc = get_level(name, v, 0, &r->confidence, err);
		} else if (!strcmp(k->value, "cwe")) {
			char *end;
			unsigned long c = strtoul(v->value, &end, 10);
			if (*end || !v->value[0] || c > 100000)
				rc = fail(err, name, v, "bad CWE number", "a number such as 78");
			r->cwe = (unsigned)c;
		} else if (!strcmp(k->value, "block")) {
			rc = get_bool(name, v, &r->block, err);
		} else if (!strcmp(k->value, "enabled")) {
			rc = get_bool(name, v, &r->enabled, err);
		} else if (!strcmp(k->value, "weight")) {
			char *end;
			double w = strtod(v->value, &end);
			if (*end || !v->value[0] || !(w >= 0 && w <= 100))
				rc = fail(err, name, v, "bad weight", "a number from 0 to 100");
			r->weight = w;
		}
	}
	if (rc == 0 && fresh && (!r->severity || !r->message ||
				 (!r->call.n && !r->import.n && !r->special.n && !r->string.n)))
		rc = fail(err, name, e, "new rule is incomplete",
			  "severity, message and a match with call, import, special or string");
	if (rc < 0 && fresh) {
		assess_rule_clear(r);
		return rc;
	}
	if (fresh)
		rules->n++;
	return rc;
}

static int apply_rules(struct assess_rules *rules, const char *name, const struct yt_node *seq,
		       char **err)
{
	if (!seq)
		return 0;
	if (seq->kind != YT_SEQUENCE)
		return fail(err, name, seq, "rules is not a list", "a list of rules (- id: ...)");
	int rc = 0;
	for (size_t i = 0; i < seq->n_items && rc == 0; i++)
		rc = apply_one(rules, name, seq->items[i], err);
	return rc;
}

/* bandit_checks: [{id: B322, judged: python2, why: "..."}, {id: B501,
 * contained: network}, ...]: an entry with a known id replaces it. */
static int apply_bandit_checks(struct assess_rules *rules, const char *name,
			       const struct yt_node *seq, char **err)
{
	static const char *const judged[] = { "evidence", "native", "python2" };

	if (!seq)
		return 0;
	if (seq->kind != YT_SEQUENCE)
		return fail(err, name, seq, "bandit_checks is not a list",
			    "a list of {id: Bnnn, judged: ..., contained: ..., why: ...}");
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct yt_node *e = seq->items[i], *id = yt_map_get(e, "id");
		struct assess_bandit_check c = { .judged = ASSESS_BANDIT_EVIDENCE };
		if (e->kind != YT_MAPPING || !id || id->kind != YT_SCALAR || id->value[0] != 'B' ||
		    strlen(id->value) != 4)
			return fail(err, name, e, "a Bandit check without an id",
				    "{id: Bnnn, judged: evidence|native|python2, ...}");
		for (size_t k = 0; k + 1 < e->n_items; k += 2) {
			const struct yt_node *key = e->items[k], *v = e->items[k + 1];
			if (!strcmp(key->value, "id"))
				continue;
			if (v->kind != YT_SCALAR)
				return fail(err, name, v, "not a single value", "a scalar");
			if (!strcmp(key->value, "judged")) {
				size_t j = 0;
				while (j < ARRAY_SIZE(judged) && strcmp(judged[j], v->value))
					j++;
				if (j == ARRAY_SIZE(judged))
					return fail(err, name, v, "unknown judgment",
						    "evidence, native or python2");
				c.judged = (enum assess_bandit_judged)j;
			} else if (!strcmp(key->value, "contained")) {
				if (get_containment(name, v, &c.contained, err) < 0)
					return -EINVAL;
			} else if (!strcmp(key->value, "why")) {
				c.why = v->value;
			} else {
				return fail(err, name, key, "unknown Bandit check key",
					    "id, judged, contained or why");
			}
		}
		if (c.judged == ASSESS_BANDIT_PYTHON2 && !c.why)
			return fail(err, name, e, "a Python 2 check without a why",
				    "why: what Python 3 changed");
		struct assess_bandit_check *d = (struct assess_bandit_check *)
			assess_bandit_check(rules, id->value);
		if (!d) {
			rules->bandit = xrealloc(rules->bandit,
						 (rules->n_bandit + 1) * sizeof(*rules->bandit));
			d = &rules->bandit[rules->n_bandit++];
			d->id = xstrdup(id->value);
		} else {
			free(d->why);
		}
		d->judged = c.judged;
		d->contained = c.contained;
		d->why = c.why ? xstrdup(c.why) : NULL;
	}
	return 0;
}

static int apply_thresholds(struct assess_rules *rules, const char *name,
			    const struct yt_node *root, char **err)
{
	const struct yt_node *t = yt_map_get(root, "thresholds");
	static const char *const keys[] = { "medium", "high", "blocked" };
	double *dst[] = { &rules->medium, &rules->high, &rules->blocked };

	if (!t)
		return 0;
	for (size_t i = 0; i < 3; i++) {
		const struct yt_node *v = yt_map_get(t, keys[i]);
		char *end;
		if (!v)
			continue;
		double d = v->kind == YT_SCALAR ? strtod(v->value, &end) : -1;
		if (v->kind != YT_SCALAR || *end || d < 1 || d > 10000)
			return fail(err, name, v, "bad threshold", "a number from 1 to 10000");
		*dst[i] = d;
	}
	if (!(rules->medium < rules->high && rules->high < rules->blocked))
		return fail(err, name, t, "thresholds out of order", "medium < high < blocked");
	return 0;
}

int assess_rules_apply_yaml(struct assess_rules *rules, const char *path, bool builtin,
			    char **err)
{
	const char *name = path;
	struct yt_node *root = NULL;
	int rc = yt_parse_file(path, &root, err);

	if (rc < 0)
		return rc;
	if (root && root->kind != YT_MAPPING)
		rc = fail(err, name, root, "the file is not a mapping", "keys such as rules, thresholds");
	if (rc == 0 && root && builtin && yt_map_get(root, "origin_weights"))
		rc = get_origin_weights(name, yt_map_get(root, "origin_weights"),
					rules->origin_weight, err);
	if (rc == 0 && root)
		rc = apply_rules(rules, name, yt_map_get(root, "rules"), err);
	if (rc == 0 && root)
		rc = apply_bandit_checks(rules, name, yt_map_get(root, "bandit_checks"), err);
	if (rc == 0 && root)
		rc = apply_thresholds(rules, name, root, err);
	yt_free(root);
	return rc;
}
