/* The writer's checkpoints on a live log (audit_checkpoint.c): the status a
 * verifier sees around one, a sidecar's checkpoint signed at once and
 * written by the checkpoint thread afterwards, and the interval's own time
 * between the thread's wake-ups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "audit.h"
#include "audit_fixture.h"
#include "audit_verify.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

/* The checkpoint status of a live log: "ok" right after a checkpoint, and
 * still once its own record, queued by audit_checkpoint_now(), is written
 * (the one record it cannot cover); "stale" once records came after that
 * (still intact: the next checkpoint will cover them). */
static void test_checkpoint_status_while_open(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.checkpoint_interval_s = 3600; /* only the explicit checkpoint below */
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	struct audit_verify_report rep;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 5);
	assert_int_equal(audit_checkpoint_now(log), 0);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 5); /* the checkpoint's record is queued */
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	audit_verify_report_clear(&rep);
	assert_int_equal(audit_flush(log), 0);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 6); /* 5 and the checkpoint's record */
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	audit_verify_report_clear(&rep);

	fixture_append(log, 2);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 8);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_STALE);
	audit_verify_report_clear(&rep);
	audit_close(log);
}

/* Waits (5 s at most) until path holds text. */
static bool file_becomes(const char *path, const char *text)
{
	for (int i = 0; i < 5000; i++) {
		_cleanup_free_ char *now = NULL;
		size_t len = 0;
		if (fileio_read_path(path, 1 << 16, &now, &len) == 0 && len == strlen(text) &&
		    memcmp(now, text, len) == 0)
			return true;
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
	}
	return false;
}

/* A sidecar's checkpoint (audit_checkpoint_sign): signed over what is
 * durable, handed back at once, and written beside the log by the
 * checkpoint thread once woken (audit_checkpoint_write_soon), with its
 * record; the log then verifies
 * with that checkpoint as its own. A later one replaces it; without a
 * checkpoint thread (interval 0) it is written before the call returns. */
static void test_checkpoint_signed_for_a_sidecar(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.checkpoint_interval_s = 3600; /* the thread runs; its timer does not fire */
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	_cleanup_free_ char *ck = xasprintf("%s/checkpoint", o.log_dir);
	struct audit_verify_report rep;
	uint64_t size = 0;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 5);
	_cleanup_free_ char *note = NULL;
	assert_int_equal(audit_checkpoint_sign(log, &note, &size), 0);
	assert_int_equal(size, 5);
	assert_true(strncmp(note, "mai.test/audit\n5\n", 17) == 0);
	audit_checkpoint_write_soon(log);
	assert_true(file_becomes(ck, note));
	assert_int_equal(audit_flush(log), 0);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.entries, 6); /* and the checkpoint's record */
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	assert_int_equal(rep.checkpoint_size, 5);
	audit_verify_report_clear(&rep);

	fixture_append(log, 3);
	_cleanup_free_ char *later = NULL;
	assert_int_equal(audit_checkpoint_sign(log, &later, &size), 0);
	assert_int_equal(size, 9);
	audit_checkpoint_write_soon(log);
	assert_true(file_becomes(ck, later));
	audit_close(log);
	assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
	assert_true(rep.ok);
	assert_int_equal(rep.checkpoint, AUDIT_CKPT_OK);
	audit_verify_report_clear(&rep);

	/* No checkpoint thread: written before the call returns. */
	o.checkpoint_interval_s = 0;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 1);
	_cleanup_free_ char *now = NULL, *file = NULL;
	size_t len = 0;
	assert_int_equal(audit_checkpoint_sign(log, &now, &size), 0);
	assert_int_equal(fileio_read_path(ck, 1 << 16, &file, &len), 0);
	assert_string_equal(file, now);
	audit_close(log);
}

/* The interval's checkpoint comes on time while sidecars' wake-ups keep
 * coming more often than the interval: a record no sidecar cites (an
 * approval, a reload) is covered by the file within about the interval. */
static void test_interval_checkpoint_between_wakeups(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	o.checkpoint_interval_s = 1;
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *pub = xasprintf("%s/k.pub", dir);
	struct audit_verify_report rep;

	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	bool covered = false;
	for (int i = 0; i < 40 && !covered; i++) { /* 8 s at most */
		audit_checkpoint_write_soon(log);
		struct timespec t = { 0, 200 * 1000000L };
		nanosleep(&t, NULL);
		assert_int_equal(audit_verify_log(o.log_dir, pub, &rep), 0);
		covered = rep.checkpoint_size >= 3;
		audit_verify_report_clear(&rep);
	}
	assert_true(covered);
	audit_close(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_checkpoint_status_while_open, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_signed_for_a_sidecar, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_interval_checkpoint_between_wakeups, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
