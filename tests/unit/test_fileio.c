#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
