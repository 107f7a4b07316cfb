/* One job on a worker thread (daemon_job.c): audit, assess, policy with the
 * user's answers, execute, and the sidecar at each step. The loop (daemon.c)
 * hands each job what it needs in a struct daemon_job_env; a job never sees
 * the loop itself. */
#ifndef MAI_DAEMON_JOB_H
#define MAI_DAEMON_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "approvers.h"
#include "config.h"
#include "daemon_grant.h"
#include "daemon_resume.h"
#include "daemon_retry.h"
#include "daemon_sidecars.h"
#include "daemon_stages.h"
#include "daemon_status.h"
#include "intake.h"
#include "jobs.h"
#include "place.h"
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
	long rerun_uid; /* who asked for a new run of this content (foo.rerun), or -1 */
	/* For its stages (stagetime.h): how long the snapshot took, how long
	 * the queued result.json took, and when (monotonic ns) it was queued. */
	int64_t intake_ns, queued_write_ns, queued_at_ns;
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
	struct daemon_resumes *resumes;
	/* The final sidecars kept, and those waiting for room (NULL: none kept). */
	struct daemon_sidecars *sidecars;
	struct jobs *jobs;
	/* Runs must stop (the sandbox watches it): the audit log refused a
	 * record, or the agent stops. A record taken clears it, unless the
	 * agent stops. */
	atomic_bool halt;
	atomic_bool stopping;
	atomic_uint_least64_t diff_max;     /* audit.diff_max; a reload changes it */
	pthread_mutex_t result_lock;        /* one sidecar writer at a time */
	/* Where sidecars go: the drop directory, or the state directory's
	 * fallback when the drop directory refuses one (place.h). */
	struct place_dirs place;
	/* Who may answer (security.yaml); a reload swaps it under the lock. */
	pthread_mutex_t approvers_lock;
	struct approvers *approvers;
	/* Wakes the loop when a retry was scheduled. */
	void (*wake)(void *arg);
	void *wake_arg;
};

/* The jobs' run callback (jobs.h); arg is the struct daemon_job_env. */
void daemon_job_run(void *arg, const struct jobs_item *item);
/* Writes a result sidecar, counts its state and logs it; the source hears
 * of it (a mount drops what the kernel cached and wakes its waiters). */
void daemon_job_write_result(struct daemon_job_env *env, const struct result_info *r);
/* Places a final sidecar's text (".audit") for script, its directory
 * synced by the final result.json written next; logs a refusal or failure,
 * and keeps it (daemon_sidecars.h). 0 when it is in the drop directory or
 * the fallback, else -errno. */
int daemon_job_place(struct daemon_job_env *env, const char *script, const char *suffix,
		     const char *text, size_t len, const struct dirwrite_access *acc);
/* Content that has its final answer was taken again: its sidecars are
 * placed again where they were lost (daemon_sidecars.h), with an
 * answer_restored record. true when it has its answer (in place, or placed
 * again); false when no copy answers it, so it must run again. */
bool daemon_job_answer_again(struct daemon_job_env *env, const char *name, const char *sha256);
/* The daemon_sidecars_place_fn of env (arg): places a kept sidecar again,
 * quietly. */
int daemon_job_place_again(void *arg, const char *script, const char *suffix, const char *text,
			   size_t len);
/* The approvers now in force, with a reference the caller drops
 * (approvers_unref). */
struct approvers *daemon_job_approvers(struct daemon_job_env *env);
/* Replaces the approvers (takes a's reference). */
void daemon_job_set_approvers(struct daemon_job_env *env, struct approvers *a);

#endif
