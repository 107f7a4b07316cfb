/* The audit record types and the fields each must carry, and the script
 * history that turns a new version of a known script into a diff record. */
#ifndef MAI_AUDIT_EVENT_H
#define MAI_AUDIT_EVENT_H

#include <jansson.h>
#include <stddef.h>

#include "audit.h"

enum audit_event {
	AUDIT_EVENT_AGENT_START,
	AUDIT_EVENT_AGENT_STOP,
	AUDIT_EVENT_CONFIG_LOADED,  /* config_sha256 */
	AUDIT_EVENT_JOB_ACCEPTED,   /* job, file, sha256 */
	AUDIT_EVENT_ASSESSMENT,     /* job, level, score, findings */
	AUDIT_EVENT_DECISION,       /* job, decision, by */
	AUDIT_EVENT_APPROVAL,       /* job, explanation, uid */
	AUDIT_EVENT_OVERRIDE,       /* job, explanation (non-empty), uid */
	AUDIT_EVENT_EXECUTION,      /* job, verdict, usage, limits */
	AUDIT_EVENT_SCRIPT_DIFF,    /* file, previous_sha256, sha256, diff, truncated */
	AUDIT_EVENT_VERIFICATION,   /* ok, entries, head, checkpoint */
	AUDIT_EVENT_TORN_TAIL,      /* written by the log itself at open */
	AUDIT_EVENT_COUNT,
};

/* "agent_start", "job_accepted", ... Static string. */
const char *audit_event_to_string(enum audit_event e);

/* Checks that fields has what this event type must carry (see above), then
 * appends. 0, -EINVAL with *err naming the missing field (caller frees), or
 * what audit_append returns. fields is borrowed. */
int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err);

/* Keeps every version of a script in the content-addressed store
 * (blobstore.h, under state_dir/blobs). When name was seen before with other
 * content, *fields gets the script_diff fields (a unified diff capped at
 * diff_max bytes, diff.h; caller decrefs); else NULL. Stores the new version
 * either way. 0 or -errno with *err (caller frees). */
int audit_script_history(const char *state_dir, const char *name, const char *content, size_t len,
			 size_t diff_max, json_t **fields, char **err);

#endif
