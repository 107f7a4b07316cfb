/* Bandit (real, when installed) and Semgrep (a recorded report) adapters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "assess_external.h"
#include "fileio.h"

static const char src[] = "import subprocess\nsubprocess.run('ls', shell=True)\neval(input())\n";

static int have_bandit(void)
{
	if (system("command -v bandit >/dev/null 2>&1") == 0)
		return 1;
	if (getenv("MAI_REQUIRE_REAL") && !strcmp(getenv("MAI_REQUIRE_REAL"), "1"))
		fail_msg("bandit is not installed and MAI_REQUIRE_REAL=1 (apt-get install bandit)");
	return 0;
}

static void test_bandit_real_run_merges(void **state)
{
	struct assess_rules *rules = NULL;
	char *err = NULL;
	struct assess_result r;
	struct assess_external x = { "bandit", NULL, 60000 };

	if (!have_bandit())
		skip();
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assess_source(rules, "t.py", (const uint8_t *)src, sizeof(src) - 1, &r);
	assert_int_equal(assess_bandit_run(&x, (const uint8_t *)src, sizeof(src) - 1, &r), 0);
	assess_result_finish(rules, &r);
	assert_int_equal(r.n_notes, 0);
	int b602_native = 0, b602_bandit = 0, b607_bandit = 0;
	for (size_t i = 0; i < r.n_findings; i++) {
		const struct assess_finding *f = &r.findings[i];
		if (f->bandit_id && !strcmp(f->bandit_id, "B602")) {
			if (!strcmp(f->source, "mai"))
				b602_native++;
			else
				b602_bandit++;
		}
		if (!strcmp(f->rule_id, "B607") && !strcmp(f->source, "bandit") && f->line == 2)
			b607_bandit++;
	}
	/* Bandit's B602 on line 2 duplicates MAI005: kept once, the native one */
	assert_int_equal(b602_native, 1);
	assert_int_equal(b602_bandit, 0);
	/* what only Bandit reports is added */
	assert_int_equal(b607_bandit, 1);
	assess_result_clear(&r);
	assess_rules_free(rules);
}

static void test_bandit_missing_and_timeout_are_noted(void **state)
{
	struct assess_result r = { 0 };
	struct assess_external missing = { "/nonexistent/bandit", NULL, 5000 };

	assert_int_equal(assess_bandit_run(&missing, (const uint8_t *)src, sizeof(src) - 1, &r), -ENOENT);
	assert_int_equal(r.n_notes, 1);
	assert_string_equal(r.notes[0], "bandit: not installed ('/nonexistent/bandit' not found in "
			    "PATH); native findings only");
	assess_result_clear(&r);

	if (!have_bandit())
		skip();
	/* the real Bandit cannot start its interpreter in 1 ms */
	struct assess_external hurried = { "bandit", NULL, 1 };
	assert_int_equal(assess_bandit_run(&hurried, (const uint8_t *)src, sizeof(src) - 1, &r), -ETIMEDOUT);
	assert_string_equal(r.notes[0], "bandit: timed out after 1 ms; native findings only (raise "
			    "analyzers.bandit.timeout in security.yaml)");
	assert_int_equal(r.n_findings, 0);
	assess_result_clear(&r);
}

/* The step check and the daemon share: only enabled analyzers run, a
 * missing one is a note, and the settings work from a copy that outlives
 * the configuration it came from (a reload frees that). */
static void test_external_add_follows_settings(void **state)
{
	struct assess_rules *rules = NULL;
	char *err = NULL;
	struct assess_result native, r;
	struct config_analyzers from_config = {
		.bandit = { false, xstrdup("/nonexistent/bandit"), NULL, 5000 },
		.semgrep = { false, xstrdup("/nonexistent/semgrep"), xstrdup(""), 5000 },
	}, copy;

	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assert_int_equal(assess_source(rules, "t.py", (const uint8_t *)src, sizeof(src) - 1, &native), 0);

	/* none enabled: the native result as it was */
	assert_int_equal(assess_source(rules, "t.py", (const uint8_t *)src, sizeof(src) - 1, &r), 0);
	assess_external_add(&from_config, rules, (const uint8_t *)src, sizeof(src) - 1, &r);
	assert_int_equal(r.n_notes, 0);
	assert_int_equal(r.n_findings, native.n_findings);
	assert_int_equal(r.level, native.level);
	assess_result_clear(&r);

	from_config.bandit.enabled = from_config.semgrep.enabled = true;
	config_analyzers_copy(&copy, &from_config);
	config_analyzers_clear(&from_config);
	assert_null(from_config.bandit.path);
	assert_int_equal(assess_source(rules, "t.py", (const uint8_t *)src, sizeof(src) - 1, &r), 0);
	assess_external_add(&copy, rules, (const uint8_t *)src, sizeof(src) - 1, &r);
	assert_int_equal(r.n_notes, 2);
	assert_string_equal(r.notes[0], "bandit: not installed ('/nonexistent/bandit' not found in "
			    "PATH); native findings only");
	assert_string_equal(r.notes[1], "semgrep: not installed ('/nonexistent/semgrep' not found "
			    "in PATH); native findings only");
	assert_int_equal(r.n_findings, native.n_findings);
	assert_int_equal(r.level, native.level);
	assess_result_clear(&r);
	config_analyzers_clear(&copy);
	assess_result_clear(&native);
	assess_rules_free(rules);
}

/* Semgrep cannot be installed on these machines: this report is written in
 * Semgrep's documented --json format (results[].check_id, start.line/col,
 * extra.message/severity/metadata) and stands in for a recorded run. */
static void test_semgrep_recorded_report(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/tests/assess/semgrep-report.json", getenv("MAI_SOURCE_ROOT"));
	_cleanup_free_ char *text = NULL;
	size_t len;
	struct assess_result r = { 0 };
	char *err = NULL;

	assert_int_equal(fileio_read_path(path, 1 << 20, &text, &len), 0);
	assert_int_equal(assess_semgrep_parse(text, len, &r, &err), 0);
	assert_int_equal(r.n_findings, 2);
	assert_string_equal(r.findings[0].rule_id,
			    "python.lang.security.audit.subprocess-shell-true.subprocess-shell-true");
	assert_string_equal(r.findings[0].source, "semgrep");
	assert_int_equal(r.findings[0].severity, ASSESS_SEV_HIGH);
	assert_int_equal(r.findings[0].confidence, ASSESS_SEV_MEDIUM);
	assert_int_equal(r.findings[0].cwe, 78);
	assert_int_equal(r.findings[0].line, 2);
	assert_int_equal(r.findings[0].col, 1);
	assert_string_equal(r.findings[1].message, "Detected the use of eval().");
	assert_int_equal(r.findings[1].severity, ASSESS_SEV_MEDIUM);
	assert_int_equal(r.findings[1].cwe, 95);
	assess_result_clear(&r);

	assert_int_equal(assess_semgrep_parse("{\"results\": 3}", 14, &r, &err), -EINVAL);
	assert_string_equal(err, "not a Semgrep JSON report (no results list)");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandit_real_run_merges),
		cmocka_unit_test(test_bandit_missing_and_timeout_are_noted),
		cmocka_unit_test(test_semgrep_recorded_report),
		cmocka_unit_test(test_external_add_follows_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
