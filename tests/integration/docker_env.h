/* Shared by the integration tests that need the real Docker engine. */
#ifndef MAI_TEST_DOCKER_ENV_H
#define MAI_TEST_DOCKER_ENV_H

#include "docker.h"

/* The socket (DOCKER_SOCKET or the default) and the sandbox image
 * (MAI_SANDBOX_IMAGE or mai-sandbox:latest). */
const char *docker_env_socket(void);
const char *docker_env_image(void);

/* Returns a client when the engine answers and the image exists. Otherwise
 * prints the reason and exits 77 (skipped), or 1 when MAI_REQUIRE_REAL=1
 * says that a missing dependency is a failure. */
struct docker *docker_env_require(void);

/* A label value unique to this test process, for leftover checks. */
const char *docker_env_instance(void);

/* Number of containers (any state) with mai.instance=docker_env_instance(). */
size_t docker_env_count_ours(struct docker *d);

#endif
