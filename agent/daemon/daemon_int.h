/* Shared between daemon.c (the loop) and daemon_job.c (one job on a worker
 * thread). Not for other modules. */
#ifndef MAI_DAEMON_INT_H
#define MAI_DAEMON_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "daemon.h"
#include "approval.h"
#include "jobs.h"
#include "strmap.h"
#include "watch.h"

struct daemon_job {
	char *name;                  /* relative to the drop directory */
	struct intake_snapshot snap;
	struct timespec accepted;
};

struct daemon {
	const struct mai_config *cfg;
	struct mai_config *reloaded; /* owned: the config from the last SIGHUP */
	char *config_dir;
	const struct daemon_stages *stages;
	struct watch *watch;
	struct jobs *jobs;
	int epfd, sigfd, wakefd;
	atomic_bool stop;
	unsigned retry_base_ms;
	struct timespec started;
	/* Settings a reload changes (the rest of cfg stays as started). */
	uint64_t max_file_size;           /* read on the loop's thread only */
	atomic_uint_least64_t diff_max;   /* read by the workers */

	/* Everything below is shared with the workers: under lock. */
	pthread_mutex_t lock;
	pthread_mutex_t result_lock; /* one sidecar writer at a time (same temp names) */
	struct strmap *retries;      /* name -> struct daemon_retry */
	/* name -> struct daemon_grant: a user's answer already consumed for
	 * content whose run failed (Docker down) or whose record could not be
	 * written; the retry uses it. */
	struct strmap *granted;
	unsigned counts_state[RESULT_ERROR + 1];
	unsigned counts_level[LEVEL_BLOCKED + 1];
	bool status_dirty;
	uint64_t retry_backoff_max_ms;
};

struct daemon_grant {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	struct approval answer;
	bool recorded; /* its approval/override record is in the log, at seq */
	uint64_t seq;
};

struct daemon_retry {
	uint64_t due_ms;
	unsigned attempts;
};

/* daemon_job.c */
void daemon_job_run(void *arg, const struct jobs_item *item);
void daemon_job_free(void *payload);
void daemon_grant_free(void *grant);
/* Writes a sidecar and counts its state. */
void daemon_write_result(struct daemon *d, const struct result_info *r);
/* Asks the loop to take name again after a growing delay. */
void daemon_schedule_retry(struct daemon *d, const char *name);
/* Forgets the retry state of name (it reached a final result). */
void daemon_clear_retry(struct daemon *d, const char *name);

#endif
