/* The warm pool: per trust level, N containers created, attached and
 * started ahead of time, their bootstrap waiting for a job on stdin. Each
 * serves exactly one job and is then removed (by sandbox_run); a background
 * thread refills. Nothing is reused across jobs. The pool's containers carry
 * the instance label, so a crashed agent's pool is removed at the next start;
 * sandbox_pool_stop removes them on a clean stop. */
#ifndef MAI_SANDBOX_POOL_H
#define MAI_SANDBOX_POOL_H

#include <stdint.h>

#include "level.h"
#include "sandbox_container.h"
#include "sandbox_quiet.h"

struct sandbox_trust;
struct sandbox_pool;

/* Starts the refill thread: per level t, size containers (at most 16) made
 * as spec[t] says with the level's base limits (sandbox_trust_limits), each
 * between runs (q) unless jobs find the pool empty. ct, tt, q and spec's
 * strings are borrowed. NULL when size is 0 or no thread can start. */
struct sandbox_pool *sandbox_pool_start(struct sandbox_containers *ct, struct sandbox_trust *tt,
					struct sandbox_quiet *q,
					const struct sandbox_container_spec spec[TRUST_COUNT],
					unsigned size);
/* A container for the trust level if one is ready (0), or -EAGAIN. One that
 * ended while it waited (dockerd restarted) is discarded, never handed out;
 * a full pool also looks for such containers every few seconds. */
int sandbox_pool_take(struct sandbox_pool *p, enum trust trust, struct sandbox_container *out);
/* Removes every container waiting (created with limits a reload changed);
 * the refill thread makes new ones. NULL is a no-op. */
void sandbox_pool_flush(struct sandbox_pool *p);
/* Stops the refill thread and removes every container still waiting. NULL
 * is a no-op. */
void sandbox_pool_stop(struct sandbox_pool *p);
/* The pool's size per trust level (0 for NULL). */
unsigned sandbox_pool_capacity(const struct sandbox_pool *p);
/* The warm pool's size per trust level for this machine: 2 (the size at which
 * a drop on an idle agent always finds a warm container while the one it
 * used is replaced), at most the number of workers and of CPUs, and only as
 * many as fit in a sixteenth of the available memory at
 * SANDBOX_POOL_IDLE_BYTES each for the three trust levels (0 below about
 * 768 MB available). */
unsigned sandbox_pool_auto_size(int64_t cpus_nano, int64_t memory_available, unsigned workers);
/* Containers ready now for the trust level (0 for NULL). */
unsigned sandbox_pool_ready(struct sandbox_pool *p, enum trust trust);

#endif
