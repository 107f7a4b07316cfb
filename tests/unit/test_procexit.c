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

#include "procexit.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code_and_signal),
		cmocka_unit_test(test_only_the_watched),
	};
	return test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
