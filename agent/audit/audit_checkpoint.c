/* The audit log's signed checkpoints (the timer's, the close's and a
 * sidecar's) and its retention cut: audit.h. */
#include "audit.h"
#include "audit_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit_format.h"
#include "audit_recover.h"
#include "checkpoint.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "macro.h"

/* The writer stops for good: what changed goes to the log and to
 * audit_health(). Mutex not held. */
static void stop_tampered(struct audit_log *log, const char *what)
{
	char *text = audit_tamper_text(log->dir, what);
	pthread_mutex_lock(&log->mu);
	if (!log->tampered) {
		log->tampered = text;
		text = NULL;
		log_errorx("%s; until then it takes no records, so nothing runs, and signs no checkpoint",
			   log->tampered);
	}
	pthread_mutex_unlock(&log->mu);
	free(text);
}

/* Reads back what was written since the last checkpoint and signs one of
 * everything durable now: the note in *note (caller frees), its size and
 * root. ckpt_mu held. 0, -EBADMSG (the log was changed: the writer stops)
 * or -errno. */
static int sign_locked(struct audit_log *log, char **note, uint64_t *size,
		       uint8_t root[MERKLE_HASH_LEN])
{
	struct merkle_compact durable;
	_cleanup_free_ char *what = NULL;
	pthread_mutex_lock(&log->mu);
	*size = log->durable;
	durable = log->root;
	bool tampered = log->tampered != NULL;
	pthread_mutex_unlock(&log->mu);
	/* What was written since the last checkpoint is read back before a
	 * signature vouches for it. */
	if (tampered || audit_recheck_run(&log->recheck, &durable, log->tree, &what) < 0) {
		if (what)
			stop_tampered(log, what);
		return -EBADMSG;
	}
	merkle_compact_root(&durable, root);
	return checkpoint_sign(log->signer, log->origin, *size, root, note);
}

/* Writes note (a checkpoint of size records with root) beside the log, the
 * file synced, and queues its record. ckpt_mu held. 0 or -errno. */
static int persist_locked(struct audit_log *log, const char *note, uint64_t size,
			  const uint8_t root[MERKLE_HASH_LEN])
{
	_cleanup_free_ char *path = xasprintf("%s/checkpoint", log->dir);
	pthread_mutex_lock(&log->mu);
	bool record = size != log->ckpt_recorded_end && size != log->ckpt_recorded_size,
	     older = size < log->ckpt_size;
	pthread_mutex_unlock(&log->mu);
	/* One written meanwhile covers more: the file only grows. */
	if (older)
		return 0;
	int r = log->fsync ? fileio_write_atomic(path, note, strlen(note), 0644) : 0;
	if (r == 0 && !log->fsync) {
		/* Tests that skip fsync still need the file. */
		_cleanup_free_ char *tmp = xasprintf("%s.tmp", path);
		_cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		r = fd < 0 ? -errno : fileio_write_all(fd, note, strlen(note));
		if (r == 0 && rename(tmp, path) < 0)
			r = -errno;
	}
	if (r < 0) {
		log_warnx("%s: cannot write the checkpoint: %s", path, strerror(-r));
		return r;
	}
	pthread_mutex_lock(&log->mu);
	if (size > log->ckpt_size)
		log->ckpt_size = size;
	pthread_mutex_unlock(&log->mu);
	/* The log records the checkpoint it signed (and, like every later record,
	 * cites its size), so that the checkpoint file cannot be swapped for an
	 * older one unnoticed while the log stays as it is. */
	if (record) {
		char hex[2 * MERKLE_HASH_LEN + 1];
		struct audit_position pos;
		hash_to_hex(root, MERKLE_HASH_LEN, hex);
		json_t *f = json_pack("{s:I, s:s}", "size", (json_int_t)size, "root", hex);
		/* Queued: it reaches the disk with the next durable append (the
		 * next job's records, or the close's), not on a drop's path.
		 * Nothing cites it; a crash before then leaves the checkpoint
		 * file ahead of its record, as a crash between the two always
		 * could, and a failed write that drops it has the next
		 * checkpoint recorded again (drop_undurable). */
		int ar = audit_append_queued(log, "checkpoint", f, &pos);
		json_decref(f);
		if (ar == 0) {
			pthread_mutex_lock(&log->mu);
			log->ckpt_recorded_end = pos.seq + 1;
			log->ckpt_recorded_size = size;
			pthread_mutex_unlock(&log->mu);
		} else {
			log_warnx("audit log %s: cannot record the checkpoint of %llu records: %s", log->dir,
				  (unsigned long long)size, strerror(-ar));
		}
	}
	return 0;
}

int audit_checkpoint_now(struct audit_log *log)
{
	uint8_t root[MERKLE_HASH_LEN];
	uint64_t size;
	_cleanup_free_ char *note = NULL;
	pthread_mutex_lock(&log->ckpt_mu);
	int r = sign_locked(log, &note, &size, root);
	if (r == 0)
		r = persist_locked(log, note, size, root);
	if (r == 0 && log->ckpt_pending && log->ckpt_pending_size <= size) {
		free(log->ckpt_pending);
		log->ckpt_pending = NULL;
	}
	pthread_mutex_unlock(&log->ckpt_mu);
	return r;
}

int audit_checkpoint_sign(struct audit_log *log, char **note, uint64_t *size)
{
	uint8_t root[MERKLE_HASH_LEN];
	*note = NULL;
	pthread_mutex_lock(&log->ckpt_mu);
	int r = sign_locked(log, note, size, root);
	if (r == 0 && !log->timer_running) {
		/* No thread to write it later: now. */
		r = persist_locked(log, *note, *size, root);
	} else if (r == 0) {
		free(log->ckpt_pending);
		log->ckpt_pending = xstrdup(*note);
		log->ckpt_pending_size = *size;
		memcpy(log->ckpt_pending_root, root, MERKLE_HASH_LEN);
	}
	pthread_mutex_unlock(&log->ckpt_mu);
	if (r < 0) {
		free(*note);
		*note = NULL;
	}
	return r;
}

void audit_checkpoint_write_soon(struct audit_log *log)
{
	pthread_mutex_lock(&log->mu);
	log->ckpt_wake = 1;
	pthread_cond_broadcast(&log->timer_cond);
	pthread_mutex_unlock(&log->mu);
}

/* The timer's part of audit_checkpoint_sign(): writes the checkpoint that
 * waits, if one does. */
static void persist_pending(struct audit_log *log)
{
	pthread_mutex_lock(&log->ckpt_mu);
	char *note = log->ckpt_pending;
	log->ckpt_pending = NULL;
	if (note)
		(void)persist_locked(log, note, log->ckpt_pending_size, log->ckpt_pending_root);
	pthread_mutex_unlock(&log->ckpt_mu);
	free(note);
}

int audit_retention_now(struct audit_log *log, time_t now)
{
	if (!log->retention_age_s)
		return 0;
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t nseg = 0;
	int r = audit_segments_list(log->dir, &firsts, &nseg);
	if (r < 0)
		return r;
	pthread_mutex_lock(&log->mu);
	uint64_t covered = log->ckpt_size, current = log->seg_first;
	pthread_mutex_unlock(&log->mu);
	/* A segment goes when it is old enough, not the one being written, and
	 * every record in it is under the signed checkpoint. */
	size_t drop = 0;
	while (drop + 1 < nseg && firsts[drop] != current && firsts[drop + 1] <= covered) {
		_cleanup_free_ char *path = audit_segment_path(log->dir, firsts[drop], "log");
		struct stat st;
		if (stat(path, &st) < 0 || st.st_mtime + (time_t)log->retention_age_s > now)
			break;
		drop++;
	}
	if (drop == 0)
		return 0;
	uint64_t cut = firsts[drop];
	struct merkle_compact c;
	uint8_t prev[AUDIT_HASH_LEN];
	struct merkle_nodes src = merkle_store_nodes(log->tree, cut);
	r = merkle_nodes_compact(&src, cut, &c);
	if (r == 0)
		r = merkle_store_leaf(log->tree, cut - 1, prev);
	/* The anchor first, durably: a crash between the two steps leaves
	 * segments below the anchor, which the writer and the verifier skip;
	 * never a gap. */
	if (r < 0 || (r = audit_base_write(log->dir, prev, &c)) < 0)
		return r;
	/* Proofs and the reading back use the tree's nodes under these locks. */
	pthread_mutex_lock(&log->ckpt_mu);
	pthread_mutex_lock(&log->mu);
	r = merkle_store_drop_below(log->tree, cut);
	pthread_mutex_unlock(&log->mu);
	pthread_mutex_unlock(&log->ckpt_mu);
	if (r < 0)
		log_warnx("audit log %s: cannot free the tree file's nodes below seq %llu: %s", log->dir,
			  (unsigned long long)cut, strerror(-r));
	for (size_t i = 0; i < drop; i++) {
		_cleanup_free_ char *path = audit_segment_path(log->dir, firsts[i], "log");
		_cleanup_free_ char *idx = audit_segment_path(log->dir, firsts[i], "idx");
		if (unlink(path) < 0)
			log_warn("%s: cannot remove an expired segment", path);
		(void)unlink(idx);
	}
	json_t *f = json_pack("{s:I, s:I}", "dropped_before_seq", (json_int_t)cut, "segments", (json_int_t)drop);
	r = audit_append(log, "audit_retention", f, NULL);
	json_decref(f);
	return r;
}

void *audit_timer_main(void *arg)
{
	struct audit_log *log = arg;
	/* The interval keeps its own time: the wake-ups for a sidecar's
	 * checkpoint (audit_checkpoint_write_soon) do not put it off. */
	struct timespec due;
	clock_gettime(CLOCK_REALTIME, &due);
	due.tv_sec += log->ckpt_interval_s;
	pthread_mutex_lock(&log->mu);
	while (!log->stopping) {
		int w = 0;
		if (!log->ckpt_wake)
			w = pthread_cond_timedwait(&log->timer_cond, &log->mu, &due);
		if (log->stopping)
			break;
		if (log->ckpt_wake) {
			/* A sidecar's checkpoint, signed on a drop's path. */
			log->ckpt_wake = 0;
			pthread_mutex_unlock(&log->mu);
			persist_pending(log);
			(void)audit_flush(log); /* its record, queued */
			pthread_mutex_lock(&log->mu);
			continue;
		}
		if (w != ETIMEDOUT)
			continue;
		clock_gettime(CLOCK_REALTIME, &due);
		due.tv_sec += log->ckpt_interval_s;
		if (log->durable == log->ckpt_size)
			continue;
		pthread_mutex_unlock(&log->mu);
		if (audit_checkpoint_now(log) == 0) {
			(void)audit_flush(log); /* its record, queued */
			(void)audit_retention_now(log, time(NULL));
		}
		pthread_mutex_lock(&log->mu);
	}
	pthread_mutex_unlock(&log->mu);
	return NULL;
}

