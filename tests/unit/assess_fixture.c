/* What the assessor's unit tests share (assess_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "assess_fixture.h"
#include "fileio.h"

struct assess_rules *assess_fixture_load(const char *dir, const char *yaml, char **err)
{
	struct assess_rules *rules = NULL;
	_cleanup_free_ char *path = NULL;

	if (yaml) {
		path = xasprintf("%s/security.yaml", dir);
		assert_int_equal(fileio_write_atomic(path, yaml, strlen(yaml), 0644), 0);
	}
	if (assess_rules_load(path, &rules, err) < 0)
		return NULL;
	return rules;
}

const struct assess_finding *assess_fixture_find(const struct assess_result *r, const char *rule)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (!strcmp(r->findings[i].rule_id, rule))
			return &r->findings[i];
	return NULL;
}
