/* Short names of the Docker client's errors. */
#include "docker_error.h"

#include <stddef.h>

#include "macro.h"

static const char *const docker_error_names[] = {
	[DOCKER_OK] = "ok",
	[DOCKER_ERR_UNREACHABLE] = "unreachable",
	[DOCKER_ERR_TIMEOUT] = "timeout",
	[DOCKER_ERR_PROTOCOL] = "protocol",
	[DOCKER_ERR_TOO_LARGE] = "reply_too_large",
	[DOCKER_ERR_NOT_FOUND] = "not_found",
	[DOCKER_ERR_IMAGE_NOT_FOUND] = "image_not_found",
	[DOCKER_ERR_CONFLICT] = "conflict",
	[DOCKER_ERR_BAD_REQUEST] = "bad_request",
	[DOCKER_ERR_SERVER] = "server",
	[DOCKER_ERR_RUNTIME_MISSING] = "runtime_missing",
	[DOCKER_ERR_IO] = "io",
};

const char *docker_error_to_string(enum docker_error e)
{
	if ((size_t)e >= ARRAY_SIZE(docker_error_names) || !docker_error_names[e])
		return "unknown";
	return docker_error_names[e];
}
