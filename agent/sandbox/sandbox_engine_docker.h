/* The Docker engine's operations (sandbox_engine.h), local or remote: the
 * default engine, and the one cmd/ picks unless sandbox.yaml says
 * engine: {mode: swarm}. */
#ifndef MAI_SANDBOX_ENGINE_DOCKER_H
#define MAI_SANDBOX_ENGINE_DOCKER_H

#include "sandbox_engine.h"

extern const struct sandbox_engine_ops sandbox_engine_docker;

#endif
