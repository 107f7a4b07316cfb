/* The rule set a start begins with: a copy of the built-in rules, which
 * assess_rules_gen compiled from assess_rules.yaml at build time, then
 * security.yaml's rules on top. Parsing the 40 KB of built-in YAML at
 * every start cost two thirds of a `mai-agent check` of one small file;
 * the copy costs a few hundred allocations. */
#include <string.h>

#include "assess_rules.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* A deep copy: the rules a security.yaml changes are freed and replaced
 * field by field, as the YAML loader's own are. */
static void rule_copy(struct assess_rule *d, const struct assess_rule *s)
{
	memcpy(d, s, sizeof(*d));
	d->id = dup_or_null(s->id);
	d->bandit_id = dup_or_null(s->bandit_id);
	d->message = dup_or_null(s->message);
	d->kwarg = dup_or_null(s->kwarg);
	for (size_t k = 0; k < ASSESS_STRV_KEYS; k++) {
		const struct assess_strv *from = assess_rule_strv(s, k);
		struct assess_strv *to = assess_rule_strv(d, k);
		to->v = from->n ? xcalloc(from->n, sizeof(char *)) : NULL;
		for (size_t i = 0; i < from->n; i++)
			to->v[i] = xstrdup(from->v[i]);
	}
}

static struct assess_rules *builtin_copy(void)
{
	const struct assess_rules *b = &assess_builtin_rules;
	struct assess_rules *rules = assess_rules_new();

	rules->medium = b->medium;
	rules->high = b->high;
	rules->blocked = b->blocked;
	memcpy(rules->origin_weight, b->origin_weight, sizeof(rules->origin_weight));
	rules->r = xcalloc(b->n ? b->n : 1, sizeof(*rules->r));
	for (size_t i = 0; i < b->n; i++)
		rule_copy(&rules->r[i], &b->r[i]);
	rules->n = b->n;
	rules->bandit = xcalloc(b->n_bandit ? b->n_bandit : 1, sizeof(*rules->bandit));
	for (size_t i = 0; i < b->n_bandit; i++) {
		rules->bandit[i] = b->bandit[i];
		rules->bandit[i].id = xstrdup(b->bandit[i].id);
		rules->bandit[i].why = dup_or_null(b->bandit[i].why);
	}
	rules->n_bandit = b->n_bandit;
	return rules;
}

int assess_rules_load(const char *security_yaml, struct assess_rules **out, char **err)
{
	struct assess_rules *rules = builtin_copy();
	int rc = 0;

	if (security_yaml) {
		rules->source = xstrdup(security_yaml);
		rc = assess_rules_apply_yaml(rules, security_yaml, false, err);
	}
	if (rc < 0) {
		assess_rules_free(rules);
		return rc;
	}
	assess_rules_index_build(rules);
	*out = rules;
	return 0;
}
