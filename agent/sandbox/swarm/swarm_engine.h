/* Docker Swarm behind the engine seam (sandbox_engine.h): each run a
 * replicated-job service of one task on a node labelled for its trust
 * level, proven by a probe job first (swarm_nodes.h). See
 * docs/SCALING.md. */
#ifndef MAI_SWARM_ENGINE_H
#define MAI_SWARM_ENGINE_H

#include "sandbox_engine.h"

extern const struct sandbox_engine_ops swarm_engine;

#endif
