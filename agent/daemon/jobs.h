/* Jobs: per-file ordering, a bounded worker pool, fair turns across writers
 * and idempotence by content.
 *
 * Rules (issue #6, point 3; issue #27, point 4):
 * - one job per file at a time: a file's next job starts only after its
 *   running one has returned;
 * - newer content supersedes a queued older job of the same file (the older
 *   one is dropped without running); a running job is never interrupted by a
 *   newer version: it finishes and the newer one runs next;
 * - content that already has a final result is not run again: the index of
 *   final results (file name -> sha256 and state) lives in the state
 *   directory as one JSON object per line, appended with fdatasync, so a
 *   restart skips it too. A torn last line (a crash mid-append) is skipped
 *   and the file is compacted when it is opened;
 * - turns are shared round-robin by writer (the uid a job is submitted
 *   for): each free worker takes the oldest ready job of the next writer in
 *   the ring, so one writer's thousand queued jobs delay another writer's
 *   next job by at most one job per other writer, not by the thousand;
 * - a writer has at most max_per_owner jobs queued or running (0: no cap);
 *   one more is refused (JOBS_OVER_CAP), unless it replaces that writer's
 *   own queued job of the same file.
 *
 * Thread-safety: every function may be called from any thread; the run
 * callback is called on a worker thread without any lock held. */
#ifndef MAI_JOBS_H
#define MAI_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hash.h"
#include "macro.h"

struct jobs;

struct jobs_item {
	uint64_t id;    /* 1, 2, ... in submission order */
	char *name;     /* the file, relative to the drop directory */
	char sha256[HASH_SHA256_HEX_LEN + 1];
	bool force;     /* run even when the content has a final result */
	uid_t owner;    /* the writer whose turn it takes */
	/* When accepted: jobs that start before it as things stand (queued
	 * ones only), or -1 when it waits for the running job of its file. */
	long ahead;
	void *payload;  /* the caller's; freed by jobs_options.free_payload */
};

struct jobs_options {
	unsigned workers;      /* 1 or more */
	const char *state_dir; /* holds the index; must exist */
	/* Runs one job on a worker thread. The job and its payload are freed
	 * after it returns. */
	void (*run)(void *arg, const struct jobs_item *job);
	void (*free_payload)(void *payload); /* may be NULL */
	/* May be NULL. Called with the job just accepted (queued, replacing an
	 * older one, or waiting for the running one), under the pool's lock and
	 * so before any worker can start it: a "queued" sidecar written here is
	 * never newer than the worker's. Must not call back into jobs. */
	void (*accepted)(void *arg, const struct jobs_item *job);
	void *arg;
	unsigned max_per_owner; /* jobs queued or running per writer; 0: no cap */
};

/* File name of the index inside the state directory. */
#define JOBS_INDEX_NAME "final-results.jsonl"

/* Loads the index and starts the workers. 0 or -errno with *err set (caller
 * frees). jobs_free() stops and releases it. */
int jobs_new(const struct jobs_options *o, struct jobs **out, char **err) _must_check_;

enum jobs_submit_result {
	JOBS_QUEUED,        /* will run; nothing else for this file was waiting */
	JOBS_REPLACED,      /* superseded an older queued job of this file */
	JOBS_AFTER_RUNNING, /* a job of this file runs; this one runs next */
	JOBS_DUPLICATE,     /* the same content is already queued or running */
	JOBS_ALREADY_FINAL, /* this content already has a final result */
	JOBS_STOPPED,       /* jobs_stop() was called */
	JOBS_OVER_CAP,      /* its writer has max_per_owner jobs queued or running */
};
const char *jobs_submit_result_to_string(enum jobs_submit_result r);

/* Submits name at content sha256. payload is taken over in every case (freed
 * at once when the job is not queued). force skips the final-result check
 * (an approval or an override of held content). */
enum jobs_submit_result jobs_submit(struct jobs *j, const char *name, const char *sha256,
				    bool force, void *payload) _nonnull_(1, 2, 3);
/* jobs_submit() for the writer owner, whose turn it takes (see above). */
enum jobs_submit_result jobs_submit_by(struct jobs *j, const char *name, const char *sha256,
				       bool force, uid_t owner, void *payload) _nonnull_(1, 2, 3);
/* Changes the cap on a writer's jobs for what is submitted afterwards. */
void jobs_set_max_per_owner(struct jobs *j, unsigned max) _nonnull_(1);
/* How many jobs owner has queued or running now. */
unsigned jobs_owner_active(struct jobs *j, uid_t owner) _nonnull_(1);

/* Records that name at sha256 has a final result in state (e.g.
 * "completed"); durable when it returns 0, else -errno. */
int jobs_record_final(struct jobs *j, const char *name, const char *sha256,
		      const char *state) _nonnull_(1, 2, 3, 4);
/* Who wrote held content and when it was held (taken before its held
 * result was written): what an answer without a pin must come after
 * (approval.h). */
struct jobs_hold {
	uid_t uid;
	struct timespec at; /* CLOCK_REALTIME */
};
/* jobs_record_final() of a held state (awaiting_confirmation, blocked)
 * with its hold, kept in the index too. */
int jobs_record_held(struct jobs *j, const char *name, const char *sha256, const char *state,
		     const struct jobs_hold *hold) _nonnull_(1, 2, 3, 4);
/* True when the latest final result of name is a held one: *sha256 and
 * *out receive its content and hold. */
bool jobs_find_hold(struct jobs *j, const char *name, char sha256[HASH_SHA256_HEX_LEN + 1],
		    struct jobs_hold *out) _nonnull_(1, 2, 3, 4);
/* True when name at sha256 has a final result; *state (optional) receives
 * a copy of its state, which the caller frees. */
bool jobs_is_final(struct jobs *j, const char *name, const char *sha256, char **state)
	_nonnull_(1, 2, 3);

struct jobs_stats {
	unsigned queued, running, workers;
	unsigned writers_waiting; /* writers with a job ready to start */
	uint64_t submitted, completed, superseded, over_cap;
};
void jobs_get_stats(struct jobs *j, struct jobs_stats *out) _nonnull_(1, 2);

/* Stops taking jobs, drops the queued ones (a restart's rescan finds them
 * again), waits for the running ones to return. Idempotent. */
void jobs_stop(struct jobs *j);
/* Waits until nothing is queued or running (for tests and submit). */
void jobs_wait_idle(struct jobs *j);
void jobs_free(struct jobs *j);

#endif
