/* The audit log writer: one per log directory (a lock), appends canonical
 * JSON records to a hash chain that is also an RFC 6962 Merkle tree, makes
 * them durable with group commit, and signs checkpoints. */
#ifndef MAI_AUDIT_H
#define MAI_AUDIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Until the config loader lands, callers fill this; keys mirror audit.yaml. */
struct audit_options {
	const char *log_dir;          /* created 0700 when missing */
	const char *signing_key;      /* signed-note private key file (0600) */
	const char *public_key;       /* NULL: log_dir/pubkey is written */
	const char *origin;           /* checkpoint origin line, e.g. "mai.local/audit" */
	int fsync;                    /* 0 only for tests that measure the format */
	unsigned group_commit_delay_us; /* how long a commit waits for company */
	unsigned checkpoint_interval_s; /* timer for checkpoints, 0 = after each commit */
	uint64_t rotate_size;         /* bytes per segment, 0 = never */
	unsigned rotate_age_s;        /* seconds per segment, 0 = never */
	unsigned retention_age_s;     /* drop segments older than this, 0 = keep all */
	size_t diff_max;              /* cap on a diff carried in a record */
};

/* Where an appended record landed. */
struct audit_position {
	uint64_t seq;
	char entry_hex[65];           /* entry (leaf) hash in hex */
};

struct audit_log;

/* Opens or creates the log, takes the writer lock (a second writer gets
 * -EWOULDBLOCK and a message naming the lock and the holder's pid), recovers
 * a torn tail into a quarantine file and records that as an event. 0 or
 * -errno with *err set (caller frees). */
int audit_open(const struct audit_options *opt, struct audit_log **out, char **err);

/* Appends one record {"fields":fields,"seq":N,"time":...,"type":type}. Durable
 * on return (group commit across threads). fields is borrowed (may be NULL).
 * pos may be NULL. 0 or -errno (-ENOSPC: nothing should run). */
int audit_append(struct audit_log *log, const char *type, json_t *fields, struct audit_position *pos);

/* Signs and writes a checkpoint of everything durable now. 0 or -errno. */
int audit_checkpoint_now(struct audit_log *log);

/* Where a job's records stand in the log, for its result.json. */
struct audit_sidecar_info {
	uint64_t checkpoint_size; /* the tree size of the checkpoint proved against */
	char entry_hash[65];      /* hex entry hash of the last record */
};

/* The sidecar document for the records seqs[0..n) (each with an inclusion
 * proof against a fresh checkpoint), newline-terminated, in *text (caller
 * frees) and *len; fills *pos when it is not NULL. 0 or -errno. */
int audit_sidecar_render(struct audit_log *log, const uint64_t *seqs, size_t n, char **text,
			 size_t *len, struct audit_sidecar_info *pos);
/* The same, written atomically to path (a directory that only its owner
 * writes; the daemon places a job's sidecar with place.h). 0 or -errno. */
int audit_sidecar_write(struct audit_log *log, const uint64_t *seqs, size_t n, const char *path,
			struct audit_sidecar_info *pos);

/* Removes segments older than retention_age that lie wholly under the signed
 * checkpoint, after writing the anchor that keeps the rest verifiable
 * (audit_format.h, "base"), and records that as an event. The checkpoint
 * timer calls it; now is a parameter for tests. 0 or -errno. */
int audit_retention_now(struct audit_log *log, time_t now);

/* Number of records and the head entry hash. */
uint64_t audit_size(struct audit_log *log);

/* Checkpoints, flushes and releases the lock. NULL is fine. */
void audit_close(struct audit_log *log);

#endif
