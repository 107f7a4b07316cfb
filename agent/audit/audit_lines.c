/* Line-at-a-time reading of a segment (audit_lines.h). */
#include "audit_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "audit_format.h"
#include "macro.h"

#define FIRST_CAP ((size_t)1 << 20)

int audit_lines_open(struct audit_lines *l, const char *path, uint64_t offset)
{
	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	l->buf_off = offset;
	return 0;
}

/* Reads more after buf[end), first moving what is left to the front and
 * growing the buffer up to one record's worth. 0, -EMSGSIZE or -errno. */
static int fill(struct audit_lines *l)
{
	if (l->start > 0) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->buf_off += l->start;
		l->end -= l->start;
		l->start = 0;
	}
	if (l->end == l->cap) {
		if (l->cap >= AUDIT_RECORD_MAX)
			return -EMSGSIZE;
		l->cap = l->cap ? l->cap * 2 : FIRST_CAP;
		if (l->cap > AUDIT_RECORD_MAX)
			l->cap = AUDIT_RECORD_MAX;
		l->buf = xrealloc(l->buf, l->cap);
	}
	for (;;) {
		ssize_t n = pread(l->fd, l->buf + l->end, l->cap - l->end, (off_t)(l->buf_off + l->end));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			l->eof = true;
		l->end += (size_t)n;
		return 0;
	}
}

int audit_lines_next(struct audit_lines *l, const char **line, size_t *len, uint64_t *off)
{
	size_t scanned = l->start;
	for (;;) {
		char *nl = l->end > scanned ? memchr(l->buf + scanned, '\n', l->end - scanned) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - l->buf) - l->start;
			if (n + 1 > AUDIT_RECORD_MAX)
				return -EMSGSIZE;
			*line = l->buf + l->start;
			*len = n;
			*off = l->buf_off + l->start;
			l->start += n + 1;
			return 1;
		}
		if (l->eof)
			return 0;
		size_t seen = l->end - l->start;
		int r = fill(l);
		if (r < 0)
			return r;
		scanned = l->start + seen;
	}
}

uint64_t audit_lines_offset(const struct audit_lines *l)
{
	return l->buf_off + l->start;
}

void audit_lines_close(struct audit_lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

int audit_lines_check(const char *path, uint64_t offset, uint64_t max, struct audit_chain *chain,
		      void (*fn)(void *arg, const uint8_t hash[AUDIT_HASH_LEN], uint64_t off), void *arg,
		      uint64_t *end, struct audit_lines_bad *bad)
{
	struct audit_lines l;
	const char *line;
	size_t len;
	uint64_t off, taken = 0;
	int r = audit_lines_open(&l, path, offset);
	if (r < 0)
		return r;
	while (taken < max && (r = audit_lines_next(&l, &line, &len, &off)) == 1) {
		uint8_t h[AUDIT_HASH_LEN];
		const char *why;
		if (audit_format_check(line, len, chain->prev, chain->seq, h, NULL, &why) < 0) {
			*bad = (struct audit_lines_bad){ why, chain->seq, off };
			r = -EBADMSG;
			break;
		}
		if (fn)
			fn(arg, h, off);
		memcpy(chain->prev, h, AUDIT_HASH_LEN);
		chain->seq++;
		taken++;
	}
	if (r == -EMSGSIZE) {
		*bad = (struct audit_lines_bad){ "record longer than the limit of the format (AUDIT_RECORD_MAX)",
						 chain->seq, audit_lines_offset(&l) };
		r = -EBADMSG;
	}
	*end = audit_lines_offset(&l);
	audit_lines_close(&l);
	return r < 0 ? r : 0;
}
