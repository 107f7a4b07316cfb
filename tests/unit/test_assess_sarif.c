/* The SARIF writer's own decisions, below what the Multitool checks
 * (tests/assess/sarif_github_test.py): every built-in rule is documented,
 * paths become relative to SRCROOT ("." and ".." resolved) or absolute file:
 * URIs, regions span the name at the finding, and the runs follow the tools. */
#include <errno.h>
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

static const char *snippet_of(json_t *region)
{
	return json_string_value(json_object_get(json_object_get(region, "snippet"), "text"));
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
	assert_int_equal(col, 4);
	assert_string_equal(snippet, "system");
	assert_string_equal(snippet_of(json_object_get(loc, "contextRegion")), "os.system('ls')");

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

/* A finding made by hand, of the native run. */
static void add_finding(struct assess_result *r, const char *id, enum assess_severity sev,
			enum assess_severity conf, unsigned cwe, unsigned line, unsigned col)
{
	struct assess_finding f = {
		.rule_id = (char *)id, .severity = sev, .confidence = conf, .cwe = cwe,
		.line = line, .col = col, .message = (char *)"m", .source = (char *)"mai",
	};
	assess_result_add(r, &f);
}

static json_t *result_region(json_t *doc, size_t i, const char *which)
{
	return json_object_get(result_location(doc, 0, i), which);
}

/* Regions at the edges of a line and of the snapshot: a name runs to the
 * end of the snapshot's bytes and no further, a line's '\r' is not part of
 * it, a column past the line's end gives the line alone, a column on a
 * character that is no name gives that one character; the uri of a path
 * keeps letters, digits and "-._~/" and percent-encodes the rest. */
static void test_regions_at_the_edges_and_uris(void **state)
{
	struct assess_result r = { 0 };
	struct assess_sarif s;
	/* The snapshot ends after "os.sys": what follows is not the file's. */
	const char *src = "ab\nos.system('ls')\r\nos.system";
	size_t len = strlen(src) - 3;

	(void)state;
	add_finding(&r, "LOCAL1", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 1, 3);
	add_finding(&r, "LOCAL2", ASSESS_SEV_MEDIUM, ASSESS_SEV_MEDIUM, 78, 2, 4);
	add_finding(&r, "LOCAL3", ASSESS_SEV_HIGH, ASSESS_SEV_HIGH, 0, 2, 15);
	add_finding(&r, "LOCAL4", ASSESS_SEV_CRITICAL, ASSESS_SEV_HIGH, 94, 3, 1);
	assess_sarif_init(&s, "/work/repo/", 0, 0);
	assess_sarif_add(&s, "aAzZ09-._~@[`{:/\xc3\xa9 +.py", src, len, &r);
	json_t *doc = assess_sarif_finish(&s);

	json_t *art = json_object_get(result_location(doc, 0, 0), "artifactLocation");
	assert_string_equal(json_string_value(json_object_get(art, "uri")),
			    "aAzZ09-._~%40%5B%60%7B%3A/%C3%A9%20%2B.py");

	/* Line 1 is "ab": column 3 is past it. */
	json_t *region = result_region(doc, 0, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startLine")), 1);
	assert_null(json_object_get(region, "startColumn"));
	assert_null(result_region(doc, 0, "contextRegion"));

	/* Line 2 at column 4: the name "system", the whole line without its '\r'. */
	region = result_region(doc, 1, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startColumn")), 4);
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), 10);
	assert_string_equal(snippet_of(region), "system");
	assert_string_equal(snippet_of(result_region(doc, 1, "contextRegion")), "os.system('ls')");

	/* Column 15 is the ')': no name, that one character. */
	region = result_region(doc, 2, "region");
	assert_string_equal(snippet_of(region), ")");
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), 16);

	/* Line 3 is cut by the snapshot's end. */
	region = result_region(doc, 3, "region");
	assert_string_equal(snippet_of(region), "os.sys");
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), 7);

	/* The descriptors: GitHub's severity and precision by level, the CWE as
	 * a tag and a help link only when there is one. */
	json_t *rules = json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(doc, "runs"), 0), "tool"), "driver"), "rules");
	static const struct {
		const char *level, *severity, *precision, *cwe_tag, *help;
	} want[] = {
		{ "note", "3.0", "low", NULL, NULL },
		{ "warning", "5.5", "medium", "external/cwe/cwe-078",
		  "https://cwe.mitre.org/data/definitions/78.html" },
		{ "error", "8.0", "high", NULL, NULL },
		{ "error", "9.5", "high", "external/cwe/cwe-094",
		  "https://cwe.mitre.org/data/definitions/94.html" },
	};
	assert_int_equal(json_array_size(rules), ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		json_t *d = json_array_get(rules, i);
		json_t *props = json_object_get(d, "properties"), *tags = json_object_get(props, "tags");
		assert_string_equal(json_string_value(json_object_get(json_object_get(
			d, "defaultConfiguration"), "level")), want[i].level);
		assert_string_equal(json_string_value(json_object_get(props, "security-severity")),
				    want[i].severity);
		assert_string_equal(json_string_value(json_object_get(props, "precision")),
				    want[i].precision);
		assert_string_equal(json_string_value(json_array_get(tags, 0)), "security");
		assert_int_equal(json_array_size(tags), want[i].cwe_tag ? 2 : 1);
		if (want[i].cwe_tag)
			assert_string_equal(json_string_value(json_array_get(tags, 1)), want[i].cwe_tag);
		if (want[i].help)
			assert_string_equal(json_string_value(json_object_get(d, "helpUri")), want[i].help);
		else
			assert_null(json_object_get(d, "helpUri"));
	}
	json_decref(doc);
	assess_result_clear(&r);
}

/* Findings in any order of lines, at line or column 0 (taken as 1), past
 * the snapshot's last line (the line alone), on a dotted name that ends in
 * a dot (the name without it); an analyzer's note that it failed marks its
 * run as not successful, with the note; other notes are the native run's. */
static void test_finding_order_edges_and_notes(void **state)
{
	struct assess_result r = { 0 };
	struct assess_sarif s;
	const char *src = "ab\nx.y.\n";

	(void)state;
	add_finding(&r, "LOCAL1", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 2, 1);
	add_finding(&r, "LOCAL2", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 1, 0);
	add_finding(&r, "LOCAL3", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 0, 0);
	add_finding(&r, "LOCAL4", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 9999, 9, 1);
	assess_result_add_note(&r, "bandit: timed out after 10 s");
	assess_result_add_note(&r, "max_findings reached");
	assess_sarif_init(&s, "/work/repo/", 0, 0);
	assess_sarif_add(&s, "e.py", src, strlen(src), &r);
	json_t *doc = assess_sarif_finish(&s);

	json_t *region = result_region(doc, 0, "region");
	assert_string_equal(snippet_of(region), "x.y");
	region = result_region(doc, 1, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startLine")), 1);
	assert_int_equal(json_integer_value(json_object_get(region, "startColumn")), 1);
	assert_string_equal(snippet_of(region), "ab");
	region = result_region(doc, 2, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startLine")), 1);
	assert_string_equal(snippet_of(region), "ab");
	region = result_region(doc, 3, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startLine")), 9);
	assert_null(json_object_get(region, "startColumn"));

	json_t *runs = json_object_get(doc, "runs");
	assert_int_equal(json_array_size(runs), 2);
	json_t *native = json_array_get(runs, 0), *bandit = json_array_get(runs, 1);
	/* A CWE the agent has no name for (a rule of security.yaml may give any):
	 * its number alone. */
	json_t *d4 = json_array_get(json_object_get(json_object_get(json_object_get(native, "tool"),
								   "driver"), "rules"), 3);
	const char *help = json_string_value(json_object_get(json_object_get(d4, "help"), "text"));
	assert_non_null(strstr(help, " CWE-9999."));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		bandit, "tool"), "driver"), "name")), "Bandit");
	json_t *inv = json_array_get(json_object_get(bandit, "invocations"), 0);
	assert_false(json_is_true(json_object_get(inv, "executionSuccessful")));
	json_t *n = json_array_get(json_object_get(inv, "toolExecutionNotifications"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "level")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(n, "message"), "text")),
			       "bandit: timed out after 10 s"));
	inv = json_array_get(json_object_get(native, "invocations"), 0);
	n = json_array_get(json_object_get(inv, "toolExecutionNotifications"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "level")), "note");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(n, "message"), "text")),
			       "max_findings reached"));
	json_decref(doc);
	assess_result_clear(&r);
}

/* A rule of security.yaml that is Bandit's check too names it in its
 * descriptor; its help in markdown escapes what markdown would read as
 * markup and keeps every other character. */
static void test_descriptor_bandit_id_and_markdown(void **state)
{
	struct assess_result r = { 0 };
	struct assess_sarif s;
	struct assess_finding f = {
		.rule_id = (char *)"LOCAL9", .bandit_id = (char *)"B602", .severity = ASSESS_SEV_HIGH,
		.confidence = ASSESS_SEV_HIGH, .line = 1, .col = 1,
		.message = (char *)"runs os.exec* on __x__", .source = (char *)"mai",
	};

	(void)state;
	assess_result_add(&r, &f);
	assess_sarif_init(&s, "/work/repo", 0, 0);
	assess_sarif_add(&s, "a.py", "x\n", 2, &r);
	json_t *doc = assess_sarif_finish(&s);
	json_t *d = json_array_get(json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(doc, "runs"), 0), "tool"), "driver"), "rules"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "properties"),
								"bandit_id")), "B602");
	const char *md = json_string_value(json_object_get(json_object_get(d, "help"), "markdown"));
	assert_non_null(md);
	const char *want = "runs os.exec\\* on \\_\\_x\\_\\_.\n\n**What to do:** ";
	if (strncmp(md, want, strlen(want)) != 0)
		fail_msg("markdown help: %s", md);
	assert_non_null(strstr(md, "- The same check as Bandit's B602\n"));
	json_decref(doc);
	assess_result_clear(&r);
}

static json_t *run_rule(json_t *doc, size_t run, size_t i)
{
	return json_array_get(json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(doc, "runs"), run), "tool"), "driver"), "rules"), i);
}

/* A built-in rule's descriptor takes its name and description from
 * assess_rule_doc.c; another tool's rule is named by its id and described
 * by its message, with the CWE's name in the help. */
static void test_descriptor_names_and_cwe(void **state)
{
	struct assess_result r = { 0 };
	struct assess_sarif s;
	struct assess_finding native = {
		.rule_id = (char *)"MAI001", .severity = ASSESS_SEV_HIGH, .confidence = ASSESS_SEV_HIGH,
		.cwe = 78, .line = 1, .col = 1, .message = (char *)"starts a process through the shell",
		.source = (char *)"mai",
	};
	struct assess_finding bandit = {
		.rule_id = (char *)"B324", .severity = ASSESS_SEV_HIGH, .confidence = ASSESS_SEV_HIGH,
		.cwe = 327, .line = 1, .col = 1, .message = (char *)"Use of weak MD5 hash for security",
		.source = (char *)"bandit",
	};

	(void)state;
	assess_result_add(&r, &native);
	assess_result_add(&r, &bandit);
	assess_sarif_init(&s, "/work/repo", 1, 0);
	assess_sarif_add(&s, "a.py", "x\n", 2, &r);
	json_t *doc = assess_sarif_finish(&s);
	json_t *d = run_rule(doc, ASSESS_SARIF_NATIVE, 0);
	assert_string_equal(json_string_value(json_object_get(d, "id")), "MAI001");
	assert_string_equal(json_string_value(json_object_get(d, "name")), "ShellCommand");
	const char *full = json_string_value(json_object_get(json_object_get(d, "fullDescription"), "text"));
	if (strncmp(full, "Calls os.system, os.popen", 25) != 0)
		fail_msg("fullDescription: %s", full);
	d = run_rule(doc, ASSESS_SARIF_BANDIT, 0);
	assert_string_equal(json_string_value(json_object_get(d, "id")), "B324");
	assert_null(json_object_get(d, "name"));
	const char *help = json_string_value(json_object_get(json_object_get(d, "help"), "text"));
	if (!strstr(help, " CWE-327: Use of a Broken or Risky Cryptographic Algorithm."))
		fail_msg("help: %s", help);
	json_decref(doc);
	assess_result_clear(&r);
}

/* The fingerprint of a finding of the native run i (the file's only one). */
static const char *fingerprint_of(json_t *doc, size_t i)
{
	json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
						     "results"), i);
	return json_string_value(json_object_get(json_object_get(res, "partialFingerprints"),
						 "primaryLocationLineHash"));
}

/* primaryLocationLineHash: the rule and the line's text with its white
 * space folded, and the occurrence: re-indenting a line or changing the
 * width of its spaces keeps it, taking a space out or editing changes it;
 * the second identical line is ":2". */
static void test_fingerprints_fold_white_space(void **state)
{
	static const char *const lines[] = {
		"os.system('ls', x)",     /* 0 */
		"    os.system('ls', x)", /* 1: re-indented */
		"os.system('ls',  x)  ",  /* 2: wider spaces, trailing ones */
		"os.system('ls',x)",      /* 3: a space taken out */
		"os.system('ls', y)",     /* 4: edited */
	};
	char *fp[ARRAY_SIZE(lines)];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		struct assess_result r = { 0 };
		struct assess_sarif s;
		add_finding(&r, "LOCAL1", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 1, 1);
		assess_sarif_init(&s, "/work/repo", 0, 0);
		assess_sarif_add(&s, "a.py", lines[i], strlen(lines[i]), &r);
		json_t *doc = assess_sarif_finish(&s);
		fp[i] = xstrdup(fingerprint_of(doc, 0));
		json_decref(doc);
		assess_result_clear(&r);
	}
	assert_string_equal(fp[0], fp[1]);
	assert_string_equal(fp[0], fp[2]);
	assert_string_not_equal(fp[0], fp[3]);
	assert_string_not_equal(fp[0], fp[4]);
	assert_true(strlen(fp[0]) == 18 && !strcmp(fp[0] + 16, ":1"));

	struct assess_result r = { 0 };
	struct assess_sarif s;
	const char *src = "os.system('ls', x)\n  os.system('ls', x)\n";
	add_finding(&r, "LOCAL1", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 1, 1);
	add_finding(&r, "LOCAL1", ASSESS_SEV_LOW, ASSESS_SEV_LOW, 0, 2, 3);
	assess_sarif_init(&s, "/work/repo", 0, 0);
	assess_sarif_add(&s, "a.py", src, strlen(src), &r);
	json_t *doc = assess_sarif_finish(&s);
	assert_string_equal(fingerprint_of(doc, 0), fp[0]);
	assert_true(strncmp(fingerprint_of(doc, 1), fp[0], 16) == 0);
	assert_string_equal(fingerprint_of(doc, 1) + 16, ":2");
	json_decref(doc);
	assess_result_clear(&r);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		free(fp[i]);
}

/* Columns count code points: after characters of two bytes on its line, a
 * finding's region still starts on its name. */
static void test_regions_after_multibyte_characters(void **state)
{
	struct assess_rules *rules = NULL;
	struct assess_result r;
	struct assess_sarif s;
	char *err = NULL;
	/* line 1 ends in two-byte characters: a region measured from before
	 * line 2's start would count them */
	const char *src = "import os as \xc3\xb6s  # \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n"
			  "x = '\xc3\xa9'; \xc3\xb6s.system('ls')\n";

	(void)state;
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assert_int_equal(assess_source(rules, "a.py", (const uint8_t *)src, strlen(src), &r), 0);
	assess_sarif_init(&s, "/work/repo", 0, 0);
	assess_sarif_add(&s, "a.py", src, strlen(src), &r);
	json_t *doc = assess_sarif_finish(&s);
	size_t i = 0;
	while (i < r.n_findings && strcmp(r.findings[i].rule_id, "MAI001") != 0)
		i++;
	assert_true(i < r.n_findings);
	assert_int_equal(r.findings[i].line, 2);
	json_t *region = result_region(doc, i, "region");
	/* "x = '\xc3\xa9'; \xc3\xb6s.system": MAI001 at the callee's last name, column 13. */
	assert_int_equal(r.findings[i].col, 13);
	assert_int_equal(json_integer_value(json_object_get(region, "startColumn")), 13);
	assert_string_equal(snippet_of(region), "system");
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), 19);
	json_decref(doc);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

/* A note of Bandit's (it could not do its work on a file) fails Bandit's
 * run, not the native one, and is told there as an error. */
static void test_analyzer_note_fails_its_run(void **state)
{
	struct assess_result r = { 0 };
	struct assess_sarif s;

	(void)state;
	assess_result_add_note(&r, "bandit: timed out after 30 s");
	assess_sarif_init(&s, "/work/repo", 1, 0);
	assess_sarif_add(&s, "a.py", "x\n", 2, &r);
	json_t *doc = assess_sarif_finish(&s);
	json_t *runs = json_object_get(doc, "runs");
	json_t *native = json_array_get(json_object_get(json_array_get(runs, 0), "invocations"), 0);
	json_t *bandit = json_array_get(json_object_get(json_array_get(runs, 1), "invocations"), 0);
	assert_true(json_is_true(json_object_get(native, "executionSuccessful")));
	assert_true(json_is_false(json_object_get(bandit, "executionSuccessful")));
	json_t *n = json_array_get(json_object_get(bandit, "toolExecutionNotifications"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "level")), "error");
	json_decref(doc);
	assess_result_clear(&r);
}

/* A rejected file's result points at the first byte that is not text:
 * its line, and its column in code points. */
static void test_rejection_region(void **state)
{
	struct assess_rules *rules = NULL;
	struct assess_result r;
	struct assess_sarif s;
	char *err = NULL;
	const char src[] = "x = 1\ny = 2\nz = '\xc3\xa9\xff'\n";

	(void)state;
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assert_int_equal(assess_source(rules, "bad.py", (const uint8_t *)src, sizeof(src) - 1, &r),
			 -EINVAL);
	assess_sarif_init(&s, "/work/repo", 0, 0);
	assess_sarif_add(&s, "bad.py", src, sizeof(src) - 1, &r);
	json_t *doc = assess_sarif_finish(&s);
	json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
						     "results"), 0);
	assert_string_equal(json_string_value(json_object_get(res, "ruleId")), "MAI900");
	json_t *region = result_region(doc, 0, "region");
	assert_int_equal(json_integer_value(json_object_get(region, "startLine")), 3);
	assert_int_equal(json_integer_value(json_object_get(region, "startColumn")), 7);
	assert_int_equal(json_integer_value(json_object_get(region, "endColumn")), 8);
	json_decref(doc);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_builtin_rule_is_documented),
		cmocka_unit_test(test_paths_regions_and_runs),
		cmocka_unit_test(test_regions_at_the_edges_and_uris),
		cmocka_unit_test(test_finding_order_edges_and_notes),
		cmocka_unit_test(test_rejection_region),
		cmocka_unit_test(test_descriptor_bandit_id_and_markdown),
		cmocka_unit_test(test_descriptor_names_and_cwe),
		cmocka_unit_test(test_fingerprints_fold_white_space),
		cmocka_unit_test(test_regions_after_multibyte_characters),
		cmocka_unit_test(test_analyzer_note_fails_its_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
