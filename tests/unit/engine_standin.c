#include "engine_standin.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"

int standin_listen(const char *dir, const char *name, char **path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	*path = xasprintf("%s/%s", dir, name);
	unlink(*path);
	assert_true(strlen(*path) < sizeof(sa.sun_path));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", *path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	return fd;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 404: return "Not Found";
	case 409: return "Conflict";
	default: return status >= 500 ? "Server Error" : "Status";
	}
}

/* A prefix of path, or with a final '$' the whole of it before its query. */
static bool path_matches(const char *path, const char *route)
{
	size_t n = strlen(route);

	if (n && route[n - 1] == '$')
		return strncmp(path, route, n - 1) == 0 && (path[n - 1] == '\0' || path[n - 1] == '?');
	return strncmp(path, route, n) == 0;
}

/* One request: its headers and a body of Content-Length. */
static void answer(struct standin *s, int fd)
{
	char buf[65536], method[16] = "", target[2048] = "";
	size_t got = 0;
	char *end = NULL;

	while (got < sizeof(buf) - 1 && !end) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			return;
		got += (size_t)n;
		buf[got] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end || sscanf(buf, "%15s %2047s", method, target) != 2)
		return;
	const char *cl = strcasestr(buf, "\r\nContent-Length:");
	size_t body = cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
	size_t have = got - (size_t)(end + 4 - buf);
	while (have < body) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return;
		have += (size_t)n;
	}

	/* The path after the API's version prefix, "/v1.41". */
	const char *path = target;
	if (strncmp(path, "/v1.", 4) == 0 && strchr(path + 1, '/'))
		path = strchr(path + 1, '/');
	const struct standin_route *hit = NULL;
	pthread_mutex_lock(&s->lock);
	size_t l = strlen(s->log);
	snprintf(s->log + l, sizeof(s->log) - l, "%s %s\n", method, path);
	for (size_t i = 0; i < s->n_routes && !hit; i++) {
		const struct standin_route *r = &s->routes[i];
		if (strcmp(r->method, method) != 0 || !path_matches(path, r->path))
			continue;
		if (r->times && s->used[i] >= r->times)
			continue;
		s->used[i]++;
		hit = r;
	}
	pthread_mutex_unlock(&s->lock);

	if (hit && hit->status == 0)
		return; /* the connection closed without a reply */
	_cleanup_free_ char *miss = NULL;
	int status = hit ? hit->status : 404;
	const char *text = hit ? hit->body : NULL;
	if (!hit)
		text = miss = xasprintf("{\"message\":\"the stand-in has no route for %s %s\"}",
					method, path);
	size_t len = !text ? 0 : hit && hit->body_len ? hit->body_len : strlen(text);
	_cleanup_free_ char *head = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
					      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
					      status, reason(status), len);
	/* MSG_NOSIGNAL: a client that gave up and closed must not kill the
	 * test with SIGPIPE. */
	if (send(fd, head, strlen(head), MSG_NOSIGNAL) == (ssize_t)strlen(head) && len)
		(void)!send(fd, text, len, MSG_NOSIGNAL);
}

static void *serve(void *arg)
{
	struct standin *s = arg;

	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return NULL; /* standin_stop() shut the socket */
		answer(s, fd);
		close(fd);
	}
}

void standin_start(struct standin *s, const char *dir, const struct standin_route *routes,
		   size_t n_routes)
{
	memset(s, 0, sizeof(*s));
	assert_true(n_routes <= STANDIN_MAX_ROUTES);
	s->routes = routes;
	s->n_routes = n_routes;
	pthread_mutex_init(&s->lock, NULL);
	s->lfd = standin_listen(dir, "engine.sock", &s->socket_path);
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

void standin_stop(struct standin *s)
{
	shutdown(s->lfd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->lfd);
	unlink(s->socket_path);
	free(s->socket_path);
	pthread_mutex_destroy(&s->lock);
}

unsigned standin_seen(struct standin *s, const char *method, const char *path)
{
	_cleanup_free_ char *want = xasprintf("%s %s", method, path);
	unsigned n = 0;

	pthread_mutex_lock(&s->lock);
	for (const char *p = s->log; (p = strstr(p, want)); p++)
		n += p == s->log || p[-1] == '\n';
	pthread_mutex_unlock(&s->lock);
	return n;
}

static void *peer_serve(void *arg)
{
	struct standin_peer *p = arg;
	int fd = accept(p->lfd, NULL, NULL);
	char buf[4096];
	size_t got = 0;

	if (fd < 0)
		return NULL;
	/* The request's headers (and a small body, if any, with them). */
	while (got < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	for (size_t i = 0; p->answer && i < (p->repeat ? p->repeat : 1); i++) {
		size_t len = p->answer_len ? p->answer_len : strlen(p->answer);
		/* MSG_NOSIGNAL: the client may have given up and closed (the
		 * endless headers), which must not kill the test with SIGPIPE. */
		if (send(fd, p->answer, len, MSG_NOSIGNAL) != (ssize_t)len)
			break;
	}
	if (p->hold_ms)
		usleep((useconds_t)p->hold_ms * 1000);
	if (p->close_on_input) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		(void)poll(&pf, 1, 5000);
	}
	close(fd);
	return NULL;
}

char *standin_peer_start(struct standin_peer *p, const char *dir)
{
	char *path = NULL;

	p->lfd = standin_listen(dir, "docker.sock", &path);
	assert_int_equal(pthread_create(&p->thread, NULL, peer_serve, p), 0);
	return path;
}

void standin_peer_stop(struct standin_peer *p)
{
	shutdown(p->lfd, SHUT_RDWR);
	pthread_join(p->thread, NULL);
	close(p->lfd);
}

size_t standin_frame(char *buf, size_t len, int stream, const char *text)
{
	size_t n = strlen(text);
	const char head[8] = { (char)stream, 0, 0, 0, (char)(n >> 24), (char)(n >> 16),
			       (char)(n >> 8), (char)n };

	memcpy(buf + len, head, 8);
	memcpy(buf + len + 8, text, n);
	return len + 8 + n;
}
