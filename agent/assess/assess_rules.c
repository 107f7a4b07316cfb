/* Rules as data: the `rules:` list of security.yaml on top of the built-in
 * rules (agent/assess/assess_rules.yaml, compiled in); entries with a known id change that rule, new
 * ids add rules. Every error names the file, line and column. */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
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
/* The match keys that take a name or a list of names, and where they go. */
static const struct {
	const char *key;
	size_t off;
} strv_keys[] = {
	{ "call", offsetof(struct assess_rule, call) },
	{ "import", offsetof(struct assess_rule, import) },
	{ "special", offsetof(struct assess_rule, special) },
	{ "unless_kwarg", offsetof(struct assess_rule, unless_kwarg) },
	{ "arg_contains", offsetof(struct assess_rule, arg_contains) },
	{ "arg_ref", offsetof(struct assess_rule, arg_ref) },
	{ "not_call", offsetof(struct assess_rule, not_call) },
	{ "kwarg_true", offsetof(struct assess_rule, kwarg_true) },
	{ "has_kwarg", offsetof(struct assess_rule, has_kwarg) },
	{ "lacks_kwarg", offsetof(struct assess_rule, lacks_kwarg) },
	{ "mode", offsetof(struct assess_rule, mode) },
	{ "arg_glob", offsetof(struct assess_rule, arg_glob) },
	{ "string", offsetof(struct assess_rule, string) },
	{ "not_arg_ref", offsetof(struct assess_rule, not_arg_ref) },
	{ "program", offsetof(struct assess_rule, program) },
};

static struct assess_strv *rule_strv(struct assess_rule *r, size_t k)
{
	return (struct assess_strv *)((char *)r + strv_keys[k].off);
}

static const char *const mode_classes[] = {
	"world-writable-or-setid", "group-writable-or-exec", "restricted", "unknown",
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

static void strv_free(struct assess_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
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
				strv_free(&s);
				return fail(err, name, n->items[i], "not a name", "a non-empty string");
			}
			s.v[s.n++] = xstrdup(n->items[i]->value);
		}
	} else {
		return fail(err, name, n, "a mapping here", "a string or a list of strings");
	}
	strv_free(out);
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
	strv_free(&s);
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
		while (sk < ARRAY_SIZE(strv_keys) && strcmp(key, strv_keys[sk].key) != 0)
			sk++;
		if (sk < ARRAY_SIZE(strv_keys)) {
			rc = get_strv(name, v, rule_strv(r, sk), err);
			for (size_t mi = 0; rc == 0 && !strcmp(key, "mode") && mi < r->mode.n; mi++)
				if (!known_key(r->mode.v[mi], mode_classes, ARRAY_SIZE(mode_classes)))
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

static void rule_clear(struct assess_rule *r)
{
	free(r->id);
	free(r->bandit_id);
	free(r->message);
	free(r->kwarg);
	for (size_t k = 0; k < ARRAY_SIZE(strv_keys); k++)
		strv_free(rule_strv(r, k));
}

void assess_rules_free(struct assess_rules *rules)
{
	if (!rules)
		return;
	for (size_t i = 0; i < rules->n; i++)
		rule_clear(&rules->r[i]);
	free(rules->r);
	free(rules->source);
	for (size_t i = 0; i < rules->n_bandit; i++) {
		free(rules->bandit[i].id);
		free(rules->bandit[i].why);
	}
	free(rules->bandit);
	assess_rules_index_free(rules);
	free(rules);
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
		rule_clear(r);
		return rc;
	}
	if (fresh)
		rules->n++;
	return rc;
}

int assess_rules_apply(struct assess_rules *rules, const char *name, const struct yt_node *seq,
		       char **err)
{
	if (!seq)
		return 0;
	if (seq->kind != YT_SEQUENCE)
		return fail(err, name, seq, "rules is not a list", "a list of rules (- id: ...)");
	int rc = 0;
	for (size_t i = 0; i < seq->n_items && rc == 0; i++)
		rc = apply_one(rules, name, seq->items[i], err);
	assess_rules_index_build(rules);
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

const struct assess_bandit_check *assess_bandit_check(const struct assess_rules *rules,
						      const char *id)
{
	for (size_t i = 0; id && i < rules->n_bandit; i++)
		if (!strcmp(rules->bandit[i].id, id))
			return &rules->bandit[i];
	return NULL;
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

static int load_text(struct assess_rules *rules, const char *name, const char *text, size_t len,
		     const char *path, char **err)
{
	struct yt_node *root = NULL;
	int rc = path ? yt_parse_file(path, &root, err) : yt_parse_buffer(name, text, len, &root, err);

	if (rc < 0)
		return rc;
	if (root && root->kind != YT_MAPPING)
		rc = fail(err, name, root, "the file is not a mapping", "keys such as rules, thresholds");
	if (rc == 0 && root && !path && yt_map_get(root, "origin_weights"))
		rc = get_origin_weights(name, yt_map_get(root, "origin_weights"),
					rules->origin_weight, err);
	if (rc == 0 && root)
		rc = assess_rules_apply(rules, name, yt_map_get(root, "rules"), err);
	if (rc == 0 && root)
		rc = apply_bandit_checks(rules, name, yt_map_get(root, "bandit_checks"), err);
	if (rc == 0 && root)
		rc = apply_thresholds(rules, name, root, err);
	yt_free(root);
	return rc;
}

int assess_rules_load(const char *security_yaml, struct assess_rules **out, char **err)
{
	struct assess_rules *rules = xcalloc(1, sizeof(*rules));
	int rc;

	rules->medium = 20;
	rules->high = 50;
	rules->blocked = 80;
	rules->max_findings = ASSESS_MAX_FINDINGS_DEFAULT;
	for (size_t i = 0; i < ARRAY_SIZE(rules->origin_weight); i++)
		rules->origin_weight[i] = 1.0;
	rc = load_text(rules, "built-in assess_rules.yaml", assess_default_yaml,
		       assess_default_yaml_len, NULL, err);
	if (rc == 0 && security_yaml) {
		rules->source = xstrdup(security_yaml);
		rc = load_text(rules, security_yaml, NULL, 0, security_yaml, err);
	}
	if (rc < 0) {
		assess_rules_free(rules);
		return rc;
	}
	*out = rules;
	return 0;
}

size_t assess_rules_count(const struct assess_rules *rules)
{
	size_t n = 0;
	for (size_t i = 0; i < rules->n; i++)
		n += rules->r[i].enabled != 0;
	return n;
}

void assess_rules_set_max_findings(struct assess_rules *rules, size_t max)
{
	rules->max_findings = max;
}

void assess_rules_set_sandbox(struct assess_rules *rules, const struct assess_sandbox *sandbox)
{
	rules->sandbox = *sandbox;
}

bool assess_rules_contains(const struct assess_rules *rules, enum assess_containment c)
{
	/* A script whose worst findings are contained is MEDIUM and runs at
	 * the standard level: its network decides. The rest holds at every
	 * level (read-only root, no capabilities, the agent's environment,
	 * limits, Linux). */
	if (c == ASSESS_CONTAINED_NETWORK)
		return !rules->sandbox.network[TRUST_STANDARD];
	return c != ASSESS_CONTAINED_NONE;
}

static const char *const containment_names[ASSESS_CONTAINED_COUNT] = {
	[ASSESS_CONTAINED_NETWORK] = "network",
	[ASSESS_CONTAINED_FILESYSTEM] = "filesystem",
	[ASSESS_CONTAINED_PROCESS] = "process",
	[ASSESS_CONTAINED_PRIVILEGES] = "privileges",
	[ASSESS_CONTAINED_ENVIRONMENT] = "environment",
	[ASSESS_CONTAINED_LIMITS] = "limits",
	[ASSESS_CONTAINED_WINDOWS] = "windows",
};

const char *assess_containment_to_string(enum assess_containment c)
{
	return (unsigned)c < ASSESS_CONTAINED_COUNT ? containment_names[c] : NULL;
}

const char *assess_containment_describe(enum assess_containment c)
{
	static const char *const what[ASSESS_CONTAINED_COUNT] = {
		[ASSESS_CONTAINED_NETWORK] = "contained: the sandbox has no network",
		[ASSESS_CONTAINED_FILESYSTEM] = "contained: the sandbox's root is read-only; only "
						"the working directory and /tmp can be written",
		[ASSESS_CONTAINED_PROCESS] = "contained: it runs inside the same sandbox, without "
					     "capabilities, on a read-only root",
		[ASSESS_CONTAINED_PRIVILEGES] = "contained: the sandbox runs without capabilities, "
						"so no owner or identity can change",
		[ASSESS_CONTAINED_ENVIRONMENT] = "contained: the sandbox's environment holds none "
						 "of the host's variables",
		[ASSESS_CONTAINED_LIMITS] = "contained: the sandbox's process and memory limits "
					    "stop it",
		[ASSESS_CONTAINED_WINDOWS] = "contained: the sandbox is Linux; Windows libraries "
					     "are not there",
	};
	return (unsigned)c < ASSESS_CONTAINED_COUNT ? what[c] : NULL;
}

int assess_containment_from_string(const char *s, enum assess_containment *out)
{
	for (int c = ASSESS_CONTAINED_NETWORK; c < ASSESS_CONTAINED_COUNT; c++)
		if (!strcmp(s, containment_names[c]))
			return *out = (enum assess_containment)c, 0;
	return -EINVAL;
}

const char *assess_weighed_to_string(enum assess_weighed w)
{
	switch (w) {
	case ASSESS_WEIGHED_NONE: return NULL;
	case ASSESS_WEIGHED_EVIDENCE: return "evidence";
	case ASSESS_WEIGHED_NATIVE: return "native";
	}
	return NULL;
}

/* By level; levels start at ASSESS_SEV_LOW. A confidence is never
 * CRITICAL: rules refuse it and the reports' levels stop at HIGH. */
static const double severity_factor[ASSESS_SEV_CRITICAL + 1] = {
	[ASSESS_SEV_LOW] = 1, [ASSESS_SEV_MEDIUM] = 4, [ASSESS_SEV_HIGH] = 7, [ASSESS_SEV_CRITICAL] = 10,
};
static const double confidence_factor[ASSESS_SEV_CRITICAL + 1] = {
	[ASSESS_SEV_LOW] = 3, [ASSESS_SEV_MEDIUM] = 6, [ASSESS_SEV_HIGH] = 10,
};

double assess_score(enum assess_severity severity, enum assess_severity confidence)
{
	return severity_factor[severity] * confidence_factor[confidence];
}

double assess_rule_score(const struct assess_rule *rule)
{
	return assess_score(rule->severity, rule->confidence) * rule->weight;
}

const char *assess_origin_to_string(enum assess_origin o)
{
	switch (o) {
	case ASSESS_ORIGIN_NONE: return NULL;
	case ASSESS_ORIGIN_LITERAL: return "literal";
	case ASSESS_ORIGIN_UNRESOLVED: return "unresolved";
	case ASSESS_ORIGIN_OUTSIDE: return "outside";
	}
	return NULL;
}

const char *assess_origin_describe(enum assess_origin o)
{
	switch (o) {
	case ASSESS_ORIGIN_NONE: return NULL;
	case ASSESS_ORIGIN_LITERAL: return "literal";
	case ASSESS_ORIGIN_UNRESOLVED: return "unresolved";
	case ASSESS_ORIGIN_OUTSIDE: return "from outside the script";
	}
	return NULL;
}

/* Patterns are mostly exact names or "prefix.*": those are compared
 * directly (every call of a file meets every rule), the rest by fnmatch. */
static int glob_one(const char *pat, const char *name)
{
	if (pat[0] == '*' && pat[1] == '\0')
		return 1; /* every call, whatever it is a method of */
	if (pat[0] != name[0] && pat[0] != '*' && pat[0] != '?' && pat[0] != '[')
		return 0;
	const char *star = strchr(pat, '*');
	if (!star && !strpbrk(pat, "?["))
		return strcmp(pat, name) == 0;
	/* "socket.*" names the module's members, not the methods of what they
	 * return ("socket.socket().bind"): a prefix does not reach past "()". */
	if (star && star[1] == '\0' && !strpbrk(pat, "?["))
		return strncmp(pat, name, (size_t)(star - pat)) == 0 &&
		       !strchr(name + (star - pat), '(');
	return fnmatch(pat, name, 0) == 0;
}

static int any_glob(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (glob_one(s->v[i], name))
			return 1;
	return 0;
}

static int any_exact(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return 1;
	return 0;
}

static int any_module(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		size_t k = strlen(s->v[i]);
		if (!strncmp(name, s->v[i], k) && (name[k] == '\0' || name[k] == '.'))
			return 1;
	}
	return 0;
}

static int is_outside(const char *p)
{
	if (strstr(p, ".."))
		return 1;
	if (p[0] == '~')
		return 1;
	if (p[0] != '/')
		return 0;
	/* The temporary directories are scratch space, not "outside". */
	return strncmp(p, "/tmp/", 5) != 0 && strncmp(p, "/var/tmp/", 9) != 0;
}

/* A path from the root of a system: absolute (not under the temporary
 * directories), a drive, or the home directory itself. */
static int is_absolute(const char *p)
{
	if (!strcmp(p, "~") || !strcmp(p, "~/"))
		return 1;
	if (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':' &&
	    (p[2] == '\\' || p[2] == '/'))
		return 1;
	return p[0] == '/' && is_outside(p);
}

static const struct pya_kwarg *kwarg_get(const struct pya_event *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_kwargs; i++)
		if (!strcmp(ev->kwargs[i].name, name))
			return &ev->kwargs[i];
	return NULL;
}

const char *assess_mode_class(const struct pya_event *ev)
{
	/* Bandit's B103 grading: others may write (or set-id bits) is high;
	 * the group may write or run, or others may run, is medium. */
	if (!ev->mode_known)
		return mode_classes[3];
	if (ev->mode_bits & 06002)
		return mode_classes[0];
	if (ev->mode_bits & 00031)
		return mode_classes[1];
	return mode_classes[2];
}

/* A program named without a directory is looked up in PATH: Bandit's B607
 * counts a path from the root, a drive letter, '\' or '.' as given. */
static int is_partial_path(const char *p)
{
	if (!p || !p[0])
		return 0;
	if (p[0] == '/' || p[0] == '\\' || p[0] == '.')
		return 0;
	if (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':')
		return 0;
	return 1;
}

static int kwarg_is(const struct pya_event *ev, const char *spec)
{
	const char *eq = strchr(spec, '=');
	size_t kn = (size_t)(eq - spec);
	for (size_t i = 0; i < ev->n_kwargs; i++)
		if (strlen(ev->kwargs[i].name) == kn && !strncmp(ev->kwargs[i].name, spec, kn) &&
		    ev->kwargs[i].value && !strcmp(ev->kwargs[i].value, eq + 1))
			return 1;
	return 0;
}

int assess_rule_matches(const struct assess_rule *r, const struct pya_event *ev)
{
	if (!r->enabled)
		return 0;
	/* First the cheapest test that fails for most calls of a rule that
	 * names every call ("*" with shell=...). */
	for (size_t i = 0; i < r->kwarg_true.n; i++) {
		const struct pya_kwarg *k = kwarg_get(ev, r->kwarg_true.v[i]);
		if (!k || k->truth == PYA_TRUTH_FALSE)
			return 0;
	}
	/* Then the conditions on a call's arguments, a compare each, before
	 * its name's patterns: the intent rules name the same calls many
	 * times over and most of their events fail these. */
	if (ev->kind == PYA_CALL &&
	    ((r->taint && !(ev->taint & r->taint)) ||
	     (r->decoded >= 0 && r->decoded != !!ev->decoded_arg) ||
	     ((r->arg_contains.n || r->arg_glob.n) && !ev->arg0) ||
	     (r->program.n && !ev->arg0_first)))
		return 0;
	switch (ev->kind) {
	case PYA_CALL:
		if (!r->call.n || !any_glob(&r->call, ev->name))
			return 0;
		break;
	case PYA_IMPORT:
		if (!r->import.n || !any_module(&r->import, ev->name))
			return 0;
		break;
	case PYA_SPECIAL:
		if (!r->special.n || !any_glob(&r->special, ev->name))
			return 0;
		break;
	case PYA_STRING:
		return r->string.n && any_exact(&r->string, ev->name);
	default:
		return 0;
	}
	if (r->not_call.n && any_glob(&r->not_call, ev->name))
		return 0;
	if (r->taint && !(ev->taint & r->taint))
		return 0;
	if (r->has_kwarg.n) {
		int any = 0;
		for (size_t i = 0; i < r->has_kwarg.n && !any; i++)
			any = kwarg_get(ev, r->has_kwarg.v[i]) != NULL;
		if (!any)
			return 0;
	}
	for (size_t i = 0; i < r->lacks_kwarg.n; i++)
		if (kwarg_get(ev, r->lacks_kwarg.v[i]))
			return 0;
	if (r->mode.n && !any_exact(&r->mode, assess_mode_class(ev)))
		return 0;
	if (r->partial_path >= 0 && r->partial_path != is_partial_path(ev->arg0_first))
		return 0;
	if (r->arg_glob.n) {
		int hit = 0;
		for (size_t i = 0; ev->arg0 && i < r->arg_glob.n && !hit; i++)
			hit = fnmatch(r->arg_glob.v[i], ev->arg0, 0) == 0;
		if (!hit)
			return 0;
	}
	if (r->dynamic >= 0 && r->dynamic != !!ev->dynamic)
		return 0;
	if (r->in_loop >= 0 && r->in_loop != !!ev->in_loop)
		return 0;
	if (r->kwarg && !kwarg_is(ev, r->kwarg))
		return 0;
	for (size_t i = 0; i < r->unless_kwarg.n; i++)
		if (kwarg_is(ev, r->unless_kwarg.v[i]))
			return 0;
	if (r->write_mode >= 0) {
		/* os.open's flags are not folded: treat it as writing. */
		int w = ev->mode ? strpbrk(ev->mode, "wax+") != NULL
				 : !strcmp(ev->name, "os.open") ||
				   !strcmp(ev->name, "pathlib.Path.write_text") ||
				   !strcmp(ev->name, "pathlib.Path.write_bytes") ||
				   !strcmp(ev->name, "pathlib.Path.touch");
		if (w != r->write_mode)
			return 0;
	}
	if (r->path == 1 && !(ev->arg0 && is_outside(ev->arg0)))
		return 0;
	if (r->path == 2 && ev->arg0 && is_outside(ev->arg0))
		return 0;
	if (r->path == 3 && !(ev->arg0 && is_absolute(ev->arg0)))
		return 0;
	if (r->arg_contains.n) {
		int hit = 0;
		for (size_t i = 0; ev->arg0 && i < r->arg_contains.n && !hit; i++)
			hit = strstr(ev->arg0, r->arg_contains.v[i]) != NULL;
		if (!hit)
			return 0;
	}
	if (r->arg_ref.n && !(ev->arg0_ref && any_glob(&r->arg_ref, ev->arg0_ref)))
		return 0;
	if (r->not_arg_ref.n && ev->arg0_ref && any_glob(&r->not_arg_ref, ev->arg0_ref))
		return 0;
	if (r->decoded >= 0 && r->decoded != !!ev->decoded_arg)
		return 0;
	if (r->program.n) {
		/* the program a process starts: the first argument, or the
		 * first item of a list, by its file name */
		const char *p = ev->arg0_first;
		if (!p)
			return 0;
		size_t len = strcspn(p, " ");
		for (size_t k = len; k > 0; k--)
			if (p[k - 1] == '/') {
				p += k;
				len -= k;
				break;
			}
		int hit = 0;
		for (size_t i = 0; i < r->program.n && !hit; i++)
			hit = strlen(r->program.v[i]) == len && !strncmp(r->program.v[i], p, len);
		if (!hit)
			return 0;
	}
	return 1;
}
