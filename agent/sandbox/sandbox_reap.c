#include "sandbox_reap.h"

#include <pthread.h>
#include <string.h>

#include "log.h"
#include "macro.h"

struct reap_item {
	struct reap_item *next;
	char *id;
};

struct sandbox_reaper {
	sandbox_reap_fn remove;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct sandbox_quiet *quiet;
	unsigned backlog, queued;
	struct reap_item *head, *tail;
	unsigned busy; /* items taken off the queue, being removed */
	bool stop;
	pthread_t thread;
};

static void *reap_loop(void *arg)
{
	struct sandbox_reaper *r = arg;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct reap_item *it = r->head;
		if (!it) {
			if (r->stop)
				break;
			pthread_cond_wait(&r->work, &r->lock);
			continue;
		}
		r->head = it->next;
		if (!r->head)
			r->tail = NULL;
		r->busy++;
		bool defer = r->queued-- <= r->backlog;
		pthread_mutex_unlock(&r->lock);
		if (defer)
			sandbox_quiet_wait(r->quiet, 1000);
		r->remove(r->arg, it->id);
		free(it);
		pthread_mutex_lock(&r->lock);
		r->busy--;
		pthread_cond_broadcast(&r->done);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct sandbox_reaper *sandbox_reaper_start(sandbox_reap_fn remove, void *arg,
					    struct sandbox_quiet *q, unsigned backlog)
{
	struct sandbox_reaper *r = xcalloc(1, sizeof(*r));

	r->remove = remove;
	r->arg = arg;
	r->quiet = q;
	r->backlog = backlog;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
	if (pthread_create(&r->thread, NULL, reap_loop, r) != 0) {
		log_warnx("cannot start the container removal thread; removing after each run");
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->work);
		pthread_cond_destroy(&r->done);
		free(r);
		return NULL;
	}
	return r;
}

int sandbox_reaper_add(struct sandbox_reaper *r, char *id)
{
	struct reap_item *it;

	if (!r)
		return -1;
	it = xcalloc(1, sizeof(*it));
	it->id = id;
	pthread_mutex_lock(&r->lock);
	if (r->tail)
		r->tail->next = it;
	else
		r->head = it;
	r->tail = it;
	r->queued++;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void sandbox_reaper_wait(struct sandbox_reaper *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	while (r->head || r->busy)
		pthread_cond_wait(&r->done, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

void sandbox_reaper_stop(struct sandbox_reaper *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
	free(r);
}
