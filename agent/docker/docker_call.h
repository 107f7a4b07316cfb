/* The client's one request and its error mapping (docker.c), shared with
 * the Swarm calls (docker_swarm.c). For the docker folder only. */
#ifndef MAI_DOCKER_CALL_H
#define MAI_DOCKER_CALL_H

#include "docker.h"

/* METHOD DOCKER_API_PREFIX path with json_body (NULL: none); timeout_ms 0:
 * the client's, negative: none. DOCKER_OK when a reply came (any status). */
enum docker_error docker_call(struct docker *d, const char *method, const char *path,
			      const char *json_body, long timeout_ms, struct docker_http_reply *r,
			      char **err);
/* A 4xx/5xx reply as a typed error with Docker's own message: "Docker
 * refused to WHAT (HTTP n): ...". */
enum docker_error docker_status_error(const char *what, const struct docker_http_reply *r,
				      char **err);
/* The client's endpoint, for calls of its own (logs with a larger cap). */
const struct docker_endpoint *docker_endpoint(const struct docker *d);
/* s escaped for a URL (caller frees). */
char *docker_escape(const char *s);

#endif
