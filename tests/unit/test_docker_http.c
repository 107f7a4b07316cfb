/* docker/docker_http.c when the other end of the socket misbehaves in ways
 * the real engine does not on demand: a reply past the size cap, silence,
 * a connection closed mid-request, an answer that is not HTTP, headers
 * that never end, a refusal of an attach. The peer is a thread on a Unix
 * socket of the test's directory that reads the request and sends a
 * scripted answer; the real engine's replies are tested against Docker
 * itself (tests/integration/test_docker.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "docker.h"
#include "docker_call.h"
#include "docker_http.h"
#include "engine_standin.h"
#include "log.h"
#include "macro.h"
#include "subprocess.h"
#include "testdir.h"


static struct docker_endpoint endpoint(const char *path)
{
	struct docker_endpoint ep;
	char *err = NULL;

	assert_int_equal(docker_endpoint_parse(path, NULL, &ep, &err), 0);
	return ep;
}

static enum docker_error call(struct standin_peer *p, const char *dir, size_t max_reply, long timeout_ms,
			      struct docker_http_reply *out, char **err)
{
	_cleanup_free_ char *path = standin_peer_start(p, dir);
	struct docker_endpoint ep = endpoint(path);
	struct docker_http_request req = { .method = "GET", .path = "/v1.41/info",
					   .timeout_ms = timeout_ms, .max_reply = max_reply };
	enum docker_error e = docker_http_call(&ep, &req, out, err);

	standin_peer_stop(p);
	docker_endpoint_clear(&ep);
	return e;
}

static void test_reply_past_the_cap(void **state)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n";
	char *big = xmalloc(sizeof(head) - 1 + 100000);
	struct standin_peer p = { .answer = big, .answer_len = sizeof(head) - 1 + 100000 };
	struct docker_http_reply r;
	_cleanup_free_ char *err = NULL;

	memcpy(big, head, sizeof(head) - 1);
	memset(big + sizeof(head) - 1, 'x', 100000);
	assert_int_equal(call(&p, *state, 4096, 10000, &r, &err), DOCKER_ERR_TOO_LARGE);
	assert_non_null(strstr(err, "exceeds 4096 bytes"));
	free(big);
}

static void test_reply_within_the_cap(void **state)
{
	struct standin_peer p = { .answer = "HTTP/1.1 500 Internal\r\nContent-Length: 2\r\n\r\n{}" };
	struct docker_http_reply r;
	_cleanup_free_ char *err = NULL;

	assert_int_equal(call(&p, *state, 4096, 10000, &r, &err), DOCKER_OK);
	assert_int_equal(r.status, 500);
	assert_string_equal(r.body, "{}");
	docker_http_reply_clear(&r);
}

static void test_silence_times_out(void **state)
{
	struct standin_peer p = { .hold_ms = 1200 };
	struct docker_http_reply r;
	_cleanup_free_ char *err = NULL;

	assert_int_equal(call(&p, *state, 4096, 300, &r, &err), DOCKER_ERR_TIMEOUT);
	assert_non_null(err);
}

static void test_closed_without_answer(void **state)
{
	struct standin_peer p = { 0 };
	struct docker_http_reply r;
	_cleanup_free_ char *err = NULL;

	assert_int_equal(call(&p, *state, 4096, 10000, &r, &err), DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "docker.sock"));
}

static enum docker_error attach(struct standin_peer *p, const char *dir, long timeout_ms,
				struct docker_stream **s, char **err)
{
	_cleanup_free_ char *path = standin_peer_start(p, dir);
	struct docker_endpoint ep = endpoint(path);
	enum docker_error e = docker_stream_open(&ep, "POST", "/v1.41/containers/c1/attach?stream=1",
						 timeout_ms, s, err);
	docker_endpoint_clear(&ep);
	return e;
}

/* Stream bytes that arrive with the reply's headers are read first, then
 * the socket's, then the end. */
static void test_attach_keeps_bytes_after_headers(void **state)
{
	struct standin_peer p = { .answer = "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\n\r\nhello" };
	struct docker_stream *s = NULL;
	_cleanup_free_ char *err = NULL;
	char buf[16];
	ssize_t n;

	assert_int_equal(attach(&p, *state, 5000, &s, &err), DOCKER_OK);
	assert_true(docker_stream_fd(s) >= 0);
	assert_int_equal(docker_stream_read(s, buf, 3), 3);
	assert_memory_equal(buf, "hel", 3);
	assert_int_equal(docker_stream_read(s, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "lo", 2);
	standin_peer_stop(&p);
	do
		n = docker_stream_read(s, buf, sizeof(buf));
	while (n == -EAGAIN);
	assert_true(n == 0 || n == -ECONNRESET);
	assert_int_equal(docker_stream_close_write(s), 0);
	docker_stream_close(s);
}

static void test_attach_refusals(void **state)
{
	static const struct { const char *answer; enum docker_error e; const char *says; } cases[] = {
		{ "HTTP/1.1 404 Not Found\r\n\r\n{\"message\":\"No such container\"}", DOCKER_ERR_NOT_FOUND,
		  "HTTP 404): {\"message\":\"No such container\"}" },
		{ "HTTP/1.1 409 Conflict\r\n\r\n{}", DOCKER_ERR_CONFLICT, "HTTP 409" },
		{ "HTTP/1.1 400 Bad Request\r\n\r\n{}", DOCKER_ERR_BAD_REQUEST, "HTTP 400" },
		{ "HTTP/1.1 500 Server Error\r\n\r\n{}", DOCKER_ERR_SERVER, "HTTP 500" },
		{ "SSH-2.0-OpenSSH\r\n\r\n", DOCKER_ERR_PROTOCOL, "is not HTTP: SSH-2.0" },
		{ "HTTP/1.1 101 UPG", DOCKER_ERR_PROTOCOL, "closed the connection during" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct standin_peer p = { .answer = cases[i].answer };
		struct docker_stream *s = NULL;
		_cleanup_free_ char *err = NULL;

		assert_int_equal(attach(&p, *state, 5000, &s, &err), cases[i].e);
		assert_null(s);
		if (!err || !strstr(err, cases[i].says))
			fail_msg("%s: expected '%s' in '%s'", cases[i].answer, cases[i].says, err);
		standin_peer_stop(&p);
	}
}

/* Headers without an end: refused at the cap, not read forever. */
static void test_attach_endless_headers(void **state)
{
	struct standin_peer p = { .answer = "X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", .repeat = 400 };
	struct docker_stream *s = NULL;
	_cleanup_free_ char *err = NULL;

	assert_int_equal(attach(&p, *state, 5000, &s, &err), DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "reply headers"));
	standin_peer_stop(&p);
}

static void test_attach_silence(void **state)
{
	struct standin_peer p = { .hold_ms = 1200 };
	struct docker_stream *s = NULL;
	_cleanup_free_ char *err = NULL;

	assert_int_equal(attach(&p, *state, 300, &s, &err), DOCKER_ERR_TIMEOUT);
	assert_non_null(strstr(err, "did not answer"));
	standin_peer_stop(&p);
}

/* The engine gone in the middle of an attach: it closed the connection
 * with the run's input unread (a reset), so the read says the connection
 * broke and a later write that it is gone. */
static void test_attach_peer_gone(void **state)
{
	struct standin_peer p = { .answer = "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\n\r\n",
			  .close_on_input = true };
	struct docker_stream *s = NULL;
	_cleanup_free_ char *err = NULL;
	char buf[16];

	assert_int_equal(attach(&p, *state, 5000, &s, &err), DOCKER_OK);
	assert_int_equal(docker_stream_write_all(s, "print(1)\n", 9, 1000), 0);
	struct pollfd pf = { .fd = docker_stream_fd(s), .events = POLLIN };
	assert_int_equal(poll(&pf, 1, 5000), 1);
	assert_int_equal(docker_stream_read(s, buf, sizeof(buf)), -ECONNRESET);
	assert_int_equal(docker_stream_write_all(s, "x", 1, 1000), -EPIPE);
	docker_stream_close(s);
	standin_peer_stop(&p);
}

/* An engine that stops reading the run's input: the write gives up at
 * its timeout instead of blocking the run. */
static void test_attach_write_times_out(void **state)
{
	struct standin_peer p = { .answer = "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\n\r\n",
			  .hold_ms = 2000 };
	struct docker_stream *s = NULL;
	_cleanup_free_ char *err = NULL;
	size_t big_len = 16u << 20;
	_cleanup_free_ char *big = xcalloc(1, big_len);

	assert_int_equal(attach(&p, *state, 5000, &s, &err), DOCKER_OK);
	assert_int_equal(docker_stream_write_all(s, big, big_len, 200), -ETIMEDOUT);
	docker_stream_close(s);
	standin_peer_stop(&p);
}

/* A refusal becomes a typed error that names what was refused, the HTTP
 * status and Docker's own message. */
static void test_status_errors(void **state)
{
	static const struct {
		long status;
		enum docker_error e;
	} cases[] = {
		{ 400, DOCKER_ERR_BAD_REQUEST }, { 404, DOCKER_ERR_NOT_FOUND },
		{ 409, DOCKER_ERR_CONFLICT }, { 500, DOCKER_ERR_SERVER }, { 503, DOCKER_ERR_SERVER },
	};
	char body[] = "{\"message\":\"no such thing\"}";
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct docker_http_reply r = { .status = cases[i].status, .body = body, .len = strlen(body) };
		char *err = NULL;
		assert_int_equal(docker_status_error("start a container", &r, &err), cases[i].e);
		char *want = xasprintf("Docker refused to start a container (HTTP %ld): no such thing",
				       cases[i].status);
		assert_string_equal(err, want);
		free(want);
		free(err);
	}
}

/* Something at the socket that answers HTTP but is not Docker: the ping
 * says what it answered and asks whether docker.socket names an engine. */
static void test_ping_of_something_else(void **state)
{
	struct standin s;
	struct docker_options o = { 0 };
	struct docker *d = NULL;
	char *err = NULL;

	standin_start(&s, *state, NULL, 0); /* 404 to everything */
	o.socket_path = s.socket_path;
	assert_int_equal(docker_open(&o, &d, &err), 0);
	assert_int_equal(docker_ping(d, &err), DOCKER_ERR_PROTOCOL);
	assert_non_null(strstr(err, "engine.sock answered /_ping with HTTP 404 '{\"message\":\"the "
				    "stand-in has no route"));
	assert_non_null(strstr(err, "instead of OK: is docker.socket in config/agent.yaml a Docker "
				    "engine?"));
	free(err);
	docker_free(d);
	standin_stop(&s);
}

/* libcurl that cannot be loaded (a damaged installation: the soname found
 * is no library): said once with the package to install, and each call
 * fails saying that libcurl is not loaded. Run in a child, whose dynamic
 * linker finds the damaged libcurl first (LD_LIBRARY_PATH). */
static void test_libcurl_not_loadable(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *self = xasprintf("/proc/%d/exe", (int)getpid());
	_cleanup_free_ char *lib = xasprintf("LD_LIBRARY_PATH=%s", dir);
	char *argv[] = { "/usr/bin/env", lib, "MAI_TEST_CURL_CHILD=1", self, NULL };
	_cleanup_free_ char *out = NULL;
	size_t len = 0;

	testdir_put(dir, "libcurl.so.4", "not a library\n");
	assert_int_equal(subprocess_capture(argv, 30000, 1 << 16, true, &out, &len), 0);
	if (!strstr(out, "cannot load libcurl.so.4 (") ||
	    !strstr(out, "Docker cannot be reached without it; install it with 'apt-get install "
			 "libcurl4'") ||
	    !strstr(out, "ping: cannot create a libcurl handle: libcurl is not loaded") ||
	    !strstr(out, "attach: cannot create a libcurl handle: libcurl is not loaded"))
		fail_msg("the child said: %s", out);
}

/* The child of test_libcurl_not_loadable. */
static int curl_child(void)
{
	struct docker_options o = { .socket_path = "/nonexistent/docker.sock" };
	struct docker *d = NULL;
	char *err = NULL;

	log_init("mai-agent", LOG_LEVEL_INFO);
	if (docker_open(&o, &d, &err) < 0)
		return 2;
	enum docker_error e = docker_ping(d, &err);
	fprintf(stderr, "ping: %s\n", err ? err : "ok");
	free(err);
	err = NULL;
	struct docker_stream *s = NULL;
	enum docker_error a = docker_container_attach(d, "c1", &s, &err);
	fprintf(stderr, "attach: %s\n", err ? err : "ok");
	free(err);
	docker_free(d);
	return e == DOCKER_ERR_IO && a == DOCKER_ERR_IO && !s ? 0 : 3;
}

int main(void)
{
	if (getenv("MAI_TEST_CURL_CHILD"))
		return curl_child();
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_reply_past_the_cap),
		T(test_reply_within_the_cap),
		T(test_silence_times_out),
		T(test_closed_without_answer),
		T(test_attach_keeps_bytes_after_headers),
		T(test_attach_refusals),
		T(test_attach_endless_headers),
		T(test_attach_silence),
		T(test_attach_peer_gone),
		T(test_attach_write_times_out),
		cmocka_unit_test(test_status_errors),
		T(test_ping_of_something_else),
		T(test_libcurl_not_loadable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
