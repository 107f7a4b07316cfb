/* Bandit (real, when installed) and Semgrep (a recorded report) adapters. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "assess_external.h"
#include "bandit_worker.h"
#include "fileio.h"
#include "subprocess.h"
#include "testdir.h"

static const char src[] = "import subprocess\nsubprocess.run('ls', shell=True)\neval(input())\n"
			  "assert src\n";

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
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	assess_source(rules, "t.py", (const uint8_t *)src, sizeof(src) - 1, &r);
	assert_int_equal(assess_bandit_run(&x, (const uint8_t *)src, sizeof(src) - 1, &r), 0);
	assess_result_finish(rules, &r);
	/* how Bandit's findings were weighed, and why B322 (input) was
	 * dropped: Python 3's input() returns a string */
	assert_int_equal(r.n_notes, 2);
	assert_non_null(strstr(r.notes[0], "Bandit's findings, "));
	assert_non_null(strstr(r.notes[0], "1 dropped as Python 2 only (B322)"));
	assert_non_null(strstr(r.notes[1], "Bandit's B322 dropped: Python 3's input()"));
	int b602_native = 0, b602_bandit = 0, b607_native = 0, b607_bandit = 0, b101_bandit = 0;
	for (size_t i = 0; i < r.n_findings; i++) {
		const struct assess_finding *f = &r.findings[i];
		int native = !strcmp(f->source, "mai");
		if (f->bandit_id && !strcmp(f->bandit_id, "B602")) {
			if (native)
				b602_native++;
			else
				b602_bandit++;
		}
		if (f->bandit_id && !strcmp(f->bandit_id, "B607") && f->line == 2) {
			if (native)
				b607_native++;
			else
				b607_bandit++;
		}
		if (!strcmp(f->rule_id, "B101") && !native && f->line == 4) {
			b101_bandit++;
			/* Bandit's alone: evidence at its own severity and confidence */
			assert_int_equal(f->weighed, ASSESS_WEIGHED_EVIDENCE);
			assert_true(f->score > 0);
		}
		assert_true(!f->bandit_id || strcmp(f->bandit_id, "B322") != 0);
	}
	/* Bandit's B602 and B607 on line 2 duplicate MAI005 and MAI091: kept
	 * once, the native ones */
	assert_int_equal(b602_native, 1);
	assert_int_equal(b602_bandit, 0);
	assert_int_equal(b607_native, 1);
	assert_int_equal(b607_bandit, 0);
	/* what only Bandit reports is added */
	assert_int_equal(b101_bandit, 1);
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
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
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
static void test_analyzers_follow_settings(void **state)
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
	assert_int_equal(assess_with_analyzers(rules, &from_config, NULL, "t.py", (const uint8_t *)src,
					       sizeof(src) - 1, &r), 0);
	assert_int_equal(r.n_notes, 0);
	assert_int_equal(r.n_findings, native.n_findings);
	assert_int_equal(r.level, native.level);
	assess_result_clear(&r);

	/* Bandit alone */
	from_config.bandit.enabled = true;
	assert_int_equal(assess_with_analyzers(rules, &from_config, NULL, "t.py", (const uint8_t *)src,
					       sizeof(src) - 1, &r), 0);
	assert_int_equal(r.n_notes, 1);
	assert_string_equal(r.notes[0], "bandit: not installed ('/nonexistent/bandit' not found in "
			    "PATH); native findings only");
	assess_result_clear(&r);

	from_config.bandit.enabled = from_config.semgrep.enabled = true;
	config_analyzers_copy(&copy, &from_config);
	config_analyzers_clear(&from_config);
	assert_null(from_config.bandit.path);
	assert_int_equal(assess_with_analyzers(rules, &copy, NULL, "t.py", (const uint8_t *)src,
					       sizeof(src) - 1, &r), 0);
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

/* The whole assessment of a corpus file with Bandit enabled, through the
 * one-shot process (bw NULL) or the resident worker, as JSON. */
static json_t *assess_corpus(const struct assess_rules *rules, struct bandit_worker *bw,
			     const char *name, unsigned timeout_ms, size_t *n_bandit)
{
	_cleanup_free_ char *path = xasprintf("%s/tests/assess/corpus/%s",
					      getenv("MAI_SOURCE_ROOT"), name);
	_cleanup_free_ char *text = NULL;
	size_t len;
	struct assess_result r;
	struct config_analyzers a = { .bandit = { true, "bandit", NULL, timeout_ms } };

	assert_int_equal(fileio_read_path(path, 1 << 20, &text, &len), 0);
	assert_int_equal(assess_with_analyzers(rules, &a, bw, name, (const uint8_t *)text, len, &r), 0);
	*n_bandit = 0;
	for (size_t i = 0; i < r.n_findings; i++)
		*n_bandit += !strcmp(r.findings[i].source, "bandit");
	json_t *j = assess_result_to_json(&r);
	assess_result_clear(&r);
	return j;
}

/* The daemon's resident worker gives the same assessment as the one-shot
 * `bandit` that `mai-agent check` runs, one snapshot after another; the
 * same content again too (Bandit 1.6 rewrote a B313-B320 finding's id in
 * its tables when it reported one, so the worker's second report of an
 * ElementTree parse said "b313-b320", not B314). */
static void test_resident_worker_matches_one_shot(void **state)
{
	static const char *const files[] = {
		"mai005_shell_true.py", "mai040_pickle.py", "mai061_chmod_world.py",
		"../ordinary/rss_reader.py", "mai042_yaml_load.py", "benign_pure_math.py",
		"mai001_os_system.py", "../ordinary/rss_reader.py",
	};
	struct assess_rules *rules = NULL;
	char *err = NULL;
	size_t bandit_findings = 0, n;

	if (!have_bandit())
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	struct bandit_worker *bw = bandit_worker_new();
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		json_t *one_shot = assess_corpus(rules, NULL, files[i], 60000, &n);
		json_t *resident = assess_corpus(rules, bw, files[i], 60000, &n);
		if (!json_equal(one_shot, resident)) {
			char *a = json_dumps(one_shot, JSON_INDENT(1));
			char *b = json_dumps(resident, JSON_INDENT(1));
			fail_msg("%s: one-shot %s\nresident %s", files[i], a, b);
		}
		/* no analyzer failed (only notes on how Bandit's findings counted) */
		json_t *notes = json_object_get(resident, "notes"), *note;
		size_t k;
		json_array_foreach(notes, k, note)
			assert_null(strstr(json_string_value(note), "bandit: "));
		bandit_findings += n;
		json_decref(one_shot);
		json_decref(resident);
	}
	/* Bandit added findings of its own, so the comparison compared them */
	assert_true(bandit_findings > 0);
	/* and one worker served them all */
	assert_true(bandit_worker_pid(bw) > 0);
	bandit_worker_free(bw);
	assess_rules_free(rules);
}

static void wait_zombie(pid_t pid)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/stat", (int)pid);

	for (int i = 0; i < 5000; i++) {
		_cleanup_free_ char *stat = NULL;
		size_t len;
		if (fileio_read_path(path, 4096, &stat, &len) < 0 || strstr(stat, ") Z "))
			return;
		usleep(1000);
	}
	fail_msg("worker %d did not die", (int)pid);
}

/* The one socket this process holds (the worker's end), or -1. */
static int worker_socket(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1, n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		struct stat st;
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			found = fd, n++;
	}
	closedir(d);
	assert_true(n <= 1);
	return found;
}

/* mai005_shell_true.py assessed with the worker bw: what the one-shot
 * bandit gives (expected). */
static void expect_shell_true(const struct assess_rules *rules, struct bandit_worker *bw,
			      const json_t *expected)
{
	size_t n;
	json_t *j = assess_corpus(rules, bw, "mai005_shell_true.py", 60000, &n);

	assert_true(json_equal(j, expected));
	json_decref(j);
}

/* A worker killed between jobs is replaced by the next job; one that
 * overruns analyzers.bandit.timeout is killed and the job says so, as
 * the one-shot run does. */
static void test_resident_worker_death_and_timeout(void **state)
{
	struct assess_rules *rules = NULL;
	char *err = NULL;
	size_t n;

	if (!have_bandit())
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	struct bandit_worker *bw = bandit_worker_new();
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	json_t *expected = assess_corpus(rules, NULL, "mai005_shell_true.py", 60000, &n);
	expect_shell_true(rules, bw, expected);
	pid_t first = bandit_worker_pid(bw);
	assert_true(first > 0);

	kill(first, SIGKILL);
	wait_zombie(first);
	expect_shell_true(rules, bw, expected);
	pid_t second = bandit_worker_pid(bw);
	assert_true(second > 0);
	assert_int_not_equal(second, first);
	assert_int_equal(kill(first, 0), -1); /* the dead one was reaped */

	/* 4 MB of code cannot be checked in 1 ms */
	struct assess_external hurried = { "bandit", NULL, 1 };
	size_t big_len = 4u << 20;
	_cleanup_free_ uint8_t *big = xmalloc(big_len);
	for (size_t i = 0; i < big_len; i++)
		big[i] = (uint8_t)src[i % (sizeof(src) - 1)];
	struct assess_result r = { 0 };
	assert_int_equal(assess_bandit_run_resident(bw, &hurried, big, big_len, &r), -ETIMEDOUT);
	assert_int_equal(r.n_notes, 1);
	assert_string_equal(r.notes[0], "bandit: timed out after 1 ms; native findings only (raise "
			    "analyzers.bandit.timeout in security.yaml)");
	assert_int_equal(r.n_findings, 0);
	assess_result_clear(&r);
	assert_int_equal(bandit_worker_pid(bw), -1);
	assert_int_equal(kill(second, 0), -1);

	/* the next job starts a new worker */
	expect_shell_true(rules, bw, expected);
	assert_true(bandit_worker_pid(bw) > 0);
	json_decref(expected);

	/* A stopped worker's socket is closed once: a file opened since then
	 * under the same number is left alone when the worker is freed. */
	int sock = worker_socket();
	assert_true(sock >= 0);
	assert_int_equal(assess_bandit_run_resident(bw, &hurried, big, big_len, &r), -ETIMEDOUT);
	assess_result_clear(&r);
	assert_int_equal(fcntl(sock, F_GETFD), -1);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(null >= 0);
	if (null != sock) {
		assert_int_equal(dup2(null, sock), sock);
		close(null);
	}
	bandit_worker_free(bw);
	assert_int_not_equal(fcntl(sock, F_GETFD), -1);
	close(sock);
	assess_rules_free(rules);
}

/* A bandit whose #! line names its interpreter through env and an
 * argument ("#!/usr/bin/env python3", as in a virtualenv or a pip install)
 * starts a resident worker all the same. */
static void test_resident_worker_through_env(void **state)
{
	if (!have_bandit())
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	_cleanup_free_ char *bandit = subprocess_find_program("bandit"), *text = NULL;
	size_t len;
	assert_non_null(bandit);
	assert_int_equal(fileio_read_path(bandit, 1 << 20, &text, &len), 0);
	const char *body = memchr(text, '\n', len);
	assert_non_null(body);
	char dir[] = "/tmp/mai-bw-XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *wrapper = xasprintf("%s/bandit", dir);
	_cleanup_free_ char *script = xasprintf("#!/usr/bin/env  python3 \n%.*s", (int)(len - (size_t)(body + 1 - text)),
						body + 1);
	assert_int_equal(fileio_write_atomic(wrapper, script, strlen(script), 0755), 0);

	struct bandit_worker *bw = bandit_worker_new();
	struct assess_external x = { wrapper, NULL, 60000 };
	struct assess_result r = { 0 };
	assert_int_equal(assess_bandit_run_resident(bw, &x, (const uint8_t *)src, sizeof(src) - 1, &r), 0);
	assert_int_equal(r.n_notes, 0);
	assert_true(r.n_findings > 0);
	assert_true(bandit_worker_pid(bw) > 0);
	assess_result_clear(&r);
	bandit_worker_free(bw);
	unlink(wrapper);
	rmdir(dir);
}

/* A worker that never started holds no descriptor: freeing it closes
 * nothing (not stdin, descriptor 0). */
static void test_unstarted_worker_closes_nothing(void **state)
{
	if (fcntl(0, F_GETFD) < 0)
		assert_int_equal(open("/dev/null", O_RDONLY), 0);
	struct bandit_worker *bw = bandit_worker_new();
	assert_int_equal(bandit_worker_pid(bw), -1);
	bandit_worker_free(bw);
	assert_int_not_equal(fcntl(0, F_GETFD), -1);
}

/* The agent starts its worker with itself (bandit_worker_prestart): the
 * process runs before any job, the first job is answered by that same
 * process (Bandit imported meanwhile), a second prestart starts nothing
 * more, and where no worker can run a prestart starts nothing and the job
 * falls back to the one-shot run as before. */
static void test_resident_worker_prestart(void **state)
{
	struct assess_rules *rules = NULL;
	char *err = NULL;
	size_t n;

	if (!have_bandit())
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	struct bandit_worker *bw = bandit_worker_new();
	bandit_worker_prestart(bw, "bandit");
	pid_t started = bandit_worker_pid(bw);
	assert_true(started > 0);
	bandit_worker_prestart(bw, "bandit");
	assert_int_equal(bandit_worker_pid(bw), started);
	assert_int_equal(assess_rules_load(NULL, &rules, &err), 0);
	json_t *expected = assess_corpus(rules, NULL, "mai005_shell_true.py", 60000, &n);
	expect_shell_true(rules, bw, expected);
	assert_int_equal(bandit_worker_pid(bw), started);
	json_decref(expected);
	bandit_worker_free(bw);
	assert_int_equal(kill(started, 0), -1); /* killed and reaped */

	bw = bandit_worker_new();
	bandit_worker_prestart(bw, "/nonexistent/bandit");
	assert_int_equal(bandit_worker_pid(bw), -1);
	struct assess_result r = { 0 };
	struct assess_external missing = { "/nonexistent/bandit", NULL, 5000 };
	assert_int_equal(assess_bandit_run_resident(bw, &missing, (const uint8_t *)src,
						    sizeof(src) - 1, &r), -ENOENT);
	assess_result_clear(&r);
	bandit_worker_free(bw);
	assess_rules_free(rules);
}

/* Where no worker can run (analyzers.bandit.path not found, or a wrapper
 * script whose #! interpreter is not Python), each job runs the one-shot
 * `bandit`, with its findings and notes. */
static void test_resident_worker_falls_back(void **state)
{
	struct bandit_worker *bw = bandit_worker_new();
	struct assess_result r = { 0 };
	struct assess_external missing = { "/nonexistent/bandit", NULL, 5000 };

	assert_int_equal(assess_bandit_run_resident(bw, &missing, (const uint8_t *)src,
						    sizeof(src) - 1, &r), -ENOENT);
	assert_int_equal(r.n_notes, 1);
	assert_string_equal(r.notes[0], "bandit: not installed ('/nonexistent/bandit' not found in "
			    "PATH); native findings only");
	assess_result_clear(&r);
	assert_int_equal(bandit_worker_pid(bw), -1);

	if (!have_bandit()) {
		bandit_worker_free(bw);
		test_skip("bandit is not installed (packaging/install-deps.sh installs it)");
	}
	char dir[] = "/tmp/mai-bw-XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *wrapper = xasprintf("%s/bandit", dir);
	static const char sh[] = "#!/bin/sh\nexec bandit \"$@\"\n";
	assert_int_equal(fileio_write_atomic(wrapper, sh, sizeof(sh) - 1, 0755), 0);
	struct assess_external wrapped = { wrapper, NULL, 60000 };
	assert_int_equal(assess_bandit_run_resident(bw, &wrapped, (const uint8_t *)src,
						    sizeof(src) - 1, &r), 0);
	assert_int_equal(r.n_notes, 0);
	size_t b607 = 0;
	for (size_t i = 0; i < r.n_findings; i++)
		b607 += !strcmp(r.findings[i].rule_id, "B607");
	assert_int_equal(b607, 1);
	assess_result_clear(&r);
	assert_int_equal(bandit_worker_pid(bw), -1);
	unlink(wrapper);
	rmdir(dir);
	bandit_worker_free(bw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandit_real_run_merges),
		cmocka_unit_test(test_bandit_missing_and_timeout_are_noted),
		cmocka_unit_test(test_semgrep_recorded_report),
		cmocka_unit_test(test_analyzers_follow_settings),
		cmocka_unit_test(test_resident_worker_matches_one_shot),
		cmocka_unit_test(test_resident_worker_prestart),
		cmocka_unit_test(test_resident_worker_death_and_timeout),
		cmocka_unit_test(test_resident_worker_falls_back),
		cmocka_unit_test(test_resident_worker_through_env),
		cmocka_unit_test(test_unstarted_worker_closes_nothing),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
