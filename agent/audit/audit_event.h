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
 * or "refused: " and why, e.g. "refused: empty"). In mount mode an answer
 * file that a non-approver tries to create is refused at the call, before
 * any job could use it: that record has "refused_at": "call", "job": null,
 * the caller's uid, gid, pid and process, "sha256" of the script's content
 * then (null when there is no script), accepted false and explanation "".
 *
 * job_accepted carries the content's writer (drop/writer.h): "uid" and
 * "writer" {uid, gid, from, pid?, process?}; in mount mode the process whose
 * request completed the file.
 *
 * execution: verdict is the run's (result.h), "agent_stopped" for a run the
 * stopping agent killed, or "interrupted" with reason "agent_killed" (the
 * agent ended during the run; written at its next start) or
 * "audit_unwritable" (the run was stopped because its records could not be
 * written). recorded_late: true marks a record written at a start after
 * the run ended, from the note of the run. */
enum audit_event {
	AUDIT_EVENT_AGENT_START,
	AUDIT_EVENT_AGENT_STOP,
	AUDIT_EVENT_CONFIG_LOADED,  /* config_sha256 (and reload: true on SIGHUP) */
	AUDIT_EVENT_JOB_ACCEPTED,   /* file, sha256, history ("new", "unchanged", "changed"), uid, writer */
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
	/* job, attempt, reason (and detail): an attempt of the job ended in an
	 * error that passes (Docker down, the assessor failed); the retry goes
	 * on from the job's records instead of recording them again. */
	AUDIT_EVENT_RETRY,
	/* file, moved_to, what, script: at start, what was at a sidecar's or
	 * an answer's name that is not the agent's (quarantine.h), moved aside
	 * and kept; the script is answered again. */
	AUDIT_EVENT_MOVED_ASIDE,
	/* file, sha256, sidecars (which, and why: "foo.result.json missing"),
	 * placed ("drop_dir", "fallback", "nowhere"): final content taken again
	 * whose answer was lost; the agent's copy of it was placed again. */
	AUDIT_EVENT_ANSWER_RESTORED,
	/* name, host, nodes: an engine of several nodes (Swarm) and what the
	 * probe job of each proved (or why a node is not used), at start. */
	AUDIT_EVENT_ENGINE_NODES,
	/* file, from, uid (and user), renamed_by, author {uid, gid, user}:
	 * mount mode, a script renamed (from -> file) by someone other than
	 * the author of its bytes (their owner). The rename is the renamer's
	 * (renamed_by: the writer's fields of the request); the content stays
	 * the author's, who is its writer in the job that follows. */
	AUDIT_EVENT_RENAMED,
	AUDIT_EVENT_COUNT,
};

/* "agent_start", "job_accepted", ... Static string. */
const char *audit_event_to_string(enum audit_event e);

/* Checks that fields has what this event type must carry (see above). 0, or
 * -EINVAL with *err naming the missing field (caller frees). */
int audit_event_check(enum audit_event e, const json_t *fields, char **err);

/* audit_event_check, then audit_append; fields that would make a record
 * longer than AUDIT_RECORD_MAX are appended as audit_event_fit() cuts
 * them. 0, -EINVAL with *err, or what audit_append returns (then *err
 * stays NULL). fields is borrowed. */
int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err);
/* The same through audit_append_queued(): not durable on return. */
int audit_event_queue(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		      char **err);

/* A copy of fields whose canonical JSON fits in max bytes: the largest
 * strings (an output, a diff) are cut to a prefix and the largest arrays
 * (findings) to their first items, until it fits; fields then has "cut",
 * an object naming each part cut by its dotted path with its length
 * ("bytes" or "items") and what was kept ("kept"), and "record_max". When
 * cutting cannot make it fit, only the fields the type needs are kept and
 * "cut" says so. New reference. */
json_t *audit_event_fit(enum audit_event e, const json_t *fields, size_t max);

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
