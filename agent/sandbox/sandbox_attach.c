#include "sandbox_attach.h"

#include <poll.h>
#include <string.h>
#include <time.h>

#include "log.h"
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
	else if (r != -EAGAIN) {
		log_debug("the kernel cannot say how the watched process ended (%s): the run's "
			  "end waits for Docker", strerror(-r));
		w->fd = -1;
	}
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
			/* Ended by the caller (the bootstrap woken directly): stdin
			 * stays open until the stream is closed after the end, so
			 * that its close does not set dockerd, containerd and the
			 * shim to work beside the bootstrap's exit. */
			if (!hold || !hold->before_release || !hold->before_release(hold->arg))
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
			if (stop_at_limit && sandbox_demux_over_limit(d))
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
