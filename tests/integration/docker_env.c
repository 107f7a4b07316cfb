#include "docker_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "docker_swarm.h"
#include "macro.h"

const char *docker_env_socket(void)
{
	const char *s = getenv("DOCKER_SOCKET");
	return s && *s ? s : DOCKER_DEFAULT_SOCKET;
}

bool docker_env_swarm(void)
{
	const char *s = getenv("MAI_TEST_SWARM");
	return s && strcmp(s, "1") == 0;
}

const char *docker_env_image(void)
{
	const char *s = getenv("MAI_SANDBOX_IMAGE");
	return s && *s ? s : "mai-sandbox:latest";
}

static void missing(const char *what)
{
	const char *req = getenv("MAI_REQUIRE_REAL");

	if (req && strcmp(req, "1") == 0) {
		fprintf(stderr, "FAIL: %s (MAI_REQUIRE_REAL=1: a missing dependency is a failure)\n",
			what);
		exit(1);
	}
	fprintf(stderr, "SKIP: %s\n", what);
	exit(77);
}

struct docker *docker_env_require(void)
{
	struct docker_options o = { .socket_path = docker_env_socket() };
	struct docker *d = docker_new(&o);
	struct docker_image img;
	_cleanup_free_ char *err = NULL;

	if (docker_ping(d, &err) != DOCKER_OK)
		missing(err);
	if (docker_image_inspect(d, docker_env_image(), &img, &err) != DOCKER_OK)
		missing(err);
	docker_image_clear(&img);
	return d;
}

const char *docker_env_instance(void)
{
	static char id[64];

	if (!id[0])
		snprintf(id, sizeof(id), "test-%ld-%ld", (long)getpid(), (long)time(NULL));
	return id;
}

size_t docker_env_count_ours(struct docker *d)
{
	_cleanup_free_ char *err = NULL;
	char **ids = NULL;
	size_t n = 0;

	if (docker_env_swarm()) {
		size_t total = 0;
		for (int k = DOCKER_SWARM_SERVICE; k <= DOCKER_SWARM_NETWORK; k++) {
			if (docker_swarm_list_by_label(d, (enum docker_swarm_kind)k, "mai.instance",
						       docker_env_instance(), &ids, &n, &err)) {
				fprintf(stderr, "listing the swarm's objects failed: %s\n", err);
				exit(1);
			}
			docker_strv_free(ids);
			total += n;
		}
		return total;
	}
	if (docker_container_list_by_label(d, "mai.instance", docker_env_instance(), &ids, &n, &err)) {
		fprintf(stderr, "listing containers failed: %s\n", err);
		exit(1);
	}
	docker_strv_free(ids);
	return n;
}
