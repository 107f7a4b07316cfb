/* Readers find records through the per-segment offset index (audit_format.h)
 * and never lock: the writer only appends whole batches, so everything up to
 * the last newline is complete. The index is read where a record is asked
 * for, not loaded: a reader's memory does not grow with the log. What lies
 * past the last indexed record (the writer's index write is not synced)
 * is found by scanning that tail. */
#include "audit_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_format.h"
#include "fileio.h"
#include "macro.h"

struct reader_segment {
	uint64_t first;
	int fd, idx_fd;
	uint64_t indexed;   /* records whose offsets the index holds, trusted */
	uint64_t *tail;     /* offsets of the complete records after them */
	size_t n_tail;
	uint64_t end;       /* end of the last complete record */
	uint64_t n;         /* complete records: indexed + n_tail */
};

struct audit_reader {
	char *dir;
	struct reader_segment *segs;
	size_t nsegs;
};

static void tail_add(struct reader_segment *s, size_t *cap, uint64_t off)
{
	if (s->n_tail == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		s->tail = xrealloc(s->tail, *cap * sizeof(uint64_t));
	}
	s->tail[s->n_tail++] = off;
}

/* The index entry i, or -1 when it cannot be read. */
static int64_t idx_at(const struct reader_segment *s, uint64_t i)
{
	uint64_t v;
	if (s->idx_fd < 0 || pread(s->idx_fd, &v, sizeof(v), (off_t)(i * sizeof(v))) != (ssize_t)sizeof(v))
		return -1;
	return (int64_t)v;
}

/* Whether off starts a line of the segment (offset 0 or after a newline). */
static bool line_start(const struct reader_segment *s, uint64_t off, uint64_t size)
{
	char c;
	if (off == 0)
		return true;
	return off < size && pread(s->fd, &c, 1, (off_t)(off - 1)) == 1 && c == '\n';
}

/* Counts the records: the indexed ones when the last entry is a line start
 * inside the file (else none are trusted), then the complete lines that
 * follow it. */
static int segment_load(struct audit_reader *r, struct reader_segment *s)
{
	_cleanup_free_ char *idxp = audit_segment_path(r->dir, s->first, "idx");
	struct stat st, ist;
	if (fstat(s->fd, &st) < 0)
		return -errno;
	uint64_t size = (uint64_t)st.st_size, pos = 0;
	s->idx_fd = open(idxp, O_RDONLY | O_CLOEXEC);
	uint64_t n = s->idx_fd >= 0 && fstat(s->idx_fd, &ist) == 0 ? (uint64_t)ist.st_size / 8 : 0;
	int64_t last = n ? idx_at(s, n - 1) : -1;
	s->indexed = 0;
	if (n && last >= 0 && line_start(s, (uint64_t)last, size) && (n == 1 || idx_at(s, 0) == 0)) {
		/* The last indexed record is counted by the scan. */
		s->indexed = n - 1;
		pos = (uint64_t)last;
	}
	size_t cap = 0;
	char buf[65536];
	uint64_t line = pos;
	while (pos < size) {
		ssize_t got = pread(s->fd, buf, sizeof(buf), (off_t)pos);
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		for (char *p = buf, *nl; (nl = memchr(p, '\n', (size_t)(buf + got - p))); p = nl + 1) {
			tail_add(s, &cap, line);
			line = pos + (uint64_t)(nl - buf) + 1;
		}
		pos += (uint64_t)got;
	}
	s->end = line;
	s->n = s->indexed + s->n_tail;
	return 0;
}

/* Where record i of the segment begins, and where the next one does. */
static int record_span(const struct reader_segment *s, uint64_t i, uint64_t *off, uint64_t *end)
{
	int64_t a, b;
	if (i < s->indexed) {
		a = idx_at(s, i);
		b = i + 1 < s->indexed ? idx_at(s, i + 1) : (int64_t)(s->n_tail ? s->tail[0] : s->end);
	} else {
		size_t k = (size_t)(i - s->indexed);
		a = (int64_t)s->tail[k];
		b = (int64_t)(k + 1 < s->n_tail ? s->tail[k + 1] : s->end);
	}
	if (a < 0 || b < 0)
		return -EIO;
	*off = (uint64_t)a;
	*end = (uint64_t)b;
	return 0;
}

static void segments_free(struct audit_reader *r)
{
	for (size_t i = 0; i < r->nsegs; i++) {
		if (r->segs[i].fd >= 0)
			close(r->segs[i].fd);
		if (r->segs[i].idx_fd >= 0)
			close(r->segs[i].idx_fd);
		free(r->segs[i].tail);
	}
	free(r->segs);
	r->segs = NULL;
	r->nsegs = 0;
}

static int load_all(struct audit_reader *r, char **err)
{
	_cleanup_free_ uint64_t *firsts = NULL;
	size_t n = 0;
	int ret = audit_segments_list(r->dir, &firsts, &n);
	if (ret < 0) {
		if (err)
			*err = xasprintf("%s: cannot read the audit log directory: %s", r->dir, strerror(-ret));
		return ret;
	}
	segments_free(r);
	r->segs = xcalloc(n ? n : 1, sizeof(*r->segs));
	for (size_t i = 0; i < n; i++) {
		struct reader_segment *s = &r->segs[r->nsegs++];
		_cleanup_free_ char *path = audit_segment_path(r->dir, firsts[i], "log");
		s->first = firsts[i];
		s->idx_fd = -1;
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = s->fd < 0 ? -errno : segment_load(r, s);
		if (ret < 0) {
			if (err)
				*err = xasprintf("%s: cannot read: %s", path, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int audit_reader_open(const char *log_dir, struct audit_reader **out, char **err)
{
	struct audit_reader *r = xcalloc(1, sizeof(*r));
	r->dir = xstrdup(log_dir);
	int ret = load_all(r, err);
	if (ret < 0) {
		audit_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

uint64_t audit_reader_count(const struct audit_reader *r)
{
	if (r->nsegs == 0)
		return 0;
	const struct reader_segment *s = &r->segs[r->nsegs - 1];
	return s->first + s->n;
}

uint64_t audit_reader_first(const struct audit_reader *r)
{
	return r->nsegs ? r->segs[0].first : 0;
}

int audit_reader_get(struct audit_reader *r, uint64_t seq, char **record, size_t *len)
{
	size_t lo = 0, hi = r->nsegs;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (r->segs[mid].first <= seq)
			lo = mid;
		else
			hi = mid;
	}
	if (r->nsegs == 0 || seq < r->segs[lo].first || seq - r->segs[lo].first >= r->segs[lo].n)
		return -ENOENT;
	struct reader_segment *s = &r->segs[lo];
	uint64_t off, end;
	/* One byte before the record too: it must start a line. */
	if (record_span(s, seq - s->first, &off, &end) < 0 || end <= off || end - off > AUDIT_RECORD_MAX)
		return -EIO;
	size_t n = (size_t)(end - off), before = off > 0;
	char *buf = xmalloc(n + 1);
	ssize_t got = pread(s->fd, buf, n + before, (off_t)(off - before));
	if (got != (ssize_t)(n + before) || (before && buf[0] != '\n') || buf[n + before - 1] != '\n') {
		free(buf);
		return got < 0 ? -errno : -EIO;
	}
	memmove(buf, buf + before, n - 1);
	buf[n - 1] = '\0';
	*record = buf;
	*len = n - 1;
	return 0;
}

int audit_reader_get_json(struct audit_reader *r, uint64_t seq, char **json, size_t *len)
{
	char *line = NULL;
	size_t n = 0;
	int ret = audit_reader_get(r, seq, &line, &n);
	if (ret < 0)
		return ret;
	if (n < AUDIT_JSON_OFFSET) {
		free(line);
		return -EIO;
	}
	memmove(line, line + AUDIT_JSON_OFFSET, n - AUDIT_JSON_OFFSET + 1);
	*json = line;
	*len = n - AUDIT_JSON_OFFSET;
	return 0;
}

int audit_reader_head_hex(struct audit_reader *r, char out[65])
{
	uint64_t n = audit_reader_count(r);
	out[0] = '\0';
	if (n == 0)
		return 0;
	_cleanup_free_ char *line = NULL;
	size_t len;
	int ret = audit_reader_get(r, n - 1, &line, &len);
	if (ret < 0)
		return ret;
	if (len < 64)
		return -EIO;
	memcpy(out, line, 64);
	out[64] = '\0';
	return 0;
}

int audit_reader_checkpoint(struct audit_reader *r, char **text)
{
	_cleanup_free_ char *path = xasprintf("%s/checkpoint", r->dir);
	size_t len;
	return fileio_read_path(path, 1 << 16, text, &len);
}

int audit_reader_refresh(struct audit_reader *r)
{
	return load_all(r, NULL);
}

void audit_reader_close(struct audit_reader *r)
{
	if (!r)
		return;
	segments_free(r);
	free(r->dir);
	free(r);
}
