/* The demultiplexer of Docker's non-TTY output streams (sandbox_demux.h). */
#include "sandbox_demux.h"

#include <string.h>

#include "macro.h"

const char *sandbox_attach_end_to_string(enum sandbox_attach_end e)
{
	switch (e) {
	case SANDBOX_ATTACH_EOF: return "eof";
	case SANDBOX_ATTACH_DEADLINE: return "deadline";
	case SANDBOX_ATTACH_CANCELLED: return "cancelled";
	case SANDBOX_ATTACH_OUTPUT_LIMIT: return "output_limit";
	case SANDBOX_ATTACH_ERROR: return "error";
	case SANDBOX_ATTACH_EXITED: return "exited";
	}
	return "unknown";
}

static void capture_init(struct sandbox_capture *c, size_t limit)
{
	memset(c, 0, sizeof(*c));
	c->limit = limit;
	/* Grows on demand up to the limit; start small. */
	c->cap = 1;
	c->data = xmalloc(c->cap);
	c->data[0] = '\0';
}

static void tail_add(struct sandbox_capture *c, const uint8_t *p, size_t n)
{
	if (n >= SANDBOX_MARKER_MAX) {
		memcpy(c->tail, p + n - SANDBOX_MARKER_MAX, SANDBOX_MARKER_MAX);
		c->tail_len = SANDBOX_MARKER_MAX;
		return;
	}
	if (c->tail_len + n > SANDBOX_MARKER_MAX) {
		size_t drop = c->tail_len + n - SANDBOX_MARKER_MAX;
		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, p, n);
	c->tail_len += n;
}

static void capture_add(struct sandbox_capture *c, const uint8_t *p, size_t n)
{
	size_t room = c->limit - c->len;
	size_t take = n < room ? n : room;

	tail_add(c, p, n);
	c->total += n;
	if (c->total > c->limit)
		c->truncated = true;
	if (take == 0)
		return;
	if (c->len + take + 1 > c->cap) {
		/* Doubling: the stream comes in chunks of a few KiB, and growing
		 * by each one copied the whole output every time (seconds for
		 * megabytes, where realloc cannot grow in place). */
		size_t cap = c->cap * 2 > c->len + take + 1 ? c->cap * 2 : c->len + take + 1;
		c->cap = cap < c->limit + 1 ? cap : c->limit + 1;
		c->data = xrealloc(c->data, c->cap);
	}
	memcpy(c->data + c->len, p, take);
	c->len += take;
	c->data[c->len] = '\0';
}

void sandbox_demux_init(struct sandbox_demux *d, size_t stdout_limit, size_t stderr_limit)
{
	memset(d, 0, sizeof(*d));
	capture_init(&d->out, stdout_limit);
	capture_init(&d->err, stderr_limit);
}

void sandbox_demux_expect_marker(struct sandbox_demux *d, const char *marker)
{
	size_t n = strlen(marker);

	if (n > SANDBOX_MARKER_MAX)
		n = 0;
	memcpy(d->marker, marker, n);
	d->marker[n] = '\0';
	d->marker_len = n;
}

static bool capture_ends_with(const struct sandbox_capture *c, const char *m, size_t n)
{
	return n > 0 && c->tail_len >= n && memcmp(c->tail + c->tail_len - n, m, n) == 0;
}

bool sandbox_demux_ended(const struct sandbox_demux *d)
{
	return capture_ends_with(&d->out, d->marker, d->marker_len) &&
	       capture_ends_with(&d->err, d->marker, d->marker_len);
}

bool sandbox_demux_marker_seen(const struct sandbox_demux *d)
{
	return d->out.marker_seen && d->err.marker_seen;
}

/* Where marker m begins in the stream, if it comes in p or across the end
 * of what c already has and the start of p (before p is added); -1 if not. */
static int64_t marker_comes(const struct sandbox_capture *c, const uint8_t *p, size_t n,
			    const char *m, size_t mlen)
{
	uint8_t join[2 * SANDBOX_MARKER_MAX];
	size_t keep = c->tail_len < mlen - 1 ? c->tail_len : mlen - 1;
	size_t take = n < mlen - 1 ? n : mlen - 1;
	const uint8_t *at;

	memcpy(join, c->tail + c->tail_len - keep, keep);
	memcpy(join + keep, p, take);
	at = memmem(join, keep + take, m, mlen);
	if (at)
		return (int64_t)(c->total - keep + (size_t)(at - join));
	at = memmem(p, n, m, mlen);
	return at ? (int64_t)(c->total + (size_t)(at - p)) : -1;
}

static void capture_strip(struct sandbox_capture *c, size_t n)
{
	if (!c->marker_seen)
		return;
	c->after_end = c->total - c->marker_at > n ? c->total - c->marker_at - n : 0;
	c->total = c->marker_at;
	c->tail_len = 0;
	if (c->len > c->total) {
		c->len = (size_t)c->total;
		c->data[c->len] = '\0';
	}
	c->truncated = c->total > c->limit;
}

void sandbox_demux_strip_marker(struct sandbox_demux *d)
{
	capture_strip(&d->out, d->marker_len);
	capture_strip(&d->err, d->marker_len);
}

void sandbox_demux_clear(struct sandbox_demux *d)
{
	free(d->out.data);
	free(d->err.data);
	memset(d, 0, sizeof(*d));
}

int sandbox_demux_feed(struct sandbox_demux *d, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		if (d->remaining == 0) {
			size_t need = sizeof(d->header) - d->header_len;
			size_t take = len < need ? len : need;
			memcpy(d->header + d->header_len, buf, take);
			d->header_len += take;
			buf += take;
			len -= take;
			if (d->header_len < sizeof(d->header))
				return 0;
			d->header_len = 0;
			/* Stream 0 (stdin) never comes back; bytes 1-3 are zero. */
			if ((d->header[0] != 1 && d->header[0] != 2) || d->header[1] || d->header[2] ||
			    d->header[3])
				return -EPROTO;
			d->stream = d->header[0];
			d->remaining = (uint32_t)d->header[4] << 24 | (uint32_t)d->header[5] << 16 |
				       (uint32_t)d->header[6] << 8 | d->header[7];
			continue;
		}
		size_t take = len < d->remaining ? len : d->remaining;
		struct sandbox_capture *c = d->stream == 1 ? &d->out : &d->err;
		if (d->marker_len && !c->marker_seen) {
			int64_t at = marker_comes(c, buf, take, d->marker, d->marker_len);
			c->marker_seen = at >= 0;
			c->marker_at = at >= 0 ? (uint64_t)at : 0;
		}
		capture_add(c, buf, take);
		d->remaining -= (uint32_t)take;
		buf += take;
		len -= take;
	}
	return 0;
}

bool sandbox_demux_over_limit(const struct sandbox_demux *d)
{
	return d->out.total > d->out.limit + d->marker_len ||
	       d->err.total > d->err.limit + d->marker_len;
}
