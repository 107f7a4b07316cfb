/* A FUSE server killed with SIGKILL leaves a stale mount whose root the
 * kernel still describes from its attribute cache: mountutil_probe() must
 * call it stale (and mountutil_probe_clear() clear it), not "already a
 * mount point" of a live server. A real FUSE mount, served by a child with
 * a root that stays cached for a minute, killed once the cache holds it. */
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

static void test_killed_server_is_stale(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *mnt = xasprintf("%s/mnt", dir);
	char *detail = NULL;
	assert_int_equal(mkdir(mnt, 0755), 0);

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

	assert_int_equal(mountutil_probe(mnt, &detail), MOUNTUTIL_STALE);
	assert_non_null(strstr(detail, "not connected"));
	free(detail);
	detail = NULL;
	assert_int_equal(mountutil_probe_clear(mnt, "a test server", &detail), MOUNTUTIL_READY);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
