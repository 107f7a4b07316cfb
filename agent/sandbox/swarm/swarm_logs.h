/* A Swarm run's output, read from its service's logs (GET
 * /services/{id}/logs): Docker's multiplexed frames, fed to the run's
 * demultiplexer, with the supervisor's counters line (swarm_supervisor.h)
 * taken out of stderr. */
#ifndef MAI_SWARM_LOGS_H
#define MAI_SWARM_LOGS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "docker.h"
#include "sandbox_demux.h"
#include "swarm_supervisor.h"

/* The run whose logs are read. */
struct swarm_logs {
	struct docker *docker;
	const char *service_id;
	const char *name;                       /* for the debug log */
	int64_t log_max;                        /* the run's output cap, bytes */
	int64_t *counters;                      /* [SWARM_COUNTERS_N], filled when seen */
	bool *have_counters;
};

/* Whether the running task's output has gone past a cap so far: its logs
 * read into a scratch demultiplexer with d's caps. The log driver keeps a
 * node's disk safe whatever the script writes; this ends the run at the
 * cap, as a local run's attach stream does (within a poll's interval
 * instead of at once). */
bool swarm_logs_over_cap(struct swarm_logs l, const struct sandbox_demux *d);

/* The ended task's whole output into *d (replaced only when read whole).
 * The swarm may lack a part of it for a moment (a node's log session not
 * yet there again after a missed heartbeat on a loaded node: the logs stay
 * on the node's disk), so it is asked again, read afresh each time, for up
 * to 15 s, or until *cancel. 0; -EAGAIN when still incomplete, -EIO or
 * -EPROTO, each with *err (caller frees). */
int swarm_logs_read_all(struct swarm_logs l, struct sandbox_demux *d, const atomic_bool *cancel,
			char **err);

#endif
