/* Exit statuses from the kernel's process events (procexit.h), on real
 * child processes. Needs the host's namespaces (and, on older kernels,
 * root): skipped otherwise, a failure instead when MAI_REQUIRE_REAL=1. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <sched.h>
#include <string.h>

#include "macro.h"
#include "procexit.h"
#include "sandbox_exit.h"
#include "waitchild.h"
#include "testdir.h"

static struct procexit *events;

static int setup(void **state)
{
	char *err = NULL;

	if (procexit_open(&events, &err) < 0) {
		if (getenv("MAI_REQUIRE_REAL"))
			fail_msg("process events: %s", err);
		print_message("process events not available: %s\n", err);
		free(err);
	}
	return 0;
}

static int teardown(void **state)
{
	procexit_close(events);
	return 0;
}

static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 5000), 1);
}

static void test_exit_code_and_signal(void **state)
{
	int release, status = -1;
	pid_t pid;
	struct procexit_watch *w;

	if (!events)
		test_skip("the kernel's process events (the proc connector) are not available");
	pid = waitchild_start(9, &release);
	w = procexit_watch(events, pid);
	assert_non_null(w);
	assert_int_equal(procexit_watch_status(w, &status), -EAGAIN);
	close(release);
	wait_readable(procexit_watch_fd(w));
	assert_int_equal(procexit_watch_status(w, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 9);
	waitpid(pid, NULL, 0);
	procexit_unwatch(events, w);

	pid = waitchild_start(0, &release);
	w = procexit_watch(events, pid);
	kill(pid, SIGKILL);
	wait_readable(procexit_watch_fd(w));
	assert_int_equal(procexit_watch_status(w, &status), 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	waitpid(pid, NULL, 0);
	close(release);
	procexit_unwatch(events, w);
}

/* Only the watched process counts: another's exit, or a thread's, is not it. */
static void test_only_the_watched(void **state)
{
	int r1, r2, status;
	pid_t a, b;
	struct procexit_watch *w;
	struct pollfd p;

	if (!events)
		test_skip("the kernel's process events (the proc connector) are not available");
	a = waitchild_start(1, &r1);
	b = waitchild_start(2, &r2);
	w = procexit_watch(events, a);
	close(r2);
	waitpid(b, NULL, 0);
	p = (struct pollfd){ .fd = procexit_watch_fd(w), .events = POLLIN };
	assert_int_equal(poll(&p, 1, 200), 0);
	assert_int_equal(procexit_watch_status(w, &status), -EAGAIN);
	close(r1);
	wait_readable(procexit_watch_fd(w));
	assert_int_equal(procexit_watch_status(w, &status), 0);
	assert_int_equal(WEXITSTATUS(status), 1);
	waitpid(a, NULL, 0);
	procexit_unwatch(events, w);
}

/* In a network namespace of its own the kernel refuses a process its
 * process events (ECONNREFUSED; the proc connector answers in the host's
 * only): procexit_open says so, and a sandbox asked for that way falls
 * back to Docker's exit path, saying why. Checked in a child, which
 * enters the namespace alone; its exit status tells which check failed. */
static int refused_in_a_namespace(const char *dir)
{
	struct procexit *p = (void *)1;
	char *err = NULL;

	if (unshare(CLONE_NEWNET) < 0)
		return 10;
	if (procexit_open(&p, &err) != -ECONNREFUSED || p ||
	    strcmp(err, "the kernel refused process events: Connection refused") != 0)
		return 11;
	free(err);
	int saved = testdir_stderr_begin(dir);
	struct sandbox_exit *ex = sandbox_exit_start(SANDBOX_EXIT_NETLINK, NULL, 2);
	_cleanup_free_ char *logged = testdir_stderr_end(dir, saved);
	if (sandbox_exit_source_get(ex) != SANDBOX_EXIT_DOCKER)
		return 12;
	if (!strstr(logged, "the ends of runs wait for Docker's exit path: the process events way "
			    "is not available (the kernel refused process events: Connection refused)"))
		return 13;
	/* Not a way to watch a run's init: none is made. */
	if (sandbox_exit_watch(ex, "0123456789ab") != NULL)
		return 14;
	sandbox_exit_stop(ex);
	return 0;
}

static void test_refused_in_a_network_namespace(void **state)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		exit(refused_in_a_namespace(*state)); /* exit: a coverage build writes its counts */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 10)
		fail_msg("unshare(CLONE_NEWNET) failed: the test needs root");
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code_and_signal),
		cmocka_unit_test(test_only_the_watched),
		cmocka_unit_test_setup_teardown(test_refused_in_a_network_namespace, testdir_setup,
						testdir_teardown),
	};
	return test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
