/* Typed errors of the Docker client. docker_error_to_string() (docker_error.c) gives
 * a short name; the actionable message goes into the char **err out-parameter
 * of the call that failed. */
#ifndef MAI_DOCKER_ERROR_H
#define MAI_DOCKER_ERROR_H

enum docker_error {
	DOCKER_OK = 0,
	DOCKER_ERR_UNREACHABLE,     /* no engine answers on the socket */
	DOCKER_ERR_TIMEOUT,         /* the engine did not answer in time */
	DOCKER_ERR_PROTOCOL,        /* a reply that is not what the API documents */
	DOCKER_ERR_TOO_LARGE,       /* a reply larger than the cap */
	DOCKER_ERR_NOT_FOUND,       /* 404: no such container */
	DOCKER_ERR_IMAGE_NOT_FOUND, /* 404 on an image */
	DOCKER_ERR_CONFLICT,        /* 409: name in use, container running, ... */
	DOCKER_ERR_BAD_REQUEST,     /* 400: the engine refused the parameters */
	DOCKER_ERR_SERVER,          /* 500 and other failures inside the engine */
	DOCKER_ERR_RUNTIME_MISSING, /* a configured OCI runtime the engine lacks */
	DOCKER_ERR_IO,              /* a local failure (socket, memory) */
};

const char *docker_error_to_string(enum docker_error e);

#endif
