#include "docker_health.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "docker.h"
#include "log.h"
#include "monoclock.h"

#define DEFAULT_INTERVAL_MS 5000u
#define DEFAULT_PING_TIMEOUT_MS 2000L

struct docker_health {
	struct docker *docker;
	unsigned interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	/* Under lock. */
	bool stop;
	bool known, reachable;
	uint64_t noted_ms;       /* monotonic time of the last outcome; 0: none */
	struct timespec checked; /* the same, on the wall clock */
	char *why;
};

void docker_health_note(struct docker_health *h, bool reachable, const char *why)
{
	pthread_mutex_lock(&h->lock);
	bool changed = h->known && h->reachable != reachable;
	h->known = true;
	h->reachable = reachable;
	h->noted_ms = (uint64_t)monoclock_ms();
	clock_gettime(CLOCK_REALTIME, &h->checked);
	free(h->why);
	h->why = !reachable && why ? xstrdup(why) : NULL;
	pthread_mutex_unlock(&h->lock);
	/* Only the changes: a Docker that stays down is not logged each time. */
	if (changed && reachable)
		log_info("Docker answers again at %s", docker_endpoint_name(h->docker));
	else if (changed)
		log_warnx("Docker stopped answering at %s: %s", docker_endpoint_name(h->docker),
			  why ? why : "no detail");
}

bool docker_health_get(struct docker_health *h, bool *reachable, struct timespec *checked,
		       char **why)
{
	pthread_mutex_lock(&h->lock);
	bool known = h->known;
	*reachable = h->reachable;
	*checked = h->checked;
	*why = h->why ? xstrdup(h->why) : NULL;
	pthread_mutex_unlock(&h->lock);
	return known;
}

/* Pings whenever nothing was noted for a whole interval: while jobs talk to
 * Docker, their outcomes are enough. */
static void *health_thread(void *arg)
{
	struct docker_health *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		uint64_t due = h->noted_ms + h->interval_ms;
		if (h->noted_ms && (uint64_t)monoclock_ms() < due) {
			struct timespec ts = { .tv_sec = (time_t)(due / 1000u),
					       .tv_nsec = (long)(due % 1000u) * 1000000L };
			pthread_cond_timedwait(&h->cond, &h->lock, &ts);
			continue;
		}
		pthread_mutex_unlock(&h->lock);
		_cleanup_free_ char *err = NULL;
		enum docker_error e = docker_ping(h->docker, &err);
		docker_health_note(h, e == DOCKER_OK, err);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int docker_health_start(const struct docker_health_options *o, struct docker_health **out,
			char **err)
{
	struct docker_health *h = xcalloc(1, sizeof(*h));
	struct docker_options dopts = {
		.socket_path = o->socket_path,
		.host = o->host,
		.tls = o->tls,
		.timeout_ms = o->ping_timeout_ms > 0 ? o->ping_timeout_ms : DEFAULT_PING_TIMEOUT_MS,
	};
	pthread_condattr_t ca;
	int r;

	if (docker_open(&dopts, &h->docker, err) < 0) {
		free(h);
		return -EINVAL;
	}
	h->interval_ms = o->interval_ms ? o->interval_ms : DEFAULT_INTERVAL_MS;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&h->thread, NULL, health_thread, h);
	if (r != 0) {
		*err = xasprintf("cannot start the Docker health thread: %s", strerror(r));
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		docker_free(h->docker);
		free(h);
		return -r;
	}
	*out = h;
	return 0;
}

void docker_health_stop(struct docker_health *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	docker_free(h->docker);
	free(h->why);
	free(h);
}
