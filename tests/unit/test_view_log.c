/* The view's layer over the audit library: what verify, head, checkpoint and
 * entries/ hold for a real log written with the library's writer, for an
 * empty log, and when there is no log at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <jansson.h>

#include "audit.h"
#include "audit_verify.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"
#include "view_log.h"

static char *write_log(const char *dir, int n)
{
	char *logdir = xasprintf("%s/audit", dir);
	_cleanup_free_ char *key = xasprintf("%s/key", dir);
	/* audit_open makes the signing key the first time. */
	struct audit_options opt = {
		.log_dir = logdir, .signing_key = key, .origin = "mai-test/view",
		.checkpoint_interval_s = 3600, .diff_max = 1024,
	};
	struct audit_log *log = NULL;
	char *err = NULL;
	if (audit_open(&opt, &log, &err) < 0)
		fail_msg("audit_open: %s", err);
	for (int i = 0; i < n; i++) {
		json_t *f = json_pack("{s:i}", "i", i);
		assert_int_equal(audit_append(log, "job_accepted", f, NULL), 0);
		json_decref(f);
	}
	assert_int_equal(audit_checkpoint_now(log), 0);
	audit_close(log);
	return logdir;
}

static void test_log_files_match_the_library(void **state)
{
	_cleanup_free_ char *logdir = write_log(*state, 5);
	struct view_log *vl = view_log_new(logdir, NULL);
	_cleanup_free_ char *pub = view_log_pubkey_path(vl);
	_cleanup_free_ char *pub_expect = xasprintf("%s/pubkey", logdir);
	assert_string_equal(pub, pub_expect);

	uint64_t first = 9, count = 0;
	char *err = NULL, *text = NULL;
	size_t len = 0;
	assert_int_equal(view_log_range(vl, true, &first, &count, &err), 0);
	assert_true(first == 0 && count == 6); /* 5 and the checkpoint's record */

	/* verify: the library's own line, plus a newline. */
	struct audit_verify_report rep = { 0 };
	assert_int_equal(audit_verify_log(logdir, pub, &rep), 0);
	assert_true(rep.ok);
	_cleanup_free_ char *line = audit_verify_report_line(&rep);
	_cleanup_free_ char *expect = xasprintf("%s\n", line);
	view_log_verify(vl, false, &text, &len);
	assert_string_equal(text, expect);
	assert_int_equal(len, strlen(expect));
	assert_true(strncmp(text, "OK n=6 head=", 12) == 0);
	free(text);

	/* head: the report's head hash. */
	assert_int_equal(view_log_head(vl, &text, &len, &err), 0);
	assert_int_equal(len, 65);
	assert_memory_equal(text, rep.head_hex, 64);
	assert_int_equal(text[64], '\n');
	free(text);
	audit_verify_report_clear(&rep);

	/* verify.json parses and says the same. */
	view_log_verify(vl, true, &text, &len);
	json_t *j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(j, "entries")), 6);
	json_decref(j);
	free(text);

	/* entries: canonical JSON of each record, with its own seq. */
	for (uint64_t i = 0; i < 6; i++) {
		assert_int_equal(view_log_entry(vl, i, &text, &len, &err), 0);
		assert_int_equal(text[len - 1], '\n');
		json_t *rec = json_loads(text, 0, NULL);
		assert_non_null(rec);
		assert_int_equal(json_integer_value(json_object_get(rec, "seq")), (json_int_t)i);
		assert_string_equal(json_string_value(json_object_get(rec, "type")), i < 5 ? "job_accepted" : "checkpoint");
		json_decref(rec);
		free(text);
	}
	assert_int_equal(view_log_entry(vl, 6, &text, &len, &err), -ENOENT);

	/* checkpoint: a signed note for tree size 6 (the one recorded at seq 5,
	 * then one more at close that covers that record). */
	assert_int_equal(view_log_checkpoint(vl, &text, &len, &err), 0);
	assert_true(strncmp(text, "mai-test/view\n6\n", 16) == 0);
	assert_non_null(strstr(text, "\n\xe2\x80\x94 mai-test/view "));
	free(text);
	view_log_free(vl);
}

static void test_new_records_are_seen(void **state)
{
	_cleanup_free_ char *logdir = write_log(*state, 2);
	struct view_log *vl = view_log_new(logdir, NULL);
	uint64_t first, count;
	char *err = NULL, *text = NULL;
	size_t len;
	assert_int_equal(view_log_range(vl, false, &first, &count, &err), 0);
	assert_int_equal(count, 3);
	free(write_log(*state, 3)); /* appends 3 with the same key */
	/* An entry past the end as last seen makes the view look again. */
	assert_int_equal(view_log_entry(vl, 4, &text, &len, &err), 0);
	free(text);
	assert_int_equal(view_log_range(vl, false, &first, &count, &err), 0);
	assert_int_equal(count, 7);
	view_log_free(vl);
}

/* A damaged record (a line too short to be one, appended by someone) is an
 * error that names it, not an empty entry. */
static void test_damaged_record_is_an_error(void **state)
{
	_cleanup_free_ char *logdir = write_log(*state, 2);
	_cleanup_free_ char *seg = xasprintf("%s/seg-000000000000.log", logdir);
	FILE *f = fopen(seg, "a");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
	struct view_log *vl = view_log_new(logdir, NULL);
	char *err = NULL, *text = NULL;
	size_t len;
	assert_int_equal(view_log_entry(vl, 3, &text, &len, &err), -EIO);
	assert_null(text);
	_cleanup_free_ char *want = xasprintf("cannot read record 3 of the audit log in %s: ", logdir);
	if (!err || strncmp(err, want, strlen(want)) != 0)
		fail_msg("the error: %s", err ? err : "(none)");
	free(err);
	view_log_free(vl);
}

static void test_no_log(void **state)
{
	_cleanup_free_ char *logdir = xasprintf("%s/none", (const char *)*state);
	struct view_log *vl = view_log_new(logdir, NULL);
	char *err = NULL, *text = NULL;
	size_t len;
	uint64_t first, count;
	assert_true(view_log_range(vl, true, &first, &count, &err) < 0);
	assert_non_null(err);
	_cleanup_free_ char *prefix = xasprintf("cannot open the audit log in %s", logdir);
	assert_true(strncmp(err, prefix, strlen(prefix)) == 0);
	free(err);
	err = NULL;
	assert_true(view_log_head(vl, &text, &len, &err) < 0);
	free(err);
	view_log_verify(vl, false, &text, &len);
	assert_true(strncmp(text, "FAIL ", 5) == 0);
	assert_non_null(strstr(text, logdir));
	assert_int_equal(text[len - 1], '\n');
	free(text);
	view_log_verify(vl, true, &text, &len);
	json_t *j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(j, "ok")));
	json_decref(j);
	free(text);
	view_log_free(vl);
}

/* A log whose public key is not there: the verdict names the key that
 * cannot be read, as a line and as JSON. */
static void test_missing_key(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *key = xasprintf("%s/no.pub", dir);
	struct view_log *vl = view_log_new(dir, key);
	char *text = NULL;
	size_t len;
	view_log_verify(vl, false, &text, &len);
	_cleanup_free_ char *want = xasprintf("FAIL seq=0: %s: cannot read key: No such file or directory\n",
					      key);
	assert_string_equal(text, want);
	free(text);
	view_log_verify(vl, true, &text, &len);
	json_t *j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_non_null(strstr(json_string_value(json_object_get(j, "reason")), "cannot read key"));
	json_decref(j);
	free(text);
	view_log_free(vl);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_log_files_match_the_library),
		T(test_new_records_are_seen),
		T(test_damaged_record_is_an_error),
		T(test_no_log),
		T(test_missing_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
