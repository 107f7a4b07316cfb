#include "swarm_logs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "docker_swarm.h"
#include "log.h"
#include "macro.h"
#include "monoclock.h"

/* How long the output of an ended task is asked for again while the swarm
 * says it cannot give all of it. */
#define LOGS_RETRY_MS 15000

/* Feeds the service's logs to the demultiplexer, frame by frame, keeping the
 * supervisor's counters line out of stderr. 0; -EAGAIN when the swarm wrote
 * among them that it could not give them all (*err says what it said): the
 * frames it gave are fed, and a later read may give the rest; -EIO or
 * -EPROTO with *err. */
static int read_logs(struct swarm_logs *l, struct sandbox_demux *d, char **err)
{
	static const char grab[] = "Error grabbing logs: ";
	_cleanup_free_ char *buf = NULL, *codec_err = NULL, *missing = NULL;
	size_t len = 0, off = 0;
	struct docker_log_frame f;
	int r;

	if (docker_service_logs(l->docker, l->service_id, (size_t)(2 * l->log_max) + (1 << 20),
				&buf, &len, err) != DOCKER_OK)
		return -EIO;
	while ((r = docker_swarm_codec_log_frame(buf, len, &off, &f, &codec_err)) > 0) {
		if (f.stream == DOCKER_LOG_SYSTEM) {
			/* Docker writes the next frames still (the other
			 * nodes' logs): the first such error is kept. */
			size_t skip = f.len >= strlen(grab) && memcmp(f.data, grab, strlen(grab)) == 0
					      ? strlen(grab) : 0;
			const char *nl = memchr(f.data + skip, '\n', f.len - skip);
			if (!missing)
				missing = xstrndup(f.data + skip,
						   nl ? (size_t)(nl - f.data) - skip : f.len - skip);
			continue;
		}
		int c = f.stream == DOCKER_LOG_STDERR
				? swarm_supervisor_counters(f.data, f.len, l->counters) : -1;
		if (c >= 0)
			*l->have_counters = c > 0;
		else if (sandbox_demux_feed(d, (const uint8_t *)f.data - 8, 8 + f.len) < 0)
			abort(); /* a header the codec took: a broken invariant */
	}
	if (r < 0) {
		*err = xasprintf("the service's logs are not Docker's multiplexed frames: %s",
				 codec_err);
		return -EPROTO;
	}
	if (missing) {
		*err = xasprintf("the swarm could not give all of the service's logs: %s", missing);
		return -EAGAIN;
	}
	return 0;
}

/* An empty demultiplexer with d's caps and end marker. */
static void demux_like(struct sandbox_demux *out, const struct sandbox_demux *d)
{
	sandbox_demux_init(out, d->out.limit, d->err.limit);
	if (d->marker_len)
		sandbox_demux_expect_marker(out, d->marker);
}

bool swarm_logs_over_cap(struct swarm_logs l, const struct sandbox_demux *d)
{
	struct sandbox_demux scratch;
	char *err = NULL;
	bool over;

	demux_like(&scratch, d);
	if (read_logs(&l, &scratch, &err) < 0) {
		log_debug("service %s: its logs so far: %s", l.name, err);
		free(err);
	}
	over = sandbox_demux_over_limit(&scratch);
	sandbox_demux_clear(&scratch);
	return over;
}

int swarm_logs_read_all(struct swarm_logs l, struct sandbox_demux *d, const atomic_bool *cancel,
			char **err)
{
	int64_t until = monoclock_ms() + LOGS_RETRY_MS;

	for (;;) {
		struct sandbox_demux got;
		demux_like(&got, d);
		int r = read_logs(&l, &got, err);
		if (r == 0) {
			sandbox_demux_clear(d);
			*d = got;
			return 0;
		}
		sandbox_demux_clear(&got);
		if (r != -EAGAIN || monoclock_ms() >= until || (cancel && atomic_load(cancel)))
			return r;
		log_debug("service %s: %s; asking again", l.name, *err);
		free(*err);
		*err = NULL;
		struct timespec ts = { 0, 500 * 1000000L };
		nanosleep(&ts, NULL);
	}
}
