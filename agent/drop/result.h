/* Result: the foo.result.json sidecar that answers a dropped foo.py.
 *
 * Built with jansson from a result_info that borrows everything it points
 * to (the assessment and execution objects come from the assessor's and the
 * sandbox's *_to_json). Written next to the script by place_sidecar()
 * (place.h: a new file renamed into place, never written through a name
 * another user prepared), mode 0644, so a reader sees the old answer or the
 * new one, never a mix; a script whose name leaves no room for the suffix
 * is answered under names_result_sidecar()'s short name. Every state but a
 * clean exit carries a one-line "message" that tells the user what to do
 * next.
 *
 * Schema (schema_version 1):
 *   schema_version, agent_version, file, file_escaped?, sha256?, size?,
 *   state, reason?, verdict?, exit_code?, signal?, message?,
 *   times {accepted?, started?, finished?} (RFC 3339 UTC, milliseconds),
 *   writer? {uid, gid, from, pid?, process?, user?} (writer.h),
 *   assessment?, since_last_run? {previous_sha256, diff, truncated, ...},
 *   decision? {action, by, uid?, user?, reason?}, execution?,
 *   audit? {seqs[], entry_hash?, checkpoint_size?} */
#ifndef MAI_RESULT_H
#define MAI_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "macro.h"
#include "place.h"
#include "stagetime.h"
#include "writer.h"

#define RESULT_SCHEMA_VERSION 1
#define RESULT_SUFFIX ".result.json"

enum result_state {
	RESULT_QUEUED,
	RESULT_RUNNING,
	RESULT_COMPLETED,             /* it ran: see the verdict */
	RESULT_AWAITING_CONFIRMATION, /* HIGH: waits for foo.approve */
	RESULT_BLOCKED,               /* BLOCKED: waits for foo.override */
	RESULT_REJECTED,              /* bad input */
	RESULT_ERROR,                 /* the agent or Docker failed; retried */
};
const char *result_state_to_string(enum result_state s);
/* 0 or -EINVAL. */
int result_state_from_string(const char *s, enum result_state *out);
/* True for the states that end a job for its content: completed, rejected,
 * awaiting_confirmation and blocked (the last two until an approval or an
 * override comes). */
bool result_state_is_final(enum result_state s);

enum result_verdict {
	RESULT_VERDICT_NONE,
	RESULT_VERDICT_EXITED,
	RESULT_VERDICT_TIMEOUT,
	RESULT_VERDICT_OOM_KILLED,
	RESULT_VERDICT_OUTPUT_LIMIT,
	RESULT_VERDICT_PIDS_LIMIT,
	RESULT_VERDICT_SANDBOX_ERROR,
};
const char *result_verdict_to_string(enum result_verdict v);
/* Parses the sandbox's verdict names ("exited", "timeout", ...). 0 or -EINVAL. */
int result_verdict_from_string(const char *s, enum result_verdict *out);

/* For RESULT_ERROR: what becomes of the job, which its message tells. */
enum result_retry {
	RESULT_RETRY_BACKOFF,    /* the agent retries it on its own, with backoff */
	RESULT_RETRY_NEXT_START, /* the agent is stopping: its next start runs it */
	RESULT_RETRY_NONE,       /* nothing retries it: the detail says what to fix */
};

struct result_decision {
	const char *action; /* "run", "hold", "block", "reject"; NULL: no decision yet */
	const char *by;     /* "policy" or "user" */
	long uid;           /* the user who approved or overrode; -1 for none */
	const char *user;   /* that user's name, or NULL */
	const char *reason; /* the user's explanation, or NULL */
};

struct result_audit {
	const uint64_t *seqs; /* n_seqs sequence numbers; n_seqs 0: no audit block */
	size_t n_seqs;
	const char *entry_hash;   /* hex of the last record's hash, or NULL */
	uint64_t checkpoint_size; /* 0: none yet */
};

struct result_info {
	const char *file;   /* relative to the drop directory */
	const char *sha256; /* NULL when the content was never read */
	size_t size;        /* bytes; only written with sha256 */
	enum result_state state;
	const char *reason; /* stable id of a rejection or error ("symlink", "docker_down") */
	enum result_verdict verdict; /* for RESULT_COMPLETED */
	int exit_code;      /* for EXITED when signal is 0 */
	int signal;         /* for EXITED: killed by this signal */
	enum result_retry retry; /* for ERROR */
	/* Words placed in the message: for REJECTED the whole message (what
	 * is wrong and what to do), for ERROR and SANDBOX_ERROR what failed,
	 * for BLOCKED/AWAITING_CONFIRMATION a note in front (e.g. "foo.override
	 * is empty"). May be NULL. */
	const char *detail;
	/* For BLOCKED/AWAITING_CONFIRMATION: who may answer ("user root or a
	 * member of group ops, other than alice, who wrote it"); NULL: not
	 * said. */
	const char *answerers;
	/* For QUEUED: queued jobs that start before it, or -1 (not known: it
	 * waits for the running job of its file, or not said). */
	long queue_ahead;
	/* Owner, group and mode of the sidecar (place_script_access() of the
	 * script); NULL: the agent's own, 0644. */
	const struct dirwrite_access *access;
	struct timespec accepted, started, finished; /* tv_sec 0: absent */
	const struct drop_writer *writer; /* who wrote the content; NULL or UNKNOWN: absent */
	const char *writer_user; /* the writer's user name, or NULL */
	json_t *assessment; /* borrowed; NULL: absent */
	/* For a held script: its diff against the last version of its name that
	 * ran (audit_script_since_ran's fields); borrowed; NULL: absent. */
	json_t *since_last_run;
	json_t *execution;  /* borrowed; NULL: absent */
	struct result_decision decision;
	struct result_audit audit;
	/* Where the job's time went so far (stagetime.h), shown in a final
	 * state as "stages_ms"; NULL: absent. */
	const struct stagetime *stages;
};

/* The one-line message for r, or NULL for a clean exit (status 0). The
 * caller frees. */
char *result_message(const struct result_info *r) _nonnull_(1);

/* The whole document; a new reference the caller decrefs. */
json_t *result_to_json(const struct result_info *r) _nonnull_(1);

/* The document as written: indented JSON with sorted keys and a final
 * newline, *len bytes; NULL when it cannot be encoded. Caller frees. */
char *result_render(const struct result_info *r, size_t *len) _nonnull_(1, 2);

/* How r's document reaches the disk: synced unless it is queued or running. */
enum place_sync result_place_sync(const struct result_info *r) _nonnull_(1);

/* Writes <file without .py>.result.json (names_result_sidecar) with
 * place_sidecar(), atomically, and durably but for the states queued and
 * running. Returns what place_sidecar() returns: an enum
 * place_outcome, or -errno; *err is set for PLACE_IN_FALLBACK and errors
 * (caller frees). */
int result_write(const struct place_dirs *p, const struct result_info *r, char **err)
	_nonnull_(1, 2, 3) _must_check_;

/* Whether res, a result document as read back, is the final answer for
 * the content whose SHA-256 is sha256: a final state (completed, rejected,
 * awaiting_confirmation, blocked) or an error nothing retries (the
 * assessor or the sandbox is not part of this build). With sha256 NULL, a
 * file the intake refused before any content was read: a rejection with
 * reason unread_reason and no sha256. What 'mai-agent submit' waits for,
 * and what .wait/ of a mount serves. */
bool result_json_answers(const json_t *res, const char *sha256, const char *unread_reason);

/* Formats ts as "2026-11-22T06:55:00.123Z" into buf (at least 32 bytes). */
void result_format_time(const struct timespec *ts, char *buf, size_t size);

#endif
