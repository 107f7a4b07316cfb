/* A stand-in for Docker's Engine API on a Unix socket, for the error paths
 * the real engine cannot be made to produce on demand (a 500 from a call
 * it accepted a moment before, a body that is not JSON, Swarm log streams
 * with a node's "Error grabbing logs" frame, task states a single-host
 * swarm does not show when asked). Everything the real engine can do is
 * tested against the real engine (tests/integration/test_docker.c,
 * swarm.sh). A thread answers each connection's one request from a table
 * of routes, first match wins; a request no route matches is answered 404
 * with a message that names it, so a test sees what it did not expect. */
#ifndef MAI_ENGINE_STANDIN_H
#define MAI_ENGINE_STANDIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct standin_route {
	const char *method;     /* "GET", "POST", "DELETE" */
	const char *path;       /* a prefix of the request's path (after /v1.xx); with a
				 * final '$', the whole path before its query */
	int status;             /* 0: the connection closed without a reply */
	const char *body;       /* sent as is; NULL: empty */
	size_t body_len;        /* 0: strlen(body) */
	unsigned times;         /* answers this many requests, then stands aside; 0: all */
};

/* A route that answers every request: ROUTE("GET", "/info", 200, "{}"). */
#define ROUTE(m, p, st, b) { .method = (m), .path = (p), .status = (st), .body = (b) }
/* A route that answers the first n requests only. */
#define ROUTE_N(m, p, st, b, n) { .method = (m), .path = (p), .status = (st), .body = (b), .times = (n) }

#define STANDIN_MAX_ROUTES 32
#define STANDIN_LOG_MAX 4096

struct standin {
	int lfd;
	char *socket_path;      /* DIR/engine.sock */
	const struct standin_route *routes;
	size_t n_routes;
	unsigned used[STANDIN_MAX_ROUTES];
	char log[STANDIN_LOG_MAX];  /* "METHOD PATH\n" of each request, in order */
	pthread_mutex_t lock;
	pthread_t thread;
};

/* A listening Unix socket at DIR/NAME (a stale one removed first); *path
 * its name (caller frees). Fails the test when it cannot be made. */
int standin_listen(const char *dir, const char *name, char **path);
/* Serves routes on DIR/engine.sock until standin_stop(). */
void standin_start(struct standin *s, const char *dir, const struct standin_route *routes,
		   size_t n_routes);
void standin_stop(struct standin *s);
/* How many requests "METHOD PATH-prefix" the stand-in has seen. */
unsigned standin_seen(struct standin *s, const char *method, const char *path);

/* Appends a frame of Docker's multiplexed streams (stream 1 stdout, 2
 * stderr, 3 the engine's own; three zero bytes; the big-endian length;
 * the payload) for text to buf at len; the new length. */
size_t standin_frame(char *buf, size_t len, int stream, const char *text);

/* A peer for one connection that answers raw bytes, for what is not an
 * Engine API reply at all (no HTTP, headers that never end, silence, a
 * hijacked attach stream): reads the request's headers, sends answer
 * repeat times, holds the connection hold_ms, and with close_on_input
 * closes once input comes, leaving it unread (a reset for the client). */
struct standin_peer {
	int lfd;
	const char *answer;    /* NULL: nothing */
	size_t answer_len;     /* 0: strlen(answer) */
	size_t repeat;         /* 0: once */
	int hold_ms;
	bool close_on_input;
	pthread_t thread;
};

/* Listens on DIR/docker.sock; its path (caller frees). */
char *standin_peer_start(struct standin_peer *p, const char *dir);
void standin_peer_stop(struct standin_peer *p);

#endif
