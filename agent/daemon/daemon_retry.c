/* The retry bookkeeping (daemon_retry.h): name -> due time and attempts. */
#include "daemon_retry.h"

#include <pthread.h>
#include <stdlib.h>

#include "macro.h"
#include "monoclock.h"
#include "strmap.h"

struct retry {
	uint64_t due_ms;
	unsigned attempts;
};

struct daemon_retries {
	pthread_mutex_t lock;
	struct strmap *by_name; /* name -> struct retry */
	unsigned base_ms;
	uint64_t max_ms;
};

static void retry_free(void *p) { free(p); }

struct daemon_retries *daemon_retries_new(unsigned base_ms, uint64_t max_ms)
{
	struct daemon_retries *rt = xcalloc(1, sizeof(*rt));
	pthread_mutex_init(&rt->lock, NULL);
	rt->by_name = strmap_new(retry_free);
	rt->base_ms = base_ms;
	rt->max_ms = max_ms;
	return rt;
}

void daemon_retries_free(struct daemon_retries *rt)
{
	if (!rt)
		return;
	strmap_free(rt->by_name);
	pthread_mutex_destroy(&rt->lock);
	free(rt);
}

void daemon_retries_set_max(struct daemon_retries *rt, uint64_t max_ms)
{
	pthread_mutex_lock(&rt->lock);
	rt->max_ms = max_ms;
	pthread_mutex_unlock(&rt->lock);
}

void daemon_retries_schedule(struct daemon_retries *rt, const char *name)
{
	pthread_mutex_lock(&rt->lock);
	struct retry *r = strmap_get(rt->by_name, name);
	if (!r) {
		r = xcalloc(1, sizeof(*r));
		strmap_put(rt->by_name, name, r);
	}
	/* Doubling from the base, capped by docker.retry_backoff_max. */
	uint64_t delay = (uint64_t)rt->base_ms << (r->attempts < 20 ? r->attempts : 20);
	if (delay > rt->max_ms)
		delay = rt->max_ms;
	r->attempts++;
	r->due_ms = (uint64_t)monoclock_ms() + delay;
	pthread_mutex_unlock(&rt->lock);
}

void daemon_retries_clear(struct daemon_retries *rt, const char *name)
{
	pthread_mutex_lock(&rt->lock);
	strmap_remove(rt->by_name, name);
	pthread_mutex_unlock(&rt->lock);
}

size_t daemon_retries_count(struct daemon_retries *rt)
{
	pthread_mutex_lock(&rt->lock);
	size_t n = strmap_size(rt->by_name);
	pthread_mutex_unlock(&rt->lock);
	return n;
}

struct due_ctx {
	uint64_t now;
	char **names;
	size_t n, max;
	uint64_t next;
};

static void collect_due(const char *key, void *value, void *arg)
{
	struct due_ctx *c = arg;
	struct retry *r = value;
	if (r->due_ms <= c->now) {
		if (c->n < c->max)
			c->names[c->n++] = xstrdup(key);
	} else if (r->due_ms < c->next) {
		c->next = r->due_ms;
	}
}

size_t daemon_retries_take_due(struct daemon_retries *rt, uint64_t now_ms, char **names,
			       size_t max, uint64_t *next_ms)
{
	struct due_ctx c = { .now = now_ms, .names = names, .max = max, .next = UINT64_MAX };

	pthread_mutex_lock(&rt->lock);
	strmap_foreach(rt->by_name, collect_due, &c);
	for (size_t i = 0; i < c.n; i++) {
		/* Keep the attempt count for the backoff; only the due time moves. */
		struct retry *r = strmap_get(rt->by_name, names[i]);
		r->due_ms = UINT64_MAX;
	}
	pthread_mutex_unlock(&rt->lock);
	*next_ms = c.next;
	return c.n;
}
