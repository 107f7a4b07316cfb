/* Whether Docker answers, kept fresh for 'mai-agent status' and status.json
 * without the event loop ever waiting on Docker.
 *
 * The outcomes of the agent's own Docker calls are noted as they happen
 * (docker_health_note, from any thread); when none was noted for a whole
 * interval, a background thread asks Docker itself (GET /_ping with a short
 * timeout). Reading the last outcome (docker_health_get) never blocks on
 * Docker. */
#ifndef MAI_DOCKER_HEALTH_H
#define MAI_DOCKER_HEALTH_H

#include <stdbool.h>
#include <time.h>

#include "docker_http.h"
#include "macro.h"

struct docker_health_options {
	const char *socket_path;  /* NULL: the default Docker socket */
	const char *host;         /* instead: unix:// or tcp:// (docker_options) */
	struct docker_tls tls;
	unsigned interval_ms;     /* ping when nothing was noted for this long; 0: 5 s */
	long ping_timeout_ms;     /* longest wait for one ping; 0: 2 s */
};

struct docker_health;

/* Starts the background thread (with the caller's signal mask). 0, or
 * -errno with *err (caller frees). Stop and free with docker_health_stop(). */
int docker_health_start(const struct docker_health_options *o, struct docker_health **out,
			char **err) _must_check_;
/* Wakes and joins the thread (at most one ping timeout), then frees h. */
void docker_health_stop(struct docker_health *h);

/* Records an outcome seen elsewhere: Docker answered (reachable) or not,
 * why says what failed (copied; NULL when reachable). Thread-safe. */
void docker_health_note(struct docker_health *h, bool reachable, const char *why);

/* The last outcome: false when there is none yet. Otherwise *reachable,
 * *checked (wall clock) and, when not reachable, *why (caller frees; may be
 * NULL). Thread-safe; never waits on Docker. */
bool docker_health_get(struct docker_health *h, bool *reachable, struct timespec *checked,
		       char **why);

#endif
