/* Ending Swarm runs: a removed replicated-job service's task runs on
 * (Docker 20.10), so a run is stopped by its service (a constraint no node
 * meets) and its service removed only once the task has ended; and the
 * sweep of what an instance left in the swarm, at the agent's start and
 * stop. */
#ifndef MAI_SWARM_STOP_H
#define MAI_SWARM_STOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct docker;

/* How long a run's stop (its deadline, its cap) waits for its task to end
 * on its node: under load a swarm took more than 10 s to pass a stop on. */
#define SWARM_STOP_WAIT_MS 10000

/* Whether a task in state has ended (or will never run). */
bool swarm_task_ended(const char *state);

/* Stops the running tasks of n services (docker_service_stop()) and waits,
 * up to wait_ms in all, until none of them is on a node and not ended; a
 * service whose task has not ended must not be removed (it would run on).
 * Sets stopped[i] (when not NULL) for each service whose task has ended;
 * returns the number still running. */
size_t swarm_stop_tasks(struct docker *d, char *const *ids, size_t n, int64_t wait_ms,
			bool *stopped);

/* Removes what carries the label mai.instance=instance: the services whose
 * tasks have ended once stopped (up to 30 s; the others are named in the
 * log and left to the next sweep), then configs and networks; adds the
 * services removed to *removed (may be NULL). */
void swarm_sweep(struct docker *d, const char *instance, size_t *removed);

#endif
