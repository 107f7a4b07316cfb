/* Shared by the integration tests that need the real Docker engine. */
#ifndef MAI_TEST_DOCKER_ENV_H
#define MAI_TEST_DOCKER_ENV_H

#include <stdbool.h>

#include "docker.h"

/* The socket (DOCKER_SOCKET or the default) and the sandbox image
 * (MAI_SANDBOX_IMAGE or mai-sandbox:latest). */
const char *docker_env_socket(void);
const char *docker_env_image(void);

/* MAI_TEST_SWARM=1: the engine at docker_env_socket() is a Swarm manager
 * and the sandbox's runs go through the Swarm backend (swarm.sh sets it
 * while its swarm is up), on the nodes labelled MAI_TEST_SWARM_LABEL
 * (default mai.trust). */
bool docker_env_swarm(void);

/* Returns a client when the engine answers and the image exists. Otherwise
 * prints the reason and exits 77 (skipped), or 1 when MAI_REQUIRE_REAL=1
 * says that a missing dependency is a failure. */
struct docker *docker_env_require(void);

/* A label value unique to this test process, for leftover checks. */
const char *docker_env_instance(void);

/* Number of containers (any state) with mai.instance=docker_env_instance();
 * on a swarm (docker_env_swarm()), of services, configs and networks (a
 * node keeps a removed service's exited task container a while). */
size_t docker_env_count_ours(struct docker *d);

#endif
