/* fs/view_fuse.c: the view refuses every change. It is mounted read-only,
 * so the kernel answers EROFS before asking it; these handlers are the
 * second wall should it ever be mounted otherwise (a mount option lost in a
 * change), and each must refuse, not succeed as a no-op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/statvfs.h>

#include "view_fuse.h"

static void test_every_change_is_refused(void **state)
{
	const struct fuse_operations *ops = view_fuse_ops();
	struct timespec tv[2] = { { 0, 0 }, { 0, 0 } };
	struct fuse_file_info fi = { 0 };

	assert_int_equal(ops->mknod("/x", 0600, 0), -EROFS);
	assert_int_equal(ops->mkdir("/x", 0700), -EROFS);
	assert_int_equal(ops->unlink("/verify"), -EROFS);
	assert_int_equal(ops->rmdir("/entries"), -EROFS);
	assert_int_equal(ops->symlink("/verify", "/x"), -EROFS);
	assert_int_equal(ops->link("/verify", "/x"), -EROFS);
	assert_int_equal(ops->rename("/verify", "/x", 0), -EROFS);
	assert_int_equal(ops->chmod("/verify", 0777, NULL), -EROFS);
	assert_int_equal(ops->chown("/verify", 0, 0, NULL), -EROFS);
	assert_int_equal(ops->truncate("/verify", 0, NULL), -EROFS);
	assert_int_equal(ops->write("/verify", "x", 1, 0, &fi), -EROFS);
	assert_int_equal(ops->create("/x", 0600, &fi), -EROFS);
	assert_int_equal(ops->utimens("/verify", tv, NULL), -EROFS);
	assert_int_equal(ops->setxattr("/verify", "user.x", "1", 1, 0), -EROFS);
	assert_int_equal(ops->removexattr("/verify", "user.x"), -EROFS);
	assert_int_equal(ops->fallocate("/verify", 0, 0, 1, &fi), -EROFS);
}

/* statfs says read-only, no setuid, no devices, whatever the mount says. */
static void test_statfs_says_read_only(void **state)
{
	struct statvfs sv;

	assert_int_equal(view_fuse_ops()->statfs("/", &sv), 0);
	assert_true(sv.f_flag & ST_RDONLY);
	assert_true(sv.f_flag & ST_NOSUID);
	assert_true(sv.f_flag & ST_NODEV);
	assert_int_equal(sv.f_namemax, 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_change_is_refused),
		cmocka_unit_test(test_statfs_says_read_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
