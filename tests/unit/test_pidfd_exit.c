/* Exit statuses from the kernel through pidfds (pidfd_exit.h), on real
 * child processes. The status tests skip where the kernel cannot report
 * them (before Linux 6.15), where the sandbox asks the kernel's process
 * events instead (procexit.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pidfd_exit.h"
#include "waitchild.h"
#include "testdir.h"

/* The probe asks the kernel, not its version, and its answer does not
 * depend on how the process treats SIGCHLD: ignored, the kernel reaps the
 * probe's child the moment it exits. Each child process probes afresh (the
 * parent has not probed yet: this test runs first). */
static void test_probe_with_sigchld_ignored(void **state)
{
	const char *why = NULL;
	int answers[20], status;
	bool here;

	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		pid_t pid = fork();
		if (pid == 0) {
			signal(SIGCHLD, SIG_IGN);
			_exit(pidfd_exit_supported(NULL) ? 1 : 0);
		}
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		answers[i] = WEXITSTATUS(status);
	}
	here = pidfd_exit_supported(&why);
	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++)
		assert_int_equal(answers[i], here);
	if (here)
		assert_null(why);
	else
		print_message("pidfds cannot report exit statuses here: %s\n", why);
}

static void test_status_after_reap(void **state)
{
	int release, status = -1;
	pid_t pid = waitchild_start(7, &release);
	int fd = pidfd_exit_open(pid, "");

	if (!pidfd_exit_supported(NULL)) {
		close(release);
		waitpid(pid, NULL, 0);
		if (fd >= 0)
			close(fd);
		test_skip("the kernel has no pidfd exit statuses");
	}
	assert_true(fd >= 0);
	assert_int_equal(pidfd_exit_status(fd, &status), -EAGAIN); /* running */
	close(release);
	waitpid(pid, NULL, 0);
	assert_int_equal(pidfd_exit_status(fd, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(pidfd_exit_code(status), 7);
	close(fd);
}

static void test_signal_gives_128_plus(void **state)
{
	int release, status = -1;
	pid_t pid = waitchild_start(0, &release);
	int fd = pidfd_exit_open(pid, "");

	assert_true(fd >= 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(release);
	if (!pidfd_exit_supported(NULL)) {
		close(fd);
		test_skip("the kernel has no pidfd exit statuses");
	}
	assert_int_equal(pidfd_exit_status(fd, &status), 0);
	assert_int_equal(pidfd_exit_code(status), 128 + SIGKILL);
	close(fd);
}

/* The status asked while the parent reaps: the kernel's ioctl can meet the
 * process in the middle of its reap (ESRCH from Linux 6.18 about once in a
 * hundred reaps, with the asker spinning beside it), which a sandbox watch
 * woken by a container's exit does. The answer is never "cannot say": still
 * -EAGAIN, then the status. */
struct asker {
	atomic_int fd; /* -1: nothing to ask; -2: stop */
	atomic_int answer, status;
};

static void *ask_until_known(void *arg)
{
	struct asker *a = arg;

	for (;;) {
		int fd, r, status = -1;
		while ((fd = atomic_load(&a->fd)) == -1)
			sched_yield();
		if (fd == -2)
			return NULL;
		while ((r = pidfd_exit_status(fd, &status)) == -EAGAIN)
			;
		atomic_store(&a->status, status);
		atomic_store(&a->answer, r);
		atomic_store(&a->fd, -1);
	}
}

static void test_status_asked_during_reap(void **state)
{
	struct asker a = { .fd = -1 };
	pthread_t th;

	if (!pidfd_exit_supported(NULL))
		test_skip("the kernel has no pidfd exit statuses");
	assert_int_equal(pthread_create(&th, NULL, ask_until_known, &a), 0);
	/* Without the retry, one of the first hundred reaps or so fails here. */
	for (int i = 0; i < 200; i++) {
		int release;
		pid_t pid = waitchild_start(3, &release);
		int fd = pidfd_exit_open(pid, "");
		assert_true(fd >= 0);
		atomic_store(&a.answer, 1);
		atomic_store(&a.fd, fd);
		close(release);
		assert_int_equal(waitpid(pid, NULL, 0), pid);
		while (atomic_load(&a.fd) != -1)
			sched_yield();
		close(fd);
		if (atomic_load(&a.answer) != 0)
			fail_msg("reap %d: pidfd_exit_status %d (%s)", i, atomic_load(&a.answer),
				 strerror(-atomic_load(&a.answer)));
		assert_int_equal(pidfd_exit_code(atomic_load(&a.status)), 3);
	}
	atomic_store(&a.fd, -2);
	pthread_join(th, NULL);
}

/* Only a live process in the named cgroup is taken: a process elsewhere,
 * an ended one (a zombie, whose pid is about to be free) or a free pid is
 * refused, so a recycled pid is never watched in the container's stead. */
static void test_open_checks_cgroup_and_life(void **state)
{
	int release;
	pid_t pid = waitchild_start(0, &release);

	assert_int_equal(pidfd_exit_open(pid, "no-such-container-0123456789abcdef"), -EPERM);
	kill(pid, SIGKILL);
	/* A zombie until reaped: its pidfd is readable at once. */
	for (int fd; (fd = pidfd_exit_open(pid, "")) >= 0; usleep(1000))
		close(fd);
	assert_int_equal(pidfd_exit_open(pid, ""), -ESRCH);
	waitpid(pid, NULL, 0);
	close(release);
	assert_true(pidfd_exit_open(pid, "") < 0);
	assert_int_equal(pidfd_exit_open(0, ""), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_with_sigchld_ignored),
		cmocka_unit_test(test_status_after_reap),
		cmocka_unit_test(test_signal_gives_128_plus),
		cmocka_unit_test(test_status_asked_during_reap),
		cmocka_unit_test(test_open_checks_cgroup_and_life),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
