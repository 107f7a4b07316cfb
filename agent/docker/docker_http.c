#include "docker_http.h"

#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"

/* curl_global_init is not thread-safe: run it once, whichever thread asks. */
static pthread_once_t docker_http_once = PTHREAD_ONCE_INIT;
static void docker_http_global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

struct reply_buffer {
	char *data;
	size_t len, cap, max;
	int overflow;
};

static size_t reply_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct reply_buffer *b = userdata;
	size_t n = size * nmemb;

	if (b->len + n > b->max) {
		b->overflow = 1;
		return 0; /* makes curl stop with CURLE_WRITE_ERROR */
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static enum docker_error map_curl_error(CURLcode rc, const char *socket_path, const char *detail,
					char **err)
{
	const char *what = detail && *detail ? detail : curl_easy_strerror(rc);

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		*err = xasprintf("Docker not reachable at unix://%s (%s): start dockerd "
				 "(packaging/ensure-docker.sh) or set docker.socket in config/agent.yaml",
				 socket_path, what);
		return DOCKER_ERR_UNREACHABLE;
	case CURLE_OPERATION_TIMEDOUT:
		*err = xasprintf("Docker at unix://%s did not answer in time (%s): check that dockerd "
				 "is not overloaded or hung (its log), or raise docker.api_timeout in "
				 "config/agent.yaml", socket_path, what);
		return DOCKER_ERR_TIMEOUT;
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_WEIRD_SERVER_REPLY:
		*err = xasprintf("Docker at unix://%s broke off the reply (%s): check dockerd's log",
				 socket_path, what);
		return DOCKER_ERR_PROTOCOL;
	default:
		*err = xasprintf("talking to Docker at unix://%s failed (%s)", socket_path, what);
		return DOCKER_ERR_IO;
	}
}

static CURL *easy_new(const char *socket_path, long timeout_ms, char *errbuf)
{
	CURL *c;

	pthread_once(&docker_http_once, docker_http_global_init);
	c = curl_easy_init();
	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket_path);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	if (timeout_ms > 0)
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	return c;
}

enum docker_error docker_http_call(const char *socket_path, const struct docker_http_request *req,
				   struct docker_http_reply *out, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct reply_buffer buf = { .max = req->max_reply };
	struct curl_slist *headers = NULL;
	_cleanup_free_ char *url = xasprintf("http://docker%s", req->path);
	enum docker_error e = DOCKER_OK;
	CURL *c;
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	c = easy_new(socket_path, req->timeout_ms, errbuf);
	if (!c) {
		*err = xstrdup("cannot create a libcurl handle (out of memory?)");
		return DOCKER_ERR_IO;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, reply_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &buf);
	if (req->content_type) {
		_cleanup_free_ char *h = xasprintf("Content-Type: %s", req->content_type);
		headers = curl_slist_append(headers, h);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	} else if (strcmp(req->method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
	}
	/* The POSTFIELDS shortcut would switch the method to POST; keep ours. */
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	headers = curl_slist_append(headers, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

	rc = curl_easy_perform(c);
	if (rc == CURLE_WRITE_ERROR && buf.overflow) {
		*err = xasprintf("Docker's reply to %s %s exceeds %zu bytes: refused", req->method,
				 req->path, req->max_reply);
		e = DOCKER_ERR_TOO_LARGE;
	} else if (rc != CURLE_OK) {
		e = map_curl_error(rc, socket_path, errbuf, err);
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
		out->body = buf.data ? buf.data : xstrdup("");
		out->len = buf.len;
		buf.data = NULL;
	}
	free(buf.data);
	curl_slist_free_all(headers);
	curl_easy_cleanup(c);
	return e;
}

void docker_http_reply_clear(struct docker_http_reply *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* ---- hijacked streams (attach) ---- */

#define STREAM_HEADER_MAX 16384

struct docker_stream {
	CURL *curl;
	int fd;
	char *pending; /* stream bytes that came with the reply headers */
	size_t pending_len, pending_off;
};

static int wait_fd(int fd, short events, long timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r = poll(&p, 1, timeout_ms > 0 ? (int)timeout_ms : -1);
	if (r < 0)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

int docker_stream_fd(const struct docker_stream *s) { return s->fd; }

int docker_stream_write_all(struct docker_stream *s, const void *buf, size_t len, long timeout_ms)
{
	const char *p = buf;

	while (len > 0) {
		size_t n = 0;
		CURLcode rc = curl_easy_send(s->curl, p, len, &n);
		if (rc == CURLE_AGAIN) {
			int r = wait_fd(s->fd, POLLOUT, timeout_ms);
			if (r < 0)
				return r;
			continue;
		}
		if (rc != CURLE_OK)
			return -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

ssize_t docker_stream_read(struct docker_stream *s, void *buf, size_t len)
{
	size_t n = 0;
	CURLcode rc;

	if (s->pending_off < s->pending_len) {
		n = s->pending_len - s->pending_off;
		if (n > len)
			n = len;
		memcpy(buf, s->pending + s->pending_off, n);
		s->pending_off += n;
		return (ssize_t)n;
	}
	rc = curl_easy_recv(s->curl, buf, len, &n);
	if (rc == CURLE_AGAIN)
		return -EAGAIN;
	if (rc != CURLE_OK)
		return -ECONNRESET;
	return (ssize_t)n;
}

int docker_stream_close_write(struct docker_stream *s)
{
	return shutdown(s->fd, SHUT_WR) < 0 ? -errno : 0;
}

void docker_stream_close(struct docker_stream *s)
{
	if (!s)
		return;
	curl_easy_cleanup(s->curl);
	free(s->pending);
	free(s);
}

static enum docker_error stream_status_error(long status, const char *body, const char *path,
					     char **err)
{
	*err = xasprintf("Docker refused %s (HTTP %ld): %.300s", path, status, body);
	if (status == 404)
		return DOCKER_ERR_NOT_FOUND;
	if (status == 409)
		return DOCKER_ERR_CONFLICT;
	if (status == 400)
		return DOCKER_ERR_BAD_REQUEST;
	return DOCKER_ERR_SERVER;
}

enum docker_error docker_stream_open(const char *socket_path, const char *method, const char *path,
				     long timeout_ms, struct docker_stream **out, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct docker_stream *s = xcalloc(1, sizeof(*s));
	_cleanup_free_ char *request = NULL;
	char *head = xmalloc(STREAM_HEADER_MAX + 1), *end = NULL;
	size_t head_len = 0;
	curl_socket_t sock;
	enum docker_error e;
	long status = 0;
	CURLcode rc;
	int r;

	*out = NULL;
	s->curl = easy_new(socket_path, timeout_ms, errbuf);
	if (!s->curl) {
		*err = xstrdup("cannot create a libcurl handle (out of memory?)");
		e = DOCKER_ERR_IO;
		goto fail;
	}
	/* CONNECT_ONLY: libcurl connects and hands over the socket; the upgrade
	 * request is ours, since libcurl does not speak Docker's hijacked HTTP. */
	curl_easy_setopt(s->curl, CURLOPT_URL, "http://docker/");
	curl_easy_setopt(s->curl, CURLOPT_CONNECT_ONLY, 1L);
	rc = curl_easy_perform(s->curl);
	if (rc != CURLE_OK) {
		e = map_curl_error(rc, socket_path, errbuf, err);
		goto fail;
	}
	curl_easy_getinfo(s->curl, CURLINFO_ACTIVESOCKET, &sock);
	s->fd = (int)sock;

	request = xasprintf("%s %s HTTP/1.1\r\nHost: docker\r\nUser-Agent: mai-agent\r\n"
			    "Content-Type: text/plain\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
			    method, path);
	r = docker_stream_write_all(s, request, strlen(request), timeout_ms);
	if (r < 0) {
		*err = xasprintf("sending %s to Docker at unix://%s failed: %s", path, socket_path,
				 strerror(-r));
		e = DOCKER_ERR_IO;
		goto fail;
	}
	while (!(end = memmem(head, head_len, "\r\n\r\n", 4))) {
		ssize_t n;
		if (head_len == STREAM_HEADER_MAX) {
			*err = xasprintf("Docker's reply headers to %s exceed %d bytes", path,
					 STREAM_HEADER_MAX);
			e = DOCKER_ERR_PROTOCOL;
			goto fail;
		}
		n = docker_stream_read(s, head + head_len, STREAM_HEADER_MAX - head_len);
		if (n == -EAGAIN) {
			r = wait_fd(s->fd, POLLIN, timeout_ms);
			if (r < 0) {
				*err = xasprintf("Docker at unix://%s did not answer %s: %s", socket_path,
						 path, strerror(-r));
				e = r == -ETIMEDOUT ? DOCKER_ERR_TIMEOUT : DOCKER_ERR_IO;
				goto fail;
			}
			continue;
		}
		if (n <= 0) {
			*err = xasprintf("Docker at unix://%s closed the connection during %s", socket_path,
					 path);
			e = DOCKER_ERR_PROTOCOL;
			goto fail;
		}
		head_len += (size_t)n;
	}
	head[head_len] = '\0';
	if (sscanf(head, "HTTP/1.%*d %ld", &status) != 1) {
		*err = xasprintf("Docker's reply to %s is not HTTP: %.60s", path, head);
		e = DOCKER_ERR_PROTOCOL;
		goto fail;
	}
	if (status != 101 && status != 200) {
		e = stream_status_error(status, end + 4, path, err);
		goto fail;
	}
	s->pending_len = head_len - (size_t)(end + 4 - head);
	s->pending = xmalloc(s->pending_len + 1);
	memcpy(s->pending, end + 4, s->pending_len);
	free(head);
	*out = s;
	return DOCKER_OK;
fail:
	free(head);
	docker_stream_close(s);
	return e;
}
