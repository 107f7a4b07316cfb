#include "docker_http.h"

#include <curl/curl.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"

/* No handle: libcurl could not be loaded (curl_loader.c logged why, once),
 * or memory ran out. */
#define CURL_HANDLE_FAILED "cannot create a libcurl handle: libcurl is not loaded (see the " \
			   "warning about it) or memory ran out"

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

static enum docker_error map_curl_error(CURLcode rc, const struct docker_endpoint *ep,
					const char *detail, char **err)
{
	const char *what = detail && *detail ? detail : curl_easy_strerror(rc);
	const char *name = ep->name;

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		*err = xasprintf("Docker not reachable at %s (%s): start dockerd "
				 "(packaging/ensure-docker.sh) or set docker.socket in config/agent.yaml "
				 "(engine.host in config/sandbox.yaml)", name, what);
		return DOCKER_ERR_UNREACHABLE;
	case CURLE_OPERATION_TIMEDOUT:
		*err = xasprintf("Docker at %s did not answer in time (%s): check that dockerd "
				 "is not overloaded or hung (its log), or raise docker.api_timeout in "
				 "config/agent.yaml", name, what);
		return DOCKER_ERR_TIMEOUT;
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_WEIRD_SERVER_REPLY:
		*err = xasprintf("Docker at %s broke off the reply (%s): check dockerd's log", name,
				 what);
		return DOCKER_ERR_PROTOCOL;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
		/* Not a passing outage: retrying does not fix a certificate. */
		*err = xasprintf("the TLS handshake with Docker at %s failed (%s): check "
				 "engine.tls (ca, cert, key) in config/sandbox.yaml against the "
				 "engine's --tlscacert, and that its certificate names the host", name,
				 what);
		return DOCKER_ERR_IO;
	default:
		*err = xasprintf("talking to Docker at %s failed (%s)", name, what);
		return DOCKER_ERR_IO;
	}
}

int docker_endpoint_parse(const char *host, const struct docker_tls *tls,
			  struct docker_endpoint *out, char **err)
{
	bool have_tls = tls && tls->ca && *tls->ca && tls->cert && *tls->cert && tls->key &&
			*tls->key;
	bool some_tls = tls && ((tls->ca && *tls->ca) || (tls->cert && *tls->cert) ||
				(tls->key && *tls->key));

	memset(out, 0, sizeof(*out));
	if (!host || !*host)
		host = "unix://" DOCKER_HTTP_DEFAULT_SOCKET;
	if (host[0] == '/' || strncmp(host, "unix://", 7) == 0) {
		const char *path = host[0] == '/' ? host : host + 7;
		if (path[0] != '/') {
			*err = xasprintf("'%s' is not a Docker host: a Unix socket is "
					 "unix:///absolute/path", host);
			return -EINVAL;
		}
		out->unix_path = xstrdup(path);
		out->url = xstrdup("http://docker");
		out->name = xasprintf("unix://%s", path);
		return 0;
	}
	if (strncmp(host, "tcp://", 6) != 0 && strncmp(host, "https://", 8) != 0) {
		*err = xasprintf("'%s' is not a Docker host: write unix:///path/to/docker.sock "
				 "or tcp://HOST:2376 (with TLS)", host);
		return -EINVAL;
	}
	const char *addr = strchr(host, '/') + 2;
	size_t alen = strcspn(addr, "/");
	if (alen == 0 || addr[alen] != '\0' || !memchr(addr, ':', alen)) {
		*err = xasprintf("'%s' is not a Docker host: write tcp://HOST:PORT (2376 is "
				 "Docker's TLS port)", host);
		return -EINVAL;
	}
	if (!have_tls) {
		*err = xasprintf("the Docker host %s is TCP without %s TLS client certificate: "
				 "the Engine API gives root on that host to whoever reaches it, so "
				 "plain TCP is refused; give engine.tls ca, cert and key in "
				 "config/sandbox.yaml (or DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH "
				 "with ca.pem, cert.pem, key.pem), and start that dockerd with "
				 "--tlsverify", host, some_tls ? "a complete" : "a");
		return -EINVAL;
	}
	out->url = xasprintf("https://%.*s", (int)alen, addr);
	out->name = xasprintf("tcp://%.*s", (int)alen, addr);
	out->ca = xstrdup(tls->ca);
	out->cert = xstrdup(tls->cert);
	out->key = xstrdup(tls->key);
	return 0;
}

void docker_endpoint_clear(struct docker_endpoint *ep)
{
	free(ep->unix_path);
	free(ep->url);
	free(ep->ca);
	free(ep->cert);
	free(ep->key);
	free(ep->name);
	memset(ep, 0, sizeof(*ep));
}

static CURL *easy_new(const struct docker_endpoint *ep, long timeout_ms, char *errbuf)
{
	CURL *c;

	pthread_once(&docker_http_once, docker_http_global_init);
	c = curl_easy_init();
	if (!c)
		return NULL;
	if (ep->unix_path) {
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, ep->unix_path);
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	} else {
		/* Mutual TLS: the engine's certificate checked against the CA,
		 * ours presented. */
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
		curl_easy_setopt(c, CURLOPT_CAINFO, ep->ca);
		curl_easy_setopt(c, CURLOPT_SSLCERT, ep->cert);
		curl_easy_setopt(c, CURLOPT_SSLKEY, ep->key);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
		curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
	}
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	if (timeout_ms > 0)
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	return c;
}

enum docker_error docker_http_call(const struct docker_endpoint *ep, const struct docker_http_request *req,
				   struct docker_http_reply *out, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct reply_buffer buf = { .max = req->max_reply };
	struct curl_slist *headers = NULL;
	_cleanup_free_ char *url = xasprintf("%s%s", ep->url, req->path);
	enum docker_error e = DOCKER_OK;
	CURL *c;
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	c = easy_new(ep, req->timeout_ms, errbuf);
	if (!c) {
		*err = xstrdup(CURL_HANDLE_FAILED);
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
		e = map_curl_error(rc, ep, errbuf, err);
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

enum docker_error docker_stream_open(const struct docker_endpoint *ep, const char *method, const char *path,
				     long timeout_ms, struct docker_stream **out, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct docker_stream *s = xcalloc(1, sizeof(*s));
	_cleanup_free_ char *request = NULL, *base = NULL;
	char *head = xmalloc(STREAM_HEADER_MAX + 1), *end = NULL;
	size_t head_len = 0;
	curl_socket_t sock;
	enum docker_error e;
	long status = 0;
	CURLcode rc;
	int r;

	*out = NULL;
	s->curl = easy_new(ep, timeout_ms, errbuf);
	if (!s->curl) {
		*err = xstrdup(CURL_HANDLE_FAILED);
		e = DOCKER_ERR_IO;
		goto fail;
	}
	/* CONNECT_ONLY: libcurl connects and hands over the socket; the upgrade
	 * request is ours, since libcurl does not speak Docker's hijacked HTTP. */
	base = xasprintf("%s/", ep->url);
	curl_easy_setopt(s->curl, CURLOPT_URL, base);
	curl_easy_setopt(s->curl, CURLOPT_CONNECT_ONLY, 1L);
	rc = curl_easy_perform(s->curl);
	if (rc != CURLE_OK) {
		e = map_curl_error(rc, ep, errbuf, err);
		goto fail;
	}
	curl_easy_getinfo(s->curl, CURLINFO_ACTIVESOCKET, &sock);
	s->fd = (int)sock;

	request = xasprintf("%s %s HTTP/1.1\r\nHost: docker\r\nUser-Agent: mai-agent\r\n"
			    "Content-Type: text/plain\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
			    method, path);
	r = docker_stream_write_all(s, request, strlen(request), timeout_ms);
	if (r < 0) {
		*err = xasprintf("sending %s to Docker at %s failed: %s", path, ep->name,
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
				*err = xasprintf("Docker at %s did not answer %s: %s", ep->name,
						 path, strerror(-r));
				e = r == -ETIMEDOUT ? DOCKER_ERR_TIMEOUT : DOCKER_ERR_IO;
				goto fail;
			}
			continue;
		}
		if (n <= 0) {
			*err = xasprintf("Docker at %s closed the connection during %s", ep->name,
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
