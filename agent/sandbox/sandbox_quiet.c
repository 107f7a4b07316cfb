#include "sandbox_quiet.h"

#include <time.h>

void sandbox_quiet_init(struct sandbox_quiet *q)
{
	pthread_condattr_t attr;

	q->active = 0;
	q->released = false;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &attr);
	pthread_condattr_destroy(&attr);
}

void sandbox_quiet_destroy(struct sandbox_quiet *q)
{
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
}

void sandbox_quiet_enter(struct sandbox_quiet *q)
{
	pthread_mutex_lock(&q->lock);
	q->active++;
	pthread_mutex_unlock(&q->lock);
}

void sandbox_quiet_leave(struct sandbox_quiet *q)
{
	pthread_mutex_lock(&q->lock);
	if (--q->active == 0)
		pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void sandbox_quiet_wait(struct sandbox_quiet *q, unsigned max_ms)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += max_ms / 1000;
	until.tv_nsec += (long)(max_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&q->lock);
	while (q->active > 0 && !q->released)
		if (pthread_cond_timedwait(&q->cond, &q->lock, &until) != 0)
			break;
	pthread_mutex_unlock(&q->lock);
}

void sandbox_quiet_release(struct sandbox_quiet *q)
{
	pthread_mutex_lock(&q->lock);
	q->released = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}
