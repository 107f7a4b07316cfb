/* drop/source.c: the drop directory's group and permissions from
 * agent.drop_dir_group and agent.drop_dir_mode: a group by name or by
 * number, one that does not exist, and a directory whose file system is
 * read-only (for real), which can take neither. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "source.h"
#include "testdir.h"

static void test_settings(void **state)
{
	(void)state;
	struct drop_dir_attr a;
	char *err = NULL;
	assert_int_equal(drop_dir_settings("2770", "0", &a, &err), 0);
	assert_true(a.has_mode && a.has_gid);
	assert_int_equal(a.mode, 02770);
	assert_int_equal(a.gid, 0);
	assert_int_equal(drop_dir_settings(NULL, "root", &a, &err), 0);
	assert_false(a.has_mode);
	assert_int_equal(a.gid, 0);
	assert_int_equal(drop_dir_settings(NULL, "-1", &a, &err), -ENOENT);
	assert_non_null(strstr(err, "there is no group '-1'"));
	free(err);
}

static void test_read_only_drop_dir(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *ro = testdir_small_fs(dir, "ro", "size=16k,mode=0755");
	if (!ro)
		test_skip("a tmpfs of its own needs root (mount)");
	assert_int_equal(mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL), 0);
	_cleanup_close_ int fd = testdir_open(ro);
	char *err = NULL;

	assert_int_equal(drop_dir_prepare(fd, "the drop directory", "1777", "0", &err), -EROFS);
	assert_string_equal(err, "cannot give the drop directory the group 0: Read-only file system "
				 "(agent.drop_dir_group in agent.yaml)");
	free(err);
	assert_int_equal(drop_dir_prepare(fd, "the drop directory", "1777", NULL, &err), -EROFS);
	assert_string_equal(err, "cannot give the drop directory the permissions 1777: Read-only "
				 "file system (agent.drop_dir_mode in agent.yaml)");
	free(err);
	close(steal_fd(&fd));
	testdir_unmount(ro);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test_setup_teardown(test_read_only_drop_dir, testdir_setup, testdir_teardown),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
