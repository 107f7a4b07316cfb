/* Typed client of the Docker Engine API (v1.41) over its Unix socket. Each
 * call opens its own connection, so a struct docker may be shared by threads.
 * Every call returns a docker_error; on failure *err (caller frees) holds a
 * message that says what to do. Structs filled by a call are freed with their
 * *_clear() function. */
#ifndef MAI_DOCKER_H
#define MAI_DOCKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker_error.h"
#include "docker_http.h"
#include "docker_types.h"

#define DOCKER_DEFAULT_SOCKET DOCKER_HTTP_DEFAULT_SOCKET
#define DOCKER_API_PREFIX "/v1.41"

struct docker_options {
	const char *socket_path; /* NULL: DOCKER_DEFAULT_SOCKET */
	/* Instead of socket_path: "unix:///path" or "tcp://HOST:PORT" with tls
	 * (docker_endpoint_parse); NULL: socket_path. */
	const char *host;
	struct docker_tls tls;
	long timeout_ms;         /* per ordinary call; 0: 30 s */
};

struct docker;

/* Returns NULL only on a broken invariant (allocation aborts), or when
 * opts->host is not a usable Docker host (use docker_open() for those).
 * Frees with docker_free(). No connection is made here. */
struct docker *docker_new(const struct docker_options *opts);
/* The same, with *err (caller frees) saying what is wrong with opts->host
 * (a plain tcp:// without TLS, say): 0 or -EINVAL. */
int docker_open(const struct docker_options *opts, struct docker **out, char **err);
void docker_free(struct docker *d);
/* "unix:///var/run/docker.sock" or "tcp://HOST:PORT", for messages. */
const char *docker_endpoint_name(const struct docker *d);
/* Whether the engine is this machine's own (a Unix socket). */
bool docker_is_local(const struct docker *d);

enum docker_error docker_ping(struct docker *d, char **err);
enum docker_error docker_version(struct docker *d, struct docker_version *out, char **err);
enum docker_error docker_info(struct docker *d, struct docker_info *out, char **err);
/* DOCKER_ERR_IMAGE_NOT_FOUND with a message naming the build script. */
enum docker_error docker_image_inspect(struct docker *d, const char *ref, struct docker_image *out,
				       char **err);

/* *id (caller frees) is the new container's id. A runtime that the engine
 * lacks gives DOCKER_ERR_RUNTIME_MISSING, a missing image
 * DOCKER_ERR_IMAGE_NOT_FOUND. */
enum docker_error docker_container_create(struct docker *d, const struct docker_create_params *p,
					  char **id, char **err);
/* Changes Memory (= MemorySwap), NanoCpus and PidsLimit of a container. */
enum docker_error docker_container_update(struct docker *d, const char *id, int64_t memory_bytes,
					  int64_t nano_cpus, int64_t pids_limit, char **err);
enum docker_error docker_container_start(struct docker *d, const char *id, char **err);
/* Attaches stdin, stdout and stderr (stream=1) before or after start. */
enum docker_error docker_container_attach(struct docker *d, const char *id,
					  struct docker_stream **out, char **err);
/* Blocks until the container stops (timeout_ms 0: no limit). */
enum docker_error docker_container_wait(struct docker *d, const char *id, long timeout_ms,
					int64_t *status_code, char **err);
/* signal: "KILL", "TERM", ... A container that is not running is not an error. */
enum docker_error docker_container_kill(struct docker *d, const char *id, const char *signal,
					char **err);
/* force and remove anonymous volumes; a container already gone is not an error. */
enum docker_error docker_container_remove(struct docker *d, const char *id, char **err);
enum docker_error docker_container_inspect(struct docker *d, const char *id,
					   struct docker_container_state *out, char **err);
/* One sample (one-shot, no 1 s wait). */
enum docker_error docker_container_stats(struct docker *d, const char *id, struct docker_stats *out,
					 char **err);
/* Ids (all states) of the containers whose label key equals value; *ids is a
 * NULL-terminated array, free with docker_strv_free(). */
enum docker_error docker_container_list_by_label(struct docker *d, const char *key,
						 const char *value, char ***ids, size_t *n,
						 char **err);

/* Creates a bridge network with Internal: true (containers on it reach one
 * another and the host's address on its bridge, nothing beyond), its bridge
 * interface named bridge (at most 15 characters) and these labels. *id
 * (caller frees). An existing name gives DOCKER_ERR_CONFLICT. */
enum docker_error docker_network_create_internal(struct docker *d, const char *name,
						 const char *bridge,
						 const struct docker_label *labels,
						 size_t n_labels, char **id, char **err);
/* name or id. DOCKER_ERR_NOT_FOUND when there is none. */
enum docker_error docker_network_inspect(struct docker *d, const char *name,
					 struct docker_network *out, char **err);
/* A network already gone is not an error. */
enum docker_error docker_network_remove(struct docker *d, const char *name, char **err);

#endif
