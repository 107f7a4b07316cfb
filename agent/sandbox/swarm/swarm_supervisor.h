/* What runs in a Swarm task: the supervisor, run as python3 -I -u -B -c
 * SUPERVISOR LIMIT_MS PROGRAM, as the container's init (pid 1: the script's
 * signals do not reach it; it reaps orphans). It runs the program in a
 * child whose stdin is a pipe it fills with the job's file (a Swarm config
 * mounted at SWARM_JOB_FILE), kills every other process of the container
 * LIMIT_MS after its own start (0: no limit), and, once the program has
 * ended, writes the container's own cgroup counters and whether it hit the
 * limit as the last line of stderr, which the agent takes off
 * (swarm_supervisor_counters()) before the output is read. It exits with
 * the program's status. */
#ifndef MAI_SWARM_SUPERVISOR_H
#define MAI_SWARM_SUPERVISOR_H

#include <stddef.h>
#include <stdint.h>

#define SWARM_JOB_FILE "/mai-job"
/* The supervisor's last line on stderr: OOM kills, forks refused at the
 * pids limit, peak memory, CPU ns, peak pids (-1 each where the cgroup has
 * no such file: gVisor shows none), then 1 when it killed the run at its
 * time limit, else 0. */
#define SWARM_COUNTERS "\x1eMAI-CG "
#define SWARM_COUNTERS_N 6
#define SWARM_TIMED_OUT 5 /* the index of the time limit's flag */

extern const char swarm_supervisor[];

/* A stderr frame's payload of n bytes: -1 when it is not the counters line
 * (it is output), 0 when it is but cannot be read, 1 when counters (in the
 * order above, any negative one as -1) were read from it. */
int swarm_supervisor_counters(const char *payload, size_t n, int64_t counters[SWARM_COUNTERS_N]);

#endif
