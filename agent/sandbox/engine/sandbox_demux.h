/* Docker's output streams of a non-TTY container, as the attach stream and
 * a Swarm service's logs both carry them: frames of an 8-byte header
 * (stream 1 or 2, three zero bytes, big-endian payload length) plus the
 * payload. The demultiplexer splits the frames into two captures, each
 * capped: bytes past the cap are counted, not stored, so memory stays
 * bounded whatever the script prints. The bootstrap's end marker
 * (sandbox_bootstrap.h) tells a complete stream from one cut off. Shared by
 * every engine (sandbox_engine.h). */
#ifndef MAI_SANDBOX_DEMUX_H
#define MAI_SANDBOX_DEMUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* How the reading of a run's output ended. */
enum sandbox_attach_end {
	SANDBOX_ATTACH_EOF,          /* the container closed its output */
	SANDBOX_ATTACH_DEADLINE,     /* the wall-clock deadline passed */
	SANDBOX_ATTACH_OUTPUT_LIMIT, /* stdout or stderr went past its cap */
	SANDBOX_ATTACH_ERROR,        /* the stream broke; see errno-style code */
	SANDBOX_ATTACH_CANCELLED,    /* *cancel became true (the agent stops) */
	SANDBOX_ATTACH_EXITED,       /* the init exited and both streams ended with the marker */
};
/* How a run's output ended (every engine reports one). */
const char *sandbox_attach_end_to_string(enum sandbox_attach_end e);

/* Whether stdout or stderr went past its cap by more than the marker's
 * length (the marker itself may be what goes past). */
bool sandbox_demux_over_limit(const struct sandbox_demux *d);

#endif
