#include "swarm_stop.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "docker_swarm.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"

bool swarm_task_ended(const char *state)
{
	static const char *const ended[] = { "complete", "failed", "rejected", "shutdown",
					     "orphaned", "remove" };

	for (size_t i = 0; i < ARRAY_SIZE(ended); i++)
		if (strcmp(state, ended[i]) == 0)
			return true;
	return false;
}

/* How long the sweep at the agent's start and stop waits for the tasks to
 * end (a run's own stop: SWARM_STOP_WAIT_MS). */
#define SWEEP_STOP_WAIT_MS 30000

size_t swarm_stop_tasks(struct docker *d, char *const *ids, size_t n, int64_t wait_ms,
			bool *stopped)
{
	int64_t until = monoclock_ms() + wait_ms;
	size_t running = 0;
	char *err = NULL;

	for (size_t i = 0; i < n; i++) {
		if (docker_service_stop(d, ids[i], &err) != DOCKER_OK) {
			log_warnx("stopping service %s failed: %s", ids[i], err);
			free(err);
			err = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool active = true;
		for (;;) {
			struct docker_swarm_task *t = NULL;
			size_t nt = 0;
			if (docker_service_tasks(d, ids[i], &t, &nt, &err) != DOCKER_OK) {
				log_debug("service %s: its tasks: %s", ids[i], err);
				free(err);
				err = NULL;
				break; /* not known to have ended: kept */
			}
			active = false;
			for (size_t k = 0; k < nt; k++)
				active |= *t[k].node_id && !swarm_task_ended(t[k].state);
			docker_swarm_tasks_free(t, nt);
			if (!active || monoclock_ms() >= until)
				break;
			struct timespec ts = { 0, 100 * 1000000L };
			nanosleep(&ts, NULL);
		}
		if (active) {
			log_warnx("service %s: its task has not ended on its node %lld ms after its "
				  "stop; the service is kept, stopped, until it has (the next sweep "
				  "removes it)", ids[i], (long long)wait_ms);
			running++;
		}
		if (stopped)
			stopped[i] = !active;
	}
	return running;
}

/* Removes what of kind carries this instance's label; the number left.
 * (Only services count as removed for the caller: none are swept here.) */
static size_t sweep_kind(struct docker *d, const char *instance, enum docker_swarm_kind kind,
			 bool last)
{
	char **ids = NULL, *err = NULL;
	size_t n = 0, left = 0;

	if (docker_swarm_list_by_label(d, kind, "mai.instance", instance, &ids, &n,
				       &err) != DOCKER_OK) {
		log_debug("no sweep of the swarm: %s", err);
		free(err);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (docker_swarm_remove(d, kind, ids[i], &err) == DOCKER_OK)
			continue;
		left++;
		if (last)
			log_warnx("removing %s left in the swarm failed: %s", ids[i], err);
		free(err);
		err = NULL;
	}
	docker_strv_free(ids);
	return left;
}

/* Removes what carries this instance's label: services first, their tasks
 * stopped (they hold the configs and networks), then configs and networks. A network
 * goes once the nodes have torn the removed services' tasks down: asked
 * again every 100 ms while some go, up to 3 s after the last one went, 10 s
 * in all (a network whose task's node is down stays until the node is back
 * or removed; the next sweep takes it). */
void swarm_sweep(struct docker *d, const char *instance, size_t *removed)
{
	int64_t start, progress;
	size_t left = SIZE_MAX, ns = 0;
	char **ids = NULL, *err = NULL;

	/* The services' tasks stopped first (removing a service does not), and
	 * only the services whose tasks have ended removed. */
	if (docker_swarm_list_by_label(d, DOCKER_SWARM_SERVICE, "mai.instance", instance,
				       &ids, &ns, &err) == DOCKER_OK) {
		bool *stopped = xcalloc(ns ? ns : 1, sizeof(*stopped));
		swarm_stop_tasks(d, ids, ns, SWEEP_STOP_WAIT_MS, stopped);
		for (size_t i = 0; i < ns; i++) {
			if (!stopped[i])
				continue;
			if (docker_swarm_remove(d, DOCKER_SWARM_SERVICE, ids[i], &err) ==
			    DOCKER_OK) {
				if (removed)
					(*removed)++;
			} else {
				log_warnx("removing %s left in the swarm failed: %s", ids[i], err);
				free(err);
				err = NULL;
			}
		}
		free(stopped);
		docker_strv_free(ids);
	} else {
		free(err);
	}
	start = progress = monoclock_ms();
	sweep_kind(d, instance, DOCKER_SWARM_CONFIG, true);
	for (;;) {
		int64_t now = monoclock_ms();
		bool last = now - progress >= 3000 || now - start >= 10000;
		size_t n = sweep_kind(d, instance, DOCKER_SWARM_NETWORK, last);
		if (n == 0 || last)
			break;
		if (n < left)
			progress = now;
		left = n;
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
}
