/* The built-in rules as compiled at build time (assess_rules_gen) are the
 * rules assess_rules.yaml gives when loaded as YAML, a security.yaml on top
 * of them changes a copy, and a start no longer pays for the YAML: loading
 * the compiled rules costs a small part of parsing the file (a ratio of
 * CPU times in one process, so that the machine's load does not decide). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "assess_fixture.h"
#include "assess_rules.h"
#include "testdir.h"

static char *builtin_yaml(void)
{
	const char *root = getenv("MAI_SOURCE_ROOT");

	assert_non_null(root);
	return xasprintf("%s/agent/assess/assess_rules.yaml", root);
}

static struct assess_rules *load_yaml(const char *path)
{
	struct assess_rules *rules = assess_rules_new();
	char *err = NULL;

	if (assess_rules_apply_yaml(rules, path, true, &err) < 0)
		fail_msg("%s", err);
	assess_rules_index_build(rules);
	return rules;
}

static void assert_same_str(const char *a, const char *b)
{
	if (a && b)
		assert_string_equal(a, b);
	else
		assert_ptr_equal(a, b);
}

/* Every field: the strings and lists by value, the rest byte for byte with
 * the pointers cleared, so that a field the generator forgot to write
 * fails here. */
static void assert_same_rule(const struct assess_rule *a, const struct assess_rule *b)
{
	struct assess_rule x, y;

	assert_string_equal(a->id, b->id);
	assert_same_str(a->bandit_id, b->bandit_id);
	assert_same_str(a->message, b->message);
	assert_same_str(a->kwarg, b->kwarg);
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	x.id = y.id = x.bandit_id = y.bandit_id = x.message = y.message = x.kwarg = y.kwarg = NULL;
	for (size_t k = 0; k < ASSESS_STRV_KEYS; k++) {
		const struct assess_strv *sa = assess_rule_strv(a, k), *sb = assess_rule_strv(b, k);
		assert_int_equal(sa->n, sb->n);
		for (size_t i = 0; i < sa->n; i++)
			assert_string_equal(sa->v[i], sb->v[i]);
		assess_rule_strv(&x, k)->v = assess_rule_strv(&y, k)->v = NULL;
	}
	assert_memory_equal(&x, &y, sizeof(x));
}

static void test_compiled_rules_are_the_yaml(void **state)
{
	_cleanup_free_ char *path = builtin_yaml();
	struct assess_rules *yaml = load_yaml(path), *compiled = NULL;
	char *err = NULL;

	assert_int_equal(assess_rules_load(NULL, &compiled, &err), 0);
	assert_int_equal(compiled->n, yaml->n);
	assert_true(compiled->n >= 90);
	for (size_t i = 0; i < yaml->n; i++)
		assert_same_rule(&compiled->r[i], &yaml->r[i]);
	assert_int_equal(compiled->n_bandit, yaml->n_bandit);
	for (size_t i = 0; i < yaml->n_bandit; i++) {
		assert_string_equal(compiled->bandit[i].id, yaml->bandit[i].id);
		assert_int_equal(compiled->bandit[i].judged, yaml->bandit[i].judged);
		assert_int_equal(compiled->bandit[i].contained, yaml->bandit[i].contained);
		assert_same_str(compiled->bandit[i].why, yaml->bandit[i].why);
	}
	assert_true(compiled->medium == yaml->medium && compiled->high == yaml->high &&
		    compiled->blocked == yaml->blocked);
	assert_memory_equal(compiled->origin_weight, yaml->origin_weight,
			    sizeof(yaml->origin_weight));
	assert_null(compiled->source);
	assess_rules_free(yaml);
	assess_rules_free(compiled);
}

static const struct assess_rule *rule(const struct assess_rules *rules, const char *id)
{
	for (size_t i = 0; i < rules->n; i++)
		if (!strcmp(rules->r[i].id, id))
			return &rules->r[i];
	return NULL;
}

/* security.yaml changes its own copy: the next load starts from the
 * compiled rules again, and what it replaced was freed (ASan). */
static void test_security_yaml_changes_a_copy(void **state)
{
	static const char yaml[] =
		"rules:\n"
		"  - {id: MAI001, message: \"mine\", match: {call: [os.system]}, weight: 2}\n"
		"  - {id: MAI010, enabled: false}\n"
		"  - {id: X1, severity: LOW, message: \"a new one\", match: {call: [builtins.print]}}\n"
		"bandit_checks:\n"
		"  - {id: B322, judged: evidence}\n"
		"thresholds: {medium: 10, high: 40, blocked: 90}\n";
	_cleanup_free_ char *err = NULL;
	struct assess_rules *mine = assess_fixture_load(*state, yaml, &err), *plain;
	struct assess_result r;
	static const char src[] = "import os\nos.system('ls')\nprint(1)\n";

	assert_non_null(mine);
	assert_string_equal(rule(mine, "MAI001")->message, "mine");
	assert_int_equal(rule(mine, "MAI001")->call.n, 1);
	assert_false(rule(mine, "MAI010")->enabled);
	assert_non_null(rule(mine, "X1"));
	assert_int_equal(assess_bandit_check(mine, "B322")->judged, ASSESS_BANDIT_EVIDENCE);
	assert_true(mine->medium == 10 && mine->high == 40 && mine->blocked == 90);
	assert_int_equal(assess_source(mine, "t.py", (const uint8_t *)src, strlen(src), &r), 0);
	assert_non_null(assess_fixture_find(&r, "X1"));
	assess_result_clear(&r);

	plain = assess_fixture_load(*state, NULL, &err);
	assert_non_null(plain);
	assert_string_equal(rule(plain, "MAI001")->message, "starts a process through the shell");
	assert_true(rule(plain, "MAI001")->call.n > 1);
	assert_true(rule(plain, "MAI010")->enabled);
	assert_null(rule(plain, "X1"));
	assert_int_equal(assess_bandit_check(plain, "B322")->judged, ASSESS_BANDIT_PYTHON2);
	assert_true(plain->medium == 20 && plain->high == 50 && plain->blocked == 80);
	assess_rules_free(mine);
	assess_rules_free(plain);
}

/* Every kind of mistake in security.yaml's rules, bandit_checks and
 * thresholds is refused with what was expected, so that the person editing
 * the file learns what to write; the agent never starts on half a rule. */
static void test_security_yaml_mistakes(void **state)
{
	static const struct { const char *yaml, *says; } cases[] = {
		{ "rules:\n  - {id: X1, match: {call: [a.b], taint: [nowhere]}}\n", "unknown taint" },
		{ "rules:\n  - {id: MAI001, contained: sideways}\n", "unknown containment" },
		{ "rules:\n  - {id: X1, match: [a.b]}\n", "match is not a mapping" },
		{ "rules:\n  - {id: MAI001, match: {call: [a.b], kwarg: shell}}\n", "bad kwarg" },
		{ "rules:\n  - {id: MAI001, match: {call: [a.b], path: elsewhere}}\n", "unknown path condition" },
		{ "rules:\n  - {id: MAI001, match: {call: [a.b], dynamic: maybe}}\n", "not a boolean" },
		{ "rules:\n  - {id: MAI001, match: {call: {a: b}}}\n", "a mapping here" },
		{ "rules:\n  - just a string\n", "a rule is not a mapping" },
		{ "rules:\n  - {message: \"no id\"}\n", "rule without an id" },
		{ "rules:\n  - {id: MAI001, cwe: seventy}\n", "bad CWE number" },
		{ "bandit_checks: {B322: python2}\n", "bandit_checks is not a list" },
		{ "bandit_checks:\n  - {id: B322, why: [a, b]}\n", "not a single value" },
		{ "bandit_checks:\n  - {id: B322, contained: sideways}\n", "unknown containment" },
		{ "bandit_checks:\n  - {id: B322, judge: native}\n", "unknown Bandit check key" },
		{ "thresholds: {medium: 0, high: 40, blocked: 90}\n", "bad threshold" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *err = NULL;
		struct assess_rules *r = assess_fixture_load(*state, cases[i].yaml, &err);
		if (r || !err || !strstr(err, cases[i].says))
			fail_msg("%s: expected an error saying '%s', got %s", cases[i].yaml, cases[i].says,
				 r ? "the rules loaded" : err ? err : "no message");
	}
}

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time of one load, the least of `rounds` batches of n. */
static double load_cost(const char *yaml_path, int n)
{
	double t = thread_cpu();
	char *err = NULL;

	for (int i = 0; i < n; i++) {
		struct assess_rules *rules = NULL;
		if (yaml_path)
			rules = load_yaml(yaml_path);
		else
			assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
		assess_rules_free(rules);
	}
	return (thread_cpu() - t) / n;
}

/* Parsing the built-in YAML at every start made one small file's `check`
 * cost 62% more instructions; the compiled tables cost a fifteenth of the
 * parse in a release build. Fails when a start parses again (a ratio near
 * 1), with room for the sanitizers and a busy machine. */
static void test_compiled_rules_cost_little(void **state)
{
	_cleanup_free_ char *path = builtin_yaml();
	double compiled = 1e9, parsed = 1e9;

	for (int round = 0; round < 5; round++) {
		double c = load_cost(NULL, 10), p = load_cost(path, 2);
		compiled = c < compiled ? c : compiled;
		parsed = p < parsed ? p : parsed;
	}
	print_message("built-in rules: compiled %.3f ms, parsed from YAML %.3f ms (%.1fx)\n",
		      compiled * 1e3, parsed * 1e3, parsed / compiled);
	assert_true(parsed / compiled >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiled_rules_are_the_yaml),
		cmocka_unit_test_setup_teardown(test_security_yaml_mistakes, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_security_yaml_changes_a_copy, testdir_setup,
						testdir_teardown),
		cmocka_unit_test(test_compiled_rules_cost_little),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
