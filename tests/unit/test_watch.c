/* Real inotify in a temporary directory: editor save styles, hard links,
 * overflow, a drop directory removed and re-created, recursion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "fileio.h"
#include "testdir.h"
#include "watch.h"

#define SETTLE_MS 60

struct seen {
	char *names[64];
	enum names_kind kinds[64];
	size_t n;
};

struct ctx {
	char *root; /* the test's temp dir */
	char *drop; /* root/drop */
	struct seen seen;
	struct watch *w;
};

static void on_name(void *arg, const char *rel, enum names_kind kind)
{
	struct seen *s = arg;
	assert_true(s->n < ARRAY_SIZE(s->names));
	s->kinds[s->n] = kind;
	s->names[s->n++] = xstrdup(rel);
}

static void seen_clear(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	s->n = 0;
}

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs the watcher until nothing is pending and settle time has passed
 * several times over without input. */
static void pump(struct ctx *c, unsigned ms)
{
	uint64_t end = ms_now() + ms;
	while (ms_now() < end || watch_pending(c->w) > 0)
		assert_int_equal(watch_poll(c->w, 20), 0);
}

static int setup(void **state)
{
	if (testdir_setup(state) < 0)
		return -1;
	struct ctx *c = xcalloc(1, sizeof(*c));
	c->root = *state;
	c->drop = xasprintf("%s/drop", c->root);
	if (mkdir(c->drop, 0755) < 0)
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	watch_free(c->w);
	seen_clear(&c->seen);
	free(c->drop);
	*state = c->root;
	free(c);
	return testdir_teardown(state);
}

static void start_settle(struct ctx *c, bool recursive, unsigned settle_ms)
{
	struct watch_options o = { .dir = c->drop, .recursive = recursive, .settle_ms = settle_ms };
	char *err = NULL;
	assert_int_equal(watch_new(&o, on_name, &c->seen, &c->w, &err), 0);
	assert_null(err);
}

static void start(struct ctx *c, bool recursive)
{
	start_settle(c, recursive, SETTLE_MS);
}

static char *path_in(struct ctx *c, const char *name)
{
	return xasprintf("%s/%s", c->drop, name);
}

static void write_in_place(struct ctx *c, const char *name, const char *text)
{
	_cleanup_free_ char *p = path_in(c, name);
	_cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, text, strlen(text)), 0);
}

static void assert_seen_once(struct ctx *c, const char *rel)
{
	size_t hits = 0;
	for (size_t i = 0; i < c->seen.n; i++)
		if (strcmp(c->seen.names[i], rel) == 0)
			hits++;
	if (hits != 1)
		fail_msg("%s reported %zu times (of %zu reports)", rel, hits, c->seen.n);
}

static void test_initial_scan_reports_existing_scripts(void **state)
{
	struct ctx *c = *state;
	write_in_place(c, "a.py", "x=1\n");
	write_in_place(c, "b.approve", "");
	write_in_place(c, "notes.txt", "hi");
	write_in_place(c, ".hidden.py", "x=1\n");
	write_in_place(c, "a.result.json", "{}");
	/* A directory named like an answer is reported (the agent refuses it
	 * and says why); one named like a script is not a script. */
	_cleanup_free_ char *answer_dir = path_in(c, "c.override");
	_cleanup_free_ char *script_dir = path_in(c, "d.py");
	assert_int_equal(mkdir(answer_dir, 0755), 0);
	assert_int_equal(mkdir(script_dir, 0755), 0);
	start(c, false);
	assert_true(watch_dir_present(c->w));
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 3);
	assert_seen_once(c, "a.py");
	assert_seen_once(c, "b.approve");
	assert_seen_once(c, "c.override");
	for (size_t i = 0; i < c->seen.n; i++)
		assert_int_equal(c->seen.kinds[i], strcmp(c->seen.names[i], "a.py") == 0     ? NAMES_SCRIPT
						   : strcmp(c->seen.names[i], "b.approve") == 0 ? NAMES_APPROVE
												: NAMES_OVERRIDE);
}

static void test_write_in_place_repeated_is_one_report(void **state)
{
	struct ctx *c = *state;
	start(c, false);
	/* Three quick saves within the settle delay: one report. */
	for (int i = 0; i < 3; i++)
		write_in_place(c, "foo.py", "print(1)\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "foo.py");

	/* A later save is a new change: reported again. */
	seen_clear(&c->seen);
	write_in_place(c, "foo.py", "print(2)\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
}

static void test_write_temp_then_rename(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *tmp = path_in(c, ".foo.py.tmp123");
	_cleanup_free_ char *dst = path_in(c, "foo.py");
	start(c, false);
	write_in_place(c, ".foo.py.tmp123", "print('atomic')\n");
	assert_int_equal(rename(tmp, dst), 0);
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "foo.py");
}

/* A file renamed into place is complete: it is taken at once, while a write
 * in place (perhaps one step of several) waits for the settle delay. */
static void test_rename_is_taken_without_settle(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *tmp = path_in(c, ".fast.py.tmp1");
	_cleanup_free_ char *dst = path_in(c, "fast.py");
	uint64_t t0;

	start_settle(c, false, 3000);
	write_in_place(c, ".fast.py.tmp1", "print('renamed')\n");
	assert_int_equal(rename(tmp, dst), 0);
	write_in_place(c, "slow.py", "print('in place')\n");
	t0 = ms_now();
	while (c->seen.n == 0 && ms_now() - t0 < 2000)
		assert_int_equal(watch_poll(c->w, 20), 0);
	assert_int_equal(c->seen.n, 1);
	assert_string_equal(c->seen.names[0], "fast.py");
	assert_int_equal(watch_pending(c->w), 1); /* slow.py, still settling */
	pump(c, 0);
	assert_int_equal(c->seen.n, 2);
	assert_string_equal(c->seen.names[1], "slow.py");
	assert_true(ms_now() - t0 >= 2990); /* settled from when it was seen */
}

/* vim with 'backupcopy=no' and 'writebackup': probe 4913, rename the file
 * to foo.py~, write a new foo.py, remove the backup. */
static void test_vim_save_sequence(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *probe = path_in(c, "4913");
	_cleanup_free_ char *file = path_in(c, "foo.py");
	_cleanup_free_ char *backup = path_in(c, "foo.py~");

	write_in_place(c, "foo.py", "old\n");
	start(c, false);
	pump(c, 3 * SETTLE_MS);
	seen_clear(&c->seen);

	write_in_place(c, ".foo.py.swp", "swap");
	write_in_place(c, "4913", "");
	assert_int_equal(unlink(probe), 0);
	assert_int_equal(rename(file, backup), 0);
	write_in_place(c, "foo.py", "new content\n");
	assert_int_equal(unlink(backup), 0);
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "foo.py");
}

static void test_hard_link_counts_as_drop(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *tmp = path_in(c, "staging.tmp");
	_cleanup_free_ char *dst = path_in(c, "linked.py");
	start(c, false);
	write_in_place(c, "staging.tmp", "print('linked')\n");
	assert_int_equal(link(tmp, dst), 0);
	assert_int_equal(unlink(tmp), 0);
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "linked.py");
}

static void test_symlink_and_fifo_are_reported_for_rejection(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *link = path_in(c, "x.py");
	_cleanup_free_ char *fifo = path_in(c, "pipe.py");
	start(c, false);
	assert_int_equal(symlink("/etc/shadow", link), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 2);
	assert_seen_once(c, "x.py");
	assert_seen_once(c, "pipe.py");
}

static void test_deleted_before_settling_is_not_reported(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *p = path_in(c, "brief.py");
	start(c, false);
	write_in_place(c, "brief.py", "x=1\n");
	assert_int_equal(unlink(p), 0);
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 0);
}

/* Fill the inotify queue past its limit without reading: alternating
 * appends to two ignored files make events that the kernel cannot merge. */
static void test_overflow_rescans(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *a = path_in(c, "a.log");
	_cleanup_free_ char *b = path_in(c, "b.log");
	char buf[16];
	int max_events = 16384;

	_cleanup_close_ int q = open("/proc/sys/fs/inotify/max_queued_events", O_RDONLY | O_CLOEXEC);
	if (q >= 0) {
		ssize_t n = read(q, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			max_events = atoi(buf);
		}
	}
	if (max_events > 200000)
		test_skip("fs.inotify.max_queued_events is above 200000: too many events to make in a unit test");

	write_in_place(c, "keep.py", "x=1\n");
	start(c, false);
	pump(c, 3 * SETTLE_MS);
	seen_clear(&c->seen);

	_cleanup_close_ int fa = open(a, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	_cleanup_close_ int fb = open(b, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	for (int i = 0; i < max_events + 100; i++)
		assert_int_equal(fileio_write_all(i % 2 ? fa : fb, "x", 1), 0);
	write_in_place(c, "late.py", "y=2\n"); /* its event is lost in the overflow */
	pump(c, 4 * SETTLE_MS);
	assert_int_equal(watch_overflows(c->w), 1);
	assert_seen_once(c, "keep.py");
	assert_seen_once(c, "late.py");
	assert_int_equal(c->seen.n, 2);
}

static void test_drop_dir_removed_and_recreated(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *old = xasprintf("%s/drop.old", c->root);
	_cleanup_free_ char *gone = path_in(c, "gone.py");

	start(c, false);
	write_in_place(c, "gone.py", "x=1\n");
	pump(c, 3 * SETTLE_MS);
	seen_clear(&c->seen);

	/* Removed, then created again: noticed, watched again. */
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(rmdir(c->drop), 0);
	pump(c, 2 * SETTLE_MS);
	assert_false(watch_dir_present(c->w));
	assert_int_equal(mkdir(c->drop, 0755), 0);
	pump(c, 2 * SETTLE_MS);
	assert_true(watch_dir_present(c->w));
	write_in_place(c, "again.py", "x=2\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "again.py");
	seen_clear(&c->seen);

	/* Renamed away and replaced: the new directory is watched, the old one
	 * (now outside the drop path) is not. */
	assert_int_equal(rename(c->drop, old), 0);
	assert_int_equal(mkdir(c->drop, 0755), 0);
	pump(c, 2 * SETTLE_MS);
	assert_true(watch_dir_present(c->w));
	_cleanup_free_ char *stray = xasprintf("%s/stray.py", old);
	assert_int_equal(fileio_write_atomic(stray, "z", 1, 0644), 0);
	write_in_place(c, "fresh.py", "x=3\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "fresh.py");
}

static void test_recursive_subdirectories(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *sub = path_in(c, "sub");
	_cleanup_free_ char *deep = path_in(c, "sub/deeper");
	_cleanup_free_ char *hidden = path_in(c, ".git");

	assert_int_equal(mkdir(sub, 0755), 0);
	write_in_place(c, "sub/old.py", "x=1\n");
	start(c, true);
	assert_int_equal(mkdir(deep, 0755), 0);
	assert_int_equal(mkdir(hidden, 0755), 0);
	pump(c, SETTLE_MS); /* let the new directories be watched */
	write_in_place(c, "sub/deeper/new.py", "x=2\n");
	write_in_place(c, ".git/hook.py", "x=3\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 2);
	assert_seen_once(c, "sub/old.py");
	assert_seen_once(c, "sub/deeper/new.py");

	/* A subdirectory renamed: its scripts are reported under the new
	 * name, and what is written in it later too; nothing under the old. */
	_cleanup_free_ char *moved = path_in(c, "moved");
	seen_clear(&c->seen);
	assert_int_equal(rename(sub, moved), 0);
	pump(c, SETTLE_MS);
	write_in_place(c, "moved/deeper/late.py", "x=4\n");
	pump(c, 3 * SETTLE_MS);
	assert_seen_once(c, "moved/deeper/late.py");
	for (size_t i = 0; i < c->seen.n; i++)
		if (strncmp(c->seen.names[i], "sub/", 4) == 0)
			fail_msg("%s reported under the old name", c->seen.names[i]);
	/* Removed: nothing more from it, and a new one of that name is watched. */
	_cleanup_free_ char *late = path_in(c, "moved/deeper/late.py"), *nw = path_in(c, "moved/deeper/new.py");
	_cleanup_free_ char *mdeep = path_in(c, "moved/deeper");
	assert_int_equal(unlink(late), 0);
	assert_int_equal(unlink(nw), 0);
	assert_int_equal(rmdir(mdeep), 0);
	pump(c, SETTLE_MS);
	assert_int_equal(mkdir(mdeep, 0755), 0);
	pump(c, SETTLE_MS);
	seen_clear(&c->seen);
	write_in_place(c, "moved/deeper/again.py", "x=5\n");
	pump(c, 3 * SETTLE_MS);
	assert_int_equal(c->seen.n, 1);
	assert_seen_once(c, "moved/deeper/again.py");
}

static void test_missing_drop_dir_is_an_error(void **state)
{
	struct ctx *c = *state;
	struct watch_options o = { .dir = "/nonexistent/mai-drop", .settle_ms = 10 };
	struct watch *w = NULL;
	char *err = NULL;
	assert_int_equal(watch_new(&o, on_name, &c->seen, &w, &err), -ENOENT);
	assert_null(w);
	assert_string_equal(err, "cannot watch drop directory /nonexistent/mai-drop: No such file "
				 "or directory (check agent.drop_dir in agent.yaml)");
	free(err);
}

/* No descriptor left for inotify (for real: testdir_fd_limit()): refused with the errno and what to raise. */
static void test_no_descriptor_for_inotify(void **state)
{
	struct ctx *c = *state;
	struct watch_options o = { .dir = c->drop, .settle_ms = 10 };
	struct watch *w = NULL;
	char *err = NULL;
	struct rlimit saved = testdir_fd_limit(0);
	int r = watch_new(&o, on_name, &c->seen, &w, &err);
	testdir_fd_limit_end(&saved);
	assert_int_equal(r, -EMFILE);
	assert_null(w);
	assert_string_equal(err, "cannot start inotify: Too many open files (raise "
				 "fs.inotify.max_user_instances)");
	free(err);
}

/* Scripts cFROM.py to cTO-1.py, each written as a temporary name and
 * renamed into place, in that order. */
static void rename_burst(struct ctx *c, int from, int to)
{
	char name[32];

	for (int i = from; i < to; i++) {
		snprintf(name, sizeof(name), ".c%02d.py.tmp", i);
		_cleanup_free_ char *tmp = path_in(c, name);
		snprintf(name, sizeof(name), "c%02d.py", i);
		_cleanup_free_ char *dst = path_in(c, name);
		write_in_place(c, strrchr(tmp, '/') + 1, "pass\n");
		assert_int_equal(rename(tmp, dst), 0);
	}
}

/* Names renamed into place while the watcher was not reading (a burst of
 * renames, a loaded machine) are reported in the order they came: one
 * read of inotify's queue must not serve a writer's burst newest first,
 * nor put a name renamed later ahead of the rest (the intake's turns,
 * daemon_intake.h, take each writer's names in the order reported). */
static void test_renames_reported_in_order_of_arrival(void **state)
{
	struct ctx *c = *state;
	char name[32];

	start_settle(c, false, 3000);
	write_in_place(c, "slow.py", "print('in place')\n");
	rename_burst(c, 0, 20);
	/* All twenty in inotify's queue before the watcher reads any. */
	assert_int_equal(watch_process(c->w), 0);
	assert_int_equal(c->seen.n, 20);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "c%02d.py", i);
		assert_string_equal(c->seen.names[i], name);
	}
	/* A second burst goes after the first's names, whichever are still
	 * to report, and before the name that is settling. */
	rename_burst(c, 20, 23);
	assert_int_equal(watch_process(c->w), 0);
	assert_int_equal(c->seen.n, 23);
	for (int i = 20; i < 23; i++) {
		snprintf(name, sizeof(name), "c%02d.py", i);
		assert_string_equal(c->seen.names[i], name);
	}
	assert_int_equal(watch_pending(c->w), 1); /* slow.py, still settling */
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_initial_scan_reports_existing_scripts),
		T(test_write_in_place_repeated_is_one_report),
		T(test_write_temp_then_rename),
		T(test_rename_is_taken_without_settle),
		T(test_renames_reported_in_order_of_arrival),
		T(test_vim_save_sequence),
		T(test_hard_link_counts_as_drop),
		T(test_symlink_and_fifo_are_reported_for_rejection),
		T(test_deleted_before_settling_is_not_reported),
		T(test_overflow_rescans),
		T(test_drop_dir_removed_and_recreated),
		T(test_recursive_subdirectories),
		T(test_missing_drop_dir_is_an_error),
		T(test_no_descriptor_for_inotify),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
