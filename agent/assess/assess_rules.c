/* The rule set itself: its defaults, lifetime and the names and factors the
 * reports share (containment, origins, scores). Where rules come from is in
 * assess_rules_yaml.c (security.yaml, and assess_rules.yaml at build time)
 * and assess_rules_builtin.c (the built-in rules, compiled in); how an event
 * meets a rule is in assess_rules_match.c. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "assess_rules.h"

/* The match keys that take a name or a list of names, and where they go:
 * the YAML loader, the generator of the built-in rules and their copy walk
 * this one table. */
const struct assess_strv_key assess_strv_keys[ASSESS_STRV_KEYS] = {
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

struct assess_strv *assess_rule_strv(const struct assess_rule *r, size_t k)
{
	return (struct assess_strv *)((const char *)r + assess_strv_keys[k].off);
}

void assess_strv_free(struct assess_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

struct assess_rules *assess_rules_new(void)
{
	struct assess_rules *rules = xcalloc(1, sizeof(*rules));

	rules->medium = 20;
	rules->high = 50;
	rules->blocked = 80;
	rules->max_findings = ASSESS_MAX_FINDINGS_DEFAULT;
	for (size_t i = 0; i < ARRAY_SIZE(rules->origin_weight); i++)
		rules->origin_weight[i] = 1.0;
	return rules;
}

void assess_rule_clear(struct assess_rule *r)
{
	free(r->id);
	free(r->bandit_id);
	free(r->message);
	free(r->kwarg);
	for (size_t k = 0; k < ASSESS_STRV_KEYS; k++)
		assess_strv_free(assess_rule_strv(r, k));
}

void assess_rules_free(struct assess_rules *rules)
{
	if (!rules)
		return;
	for (size_t i = 0; i < rules->n; i++)
		assess_rule_clear(&rules->r[i]);
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

const struct assess_bandit_check *assess_bandit_check(const struct assess_rules *rules,
						      const char *id)
{
	for (size_t i = 0; id && i < rules->n_bandit; i++)
		if (!strcmp(rules->bandit[i].id, id))
			return &rules->bandit[i];
	return NULL;
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
