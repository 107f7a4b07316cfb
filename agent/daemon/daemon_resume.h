/* A job's progress kept for its retry: a job that must wait (for Docker,
 * for the assessor, for room in the audit log) keeps what it recorded, so
 * that its retry of the same content goes on from there instead of
 * recording job_accepted, the assessment and the decision again. The retry
 * records a small "retry" record per attempt, and the job's records (its
 * .audit sidecar) stay those of one job. Keyed by name; a retry of other
 * content forgets the old progress. Thread-safe. */
#ifndef MAI_DAEMON_RESUME_H
#define MAI_DAEMON_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "approval.h"
#include "daemon_stages.h"
#include "hash.h"
#include "policy.h"

enum daemon_stage {
	DAEMON_STAGE_ACCEPTED, /* job_accepted (and the diff) recorded */
	DAEMON_STAGE_ASSESSED, /* and the assessment */
	DAEMON_STAGE_DECIDED,  /* and the answers and the decision to run */
};

struct daemon_progress {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	enum daemon_stage stage;
	uint64_t job;                 /* seq of job_accepted */
	uint64_t *seqs;               /* every record of the job so far */
	size_t n_seqs;
	unsigned attempts;            /* that ended in a retry */
	struct daemon_assessment a;   /* from ASSESSED: json, level, shape */
	struct policy_decision pd;    /* at DECIDED */
	struct approval answer;       /* at DECIDED, when by "user" */
};
/* Frees what p holds and zeroes it. */
void daemon_progress_clear(struct daemon_progress *p);

struct daemon_resumes;

/* NULL never (allocation aborts). */
struct daemon_resumes *daemon_resumes_new(void);
void daemon_resumes_free(struct daemon_resumes *r);
/* Keeps p (taken over; zeroed) for name, replacing any other. */
void daemon_resumes_keep(struct daemon_resumes *r, const char *name, struct daemon_progress *p);
/* Takes the progress kept for name when it is for sha256 (into *out, the
 * caller's to clear); progress for other content is dropped. */
bool daemon_resumes_take(struct daemon_resumes *r, const char *name, const char *sha256,
			 struct daemon_progress *out);
/* Forgets name's progress (the file is gone). */
void daemon_resumes_drop(struct daemon_resumes *r, const char *name);

#endif
