#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "fileio.h"
#include "names.h"
#include "result.h"
#include "testdir.h"

static const struct {
	enum result_state state;
	enum result_verdict verdict;
	int exit_code, sig;
	enum result_retry retry; /* for RESULT_ERROR */
	const char *detail;
	const char *want; /* NULL: no message */
} messages[] = {
	{ RESULT_COMPLETED, RESULT_VERDICT_EXITED, 0, 0, 0, NULL, NULL },
	{ RESULT_COMPLETED, RESULT_VERDICT_EXITED, 3, 0, 0, NULL,
	  "The script exited with status 3: read stderr under execution, fix the script and "
	  "save it again." },
	{ RESULT_COMPLETED, RESULT_VERDICT_EXITED, 0, 9, 0, NULL,
	  "The script was killed by signal 9: read stderr under execution, fix the script and "
	  "save it again." },
	{ RESULT_COMPLETED, RESULT_VERDICT_TIMEOUT, 0, 0, 0, NULL,
	  "The script ran past its time limit and was stopped: make it finish sooner, or raise "
	  "the timeout for its trust level in sandbox.yaml." },
	{ RESULT_COMPLETED, RESULT_VERDICT_OOM_KILLED, 0, 0, 0, NULL,
	  "The script went over its memory limit and was killed: use less memory, or raise the "
	  "memory limit for its trust level in sandbox.yaml." },
	{ RESULT_COMPLETED, RESULT_VERDICT_PIDS_LIMIT, 0, 0, 0, NULL,
	  "The script started more processes or threads than allowed and was stopped: start "
	  "fewer, or raise the pids limit for its trust level in sandbox.yaml." },
	{ RESULT_COMPLETED, RESULT_VERDICT_NONE, 0, 0, 0, NULL,
	  "The script ran but its outcome is unknown: see the agent log." },
	{ RESULT_COMPLETED, RESULT_VERDICT_SANDBOX_ERROR, 0, 0, 0, "image python3 missing",
	  "The sandbox could not run the script (image python3 missing): check 'mai-agent "
	  "status' and the agent log, then save the file again." },
	{ RESULT_AWAITING_CONFIRMATION, RESULT_VERDICT_NONE, 0, 0, 0, NULL,
	  "Assessed HIGH risk, so it waits for a confirmation by an approver (approvers in "
	  "security.yaml): they read the findings ('mai-agent pending') and run 'mai-agent "
	  "approve foo.py', which lets exactly the content they saw run. A hand-written "
	  "foo.approve without its sha256 counts only for the content held before it was "
	  "written." },
	{ RESULT_BLOCKED, RESULT_VERDICT_NONE, 0, 0, 0, "foo.override is empty",
	  "foo.override is empty. Assessed BLOCKED, so it does not run: fix the findings and "
	  "save it again, or an approver (approvers in security.yaml) runs 'mai-agent "
	  "override foo.py --reason TEXT' to run exactly the content they saw anyway. A "
	  "hand-written foo.override without its sha256 counts only for the content held "
	  "before it was written." },
	{ RESULT_REJECTED, RESULT_VERDICT_NONE, 0, 0, 0, "The name is a symbolic link.",
	  "Rejected: The name is a symbolic link." },
	{ RESULT_REJECTED, RESULT_VERDICT_NONE, 0, 0, 0, NULL,
	  "Rejected: the file cannot be taken in; see reason and the agent log." },
	{ RESULT_ERROR, RESULT_VERDICT_NONE, 0, 0, 0, "Docker is not reachable",
	  "The agent could not finish this job (Docker is not reachable); it retries on its "
	  "own: check 'mai-agent status' and the agent log if this stays." },
	{ RESULT_ERROR, RESULT_VERDICT_NONE, 0, 0, RESULT_RETRY_NEXT_START, "killed on SIGTERM",
	  "The agent stopped before this job could finish (killed on SIGTERM). Nothing to do "
	  "if it is restarting; otherwise start it ('mai-agent run', or its service) and this "
	  "file is answered then." },
	{ RESULT_ERROR, RESULT_VERDICT_NONE, 0, 0, RESULT_RETRY_NONE, "no sandbox in this build",
	  "The agent cannot finish this job (no sandbox in this build) and does not retry it: "
	  "fix that, then save the file again; 'mai-agent status' and the agent log say "
	  "more." },
	{ RESULT_QUEUED, RESULT_VERDICT_NONE, 0, 0, 0, NULL,
	  "Accepted and queued at position 1 (0 jobs ahead of it; turns are shared "
	  "round-robin by writer): this file is rewritten with the outcome when it has run." },
};

/* The fallback directory is flat: a script's path becomes one name, with
 * '/', '%' and a leading '.' escaped, so that two paths never meet. */
static void test_fallback_names(void **state)
{
	(void)state;
	char *n = place_fallback_name("sub/a%b.py");
	assert_string_equal(n, "sub%2Fa%25b.py");
	free(n);
	n = place_fallback_name(".x/y.py");
	assert_string_equal(n, "%2Ex%2Fy.py");
	free(n);
	n = place_fallback_name("plain.py");
	assert_string_equal(n, "plain.py");
	free(n);
}

/* A script killed by a signal: the signal, and no exit code. */
static void test_signal_instead_of_exit_code(void **state)
{
	(void)state;
	struct result_info r = { .file = "k.py", .state = RESULT_COMPLETED,
				 .verdict = RESULT_VERDICT_EXITED, .signal = 9 };
	json_t *o = result_to_json(&r);
	assert_int_equal(json_integer_value(json_object_get(o, "signal")), 9);
	assert_null(json_object_get(o, "exit_code"));
	assert_string_equal(json_string_value(json_object_get(o, "verdict")), "exited");
	json_decref(o);
}

static void test_messages_tell_what_to_do(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(messages); i++) {
		struct result_info r = {
			.file = "sub/foo.py", .state = messages[i].state,
			.verdict = messages[i].verdict, .exit_code = messages[i].exit_code,
			.signal = messages[i].sig, .retry = messages[i].retry,
			.detail = messages[i].detail,
		};
		char *m = result_message(&r);
		if (!messages[i].want) {
			assert_null(m);
			continue;
		}
		if (!m || strcmp(m, messages[i].want) != 0)
			fail_msg("case %zu: got \"%s\"", i, m ? m : "(null)");
		assert_null(strchr(m, '\n')); /* one line */
		free(m);
	}
}

static void test_state_and_verdict_names(void **state)
{
	enum result_state s;
	enum result_verdict v;
	assert_string_equal(result_state_to_string(RESULT_AWAITING_CONFIRMATION),
			    "awaiting_confirmation");
	assert_int_equal(result_state_from_string("blocked", &s), 0);
	assert_int_equal(s, RESULT_BLOCKED);
	assert_int_equal(result_state_from_string("done", &s), -EINVAL);
	assert_int_equal(result_verdict_from_string("pids_limit", &v), 0);
	assert_int_equal(v, RESULT_VERDICT_PIDS_LIMIT);
	assert_int_equal(result_verdict_from_string("none", &v), -EINVAL);
	/* Final: what ends a job for its content (submit and pending rely on
	 * it); the rest are on the way, or retried. */
	assert_true(result_state_is_final(RESULT_COMPLETED));
	assert_true(result_state_is_final(RESULT_REJECTED));
	assert_true(result_state_is_final(RESULT_BLOCKED));
	assert_true(result_state_is_final(RESULT_AWAITING_CONFIRMATION));
	assert_false(result_state_is_final(RESULT_ERROR));
	assert_false(result_state_is_final(RESULT_RUNNING));
	assert_false(result_state_is_final(RESULT_QUEUED));
}

static void test_time_format(void **state)
{
	struct timespec ts = { .tv_sec = 1795330500, .tv_nsec = 123999999 };
	char buf[40];
	result_format_time(&ts, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-22T06:55:00.123Z");
}

static void test_write_full_document(void **state)
{
	const char *dir = *state;
	uint64_t seqs[] = { 41, 42, 43 };
	json_t *assessment = json_pack("{s:s, s:f, s:[]}", "level", "HIGH", "score", 7.5,
				       "findings");
	json_t *execution = json_pack("{s:i, s:s}", "exit_code", 0, "image", "mai-python:1");
	struct result_info r = {
		.file = "foo.py",
		.sha256 = "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12",
		.size = 1234,
		.state = RESULT_COMPLETED,
		.verdict = RESULT_VERDICT_EXITED,
		.accepted = { 1795330500, 0 },
		.started = { 1795330500, 5000000 },
		.finished = { 1795330501, 250000000 },
		.assessment = assessment,
		.execution = execution,
		.decision = { .action = "run", .by = "user", .uid = 1000, .reason = "reviewed it" },
		.audit = { .seqs = seqs, .n_seqs = 3, .entry_hash = "ffee", .checkpoint_size = 44 },
	};
	char *err = NULL;
	struct place_dirs pd = { .drop_dir = dir };
	assert_int_equal(result_write(&pd, &r, &err), PLACE_IN_DROP_DIR);
	json_decref(assessment);
	json_decref(execution);

	_cleanup_free_ char *path = xasprintf("%s/foo.result.json", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	json_error_t jerr;
	json_t *o = json_load_file(path, 0, &jerr);
	assert_non_null(o);

	const char *file, *sha, *stat_s, *verdict, *level, *image, *action, *by, *reason;
	const char *acc, *fin, *hash;
	int schema, code, uid, cp;
	json_int_t size, s0, s2;
	assert_int_equal(json_unpack_ex(o, &jerr, JSON_STRICT,
		"{s:i, s:s, s:s, s:s, s:I, s:s, s:s, s:i, s:{s:s, s:s, s:s},"
		" s:{s:s, s:f, s:[]}, s:{s:s, s:s, s:i, s:s}, s:{s:i, s:s},"
		" s:{s:[I,I,I], s:s, s:i}}",
		"schema_version", &schema, "agent_version", &(const char *){ NULL },
		"file", &file, "sha256", &sha, "size", &size, "state", &stat_s,
		"verdict", &verdict, "exit_code", &code,
		"times", "accepted", &acc, "started", &(const char *){ NULL }, "finished", &fin,
		"assessment", "level", &level, "score", &(double){ 0 }, "findings",
		"decision", "action", &action, "by", &by, "uid", &uid, "reason", &reason,
		"execution", "exit_code", &(int){ 0 }, "image", &image,
		"audit", "seqs", &s0, &(json_int_t){ 0 }, &s2, "entry_hash", &hash,
		"checkpoint_size", &cp), 0);
	assert_int_equal(schema, 1);
	assert_string_equal(file, "foo.py");
	assert_int_equal(size, 1234);
	assert_string_equal(stat_s, "completed");
	assert_string_equal(verdict, "exited");
	assert_int_equal(code, 0);
	assert_string_equal(acc, "2026-11-22T06:55:00.000Z");
	assert_string_equal(fin, "2026-11-22T06:55:01.250Z");
	assert_string_equal(level, "HIGH");
	assert_string_equal(image, "mai-python:1");
	assert_string_equal(action, "run");
	assert_string_equal(by, "user");
	assert_int_equal(uid, 1000);
	assert_string_equal(reason, "reviewed it");
	assert_int_equal(s0, 41);
	assert_int_equal(s2, 43);
	assert_string_equal(hash, "ffee");
	assert_int_equal(cp, 44);
	json_decref(o);
}

static void test_rejected_odd_name_sidecar(void **state)
{
	const char *dir = *state;
	struct result_info r = {
		.file = "bad\xff name.py",
		.state = RESULT_REJECTED,
		.reason = "bad_name",
		.detail = "the name is not valid UTF-8: rename the file",
	};
	char *err = NULL;
	struct place_dirs pd = { .drop_dir = dir };
	assert_int_equal(result_write(&pd, &r, &err), 0);

	/* The sidecar sits next to the script under its raw name; inside, the
	 * name is escaped so that the JSON stays valid. */
	_cleanup_free_ char *path = xasprintf("%s/bad\xff name.result.json", dir);
	json_t *o = json_load_file(path, 0, NULL);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "file")), "bad\\xff name.py");
	assert_true(json_is_true(json_object_get(o, "file_escaped")));
	assert_string_equal(json_string_value(json_object_get(o, "state")), "rejected");
	assert_string_equal(json_string_value(json_object_get(o, "reason")), "bad_name");
	assert_string_equal(json_string_value(json_object_get(o, "message")),
			    "Rejected: the name is not valid UTF-8: rename the file");
	assert_null(json_object_get(o, "sha256"));
	assert_null(json_object_get(o, "verdict"));
	json_decref(o);
}

static void test_write_error_names_the_file(void **state)
{
	struct result_info r = { .file = "foo.py", .state = RESULT_QUEUED };
	char *err = NULL;
	struct place_dirs pd = { .drop_dir = "/nonexistent/drop" };
	assert_int_equal(result_write(&pd, &r, &err), -ENOENT);
	assert_string_equal(err, "cannot write /nonexistent/drop/foo.result.json: cannot open its "
				 "directory: No such file or directory (is the drop directory "
				 "writable and its disk not full?)");
	free(err);
}

/* Who wrote the script, and who decided, by name as well as by uid. */
static void test_writer_and_decider(void **state)
{
	struct drop_writer writer = { .from = DROP_WRITER_REQUEST, .uid = 1001, .gid = 1002,
				      .pid = 4242, .process = "vim" };
	struct result_info r = {
		.file = "w.py", .state = RESULT_AWAITING_CONFIRMATION,
		.writer = &writer, .writer_user = "alice",
		.decision = { .action = "hold", .by = "policy", .uid = -1 },
	};
	json_t *o = result_to_json(&r);
	json_t *w = json_object_get(o, "writer");
	assert_int_equal(json_integer_value(json_object_get(w, "uid")), 1001);
	assert_int_equal(json_integer_value(json_object_get(w, "gid")), 1002);
	assert_int_equal(json_integer_value(json_object_get(w, "pid")), 4242);
	assert_string_equal(json_string_value(json_object_get(w, "process")), "vim");
	assert_string_equal(json_string_value(json_object_get(w, "from")), "request");
	assert_string_equal(json_string_value(json_object_get(w, "user")), "alice");
	assert_null(json_object_get(json_object_get(o, "decision"), "uid"));
	json_decref(o);
	r.decision = (struct result_decision){ .action = "run", .by = "user", .uid = 0,
					       .user = "root" };
	r.writer = NULL;
	o = result_to_json(&r);
	assert_null(json_object_get(o, "writer"));
	json_decref(o);
	/* Watch mode knows the file's owner and group only. */
	drop_writer_from_owner(&writer, 1001, 1002);
	r.writer = &writer;
	o = result_to_json(&r);
	w = json_object_get(o, "writer");
	assert_string_equal(json_string_value(json_object_get(w, "from")), "file_owner");
	assert_null(json_object_get(w, "pid"));
	assert_null(json_object_get(w, "process"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "decision"),
							       "user")), "root");
	json_decref(o);
}

/* A name that leaves no room for ".result.json" is answered under the
 * short stated name (names.h), never silently. */
static void test_long_name_answered_under_short_name(void **state)
{
	const char *dir = *state;
	char name[256];
	memset(name, 'n', 249);
	strcpy(name + 249, ".py"); /* 252 bytes: fits, its sidecar does not */
	struct result_info r = { .file = name, .state = RESULT_REJECTED, .reason = "name_too_long",
				 .detail = "too long" };
	struct place_dirs pd = { .drop_dir = dir };
	char *err = NULL;
	assert_int_equal(result_write(&pd, &r, &err), PLACE_IN_DROP_DIR);
	_cleanup_free_ char *side = names_result_sidecar(name, ".result.json");
	assert_int_equal(strlen(side), 1 + NAMES_SHORT_PREFIX + 1 + 16 + strlen(".result.json"));
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, side);
	json_t *o = json_load_file(path, 0, NULL);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "file")), name);
	json_decref(o);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages_tell_what_to_do),
		cmocka_unit_test(test_signal_instead_of_exit_code),
		cmocka_unit_test(test_fallback_names),
		cmocka_unit_test(test_state_and_verdict_names),
		cmocka_unit_test(test_time_format),
		T(test_write_full_document),
		T(test_rejected_odd_name_sidecar),
		T(test_write_error_names_the_file),
		cmocka_unit_test(test_writer_and_decider),
		T(test_long_name_answered_under_short_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
