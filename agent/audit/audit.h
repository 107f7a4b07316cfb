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
	/* The log's count of failed writes when it was appended: records of
	 * one epoch reach the disk in order, so once a record is durable,
	 * every earlier record of its epoch is too. */
	uint64_t epoch;
};

struct audit_log;

/* Opens or creates the log, takes the writer lock (a second writer gets
 * -EWOULDBLOCK and a message naming the lock and the holder's pid), recovers
 * a torn tail into a quarantine file and records that as an event. 0 or
 * -errno with *err set (caller frees). */
int audit_open(const struct audit_options *opt, struct audit_log **out, char **err);

/* Appends one record {"fields":fields,"seq":N,"time":...,"type":type}. Durable
 * on return (group commit across threads). fields is borrowed (may be NULL).
 * pos may be NULL. 0 or -errno (-ENOSPC: nothing should run; -EMSGSIZE:
 * the line would be longer than AUDIT_RECORD_MAX, nothing was appended;
 * -EBADMSG: the log was changed behind the writer, see audit_health()). */
int audit_append(struct audit_log *log, const char *type, json_t *fields, struct audit_position *pos);
/* As audit_append(), but returns once the record has its place, before it
 * is durable: it reaches the disk with the next durable append (of any
 * thread) or audit_sync(). A failed write before then drops it (and every
 * record not yet durable) and ends its epoch; nothing may cite it until
 * audit_sync() said 0. */
int audit_append_queued(struct audit_log *log, const char *type, json_t *fields,
			struct audit_position *pos);
/* Until the record seq, appended in epoch, is durable: 0, or -errno when a
 * failed write dropped it first. */
int audit_sync(struct audit_log *log, uint64_t seq, uint64_t epoch);
/* Until every record appended so far is durable (the queued ones: a job's,
 * or a checkpoint's record). 0 or -errno. */
int audit_flush(struct audit_log *log);

/* Reads back what was written since the last checkpoint (audit_recheck.h)
 * and, when it is what the writer wrote, signs and writes a checkpoint of
 * everything durable now (the file synced), and queues the record of it
 * (audit_append_queued: audit_flush() or the next durable append writes
 * it). 0, -EBADMSG (the log was changed: the writer
 * stops, see audit_health()) or -errno. */
int audit_checkpoint_now(struct audit_log *log);
/* The same check and signature, for a sidecar: the note in *note (caller
 * frees) and its tree size in *size, without waiting for its file. The
 * checkpoint thread writes it beside the log and queues its record when
 * audit_checkpoint_write_soon() wakes it (the daemon's, once the answer
 * that cites it is written), else at its next interval or the close;
 * without such a thread, before this returns. Until then the file and the
 * records cite the older one, which the new one extends. The records it
 * signs are durable already. 0, -EBADMSG or -errno. */
int audit_checkpoint_sign(struct audit_log *log, char **note, uint64_t *size);
/* Wakes the checkpoint thread to write the checkpoint audit_checkpoint_sign()
 * left, and its record. Returns at once. */
void audit_checkpoint_write_soon(struct audit_log *log);

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

/* Whether the writer takes records, and if not, why. */
enum audit_health {
	AUDIT_HEALTH_OK,
	/* The last write failed, or the log's disk is full (less than 64 KiB
	 * free, when batches are refused with -ENOSPC): the next record tries
	 * again. */
	AUDIT_HEALTH_UNWRITABLE,
	AUDIT_HEALTH_BROKEN,     /* a failed write could not be undone: nothing until a restart */
	/* A record changed after it was written (seen when reading back before
	 * a checkpoint): nothing is appended or signed until the log is
	 * replaced; audit_append() answers -EBADMSG. */
	AUDIT_HEALTH_TAMPERED,
};
/* "ok", "unwritable", "broken", "tampered". Static string. */
const char *audit_health_to_string(enum audit_health h);
/* The writer's health; for anything but OK, *why says what happened and
 * what to do (caller frees), else NULL. */
enum audit_health audit_health(struct audit_log *log, char **why);

/* Checkpoints, flushes and releases the lock. NULL is fine. */
void audit_close(struct audit_log *log);

#endif
