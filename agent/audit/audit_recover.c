/* The writer's start (audit_recover.h): every segment read back once. */
#include "audit_recover.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "checkpoint.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"

/* Offsets of a rebuilt index written at a time. */
#define IDX_CHUNK 8192
/* Leaves re-derived between writes of the tree file. */
#define TREE_FLUSH_EVERY 65536

char *audit_tamper_text(const char *dir, const char *what)
{
	char t[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(t, sizeof(t), "%Y%m%dT%H%M%SZ", &tm);
	return xasprintf("the audit log %s was changed after the agent wrote it: %s. The agent "
			 "appends to no log it cannot vouch for. To recover, keep this log as "
			 "evidence and start a new one: stop the agent, move the log aside (mv %s "
			 "%s.quarantine-%s) and start the agent again, which begins a new log "
			 "with the same signing key; 'mai-agent verify %s.quarantine-%s' shows the "
			 "first record that was changed",
			 dir, what, dir, dir, t, dir, t);
}

/* Moves the torn tail [good, size) of seg aside before anything is
 * appended after it. */
static int quarantine_tail(const char *dir, const char *seg, uint64_t good, uint64_t size, char **qpath,
			   char **err)
{
	char t[64];
	audit_format_now(t);
	*qpath = xasprintf("%s/quarantine-%s.torn", dir, t);
	_cleanup_close_ int fd = open(seg, O_RDWR | O_CLOEXEC);
	size_t len = (size_t)(size - good);
	_cleanup_free_ char *tail = xmalloc(len ? len : 1);
	int r = fd < 0 ? -errno : pread(fd, tail, len, (off_t)good) == (ssize_t)len ? 0 : -EIO;
	if (r == 0)
		r = fileio_write_atomic(*qpath, tail, len, 0600);
	if (r < 0) {
		*err = xasprintf("%s: cannot keep the torn tail aside in %s: %s", seg, *qpath, strerror(-r));
		return r;
	}
	if (ftruncate(fd, (off_t)good) < 0 || fsync(fd) < 0) {
		r = -errno;
		*err = xasprintf("%s: cannot cut the torn tail: %s", seg, strerror(errno));
		return r;
	}
	log_warnx("%s: torn tail of %zu bytes at offset %llu kept in %s", seg, len, (unsigned long long)good,
		  *qpath);
	return 0;
}

struct recovery {
	struct merkle_store *tree;
	int idx_fd;          /* -1: this segment's index is not rebuilt */
	uint64_t idx[IDX_CHUNK];
	size_t idx_n;
	uint64_t leaves;
	int err;
};

static void recovery_flush_idx(struct recovery *rc)
{
	if (rc->idx_fd >= 0 && rc->idx_n && rc->err == 0)
		rc->err = fileio_write_all(rc->idx_fd, rc->idx, rc->idx_n * sizeof(uint64_t));
	rc->idx_n = 0;
}

/* One record that passed: into the tree and the index. */
static void recover_one(void *arg, const uint8_t hash[AUDIT_HASH_LEN], uint64_t off)
{
	struct recovery *rc = arg;
	merkle_store_append(rc->tree, hash);
	if (++rc->leaves % TREE_FLUSH_EVERY == 0 && rc->err == 0)
		rc->err = merkle_store_flush(rc->tree);
	if (rc->idx_fd >= 0) {
		rc->idx[rc->idx_n++] = off;
		if (rc->idx_n == IDX_CHUNK)
			recovery_flush_idx(rc);
	}
}

/* Reads every segment once, checks it and re-derives the tree file and the
 * last segment's index, with memory that does not depend on the log's
 * size. A trailing partial line in the last segment is a torn tail; anything
 * else wrong means the log was changed, and is refused. */
int audit_recover(const char *dir, struct audit_recovered *out, char **err)
{
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t nseg = 0;
	int r = audit_segments_list(dir, &firsts, &nseg);
	if (r < 0) {
		*err = xasprintf("%s: cannot list the audit log: %s", dir, strerror(-r));
		return r;
	}
	struct merkle_compact base;
	struct audit_chain chain = { 0 };
	r = audit_base_read(dir, chain.prev, &base);
	int have_base = r == 0;
	if (r == 0) {
		chain.seq = base.size;
	} else if (r != -ENOENT) {
		*err = xasprintf("%s/base: the retention anchor is damaged (%s); run 'mai-agent verify %s'",
				 dir, strerror(-r), dir);
		return r;
	}
	_cleanup_free_ char *tree = xasprintf("%s/tree", dir);
	memset(out, 0, sizeof(*out));
	if ((r = merkle_store_open(tree, have_base ? &base : NULL, &out->tree, err)) < 0)
		return r;
	struct recovery *rc = xcalloc(1, sizeof(*rc));
	rc->tree = out->tree;
	rc->idx_fd = -1;
	for (size_t i = 0; i < nseg && r == 0; i++) {
		_cleanup_free_ char *path = audit_segment_path(dir, firsts[i], "log");
		_cleanup_free_ char *idx = audit_segment_path(dir, firsts[i], "idx");
		bool last = i + 1 == nseg;
		struct audit_lines_bad bad;
		uint64_t end = 0;
		struct stat st;
		if (have_base && !last && firsts[i + 1] <= chain.seq)
			continue; /* below the retention anchor: left over from a crash */
		if (firsts[i] != chain.seq) {
			_cleanup_free_ char *what = xasprintf("%s starts at seq %llu, expected %llu", path,
							      (unsigned long long)firsts[i],
							      (unsigned long long)chain.seq);
			*err = audit_tamper_text(dir, what);
			r = -EBADMSG;
			break;
		}
		if (last) {
			rc->idx_fd = open(idx, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (rc->idx_fd < 0) {
				r = -errno;
				*err = xasprintf("%s: cannot rebuild the index: %s", idx, strerror(errno));
				break;
			}
		}
		r = audit_lines_check(path, 0, UINT64_MAX, &chain, recover_one, rc, &end, &bad);
		recovery_flush_idx(rc);
		if (r == -EBADMSG) {
			_cleanup_free_ char *what = xasprintf("%s, seq %llu at offset %llu: %s", path,
							      (unsigned long long)bad.seq,
							      (unsigned long long)bad.off, bad.why);
			*err = audit_tamper_text(dir, what);
			break;
		}
		if (r == 0 && stat(path, &st) < 0)
			r = -errno;
		if (r == 0 && rc->err)
			r = rc->err;
		if (r < 0) {
			*err = xasprintf("%s: cannot recover: %s", path, strerror(-r));
			break;
		}
		if ((uint64_t)st.st_size > end && !last) {
			_cleanup_free_ char *what = xasprintf("%s: partial record inside the log at offset %llu",
							      path, (unsigned long long)end);
			*err = audit_tamper_text(dir, what);
			r = -EBADMSG;
		} else if ((uint64_t)st.st_size > end) {
			_cleanup_free_ char *q = NULL;
			r = quarantine_tail(dir, path, end, (uint64_t)st.st_size, &q, err);
			if (r == 0)
				out->torn = json_pack("{s:s, s:I, s:I, s:s}", "segment", path, "offset",
							(json_int_t)end, "bytes", (json_int_t)(st.st_size - (off_t)end),
							"quarantine", q);
		}
	}
	if (rc->idx_fd >= 0)
		close(rc->idx_fd);
	free(rc);
	if (r == 0 && (r = merkle_store_flush(out->tree)) < 0)
		*err = xasprintf("%s: cannot write the Merkle tree file: %s", tree, strerror(-r));
	if (r < 0) {
		merkle_store_free(out->tree);
		json_decref(out->torn);
		memset(out, 0, sizeof(*out));
		return r;
	}
	out->chain = chain;
	out->have_segments = nseg > 0;
	out->last_first = nseg ? firsts[nseg - 1] : chain.seq;
	return 0;
}

/* The checkpoint beside the log against the records: one that covers more
 * records than there are, or whose root is not theirs, means records were
 * cut or changed under a signed checkpoint. */
int audit_recover_checkpoint(const char *dir, const struct merkle_store *tree, uint64_t durable,
			     uint64_t *ckpt_size, char **err)
{
	_cleanup_free_ char *path = xasprintf("%s/checkpoint", dir), *text = NULL;
	size_t len;
	struct checkpoint ck;
	const char *why;
	uint8_t root[MERKLE_HASH_LEN];
	int r = 0;
	if (fileio_read_path(path, 1 << 16, &text, &len) < 0)
		return 0;
	char *blank = strstr(text, "\n\n");
	if (blank)
		blank[1] = '\0';
	if (checkpoint_parse(text, &ck, &why) < 0)
		return 0; /* not ours to judge: the verifier says what is wrong with it */
	struct merkle_nodes src = merkle_store_nodes(tree, durable);
	if (ck.size > durable) {
		_cleanup_free_ char *what = xasprintf("%s covers %llu records but the log has %llu: records "
						      "were cut", path, (unsigned long long)ck.size,
						      (unsigned long long)durable);
		*err = audit_tamper_text(dir, what);
		r = -EBADMSG;
	} else if (ck.size >= src.base && merkle_nodes_root(&src, ck.size, root) == 0 &&
		   memcmp(root, ck.root, MERKLE_HASH_LEN) != 0) {
		_cleanup_free_ char *what = xasprintf("records 0..%llu do not have the root that %s signs",
						      (unsigned long long)(ck.size ? ck.size - 1 : 0), path);
		*err = audit_tamper_text(dir, what);
		r = -EBADMSG;
	} else {
		*ckpt_size = ck.size;
	}
	checkpoint_clear(&ck);
	return r;
}
