#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "fileio.h"
#include "testdir.h"

typedef int (*write_fn)(const char *path, const void *buf, size_t len, mode_t mode);

static void check_replaces_and_leaves_no_temp(const char *dir, write_fn write)
{
	_cleanup_free_ char *path = xasprintf("%s/out.json", dir);
	char *buf = NULL;
	size_t len = 0;
	struct stat st;

	assert_int_equal(write(path, "first", 5, 0644), 0);
	assert_int_equal(write(path, "second!", 7, 0600), 0);
	assert_int_equal(fileio_read_path(path, 1024, &buf, &len), 0);
	assert_int_equal(len, 7);
	assert_string_equal(buf, "second!");
	free(buf);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	/* Only the target is left: no temporary file behind. */
	DIR *d = opendir(dir);
	struct dirent *de;
	int entries = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			entries++;
	closedir(d);
	assert_int_equal(entries, 1);
}

static void test_atomic_write_replaces_and_leaves_no_temp(void **state)
{
	check_replaces_and_leaves_no_temp(*state, fileio_write_atomic);
}

/* Without the fsyncs, the replacement is just as atomic for readers. */
static void test_replace_without_fsync_replaces_and_leaves_no_temp(void **state)
{
	check_replaces_and_leaves_no_temp(*state, fileio_write_replace);
}

struct writer_arg {
	const char *path;
	char text[16];
	int failures;
};

static void *replace_many(void *p)
{
	struct writer_arg *a = p;
	for (int i = 0; i < 200; i++)
		if (fileio_write_replace(a->path, a->text, strlen(a->text), 0600) < 0)
			a->failures++;
	return NULL;
}

/* Threads replacing the same file at once (two jobs storing the same
 * script version) each succeed, and the file is always one writer's whole
 * content: their temporaries never meet. */
static void test_threads_replace_one_file(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/shared", (const char *)*state);
	struct writer_arg args[4];
	pthread_t th[4];

	for (int i = 0; i < 4; i++) {
		args[i] = (struct writer_arg){ .path = path };
		snprintf(args[i].text, sizeof(args[i].text), "writer %d\n", i);
		assert_int_equal(pthread_create(&th[i], NULL, replace_many, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].failures, 0);
	}
	char *buf = NULL;
	size_t len = 0;
	assert_int_equal(fileio_read_path(path, 64, &buf, &len), 0);
	assert_int_equal(len, 9);
	assert_memory_equal(buf, "writer ", 7);
	free(buf);
}

static void test_read_cap(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = xasprintf("%s/big", dir);
	char big[10000];
	char *buf = NULL;
	size_t len = 0;

	memset(big, 'x', sizeof(big));
	assert_int_equal(fileio_write_atomic(path, big, sizeof(big), 0644), 0);
	assert_int_equal(fileio_read_path(path, sizeof(big) - 1, &buf, &len), -EFBIG);
	assert_int_equal(fileio_read_path(path, sizeof(big), &buf, &len), 0);
	assert_int_equal(len, sizeof(big));
	free(buf);
	assert_int_equal(fileio_read_path("/nonexistent/x", 10, &buf, &len), -ENOENT);
}

/* A FIFO (no writer) and a directory are refused at once, never waited on. */
static void test_read_refuses_what_is_not_a_regular_file(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *fifo = xasprintf("%s/pipe", dir);
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(fileio_read_path(fifo, 1024, &buf, &len), -EINVAL);
	assert_int_equal(fileio_read_path(dir, 1024, &buf, &len), -EINVAL);
	assert_null(buf);
}

static void test_mkdir_p(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *deep = xasprintf("%s/a/b/c/", dir);
	_cleanup_free_ char *file = xasprintf("%s/a/file", dir);
	struct stat st;

	assert_int_equal(fileio_mkdir_p(deep, 0755), 0);
	assert_int_equal(fileio_mkdir_p(deep, 0755), 0); /* idempotent */
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(fileio_write_atomic(file, "x", 1, 0644), 0);
	assert_int_equal(fileio_mkdir_p(file, 0755), -ENOTDIR);
}

/* Names in dir ending in ".tmp.<tid>": write_replace's temporaries. */
static unsigned temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/* A replacement that fails leaves the old file and no temporary: the
 * rename refused for real (a directory stands at the name), and the
 * steps the real system cannot be made to fail on demand (fault.h: chmod
 * refused, the disk's EIO on fsync). When only the directory's fsync
 * fails, the new content is in place and the caller still hears of it. */
static void test_failed_replace_keeps_the_old_file(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = xasprintf("%s/out.json", dir);
	_cleanup_free_ char *taken = xasprintf("%s/taken", dir);
	_cleanup_free_ char *inside = xasprintf("%s/taken/x", dir);
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(mkdir(taken, 0755), 0);
	assert_int_equal(fileio_write_atomic(inside, "x", 1, 0644), 0);
	assert_int_equal(fileio_write_atomic(taken, "new", 3, 0644), -EISDIR);
	assert_int_equal(fileio_write_replace(taken, "new", 3, 0644), -EISDIR);
	assert_int_equal(fileio_read_path(inside, 16, &buf, &len), 0);
	assert_string_equal(buf, "x");
	free(buf);

	assert_int_equal(fileio_write_atomic(path, "old", 3, 0644), 0);
	fault_arm("fchmod", NULL, 1, 1, EROFS);
	assert_int_equal(fileio_write_replace(path, "new", 3, 0644), -EROFS);
	fault_arm("fsync", NULL, 1, 1, EIO);
	assert_int_equal(fileio_write_atomic(path, "new", 3, 0644), -EIO);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	assert_int_equal(fileio_read_path(path, 16, &buf, &len), 0);
	assert_string_equal(buf, "old");
	free(buf);
	assert_int_equal(temporaries(dir), 0);

	fault_arm("fsync", NULL, 2, 1, EIO); /* the file's passes, its directory's fails */
	assert_int_equal(fileio_write_atomic(path, "new", 3, 0644), -EIO);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	assert_int_equal(fileio_read_path(path, 16, &buf, &len), 0);
	assert_string_equal(buf, "new");
	free(buf);
	assert_int_equal(fileio_fsync_parent("/nonexistent-mai-test/x"), -ENOENT);
}

/* Reading what cannot be read: a directory's descriptor (EISDIR, for
 * real), and a file whose fstat fails (fault.h: EIO, which a healthy disk
 * does not give); listing a directory whose fdopendir fails (only
 * without memory: fault.h, ENOMEM) gives NULL with that errno. */
static void test_read_and_list_errors(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = xasprintf("%s/f", dir);
	char *buf = NULL;
	size_t len = 0;

	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(fileio_read_fd(dfd, 1024, &buf, &len), -EISDIR);
	assert_null(buf);
	assert_int_equal(fileio_write_atomic(path, "x", 1, 0644), 0);
	fault_arm("fstat64", "/f", 1, 1, EIO);
	assert_int_equal(fileio_read_path(path, 1024, &buf, &len), -EIO);
	assert_int_equal(fault_hits("fstat64"), 1);
	fault_arm("fdopendir", NULL, 1, 1, ENOMEM);
	errno = 0;
	assert_null(fileio_opendir_at(dfd));
	assert_int_equal(errno, ENOMEM);
	fault_clear();
	DIR *d = fileio_opendir_at(dfd);
	assert_non_null(d);
	closedir(d);
}

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupts++;
}

struct interrupter {
	pthread_t target;
	int fd;        /* the pipe's other end */
	bool drain;    /* read it (the target writes) rather than write it */
	size_t len;
};

/* Interrupts the target thread a few times while it waits on the pipe,
 * then gives it what it waits for. */
static void *interrupt_then_serve(void *p)
{
	struct interrupter *in = p;
	struct timespec ms = { 0, 5 * 1000000L };
	for (int i = 0; i < 5; i++) {
		nanosleep(&ms, NULL);
		pthread_kill(in->target, SIGUSR1);
	}
	nanosleep(&ms, NULL);
	if (in->drain) {
		char sink[4096];
		ssize_t n;
		while ((n = read(in->fd, sink, sizeof(sink))) > 0)
			in->len += (size_t)n;
	} else {
		assert_int_equal(write(in->fd, "late", 4), 4);
	}
	close(in->fd);
	return NULL;
}

/* A read or a write that a signal interrupts (a handler without
 * SA_RESTART, as a daemon's own may be) is resumed, for real: the reader
 * gets all that is written after the signals, the writer puts all of a
 * buffer larger than the pipe. */
static void test_interrupted_read_and_write_resume(void **state)
{
	(void)state;
	struct sigaction sa = { .sa_handler = on_interrupt }, old;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	int p[2];
	pthread_t t;
	char *buf = NULL;
	size_t len = 0;

	interrupts = 0;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	struct interrupter in = { .target = pthread_self(), .fd = p[1] };
	assert_int_equal(pthread_create(&t, NULL, interrupt_then_serve, &in), 0);
	assert_int_equal(fileio_read_fd(p[0], 1024, &buf, &len), 0);
	pthread_join(t, NULL);
	close(p[0]);
	assert_int_equal(len, 4);
	assert_string_equal(buf, "late");
	free(buf);
	assert_true(interrupts >= 5);

	static char big[256 << 10];
	memset(big, 'b', sizeof(big));
	interrupts = 0;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	struct interrupter out = { .target = pthread_self(), .fd = p[0], .drain = true };
	assert_int_equal(pthread_create(&t, NULL, interrupt_then_serve, &out), 0);
	assert_int_equal(fileio_write_all(p[1], big, sizeof(big)), 0);
	close(p[1]);
	pthread_join(t, NULL);
	assert_int_equal(out.len, sizeof(big));
	assert_true(interrupts >= 5);
	sigaction(SIGUSR1, &old, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomic_write_replaces_and_leaves_no_temp,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_replace_without_fsync_replaces_and_leaves_no_temp,
						testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_threads_replace_one_file, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_read_cap, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_read_refuses_what_is_not_a_regular_file, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_failed_replace_keeps_the_old_file, testdir_setup,
						testdir_teardown),
		cmocka_unit_test_setup_teardown(test_read_and_list_errors, testdir_setup,
						testdir_teardown),
		cmocka_unit_test(test_interrupted_read_and_write_resume),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
