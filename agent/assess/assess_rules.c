/* Rules as data: the `rules:` list of security.yaml on top of the built-in
 * rules (agent/assess/assess_rules.yaml, compiled in); entries with a known id change that rule, new
 * ids add rules. Every error names the file, line and column. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "assess_rules.h"

static const char *const rule_keys[] = {
	"id", "bandit", "match", "severity", "confidence", "cwe", "message", "block", "enabled",
	"weight",
};
static const char *const match_keys[] = {
	"call", "import", "special", "dynamic", "in_loop", "kwarg", "unless_kwarg", "write_mode",
	"path", "arg_contains", "arg_ref",
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
				    "write_mode, path, arg_contains or arg_ref");
		if (!strcmp(key, "call")) rc = get_strv(name, v, &r->call, err);
		else if (!strcmp(key, "import")) rc = get_strv(name, v, &r->import, err);
		else if (!strcmp(key, "special")) rc = get_strv(name, v, &r->special, err);
		else if (!strcmp(key, "unless_kwarg")) rc = get_strv(name, v, &r->unless_kwarg, err);
		else if (!strcmp(key, "arg_contains")) rc = get_strv(name, v, &r->arg_contains, err);
		else if (!strcmp(key, "arg_ref")) rc = get_strv(name, v, &r->arg_ref, err);
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
			else
				return fail(err, name, v, "unknown path condition", "outside or local");
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
	strv_free(&r->call);
	strv_free(&r->import);
	strv_free(&r->special);
	strv_free(&r->unless_kwarg);
	strv_free(&r->arg_contains);
	strv_free(&r->arg_ref);
}

void assess_rules_free(struct assess_rules *rules)
{
	if (!rules)
		return;
	for (size_t i = 0; i < rules->n; i++)
		rule_clear(&rules->r[i]);
	free(rules->r);
	free(rules->source);
	assess_rules_index_free(rules);
	free(rules);
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
		r->dynamic = r->in_loop = r->write_mode = -1;
		fresh = 1;
	}
	r->line = e->line;
	r->col = e->col;
	for (size_t i = 0; i + 1 < e->n_items && rc == 0; i += 2) {
		const struct yt_node *k = e->items[i], *v = e->items[i + 1];
		if (!known_key(k->value, rule_keys, ARRAY_SIZE(rule_keys))) {
			rc = fail(err, name, k, "unknown rule key",
				  "id, bandit, match, severity, confidence, cwe, message, block, "
				  "enabled or weight");
			break;
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
				 (!r->call.n && !r->import.n && !r->special.n)))
		rc = fail(err, name, e, "new rule is incomplete",
			  "severity, message and a match with call, import or special");
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
	if (rc == 0 && root)
		rc = assess_rules_apply(rules, name, yt_map_get(root, "rules"), err);
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

void assess_rules_set_thresholds(struct assess_rules *rules, double medium, double high,
				 double blocked)
{
	rules->medium = medium;
	rules->high = high;
	rules->blocked = blocked;
}

void assess_rules_set_max_findings(struct assess_rules *rules, size_t max)
{
	rules->max_findings = max;
}

static const double severity_factor[] = { 0, 1, 4, 7, 10 };
static const double confidence_factor[] = { 0, 3, 6, 10, 10 };

double assess_score(enum assess_severity severity, enum assess_severity confidence)
{
	return severity_factor[severity] * confidence_factor[confidence];
}

double assess_rule_score(const struct assess_rule *rule)
{
	return assess_score(rule->severity, rule->confidence) * rule->weight;
}

/* Patterns are mostly exact names or "prefix.*": those are compared
 * directly (every call of a file meets every rule), the rest by fnmatch. */
static int glob_one(const char *pat, const char *name)
{
	if (pat[0] != name[0] && pat[0] != '*' && pat[0] != '?' && pat[0] != '[')
		return 0;
	const char *star = strchr(pat, '*');
	if (!star && !strpbrk(pat, "?["))
		return strcmp(pat, name) == 0;
	if (star && star[1] == '\0' && !strpbrk(pat, "?["))
		return strncmp(pat, name, (size_t)(star - pat)) == 0;
	return fnmatch(pat, name, 0) == 0;
}

static int any_glob(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (glob_one(s->v[i], name))
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
	default:
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
	if (r->arg_contains.n) {
		int hit = 0;
		for (size_t i = 0; ev->arg0 && i < r->arg_contains.n && !hit; i++)
			hit = strstr(ev->arg0, r->arg_contains.v[i]) != NULL;
		if (!hit)
			return 0;
	}
	if (r->arg_ref.n && !(ev->arg0_ref && any_glob(&r->arg_ref, ev->arg0_ref)))
		return 0;
	return 1;
}
