/* The audit log as the view sees it: a thin, thread-safe layer over the core
 * library's reader and verifier (agent/audit/audit_reader.h, agent/audit/audit_verify.h),
 * so that maiaudit verifies with exactly the code 'mai-agent verify' uses.
 * Every text it returns is newline-terminated and owned by the caller. */
#ifndef MAI_VIEW_LOG_H
#define MAI_VIEW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view_log;

/* Never fails: the log is opened on first use, so that the view can be
 * mounted before the agent has created its log. Strings are copied.
 * pubkey_path NULL: the first of VIEW_LOG_PUBKEY_NAMES that exists in
 * log_dir, looked up at each use (the key may appear after the mount). */
struct view_log *view_log_new(const char *log_dir, const char *pubkey_path);

/* Names the public key is published under next to the log: audit.yaml's
 * default, then the audit writer's own default. */
#define VIEW_LOG_PUBKEY_NAMES { "audit.pub", "pubkey" }
void view_log_free(struct view_log *log);

/* The records on disk are [first, count): first is above 0 once retention
 * has dropped old segments. With refresh, the log is re-read for records
 * appended since the last look. 0 or -errno; *err (caller frees) says why. */
int view_log_range(struct view_log *log, bool refresh, uint64_t *first, uint64_t *count,
		   char **err);

/* One record's canonical JSON, plus a newline. -ENOENT past the end or
 * before the first record kept. */
int view_log_entry(struct view_log *log, uint64_t seq, char **text, size_t *len, char **err);

/* The hash of the latest record in hex, plus a newline; empty for an
 * empty log. */
int view_log_head(struct view_log *log, char **text, size_t *len, char **err);

/* The latest signed checkpoint (signed-note text). -ENOENT when there is none. */
int view_log_checkpoint(struct view_log *log, char **text, size_t *len, char **err);

/* A full verification of the log from disk, as one line or as JSON. Never
 * fails: a log that cannot be read is a FAIL with its reason. */
void view_log_verify(struct view_log *log, bool json, char **text, size_t *len);

/* The public key file in use now (see view_log_new). Caller frees. */
char *view_log_pubkey_path(const struct view_log *log);
/* Where the view reads the log. */
const char *view_log_dir(const struct view_log *log);

#endif
