/* Resource usage of a running container, sampled by a thread: peak memory,
 * CPU time, peak process count and whether the pids limit was hit. Reads the
 * container's cgroup files when this process sees them (cgroupfs or systemd
 * layout, v1 or v2); otherwise asks the Engine API's one-shot stats. The
 * cgroup disappears with the container, so the last sample before exit is
 * what is reported. */
#ifndef MAI_SANDBOX_USAGE_H
#define MAI_SANDBOX_USAGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "docker.h"

struct sandbox_usage {
	/* Results, valid after sandbox_usage_stop(). */
	int64_t peak_memory_bytes;
	int64_t cpu_ns;
	int64_t pids_peak;
	int64_t pids_limit_hits; /* the cgroup's pids.events "max" counter */
	int64_t oom_kills;       /* the memory cgroup's oom_kill counter */
	bool from_cgroup_files;
	bool final_from_cgroup;  /* a sample at the end read the cgroup's counters */

	/* The sampler's own state: for sandbox_usage.c, not its callers.
	 * Under lock while the thread runs: the results, the dirs and stop. */
	struct docker *docker;
	char *id;
	char *memory_dir, *cpu_dir, *pids_dir; /* NULL when not found */
	int cgroup_version;
	bool local;
	bool stop;
	pthread_mutex_t lock; /* with wake: stop interrupts the sampling pause */
	pthread_cond_t wake;
	pthread_t thread;
	bool started;
};

/* Starts sampling every 50 ms. The container must exist (created). local:
 * the engine is this machine's, so its cgroup files may be read (a remote
 * engine's container is sampled through the Engine API's stats only). */
void sandbox_usage_start(struct sandbox_usage *u, struct docker *d, const char *container_id,
			 int cgroup_version, bool local);
/* Takes a sample now, from the caller's thread, at the end of the script:
 * while the bootstrap waits for the agent (sandbox_attach.h "The hold"),
 * or when the container's init has been seen to exit, before Docker can
 * have removed the cgroup. Whether it read the cgroup's OOM and pids
 * counters; once such a sample has, sandbox_usage_stop() says so.
 * Thread-safe. */
bool sandbox_usage_end(struct sandbox_usage *u);
/* Stops the thread, takes one last sample and frees what start allocated.
 * Whether a sample at the end (this one or sandbox_usage_end()'s) read the
 * cgroup's OOM and pids counters (the container's cgroup still existed).
 * A second call only says that again. */
bool sandbox_usage_stop(struct sandbox_usage *u);

#endif
