/* The agent's metrics in the Prometheus text exposition format (0.0.4), for
 * 'mai-agent status --format prometheus' (node_exporter's textfile
 * collector) and the view's /metrics: rendered from status.json as the
 * daemon last wrote it and from the audit log's directory, so that neither
 * reader needs the running agent. Names start with mai_agent_; docs/operations.md
 * "Monitoring" lists them. */
#ifndef MAI_DAEMON_METRICS_H
#define MAI_DAEMON_METRICS_H

#include <jansson.h>
#include <time.h>

#include "audit_stats.h"
#include "daemon_status.h"

/* status.json of state_dir: 0 with *status (new reference), its age in
 * seconds and the liveness of the agent that wrote it; -ENOENT when there
 * is none, -EBADMSG when it is not a JSON object, or -errno. */
int daemon_status_read(const char *state_dir, json_t **status, long long *age_s,
		       enum daemon_liveness *live);

struct daemon_metrics_input {
	const json_t *status;       /* status.json; NULL: none (the agent never ran here) */
	long long status_age_s;
	enum daemon_liveness live;  /* of the process that wrote status */
	const struct audit_stats *audit; /* NULL: the log directory cannot be read */
	time_t now;
};

/* The exposition text, ending in a newline. The agent's own series only when
 * it runs (mai_agent_up 1); the audit log's whenever it can be read. Caller
 * frees. */
char *daemon_metrics_render(const struct daemon_metrics_input *in);

#endif
