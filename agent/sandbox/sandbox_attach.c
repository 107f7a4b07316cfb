#include "sandbox_attach.h"

#include <poll.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "monoclock.h"

/* An init that has ended stays readable until its parent (containerd's
 * shim) reaps it, which it usually does well within a millisecond: its
 * status is asked for every REAP_FAST_POLL_US for REAP_FAST_MS (a run's
 * answer waits for it), then each millisecond until REAP_WAIT_MS, then every
 * REAP_SLOW_POLL_MS. Docker learns of the end only after that reap too, so
 * waiting for it is never slower than Docker's exit path. */
#define REAP_FAST_POLL_US 100
#define REAP_FAST_MS 20
#define REAP_WAIT_MS 200
#define REAP_SLOW_POLL_MS 20

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

static bool over_limit(const struct sandbox_demux *d)
{
	return d->out.total > d->out.limit + d->marker_len ||
	       d->err.total > d->err.limit + d->marker_len;
}

static bool watching(const struct sandbox_exit_watch *w)
{
	return w && w->fd >= 0 && !w->known;
}

/* The watch's fd was readable (or the init ended unreaped before): asks
 * the kernel for its status; gives the watch up when it cannot say. */
static void watch_check(struct sandbox_exit_watch *w)
{
	int r = w->get_status(w->ctx, &w->status);

	if ((r == 0 || r == -EAGAIN) && !w->ended_seen) {
		w->ended_seen = true;
		if (w->ended)
			w->ended(w->ended_arg);
	}
	if (r == 0)
		w->known = true;
	else if (r == -EAGAIN && !w->pending_since)
		w->pending_since = monoclock_ms();
	else if (r != -EAGAIN)
		w->fd = -1;
}

/* How long (µs) to sleep before asking again for the status of an init
 * that has ended unreaped. */
static int64_t reap_poll_us(const struct sandbox_exit_watch *w)
{
	int64_t since = monoclock_ms() - w->pending_since;
	return since < REAP_FAST_MS ? REAP_FAST_POLL_US : since < REAP_WAIT_MS ? 1000 : REAP_SLOW_POLL_MS * 1000;
}

/* poll() with its timeout in microseconds. */
static int poll_us(struct pollfd *p, nfds_t n, int64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	return ppoll(p, n, &ts, NULL);
}

/* Waits, until the monotonic time until (ms) or *cancel, for the watch to
 * learn the init's status. Whether it did. */
static bool watch_wait(struct sandbox_exit_watch *w, int64_t until, const atomic_bool *cancel)
{
	while (watching(w)) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		int64_t left = until - monoclock_ms();
		int r;

		if (left <= 0 || (cancel && atomic_load(cancel)))
			return false;
		if (left > 1000)
			left = 1000;
		if (w->pending_since)
			r = poll_us(NULL, 0, left * 1000 < reap_poll_us(w) ? left * 1000 : reap_poll_us(w));
		else
			r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return false;
		if (w->pending_since || r > 0)
			watch_check(w);
	}
	return w && w->known;
}

enum sandbox_attach_end sandbox_attach_pump(struct docker_stream *s, struct sandbox_demux *d,
					    const uint8_t *input, size_t input_len,
					    const struct sandbox_attach_hold *hold,
					    struct sandbox_exit_watch *watch, int64_t deadline_ms,
					    bool stop_at_limit, const atomic_bool *cancel,
					    int *error)
{
	uint8_t buf[65536];
	size_t sent = 0;
	bool stdin_open = true;
	int fd = docker_stream_fd(s);

	*error = 0;
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN } };
		nfds_t nfds = 1;
		int64_t left = deadline_ms - monoclock_ms();
		int64_t wait_us = (left > 1000 ? 1000 : left) * 1000;
		ssize_t n;

		if (stdin_open && sent == input_len && (!hold || sandbox_demux_marker_seen(d))) {
			if (hold && hold->before_release)
				hold->before_release(hold->arg);
			docker_stream_close_write(s);
			stdin_open = false;
		}
		/* Drain what is already buffered before polling the socket. */
		n = docker_stream_read(s, buf, sizeof(buf));
		if (n > 0) {
			if (sandbox_demux_feed(d, buf, (size_t)n) < 0) {
				*error = -EPROTO;
				return SANDBOX_ATTACH_ERROR;
			}
			if (stop_at_limit && over_limit(d))
				return SANDBOX_ATTACH_OUTPUT_LIMIT;
			continue;
		}
		/* Docker's end of stream: the init has ended with it (its stdio is
		 * closed), so with both markers in, the kernel's word is due (a
		 * process event still on its way, a pidfd not yet reaped), and
		 * sooner than Docker's own. */
		if (n == 0)
			return sandbox_demux_ended(d) && watch_wait(watch, deadline_ms, cancel)
				       ? SANDBOX_ATTACH_EXITED
				       : SANDBOX_ATTACH_EOF;
		if (n != -EAGAIN) {
			*error = (int)n;
			return SANDBOX_ATTACH_ERROR;
		}
		if (watch && watch->known && sandbox_demux_ended(d))
			return SANDBOX_ATTACH_EXITED;
		if (left <= 0)
			return SANDBOX_ATTACH_DEADLINE;
		if (cancel && atomic_load(cancel))
			return SANDBOX_ATTACH_CANCELLED;
		if (stdin_open && sent < input_len)
			p[0].events |= POLLOUT;
		/* An ended init stays readable until reaped: ask again soon. */
		if (watching(watch) && watch->pending_since && wait_us > reap_poll_us(watch))
			wait_us = reap_poll_us(watch);
		else if (watching(watch))
			p[nfds++] = (struct pollfd){ .fd = watch->fd, .events = POLLIN };
		if (poll_us(p, nfds, wait_us < 0 ? 0 : wait_us) < 0 && errno != EINTR) {
			*error = -errno;
			return SANDBOX_ATTACH_ERROR;
		}
		if (watching(watch) && (watch->pending_since || (nfds > 1 && p[1].revents)))
			watch_check(watch);
		if (stdin_open && sent < input_len && (p[0].revents & POLLOUT)) {
			size_t chunk = input_len - sent < 65536 ? input_len - sent : 65536;
			/* One chunk at a time, so output keeps being read and
			 * neither side can block the other. */
			int r = docker_stream_write_all(s, input + sent, chunk, 1000);
			if (r < 0) {
				/* The script closed stdin early (or ended): not an error. */
				stdin_open = false;
				docker_stream_close_write(s);
			} else {
				sent += chunk;
			}
		}
	}
}
