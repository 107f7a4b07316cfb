/* The audit log writer: lock, recovery of a torn tail, group commit and
 * rotation (its checkpoints and retention: audit_checkpoint.c). Layout:
 * audit_format.h. */
#include "audit.h"
#include "audit_internal.h"
#include "audit_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "audit_format.h"
#include "audit_lines.h"
#include "audit_recover.h"
#include "audit_recheck.h"
#include "checkpoint.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "merkle.h"
#include "merkle_store.h"
#include "note_sign.h"

#define SPACE_RESERVE ((uint64_t)64 << 10)


static int take_lock(struct audit_log *log, char **err)
{
	_cleanup_free_ char *path = xasprintf("%s/lock", log->dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int r = -errno;
		*err = xasprintf("%s: cannot open the audit lock: %s", path, strerror(errno));
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = -errno;
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		if (n > 0)
			pid[strcspn(pid, "\n")] = '\0';
		*err = xasprintf("audit log %s is in use by another writer (pid %s, lock %s); stop the "
				 "other agent or give this one another state directory",
				 log->dir, n > 0 ? pid : "unknown", path);
		close(fd);
		return r == -EAGAIN ? -EWOULDBLOCK : r;
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_warn("%s: cannot record the writer's pid", path);
	log->lock_fd = fd;
	return 0;
}

/* Loads the signing key, creating one (0600) on first start. */
static int load_signer(struct audit_log *log, const struct audit_options *opt, char **err)
{
	_cleanup_free_ char *def = NULL, *dircopy = xstrdup(log->dir);
	const char *path = opt->signing_key;
	if (!path)
		path = def = xasprintf("%s/audit-signing.key", dirname(dircopy));
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		_cleanup_free_ char *priv = NULL, *pub = NULL;
		_cleanup_free_ char *keydir = xstrdup(path);
		/* On a fresh machine the key's own directory (kept apart from
		 * the log) does not exist yet: make it, readable by root only. */
		int r = fileio_mkdir_p(dirname(keydir), 0700);
		if (r == 0)
			r = note_keygen(log->origin, &priv, &pub);
		if (r == 0)
			r = fileio_write_atomic(path, priv, strlen(priv), 0600);
		explicit_bzero(priv ? priv : (char *)"", priv ? strlen(priv) : 0);
		if (r < 0) {
			*err = xasprintf("%s: cannot create the audit signing key: %s (set signing_key "
					 "in audit.yaml, or run 'mai-agent keygen')", path, strerror(-r));
			return r;
		}
		log_info("created audit signing key %s (name %s)", path, log->origin);
	}
	int r = note_signer_load(path, &log->signer, err);
	if (r < 0)
		return r;
	/* Publish the verifier key next to the log, and where configured. */
	_cleanup_free_ char *vkey = note_signer_verifier_text(log->signer);
	_cleanup_free_ char *pubpath = xasprintf("%s/pubkey", log->dir);
	r = fileio_write_atomic(pubpath, vkey, strlen(vkey), 0644);
	if (r == 0 && opt->public_key)
		r = fileio_write_atomic(opt->public_key, vkey, strlen(vkey), 0644);
	if (r < 0)
		*err = xasprintf("%s: cannot publish the public key: %s", opt->public_key ? opt->public_key : pubpath,
				 strerror(-r));
	return r;
}

static int unlink_if_empty(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || st.st_size != 0)
		return -1;
	return unlink(path);
}

/* Opens the segment that begins with record first for appending, and its
 * index: kept as it is when keep_idx (recovery has just rebuilt it), else
 * started empty. On failure the segment open before stays the one written. */
static int open_segment(struct audit_log *log, uint64_t first, bool keep_idx, char **err)
{
	_cleanup_free_ char *path = audit_segment_path(log->dir, first, "log");
	_cleanup_free_ char *idx = audit_segment_path(log->dir, first, "idx");
	struct stat st, ist;
	int seg_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int idx_fd = open(idx, O_WRONLY | O_CREAT | O_APPEND | (keep_idx ? 0 : O_TRUNC) | O_CLOEXEC, 0600);
	if (seg_fd < 0 || idx_fd < 0 || fstat(seg_fd, &st) < 0 || fstat(idx_fd, &ist) < 0) {
		int r = -errno;
		*err = xasprintf("%s: cannot open audit segment: %s", path, strerror(-r));
		if (seg_fd >= 0)
			close(seg_fd);
		if (idx_fd >= 0)
			close(idx_fd);
		/* A rotation that fails (its disk out of inodes) goes on in the
		 * segment it has: an empty new segment left behind would claim
		 * the records that go on in the old one. */
		if (log->seg_fd >= 0) {
			(void)unlink_if_empty(path);
			(void)unlink_if_empty(idx);
		}
		return r;
	}
	if (log->seg_fd >= 0)
		close(log->seg_fd);
	if (log->idx_fd >= 0)
		close(log->idx_fd);
	log->seg_fd = seg_fd;
	log->idx_fd = idx_fd;
	log->seg_first = first;
	log->seg_bytes = (uint64_t)st.st_size;
	log->idx_bytes = (uint64_t)ist.st_size;
	log->seg_started = time(NULL);
	if (!keep_idx && fileio_fsync_parent(path) < 0)
		log_warn("%s: cannot fsync the log directory", path);
	return 0;
}

/* Reads the log back at open (audit_recover.h) and takes up where it ends. */
static int recover(struct audit_log *log, json_t **torn_event, char **err)
{
	struct audit_recovered rec;
	int r = audit_recover(log->dir, &rec, err);
	if (r < 0)
		return r;
	log->tree = rec.tree;
	*torn_event = rec.torn;
	log->next_seq = log->durable = rec.chain.seq;
	memcpy(log->prev, rec.chain.prev, AUDIT_HASH_LEN);
	memcpy(log->durable_prev, rec.chain.prev, AUDIT_HASH_LEN);
	log->root = *merkle_store_compact(log->tree);
	r = open_segment(log, rec.last_first, rec.have_segments, err);
	if (r == 0)
		audit_recheck_init(&log->recheck, log->dir, &rec.chain, log->seg_first, log->seg_bytes, &log->root);
	if (r == 0)
		r = audit_recover_checkpoint(log->dir, log->tree, log->durable, &log->ckpt_size, err);
	return r;
}

/* -ENOSPC when the log's disk is below the reserve, else 0. */
static int space_left(const struct audit_log *log, uint64_t *avail)
{
	struct statvfs sv;
	if (statvfs(log->dir, &sv) < 0)
		return 0; /* not known: the write says */
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	return *avail < SPACE_RESERVE ? -ENOSPC : 0;
}

/* Writes what is in buf (index entries offs, entry hashes leaves) at
 * segment offset seg_at, then their nodes to the tree file. Called by the
 * one flushing thread, without the mutex. On failure the segment and the
 * index are cut back to where the batch began, so that no torn record stays
 * and the next batch starts on a whole line, and the tree forgets the
 * batch; *fatal when even that fails. */
static int flush_batch(struct audit_log *log, const char *buf, size_t len, const uint64_t *offs,
		       const uint8_t (*leaves)[AUDIT_HASH_LEN], size_t n, uint64_t seg_at, bool *fatal)
{
	struct merkle_store_mark mark;
	uint64_t avail = 0;
	if (space_left(log, &avail) < 0)
		return -ENOSPC; /* nothing written: nothing to undo */
	merkle_store_mark(log->tree, &mark);
	int r = fileio_write_all(log->seg_fd, buf, len);
	if (r == 0 && log->fsync && fdatasync(log->seg_fd) < 0)
		r = -errno;
	/* The index and the tree are derived (re-derived at open) and need no
	 * fsync, but readers and proofs use them, so they must not fall behind
	 * the segment. */
	if (r == 0)
		r = fileio_write_all(log->idx_fd, offs, n * sizeof(*offs));
	for (size_t i = 0; i < n && r == 0; i++)
		merkle_store_append(log->tree, leaves[i]);
	if (r == 0)
		r = merkle_store_flush(log->tree);
	if (r == 0)
		return 0;
	merkle_store_rollback(log->tree, &mark);
	*fatal = ftruncate(log->seg_fd, (off_t)seg_at) < 0 || ftruncate(log->idx_fd, (off_t)log->idx_bytes) < 0;
	if (*fatal)
		log_warn("audit log %s: cannot cut a failed write back to offset %llu", log->dir,
			 (unsigned long long)seg_at);
	else if (log->fsync && fdatasync(log->seg_fd) < 0)
		log_warn("audit log %s: cannot sync the cut", log->dir); /* a torn tail at worst: quarantined at open */
	return r;
}

/* After a failed batch (mutex held): every record not yet durable is
 * dropped, the chain goes back to the last durable record, and the epoch
 * ends so that their waiters get the error. */
static void drop_undurable(struct audit_log *log, uint64_t seg_at, int r, bool fatal)
{
	log->epoch_end[log->epoch % EPOCH_RING] = log->durable;
	log->epoch_err[log->epoch % EPOCH_RING] = r;
	log->epoch++;
	if (log->ckpt_recorded_end > log->durable)
		log->ckpt_recorded_end = log->ckpt_recorded_size = 0; /* its record is dropped */
	log->last_error = r;
	if (fatal) {
		log->broken = r;
		log_errorx("audit log %s: write failed (%s) and could not be undone; no further records are "
			   "accepted until the agent restarts", log->dir, strerror(-r));
		return;
	}
	memcpy(log->prev, log->durable_prev, AUDIT_HASH_LEN);
	log->next_seq = log->durable;
	log->seg_bytes = seg_at;
	log->buf_len = log->offs_n = 0;
	log_errorx("audit log %s: write failed (%s); the records not yet on disk were dropped and cut "
		   "from the segment; the next record tries again (free space on the disk of audit.log_dir)",
		   log->dir, strerror(-r));
}

static void maybe_rotate(struct audit_log *log)
{
	int by_size = log->rotate_size && log->seg_bytes >= log->rotate_size;
	int by_age = log->rotate_age_s && log->seg_bytes > 0 &&
		     time(NULL) - log->seg_started >= (time_t)log->rotate_age_s;
	if (!by_size && !by_age)
		return;
	_cleanup_free_ char *err = NULL;
	if (open_segment(log, log->durable, false, &err) < 0)
		log_warnx("cannot rotate: %s", err);
}

/* Adds one record to the batch the next flush writes (mutex held): its seq
 * and leaf hash in *seq and h, the epoch it was queued in in *epoch. 0 or
 * -errno. */
static int enqueue(struct audit_log *log, const char *type, json_t *fields, const char *t,
		   uint64_t *seq_out, uint64_t *epoch, uint8_t h[AUDIT_HASH_LEN])
{
	if (log->broken || log->tampered)
		return log->tampered ? -EBADMSG : log->broken;
	if (log->next_seq > AUDIT_SEQ_MAX)
		return -EOVERFLOW;
	uint64_t seq = log->next_seq;
	_cleanup_free_ char *body = audit_format_body(seq, type, fields, t);
	if (!body)
		return -EINVAL;
	_cleanup_free_ char *line = NULL;
	size_t len;
	audit_format_line(log->prev, seq, log->ckpt_size, body, &line, &len, h);
	if (len > AUDIT_RECORD_MAX)
		return -EMSGSIZE;
	if (log->buf_len + len > log->buf_cap) {
		log->buf_cap = (log->buf_len + len) * 2;
		log->buf = xrealloc(log->buf, log->buf_cap);
	}
	memcpy(log->buf + log->buf_len, line, len);
	log->buf_len += len;
	if (log->offs_n == log->offs_cap) {
		log->offs_cap = log->offs_cap ? log->offs_cap * 2 : 256;
		log->offs = xrealloc(log->offs, log->offs_cap * sizeof(uint64_t));
		log->leaves = xrealloc(log->leaves, log->offs_cap * AUDIT_HASH_LEN);
	}
	/* The length for now; the flushing thread turns it into an offset once
	 * it knows which segment the batch goes to. */
	memcpy(log->leaves[log->offs_n], h, AUDIT_HASH_LEN);
	log->offs[log->offs_n++] = len;
	memcpy(log->prev, h, AUDIT_HASH_LEN);
	log->next_seq++;
	*seq_out = seq;
	*epoch = log->epoch;
	return 0;
}

/* Until record seq, queued in epoch, is durable (0), or its epoch ended
 * before it was (that epoch's error). Mutex held. Group commit: the first
 * waiter flushes everything queued so far; the others sleep until their
 * record is covered or its epoch ends. */
static int wait_durable(struct audit_log *log, uint64_t seq, uint64_t epoch)
{
	for (;;) {
		if (log->epoch != epoch)
			return log->epoch - epoch <= EPOCH_RING && seq < log->epoch_end[epoch % EPOCH_RING]
				       ? 0 : log->epoch_err[epoch % EPOCH_RING];
		if (log->durable > seq)
			return 0;
		if (log->flushing) {
			pthread_cond_wait(&log->cond, &log->mu);
			continue;
		}
		log->flushing = 1;
		if (log->delay_us) {
			pthread_mutex_unlock(&log->mu);
			struct timespec d = { 0, (long)log->delay_us * 1000 };
			nanosleep(&d, NULL);
			pthread_mutex_lock(&log->mu);
		}
		/* Rotation happens between batches, so that a new segment's name is
		 * the first record it holds (everything before is durable). */
		maybe_rotate(log);
		uint64_t seg_at = log->seg_bytes;
		for (size_t k = 0; k < log->offs_n; k++) {
			uint64_t l = log->offs[k];
			log->offs[k] = log->seg_bytes;
			log->seg_bytes += l;
		}
		char *buf = steal_pointer(&log->buf);
		uint64_t *offs = steal_pointer(&log->offs);
		uint8_t (*leaves)[AUDIT_HASH_LEN] = steal_pointer(&log->leaves);
		size_t blen = log->buf_len, n = log->offs_n;
		uint64_t upto = log->next_seq;
		uint8_t upto_prev[AUDIT_HASH_LEN];
		memcpy(upto_prev, log->prev, AUDIT_HASH_LEN);
		log->buf_len = log->buf_cap = log->offs_n = log->offs_cap = 0;
		pthread_mutex_unlock(&log->mu);
		bool fatal = false;
		int fr = flush_batch(log, buf, blen, offs, (const uint8_t(*)[AUDIT_HASH_LEN])leaves, n, seg_at,
				     &fatal);
		free(buf);
		free(offs);
		free(leaves);
		pthread_mutex_lock(&log->mu);
		log->flushing = 0;
		if (fr < 0) {
			drop_undurable(log, seg_at, fr, fatal);
		} else {
			log->durable = upto;
			log->idx_bytes += n * sizeof(uint64_t);
			memcpy(log->durable_prev, upto_prev, AUDIT_HASH_LEN);
			log->root = *merkle_store_compact(log->tree);
			log->last_error = 0;
		}
		pthread_cond_broadcast(&log->cond);
	}
}

static int append(struct audit_log *log, const char *type, json_t *fields, bool wait,
		  struct audit_position *pos)
{
	char t[64];
	uint8_t h[AUDIT_HASH_LEN];
	uint64_t seq = 0, epoch = 0;

	audit_format_now(t);
	pthread_mutex_lock(&log->mu);
	int r = enqueue(log, type, fields, t, &seq, &epoch, h);
	if (r == 0 && wait)
		r = wait_durable(log, seq, epoch);
	pthread_mutex_unlock(&log->mu);
	if (r == 0 && pos) {
		pos->seq = seq;
		pos->epoch = epoch;
		hash_to_hex(h, AUDIT_HASH_LEN, pos->entry_hex);
	}
	return r;
}

int audit_append(struct audit_log *log, const char *type, json_t *fields, struct audit_position *pos)
{
	return append(log, type, fields, true, pos);
}

int audit_append_queued(struct audit_log *log, const char *type, json_t *fields,
			struct audit_position *pos)
{
	return append(log, type, fields, false, pos);
}

int audit_flush(struct audit_log *log)
{
	pthread_mutex_lock(&log->mu);
	int r = log->next_seq > log->durable ? wait_durable(log, log->next_seq - 1, log->epoch) : 0;
	pthread_mutex_unlock(&log->mu);
	return r;
}

int audit_sync(struct audit_log *log, uint64_t seq, uint64_t epoch)
{
	pthread_mutex_lock(&log->mu);
	int r = wait_durable(log, seq, epoch);
	pthread_mutex_unlock(&log->mu);
	return r;
}

int audit_open(const struct audit_options *opt, struct audit_log **out, char **err)
{
	if (!opt->log_dir || !opt->origin || !*opt->origin) {
		*err = xstrdup("audit.yaml: log_dir and origin must be set");
		return -EINVAL;
	}
	int r = fileio_mkdir_p(opt->log_dir, 0700);
	if (r < 0) {
		*err = xasprintf("%s: cannot create the audit log directory: %s (log_dir in audit.yaml)",
				 opt->log_dir, strerror(-r));
		return r;
	}
	struct audit_log *log = xcalloc(1, sizeof(*log));
	log->dir = xstrdup(opt->log_dir);
	log->origin = xstrdup(opt->origin);
	log->fsync = opt->fsync;
	log->delay_us = opt->group_commit_delay_us;
	log->ckpt_interval_s = opt->checkpoint_interval_s;
	log->rotate_size = opt->rotate_size;
	log->rotate_age_s = opt->rotate_age_s;
	log->retention_age_s = opt->retention_age_s;
	log->lock_fd = log->seg_fd = log->idx_fd = -1;
	pthread_mutex_init(&log->mu, NULL);
	pthread_mutex_init(&log->ckpt_mu, NULL);
	pthread_cond_init(&log->cond, NULL);
	pthread_cond_init(&log->timer_cond, NULL);

	json_t *torn = NULL;
	if ((r = take_lock(log, err)) < 0 || (r = load_signer(log, opt, err)) < 0 ||
	    (r = recover(log, &torn, err)) < 0) {
		json_decref(torn);
		audit_close(log);
		return r;
	}
	if (torn) {
		r = audit_append(log, "audit_torn_tail", torn, NULL);
		json_decref(torn);
		if (r < 0) {
			*err = xasprintf("%s: cannot record the torn tail: %s", log->dir, strerror(-r));
			audit_close(log);
			return r;
		}
	}
	if (log->ckpt_interval_s && pthread_create(&log->timer, NULL, audit_timer_main, log) == 0)
		log->timer_running = 1;
	*out = log;
	return 0;
}

uint64_t audit_size(struct audit_log *log)
{
	pthread_mutex_lock(&log->mu);
	uint64_t n = log->durable;
	pthread_mutex_unlock(&log->mu);
	return n;
}

int audit_inclusion_proofs(struct audit_log *log, const uint64_t *seqs, size_t n, uint64_t size,
			   struct audit_proof *out)
{
	int r = 0;
	pthread_mutex_lock(&log->mu);
	struct merkle_nodes src = merkle_store_nodes(log->tree, log->durable);
	for (size_t i = 0; i < n && r == 0; i++)
		r = seqs[i] >= src.base && seqs[i] < size && size <= log->durable
			    ? merkle_nodes_inclusion_proof(&src, seqs[i], size, out[i].path, &out[i].n)
			    : -ENOENT;
	pthread_mutex_unlock(&log->mu);
	return r;
}

const char *audit_health_to_string(enum audit_health h)
{
	switch (h) {
	case AUDIT_HEALTH_OK: return "ok";
	case AUDIT_HEALTH_UNWRITABLE: return "unwritable";
	case AUDIT_HEALTH_BROKEN: return "broken";
	case AUDIT_HEALTH_TAMPERED: return "tampered";
	}
	return "unknown";
}

enum audit_health audit_health(struct audit_log *log, char **why)
{
	enum audit_health h = AUDIT_HEALTH_OK;
	*why = NULL;
	pthread_mutex_lock(&log->mu);
	if (log->tampered) {
		h = AUDIT_HEALTH_TAMPERED;
		*why = xstrdup(log->tampered);
	} else if (log->broken) {
		h = AUDIT_HEALTH_BROKEN;
		*why = xasprintf("a write to the audit log %s failed (%s) and could not be undone; restart "
				 "the agent", log->dir, strerror(-log->broken));
	} else if (log->last_error) {
		h = AUDIT_HEALTH_UNWRITABLE;
		*why = xasprintf("the audit log %s cannot be written: %s; nothing runs until it can (free "
				 "space on its disk)", log->dir, strerror(-log->last_error));
	}
	pthread_mutex_unlock(&log->mu);
	uint64_t avail = 0;
	if (h == AUDIT_HEALTH_OK && space_left(log, &avail) < 0) {
		h = AUDIT_HEALTH_UNWRITABLE;
		*why = xasprintf("the disk of the audit log %s is full (%llu bytes free, %llu kept in reserve); "
				 "nothing runs until there is room", log->dir, (unsigned long long)avail,
				 (unsigned long long)SPACE_RESERVE);
	}
	return h;
}

const char *audit_log_dir(const struct audit_log *log)
{
	return log->dir;
}

void audit_close(struct audit_log *log)
{
	if (!log)
		return;
	if (log->timer_running) {
		pthread_mutex_lock(&log->mu);
		log->stopping = 1;
		pthread_cond_broadcast(&log->timer_cond);
		pthread_mutex_unlock(&log->mu);
		pthread_join(log->timer, NULL);
	}
	/* Twice: the first is recorded in the log, the second covers that record,
	 * so the checkpoint left beside the log matches its size. Records
	 * still queued are written first. */
	for (int i = 0; i < 2; i++) {
		if (log->seg_fd >= 0 && !log->broken && !log->tampered)
			(void)audit_flush(log);
		if (log->signer && log->seg_fd >= 0 && log->tree && !log->broken && !log->tampered &&
		    log->durable > log->ckpt_size)
			(void)audit_checkpoint_now(log);
	}
	if (log->seg_fd >= 0 && !log->broken && !log->tampered)
		(void)audit_flush(log);
	if (log->seg_fd >= 0)
		close(log->seg_fd);
	if (log->idx_fd >= 0)
		close(log->idx_fd);
	if (log->lock_fd >= 0)
		close(log->lock_fd);
	note_signer_free(log->signer);
	merkle_store_free(log->tree);
	audit_recheck_clear(&log->recheck);
	pthread_mutex_destroy(&log->mu);
	pthread_mutex_destroy(&log->ckpt_mu);
	pthread_cond_destroy(&log->cond);
	pthread_cond_destroy(&log->timer_cond);
	free(log->buf);
	free(log->offs);
	free(log->leaves);
	free(log->tampered);
	free(log->ckpt_pending);
	free(log->dir);
	free(log->origin);
	free(log);
}
