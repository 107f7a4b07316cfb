/* Mount point checks. A real stale FUSE mount is produced and cleared in
 * tests/integration/test_maiaudit.sh; here the parts that need no mount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"
#include "mountutil.h"
#include "testdir.h"

static const char mountinfo[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"30 22 0:25 / /proc rw,nosuid shared:12 - proc proc rw\n"
	"41 22 0:40 / /mnt/with\\040space rw,nosuid,nodev master:3 - fuse.maiaudit maiaudit ro\n"
	"42 22 0:41 / /mnt/plain rw - tmpfs tmpfs rw\n"
	"43 42 0:42 / /mnt/plain rw,nosuid - fuse.maiaudit maiaudit ro\n"
	"garbage line without separator\n"
	"44 22 0:43 / /mnt/back\\134slash rw - fuse.other other rw\n";

static void test_find_in_mountinfo(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = xasprintf("%s/mountinfo", dir);
	assert_int_equal(fileio_write_atomic(path, mountinfo, strlen(mountinfo), 0644), 0);

	char *type = NULL;
	assert_int_equal(mountutil_find(path, "/mnt/with space", &type), 0);
	assert_string_equal(type, "fuse.maiaudit");
	free(type);
	/* Stacked mounts: the topmost is the one a user sees. */
	assert_int_equal(mountutil_find(path, "/mnt/plain", &type), 0);
	assert_string_equal(type, "fuse.maiaudit");
	free(type);
	assert_int_equal(mountutil_find(path, "/mnt/back\\slash", &type), 0);
	assert_string_equal(type, "fuse.other");
	free(type);
	assert_int_equal(mountutil_find(path, "/mnt/with\\040space", &type), -ENOENT);
	assert_int_equal(mountutil_find(path, "/mnt", &type), -ENOENT);
	assert_int_equal(mountutil_find(path, "/mnt/plai", &type), -ENOENT);

	_cleanup_free_ char *missing = xasprintf("%s/nope", dir);
	assert_int_equal(mountutil_find(missing, "/", &type), -ENOENT);
}

static void test_canonical(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *sub = xasprintf("%s/mnt", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	char *out = NULL;

	_cleanup_free_ char *slashes = xasprintf("%s/mnt//", dir);
	assert_int_equal(mountutil_canonical(slashes, &out), 0);
	assert_string_equal(out, sub);
	free(out);
	/* The last component need not exist (a stale mount cannot be resolved). */
	_cleanup_free_ char *absent = xasprintf("%s/./mnt/../absent", dir);
	_cleanup_free_ char *absent_canon = xasprintf("%s/absent", dir);
	assert_int_equal(mountutil_canonical(absent, &out), 0);
	assert_string_equal(out, absent_canon);
	free(out);
	assert_int_equal(mountutil_canonical("/", &out), 0);
	assert_string_equal(out, "/");
	free(out);
	assert_int_equal(mountutil_canonical("/nonexistent-dir/x", &out), -ENOENT);
}

static void test_probe(void **state)
{
	const char *dir = *state;
	char *detail = NULL;
	_cleanup_free_ char *sub = xasprintf("%s/mnt", dir);
	_cleanup_free_ char *file = xasprintf("%s/file", dir);
	_cleanup_free_ char *absent = xasprintf("%s/absent", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(fileio_write_atomic(file, "x", 1, 0644), 0);

	assert_int_equal(mountutil_probe(sub, &detail), MOUNTUTIL_READY);
	assert_null(detail);
	assert_int_equal(mountutil_probe(absent, &detail), MOUNTUTIL_MISSING);
	assert_int_equal(mountutil_probe(file, &detail), MOUNTUTIL_NOT_DIR);
	/* Through a file: neither missing nor usable, and said why. */
	_cleanup_free_ char *through = xasprintf("%s/file/mnt", dir);
	assert_int_equal(mountutil_probe(through, &detail), MOUNTUTIL_ERROR);
	assert_non_null(strstr(detail, "cannot stat "));
	assert_non_null(strstr(detail, "/file/mnt: Not a directory"));
	free(detail);
	detail = NULL;
	assert_int_equal(mountutil_probe("/proc", &detail), MOUNTUTIL_MOUNTED);
	assert_non_null(detail);
	assert_non_null(strstr(detail, "/proc is already a mount point (proc)"));
	free(detail);
	assert_string_equal(mountutil_state_to_string(MOUNTUTIL_STALE), "stale mount");
}

static void test_lazy_unmount_of_plain_dir_fails_with_advice(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *sub = xasprintf("%s/mnt", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	_cleanup_free_ char *err = NULL;
	assert_true(mountutil_lazy_unmount(sub, &err) < 0);
	assert_non_null(err);
	/* Whichever way it failed, the message names the mount point. */
	assert_non_null(strstr(err, sub));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find_in_mountinfo, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_canonical, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_probe, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_lazy_unmount_of_plain_dir_fails_with_advice,
						testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
