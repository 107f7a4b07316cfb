/* daemon_inflight: the notes of runs in flight when the state directory's
 * disk fails under them. Whatever fails, a run is either noted before it
 * starts (in the thread's slot, or in a note of its own) or refused, and a
 * note that could not be cleared is recorded as interrupted at the next
 * start. Failures a real disk gives on demand are made for real (a state
 * directory under a file, a notes directory that is a file); the rest
 * (EIO from a write or a sync, a removal refused) through fault.h. Each
 * case runs on a thread of its own: a thread keeps its slot until it
 * ends. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon_inflight.h"
#include "fault.h"
#include "fileio.h"
#include "macro.h"
#include "testdir.h"

#define SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void on_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* The records the stand-in log took, or refuses with fail. */
struct log {
	json_t *records;
	int fail;
};

static int stand_in_audit(void *arg, enum audit_event e, json_t *fields, uint64_t *seq)
{
	struct log *l = arg;
	(void)e;
	if (l->fail)
		return l->fail;
	json_array_append(l->records, fields);
	*seq = json_array_size(l->records);
	return 0;
}

/* Recovers state's notes into a fresh stand-in log: how many records,
 * the verdict of the first in *verdict (static). */
static int recover(const char *state, const char **verdict)
{
	static char first[64];
	struct log l = { .records = json_array() };
	struct daemon_stages st = { .audit = stand_in_audit, .ctx = &l };
	char *err = NULL;
	int n = daemon_inflight_recover(state, &st, &err);
	if (n < 0)
		fail_msg("recover: %s", err);
	snprintf(first, sizeof(first), "%s",
		 n > 0 ? json_string_value(json_object_get(json_array_get(l.records, 0), "verdict")) : "");
	*verdict = first;
	json_decref(l.records);
	return n;
}

/* The note files in state/running: slots and notes of their own. */
static void count_notes(const char *state, unsigned *slots, unsigned *own)
{
	_cleanup_free_ char *dir = xasprintf("%s/" DAEMON_INFLIGHT_DIR, state);
	DIR *d = opendir(dir);
	struct dirent *de;
	*slots = *own = 0;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "slot-", 5) == 0)
			(*slots)++;
		else if (strstr(de->d_name, ".json"))
			(*own)++;
	}
	if (d)
		closedir(d);
}

struct run {
	const char *state, *call, *match;
	unsigned nth;
	int err;
};

/* Begins job 7 with the run's fault armed; the run is noted either way. */
static void *begin_with_fault(void *p)
{
	struct run *r = p;
	char *err = NULL;
	fault_arm(r->call, r->match, r->nth, 1, r->err);
	assert_int_equal(daemon_inflight_begin(r->state, 7, "x.py", SHA, &err), 0);
	assert_int_equal(fault_hits(r->call), 1);
	fault_clear();
	return NULL;
}

/* The slot that cannot be made, written or synced at a run's begin: the run
 * is noted in a file of its own instead, and no slot is left behind; the
 * next start records it as interrupted. */
static void test_slot_failures_fall_back_to_a_note(void **state)
{
	const char *dir = *state;
	const struct run runs[] = {
		{ NULL, "open64", "/slot-", 1, EIO },
		{ NULL, "pwrite64", "/slot-", 1, EIO },  /* the new slot's first write */
		{ NULL, "fsync", "/slot-", 1, EIO },     /* the new slot's sync */
		{ NULL, "pwrite64", "/slot-", 2, EIO },  /* the run's note in the slot */
		{ NULL, "fdatasync", "/slot-", 1, EIO }, /* its sync */
	};
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		_cleanup_free_ char *st = xasprintf("%s/s%zu", dir, i);
		struct run r = runs[i];
		r.state = st;
		on_thread(begin_with_fault, &r);
		unsigned slots, own;
		count_notes(st, &slots, &own);
		print_message("%s #%u\n", r.call, r.nth);
		assert_int_equal(own, 1);
		/* A slot kept (closed, not used again) only after its first
		 * write: it is idle, "{}". */
		const char *verdict;
		assert_int_equal(recover(st, &verdict), 1);
		assert_string_equal(verdict, "interrupted");
		count_notes(st, &slots, &own);
		assert_int_equal(slots + own, 0);
	}
}

struct cycle {
	const char *state;
	const char *call, *match;
	unsigned nth;
};

/* A run begun and ended in the slot, with the fault armed for its end. */
static void *begin_end_with_fault(void *p)
{
	struct cycle *c = p;
	char *err = NULL;
	assert_int_equal(daemon_inflight_begin(c->state, 9, "y.py", SHA, &err), 0);
	fault_arm(c->call, c->match, c->nth, 1, EIO);
	daemon_inflight_end(c->state, 9);
	daemon_inflight_sync(c->state);
	assert_int_equal(fault_hits(c->call), 1);
	fault_clear();
	return NULL;
}

/* The end of a run that cannot be written in its slot: the slot keeps the
 * run, which the next start records as interrupted (the warning says so);
 * the end written but not synced changes nothing the next start sees. */
static void test_slot_end_failures(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *a = xasprintf("%s/a", dir), *b = xasprintf("%s/b", dir);
	const char *verdict;

	struct cycle unwritten = { a, "pwrite64", "/slot-", 1 };
	on_thread(begin_end_with_fault, &unwritten);
	assert_int_equal(recover(a, &verdict), 1);
	assert_string_equal(verdict, "interrupted");

	struct cycle unsynced = { b, "fdatasync", "/slot-", 1 };
	on_thread(begin_end_with_fault, &unsynced);
	unsigned slots, own;
	count_notes(b, &slots, &own);
	assert_int_equal(own, 0);
	assert_int_equal(recover(b, &verdict), 0);
}

/* A second state directory on the same thread (a test's daemons, one
 * after another): its runs get notes of their own there. A note of its own
 * whose removal fails stays and is recorded at the next start; the
 * directory's sync failing only warns. */
static void *two_state_dirs(void *p)
{
	const char *dir = p;
	_cleanup_free_ char *a = xasprintf("%s/a", dir), *b = xasprintf("%s/b", dir);
	char *err = NULL;
	unsigned slots, own;

	assert_int_equal(daemon_inflight_begin(a, 1, "x.py", SHA, &err), 0);
	daemon_inflight_end(a, 1);
	assert_int_equal(daemon_inflight_begin(b, 2, "x.py", SHA, &err), 0);
	count_notes(b, &slots, &own);
	assert_int_equal(slots, 0);
	assert_int_equal(own, 1);
	fault_arm("unlink", "/running/", 1, 1, EIO);
	daemon_inflight_end(b, 2);
	assert_int_equal(fault_hits("unlink"), 1);
	fault_clear();
	count_notes(b, &slots, &own);
	assert_int_equal(own, 1);

	assert_int_equal(daemon_inflight_begin(b, 3, "z.py", SHA, &err), 0);
	daemon_inflight_end(b, 3);
	fault_arm("fsync", "/running$", 1, 1, EIO);
	daemon_inflight_sync(b);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	return NULL;
}

static void test_second_state_dir_and_removal_failures(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *b = xasprintf("%s/b", dir);
	const char *verdict;
	on_thread(two_state_dirs, (void *)dir);
	assert_int_equal(recover(b, &verdict), 1); /* job 2, whose note stayed */
	assert_string_equal(verdict, "interrupted");
}

/* A run's record kept in its note while the log refuses it: without a
 * note there is nothing to keep it in (nothing happens), and a note that
 * cannot be written (fault.h: EIO) only warns (the slot still holds the
 * run: the next start records it as interrupted). */
static void *pending_failures(void *p)
{
	const char *st = p;
	char *err = NULL;
	json_t *f = json_pack("{s:s}", "verdict", "exited");
	daemon_inflight_pending(st, 99, f); /* no such run */
	assert_int_equal(daemon_inflight_begin(st, 5, "x.py", SHA, &err), 0);
	fault_arm("open64", ".json.tmp.", 1, 1, EIO);
	daemon_inflight_pending(st, 5, f);
	assert_int_equal(fault_hits("open64"), 1);
	fault_clear();
	json_decref(f);
	return NULL;
}

/* A state directory where nothing can be made (under a file, for real):
 * the run is refused, and the message says where and what to check. */
static void *unmakeable(void *p)
{
	const char *dir = p;
	_cleanup_free_ char *st = xasprintf("%s/file/state", dir);
	char *err = NULL;
	testdir_put(dir, "file", "x");
	assert_int_equal(daemon_inflight_begin(st, 6, "x.py", SHA, &err), -ENOTDIR);
	assert_non_null(strstr(err, "/file/state/running: Not a directory; nothing runs without it "
				    "(check the disk of agent.state_dir)"));
	free(err);
	return NULL;
}

static void test_pending_failures(void **state)
{
	const char *dir = *state;
	const char *verdict;
	on_thread(unmakeable, (void *)dir);
	on_thread(pending_failures, (void *)dir);
	unsigned slots, own;
	count_notes(dir, &slots, &own);
	assert_int_equal(own, 0);
	assert_int_equal(recover(dir, &verdict), 1);
	assert_string_equal(verdict, "interrupted");
}

/* At start: a log that refuses the record of a run left in flight stops
 * the start and keeps the note; notes that cannot be read (their
 * directory a file, for real) stop it too; notes and slots whose removal
 * fails (fault.h: EIO) and a directory sync that fails only warn. */
static void test_recover_failures(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *running = xasprintf("%s/" DAEMON_INFLIGHT_DIR, dir);
	char *err = NULL;

	assert_int_equal(daemon_inflight_begin(dir, 4, "w.py", SHA, &err), 0);
	struct log l = { .records = json_array(), .fail = -ENOSPC };
	struct daemon_stages st = { .audit = stand_in_audit, .ctx = &l };
	assert_int_equal(daemon_inflight_recover(dir, &st, &err), -ENOSPC);
	assert_non_null(strstr(err, "cannot record the run of w.py that the last agent left in flight"));
	assert_non_null(strstr(err, "No space left on device; nothing runs until it is recorded"));
	free(err);

	/* The same note, and an idle slot: removals and the sync refused. */
	testdir_put(running, "slot-1.json", "{}");
	testdir_put(running, "slot-2.json", "{\"job\":");
	l.fail = 0;
	fault_arm("unlink", "/running/", 1, 0, EIO);
	fault_arm("fsync", "/running$", 1, 1, EIO);
	assert_int_equal(daemon_inflight_recover(dir, &st, &err), 1);
	assert_int_equal(fault_hits("unlink"), 3);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	json_decref(l.records);

	assert_int_equal(testdir_remove_tree(running), 0);
	testdir_put(dir, DAEMON_INFLIGHT_DIR, "a file");
	assert_int_equal(daemon_inflight_recover(dir, &st, &err), -ENOTDIR);
	assert_non_null(strstr(err, "/running, the notes of runs in flight: Not a directory"));
	free(err);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_slot_failures_fall_back_to_a_note),
		T(test_slot_end_failures),
		T(test_second_state_dir_and_removal_failures),
		T(test_pending_failures),
		T(test_recover_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
