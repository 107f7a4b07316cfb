/* status.json: the agent's health as the daemon last wrote it (every second
 * and at every change), read by 'mai-agent status' and the audit view. The
 * counts of answers by state and of assessments by level are kept here,
 * under a lock of their own, so that any worker may count. */
#ifndef MAI_DAEMON_STATUS_H
#define MAI_DAEMON_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "level.h"
#include "result.h"

/* Path of status.json in the state directory. */
#define DAEMON_STATUS_NAME "status.json"

/* How alive the agent that wrote status.json is, from the pid in it and the
 * file's age in seconds: it rewrites the file every second, so a file older
 * than DAEMON_STATUS_STALE_S from a live pid means that process is stuck
 * (or is not the agent). mai-agent status and the view's status.json both
 * judge by this. */
enum daemon_liveness {
	DAEMON_RUNNING,
	DAEMON_GONE,  /* no such process: killed, or ended without cleaning up */
	DAEMON_STUCK, /* alive, but status.json is stale */
};
#define DAEMON_STATUS_STALE_S 30
enum daemon_liveness daemon_liveness(long long pid, long long age_s);

struct daemon_status;

/* NULL never (allocation aborts). daemon_status_free() releases it. */
struct daemon_status *daemon_status_new(void);
void daemon_status_free(struct daemon_status *st);
/* A sidecar of this state was written (queued and running do not count). */
void daemon_status_count_state(struct daemon_status *st, enum result_state s);
/* A content was assessed at this level. */
void daemon_status_count_level(struct daemon_status *st, enum level l);
/* A final answer was written: counts its verdict (completed) and adds its
 * times to the latency histograms, the run (started to finished) and the
 * drop to the result (accepted to finished, or to now when finished is
 * absent). Queued and running sidecars are ignored. */
void daemon_status_observe_result(struct daemon_status *st, const struct result_info *r);
/* A job was scheduled to be taken again (Docker down, a failed stage). */
void daemon_status_count_retry(struct daemon_status *st);

/* The latency histograms' upper bounds in seconds (Prometheus "le"), the
 * same for both; their counts are cumulative in status.json. */
#define DAEMON_STATUS_BUCKETS 12
extern const double daemon_status_buckets[DAEMON_STATUS_BUCKETS];
/* Whether something changed since the last daemon_status_write(). */
bool daemon_status_dirty(struct daemon_status *st);

/* What the loop knows besides the counts, as of now. */
struct daemon_status_facts {
	long long uptime_s;
	const char *drop_dir;
	const char *drop_mode; /* "watch" or "mount" */
	bool watching;         /* the drop directory is watched or mounted */
	unsigned queued, running, workers;
	uint64_t retrying, submitted, superseded;
	const char *config_sha256;
	/* The configuration directory, absolute: the commands started without
	 * --config-dir follow it (cmd/follow.h). NULL: none. */
	const char *config_dir;
	/* Docker as last checked: known false leaves docker_reachable null. */
	bool docker_known, docker_reachable;
	const struct timespec *docker_checked;
	const char *docker_error; /* NULL: none */
	unsigned pool_size;       /* warm containers per trust level now; 0: none */
	/* The runtime of each trust level (NULL: not known) and the warning
	 * of a runtime "auto" that fell back to runc (NULL: none). */
	const char *runtimes[TRUST_COUNT];
	const char *runtime_warning;
	json_t *engine;           /* the engine and its nodes (borrowed); may be NULL */
	/* The audit log: audit_health_to_string() and, when not "ok", why and
	 * what to do. NULL state: not known. */
	const char *audit_state;
	const char *audit_message;
};

/* Writes state_dir/status.json (replaced atomically, not fsynced: it is
 * rewritten every second) and clears the dirty flag. Besides the facts and
 * the counts by state and level it holds, for the metrics
 * (daemon_metrics.h), "verdicts", "retries_total", "pool_size" and
 * "latency": {"run_seconds"|"drop_to_result_seconds": {"le": [...],
 * "buckets": [cumulative counts], "count", "sum"}}, all since the agent
 * started. 0 or -errno. */
int daemon_status_write(struct daemon_status *st, const char *state_dir,
			const struct daemon_status_facts *f);

#endif
