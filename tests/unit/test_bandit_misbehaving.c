/* Bandit misbehaving in ways the real one does not on demand (test_assess_external
 * runs the real Bandit, one-shot and resident): a resident worker that dies
 * mid-request, answers with a report that is not JSON, an empty report (Bandit
 * raised) or a length past the cap; a one-shot run that exits with no report;
 * a bandit program without a usable #! line, not executable, or whose
 * interpreter is gone; a version that cannot be read; a $TMPDIR where no
 * snapshot can be written. The stand-in is a bandit script whose #! line
 * names a shell script (the worker's "interpreter") that speaks the
 * worker's protocol (a 4-byte big-endian length, then the bytes) as told
 * by a file next to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assess_external.h"
#include "bandit_worker.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

static const uint8_t src[] = "import os\nos.system('ls')\n";

/* The worker's side, as the mode file says; run with "-c PROGRAM" it is
 * the resident worker (stdin and stdout its socket), with the bandit
 * script's path and Bandit's arguments the one-shot run. */
static const char fakepy[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"mode=$(cat \"$d/mode\")\n"
	"if [ \"$1\" = -c ]; then\n"
	"  [ \"$mode\" = mute ] && exec sleep 30\n"
	"  printf '\\000\\000\\000\\005ready'\n"
	"  case $mode in\n"
	"  die) head -c 4 >/dev/null ;;\n"
	"  garbage) head -c 4 >/dev/null; printf '\\000\\000\\000\\011not json!' ;;\n"
	"  raised) head -c 4 >/dev/null; printf '\\000\\000\\000\\000' ;;\n"
	"  huge) head -c 4 >/dev/null; printf '\\177\\377\\377\\377' ;;\n"
	"  short) head -c 4 >/dev/null; printf '\\000\\000\\001\\000{\"resu' ;;\n"
	"  esac\n"
	"  exit 0\n"
	"fi\n"
	"case $mode in\n"
	"raised) echo 'Traceback (most recent call last): boom'; exit 2 ;;\n"
	"version) echo 'bandit, version unknown'; exit 0 ;;\n"
	"esac\n"
	"echo '{\"results\": [{\"test_id\": \"B605\", \"issue_severity\": \"HIGH\", "
	"\"issue_confidence\": \"HIGH\", \"line_number\": 2, \"issue_text\": \"shell\"}, "
	"{\"issue_text\": \"an entry without a test id\"}]}'\n"
	"exit 1\n";

struct bandit {
	char *dir, *program;
};

static void bandit_make(struct bandit *b, const char *dir, const char *mode)
{
	b->dir = xstrdup(dir);
	b->program = xasprintf("%s/bandit", dir);
	_cleanup_free_ char *py = xasprintf("%s/fakepy", dir);
	_cleanup_free_ char *script = xasprintf("#!%s\n# the stand-in's bandit\n", py);
	assert_int_equal(fileio_write_atomic(py, fakepy, strlen(fakepy), 0755), 0);
	assert_int_equal(fileio_write_atomic(b->program, script, strlen(script), 0755), 0);
	testdir_put(dir, "mode", mode);
}

static void bandit_clear(struct bandit *b)
{
	free(b->dir);
	free(b->program);
}

/* The worker failing mid-request: the job runs the one-shot bandit and
 * has its findings (its entry without a test id skipped); the worker is
 * gone. A report that does not parse is logged as such first. */
static void test_worker_fails_mid_request(void **state)
{
	static const char *const modes[] = { "die", "garbage", "huge", "short" };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct bandit b;
		struct bandit_worker *bw = bandit_worker_new();
		struct assess_result r = { 0 };

		bandit_make(&b, *state, modes[i]);
		const struct assess_external x = { b.program, NULL, 10000 };
		assert_int_equal(assess_bandit_run_resident(bw, &x, src, sizeof(src) - 1, &r), 0);
		if (r.n_findings != 1 || strcmp(r.findings[0].rule_id, "B605") || r.n_notes)
			fail_msg("%s: %zu findings, %zu notes", modes[i], r.n_findings, r.n_notes);
		assert_int_equal(r.findings[0].line, 2);
		/* A worker that broke the protocol is stopped; one that
		 * answered (with a report that does not parse) is kept. */
		if (strcmp(modes[i], "garbage") != 0)
			assert_int_equal(bandit_worker_pid(bw), -1);
		assess_result_clear(&r);
		bandit_worker_free(bw);
		bandit_clear(&b);
	}
}

/* Bandit raising on a snapshot: the worker sends an empty report, and
 * the one-shot run that follows exits with no report; the note says so
 * with its exit status and what was wrong with its output. */
static void test_bandit_raised(void **state)
{
	struct bandit b;
	struct bandit_worker *bw = bandit_worker_new();
	struct assess_result r = { 0 };
	char *out = NULL;
	size_t out_len = 0;

	bandit_make(&b, *state, "raised");
	assert_int_equal(bandit_worker_report(bw, b.program, 10000, src, sizeof(src) - 1, 1 << 20,
					      &out, &out_len), -EIO);
	assert_null(out);
	const struct assess_external x = { b.program, NULL, 10000 };
	assert_int_equal(assess_bandit_run_resident(bw, &x, src, sizeof(src) - 1, &r), -EIO);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(r.n_notes, 1);
	assert_non_null(strstr(r.notes[0], "bandit: exit status 2 and no report: not a Bandit JSON "
					   "report ("));
	assess_result_clear(&r);
	bandit_worker_free(bw);
	bandit_clear(&b);
}

/* A bandit no worker can run for (no #! line, a #! line without an
 * interpreter or without an end, an interpreter that is not there): each
 * job is a one-shot run, which says what it could. */
static void test_no_worker_for_the_program(void **state)
{
	static char long_line[400];
	memset(long_line, 'x', sizeof(long_line) - 1);
	memcpy(long_line, "#!", 2);
	static const struct {
		const char *text;
		int r;
		const char *note;
	} cases[] = {
		/* A compiled program's first bytes: the kernel cannot run this one. */
		{ "\177ELF\002\001\001", -EIO, "': Exec format error" },
		{ "#!   \necho no\n", -EIO, "': Exec format error" }, /* nothing to run */
		{ long_line, -EIO, "bandit: cannot run '" },
		/* Not "not installed": the program is there, its interpreter is not. */
		{ "#!/nonexistent/python3\n", -ENOENT, "': the interpreter on its #! line is not there "
						      "(reinstall it); native findings only" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *program = xasprintf("%s/bandit%zu", (char *)*state, i);
		struct bandit_worker *bw = bandit_worker_new();
		struct assess_result r = { 0 };
		const struct assess_external x = { program, NULL, 10000 };

		assert_int_equal(fileio_write_atomic(program, cases[i].text, strlen(cases[i].text),
						     0755), 0);
		int rc = assess_bandit_run_resident(bw, &x, src, sizeof(src) - 1, &r);
		if (rc != cases[i].r || r.n_notes != 1 || !strstr(r.notes[0], cases[i].note))
			fail_msg("case %zu: %d, %zu notes: %s", i, rc, r.n_notes,
				 r.n_notes ? r.notes[0] : "");
		assert_int_equal(bandit_worker_pid(bw), -1);
		assess_result_clear(&r);
		bandit_worker_free(bw);
	}
}

/* A bandit that cannot be executed at all (no execute permission). */
static void test_not_executable(void **state)
{
	_cleanup_free_ char *program = xasprintf("%s/bandit", (char *)*state);
	struct assess_result r = { 0 };
	const struct assess_external x = { program, NULL, 10000 };

	assert_int_equal(fileio_write_atomic(program, "#!/bin/sh\n", 10, 0644), 0);
	assert_int_equal(assess_bandit_run(&x, src, sizeof(src) - 1, &r), -EIO);
	assert_int_equal(r.n_notes, 1);
	_cleanup_free_ char *want = xasprintf("bandit: cannot run '%s': Permission denied", program);
	assert_string_equal(r.notes[0], want);
	assess_result_clear(&r);
}

/* The version shown in status: none when the program fails or prints no
 * number. */
static void test_version_unreadable(void **state)
{
	struct bandit b;

	bandit_make(&b, *state, "version");
	assert_null(assess_external_version(b.program, 10000));
	testdir_put(*state, "mode", "one-shot");
	assert_null(assess_external_version(b.program, 10000)); /* exits 1 */
	assert_null(assess_external_version("/nonexistent/bandit", 10000));
	bandit_clear(&b);
}

/* No snapshot can be written ($TMPDIR not there): the job says so, Bandit
 * and Semgrep alike, and runs nothing. */
static void test_snapshot_unwritable(void **state)
{
	const char *old = getenv("TMPDIR");
	_cleanup_free_ char *saved = old ? xstrdup(old) : NULL;
	_cleanup_free_ char *gone = xasprintf("%s/gone", (char *)*state);
	struct assess_result r = { 0 };
	const struct assess_external x = { "/nonexistent/bandit", NULL, 10000 };

	setenv("TMPDIR", gone, 1);
	assert_int_equal(assess_bandit_run(&x, src, sizeof(src) - 1, &r), -EIO);
	assert_int_equal(assess_semgrep_run(&x, src, sizeof(src) - 1, &r), -EIO);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	assert_int_equal(r.n_notes, 2);
	assert_string_equal(r.notes[0], "bandit: cannot write the snapshot to $TMPDIR");
	assert_string_equal(r.notes[1], "semgrep: cannot write the snapshot to $TMPDIR");
	assess_result_clear(&r);
}

/* Report entries without a rule's id add nothing. */
static void test_entries_without_an_id(void **state)
{
	static const char semgrep[] = "{\"results\": [{\"extra\": {\"message\": \"no id\"}}, "
				      "{\"check_id\": \"r1\", \"start\": {\"line\": 3, \"col\": 1}, "
				      "\"extra\": {\"severity\": \"ERROR\", \"message\": \"m\"}}]}";
	struct assess_result r = { 0 };
	char *err = NULL;

	assert_int_equal(assess_semgrep_parse(semgrep, strlen(semgrep), &r, &err), 0);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].rule_id, "r1");
	assess_result_clear(&r);
}

/* A worker that never says it is ready (its interpreter hangs): the job
 * times out as a one-shot run would, whether the worker was started by
 * the job or ahead of it (prestart), and the worker is stopped. */
static void test_worker_never_ready(void **state)
{
	struct bandit b;

	bandit_make(&b, *state, "mute");
	for (int ahead = 0; ahead < 2; ahead++) {
		struct bandit_worker *bw = bandit_worker_new();
		struct assess_result r = { 0 };
		const struct assess_external x = { b.program, NULL, 300 };

		if (ahead) {
			bandit_worker_prestart(bw, b.program);
			assert_true(bandit_worker_pid(bw) > 0);
		}
		assert_int_equal(assess_bandit_run_resident(bw, &x, src, sizeof(src) - 1, &r),
				 -ETIMEDOUT);
		assert_int_equal(r.n_notes, 1);
		assert_string_equal(r.notes[0], "bandit: timed out after 300 ms; native findings only "
						"(raise analyzers.bandit.timeout in security.yaml)");
		assert_int_equal(bandit_worker_pid(bw), -1);
		assess_result_clear(&r);
		bandit_worker_free(bw);
	}
	bandit_clear(&b);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_worker_fails_mid_request),
		T(test_bandit_raised),
		T(test_worker_never_ready),
		T(test_no_worker_for_the_program),
		T(test_not_executable),
		T(test_version_unreadable),
		T(test_snapshot_unwritable),
		T(test_entries_without_an_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
