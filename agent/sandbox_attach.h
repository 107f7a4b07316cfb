/* The attach stream of a non-TTY container: stdin goes in raw, stdout and
 * stderr come back multiplexed in frames of an 8-byte header (stream 1 or 2,
 * three zero bytes, big-endian payload length) plus the payload. This module
 * splits the frames into two captures, each capped: bytes past the cap are
 * counted, not stored, so memory stays bounded whatever the script prints. */
#ifndef MAI_SANDBOX_ATTACH_H
#define MAI_SANDBOX_ATTACH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker_http.h"

struct sandbox_capture {
	char *data;      /* NUL terminated, at most limit bytes; owned */
	size_t len;      /* bytes stored */
	size_t limit;    /* the cap */
	uint64_t total;  /* bytes the script wrote, stored or not */
	bool truncated;  /* total > limit */
};

struct sandbox_demux {
	uint8_t header[8];
	size_t header_len;
	int stream;          /* 1 stdout, 2 stderr of the frame being read */
	uint32_t remaining;  /* payload bytes left in that frame */
	struct sandbox_capture out, err;
};

void sandbox_demux_init(struct sandbox_demux *d, size_t stdout_limit, size_t stderr_limit);
/* Feeds stream bytes in any split. 0, or -EPROTO on a frame header that is
 * not Docker's (then the stream must be abandoned). */
int sandbox_demux_feed(struct sandbox_demux *d, const uint8_t *buf, size_t len);
/* Frees the captures' data. */
void sandbox_demux_clear(struct sandbox_demux *d);

enum sandbox_attach_end {
	SANDBOX_ATTACH_EOF,          /* the container closed its output */
	SANDBOX_ATTACH_DEADLINE,     /* the wall-clock deadline passed */
	SANDBOX_ATTACH_OUTPUT_LIMIT, /* stdout or stderr went past its cap */
	SANDBOX_ATTACH_ERROR,        /* the stream broke; see errno-style code */
	SANDBOX_ATTACH_CANCELLED,    /* *cancel became true (the agent stops) */
};

const char *sandbox_attach_end_to_string(enum sandbox_attach_end e);

/* Writes input (then half-closes stdin) and reads output into d until end of
 * stream, the deadline (CLOCK_MONOTONIC, ms) or an output cap. When
 * stop_at_limit is false, output past the caps is counted and discarded.
 * *error gets a -errno for SANDBOX_ATTACH_ERROR. cancel (may be NULL) is
 * checked at least once a second. */
enum sandbox_attach_end sandbox_attach_pump(struct docker_stream *s, struct sandbox_demux *d,
					    const uint8_t *input, size_t input_len,
					    int64_t deadline_ms, bool stop_at_limit,
					    const atomic_bool *cancel, int *error);

#endif
