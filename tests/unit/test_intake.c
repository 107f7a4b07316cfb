#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fault.h"
#include "fileio.h"
#include "hash.h"
#include "intake.h"
#include "testdir.h"

static const struct intake_options defaults = { .max_size = 1 << 20 };

static void test_regular_file_snapshot_and_hash(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_snapshot snap;
	char want[HASH_SHA256_HEX_LEN + 1];
	int err;

	testdir_put(dir, "hello.py", "print('hi')\n");
	hash_sha256_hex("print('hi')\n", 12, want);
	assert_int_equal(intake_read(dfd, "hello.py", &defaults, &snap, &err), INTAKE_OK);
	assert_int_equal(snap.len, 12);
	assert_memory_equal(snap.data, "print('hi')\n", 12);
	assert_int_equal(snap.data[12], 0);
	assert_string_equal(snap.sha256, want);
	assert_int_equal(snap.uid, getuid());
	assert_int_equal(snap.attempts, 1);
	intake_snapshot_clear(&snap);
	assert_null(snap.data);
}

/* The symlink's target must never be opened: an inotify watch on the target
 * reports any open, so the test sees it if intake followed the link. */
static void test_symlink_rejected_target_never_opened(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *outside = xasprintf("%s/outside", dir);
	_cleanup_free_ char *secret = xasprintf("%s/outside/secret", dir);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	_cleanup_free_ char *link = xasprintf("%s/drop/x.py", dir);
	struct intake_snapshot snap;
	int err;

	assert_int_equal(fileio_mkdir_p(outside, 0700), 0);
	assert_int_equal(fileio_mkdir_p(drop, 0700), 0);
	assert_int_equal(fileio_write_atomic(secret, "root:x:0\n", 9, 0600), 0);
	assert_int_equal(symlink(secret, link), 0);

	_cleanup_close_ int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(ifd >= 0);
	assert_true(inotify_add_watch(ifd, secret, IN_OPEN | IN_ACCESS) >= 0);

	_cleanup_close_ int dfd = testdir_open(drop);
	assert_int_equal(intake_read(dfd, "x.py", &defaults, &snap, &err), INTAKE_SYMLINK);
	assert_null(snap.data);
	assert_int_equal(err, 0);

	char buf[4096];
	assert_int_equal(read(ifd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);

	/* A link to a system file is refused the same way. */
	_cleanup_free_ char *link2 = xasprintf("%s/drop/shadow.py", dir);
	assert_int_equal(symlink("/etc/shadow", link2), 0);
	assert_int_equal(intake_read(dfd, "shadow.py", &defaults, &snap, &err), INTAKE_SYMLINK);
}

/* ln /root/secret.py drop/x.py: a file with two links is refused before a
 * byte of it is read (the inotify watch sees no open), and the snapshot
 * says whose it is and how many links it has, for the record. */
static void test_hard_link_rejected_never_read(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *secret = xasprintf("%s/secret.py", dir);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	_cleanup_free_ char *link_path = xasprintf("%s/drop/x.py", dir);
	struct intake_snapshot snap;
	int err;

	assert_int_equal(fileio_mkdir_p(drop, 0700), 0);
	assert_int_equal(fileio_write_atomic(secret, "print('secret')\n", 16, 0600), 0);
	assert_int_equal(link(secret, link_path), 0);
	_cleanup_close_ int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(inotify_add_watch(ifd, secret, IN_OPEN | IN_ACCESS) >= 0);
	_cleanup_close_ int dfd = testdir_open(drop);
	assert_int_equal(intake_read(dfd, "x.py", &defaults, &snap, &err), INTAKE_HARD_LINK);
	assert_null(snap.data);
	assert_int_equal(snap.nlink, 2);
	assert_int_equal(snap.uid, getuid());
	char buf[4096];
	assert_int_equal(read(ifd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	assert_string_equal(intake_status_to_string(INTAKE_HARD_LINK), "hard_link");
	assert_non_null(strstr(intake_status_message(INTAKE_HARD_LINK), "Copy the script"));
	/* Once the other link is gone it is an ordinary file again. */
	assert_int_equal(unlink(secret), 0);
	assert_int_equal(intake_read(dfd, "x.py", &defaults, &snap, &err), INTAKE_OK);
	intake_snapshot_clear(&snap);
}

/* A link made while the file is read: what was read is dropped. */
static void linked_during_read(void *arg, unsigned attempt)
{
	const char *dir = arg;
	_cleanup_free_ char *from = xasprintf("%s/late.py", dir);
	_cleanup_free_ char *to = xasprintf("%s/second-name", dir);
	if (attempt == 1)
		assert_int_equal(link(from, to), 0);
}

static void test_hard_link_made_during_the_read(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	_cleanup_free_ char *p = xasprintf("%s/late.py", dir);
	struct intake_options o = defaults;
	struct intake_snapshot snap;
	int err;
	assert_int_equal(fileio_write_atomic(p, "x = 1\n", 6, 0644), 0);
	o.after_read = linked_during_read;
	o.after_read_arg = (void *)dir;
	assert_int_equal(intake_read(dfd, "late.py", &o, &snap, &err), INTAKE_HARD_LINK);
	assert_null(snap.data);
}

/* A FIFO must be refused at once: were it opened blocking, this test would
 * hang (no writer ever appears). */
static void test_fifo_directory_and_device_refused_without_blocking(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_snapshot snap;
	int err;

	assert_int_equal(mkfifoat(dfd, "pipe.py", 0644), 0);
	assert_int_equal(intake_read(dfd, "pipe.py", &defaults, &snap, &err), INTAKE_NOT_REGULAR);
	assert_int_equal(mkdirat(dfd, "dir.py", 0755), 0);
	assert_int_equal(intake_read(dfd, "dir.py", &defaults, &snap, &err), INTAKE_NOT_REGULAR);
	/* A character device (the null device) needs CAP_MKNOD to create. */
	if (mknodat(dfd, "null.py", S_IFCHR | 0644, makedev(1, 3)) == 0)
		assert_int_equal(intake_read(dfd, "null.py", &defaults, &snap, &err),
				 INTAKE_NOT_REGULAR);
	assert_string_equal(intake_status_to_string(INTAKE_NOT_REGULAR), "not_regular");
	assert_non_null(strstr(intake_status_message(INTAKE_NOT_REGULAR), "FIFO"));
}

static void test_size_cap(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_options opts = { .max_size = 100 };
	struct intake_snapshot snap;
	char big[101];
	int err;

	memset(big, '#', sizeof(big) - 1);
	big[100] = '\0';
	testdir_put(dir, "exact.py", big); /* 100 bytes: at the cap, accepted */
	assert_int_equal(intake_read(dfd, "exact.py", &opts, &snap, &err), INTAKE_OK);
	assert_int_equal(snap.len, 100);
	intake_snapshot_clear(&snap);

	/* A 50 MB sparse file is refused from its size, without reading it. */
	_cleanup_close_ int fd = openat(dfd, "huge.py", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 50 << 20), 0);
	assert_int_equal(intake_read(dfd, "huge.py", &opts, &snap, &err), INTAKE_TOO_LARGE);
	assert_non_null(strstr(intake_status_message(INTAKE_TOO_LARGE), "max_file_size"));
}

static void test_vanished_and_bad_names(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_snapshot snap;
	int err;

	assert_int_equal(intake_read(dfd, "gone.py", &defaults, &snap, &err), INTAKE_VANISHED);
	assert_int_equal(intake_read(dfd, "", &defaults, &snap, &err), INTAKE_BAD_NAME);
	assert_int_equal(intake_read(dfd, "..", &defaults, &snap, &err), INTAKE_BAD_NAME);
	assert_int_equal(intake_read(dfd, "../x.py", &defaults, &snap, &err), INTAKE_BAD_NAME);
	assert_string_equal(intake_status_to_string(INTAKE_VANISHED), "vanished");
}

/* The script swapped for a symbolic link between the look and the open,
 * and the disk failing on a descriptor just opened (fstat before or after
 * the read, the read itself): fault.h stands for the race and the EIO,
 * which cannot be made on demand. A swap is a symlink; an error keeps its
 * errno and nothing read is kept. */
static void test_swapped_and_failing_reads(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_snapshot snap;
	int err;
	const struct {
		const char *call;
		unsigned nth;
		int err;
		enum intake_status want;
	} cases[] = {
		{ "openat64", 1, ELOOP, INTAKE_SYMLINK },
		{ "fstat64", 1, EIO, INTAKE_IO_ERROR },
		{ "read", 1, EIO, INTAKE_IO_ERROR },
		{ "fstat64", 2, EIO, INTAKE_IO_ERROR },
	};

	testdir_put(dir, "s.py", "print(1)\n");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		err = 0;
		fault_arm(cases[i].call, "/s.py", cases[i].nth, 1, cases[i].err);
		enum intake_status s = intake_read(dfd, "s.py", &defaults, &snap, &err);
		unsigned hits = fault_hits(cases[i].call);
		fault_clear();
		if (s != cases[i].want || hits != 1)
			fail_msg("case %zu: %s (%u hits)", i, intake_status_to_string(s), hits);
		assert_int_equal(err, cases[i].want == INTAKE_IO_ERROR ? EIO : 0);
		assert_null(snap.data);
	}
}

static void test_hostile_but_valid_names_read(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	static const char *const names[] = {
		"with space.py", "new\nline.py", "-leading-dash.py", "caf\xc3\xa9.py",
	};
	struct intake_snapshot snap;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		testdir_put(dir, names[i], "x = 1\n");
		assert_int_equal(intake_read(dfd, names[i], &defaults, &snap, &err), INTAKE_OK);
		assert_int_equal(snap.len, 6);
		intake_snapshot_clear(&snap);
	}
}

struct rewrite {
	int dfd;
	unsigned rewrite_until; /* rewrite the file after reads 1..N */
	unsigned calls;
};

/* Rewrites the file for real (new size, new mtime) right after a read. */
static void rewrite_after_read(void *arg, unsigned attempt)
{
	struct rewrite *rw = arg;
	rw->calls++;
	if (attempt > rw->rewrite_until)
		return;
	_cleanup_close_ int fd = openat(rw->dfd, "busy.py", O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, "# more\n", 7), 0);
}

static void test_changed_during_read_retries_then_consistent(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct rewrite rw = { .dfd = dfd, .rewrite_until = 1 };
	struct intake_options opts = {
		.max_size = 1 << 20, .retries = 3, .retry_delay_ms = 1,
		.after_read = rewrite_after_read, .after_read_arg = &rw,
	};
	struct intake_snapshot snap;
	int err;

	testdir_put(dir, "busy.py", "x = 1\n");
	assert_int_equal(intake_read(dfd, "busy.py", &opts, &snap, &err), INTAKE_OK);
	/* The second read saw the version after the change, whole. */
	assert_int_equal(snap.attempts, 2);
	assert_int_equal(snap.len, 13);
	assert_memory_equal(snap.data, "x = 1\n# more\n", 13);
	intake_snapshot_clear(&snap);
}

static void test_never_stable_is_unstable(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct rewrite rw = { .dfd = dfd, .rewrite_until = 100 };
	struct intake_options opts = {
		.max_size = 1 << 20, .retries = 2, .retry_delay_ms = 1,
		.after_read = rewrite_after_read, .after_read_arg = &rw,
	};
	struct intake_snapshot snap;
	int err;

	testdir_put(dir, "busy.py", "x = 1\n");
	assert_int_equal(intake_read(dfd, "busy.py", &opts, &snap, &err), INTAKE_UNSTABLE);
	assert_int_equal(rw.calls, 3); /* first read plus two retries */
	assert_null(snap.data);
	assert_string_equal(intake_status_to_string(INTAKE_UNSTABLE), "unstable");
}

/* Replaced by rename while open: the snapshot is the old inode, whole. */
static void test_replaced_by_rename_keeps_opened_version(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = testdir_open(dir);
	struct intake_snapshot a, b;
	int err;

	testdir_put(dir, "r.py", "old = 1\n");
	assert_int_equal(intake_read(dfd, "r.py", &defaults, &a, &err), INTAKE_OK);
	testdir_put(dir, "r.py", "new = 22\n");
	assert_int_equal(intake_read(dfd, "r.py", &defaults, &b, &err), INTAKE_OK);
	assert_string_not_equal(a.sha256, b.sha256);
	assert_int_not_equal(a.ino, b.ino);
	assert_memory_equal(b.data, "new = 22\n", 9);
	intake_snapshot_clear(&a);
	intake_snapshot_clear(&b);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_regular_file_snapshot_and_hash),
		T(test_symlink_rejected_target_never_opened),
		T(test_hard_link_rejected_never_read),
		T(test_hard_link_made_during_the_read),
		T(test_fifo_directory_and_device_refused_without_blocking),
		T(test_size_cap),
		T(test_vanished_and_bad_names),
		T(test_hostile_but_valid_names_read),
		T(test_changed_during_read_retries_then_consistent),
		T(test_never_stable_is_unstable),
		T(test_replaced_by_rename_keeps_opened_version),
		T(test_swapped_and_failing_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
