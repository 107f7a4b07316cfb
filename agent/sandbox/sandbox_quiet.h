/* Runs in flight, so that background work (pool refill, container removal)
 * can wait for a quiet moment instead of competing with a run for the CPUs
 * and for dockerd. Used by sandbox.c (the runs), the warm pool and the
 * container removals. */
#ifndef MAI_SANDBOX_QUIET_H
#define MAI_SANDBOX_QUIET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct sandbox_quiet {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned active;
	bool released; /* stopping: nobody waits any more */
};

void sandbox_quiet_init(struct sandbox_quiet *q);
void sandbox_quiet_destroy(struct sandbox_quiet *q);
void sandbox_quiet_enter(struct sandbox_quiet *q);
void sandbox_quiet_leave(struct sandbox_quiet *q);
/* Blocks until no run is in flight, at most max_ms (so that background work
 * still gets done under a steady load), or until sandbox_quiet_release(). */
void sandbox_quiet_wait(struct sandbox_quiet *q, unsigned max_ms);
void sandbox_quiet_release(struct sandbox_quiet *q);

#endif
