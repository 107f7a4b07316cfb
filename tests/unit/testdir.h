/* cmocka fixtures: each test gets its own temporary directory in *state,
 * removed with everything in it afterwards. */
#ifndef MAI_TESTDIR_H
#define MAI_TESTDIR_H

#include <sys/resource.h>

int testdir_setup(void **state);
int testdir_teardown(void **state);
/* rm -rf of one directory tree, without following symlinks. 0 or -errno. */
int testdir_remove_tree(const char *path);
/* Waits until the clock that stamps files (CLOCK_REALTIME_COARSE, at most
 * a tick behind) has passed this moment: a file written afterwards is
 * stamped later than anything done before the call. What a person who
 * reads a held result and then writes an answer does by being slow. */
void testdir_tick(void);
/* dir opened as a directory (O_CLOEXEC); the test fails when it cannot be. */
int testdir_open(const char *dir);
/* dir/name written with text (atomically, mode 0644); the test fails
 * when it cannot be. */
void testdir_put(const char *dir, const char *name, const char *text);
/* dir/d/d/... (levels of "d", each made 0755); caller frees. */
char *testdir_nest(const char *dir, unsigned levels);
/* stderr to dir/stderr from now (what the code under test logs); the
 * saved descriptor for testdir_stderr_end(). */
int testdir_stderr_begin(const char *dir);
/* stderr back; what was written to it meanwhile (caller frees). */
char *testdir_stderr_end(const char *dir, int saved);

/* A tmpfs of its own mounted at dir/name (made), with mount options opts
 * ("size=8k,nr_inodes=4"): a disk that really fills. The mount lives in a
 * private mount namespace the calling thread enters on its first call, so
 * nothing of it outlives the process; call it before starting threads that
 * must see it. Needs root: NULL when the mount cannot be made (the caller
 * skips). Caller frees, and unmounts with testdir_unmount() before the
 * test's directory is removed. */
char *testdir_small_fs(const char *dir, const char *name, const char *opts);
/* Empty files dir/fill-0, fill-1, ... made until the disk has no inode
 * left (the test fails on any other error): how many were made. */
unsigned testdir_fill_inodes(const char *dir);
/* umount2(path, MNT_DETACH); the test fails when it cannot. */
void testdir_unmount(const char *path);

/* No descriptor left, for real: RLIMIT_NOFILE lowered to the lowest free
 * descriptor plus spare, so that the next spare descriptors open and the
 * one after fails with EMFILE. Returns the limit to give back to
 * testdir_fd_limit_end(). */
struct rlimit testdir_fd_limit(unsigned spare);
void testdir_fd_limit_end(const struct rlimit *saved);

/* Drops CAP_SYS_ADMIN from the calling process's effective and permitted
 * sets (mount(2) and umount2(2) refused from then on, as for an agent
 * without it; a setuid program it runs gets its own). For a child the
 * test forks. 0 or -errno. */
int testdir_drop_sys_admin(void);

/* A test that cannot run here says why and returns (cmocka's skip()); the
 * program then exits with test_exit(): 77, meson's SKIP, when a test was
 * skipped and none failed, or 1 when MAI_REQUIRE_REAL=1 (as ./run-tests
 * sets: nothing may skip there). A skip() alone would exit 0, an OK. */
#define test_skip(why)                  \
	do {                            \
		test_skip_noted(why);   \
		skip();                 \
	} while (0)
void test_skip_noted(const char *why);
/* main's return: cmocka_run_group_tests()'s failures, else 77 or 1 as
 * above when a test was skipped, else 0. */
int test_exit(int failed);

#endif
