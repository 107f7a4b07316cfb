/* One job's state while a worker runs it, shared by the two files of a
 * job: daemon_job.c (the steps) and daemon_answer.c (the user's answers);
 * the records both append (daemon_job_ctx.c). Internal to daemon/. */
#ifndef MAI_DAEMON_JOB_CTX_H
#define MAI_DAEMON_JOB_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "approval.h"
#include "daemon_job.h"
#include "level.h"

#define DAEMON_JOB_MAX_SEQS 8

struct job_ctx {
	struct daemon_job_env *d;
	const struct daemon_job *job;
	struct approvers *who; /* a reference for the job's life */
	struct result_info r;
	uint64_t seqs[DAEMON_JOB_MAX_SEQS];
	struct audit_sidecar_info position; /* behind r.audit's entry hash */
	uint64_t job_seq; /* of job_accepted: the "job" field of the later records */
	bool accepted;    /* job_seq is set */
	uint64_t last_seq; /* of the record audit() appended last, when last_valid */
	bool last_valid;
	uint64_t answer_seq; /* of the approval/override record of the answer used */
	bool answer_recorded; /* answer_seq is set */
	uint64_t first_seq;   /* of that answer's first record (an earlier attempt's) */
	bool first_recorded;
	char *detail; /* owned text behind r.detail */
	char *writer; /* owned text behind r.writer_user */
};

/* Appends one record of the job (takes fields); false (and c->detail set)
 * when the log refuses: then nothing may run. */
bool daemon_job_audit(struct job_ctx *c, enum audit_event e, json_t *fields);

/* The user's text as a JSON string: as written when it is UTF-8, else with
 * the bytes escaped ("" for none). */
json_t *daemon_job_reason_json(const char *reason);

#endif
