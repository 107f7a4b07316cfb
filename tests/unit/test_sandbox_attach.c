/* sandbox_attach_pump on a stream whose engine does what Docker does not
 * on demand: a frame header that is not Docker's, a connection reset with
 * the run's input unread; and the end told by the kernel after Docker's
 * end of stream, while the init is still unreaped (a real child process
 * and its pidfd: the kernel says "not yet" until the test reaps it). The
 * real engine's attach is tested in tests/integration (test_docker,
 * sandbox_end). The engine is tests/unit/engine_standin.c's raw peer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "docker_http.h"
#include "engine_standin.h"
#include "macro.h"
#include "monoclock.h"
#include "pidfd_exit.h"
#include "sandbox_attach.h"
#include "testdir.h"
#include "waitchild.h"

static struct docker_stream *open_stream(struct standin_peer *p, const char *dir)
{
	_cleanup_free_ char *path = standin_peer_start(p, dir);
	struct docker_endpoint ep;
	struct docker_stream *s = NULL;
	char *err = NULL;

	assert_int_equal(docker_endpoint_parse(path, NULL, &ep, &err), 0);
	assert_int_equal(docker_stream_open(&ep, "POST", "/v1.41/containers/c1/attach?stream=1",
					    5000, &s, &err), DOCKER_OK);
	docker_endpoint_clear(&ep);
	return s;
}

#define UPGRADED "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\n\r\n"

/* A frame header that is not Docker's: the stream is abandoned. */
static void test_not_docker_frames(void **state)
{
	struct standin_peer p = { .answer = UPGRADED "garbage!", .hold_ms = 200 };
	struct docker_stream *s = open_stream(&p, *state);
	struct sandbox_demux d;
	int error = 0;

	sandbox_demux_init(&d, 1024, 1024);
	assert_int_equal(sandbox_attach_pump(s, &d, NULL, 0, NULL, NULL, monoclock_ms() + 5000, true,
					     NULL, &error), SANDBOX_ATTACH_ERROR);
	assert_int_equal(error, -EPROTO);
	sandbox_demux_clear(&d);
	docker_stream_close(s);
	standin_peer_stop(&p);
}

/* The engine closes the connection with the run's input unread: the
 * stream broke (a reset), said as such, whatever was being written. */
static void test_reset_with_input_unread(void **state)
{
	struct standin_peer p = { .answer = UPGRADED, .close_on_input = true };
	struct docker_stream *s = open_stream(&p, *state);
	struct sandbox_demux d;
	size_t len = 1u << 20;
	_cleanup_free_ uint8_t *input = xcalloc(1, len);
	int error = 0;

	sandbox_demux_init(&d, 1024, 1024);
	assert_int_equal(sandbox_attach_pump(s, &d, input, len, NULL, NULL, monoclock_ms() + 5000,
					     true, NULL, &error), SANDBOX_ATTACH_ERROR);
	assert_int_equal(error, -ECONNRESET);
	sandbox_demux_clear(&d);
	docker_stream_close(s);
	standin_peer_stop(&p);
}

struct reaper {
	pid_t pid;
	int status;
	pthread_t thread;
};

/* Reaps the child 100 ms after its end: its status stays "not yet" for
 * the kernel until then, as a container's init stays until its shim reaps
 * it. */
static void *reap_late(void *arg)
{
	struct reaper *r = arg;
	siginfo_t si;

	assert_int_equal(waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOWAIT), 0);
	usleep(100 * 1000);
	assert_int_equal(waitpid(r->pid, &r->status, 0), r->pid);
	return NULL;
}

static int pidfd_status(void *ctx, int *status)
{
	return pidfd_exit_status(*(int *)ctx, status);
}

/* Docker's end of stream with both markers in, the init ended but not yet
 * reaped: the pump waits for the kernel's word (asking again and again)
 * and reports the exit with its status. */
static void test_exit_told_after_the_stream(void **state)
{
	if (!pidfd_exit_supported(NULL))
		fail_msg("the kernel cannot report exit statuses through pidfds");
	static const char marker[] = "\x1eMAI-END 0123456789abcdef\n";
	static char answer[512];
	size_t len = strlen(UPGRADED);
	memcpy(answer, UPGRADED, len);
	len = standin_frame(answer, len, 1, "hello\n");
	len = standin_frame(answer, len, 1, marker);
	len = standin_frame(answer, len, 2, marker);
	struct standin_peer p = { .answer = answer, .answer_len = len };
	int release;
	struct reaper r = { .pid = waitchild_start(7, &release) };
	int fd = pidfd_exit_open(r.pid, "");
	assert_true(fd >= 0);
	struct sandbox_exit_watch w = { .fd = fd, .get_status = pidfd_status, .ctx = &fd };
	struct docker_stream *s = open_stream(&p, *state);
	struct sandbox_demux d;
	int error = 0;

	sandbox_demux_init(&d, 1024, 1024);
	sandbox_demux_expect_marker(&d, marker);
	assert_int_equal(pthread_create(&r.thread, NULL, reap_late, &r), 0);
	close(release);
	enum sandbox_attach_end end = sandbox_attach_pump(s, &d, NULL, 0, NULL, &w,
							  monoclock_ms() + 5000, true, NULL, &error);
	assert_int_equal(pthread_join(r.thread, NULL), 0);
	assert_int_equal(end, SANDBOX_ATTACH_EXITED);
	assert_true(w.known);
	assert_true(w.pending_since > 0);
	assert_true(WIFEXITED(w.status));
	assert_int_equal(WEXITSTATUS(w.status), 7);
	sandbox_demux_strip_marker(&d);
	assert_string_equal(d.out.data, "hello\n");
	sandbox_demux_clear(&d);
	docker_stream_close(s);
	standin_peer_stop(&p);
	close(fd);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_not_docker_frames),
		T(test_reset_with_input_unread),
		T(test_exit_told_after_the_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
