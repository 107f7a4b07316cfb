/* Readers find records through the per-segment offset index (audit_format.h)
 * and never lock: the writer only appends whole batches, so everything up to
 * the last newline is complete. An index shorter than its segment (the
 * writer's index write is not synced) is completed by scanning the tail. */
#include "audit_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_format.h"
#include "fileio.h"
#include "macro.h"

#define RECORD_MAX ((size_t)16 << 20)

struct reader_segment {
	uint64_t first;
	int fd;
	uint64_t *offs;  /* offsets of complete records, plus the end of the last */
	size_t n;        /* complete records */
};

struct audit_reader {
	char *dir;
	struct reader_segment *segs;
	size_t nsegs;
};

/* Loads the index and completes it by scanning what follows. */
static int segment_load(struct audit_reader *r, struct reader_segment *s)
{
	_cleanup_free_ char *idxp = audit_segment_path(r->dir, s->first, "idx");
	_cleanup_free_ char *idx = NULL;
	size_t idx_len = 0;
	struct stat st;
	if (fstat(s->fd, &st) < 0)
		return -errno;
	uint64_t size = (uint64_t)st.st_size;
	free(s->offs);
	s->offs = NULL;
	s->n = 0;
	if (fileio_read_path(idxp, RECORD_MAX * 64, &idx, &idx_len) < 0)
		idx_len = 0;
	size_t n = idx_len / 8;
	s->offs = xmalloc((n + 1) * sizeof(uint64_t));
	if (n)
		memcpy(s->offs, idx, n * 8);
	/* Keep only the indexed records that lie inside the file, in order. */
	size_t ok = 0;
	while (ok < n && s->offs[ok] < size && (ok == 0 ? s->offs[0] == 0 : s->offs[ok] > s->offs[ok - 1]))
		ok++;
	uint64_t pos = ok ? s->offs[ok - 1] : 0;
	size_t cap = n + 1;
	s->n = ok ? ok - 1 : 0;
	/* Scan from the last indexed record to the end for complete lines. */
	char buf[65536];
	uint64_t line_start = pos;
	if (ok)
		s->n = ok - 1; /* the last indexed record is rechecked by the scan */
	while (pos < size) {
		ssize_t got = pread(s->fd, buf, sizeof(buf), (off_t)pos);
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n')
				continue;
			if (s->n + 2 > cap) {
				cap = cap * 2 + 16;
				s->offs = xrealloc(s->offs, cap * sizeof(uint64_t));
			}
			s->offs[s->n++] = line_start;
			line_start = pos + (uint64_t)i + 1;
		}
		pos += (uint64_t)got;
	}
	s->offs[s->n] = line_start; /* end of the last complete record */
	return 0;
}

static void segments_free(struct audit_reader *r)
{
	for (size_t i = 0; i < r->nsegs; i++) {
		if (r->segs[i].fd >= 0)
			close(r->segs[i].fd);
		free(r->segs[i].offs);
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
	size_t i = (size_t)(seq - s->first);
	uint64_t off = s->offs[i], end = s->offs[i + 1];
	if (end <= off || end - off > RECORD_MAX)
		return -EIO;
	size_t n = (size_t)(end - off);
	char *buf = xmalloc(n + 1);
	ssize_t got = pread(s->fd, buf, n, (off_t)off);
	if (got != (ssize_t)n || buf[n - 1] != '\n') {
		free(buf);
		return got < 0 ? -errno : -EIO;
	}
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
