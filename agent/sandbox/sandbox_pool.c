#include "sandbox_pool.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "macro.h"
#include "sandbox_exit.h"
#include "sandbox_trust.h"

#define POOL_MAX 16
/* How long a new warm container may take until its interpreter waits. */
#define POOL_IDLE_WAIT_MS 2000
/* After a failed refill, wait before trying again (Docker may be down). */
#define POOL_RETRY_MS 2000
/* How often a full pool checks that its containers still wait. */
#define POOL_SWEEP_MS 5000

struct sandbox_pool {
	struct sandbox_containers *containers;
	struct sandbox_trust *trust;
	struct sandbox_quiet *quiet;
	struct sandbox_container_spec spec[TRUST_COUNT];
	unsigned size;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	pthread_t thread;
	unsigned generation; /* bumped by a flush: what was being prepared is stale */
	struct sandbox_container ready[TRUST_COUNT][POOL_MAX];
	unsigned n[TRUST_COUNT];
	/* A job found the level's pool empty: demand outruns the pool, so
	 * refills stop waiting for quiet moments until it is full again. */
	bool starved[TRUST_COUNT];
};

static int pool_missing(struct sandbox_pool *p)
{
	for (int t = 0; t < TRUST_COUNT; t++)
		if (p->n[t] < p->size)
			return t;
	return -1;
}

/* Whether a ready container still waits for its job. One that Docker
 * stopped meanwhile (dockerd restarted: its containers were killed) has an
 * attach stream at its end and, when watched, an init that has ended: both
 * are seen without a Docker call, by a poll that does not wait. A waiting
 * bootstrap writes nothing before its input. */
static bool pooled_alive(struct sandbox_container *c)
{
	struct sandbox_exit_watch w;

	sandbox_exit_pump_watch(c->init, &w);
	struct pollfd fds[2] = {
		{ .fd = c->stream ? docker_stream_fd(c->stream) : -1, .events = POLLIN },
		{ .fd = w.fd, .events = POLLIN },
	};
	if (fds[0].fd < 0)
		return false;
	return poll(fds, 2, 0) == 0;
}

/* Takes the ready containers that ended while they waited out of the pool
 * and discards them (their removal waits for Docker when it is down); called
 * with the lock held, which it drops around the Docker calls. */
static void pool_sweep(struct sandbox_pool *p)
{
	struct sandbox_container dead[TRUST_COUNT * POOL_MAX];
	unsigned n_dead = 0;

	for (int t = 0; t < TRUST_COUNT; t++) {
		unsigned kept = 0;
		for (unsigned i = 0; i < p->n[t]; i++) {
			if (pooled_alive(&p->ready[t][i]))
				p->ready[t][kept++] = p->ready[t][i];
			else
				dead[n_dead++] = p->ready[t][i];
		}
		p->n[t] = kept;
	}
	if (!n_dead)
		return;
	pthread_mutex_unlock(&p->lock);
	log_info("warm pool: %u container%s ended while waiting (Docker restarted?); replacing "
		 "them", n_dead, n_dead == 1 ? "" : "s");
	for (unsigned i = 0; i < n_dead; i++)
		sandbox_container_discard(p->containers, &dead[i]);
	pthread_mutex_lock(&p->lock);
}

static void *pool_refill(void *arg)
{
	struct sandbox_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		/* Containers that ended while they waited (dockerd restarted) go
		 * first, so that the level is refilled and nothing dead lingers. */
		pool_sweep(p);
		int t = pool_missing(p);
		struct sandbox_container c;
		struct sandbox_limits l;
		char *err = NULL, *label;
		int r;

		if (t < 0) {
			/* Full: look again now and then whether Docker has
			 * ended any of them (a restart of dockerd does). */
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += POOL_SWEEP_MS / 1000;
			pthread_cond_timedwait(&p->wake, &p->lock, &until);
			continue;
		}
		/* Docker calls without the lock: takers never wait for a refill. */
		unsigned gen = p->generation;
		bool starved = p->starved[t];
		pthread_mutex_unlock(&p->lock);
		/* Between runs where it can: a refill started beside a run slows
		 * it down (on a small machine, by more than the run itself). */
		if (!starved) {
			sandbox_quiet_wait(p->quiet, 1000);
			pthread_mutex_lock(&p->lock);
			if (p->stop)
				continue; /* the agent stops: no new container */
			pthread_mutex_unlock(&p->lock);
		}
		/* The level's base, clamped by the machine, unscaled (a job's
		 * scaling is applied by an update when it takes the container). */
		sandbox_trust_limits(p->trust, (enum trust)t, NULL, &l);
		label = xasprintf("pool-%s", trust_to_string((enum trust)t));
		r = sandbox_container_prepare(p->containers, (enum trust)t, &l, label, &p->spec[t],
					      &c, &err);
		free(label);
		/* Ready once its interpreter waits for the job (about 25 ms of
		 * CPU after the start), so that a job does not wait for that;
		 * under gVisor, or after 2 s, it is taken as it is. */
		if (r == 0)
			(void)sandbox_container_wait_idle(&c, POOL_IDLE_WAIT_MS);
		/* Docker answers again: what could not be removed while it was
		 * down (a swept container, a finished run's) goes now, not at the
		 * next run. */
		if (r == 0)
			sandbox_containers_remove_orphans(p->containers);
		pthread_mutex_lock(&p->lock);
		if (r < 0) {
			struct timespec until;
			log_warnx("warm pool: preparing a %s container failed: %s",
				  trust_to_string((enum trust)t), err);
			free(err);
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += POOL_RETRY_MS / 1000;
			pthread_cond_timedwait(&p->wake, &p->lock, &until);
			continue;
		}
		if (p->stop || p->n[t] >= p->size || gen != p->generation) {
			pthread_mutex_unlock(&p->lock);
			sandbox_container_discard(p->containers, &c);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		p->ready[t][p->n[t]++] = c;
		if (p->n[t] >= p->size)
			p->starved[t] = false;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct sandbox_pool *sandbox_pool_start(struct sandbox_containers *ct, struct sandbox_trust *tt,
					struct sandbox_quiet *q,
					const struct sandbox_container_spec spec[TRUST_COUNT],
					unsigned size)
{
	struct sandbox_pool *p;

	if (size == 0)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->containers = ct;
	p->trust = tt;
	p->quiet = q;
	memcpy(p->spec, spec, sizeof(p->spec));
	p->size = size > POOL_MAX ? POOL_MAX : size;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	if (pthread_create(&p->thread, NULL, pool_refill, p) != 0) {
		log_warnx("warm pool: cannot start its thread; running cold");
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		free(p);
		return NULL;
	}
	return p;
}

int sandbox_pool_take(struct sandbox_pool *p, enum trust trust,
		      struct sandbox_container *out)
{
	struct sandbox_container dead[POOL_MAX];
	unsigned n_dead = 0;
	int r = -EAGAIN;

	pthread_mutex_lock(&p->lock);
	/* Oldest first: it has waited longest. */
	while (p->n[trust] > 0 && r < 0) {
		struct sandbox_container c = p->ready[trust][0];
		memmove(&p->ready[trust][0], &p->ready[trust][1],
			(p->n[trust] - 1) * sizeof(p->ready[trust][0]));
		p->n[trust]--;
		if (pooled_alive(&c)) {
			*out = c;
			r = 0;
		} else {
			dead[n_dead++] = c;
		}
	}
	if (r < 0)
		p->starved[trust] = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < n_dead; i++) {
		log_info("warm pool: container %.12s ended while it waited (Docker restarted?); "
			 "discarded", dead[i].id);
		sandbox_container_discard(p->containers, &dead[i]);
	}
	return r;
}

unsigned sandbox_pool_capacity(const struct sandbox_pool *p)
{
	return p ? p->size : 0;
}

unsigned sandbox_pool_auto_size(int64_t cpus_nano, int64_t memory_available, unsigned workers)
{
	int64_t cpus = (cpus_nano + 999999999) / 1000000000;
	int64_t fit = memory_available / 16 / (TRUST_COUNT * SANDBOX_POOL_IDLE_BYTES);
	int64_t n = 2;

	if (workers && n > workers)
		n = workers;
	if (n > cpus)
		n = cpus;
	if (n > fit)
		n = fit;
	return n > 0 ? (unsigned)n : 0;
}

void sandbox_pool_flush(struct sandbox_pool *p)
{
	struct sandbox_container old[TRUST_COUNT][POOL_MAX];
	unsigned n[TRUST_COUNT];

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	memcpy(old, p->ready, sizeof(old));
	memcpy(n, p->n, sizeof(n));
	memset(p->n, 0, sizeof(p->n));
	p->generation++;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (int t = 0; t < TRUST_COUNT; t++)
		for (unsigned i = 0; i < n[t]; i++)
			sandbox_container_discard(p->containers, &old[t][i]);
}

unsigned sandbox_pool_ready(struct sandbox_pool *p, enum trust trust)
{
	unsigned n;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	n = p->n[trust];
	pthread_mutex_unlock(&p->lock);
	return n;
}

void sandbox_pool_stop(struct sandbox_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	for (int t = 0; t < TRUST_COUNT; t++)
		for (unsigned i = 0; i < p->n[t]; i++)
			sandbox_container_discard(p->containers, &p->ready[t][i]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
