/* The warm pool: per trust level, N containers created, attached and
 * started ahead of time, their bootstrap waiting for a job on stdin. Each
 * serves exactly one job and is then removed (by sandbox_run); a background
 * thread refills. Nothing is reused across jobs. The pool's containers carry
 * the instance label, so a crashed agent's pool is removed at the next start;
 * sandbox_pool_stop removes them on a clean stop. */
#ifndef MAI_SANDBOX_POOL_H
#define MAI_SANDBOX_POOL_H

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
/* A container for the trust level if one is ready (0), or -EAGAIN. */
int sandbox_pool_take(struct sandbox_pool *p, enum trust trust, struct sandbox_container *out);
/* Removes every container waiting (created with limits a reload changed);
 * the refill thread makes new ones. NULL is a no-op. */
void sandbox_pool_flush(struct sandbox_pool *p);
/* Stops the refill thread and removes every container still waiting. NULL
 * is a no-op. */
void sandbox_pool_stop(struct sandbox_pool *p);
/* Containers ready now for the trust level (0 for NULL). */
unsigned sandbox_pool_ready(struct sandbox_pool *p, enum trust trust);

#endif
