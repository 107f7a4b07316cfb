/* What the daemon's event loop (daemon.c) and its intake of names
 * (daemon_take.c) share: the daemon itself. Private to those two files. */
#ifndef MAI_DAEMON_LOOP_H
#define MAI_DAEMON_LOOP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "audit.h"
#include "daemon.h"
#include "daemon_intake.h"
#include "daemon_job.h"
#include "jobs.h"
#include "source.h"
#include "strmap.h"

struct daemon {
	const struct mai_config *cfg;
	struct mai_config *reloaded; /* owned: the config from the last SIGHUP */
	char *config_dir;
	char *fallback_dir;          /* state_dir/unplaced (place.h) */
	const struct daemon_stages *stages;
	struct drop_source *source; /* the watch or the mount */
	/* name -> struct known_writer: who wrote each name's content last, as
	 * the source said, for the takes that come without a writer (an
	 * answer, a retry). The loop's thread only. */
	struct strmap *writers;
	struct jobs *jobs;
	struct daemon_intake *intake; /* the names waiting to be taken in */
	int epfd, sigfd, wakefd;
	atomic_bool stop;
	struct timespec started;
	uint64_t max_file_size;      /* a reload changes it; the loop's thread only */
	/* What the workers share (daemon_job.h); each part has its own lock. */
	struct daemon_job_env env;
};

/* daemon_take.c: a name the source reports (a drop_source callback); it
 * waits in the intake for its writer's turn. */
void daemon_take_name(void *arg, struct drop_name *n);
/* Takes in the names that wait, a writer at a time, for a slice of time. */
void daemon_take_due(struct daemon *d);
/* Takes again the names whose retry is due; ms until the next one, or -1. */
int daemon_take_retries(struct daemon *d);
/* A job accepted by the pool, before any worker sees it (jobs.h): its
 * queued result. */
void daemon_take_accepted(void *arg, const struct jobs_item *item);
/* Whether the audit log takes records; *why (caller frees) when not. */
enum audit_health daemon_audit_state(struct daemon *d, char **why);

#endif
