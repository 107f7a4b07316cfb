/* The attach stream of a non-TTY container: stdin goes in raw, stdout and
 * stderr come back multiplexed in frames that sandbox_demux.h splits into
 * two capped captures. This module pumps the stream of the Docker engine's
 * runs (sandbox_engine_docker.c).
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
 * which Docker removes some milliseconds after the end), then closes it.
 * Where the caller ends the hold itself (sandbox_exit_release()), stdin is
 * not closed before the stream is (its close would set dockerd, containerd
 * and the shim to work beside the end), and the watch
 * follows the bootstrap from then on: docker-init reaps it at once and exits
 * with its status, so its exit, both markers in, ends the run as the init's
 * would, without waiting for containerd's shim to reap the init. Output a
 * process the script left behind writes after the markers is not waited
 * for, as before. */
#ifndef MAI_SANDBOX_ATTACH_H
#define MAI_SANDBOX_ATTACH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "docker_http.h"
#include "sandbox_demux.h"

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
	/* May be NULL; called once. true: it ended the hold itself, and stdin
	 * is not closed before the stream is. */
	bool (*before_release)(void *arg);
	void *arg;
};

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
