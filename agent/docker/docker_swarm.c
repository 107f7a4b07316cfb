/* The Swarm calls of the Engine API: see docker_swarm.h. */
#include "docker_swarm.h"

#include <string.h>

#include "docker_call.h"
#include "docker_codec.h"
#include "docker_codec_fields.h"
#include "docker_swarm_codec.h"
#include "macro.h"

/* A create call: POST path body, *id from the reply on want. */
static enum docker_error create(struct docker *d, const char *path, const char *body, long want,
				const char *what, char **id, char **err)
{
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", path, body, 0, &r, err);

	*id = NULL;
	if (e)
		return e;
	e = r.status == want ? docker_swarm_codec_parse_id(r.body, r.len, what, id, err)
			     : docker_status_error(what, &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_swarm_manager(struct docker *d, char **node_id, char **err)
{
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", "/info", NULL, 0, &r, err);
	bool manager = false;

	*node_id = NULL;
	if (e)
		return e;
	e = r.status == 200 ? docker_swarm_codec_parse_info(r.body, r.len, &manager, node_id, err)
			    : docker_status_error("report its info", &r, err);
	docker_http_reply_clear(&r);
	if (e == DOCKER_OK && !manager) {
		free(*node_id);
		*node_id = NULL;
		*err = xasprintf("Docker at %s is not a manager of an active swarm: point "
				 "engine.host in config/sandbox.yaml at a manager (docker swarm "
				 "init, or docker node promote), or use engine.mode docker",
				 docker_endpoint_name(d));
		e = DOCKER_ERR_BAD_REQUEST;
	}
	return e;
}

enum docker_error docker_node_list(struct docker *d, const char *label_key,
				   struct docker_swarm_node **nodes, size_t *n, char **err)
{
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", "/nodes", NULL, 0, &r, err);

	*nodes = NULL;
	*n = 0;
	if (e)
		return e;
	e = r.status == 200
		    ? docker_swarm_codec_parse_nodes(r.body, r.len, label_key, nodes, n, err)
		    : docker_status_error("list the swarm's nodes", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

void docker_swarm_nodes_free(struct docker_swarm_node *nodes, size_t n)
{
	for (size_t i = 0; nodes && i < n; i++) {
		free(nodes[i].id);
		free(nodes[i].hostname);
		free(nodes[i].state);
		free(nodes[i].availability);
		free(nodes[i].addr);
		free(nodes[i].label);
		free(nodes[i].engine_version);
	}
	free(nodes);
}

enum docker_error docker_config_create(struct docker *d, const char *name,
				       const struct docker_label *labels, size_t n_labels,
				       const void *data, size_t len, char **id, char **err)
{
	_cleanup_free_ char *body = docker_swarm_codec_config_body(name, labels, n_labels, data,
								   len);

	return create(d, "/configs/create", body, 201, "create a config", id, err);
}

enum docker_error docker_overlay_create(struct docker *d, const char *name,
					const struct docker_label *labels, size_t n_labels,
					bool internal, char **id, char **err)
{
	_cleanup_free_ char *body = docker_swarm_codec_overlay_body(name, labels, n_labels,
								    internal);

	return create(d, "/networks/create", body, 201, "create an overlay network", id, err);
}

enum docker_error docker_service_create(struct docker *d, const struct docker_service_params *p,
					char **id, char **err)
{
	_cleanup_free_ char *body = docker_swarm_codec_service_body(p);

	return create(d, "/services/create", body, 201, "create a service", id, err);
}

enum docker_error docker_service_tasks(struct docker *d, const char *service_id,
				       struct docker_swarm_task **tasks, size_t *n, char **err)
{
	json_t *f = json_pack("{s:[s]}", "service", service_id);
	_cleanup_free_ char *filter = json_dumps(f, JSON_COMPACT);
	_cleanup_free_ char *esc = (json_decref(f), docker_escape(filter));
	_cleanup_free_ char *path = xasprintf("/tasks?filters=%s", esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	*tasks = NULL;
	*n = 0;
	if (e)
		return e;
	e = r.status == 200 ? docker_swarm_codec_parse_tasks(r.body, r.len, tasks, n, err)
			    : docker_status_error("list a service's tasks", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

void docker_swarm_task_clear(struct docker_swarm_task *t)
{
	free(t->id);
	free(t->node_id);
	free(t->state);
	free(t->desired_state);
	free(t->err);
	free(t->message);
	free(t->container_id);
	memset(t, 0, sizeof(*t));
}

void docker_swarm_tasks_free(struct docker_swarm_task *tasks, size_t n)
{
	for (size_t i = 0; tasks && i < n; i++)
		docker_swarm_task_clear(&tasks[i]);
	free(tasks);
}

enum docker_error docker_service_logs(struct docker *d, const char *service_id, size_t max_bytes,
				      char **out, size_t *len, char **err)
{
	_cleanup_free_ char *esc = docker_escape(service_id);
	_cleanup_free_ char *path = xasprintf(DOCKER_API_PREFIX
					      "/services/%s/logs?stdout=1&stderr=1&follow=0",
					      esc);
	struct docker_http_request req = {
		.method = "GET", .path = path, .timeout_ms = 30000, .max_reply = max_bytes,
	};
	struct docker_http_reply r;
	enum docker_error e = docker_http_call(docker_endpoint(d), &req, &r, err);

	*out = NULL;
	*len = 0;
	if (e)
		return e;
	if (r.status != 200) {
		e = docker_status_error("read a service's logs", &r, err);
		docker_http_reply_clear(&r);
		return e;
	}
	*out = r.body;
	*len = r.len;
	return DOCKER_OK;
}

static const char *kind_path(enum docker_swarm_kind kind)
{
	switch (kind) {
	case DOCKER_SWARM_SERVICE: return "services";
	case DOCKER_SWARM_CONFIG: return "configs";
	case DOCKER_SWARM_NETWORK: return "networks";
	}
	return "services";
}

enum docker_error docker_swarm_list_by_label(struct docker *d, enum docker_swarm_kind kind,
					     const char *key, const char *value, char ***ids,
					     size_t *n, char **err)
{
	_cleanup_free_ char *filter = docker_codec_label_filter(key, value);
	_cleanup_free_ char *esc = docker_escape(filter);
	_cleanup_free_ char *path = xasprintf("/%s?filters=%s", kind_path(kind), esc);
	_cleanup_free_ char *what = xasprintf("%s list", kind_path(kind));
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	*ids = NULL;
	*n = 0;
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_ids(r.body, r.len,
						     kind == DOCKER_SWARM_NETWORK ? "Id" : "ID",
						     what, ids, n, err)
			    : docker_status_error("list Swarm objects", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_service_stop(struct docker *d, const char *service_id, char **err)
{
	_cleanup_free_ char *esc = docker_escape(service_id);
	_cleanup_free_ char *path = xasprintf("/services/%s", esc);
	_cleanup_free_ char *spec = NULL;
	struct docker_http_reply r;
	int64_t version = 0;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	if (e)
		return e;
	if (r.status == 404) {
		docker_http_reply_clear(&r);
		return DOCKER_OK;
	}
	e = r.status == 200 ? docker_swarm_codec_stop_spec(r.body, r.len, &version, &spec, err)
			    : docker_status_error("inspect a service", &r, err);
	docker_http_reply_clear(&r);
	if (e)
		return e;
	_cleanup_free_ char *update = xasprintf("/services/%s/update?version=%lld", esc,
						(long long)version);
	e = docker_call(d, "POST", update, spec, 0, &r, err);
	if (e)
		return e;
	if (r.status != 200 && r.status != 404)
		e = docker_status_error("update a service", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_swarm_remove(struct docker *d, enum docker_swarm_kind kind,
				      const char *id, char **err)
{
	_cleanup_free_ char *esc = docker_escape(id);
	_cleanup_free_ char *path = xasprintf("/%s/%s", kind_path(kind), esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "DELETE", path, NULL, 0, &r, err);

	if (e)
		return e;
	/* A network the swarm is already deleting (its tasks are still being
	 * torn down, or sit on a node that is down) is still listed, but its
	 * removal is answered 500 "network ... not found" (Engine API 1.41):
	 * it is gone as far as a caller can do anything about it. */
	bool deleting = kind == DOCKER_SWARM_NETWORK && r.status == 500 && r.body &&
			strstr(r.body, "not found");
	if (r.status != 200 && r.status != 204 && r.status != 404 && !deleting)
		e = docker_status_error("remove a Swarm object", &r, err);
	docker_http_reply_clear(&r);
	return e;
}
