/* The audit log writer's state, shared by the writer (audit.c) and its
 * checkpoints and retention (audit_checkpoint.c) only. */
#ifndef MAI_AUDIT_WRITER_H
#define MAI_AUDIT_WRITER_H

#include <pthread.h>
#include <stdint.h>

#include "audit.h"
#include "audit_recheck.h"
#include "merkle.h"
#include "merkle_store.h"
#include "note_sign.h"

/* How many failed batches back a waiter can still learn its outcome. */
#define EPOCH_RING 64
/* Free space on the log's disk below which it counts as full: a batch is
 * refused (-ENOSPC) before it fails half-way, and audit_health() says so
 * without waiting for a record to fail, so that what runs can be stopped. */
struct audit_log {
	char *dir;
	char *origin;
	int fsync;
	unsigned delay_us;
	unsigned ckpt_interval_s;
	uint64_t rotate_size;
	unsigned rotate_age_s;
	unsigned retention_age_s;

	int lock_fd;
	int seg_fd, idx_fd;
	uint64_t seg_first, seg_bytes;
	time_t seg_started;
	struct note_signer *signer;

	pthread_mutex_t mu;
	pthread_cond_t cond;     /* a group commit finished */
	pthread_cond_t timer_cond; /* wakes the checkpoint timer to stop */
	int flushing;
	int broken;              /* -errno when a failed write could not be undone */
	int last_error;          /* -errno of the last batch when it failed, else 0 */
	/* What was found changed in records already written (audit_recheck.h):
	 * nothing is appended or signed any more. Owned text, NULL when none. */
	char *tampered;
	/* A failed batch ends an epoch: the records not yet durable are dropped
	 * and their seqs reused, so a waiter learns from the ring whether its
	 * record was durable before its epoch ended. */
	uint64_t epoch;
	uint64_t epoch_end[EPOCH_RING]; /* durable when that epoch ended */
	int epoch_err[EPOCH_RING];
	uint64_t next_seq;       /* records formatted (in the tree) */
	uint64_t durable;        /* records on disk */
	uint8_t durable_prev[AUDIT_HASH_LEN]; /* entry hash of record durable - 1 */
	uint64_t idx_bytes;      /* size of the current index file */
	uint64_t ckpt_size;      /* size of the latest signed checkpoint */
	/* One after the "checkpoint" record of the latest recorded checkpoint:
	 * when the log has grown by nothing but that record, the next checkpoint
	 * is signed without a record of its own (or each would need another). */
	uint64_t ckpt_recorded_end;
	/* The size that record states: a checkpoint of the same size again
	 * (the timer's, while the record is still queued) needs none. */
	uint64_t ckpt_recorded_size;
	pthread_mutex_t ckpt_mu; /* one checkpoint at a time: the file only grows */
	/* The latest checkpoint signed for a sidecar and not yet written beside
	 * the log (under ckpt_mu): the timer thread writes it, off the drop's
	 * path. Its records are durable; until it is written, records cite the
	 * older one in the file. NULL when none waits. */
	char *ckpt_pending;
	uint64_t ckpt_pending_size;
	uint8_t ckpt_pending_root[MERKLE_HASH_LEN];
	int ckpt_wake;           /* under mu: the timer has a checkpoint to write */
	uint8_t prev[AUDIT_HASH_LEN];
	/* The durable records' tree: its hashes on disk, appended by the
	 * flushing thread; root, their compact range, under mu. */
	struct merkle_store *tree;
	struct merkle_compact root;
	struct audit_recheck recheck; /* under ckpt_mu */
	char *buf;               /* formatted, not yet written */
	size_t buf_len, buf_cap;
	uint64_t *offs;          /* segment offsets of the records in buf */
	uint8_t (*leaves)[AUDIT_HASH_LEN]; /* and their entry hashes */
	size_t offs_n, offs_cap;

	pthread_t timer;
	int timer_running, stopping;
};

/* The checkpoint thread (audit_checkpoint.c): a checkpoint every
 * checkpoint_interval when records came, the sidecars' checkpoints when
 * audit_checkpoint_write_soon() wakes it, and retention. */
void *audit_timer_main(void *arg);

#endif
