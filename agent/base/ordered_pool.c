/* The ordered pool: workers claim the next index under a mutex but never
 * more than `window` ahead of the consumer, so memory stays bounded however
 * many items there are. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "macro.h"
#include "ordered_pool.h"

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t can_claim;  /* the window moved: workers may claim */
	pthread_cond_t finished;   /* an item's work returned */
	size_t n, window;
	size_t next;               /* next index to claim */
	size_t delivered;          /* items whose done has returned */
	unsigned char *ready;      /* per window slot: work returned */
	void (*work)(void *ctx, size_t i);
	void *ctx;
};

unsigned ordered_pool_cpus(unsigned max)
{
	cpu_set_t set;
	unsigned n = 1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		n = (unsigned)CPU_COUNT(&set);
	return n < max ? n : max;
}

static void *worker(void *p)
{
	struct pool *pl = p;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (pl->next < pl->n && pl->next >= pl->delivered + pl->window)
			pthread_cond_wait(&pl->can_claim, &pl->mu);
		if (pl->next >= pl->n)
			break;
		size_t i = pl->next++;
		pthread_mutex_unlock(&pl->mu);
		pl->work(pl->ctx, i);
		pthread_mutex_lock(&pl->mu);
		pl->ready[i % pl->window] = 1;
		pthread_cond_signal(&pl->finished);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

void ordered_pool_run(size_t n, unsigned threads, size_t window,
		      void (*work)(void *ctx, size_t i), void (*done)(void *ctx, size_t i),
		      void *ctx)
{
	struct pool pl = { .n = n, .window = window < threads ? threads : window,
			   .work = work, .ctx = ctx };
	pthread_t *tids;
	unsigned started = 0;

	if (threads > n)
		threads = (unsigned)n;
	if (threads <= 1) {
		for (size_t i = 0; i < n; i++) {
			work(ctx, i);
			done(ctx, i);
		}
		return;
	}
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.can_claim, NULL);
	pthread_cond_init(&pl.finished, NULL);
	pl.ready = xcalloc(pl.window, 1);
	tids = xcalloc(threads, sizeof(*tids));
	for (unsigned t = 0; t < threads; t++)
		if (pthread_create(&tids[started], NULL, worker, &pl) == 0)
			started++;
	for (size_t i = 0; i < n; i++) {
		if (!started) { /* no worker could be started: all on this thread */
			work(ctx, i);
			done(ctx, i);
			continue;
		}
		pthread_mutex_lock(&pl.mu);
		while (!pl.ready[i % pl.window])
			pthread_cond_wait(&pl.finished, &pl.mu);
		pl.ready[i % pl.window] = 0;
		pthread_mutex_unlock(&pl.mu);
		done(ctx, i);
		pthread_mutex_lock(&pl.mu);
		pl.delivered = i + 1;
		pthread_cond_broadcast(&pl.can_claim);
		pthread_mutex_unlock(&pl.mu);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(tids);
	free(pl.ready);
	pthread_cond_destroy(&pl.finished);
	pthread_cond_destroy(&pl.can_claim);
	pthread_mutex_destroy(&pl.mu);
}
