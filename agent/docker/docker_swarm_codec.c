/* Swarm's JSON: see docker_swarm_codec.h. */
#include "docker_swarm_codec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "docker_codec_fields.h"
#include "macro.h"

static char *dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	if (!s)
		abort(); /* a json_pack format error or no memory: a broken invariant */
	json_decref(j);
	return s;
}

/* RFC 4648 base64: Swarm's configs carry their data so. */
static char *base64(const void *data, size_t len)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < len ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

char *docker_swarm_codec_config_body(const char *name, const struct docker_label *labels,
				     size_t n_labels, const void *data, size_t len)
{
	char *b64 = base64(data, len);
	json_t *j = json_pack("{s:s, s:o, s:s}", "Name", name, "Labels",
			      docker_codec_labels(labels, n_labels), "Data", b64);

	free(b64);
	return dump(j);
}

char *docker_swarm_codec_overlay_body(const char *name, const struct docker_label *labels,
				      size_t n_labels, bool internal)
{
	/* Internal: no gateway, so no route out of it; not attachable: no
	 * container outside the agent's own services can join it. */
	return dump(json_pack("{s:s, s:s, s:b, s:b, s:b, s:o}", "Name", name, "Driver", "overlay",
			      "Internal", internal, "Attachable", 0, "CheckDuplicate", 1, "Labels",
			      docker_codec_labels(labels, n_labels)));
}

char *docker_swarm_codec_service_body(const struct docker_service_params *p)
{
	json_t *ulimits = json_pack("[o, o, o]", docker_codec_ulimit("nofile", p->nofile),
				    docker_codec_ulimit("fsize", p->fsize_bytes),
				    docker_codec_ulimit("core", p->core_bytes));
	docker_codec_quota_ulimits(ulimits, p->sigpending, p->msgqueue_bytes, p->memlock_bytes);
	json_t *mounts = json_pack("[{s:s, s:s, s:{s:I, s:i}}]", "Type", "tmpfs", "Target", "/tmp",
				   "TmpfsOptions", "SizeBytes", (json_int_t)p->tmpfs_bytes, "Mode",
				   01777);
	if (p->deps_tmpfs_bytes > 0)
		json_array_append_new(mounts, json_pack("{s:s, s:s, s:{s:I, s:i}}", "Type", "tmpfs",
							"Target", DOCKER_DEPS_DIR, "TmpfsOptions",
							"SizeBytes",
							(json_int_t)p->deps_tmpfs_bytes, "Mode",
							01777));
	if (p->bind_source && p->bind_target)
		json_array_append_new(mounts, json_pack("{s:s, s:s, s:s, s:b}", "Type", "bind",
							"Source", p->bind_source, "Target",
							p->bind_target, "ReadOnly", 1));
	/* The task's container carries the service's labels too: a node's own
	 * engine (docker ps, its events) says whose run and which job it is. */
	/* No docker-init: the command is the container's init itself (the
	 * Swarm supervisor, out of its script's reach). Stopped with SIGKILL:
	 * an init without handlers ignores SIGTERM, and a run is stopped only
	 * at its deadline, a cap or the agent's stop. */
	json_t *cs = json_pack("{s:s, s:o, s:o, s:s, s:s, s:b, s:b, s:s, s:[s], s:o, s:o, s:o}",
			       "Image", p->image, "Command", docker_codec_strv(p->cmd),
			       "Env", docker_codec_strv(p->env), "User", p->user, "Dir", p->workdir,
			       "ReadOnly", 1, "Init", 0, "StopSignal", "SIGKILL",
			       "CapabilityDrop", "ALL",
			       "Ulimits", ulimits, "Mounts", mounts, "Labels",
			       docker_codec_labels(p->labels, p->n_labels));
	json_t *configs = json_array();
	for (size_t i = 0; i < p->n_configs; i++) {
		const struct docker_service_config *c = &p->configs[i];
		json_t *file = json_pack("{s:s, s:s, s:s, s:i}", "Name", c->target, "UID", c->uid,
					 "GID", c->gid, "Mode", 0444);
		json_array_append_new(configs, json_pack("{s:o, s:s, s:s}", "File", file,
							 "ConfigID", c->id, "ConfigName",
							 c->name));
	}
	json_object_set_new(cs, "Configs", configs);
	json_t *limits = json_pack("{s:I, s:I, s:I}", "MemoryBytes", (json_int_t)p->memory_bytes,
				   "NanoCPUs", (json_int_t)p->nano_cpus, "Pids",
				   (json_int_t)p->pids_limit);
	char max_size[32];
	snprintf(max_size, sizeof(max_size), "%lld", (long long)p->log_max_bytes);
	json_t *task = json_pack("{s:o, s:{s:o}, s:{s:s, s:i}, s:{s:o}, s:{s:s, s:{s:s, s:s}}}",
				 "ContainerSpec", cs, "Resources", "Limits", limits,
				 "RestartPolicy", "Condition", "none", "MaxAttempts", 0,
				 "Placement", "Constraints", docker_codec_strv(p->constraints),
				 "LogDriver", "Name", "json-file", "Options", "max-size", max_size,
				 "max-file", "2");
	json_t *networks = json_array();
	for (size_t i = 0; i < ARRAY_SIZE(p->networks) && p->networks[i]; i++)
		json_array_append_new(networks, json_pack("{s:s}", "Target", p->networks[i]));
	if (json_array_size(networks))
		json_object_set_new(task, "Networks", networks);
	else
		json_decref(networks);
	/* DNS round robin, not a virtual IP: nothing calls a run by its
	 * service's name, and a VIP costs every node the task lands on a load
	 * balancer's rules (IPVS, iptables marks) set up and torn down per run. */
	return dump(json_pack("{s:s, s:o, s:o, s:{s:{s:i, s:i}}, s:{s:s}}", "Name", p->name,
			      "Labels", docker_codec_labels(p->labels, p->n_labels),
			      "TaskTemplate", task, "Mode", "ReplicatedJob", "MaxConcurrent", 1,
			      "TotalCompletions", 1, "EndpointSpec", "Mode", "dnsrr"));
}

enum docker_error docker_swarm_codec_stop_spec(const char *body, size_t len, int64_t *version,
					       char **spec, char **err)
{
	const char *w = "inspect a service";
	json_t *j = docker_codec_load_object(body, len, w, err), *s, *t, *p, *c;

	*spec = NULL;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	json_t *v = docker_codec_get_object(j, "Version", true, w, err);
	s = v ? docker_codec_get_object(j, "Spec", true, w, err) : NULL;
	if (!s || docker_codec_get_int(v, "Index", true, version, w, err) < 0) {
		json_decref(j);
		return DOCKER_ERR_PROTOCOL;
	}
	t = json_object_get(s, "TaskTemplate");
	if (!json_is_object(t))
		json_object_set_new(s, "TaskTemplate", t = json_object());
	p = json_object_get(t, "Placement");
	if (!json_is_object(p))
		json_object_set_new(t, "Placement", p = json_object());
	c = json_object_get(p, "Constraints");
	if (!json_is_array(c))
		json_object_set_new(p, "Constraints", c = json_array());
	json_array_append_new(c, json_string(DOCKER_SWARM_NO_NODE));
	*spec = json_dumps(s, JSON_COMPACT);
	json_decref(j);
	return DOCKER_OK;
}

enum docker_error docker_swarm_codec_parse_id(const char *body, size_t len, const char *what,
					      char **id, char **err)
{
	json_t *j = docker_codec_load_object(body, len, what, err);
	json_t *v;

	*id = NULL;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	v = json_object_get(j, "ID");
	if (!v)
		v = json_object_get(j, "Id");
	if (!json_is_string(v) || !*json_string_value(v) || strlen(json_string_value(v)) > 128) {
		json_decref(j);
		return docker_codec_shape_error(err, what, "ID", "is missing or not an id");
	}
	*id = xstrdup(json_string_value(v));
	json_decref(j);
	return DOCKER_OK;
}

enum docker_error docker_swarm_codec_parse_info(const char *body, size_t len, bool *manager,
						char **node_id, char **err)
{
	const char *w = "info (Swarm)";
	json_t *j = docker_codec_load_object(body, len, w, err), *s;
	_cleanup_free_ char *state = NULL;
	bool control = false;
	int r;

	*manager = false;
	*node_id = NULL;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	s = docker_codec_get_object(j, "Swarm", false, w, err);
	r = s ? 0 : (*err ? -1 : 0);
	if (r == 0 && s &&
	    (docker_codec_get_string(s, "LocalNodeState", false, &state, w, err) < 0 ||
	     docker_codec_get_bool(s, "ControlAvailable", false, &control, w, err) < 0 ||
	     docker_codec_get_string(s, "NodeID", false, node_id, w, err) < 0))
		r = -1;
	json_decref(j);
	if (r < 0)
		return DOCKER_ERR_PROTOCOL;
	if (!*node_id)
		*node_id = xstrdup("");
	*manager = state && strcmp(state, "active") == 0 && control;
	return DOCKER_OK;
}

/* obj.a.b as a string, "" when any part is missing. */
static char *path_string(json_t *obj, const char *a, const char *b)
{
	json_t *v = json_object_get(obj, a);

	if (b)
		v = json_is_object(v) ? json_object_get(v, b) : NULL;
	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

enum docker_error docker_swarm_codec_parse_nodes(const char *body, size_t len,
						 const char *label_key,
						 struct docker_swarm_node **nodes, size_t *n,
						 char **err)
{
	const char *w = "node list";
	json_t *j = docker_codec_load_array(body, len, w, err), *v;
	size_t i;

	*nodes = NULL;
	*n = 0;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	struct docker_swarm_node *out = xcalloc(json_array_size(j) + 1, sizeof(*out));
	json_array_foreach(j, i, v) {
		struct docker_swarm_node *nd = &out[i];
		json_t *spec = json_object_get(v, "Spec");
		json_t *labels = json_is_object(spec) ? json_object_get(spec, "Labels") : NULL;
		json_t *label = json_is_object(labels) ? json_object_get(labels, label_key) : NULL;
		json_t *desc = json_object_get(v, "Description");
		json_t *engine = json_is_object(desc) ? json_object_get(desc, "Engine") : NULL;

		if (!json_is_object(v) || !json_is_string(json_object_get(v, "ID"))) {
			docker_swarm_nodes_free(out, i);
			json_decref(j);
			return docker_codec_shape_error(err, w, "a node", "has no string ID");
		}
		nd->id = xstrdup(json_string_value(json_object_get(v, "ID")));
		nd->hostname = path_string(desc, "Hostname", NULL);
		nd->state = path_string(v, "Status", "State");
		nd->addr = path_string(v, "Status", "Addr");
		nd->availability = path_string(spec, "Availability", NULL);
		nd->engine_version = path_string(engine, "EngineVersion", NULL);
		nd->label = json_is_string(label) ? xstrdup(json_string_value(label)) : NULL;
		nd->manager = json_is_object(json_object_get(v, "ManagerStatus"));
	}
	*n = json_array_size(j);
	*nodes = out;
	json_decref(j);
	return DOCKER_OK;
}

enum docker_error docker_swarm_codec_parse_tasks(const char *body, size_t len,
						 struct docker_swarm_task **tasks, size_t *n,
						 char **err)
{
	const char *w = "task list";
	json_t *j = docker_codec_load_array(body, len, w, err), *v;
	size_t i;

	*tasks = NULL;
	*n = 0;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	struct docker_swarm_task *out = xcalloc(json_array_size(j) + 1, sizeof(*out));
	json_array_foreach(j, i, v) {
		struct docker_swarm_task *t = &out[i];
		json_t *st = json_object_get(v, "Status");
		json_t *cs = json_is_object(st) ? json_object_get(st, "ContainerStatus") : NULL;
		json_t *code = json_is_object(cs) ? json_object_get(cs, "ExitCode") : NULL;

		if (!json_is_object(v) || !json_is_string(json_object_get(v, "ID")) ||
		    !json_is_object(st)) {
			docker_swarm_tasks_free(out, i);
			json_decref(j);
			return docker_codec_shape_error(err, w, "a task", "has no ID or Status");
		}
		t->id = xstrdup(json_string_value(json_object_get(v, "ID")));
		t->node_id = path_string(v, "NodeID", NULL);
		t->desired_state = path_string(v, "DesiredState", NULL);
		t->state = path_string(st, "State", NULL);
		t->err = path_string(st, "Err", NULL);
		t->message = path_string(st, "Message", NULL);
		t->container_id = path_string(cs, "ContainerID", NULL);
		t->has_exit = json_is_integer(code);
		t->exit_code = t->has_exit ? (int64_t)json_integer_value(code) : -1;
	}
	*n = json_array_size(j);
	*tasks = out;
	json_decref(j);
	return DOCKER_OK;
}

int docker_swarm_codec_log_frame(const char *body, size_t len, size_t *off,
				 struct docker_log_frame *frame, char **err)
{
	const uint8_t *h = (const uint8_t *)body + *off;
	size_t have = *off < len ? len - *off : 0, n;
	bool header = have > 0 && h[0] >= DOCKER_LOG_STDOUT && h[0] <= DOCKER_LOG_SYSTEM;
	char shown[8 * 3 + 1] = "", text[8 + 1] = "";

	if (have == 0)
		return 0;
	for (size_t i = 1; i < 4 && i < have; i++)
		header = header && h[i] == 0;
	if (header) {
		/* A header or a payload cut short is the end of what was read
		 * so far, not a wrong stream. */
		if (have < 8)
			return 0;
		n = (size_t)h[4] << 24 | (size_t)h[5] << 16 | (size_t)h[6] << 8 | h[7];
		if (n > have - 8)
			return 0;
		frame->stream = (enum docker_log_stream)h[0];
		frame->data = body + *off + 8;
		frame->len = n;
		*off += 8 + n;
		return 1;
	}
	have = have < 8 ? have : 8;
	for (size_t i = 0; i < have; i++) {
		snprintf(shown + 3 * i, 4, "%02x ", h[i]);
		text[i] = h[i] >= 0x20 && h[i] < 0x7f ? (char)h[i] : '.';
	}
	shown[3 * have - 1] = '\0';
	*err = xasprintf("at byte %zu of %zu, the bytes %s (\"%s\") where a frame header (stream "
			 "1, 2 or 3, three zero bytes, a length) was expected",
			 *off, len, shown, text);
	return -EPROTO;
}
