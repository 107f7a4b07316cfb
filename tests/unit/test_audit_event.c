/* The script history that produces the script_diff audit record. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <time.h>

#include "audit_event.h"
#include "audit_format.h"
#include "hash.h"
#include "macro.h"
#include "testdir.h"
#include "utf8.h"

/* Compares and, as the daemon does once the records are durable, keeps the
 * version. */
static enum audit_script_history drop(const char *dir, const char *name, const char *text, size_t cap,
				      json_t **f)
{
	enum audit_script_history h;
	_cleanup_free_ char *err = NULL, *err2 = NULL;
	assert_int_equal(audit_script_compare(dir, name, text, strlen(text), cap, &h, f, &err), 0);
	assert_int_equal(audit_script_remember(dir, name, text, strlen(text), &err2), 0);
	return h;
}

static void test_script_history(void **state)
{
	const char *dir = *state;
	json_t *f = NULL;
	const char *v1 = "import os\nprint(1)\n", *v2 = "import os\nprint(2)\n";
	assert_int_equal(drop(dir, "drop/foo.py", v1, 4096, &f), AUDIT_SCRIPT_NEW);
	assert_null(f); /* first time: nothing to compare with */
	assert_int_equal(drop(dir, "drop/foo.py", v1, 4096, &f), AUDIT_SCRIPT_UNCHANGED);
	assert_null(f);
	assert_int_equal(drop(dir, "drop/foo.py", v2, 4096, &f), AUDIT_SCRIPT_CHANGED);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "diff")),
			    "--- a/drop/foo.py\n+++ b/drop/foo.py\n@@ -1,2 +1,2 @@\n import os\n-print(1)\n+print(2)\n");
	char sha1[65], sha2[65];
	hash_sha256_hex(v1, strlen(v1), sha1);
	hash_sha256_hex(v2, strlen(v2), sha2);
	assert_string_equal(json_string_value(json_object_get(f, "previous_sha256")), sha1);
	assert_string_equal(json_string_value(json_object_get(f, "sha256")), sha2);
	assert_false(json_is_true(json_object_get(f, "truncated")));
	assert_int_equal(json_integer_value(json_object_get(f, "lines_added")), 1);
	json_decref(f);

	/* The cap applies: a long rewrite is cut and flagged. */
	char big[4096];
	memset(big, 'x', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(drop(dir, "drop/foo.py", big, 200, &f), AUDIT_SCRIPT_CHANGED);
	assert_true(json_is_true(json_object_get(f, "truncated")));
	assert_true(strlen(json_string_value(json_object_get(f, "diff"))) <= 200);
	json_decref(f);

	/* Another name is another history. */
	assert_int_equal(drop(dir, "drop/bar.py", v2, 4096, &f), AUDIT_SCRIPT_NEW);
	assert_null(f);

	/* A version that is not UTF-8: no diff, but both hashes, and why. */
	const char *latin1 = "print('caf\xe9')\n";
	assert_int_equal(drop(dir, "drop/bar.py", latin1, 4096, &f), AUDIT_SCRIPT_CHANGED);
	assert_non_null(f);
	hash_sha256_hex(latin1, strlen(latin1), sha1);
	assert_string_equal(json_string_value(json_object_get(f, "previous_sha256")), sha2);
	assert_string_equal(json_string_value(json_object_get(f, "sha256")), sha1);
	assert_string_equal(json_string_value(json_object_get(f, "diff")), "");
	assert_string_equal(json_string_value(json_object_get(f, "omitted")), "the script is not UTF-8 text");
	json_decref(f);
}

/* A job whose records could not be written is retried: until its version is
 * kept, the retry still diffs against the same previous version. */
static void test_compare_keeps_nothing(void **state)
{
	const char *dir = *state;
	json_t *f = NULL;
	enum audit_script_history h;
	_cleanup_free_ char *err = NULL;
	const char *v1 = "a = 1\n", *v2 = "a = 2\n";
	assert_int_equal(drop(dir, "x.py", v1, 4096, &f), AUDIT_SCRIPT_NEW);
	for (int attempt = 0; attempt < 2; attempt++) {
		assert_int_equal(audit_script_compare(dir, "x.py", v2, strlen(v2), 4096, &h, &f, &err), 0);
		assert_int_equal(h, AUDIT_SCRIPT_CHANGED);
		assert_non_null(strstr(json_string_value(json_object_get(f, "diff")), "-a = 1\n+a = 2\n"));
		json_decref(f);
	}
}

/* The fields each type must carry; override needs a real explanation. */
/* What a held script changed since the version of its name that ran last:
 * nothing before anything ran, then the diff against that version, not
 * against the latest one seen (which may itself have been held). */
static void test_since_last_run(void **state)
{
	const char *dir = *state;
	const char *v1 = "print(1)\n", *v2 = "print(2)\n", *v3 = "import os\nos.system('x')\n";
	char *err = NULL;
	json_t *f = NULL;
	char h1[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(v1, strlen(v1), h1);

	assert_int_equal(audit_script_since_ran(dir, "x.py", v2, strlen(v2), 4096, &f, &err), 0);
	assert_null(f);
	assert_null(err);
	assert_int_equal(audit_script_remember(dir, "x.py", v1, strlen(v1), &err), 0);
	assert_int_equal(audit_script_mark_ran(dir, "x.py", h1, &err), 0);
	assert_int_equal(audit_script_remember(dir, "x.py", v2, strlen(v2), &err), 0); /* held */
	assert_int_equal(audit_script_since_ran(dir, "x.py", v3, strlen(v3), 4096, &f, &err), 0);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "previous_sha256")), h1);
	const char *diff = json_string_value(json_object_get(f, "diff"));
	assert_non_null(strstr(diff, "-print(1)"));
	assert_non_null(strstr(diff, "+os.system('x')"));
	json_decref(f);
	/* Another name has its own history. */
	assert_int_equal(audit_script_since_ran(dir, "y.py", v3, strlen(v3), 4096, &f, &err), 0);
	assert_null(f);
	assert_int_equal(audit_script_mark_ran(dir, "x.py", "not-a-hash", &err), -EINVAL);
	free(err);
}

static void test_event_check(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	json_t *f = json_pack("{s:s, s:s}", "file", "a.py", "sha256", "00");
	assert_int_equal(audit_event_check(AUDIT_EVENT_JOB_ACCEPTED, f, &err), -EINVAL);
	assert_non_null(strstr(err, "\"history\""));
	json_object_set_new(f, "history", json_string("new"));
	json_object_set_new(f, "uid", json_integer(1000));
	free(err);
	err = NULL;
	assert_int_equal(audit_event_check(AUDIT_EVENT_JOB_ACCEPTED, f, &err), -EINVAL);
	assert_non_null(strstr(err, "\"writer\""));
	/* The writer must say who and how it is known. */
	json_object_set_new(f, "writer", json_pack("{s:i, s:s}", "uid", 1000, "from", "request"));
	free(err);
	err = NULL;
	assert_int_equal(audit_event_check(AUDIT_EVENT_JOB_ACCEPTED, f, &err), -EINVAL);
	assert_non_null(strstr(err, "writer {uid, gid"));
	json_object_set_new(json_object_get(f, "writer"), "gid", json_integer(1000));
	free(err);
	err = NULL;
	assert_int_equal(audit_event_check(AUDIT_EVENT_JOB_ACCEPTED, f, &err), 0);
	json_decref(f);
	free(err);
	err = NULL;
	f = json_pack("{s:I, s:s, s:i}", "job", (json_int_t)3, "explanation", "", "uid", 1000);
	assert_int_equal(audit_event_check(AUDIT_EVENT_OVERRIDE, f, &err), -EINVAL);
	assert_non_null(strstr(err, "\"file\""));
	json_decref(f);
	free(err);
	err = NULL;

	/* A rename by someone else: who renamed, from where, and the author
	 * of the bytes, each as the record's reader needs it. */
	assert_string_equal(audit_event_to_string(AUDIT_EVENT_RENAMED), "renamed");
	f = json_pack("{s:s, s:s, s:i}", "file", "hs.py", "from", "draft.py", "uid", 1002);
	assert_int_equal(audit_event_check(AUDIT_EVENT_RENAMED, f, &err), -EINVAL);
	assert_non_null(strstr(err, "\"renamed_by\""));
	json_object_set_new(f, "renamed_by", json_pack("{s:i, s:i, s:s}", "uid", 1002, "gid", 1002,
						       "from", "request"));
	json_object_set_new(f, "author", json_string("1001"));
	free(err);
	err = NULL;
	assert_int_equal(audit_event_check(AUDIT_EVENT_RENAMED, f, &err), -EINVAL);
	assert_non_null(strstr(err, "author {uid}"));
	json_object_set_new(f, "author", json_pack("{s:i, s:i}", "uid", 1001, "gid", 1001));
	free(err);
	err = NULL;
	assert_int_equal(audit_event_check(AUDIT_EVENT_RENAMED, f, &err), 0);
	json_decref(f);
}

/* Fields too large for one record are cut: a string to a prefix of whole
 * UTF-8 characters, an array (also one inside an array) to its first
 * items; when nothing can be cut, only the fields the type needs stay. */
static void test_event_fit(void **state)
{
	(void)state;
	/* "a" then 3000 two-byte characters: most cut points fall inside one. */
	char text[1 + 6000 + 1] = "a";
	for (size_t i = 0; i < 3000; i++)
		memcpy(text + 1 + 2 * i, "\xc3\xa9", 2);
	text[6001] = '\0';
	json_t *f = json_pack("{s:s, s:s, s:s}", "file", "a.py", "reason", "too_large", "text", text);
	for (size_t max = 4096 + 1500; max < 4096 + 6000; max += 97) {
		json_t *fit = audit_event_fit(AUDIT_EVENT_INTAKE_REJECTED, f, max);
		const char *kept = json_string_value(json_object_get(fit, "text"));
		size_t n = strlen(kept);
		assert_true(n < strlen(text) && utf8_is_valid(kept, n) && strncmp(kept, text, n) == 0);
		json_t *cut = json_object_get(json_object_get(fit, "cut"), "text");
		assert_int_equal(json_integer_value(json_object_get(cut, "bytes")), 6001);
		assert_int_equal(json_integer_value(json_object_get(cut, "kept")), n);
		json_decref(fit);
	}
	json_decref(f);

	json_t *rows = json_array();
	for (int i = 0; i < 3000; i++)
		json_array_append_new(rows, json_integer(i));
	f = json_pack("{s:s, s:s, s:[o]}", "file", "a.py", "reason", "too_large", "rows", rows);
	json_t *fit = audit_event_fit(AUDIT_EVENT_INTAKE_REJECTED, f, 4096 + 4000);
	json_t *inner = json_array_get(json_object_get(fit, "rows"), 0);
	assert_true(json_array_size(inner) > 0 && json_array_size(inner) < 3000);
	assert_int_equal(json_integer_value(json_array_get(inner, 1)), 1);
	json_t *cut = json_object_get(json_object_get(fit, "cut"), "rows.0");
	assert_int_equal(json_integer_value(json_object_get(cut, "items")), 3000);
	assert_int_equal(json_integer_value(json_object_get(cut, "kept")), json_array_size(inner));
	json_decref(fit);
	json_decref(f);

	/* Many small fields: nothing to cut. */
	f = json_pack("{s:s, s:s}", "file", "a.py", "reason", "too_large");
	for (int i = 0; i < 500; i++) {
		char key[16];
		snprintf(key, sizeof(key), "k%d", i);
		json_object_set_new(f, key, json_string("a small value"));
	}
	fit = audit_event_fit(AUDIT_EVENT_INTAKE_REJECTED, f, 4096 + 1000);
	assert_string_equal(json_string_value(json_object_get(fit, "file")), "a.py");
	assert_string_equal(json_string_value(json_object_get(fit, "reason")), "too_large");
	assert_null(json_object_get(fit, "k0"));
	assert_non_null(strstr(json_string_value(json_object_get(fit, "cut")), "only those its type needs"));
	assert_int_equal(json_object_size(fit), 4); /* file, reason, cut, record_max */
	json_decref(fit);
	json_decref(f);
}

/* approval and override are records of their own: who answered, what they
 * wrote and what became of the answer file. An empty override is recorded
 * as refused; accepted, it would be a run nobody explained. */
/* The records' "time": UTC now, "YYYY-MM-DDTHH:MM:SS.ffffffZ", which a
 * reader of the log (maiaudit, jq, the schemas) parses as RFC 3339. */
static void test_time_format(void **state)
{
	char now[64], rest[16];
	struct tm tm = { 0 };
	time_t before = time(NULL), t;
	unsigned micro;

	audit_format_now(now);
	assert_int_equal(strlen(now), 27);
	assert_int_equal(sscanf(now, "%4d-%2d-%2dT%2d:%2d:%2d.%6u%15s", &tm.tm_year, &tm.tm_mon,
				&tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &micro, rest), 8);
	assert_string_equal(rest, "Z");
	assert_true(micro < 1000000);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	assert_true(t >= before && t <= time(NULL));
}

static void test_answer_records(void **state)
{
	(void)state;
	static const enum audit_event kinds[] = { AUDIT_EVENT_APPROVAL, AUDIT_EVENT_OVERRIDE };
	static const char *const fields[] = { "job", "file", "sha256", "uid", "explanation", "accepted",
					      "consumed" };
	assert_string_equal(audit_event_to_string(AUDIT_EVENT_APPROVAL), "approval");
	assert_string_equal(audit_event_to_string(AUDIT_EVENT_OVERRIDE), "override");
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			_cleanup_free_ char *err = NULL;
			json_t *f = json_pack("{s:I, s:s, s:s, s:i, s:s, s:b, s:s}", "job", (json_int_t)3,
					      "file", "a.py", "sha256", "00", "uid", 1000, "explanation",
					      "reviewed", "accepted", 1, "consumed", "removed");
			assert_int_equal(audit_event_check(kinds[k], f, &err), 0);
			json_object_del(f, fields[i]);
			assert_int_equal(audit_event_check(kinds[k], f, &err), -EINVAL);
			_cleanup_free_ char *want = xasprintf("\"%s\"", fields[i]);
			assert_non_null(strstr(err, want));
			json_decref(f);
		}
	}
	_cleanup_free_ char *err = NULL;
	json_t *f = json_pack("{s:I, s:s, s:s, s:n, s:s, s:b, s:s}", "job", (json_int_t)3, "file", "a.py",
			      "sha256", "00", "uid", "explanation", "", "accepted", 0, "consumed",
			      "refused: empty");
	assert_int_equal(audit_event_check(AUDIT_EVENT_OVERRIDE, f, &err), 0);
	assert_int_equal(audit_event_check(AUDIT_EVENT_APPROVAL, f, &err), 0);
	json_object_set_new(f, "accepted", json_true());
	assert_int_equal(audit_event_check(AUDIT_EVENT_APPROVAL, f, &err), 0); /* a bare approval */
	assert_int_equal(audit_event_check(AUDIT_EVENT_OVERRIDE, f, &err), -EINVAL);
	assert_non_null(strstr(err, "non-empty explanation"));
	free(err);
	err = NULL;
	json_object_set_new(f, "accepted", json_string("yes"));
	assert_int_equal(audit_event_check(AUDIT_EVENT_APPROVAL, f, &err), -EINVAL);
	assert_non_null(strstr(err, "boolean"));
	json_decref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_script_history, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_compare_keeps_nothing, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_since_last_run, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_event_check),
		cmocka_unit_test(test_event_fit),
		cmocka_unit_test(test_answer_records),
		cmocka_unit_test(test_time_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
