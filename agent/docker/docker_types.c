/* Releasing the values of docker_types.h. */
#include "docker_types.h"

#include <stdlib.h>
#include <string.h>

void docker_network_clear(struct docker_network *n)
{
	free(n->id);
	free(n->name);
	free(n->subnet);
	free(n->gateway);
	free(n->bridge);
	memset(n, 0, sizeof(*n));
}

void docker_version_clear(struct docker_version *v)
{
	free(v->version);
	free(v->api_version);
	free(v->kernel_version);
	free(v->os);
	free(v->arch);
	memset(v, 0, sizeof(*v));
}

void docker_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

void docker_info_clear(struct docker_info *i)
{
	free(i->server_version);
	free(i->cgroup_driver);
	free(i->default_runtime);
	docker_strv_free(i->runtimes);
	memset(i, 0, sizeof(*i));
}

bool docker_info_has_runtime(const struct docker_info *i, const char *name)
{
	for (size_t k = 0; k < i->n_runtimes; k++)
		if (strcmp(i->runtimes[k], name) == 0)
			return true;
	return false;
}

void docker_image_clear(struct docker_image *i)
{
	free(i->id);
	free(i->os);
	free(i->arch);
	memset(i, 0, sizeof(*i));
}

void docker_container_state_clear(struct docker_container_state *s)
{
	free(s->status);
	free(s->error);
	memset(s, 0, sizeof(*s));
}
