/* A FUSE server killed with SIGKILL leaves a stale mount whose root the
 * kernel still describes from its attribute cache: mountutil_probe() must
 * call it stale (and mountutil_probe_clear() clear it), not "already a
 * mount point" of a live server. A real FUSE mount, served by a child with
 * a root that stays cached for a minute, killed once the cache holds it.
 * Also the clearing by a process without CAP_SYS_ADMIN, through the
 * setuid fusermount3, and without it. */
#define FUSE_USE_VERSION 31
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "mountutil.h"
#include "testdir.h"

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->attr_timeout = 60;
	cfg->entry_timeout = 60;
	return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0755;
	st->st_nlink = 2;
	return 0;
}

static const struct fuse_operations ops = { .init = fs_init, .getattr = fs_getattr };

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* dir/mnt mounted by a child server killed with SIGKILL once the kernel
 * caches its root: a stale mount (the path returned; caller frees). */
static char *stale_mount(const char *dir)
{
	char *mnt = xasprintf("%s/mnt", dir);
	char *detail = NULL;
	if (mkdir(mnt, 0755) < 0)
		assert_int_equal(errno, EEXIST);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { "stale-mount-server", "-f", "-s", mnt, NULL };
		_exit(fuse_main(4, argv, &ops, NULL));
	}
	enum mountutil_state st = MOUNTUTIL_READY;
	for (int i = 0; i < 500 && (st = mountutil_probe(mnt, &detail)) != MOUNTUTIL_MOUNTED; i++) {
		free(detail);
		detail = NULL;
		sleep_ms(20);
	}
	assert_int_equal(st, MOUNTUTIL_MOUNTED); /* a live server's mount */
	free(detail);
	detail = NULL;

	struct stat before, after;
	assert_int_equal(stat(mnt, &before), 0); /* the root, cached for a minute */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* The cache still answers stat(): what an old probe took for a live
	 * mount. */
	assert_int_equal(stat(mnt, &after), 0);
	return mnt;
}

static void test_killed_server_is_stale(void **state)
{
	_cleanup_free_ char *mnt = stale_mount(*state);
	char *detail = NULL;
	assert_int_equal(mountutil_probe(mnt, &detail), MOUNTUTIL_STALE);
	assert_non_null(strstr(detail, "not connected"));
	free(detail);
	detail = NULL;
	assert_int_equal(mountutil_probe_clear(mnt, "a test server", &detail), MOUNTUTIL_READY);
	free(detail);
}

/* In a child that lost CAP_SYS_ADMIN (umount2 refused, as for an agent
 * without it): the clearing falls back to the setuid fusermount3, or, when
 * that cannot be run (PATH without it), stays stale and says what to do.
 * The child's exit status is the check's: 0 when it went as expected. */
static int clear_without_sys_admin(const char *mnt, const char *path_env)
{
	if (testdir_drop_sys_admin() < 0)
		return 11;
	if (path_env && setenv("PATH", path_env, 1) < 0)
		return 12;
	char *detail = NULL;
	enum mountutil_state st = mountutil_probe_clear(mnt, "a test server", &detail);
	if (!path_env)
		return st == MOUNTUTIL_READY ? 0 : 13;
	if (st != MOUNTUTIL_STALE || !detail || !strstr(detail, "cannot run fusermount3 to unmount ") ||
	    !strstr(detail, "install the fuse3 package or unmount it as root with 'umount -l "))
		return 14;
	return 0;
}

static int in_child(const char *mnt, const char *path_env)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) /* exit, not _exit: a coverage build's counts are written at exit */
		exit(clear_without_sys_admin(mnt, path_env));
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_cleared_without_sys_admin(void **state)
{
	_cleanup_free_ char *mnt = stale_mount(*state);
	char *detail = NULL;
	assert_int_equal(in_child(mnt, "/nonexistent-mai-test"), 0);
	assert_int_equal(mountutil_probe(mnt, &detail), MOUNTUTIL_STALE);
	free(detail);
	detail = NULL;
	assert_int_equal(in_child(mnt, NULL), 0);
	assert_int_equal(mountutil_probe(mnt, &detail), MOUNTUTIL_READY);
	free(detail);
}

/* Whatever the test's end, no mount stays behind. */
static int teardown(void **state)
{
	_cleanup_free_ char *mnt = xasprintf("%s/mnt", (const char *)*state);
	char *err = NULL;
	char *detail = NULL;
	if (mountutil_probe(mnt, &detail) != MOUNTUTIL_READY && mountutil_lazy_unmount(mnt, &err) < 0)
		print_error("%s\n", err);
	free(err);
	free(detail);
	return testdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_killed_server_is_stale, testdir_setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleared_without_sys_admin, testdir_setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
