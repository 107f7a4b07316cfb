/* The audit log as the view sees it: a thin, thread-safe layer over the core
 * library's reader and verifier (agent/audit_reader.h, agent/audit_verify.h),
 * so that maiaudit verifies with exactly the code 'mai-agent verify' uses.
 * Every text it returns is newline-terminated and owned by the caller. */
#ifndef MAI_VIEW_LOG_H
#define MAI_VIEW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view_log;

/* Never fails: the log is opened on first use, so that the view can be
 * mounted before the agent has created its log. Strings are copied. */
struct view_log *view_log_new(const char *log_dir, const char *pubkey_path);
void view_log_free(struct view_log *log);

/* Number of records. With refresh, the log is re-read for records appended
 * since the last look. 0 or -errno; *err (caller frees) says why. */
int view_log_count(struct view_log *log, bool refresh, uint64_t *count, char **err);

/* One record as stored, plus a newline. -ENOENT past the end. */
int view_log_entry(struct view_log *log, uint64_t seq, char **text, size_t *len, char **err);

/* The hash of the latest record in hex, plus a newline. */
int view_log_head(struct view_log *log, char **text, size_t *len, char **err);

/* The latest signed checkpoint (signed-note text). -ENOENT when there is none. */
int view_log_checkpoint(struct view_log *log, char **text, size_t *len, char **err);

/* A full verification of the log from disk, as one line or as JSON. Never
 * fails: a log that cannot be read is a FAIL with its reason. */
void view_log_verify(struct view_log *log, bool json, char **text, size_t *len);

/* Where the view looks for the public key and the log (for messages). */
const char *view_log_pubkey_path(const struct view_log *log);
const char *view_log_dir(const struct view_log *log);

/* True when this build has the audit library; false in a build made before
 * it existed (then every call above answers -ENOSYS with a message). */
bool view_log_available(void);

#endif
