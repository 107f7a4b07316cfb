/* The SARIF writer's own decisions, below what the Multitool checks
 * (tests/assess/sarif_github_test.py): every built-in rule is documented,
 * paths become relative to SRCROOT ("." and ".." resolved) or absolute file:
 * URIs, regions span the name at the finding, and the runs follow the tools. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "assess.h"
#include "assess_rule_doc.h"
#include "assess_rules.h"
#include "assess_sarif.h"

static void test_every_builtin_rule_is_documented(void **state)
{
	struct assess_rules *rules = NULL;
	char *err = NULL;

	(void)state;
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assert_true(rules->n > 30);
	for (size_t i = 0; i < rules->n; i++) {
		const struct assess_rule_doc *d = assess_rule_doc_find(rules->r[i].id);
		if (!d)
			fail_msg("rule %s has no entry in assess_rule_doc.c", rules->r[i].id);
		assert_true(strlen(d->description) > strlen(rules->r[i].message));
		assert_non_null(d->remedy);
		if (rules->r[i].cwe && !assess_cwe_name(rules->r[i].cwe))
			fail_msg("rule %s: CWE-%u has no name", rules->r[i].id, rules->r[i].cwe);
	}
	assert_null(assess_rule_doc_find("LOCAL001"));
	assess_rules_free(rules);
}

static json_t *result_location(json_t *doc, size_t run, size_t i)
{
	json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), run),
						     "results"), i);
	return json_object_get(json_array_get(json_object_get(res, "locations"), 0), "physicalLocation");
}

static void test_paths_regions_and_runs(void **state)
{
	struct assess_rules *rules = NULL;
	struct assess_result r;
	struct assess_sarif s;
	char *err = NULL;
	const char *src = "import os\n\nos.system('ls')\n";

	(void)state;
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assert_int_equal(assess_source(rules, "a.py", (const uint8_t *)src, strlen(src), &r), 0);
	assess_sarif_init(&s, "/work/repo", 1, 0);
	assess_sarif_add(&s, "./sub/../a b.py", src, strlen(src), &r);
	assess_sarif_add(&s, "/elsewhere/x.py", src, strlen(src), &r);
	assess_sarif_add_unreadable(&s, "/work/repo/gone.py", "No such file or directory");
	json_t *doc = assess_sarif_finish(&s);

	json_t *runs = json_object_get(doc, "runs");
	assert_int_equal(json_array_size(runs), 2); /* native and Bandit, no Semgrep */
	json_t *native = json_array_get(runs, 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		native, "originalUriBaseIds"), "SRCROOT"), "uri")), "file:///work/repo/");
	assert_false(json_is_true(json_object_get(json_array_get(json_object_get(native, "invocations"), 0),
						  "executionSuccessful")));

	json_t *loc = result_location(doc, 0, 0);
	json_t *art = json_object_get(loc, "artifactLocation");
	assert_string_equal(json_string_value(json_object_get(art, "uri")), "a%20b.py");
	assert_string_equal(json_string_value(json_object_get(art, "uriBaseId")), "SRCROOT");
	/* os.system at 3:4 (MAI001 reports the callee's last name) */
	json_t *region = json_object_get(loc, "region");
	json_int_t line = json_integer_value(json_object_get(region, "startLine"));
	json_int_t col = json_integer_value(json_object_get(region, "startColumn"));
	assert_int_equal(line, 3);
	assert_int_equal(json_integer_value(json_object_get(region, "endLine")), 3);
	const char *snippet = json_string_value(json_object_get(json_object_get(region, "snippet"), "text"));
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), col + (json_int_t)strlen(snippet));
	assert_true(strstr("os.system", snippet) != NULL);

	size_t per_file = r.n_findings;
	art = json_object_get(result_location(doc, 0, per_file), "artifactLocation");
	assert_string_equal(json_string_value(json_object_get(art, "uri")), "file:///elsewhere/x.py");
	assert_null(json_object_get(art, "uriBaseId"));
	json_t *gone = json_array_get(json_object_get(native, "results"), 2 * per_file);
	assert_string_equal(json_string_value(json_object_get(gone, "ruleId")), "MAI901");
	assert_string_equal(json_string_value(json_object_get(gone, "level")), "error");

	json_decref(doc);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_builtin_rule_is_documented),
		cmocka_unit_test(test_paths_regions_and_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
