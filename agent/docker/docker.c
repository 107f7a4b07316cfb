#include "docker.h"

#include <curl/curl.h>
#include <string.h>

#include "docker_call.h"
#include "docker_codec.h"
#include "log.h"
#include "macro.h"

/* Replies of ordinary calls (info, inspect, lists) stay far below this. */
#define DOCKER_REPLY_MAX (4u << 20)
#define DOCKER_DEFAULT_TIMEOUT_MS 30000L

struct docker {
	struct docker_endpoint ep;
	long timeout_ms;
};

int docker_open(const struct docker_options *opts, struct docker **out, char **err)
{
	struct docker *d = xcalloc(1, sizeof(*d));
	const char *host = opts && opts->host ? opts->host
			 : opts && opts->socket_path ? opts->socket_path : DOCKER_DEFAULT_SOCKET;

	*out = NULL;
	if (docker_endpoint_parse(host, opts ? &opts->tls : NULL, &d->ep, err) < 0) {
		free(d);
		return -EINVAL;
	}
	d->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DOCKER_DEFAULT_TIMEOUT_MS;
	*out = d;
	return 0;
}

struct docker *docker_new(const struct docker_options *opts)
{
	struct docker *d = NULL;
	char *err = NULL;

	if (docker_open(opts, &d, &err) < 0) {
		log_warnx("%s", err);
		free(err);
	}
	return d;
}

void docker_free(struct docker *d)
{
	if (!d)
		return;
	docker_endpoint_clear(&d->ep);
	free(d);
}

const char *docker_endpoint_name(const struct docker *d) { return d->ep.name; }

const struct docker_endpoint *docker_endpoint(const struct docker *d) { return &d->ep; }

bool docker_is_local(const struct docker *d) { return docker_endpoint_is_local(&d->ep); }

/* One request with the client's socket and limits. */
enum docker_error docker_call(struct docker *d, const char *method, const char *path,
			      const char *json_body, long timeout_ms, struct docker_http_reply *r,
			      char **err)
{
	_cleanup_free_ char *full = xasprintf(DOCKER_API_PREFIX "%s", path);
	struct docker_http_request req = {
		.method = method,
		.path = full,
		.content_type = json_body ? "application/json" : NULL,
		.body = json_body,
		.body_len = json_body ? strlen(json_body) : 0,
		.timeout_ms = timeout_ms < 0 ? 0 : (timeout_ms ? timeout_ms : d->timeout_ms),
		.max_reply = DOCKER_REPLY_MAX,
	};
	return docker_http_call(&d->ep, &req, r, err);
}

/* Maps an HTTP error status to a typed error with Docker's own message. */
enum docker_error docker_status_error(const char *what, const struct docker_http_reply *r,
				      char **err)
{
	_cleanup_free_ char *m = docker_codec_error_message(r->body, r->len);

	*err = xasprintf("Docker refused to %s (HTTP %ld): %s", what, r->status, m);
	switch (r->status) {
	case 404: return DOCKER_ERR_NOT_FOUND;
	case 409: return DOCKER_ERR_CONFLICT;
	case 400: return DOCKER_ERR_BAD_REQUEST;
	default: return DOCKER_ERR_SERVER;
	}
}

enum docker_error docker_ping(struct docker *d, char **err)
{
	struct docker_http_reply r;
	/* A liveness probe: never longer than 5 s, shorter when the client is. */
	enum docker_error e = docker_call(d, "GET", "/_ping", NULL, d->timeout_ms < 5000 ? d->timeout_ms : 5000,
				   &r, err);

	if (e)
		return e;
	if (r.status != 200 || strcmp(r.body, "OK") != 0) {
		*err = xasprintf("Docker at %s answered /_ping with HTTP %ld '%.60s' instead of "
				 "OK: is docker.socket in config/agent.yaml a Docker engine?",
				 d->ep.name, r.status, r.body);
		e = DOCKER_ERR_PROTOCOL;
	}
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_version(struct docker *d, struct docker_version *out, char **err)
{
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", "/version", NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_version(r.body, r.len, out, err)
			    : docker_status_error("report its version", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_info(struct docker *d, struct docker_info *out, char **err)
{
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", "/info", NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_info(r.body, r.len, out, err)
			    : docker_status_error("report its info", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

char *docker_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *copy;

	if (!e)
		abort();
	copy = xstrdup(e);
	curl_free(e);
	return copy;
}

static enum docker_error image_missing(const char *ref, char **err)
{
	*err = xasprintf("image %s not found: build it with packaging/sandbox-image/build.sh "
			 "or set sandbox.image in config/sandbox.yaml", ref);
	return DOCKER_ERR_IMAGE_NOT_FOUND;
}

enum docker_error docker_image_inspect(struct docker *d, const char *ref, struct docker_image *out,
				       char **err)
{
	_cleanup_free_ char *esc = docker_escape(ref);
	_cleanup_free_ char *path = xasprintf("/images/%s/json", esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	if (r.status == 200)
		e = docker_codec_parse_image(r.body, r.len, out, err);
	else if (r.status == 404)
		e = image_missing(ref, err);
	else
		e = docker_status_error("inspect the image", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

/* Docker reports an unknown runtime as a 400/500 with this wording. */
static bool mentions_runtime(const struct docker_http_reply *r)
{
	return strstr(r->body, "runtime") || strstr(r->body, "Runtime");
}

enum docker_error docker_container_create(struct docker *d, const struct docker_create_params *p,
					  char **id, char **err)
{
	_cleanup_free_ char *body = docker_codec_create_body(p);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", "/containers/create", body, 0, &r, err);

	*id = NULL;
	if (e)
		return e;
	if (r.status == 201) {
		e = docker_codec_parse_create(r.body, r.len, id, err);
	} else if (r.status == 404) {
		e = image_missing(p->image, err);
	} else if (mentions_runtime(&r) && r.status != 409) {
		_cleanup_free_ char *m = docker_codec_error_message(r.body, r.len);
		*err = xasprintf("Docker has no runtime '%s' (%s): install it and register it in "
				 "dockerd's daemon.json, or choose another runtime in "
				 "config/sandbox.yaml", p->runtime ? p->runtime : "runc", m);
		e = DOCKER_ERR_RUNTIME_MISSING;
	} else {
		e = docker_status_error("create the container", &r, err);
	}
	docker_http_reply_clear(&r);
	return e;
}

/* POST /containers/ID/ACTION for the calls whose success is 204 (or 304:
 * already in that state). */
static enum docker_error container_action(struct docker *d, const char *id, const char *action,
					  const char *query, char **err)
{
	_cleanup_free_ char *path = xasprintf("/containers/%s/%s%s", id, action, query ? query : "");
	_cleanup_free_ char *what = xasprintf("%s container %.12s", action, id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", path, NULL, 0, &r, err);

	if (e)
		return e;
	if (r.status != 204 && r.status != 304)
		e = docker_status_error(what, &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_start(struct docker *d, const char *id, char **err)
{
	return container_action(d, id, "start", NULL, err);
}

enum docker_error docker_container_update(struct docker *d, const char *id, int64_t memory_bytes,
					  int64_t nano_cpus, int64_t pids_limit, char **err)
{
	_cleanup_free_ char *body = docker_codec_update_body(memory_bytes, nano_cpus, pids_limit);
	_cleanup_free_ char *path = xasprintf("/containers/%s/update", id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", path, body, 0, &r, err);

	if (e)
		return e;
	if (r.status != 200)
		e = docker_status_error("update the container's limits", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_kill(struct docker *d, const char *id, const char *signal,
					char **err)
{
	_cleanup_free_ char *q = xasprintf("?signal=%s", signal);
	enum docker_error e = container_action(d, id, "kill", q, err);

	/* 409: not running. The caller wanted it stopped: it is. */
	if (e == DOCKER_ERR_CONFLICT) {
		free(*err);
		*err = NULL;
		e = DOCKER_OK;
	}
	return e;
}

enum docker_error docker_container_attach(struct docker *d, const char *id,
					  struct docker_stream **out, char **err)
{
	_cleanup_free_ char *path = xasprintf(DOCKER_API_PREFIX "/containers/%s/attach?stream=1&"
					      "stdin=1&stdout=1&stderr=1", id);
	return docker_stream_open(&d->ep, "POST", path, d->timeout_ms, out, err);
}

enum docker_error docker_container_wait(struct docker *d, const char *id, long timeout_ms,
					int64_t *status_code, char **err)
{
	_cleanup_free_ char *path = xasprintf("/containers/%s/wait?condition=not-running", id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", path, NULL, timeout_ms > 0 ? timeout_ms : -1, &r, err);

	*status_code = -1;
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_wait(r.body, r.len, status_code, err)
			    : docker_status_error("wait for the container", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_remove(struct docker *d, const char *id, char **err)
{
	_cleanup_free_ char *path = xasprintf("/containers/%s?force=1&v=1", id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "DELETE", path, NULL, 0, &r, err);

	if (e)
		return e;
	/* 404: already gone, which is what the caller wants. 409: removal
	 * already in progress (another remover); not ours to report. */
	if (r.status != 204 && r.status != 404 && r.status != 409)
		e = docker_status_error("remove the container", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_inspect(struct docker *d, const char *id,
					   struct docker_container_state *out, char **err)
{
	_cleanup_free_ char *path = xasprintf("/containers/%s/json", id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_container(r.body, r.len, out, err)
			    : docker_status_error("inspect the container", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_stats(struct docker *d, const char *id, struct docker_stats *out,
					 char **err)
{
	_cleanup_free_ char *path = xasprintf("/containers/%s/stats?stream=false&one-shot=true", id);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_stats(r.body, r.len, out, err)
			    : docker_status_error("report container stats", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_container_list_by_label(struct docker *d, const char *key,
						 const char *value, char ***ids, size_t *n,
						 char **err)
{
	_cleanup_free_ char *filter = docker_codec_label_filter(key, value);
	_cleanup_free_ char *esc = docker_escape(filter);
	_cleanup_free_ char *path = xasprintf("/containers/json?all=1&filters=%s", esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	*ids = NULL;
	*n = 0;
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_list(r.body, r.len, ids, n, err)
			    : docker_status_error("list containers", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_network_create_internal(struct docker *d, const char *name,
						 const char *bridge,
						 const struct docker_label *labels,
						 size_t n_labels, char **id, char **err)
{
	_cleanup_free_ char *body = docker_codec_network_create_body(name, bridge, labels,
								     n_labels);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "POST", "/networks/create", body, 0, &r, err);

	*id = NULL;
	if (e)
		return e;
	e = r.status == 201 ? docker_codec_parse_network_create(r.body, r.len, id, err)
			    : docker_status_error("create the network", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_network_inspect(struct docker *d, const char *name,
					 struct docker_network *out, char **err)
{
	_cleanup_free_ char *esc = docker_escape(name);
	_cleanup_free_ char *path = xasprintf("/networks/%s", esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "GET", path, NULL, 0, &r, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	e = r.status == 200 ? docker_codec_parse_network(r.body, r.len, out, err)
			    : docker_status_error("inspect the network", &r, err);
	docker_http_reply_clear(&r);
	return e;
}

enum docker_error docker_network_remove(struct docker *d, const char *name, char **err)
{
	_cleanup_free_ char *esc = docker_escape(name);
	_cleanup_free_ char *path = xasprintf("/networks/%s", esc);
	struct docker_http_reply r;
	enum docker_error e = docker_call(d, "DELETE", path, NULL, 0, &r, err);

	if (e)
		return e;
	if (r.status != 204 && r.status != 404)
		e = docker_status_error("remove the network", &r, err);
	docker_http_reply_clear(&r);
	return e;
}
