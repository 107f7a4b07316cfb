/* One job on a worker thread (daemon_job.c): audit, assess, policy with the
 * user's answers, execute, and the sidecar at each step. The loop (daemon.c)
 * hands each job what it needs in a struct daemon_job_env; a job never sees
 * the loop itself. */
#ifndef MAI_DAEMON_JOB_H
#define MAI_DAEMON_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "config.h"
#include "daemon_grant.h"
#include "daemon_retry.h"
#include "daemon_stages.h"
#include "daemon_status.h"
#include "intake.h"
#include "jobs.h"
#include "result.h"
#include "source.h"
#include "writer.h"

/* A job's payload (struct jobs_item.payload): what intake read, and who
 * wrote it. */
struct daemon_job {
	char *name;                  /* relative to the drop directory */
	struct intake_snapshot snap;
	struct drop_writer writer;
	struct timespec accepted;
};
void daemon_job_free(void *payload);

/* What the jobs share, owned by the loop; every member stays valid while
 * the workers run. */
struct daemon_job_env {
	const struct mai_config *cfg;       /* as started */
	/* Where names come from; drop_source_dir() is where the agent reads
	 * and writes the drop directory's files itself. */
	struct drop_source *source;
	const struct daemon_stages *stages; /* NULL: none in this build */
	struct daemon_status *status;
	struct daemon_retries *retries;
	struct daemon_grants *grants;
	struct jobs *jobs;
	atomic_uint_least64_t diff_max;     /* audit.diff_max; a reload changes it */
	pthread_mutex_t result_lock;        /* one sidecar writer at a time */
	/* Wakes the loop when a retry was scheduled. */
	void (*wake)(void *arg);
	void *wake_arg;
};

/* The jobs' run callback (jobs.h); arg is the struct daemon_job_env. */
void daemon_job_run(void *arg, const struct jobs_item *item);
/* Writes a result sidecar, counts its state and logs it; the source hears
 * of it (a mount drops what the kernel cached and wakes its waiters). */
void daemon_job_write_result(struct daemon_job_env *env, const struct result_info *r);

#endif
