/* The attach stream of a non-TTY container: stdin goes in raw, stdout and
 * stderr come back multiplexed in frames of an 8-byte header (stream 1 or 2,
 * three zero bytes, big-endian payload length) plus the payload. This module
 * splits the frames into two captures, each capped: bytes past the cap are
 * counted, not stored, so memory stays bounded whatever the script prints.
 *
 * Ending without Docker. Docker closes the stream some 20 ms after a
 * container's last process has gone (it first tears the task down). The pump
 * can end sooner when two things hold: the kernel has reported the exit of
 * the container's init (through a pidfd, pidfd_exit.h, or its process
 * events, procexit.h), which nothing inside can forge, and each stream ends with the bootstrap's end marker, so no
 * output is still on its way. A marker the script writes itself can at most
 * end its own output early, as exiting would; the exit status stays the
 * kernel's. Without either, the pump waits for Docker's end of stream.
 * Which of the two a loaded machine delivers first does not decide how the
 * run ends: when Docker's end of stream comes first with both markers in,
 * the init has ended, and the kernel's word, which Docker's own status
 * follows, is waited for (up to the deadline).
 *
 * The hold. The bootstrap does not let its interpreter exit after the marker
 * until the agent closes stdin (sandbox_bootstrap.c); the pump keeps stdin
 * open after the input until the marker has come on both streams, lets the
 * caller read what it needs of the live container (its cgroup's counters,
 * which Docker removes some milliseconds after the end), then closes it. */
#ifndef MAI_SANDBOX_ATTACH_H
#define MAI_SANDBOX_ATTACH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker_http.h"

#define SANDBOX_MARKER_MAX 64

struct sandbox_capture {
	char *data;      /* NUL terminated, at most limit bytes; owned */
	size_t len;      /* bytes stored */
	size_t cap;      /* bytes allocated, > len */
	size_t limit;    /* the cap */
	uint64_t total;  /* bytes the script wrote, stored or not */
	bool truncated;  /* total > limit */
	uint8_t tail[SANDBOX_MARKER_MAX]; /* the stream's last bytes, stored or not */
	size_t tail_len;
	bool marker_seen; /* the end marker came, whatever followed it */
	uint64_t marker_at; /* where in the stream it began (marker_seen) */
	/* Bytes that came after the marker, from processes the script left
	 * running (sandbox_demux_strip_marker): not the script's output. */
	uint64_t after_end;
};

struct sandbox_demux {
	uint8_t header[8];
	size_t header_len;
	int stream;          /* 1 stdout, 2 stderr of the frame being read */
	uint32_t remaining;  /* payload bytes left in that frame */
	struct sandbox_capture out, err;
	char marker[SANDBOX_MARKER_MAX + 1]; /* the end marker; "" when none */
	size_t marker_len;
};

void sandbox_demux_init(struct sandbox_demux *d, size_t stdout_limit, size_t stderr_limit);
/* Feeds stream bytes in any split. 0, or -EPROTO on a frame header that is
 * not Docker's (then the stream must be abandoned). */
int sandbox_demux_feed(struct sandbox_demux *d, const uint8_t *buf, size_t len);
/* The end marker the bootstrap writes last to each stream (at most
 * SANDBOX_MARKER_MAX bytes). Output past a cap by no more than its length
 * does not stop the pump: the marker itself may be what goes past. */
void sandbox_demux_expect_marker(struct sandbox_demux *d, const char *marker);
/* Whether both streams end with the marker. */
bool sandbox_demux_ended(const struct sandbox_demux *d);
/* Whether the marker has come on both streams, at the end or not (output
 * of a process the script left behind may follow it). */
bool sandbox_demux_marker_seen(const struct sandbox_demux *d);
/* Cuts each stream where the end marker began: the marker, with its nonce,
 * and whatever processes the script left behind wrote after it (counted in
 * after_end) are taken from the stored bytes and the total; truncated is
 * set again against the cap. A stream without the marker stays whole. */
void sandbox_demux_strip_marker(struct sandbox_demux *d);
/* Frees the captures' data. */
void sandbox_demux_clear(struct sandbox_demux *d);

enum sandbox_attach_end {
	SANDBOX_ATTACH_EOF,          /* the container closed its output */
	SANDBOX_ATTACH_DEADLINE,     /* the wall-clock deadline passed */
	SANDBOX_ATTACH_OUTPUT_LIMIT, /* stdout or stderr went past its cap */
	SANDBOX_ATTACH_ERROR,        /* the stream broke; see errno-style code */
	SANDBOX_ATTACH_CANCELLED,    /* *cancel became true (the agent stops) */
	SANDBOX_ATTACH_EXITED,       /* the init exited and both streams ended with the marker */
};

/* The container's init, watched through the kernel (sandbox_exit.c). */
struct sandbox_exit_watch {
	/* Readable once it has ended or the watch can no longer tell; -1: none
	 * (never EXITED). */
	int fd;
	/* Its wait status, asked once fd was readable: 0 once known, -EAGAIN
	 * ended but not yet reaped, another -errno never (then the pump waits
	 * for Docker's end of stream). */
	int (*get_status)(void *ctx, int *status);
	void *ctx;
	/* May be NULL. Called once from the pump, as soon as the init is seen
	 * to have ended (0 or -EAGAIN above), before Docker can have learnt of
	 * it: what only the container's cgroup says is read then. */
	void (*ended)(void *arg);
	void *ended_arg;
	bool ended_seen;
	bool known;            /* status is in */
	int status;            /* the init's wait status */
	int64_t pending_since; /* ended but not yet reaped, since (ms); 0: not seen */
};

/* Stdin held open after the input until the marker has come on both
 * streams (the bootstrap waits for its end before exiting). */
struct sandbox_attach_hold {
	void (*before_release)(void *arg); /* may be NULL; called once */
	void *arg;
};

const char *sandbox_attach_end_to_string(enum sandbox_attach_end e);

/* Writes input, then half-closes stdin (with a hold, may be NULL: once
 * the markers are in) and reads output into d until end of stream, the
 * deadline (CLOCK_MONOTONIC, ms), an output cap, or (with a watch, may be
 * NULL) the init's exit with both markers in. When stop_at_limit is false,
 * output past the caps is counted and discarded. *error gets a -errno for
 * SANDBOX_ATTACH_ERROR. cancel (may be NULL) is checked at least once a
 * second. After EXITED it may be called again, without input, watch or
 * hold, to read on to Docker's end of stream. */
enum sandbox_attach_end sandbox_attach_pump(struct docker_stream *s, struct sandbox_demux *d,
					    const uint8_t *input, size_t input_len,
					    const struct sandbox_attach_hold *hold,
					    struct sandbox_exit_watch *watch, int64_t deadline_ms,
					    bool stop_at_limit, const atomic_bool *cancel,
					    int *error);

#endif
