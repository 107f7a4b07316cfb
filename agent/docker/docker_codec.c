#include "docker_codec.h"
#include "docker_codec_fields.h"

#include <jansson.h>
#include <string.h>

#include "macro.h"

/* Replies longer than this are not echoed whole into messages. */
#define CODEC_ECHO_MAX 200

enum docker_error docker_codec_shape_error(char **err, const char *what, const char *fmt_field,
				     const char *expected)
{
	*err = xasprintf("unexpected Docker reply to %s: %s %s; is the engine a Docker "
			 "20.10 or newer (API v1.41)?", what, fmt_field, expected);
	return DOCKER_ERR_PROTOCOL;
}

static int shape_fail(char **err, const char *what, const char *field, const char *expected)
{
	docker_codec_shape_error(err, what, field, expected);
	return -1;
}

json_t *docker_codec_load(const char *body, size_t len, const char *what, char **err)
{
	json_error_t je;
	json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);

	if (!j)
		*err = xasprintf("Docker's reply to %s is not JSON (line %d column %d: %s): %.*s", what,
				 je.line, je.column, je.text, CODEC_ECHO_MAX, body);
	return j;
}

/* Field helpers: a missing optional field keeps the default; a field of the
 * wrong type is always an error. They return 0 or -1 after setting *err. */
int docker_codec_get_string(json_t *obj, const char *key, bool required, char **out, const char *what,
		      char **err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		if (required) {
			docker_codec_shape_error(err, what, key, "is missing (expected a string)");
			return -1;
		}
		*out = xstrdup("");
		return 0;
	}
	if (!json_is_string(v)) {
		docker_codec_shape_error(err, what, key, "is not a string");
		return -1;
	}
	*out = xstrdup(json_string_value(v));
	return 0;
}

int docker_codec_get_int(json_t *obj, const char *key, bool required, int64_t *out, const char *what,
		   char **err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		if (required) {
			docker_codec_shape_error(err, what, key, "is missing (expected an integer)");
			return -1;
		}
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v)) {
		docker_codec_shape_error(err, what, key, "is not an integer");
		return -1;
	}
	*out = (int64_t)json_integer_value(v);
	return 0;
}

int docker_codec_get_bool(json_t *obj, const char *key, bool required, bool *out, const char *what,
		    char **err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		if (required) {
			docker_codec_shape_error(err, what, key, "is missing (expected true or false)");
			return -1;
		}
		*out = false;
		return 0;
	}
	if (!json_is_boolean(v)) {
		docker_codec_shape_error(err, what, key, "is not a boolean");
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

json_t *docker_codec_get_object(json_t *obj, const char *key, bool required, const char *what, char **err)
{
	json_t *v = json_object_get(obj, key);

	if ((!v || json_is_null(v)) && !required)
		return NULL;
	if (!json_is_object(v)) {
		docker_codec_shape_error(err, what, key, v ? "is not an object" : "is missing (expected an object)");
		return NULL;
	}
	return v;
}

/* An optional object field: *out is NULL when absent; -1 when of another type. */
static int opt_object(json_t *obj, const char *key, json_t **out, const char *what, char **err)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v)) {
		docker_codec_shape_error(err, what, key, "is not an object");
		return -1;
	}
	*out = v;
	return 0;
}

json_t *docker_codec_load_object(const char *body, size_t len, const char *what, char **err)
{
	json_t *j = docker_codec_load(body, len, what, err);

	if (j && !json_is_object(j)) {
		docker_codec_shape_error(err, what, "the reply", "is not a JSON object");
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *docker_codec_load_array(const char *body, size_t len, const char *what, char **err)
{
	json_t *j = docker_codec_load(body, len, what, err);

	if (j && !json_is_array(j)) {
		docker_codec_shape_error(err, what, "the reply", "is not a JSON array");
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *docker_codec_strv(const char *const *v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

json_t *docker_codec_labels(const struct docker_label *labels, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, labels[i].key, json_string(labels[i].value));
	return o;
}

json_t *docker_codec_ulimit(const char *name, int64_t value)
{
	return json_pack("{s:s, s:I, s:I}", "Name", name, "Soft", (json_int_t)value, "Hard",
			 (json_int_t)value);
}

void docker_codec_quota_ulimits(json_t *ulimits, int64_t sigpending, int64_t msgqueue_bytes,
				int64_t memlock_bytes)
{
	if (sigpending > 0)
		json_array_append_new(ulimits, docker_codec_ulimit("sigpending", sigpending));
	if (msgqueue_bytes > 0)
		json_array_append_new(ulimits, docker_codec_ulimit("msgqueue", msgqueue_bytes));
	if (memlock_bytes > 0)
		json_array_append_new(ulimits, docker_codec_ulimit("memlock", memlock_bytes));
}

char *docker_codec_create_body(const struct docker_create_params *p)
{
	json_t *labels = docker_codec_labels(p->labels, p->n_labels), *host, *body;
	json_t *ulimits = json_array();
	char *tmpfs_opts = xasprintf("rw,noexec,nosuid,nodev,size=%lld", (long long)p->tmpfs_bytes);
	char *s;

	json_array_append_new(ulimits, docker_codec_ulimit("nofile", p->nofile));
	json_array_append_new(ulimits, docker_codec_ulimit("fsize", p->fsize_bytes));
	json_array_append_new(ulimits, docker_codec_ulimit("core", p->core_bytes));
	docker_codec_quota_ulimits(ulimits, p->sigpending, p->msgqueue_bytes, p->memlock_bytes);

	host = json_pack("{s:b, s:{s:s}, s:[s], s:[s], s:b, s:s, s:I, s:I, s:I, s:I, s:o, s:b,"
			 " s:s, s:{s:s, s:{}}, s:b, s:s}",
			 "ReadonlyRootfs", 1,
			 "Tmpfs", "/tmp", tmpfs_opts,
			 "CapDrop", "ALL",
			 "SecurityOpt", "no-new-privileges",
			 "Privileged", 0,
			 "NetworkMode", p->network ? p->network : "none",
			 "Memory", (json_int_t)p->memory_bytes,
			 "MemorySwap", (json_int_t)p->memory_bytes,
			 "NanoCpus", (json_int_t)p->nano_cpus,
			 "PidsLimit", (json_int_t)p->pids_limit,
			 "Ulimits", ulimits,
			 "Init", 1,
			 "Runtime", p->runtime ? p->runtime : "runc",
			 "LogConfig", "Type", "none", "Config",
			 "AutoRemove", 0,
			 "IpcMode", "private");
	body = json_pack("{s:s, s:o, s:o, s:s, s:s, s:o, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:o}",
			 "Image", p->image,
			 "Cmd", docker_codec_strv(p->cmd),
			 "Env", docker_codec_strv(p->env),
			 "User", p->user ? p->user : "1000:1000",
			 "WorkingDir", p->workdir ? p->workdir : "/tmp",
			 "Labels", labels,
			 "AttachStdin", p->open_stdin,
			 "AttachStdout", 1,
			 "AttachStderr", 1,
			 "OpenStdin", p->open_stdin,
			 "StdinOnce", p->open_stdin,
			 "Tty", 0,
			 "NetworkDisabled", !p->network,
			 "HostConfig", host);
	free(tmpfs_opts);
	if (!body || !host)
		abort(); /* a json_pack format error is a programming error */
	if (p->masked_paths)
		json_object_set_new(host, "MaskedPaths", docker_codec_strv(p->masked_paths));
	if (p->seccomp_profile) {
		char *opt = xasprintf("seccomp=%s", p->seccomp_profile);
		json_array_append_new(json_object_get(host, "SecurityOpt"), json_string(opt));
		free(opt);
	}
	if (p->deps_tmpfs_bytes > 0) {
		char *deps_opts = xasprintf("rw,exec,nosuid,nodev,size=%lld",
					    (long long)p->deps_tmpfs_bytes);
		json_object_set_new(json_object_get(host, "Tmpfs"), DOCKER_DEPS_DIR,
				    json_string(deps_opts));
		free(deps_opts);
	}
	s = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!s)
		abort();
	return s;
}

char *docker_codec_update_body(int64_t memory_bytes, int64_t nano_cpus, int64_t pids_limit)
{
	json_t *j = json_pack("{s:I, s:I, s:I, s:I}", "Memory", (json_int_t)memory_bytes,
			      "MemorySwap", (json_int_t)memory_bytes, "NanoCpus",
			      (json_int_t)nano_cpus, "PidsLimit", (json_int_t)pids_limit);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (!s)
		abort();
	return s;
}

char *docker_codec_network_create_body(const char *name, const char *bridge,
				       const struct docker_label *labels, size_t n_labels)
{
	json_t *j = json_pack("{s:s, s:s, s:b, s:b, s:b, s:o, s:{s:s, s:s}}", "Name", name,
			      "Driver", "bridge", "Internal", 1, "CheckDuplicate", 1, "Attachable",
			      0, "Labels", docker_codec_labels(labels, n_labels), "Options",
			      DOCKER_BRIDGE_NAME_OPTION, bridge, DOCKER_BRIDGE_ICC_OPTION, "false");
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (!s)
		abort();
	return s;
}

char *docker_codec_label_filter(const char *key, const char *value)
{
	char *kv = xasprintf("%s=%s", key, value);
	json_t *f = json_pack("{s:[s]}", "label", kv);
	char *s = json_dumps(f, JSON_COMPACT);

	free(kv);
	json_decref(f);
	if (!s)
		abort();
	return s;
}

char *docker_codec_error_message(const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	json_t *m = j ? json_object_get(j, "message") : NULL;
	char *s;

	if (json_is_string(m))
		s = xstrdup(json_string_value(m));
	else
		s = xstrndup(body, len < CODEC_ECHO_MAX ? len : CODEC_ECHO_MAX);
	json_decref(j);
	/* Messages go on one log line. */
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return s;
}

/* {"Id": "<64 hex digits>", ...}: the reply of a create call. */
static enum docker_error parse_id(const char *body, size_t len, const char *what,
				  const char *expected, char **id, char **err)
{
	json_t *j = docker_codec_load_object(body, len, what, err);
	int r;

	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = docker_codec_get_string(j, "Id", true, id, what, err);
	if (r == 0 && strlen(*id) != 64) {
		free(*id);
		*id = NULL;
		r = -1;
		docker_codec_shape_error(err, what, "Id", expected);
	}
	json_decref(j);
	return r < 0 ? DOCKER_ERR_PROTOCOL : DOCKER_OK;
}

enum docker_error docker_codec_parse_create(const char *body, size_t len, char **id, char **err)
{
	return parse_id(body, len, "container create", "is not a 64-digit container id", id, err);
}

enum docker_error docker_codec_parse_network_create(const char *body, size_t len, char **id,
						    char **err)
{
	return parse_id(body, len, "network create", "is not a 64-digit network id", id, err);
}

enum docker_error docker_codec_parse_network(const char *body, size_t len,
					     struct docker_network *out, char **err)
{
	const char *w = "network inspect";
	json_t *j = docker_codec_load_object(body, len, w, err), *ipam = NULL, *cfg, *first, *opts;
	int r;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = docker_codec_get_string(j, "Id", true, &out->id, w, err);
	r = r ?: docker_codec_get_string(j, "Name", true, &out->name, w, err);
	r = r ?: docker_codec_get_bool(j, "Internal", false, &out->internal, w, err);
	r = r ?: opt_object(j, "IPAM", &ipam, w, err);
	cfg = ipam ? json_object_get(ipam, "Config") : NULL;
	if (r == 0 && cfg && !json_is_null(cfg) && !json_is_array(cfg))
		r = shape_fail(err, w, "IPAM.Config", "is not an array");
	first = r == 0 && json_is_array(cfg) ? json_array_get(cfg, 0) : NULL;
	if (r == 0 && first && !json_is_object(first))
		r = shape_fail(err, w, "IPAM.Config[0]", "is not an object");
	if (r == 0 && first) {
		r = docker_codec_get_string(first, "Subnet", false, &out->subnet, w, err);
		r = r ?: docker_codec_get_string(first, "Gateway", false, &out->gateway, w, err);
	} else if (r == 0) {
		out->subnet = xstrdup("");
		out->gateway = xstrdup("");
	}
	opts = r ? NULL : json_object_get(j, "Options");
	if (r == 0 && opts && !json_is_null(opts) && !json_is_object(opts))
		r = shape_fail(err, w, "Options", "is not an object");
	out->icc = true;
	if (r == 0 && json_is_object(opts)) {
		_cleanup_free_ char *icc = NULL;
		r = docker_codec_get_string(opts, DOCKER_BRIDGE_NAME_OPTION, false, &out->bridge, w, err);
		r = r ?: docker_codec_get_string(opts, DOCKER_BRIDGE_ICC_OPTION, false, &icc, w, err);
		out->icc = r != 0 || strcmp(icc, "false") != 0;
	} else if (r == 0) {
		out->bridge = xstrdup("");
	}
	json_decref(j);
	if (r < 0) {
		docker_network_clear(out);
		return DOCKER_ERR_PROTOCOL;
	}
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_wait(const char *body, size_t len, int64_t *status_code,
					  char **err)
{
	json_t *j = docker_codec_load_object(body, len, "container wait", err), *e;
	enum docker_error rc = DOCKER_OK;

	if (!j)
		return DOCKER_ERR_PROTOCOL;
	if (docker_codec_get_int(j, "StatusCode", true, status_code, "container wait", err) < 0) {
		rc = DOCKER_ERR_PROTOCOL;
	} else if ((e = json_object_get(j, "Error")) && !json_is_null(e)) {
		json_t *m = json_object_get(e, "Message");
		if (!json_is_object(e) || (m && !json_is_string(m))) {
			docker_codec_shape_error(err, "container wait", "Error", "is not {\"Message\": string}");
			rc = DOCKER_ERR_PROTOCOL;
		} else if (m && *json_string_value(m)) {
			*err = xasprintf("waiting for the container failed: %s", json_string_value(m));
			rc = DOCKER_ERR_SERVER;
		}
	}
	json_decref(j);
	return rc;
}

enum docker_error docker_codec_parse_version(const char *body, size_t len,
					     struct docker_version *out, char **err)
{
	const char *w = "version";
	json_t *j = docker_codec_load_object(body, len, w, err);
	int r;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = docker_codec_get_string(j, "Version", true, &out->version, w, err);
	r = r ?: docker_codec_get_string(j, "ApiVersion", true, &out->api_version, w, err);
	r = r ?: docker_codec_get_string(j, "KernelVersion", false, &out->kernel_version, w, err);
	r = r ?: docker_codec_get_string(j, "Os", false, &out->os, w, err);
	r = r ?: docker_codec_get_string(j, "Arch", false, &out->arch, w, err);
	json_decref(j);
	if (r < 0) {
		docker_version_clear(out);
		return DOCKER_ERR_PROTOCOL;
	}
	return DOCKER_OK;
}

static int parse_runtimes(json_t *j, struct docker_info *out, const char *w, char **err)
{
	json_t *rt = docker_codec_get_object(j, "Runtimes", true, w, err), *v;
	const char *name;
	size_t i = 0;

	if (!rt)
		return -1;
	out->runtimes = xcalloc(json_object_size(rt) + 1, sizeof(char *));
	json_object_foreach(rt, name, v) {
		if (!json_is_object(v))
			return shape_fail(err, w, "a Runtimes entry", "is not an object");
		out->runtimes[i++] = xstrdup(name);
	}
	out->n_runtimes = i;
	return 0;
}

enum docker_error docker_codec_parse_info(const char *body, size_t len, struct docker_info *out,
					  char **err)
{
	const char *w = "info";
	json_t *j = docker_codec_load_object(body, len, w, err), *sec;
	_cleanup_free_ char *cgv = NULL;
	int64_t n = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = docker_codec_get_string(j, "ServerVersion", true, &out->server_version, w, err);
	r = r ?: docker_codec_get_string(j, "CgroupVersion", false, &cgv, w, err);
	r = r ?: docker_codec_get_string(j, "CgroupDriver", false, &out->cgroup_driver, w, err);
	r = r ?: docker_codec_get_string(j, "DefaultRuntime", false, &out->default_runtime, w, err);
	r = r ?: docker_codec_get_int(j, "NCPU", true, &n, w, err);
	r = r ?: docker_codec_get_int(j, "MemTotal", true, &out->mem_total, w, err);
	r = r ?: docker_codec_get_bool(j, "MemoryLimit", false, &out->memory_limit, w, err);
	r = r ?: docker_codec_get_bool(j, "SwapLimit", false, &out->swap_limit, w, err);
	r = r ?: docker_codec_get_bool(j, "PidsLimit", false, &out->pids_limit, w, err);
	r = r ?: parse_runtimes(j, out, w, err);
	if (r == 0) {
		out->ncpu = (long)n;
		/* Docker before 20.10 has no CgroupVersion: that is v1. */
		out->cgroup_version = (!*cgv || strcmp(cgv, "1") == 0) ? 1 : 2;
		if (*cgv && strcmp(cgv, "1") != 0 && strcmp(cgv, "2") != 0)
			r = shape_fail(err, w, "CgroupVersion", "is neither \"1\" nor \"2\"");
	}
	sec = json_object_get(j, "SecurityOptions");
	if (r == 0 && sec && !json_is_array(sec))
		r = shape_fail(err, w, "SecurityOptions", "is not an array");
	if (r == 0 && sec) {
		size_t i;
		json_t *v;
		json_array_foreach(sec, i, v) {
			if (json_is_string(v) && strstr(json_string_value(v), "name=seccomp"))
				out->seccomp = true;
			if (json_is_string(v) && strstr(json_string_value(v), "name=userns"))
				out->userns = true;
		}
	}
	json_decref(j);
	if (r < 0) {
		docker_info_clear(out);
		return DOCKER_ERR_PROTOCOL;
	}
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_image(const char *body, size_t len, struct docker_image *out,
					   char **err)
{
	const char *w = "image inspect";
	json_t *j = docker_codec_load_object(body, len, w, err);
	int r;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = docker_codec_get_string(j, "Id", true, &out->id, w, err);
	r = r ?: docker_codec_get_int(j, "Size", false, &out->size, w, err);
	r = r ?: docker_codec_get_string(j, "Os", false, &out->os, w, err);
	r = r ?: docker_codec_get_string(j, "Architecture", false, &out->arch, w, err);
	if (r == 0 && strncmp(out->id, "sha256:", 7) != 0)
		r = shape_fail(err, w, "Id", "does not start with sha256:");
	json_decref(j);
	if (r < 0) {
		docker_image_clear(out);
		return DOCKER_ERR_PROTOCOL;
	}
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_container(const char *body, size_t len,
					       struct docker_container_state *out, char **err)
{
	const char *w = "container inspect";
	json_t *j = docker_codec_load_object(body, len, w, err), *st;
	int64_t code = 0, pid = 0;
	int r = -1;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	st = docker_codec_get_object(j, "State", true, w, err);
	if (st) {
		r = docker_codec_get_string(st, "Status", true, &out->status, w, err);
		r = r ?: docker_codec_get_bool(st, "Running", true, &out->running, w, err);
		r = r ?: docker_codec_get_bool(st, "OOMKilled", true, &out->oom_killed, w, err);
		r = r ?: docker_codec_get_int(st, "ExitCode", true, &code, w, err);
		r = r ?: docker_codec_get_int(st, "Pid", false, &pid, w, err);
		r = r ?: docker_codec_get_string(st, "Error", false, &out->error, w, err);
	}
	json_decref(j);
	if (r < 0) {
		docker_container_state_clear(out);
		return DOCKER_ERR_PROTOCOL;
	}
	out->exit_code = (int)code;
	out->pid = (int)pid;
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_stats(const char *body, size_t len, struct docker_stats *out,
					   char **err)
{
	const char *w = "container stats";
	json_t *j = docker_codec_load_object(body, len, w, err), *mem, *pids, *cpu, *usage = NULL;
	int64_t total = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	r = opt_object(j, "memory_stats", &mem, w, err);
	r = r ?: opt_object(j, "pids_stats", &pids, w, err);
	r = r ?: opt_object(j, "cpu_stats", &cpu, w, err);
	if (r == 0 && cpu)
		r = opt_object(cpu, "cpu_usage", &usage, w, err);
	if (r == 0 && mem) {
		r = docker_codec_get_int(mem, "usage", false, &out->mem_usage, w, err);
		r = r ?: docker_codec_get_int(mem, "max_usage", false, &out->mem_max_usage, w, err);
		/* A stopped container answers with empty memory_stats. */
		out->valid = json_object_size(mem) > 0;
	}
	if (r == 0 && pids)
		r = docker_codec_get_int(pids, "current", false, &out->pids_current, w, err);
	if (r == 0 && usage) {
		r = docker_codec_get_int(usage, "total_usage", false, &total, w, err);
		out->cpu_total_ns = (uint64_t)total;
	}
	json_decref(j);
	if (r < 0) {
		memset(out, 0, sizeof(*out));
		return DOCKER_ERR_PROTOCOL;
	}
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_ids(const char *body, size_t len, const char *key,
					 const char *w, char ***ids, size_t *n, char **err)
{
	json_t *j = docker_codec_load_array(body, len, w, err), *v;
	char **out;
	size_t i;

	*ids = NULL;
	*n = 0;
	if (!j)
		return DOCKER_ERR_PROTOCOL;
	out = xcalloc(json_array_size(j) + 1, sizeof(char *));
	json_array_foreach(j, i, v) {
		json_t *id = json_is_object(v) ? json_object_get(v, key) : NULL;
		if (!json_is_string(id)) {
			_cleanup_free_ char *expected = xasprintf("has no string %s", key);
			docker_strv_free(out);
			json_decref(j);
			return docker_codec_shape_error(err, w, "an entry", expected);
		}
		out[i] = xstrdup(json_string_value(id));
	}
	*n = json_array_size(j);
	*ids = out;
	json_decref(j);
	return DOCKER_OK;
}

enum docker_error docker_codec_parse_list(const char *body, size_t len, char ***ids, size_t *n,
					  char **err)
{
	return docker_codec_parse_ids(body, len, "Id", "container list", ids, n, err);
}
