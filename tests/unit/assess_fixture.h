/* What the assessor's unit tests share: rules loaded from a security.yaml
 * written into the test's directory, and a finding looked up by rule. */
#ifndef MAI_ASSESS_FIXTURE_H
#define MAI_ASSESS_FIXTURE_H

#include "assess.h"

/* The built-in rules with yaml (NULL: none) as dir/security.yaml on top;
 * NULL with *err (caller frees) when they do not load. The caller frees
 * the rules with assess_rules_free(). */
struct assess_rules *assess_fixture_load(const char *dir, const char *yaml, char **err);
/* The first finding of rule in r, or NULL. */
const struct assess_finding *assess_fixture_find(const struct assess_result *r,
						 const char *rule);

#endif
