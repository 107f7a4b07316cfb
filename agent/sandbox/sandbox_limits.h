/* Limits of one run: the trust level's base, scaled by the code's metrics,
 * clamped by what the machine has. Pure functions except
 * sandbox_machine_probe(), which reads /proc and the cgroup files. */
#ifndef MAI_SANDBOX_LIMITS_H
#define MAI_SANDBOX_LIMITS_H

#include "sandbox_job.h"
#include "sandbox_options.h"

struct sandbox_machine {
	int64_t cpus_nano;        /* CPUs this process may use, in nano-CPUs */
	int64_t memory_available; /* MemAvailable, or less when our cgroup caps it */
};

/* Reads sched_getaffinity, the cgroup CPU quota, /proc/meminfo MemAvailable
 * and the cgroup memory limit. Falls back to generous values on failure. */
void sandbox_machine_probe(struct sandbox_machine *m);

/* Scales base by the metrics (more time for loops and lines, more memory for
 * imports, at most twice the base) and clamps memory to the machine's share
 * per worker and CPUs to what the process may use. Never goes below the
 * floors that let python3 start. */
void sandbox_limits_compute(const struct sandbox_limits *base, const struct sandbox_code_metrics *m,
			    bool scale, const struct sandbox_machine *machine, unsigned workers,
			    struct sandbox_limits *out);

#define SANDBOX_MEMORY_FLOOR (32LL << 20)
#define SANDBOX_CPU_FLOOR 100000000LL /* 0.1 CPU */

#endif
