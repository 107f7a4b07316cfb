/* The audit record types and the fields each must carry, and the script
 * history that turns a new version of a known script into a diff record. */
#ifndef MAI_AUDIT_EVENT_H
#define MAI_AUDIT_EVENT_H

#include <jansson.h>
#include <stddef.h>

#include "audit.h"

/* A job's records after job_accepted carry "job": the sequence number of its
 * job_accepted record, so that the records of one attempt are found together
 * (a retry of the same content is a new job).
 *
 * approval and override: one record per answer file the agent consumed (or
 * an answer an earlier attempt at the same content consumed: "reused"),
 * before the decision that rests on it. uid is the owner of the answer file
 * (null when it could not be read), explanation its text ("" when none),
 * accepted whether it counts, consumed what became of the file ("removed",
 * or "refused: " and why, e.g. "refused: empty"). */
enum audit_event {
	AUDIT_EVENT_AGENT_START,
	AUDIT_EVENT_AGENT_STOP,
	AUDIT_EVENT_CONFIG_LOADED,  /* config_sha256 (and reload: true on SIGHUP) */
	AUDIT_EVENT_JOB_ACCEPTED,   /* file, sha256, history ("new", "unchanged", "changed") */
	AUDIT_EVENT_ASSESSMENT,     /* job, level, rejected (and the assessment) */
	AUDIT_EVENT_DECISION,       /* job, action, by */
	AUDIT_EVENT_APPROVAL,       /* job, file, sha256, uid, explanation, accepted, consumed */
	AUDIT_EVENT_OVERRIDE,       /* the same; explanation non-empty when accepted */
	AUDIT_EVENT_EXECUTION,      /* job, verdict (and the execution: usage, limits) */
	AUDIT_EVENT_SCRIPT_DIFF,    /* job, file, previous_sha256, sha256, diff, truncated */
	AUDIT_EVENT_VERIFICATION,   /* ok, entries, head, checkpoint */
	AUDIT_EVENT_TORN_TAIL,      /* written by the log itself at open */
	AUDIT_EVENT_CHECKPOINT,     /* size, root: written by the log after it signs one */
	/* A file refused before its content was read (a symlink, a FIFO, a
	 * hard link, too large, a name that cannot be answered): file, reason,
	 * and what is known of it (uid, links). No job follows. */
	AUDIT_EVENT_INTAKE_REJECTED,
	AUDIT_EVENT_COUNT,
};

/* "agent_start", "job_accepted", ... Static string. */
const char *audit_event_to_string(enum audit_event e);

/* Checks that fields has what this event type must carry (see above). 0, or
 * -EINVAL with *err naming the missing field (caller frees). */
int audit_event_check(enum audit_event e, const json_t *fields, char **err);

/* audit_event_check, then audit_append. 0, -EINVAL with *err, or what
 * audit_append returns (then *err stays NULL). fields is borrowed. */
int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err);

/* What a script's content is to the history of its name. */
enum audit_script_history {
	AUDIT_SCRIPT_NEW,        /* the name was never seen */
	AUDIT_SCRIPT_UNCHANGED,  /* the same content as the latest version */
	AUDIT_SCRIPT_CHANGED,    /* other content: a script_diff record follows */
	AUDIT_SCRIPT_UNKNOWN,    /* the store could not be read (see the message) */
};

/* "new", "unchanged", "changed", "unknown". Static string. */
const char *audit_script_history_to_string(enum audit_script_history h);

/* Compares content with the latest version of name kept in the
 * content-addressed store (blobstore.h, under state_dir/blobs); stores
 * nothing. For CHANGED, *fields gets the script_diff fields but "file" and
 * "job" (previous_sha256, sha256, a unified diff of the previous version
 * against content capped at diff_max bytes (diff.h), truncated; caller
 * decrefs); else NULL. 0, or -errno with *err (caller frees). */
int audit_script_compare(const char *state_dir, const char *name, const char *content, size_t len,
			 size_t diff_max, enum audit_script_history *history, json_t **fields, char **err);

/* Keeps content as the latest version of name. Called once the records that
 * cite the comparison are durable, so that a job that could not record its
 * diff compares against the same previous version when it is retried. 0 or
 * -errno with *err (caller frees). */
int audit_script_remember(const char *state_dir, const char *name, const char *content, size_t len,
			  char **err);

/* For a held script: the script_diff fields of content against the version
 * of name that ran last (audit_script_mark_ran), so that whoever approves
 * sees what changed since; an unchanged content gives an empty diff. *fields
 * is NULL when no version of name ever ran. 0, or -errno with *err (caller
 * frees). */
int audit_script_since_ran(const char *state_dir, const char *name, const char *content,
			   size_t len, size_t diff_max, json_t **fields, char **err);

/* Records sha256 (a version remembered before) as the one of name that ran
 * last. 0 or -errno with *err (caller frees). */
int audit_script_mark_ran(const char *state_dir, const char *name, const char *sha256, char **err);

#endif
