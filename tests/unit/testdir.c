#include "testdir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "macro.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path) < 0 ? -errno : 0;
}

int testdir_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int testdir_setup(void **state)
{
	const char *base = getenv("TMPDIR");
	char *dir = malloc(4096);
	if (!dir)
		return -1;
	snprintf(dir, 4096, "%s/mai-test.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

int testdir_teardown(void **state)
{
	char *dir = *state;
	int r = testdir_remove_tree(dir);
	free(dir);
	return r == 0 ? 0 : -1;
}

void testdir_tick(void)
{
	struct timespec start, now;
	clock_gettime(CLOCK_REALTIME, &start);
	do {
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	} while (now.tv_sec < start.tv_sec ||
		 (now.tv_sec == start.tv_sec && now.tv_nsec <= start.tv_nsec));
}

static unsigned skipped;

void test_skip_noted(const char *why)
{
	skipped++;
	fprintf(stderr, "SKIP: %s%s\n", why,
		getenv("MAI_REQUIRE_REAL") && strcmp(getenv("MAI_REQUIRE_REAL"), "1") == 0
			? " (a failure: MAI_REQUIRE_REAL=1)" : "");
}

int test_exit(int failed)
{
	if (failed || !skipped)
		return failed;
	const char *real = getenv("MAI_REQUIRE_REAL");
	if (real && strcmp(real, "1") == 0) {
		fprintf(stderr, "FAIL: %u test(s) skipped and MAI_REQUIRE_REAL=1\n", skipped);
		return 1;
	}
	return 77;
}

int testdir_open(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

void testdir_put(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(p, text, strlen(text), 0644), 0);
}

char *testdir_nest(const char *dir, unsigned levels)
{
	char *p = xstrdup(dir);
	for (unsigned i = 0; i < levels; i++) {
		char *q = xasprintf("%s/d", p);
		free(p);
		p = q;
		assert_int_equal(mkdir(p, 0755), 0);
	}
	return p;
}

int testdir_stderr_begin(const char *dir)
{
	_cleanup_free_ char *path = xasprintf("%s/stderr", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int saved = dup(STDERR_FILENO);

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	return saved;
}

char *testdir_stderr_end(const char *dir, int saved)
{
	_cleanup_free_ char *path = xasprintf("%s/stderr", dir);
	char *text = NULL;
	size_t len;

	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	assert_int_equal(fileio_read_path(path, 1 << 20, &text, &len), 0);
	return text;
}

char *testdir_small_fs(const char *dir, const char *name, const char *opts)
{
	static bool unshared;
	if (!unshared) {
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return NULL;
		unshared = true;
	}
	char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		rmdir(p);
		free(p);
		return NULL;
	}
	return p;
}

void testdir_unmount(const char *path)
{
	assert_int_equal(umount2(path, MNT_DETACH), 0);
}

struct rlimit testdir_fd_limit(unsigned spare)
{
	struct rlimit saved, lim;
	int lowest = dup(0);
	assert_true(lowest >= 0);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	lim = saved;
	lim.rlim_cur = (rlim_t)lowest + spare;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	return saved;
}

void testdir_fd_limit_end(const struct rlimit *saved)
{
	assert_int_equal(setrlimit(RLIMIT_NOFILE, saved), 0);
}

int testdir_drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[0].effective &= ~(1u << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1u << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

unsigned testdir_fill_inodes(const char *dir)
{
	for (unsigned n = 0;; n++) {
		_cleanup_free_ char *p = xasprintf("%s/fill-%u", dir, n);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			assert_int_equal(errno, ENOSPC);
			return n;
		}
		close(fd);
	}
}
