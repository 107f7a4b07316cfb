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

struct job_ctx {
	struct daemon_job_env *d;
	const struct daemon_job *job;
	struct approvers *who; /* a reference for the job's life */
	struct result_info r;
	uint64_t *seqs;   /* the job's records, r.audit.n_seqs of them */
	size_t seqs_cap;
	struct audit_sidecar_info position; /* behind r.audit's entry hash */
	uint64_t job_seq; /* of job_accepted: the "job" field of the later records */
	bool accepted;    /* job_seq is set */
	unsigned attempt; /* 1, or one more than the attempts that ended in a retry */
	int audit_err;    /* what the log said when daemon_job_audit() returned false */
	char *audit_why;  /* and in words, for the result */
	uint64_t last_seq; /* of the record audit() appended last, when last_valid */
	bool last_valid;
	/* Records queued (daemon_job_audit_queued) and not known durable yet:
	 * from r.audit.seqs[durable_n] on, appended in epochs first_epoch ..
	 * last_epoch, the last one last_seq_queued. accepted_durable: the
	 * job_accepted record is among the durable ones. */
	bool queued;
	uint64_t first_epoch, last_epoch, last_seq_queued;
	size_t durable_n;
	bool accepted_durable;
	uint64_t answer_seq; /* of the approval/override record of the answer used */
	bool answer_recorded; /* answer_seq is set */
	uint64_t first_seq;   /* of that answer's first record (an earlier attempt's) */
	bool first_recorded;
	char *detail; /* owned text behind r.detail */
	char *writer; /* owned text behind r.writer_user */
	/* Kept in the state directory once the job has answered (off the
	 * drop's path): the content as its name's latest version, and as the
	 * version that ran last. */
	bool remember, ran;
	bool note_ended; /* the run's note was removed; the removal is synced then */
};

/* Appends one record of the job (takes fields), durable on return with
 * every record the job queued before it; false (and c->audit_why set) when
 * the log refuses: then nothing may run, and what runs stops
 * (daemon_job_env.halt), and the records the job queued since its last
 * durable one are forgotten (their seqs, and job_accepted among them: a
 * retry starts afresh). */
bool daemon_job_audit(struct job_ctx *c, enum audit_event e, json_t *fields);
/* The same, but the record is only queued: it becomes durable with the
 * job's next daemon_job_audit() or daemon_job_audit_sync(), which must come
 * before anything runs or cites it. */
bool daemon_job_audit_queued(struct job_ctx *c, enum audit_event e, json_t *fields);
/* Makes the job's queued records durable (nothing queued: true at once);
 * false as daemon_job_audit(). */
bool daemon_job_audit_sync(struct job_ctx *c);

/* The user's text as a JSON string: as written when it is UTF-8, else with
 * the bytes escaped ("" for none). */
json_t *daemon_job_reason_json(const char *reason);

#endif
