/* .wait of the drop directory's mount (agent/dropfs), on a real FUSE
 * mount: a reader of .wait/NAME.result.json waits for the final result (or
 * is told at once of a rejection), at most three of one user wait at once
 * (and no cap in all), a signal
 * interrupts a wait, and the waiters of a mount that stops get an error.
 *
 * Needs root and /dev/fuse: exit 77 without them, a failure with
 * MAI_REQUIRE_REAL=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "dropfs.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "monoclock.h"
#include "mountutil.h"
#include "testdir.h"
#include "dropfs_fixture.h"

/* --- .wait --- */

static int wait_child(void *arg)
{
	int fd = open(arg, O_RDONLY);
	if (fd < 0)
		return errno == EINTR ? 4 : errno == ENOENT ? 2 : errno == ECANCELED ? 7 : 1;
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 3;
	buf[n] = '\0';
	return strstr(buf, "\"completed\"") ? 0 : 5;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int wait_interrupted(void *arg)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	return wait_child(arg);
}

static void write_result(struct fx *f, const char *sha)
{
	_cleanup_free_ char *side = xasprintf("%s/w.result.json", drop_source_dir(f->src));
	_cleanup_free_ char *text = xasprintf("{\"schema_version\": 1, \"file\": \"w.py\", "
					      "\"sha256\": \"%s\", \"state\": \"completed\"}\n", sha);
	assert_int_equal(fileio_write_atomic(side, text, strlen(text), 0644), 0);
	drop_source_changed(f->src, "w.result.json");
}

static void test_wait(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *none = at(f, ".wait/none.result.json"), *w = at(f, ".wait/w.result.json");
	put(f, "w.py", "print(4)\n");
	want_names(f, 1);
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex("print(4)\n", 9, sha);

	/* No such script: at once. */
	assert_int_equal(as_user(NOBODY, NOBODY, wait_child, none), 2);
	/* Nothing final for it yet: a signal ends the wait. */
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, w), 4);
	/* A result for other content does not count either. */
	write_result(f, "00000000000000000000000000000000000000000000000000000000000000aa");
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, w), 4);

	/* The reader blocks until the result for this content is written. */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(wait_child(w));
	pump(f, 300);
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	write_result(f, sha);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	/* .wait is listed, and lists nothing, so walking the tree never waits. */
	_cleanup_free_ char *dot = at(f, ".wait");
	struct stat s;
	assert_int_equal(stat(dot, &s), 0);
	assert_true(S_ISDIR(s.st_mode));
	DIR *d = opendir(dot);
	assert_non_null(d);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	assert_int_equal(n, 0);
	d = opendir(f->mnt);
	bool listed = false;
	while ((de = readdir(d)))
		listed |= strcmp(de->d_name, ".wait") == 0;
	closedir(d);
	assert_true(listed);
}

/* A reader of .wait: 6 for EAGAIN at once, 7 for ECANCELED (the mount
 * stopped), 0 when it opened, 1 for any other error. */
static int wait_or_eagain(void *arg)
{
	int fd = open(arg, O_RDONLY);
	if (fd < 0 && errno == EAGAIN)
		return 6;
	if (fd < 0 && errno == ECANCELED)
		return 7;
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : 1;
}

/* A reader of .wait as uid (arg: the path), forked: its pid. */
static const char *wait_path;
static pid_t reader_as(uid_t uid)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(99);
		_exit(wait_or_eagain((void *)wait_path));
	}
	return pid;
}

/* Pumps the mount until one of kids[0..n) ends; its index, its status in
 * *st. */
static int first_gone(struct fx *f, const pid_t *kids, int n, int *st)
{
	for (int t = 0; t < 400; t++) {
		for (int i = 0; i < n; i++)
			if (kids[i] > 0 && waitpid(kids[i], st, WNOHANG) == kids[i])
				return i;
		pump(f, 50);
	}
	return -1;
}

/* This process's threads: the mount serves from it, a thread per reader
 * of .wait that waits beyond its 16. */
static unsigned threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	unsigned n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Until n threads serve (each reader that waits has started one), at
 * most 20 s. */
static void want_threads(struct fx *f, unsigned n)
{
	for (int i = 0; i < 400 && threads_now() < n; i++)
		pump(f, 50);
	if (threads_now() < n)
		fprintf(stderr, "threads: %u, want %u\n", threads_now(), n);
	assert_true(threads_now() >= n);
}

/* At most DROPFS_MAX_WAITERS_PER_USER (3) readers of one user wait on
 * .wait at once, and that is the only cap: one user's fourth gets EAGAIN
 * at once, while eight users with three each (24 readers, more than the
 * mount's 16 threads) all wait, and the mount still serves everyone else
 * (a new script is taken, a ninth user's reader waits too). The waiters of
 * a mount that stops get ECANCELED, not a hang and not the ENOTCONN of a
 * mount gone under them. */
static void test_wait_limit_and_stop(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *w = at(f, ".wait/w.result.json");
	put(f, "w.py", "print(4)\n");
	want_names(f, 1);
	wait_path = w;
	unsigned base = threads_now();
	enum { N = 4 + 7 * 3 + 1 };
	pid_t kids[N];
	int st = 0, n = 0;
	/* uid 61001: four readers, one refused. */
	for (int i = 0; i < 4; i++)
		kids[n++] = reader_as(61001);
	int gone = first_gone(f, kids, n, &st);
	assert_true(gone >= 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 6);
	kids[gone] = -1;
	/* Seven more users with three each: 24 wait in all. */
	for (uid_t u = 61002; u <= 61008; u++)
		for (int i = 0; i < 3; i++)
			kids[n++] = reader_as(u);
	want_threads(f, base + 24);
	/* The mount serves on: a script written through it now is taken
	 * (each request needs a free thread: the readers hold 24). */
	put(f, "x.py", "print(5)\n");
	want_names(f, 2);
	/* ... and another user's reader waits too, refused to nobody. */
	kids[n++] = reader_as(61009);
	want_threads(f, base + 25);
	pump(f, 300);
	for (int i = 0; i < n; i++)
		if (kids[i] > 0)
			assert_int_equal(waitpid(kids[i], &st, WNOHANG), 0); /* still waiting */
	drop_source_free(f->src);
	f->src = NULL;
	for (int i = 0; i < n; i++) {
		if (kids[i] < 0)
			continue;
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 7);
	}
}

/* The agent's rejection (no SHA-256) of file as the sidecar side. */
static void write_rejection(struct fx *f, const char *side, const char *file, const char *reason)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", drop_source_dir(f->src), side);
	_cleanup_free_ char *text = xasprintf("{\"schema_version\": 1, \"file\": \"%s\", "
					      "\"state\": \"rejected\", \"reason\": \"%s\"}\n",
					      file, reason);
	assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0644), 0);
	drop_source_changed(f->src, side);
}

/* Its rejection is the final answer for a script that cannot be read (a
 * symbolic link) or whose name is not UTF-8; a script still open for
 * writing has none yet. */
static void test_wait_for_rejected_and_busy(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *s = at(f, "s.py"), *ws = at(f, ".wait/s.result.json");
	_cleanup_free_ char *b = at(f, "b.py"), *wb = at(f, ".wait/b.result.json");
	assert_int_equal(symlink("/etc/passwd", s), 0);
	want_names(f, 1);
	write_rejection(f, "s.result.json", "s.py", "symlink");
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, ws), 5); /* at once: rejected */

	/* A name that is not UTF-8 is rejected without a read: its answer
	 * has no SHA-256, and it is final all the same. */
	const char bad[] = "bad\xff.py";
	_cleanup_free_ char *wbad = xasprintf("%s/.wait/bad\xff.result.json", f->mnt);
	put(f, bad, "print(2)\n");
	want_names(f, 2);
	write_rejection(f, "bad\xff.result.json", "bad\\\\xff.py", "bad_name");
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, wbad), 5); /* at once */

	int fd = open(b, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "print(1)\n", 9), 9);
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, wb), 4);
	close(fd);
}

int main(void)
{
	int r = fx_require_fuse();
	if (r)
		return r;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_limit_and_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_rejected_and_busy, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
