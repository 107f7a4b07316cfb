/* HTTP to the Docker Engine API with libcurl: over its Unix socket, or over
 * TCP with mutual TLS (a remote engine). One easy handle per call, so
 * calls are safe from any thread. Replies are capped in size. docker.c makes its
 * calls through it; the sandbox reads and writes a container's attach stream
 * (struct docker_stream) through it too. */
#ifndef MAI_DOCKER_HTTP_H
#define MAI_DOCKER_HTTP_H

#include <stddef.h>
#include <sys/types.h>

#include "docker_error.h"

#define DOCKER_HTTP_DEFAULT_SOCKET "/var/run/docker.sock"

/* Where an engine answers: its Unix socket, or a TCP address that only
 * answers over TLS with a client certificate. Plain TCP is never used: the
 * Engine API is root on that host to whoever reaches it. */
struct docker_endpoint {
	char *unix_path;          /* the socket; NULL for TCP */
	char *url;                /* "http://docker" or "https://HOST:PORT" */
	char *ca, *cert, *key;    /* PEM files, for TCP */
	char *name;               /* "unix:///var/run/docker.sock", "tcp://HOST:PORT" */
};

/* The client certificate of a TCP endpoint. */
struct docker_tls {
	const char *ca, *cert, *key; /* PEM files; all three or none */
};

/* host is "unix:///path", a bare "/path", or "tcp://HOST:PORT" (which needs
 * tls with all three files). 0 with *out (docker_endpoint_clear), or -EINVAL
 * with *err (caller frees) saying what to write instead. */
int docker_endpoint_parse(const char *host, const struct docker_tls *tls,
			  struct docker_endpoint *out, char **err);
void docker_endpoint_clear(struct docker_endpoint *ep);
/* Whether the engine is on this machine (its socket), so that the kernel's
 * view of its containers (pids, cgroups) is this process's. */
static inline int docker_endpoint_is_local(const struct docker_endpoint *ep)
{
	return ep->unix_path != NULL;
}

struct docker_http_request {
	const char *method;       /* "GET", "POST", "DELETE" */
	const char *path;         /* "/v1.41/containers/create?name=x" */
	const char *content_type; /* NULL when there is no body */
	const void *body;
	size_t body_len;
	long timeout_ms;          /* whole call; 0 means none (e.g. a wait) */
	size_t max_reply;         /* larger replies fail with DOCKER_ERR_TOO_LARGE */
};

struct docker_http_reply {
	long status;  /* HTTP status */
	char *body;   /* NUL terminated; freed by docker_http_reply_clear() */
	size_t len;
};

/* Performs one request. DOCKER_OK means an HTTP reply arrived (any status:
 * the caller maps 4xx/5xx); other values are transport failures with a
 * message in *err (caller frees) that names the endpoint. */
enum docker_error docker_http_call(const struct docker_endpoint *ep, const struct docker_http_request *req,
				   struct docker_http_reply *out, char **err);
void docker_http_reply_clear(struct docker_http_reply *r);

/* A hijacked connection (attach): after the HTTP upgrade the socket carries
 * the raw stream in both directions. */
struct docker_stream;

/* Sends METHOD path with "Upgrade: tcp" and reads the reply headers; any
 * stream bytes that arrived with them are kept for docker_stream_read(). The
 * caller frees the stream with docker_stream_close(). */
enum docker_error docker_stream_open(const struct docker_endpoint *ep, const char *method, const char *path,
				     long timeout_ms, struct docker_stream **out, char **err);
/* The socket, for poll(). */
int docker_stream_fd(const struct docker_stream *s);
/* Reads what is available: >0 bytes, 0 at end of stream, -EAGAIN when
 * nothing is ready, or -errno. */
ssize_t docker_stream_read(struct docker_stream *s, void *buf, size_t len);
/* Writes all of buf (blocking with poll); 0 or -errno. */
int docker_stream_write_all(struct docker_stream *s, const void *buf, size_t len, long timeout_ms);
/* Half-closes the writing side: the container sees end of file on stdin. */
int docker_stream_close_write(struct docker_stream *s);
void docker_stream_close(struct docker_stream *s);

#endif
