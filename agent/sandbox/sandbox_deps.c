#include "sandbox_deps.h"

#include <string.h>

#include "docker.h"
#include "macro.h"

#define DEPS_MARK "\x1eMAI-DEPS "
/* A slow machine starts python slowly: not a TOML error. */
#define PARSE_TIMEOUT_MS 30000

/* Runs in the pip image: skips the bootstrap's header and name, parses the
 * rest of stdin (the block's content) with tomllib and prints the table as
 * JSON (dates as strings). */
static const char toml_parser[] =
	"import sys, json, tomllib\n"
	"h = sys.stdin.buffer.readline().split()\n"
	"sys.stdin.buffer.read(int(h[0]))\n"
	"try:\n"
	"    t = tomllib.loads(sys.stdin.buffer.read().decode('utf-8'))\n"
	"    print(json.dumps({'ok': True, 'table': t}, default=str))\n"
	"except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:\n"
	"    print(json.dumps({'ok': False, 'error': str(e)}))\n";

/* "http://host:port/simple" -> "host:port": pip takes a plain-HTTP index
 * only when its host is named trusted (the configured index is). */
static char *http_netloc(const char *url)
{
	const char *h, *end, *at;

	if (strncmp(url, "http://", 7) != 0)
		return NULL;
	h = url + 7;
	end = h + strcspn(h, "/?#");
	at = memchr(h, '@', (size_t)(end - h));
	if (at)
		h = at + 1;
	return xstrndup(h, (size_t)(end - h));
}

char *sandbox_deps_spec(const struct sandbox_pip *pip, const struct sandbox_job *job)
{
	json_t *deps = json_array();
	_cleanup_free_ char *trusted = http_netloc(pip->index_url);
	char *s;

	for (size_t i = 0; i < job->n_dependencies; i++)
		json_array_append_new(deps, json_string(job->dependencies[i]));
	json_t *j = json_pack("{s:o, s:s, s:o, s:f, s:s}", "dependencies", deps, "index_url",
			      pip->index_url, "trusted_host",
			      trusted ? json_string(trusted) : json_null(), "timeout",
			      (double)pip->install_timeout_ms / 1000.0, "target", DOCKER_DEPS_DIR);
	s = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(j);
	if (!s)
		abort();
	return s;
}

/* The last non-empty line of pip's log, for a one-line message. */
static char *last_line(const char *log)
{
	size_t n = log ? strlen(log) : 0;

	while (n && (log[n - 1] == '\n' || log[n - 1] == ' '))
		n--;
	size_t start = n;
	while (start && log[start - 1] != '\n')
		start--;
	return xstrndup(log ? log + start : "", n - start > 300 ? 300 : n - start);
}

void sandbox_deps_collect(struct sandbox_result *r)
{
	struct sandbox_output *o = &r->out;
	size_t mark = strlen(DEPS_MARK);
	const char *nl = o->data && o->len >= mark && memcmp(o->data, DEPS_MARK, mark) == 0
				 ? memchr(o->data, '\n', o->len) : NULL;
	json_t *rep = nl ? json_loadb(o->data + mark, (size_t)(nl - o->data) - mark, 0, NULL) : NULL;

	if (nl) {
		size_t cut = (size_t)(nl - o->data) + 1;
		memmove(o->data, o->data + cut, o->len - cut + 1);
		o->len -= cut;
		o->total -= cut;
	}
	if (!json_is_object(rep)) {
		json_decref(rep);
		if (r->verdict != SANDBOX_VERDICT_EXITED)
			return; /* killed before pip was done: the verdict says why */
		rep = json_pack("{s:b, s:s}", "ok", 0, "error",
				"the dependency installer gave no report (is stdout_max in "
				"config/sandbox.yaml too small for it?)");
	}
	r->dependencies = rep;
	if (json_is_true(json_object_get(rep, "ok")) || r->verdict != SANDBOX_VERDICT_EXITED)
		return;
	_cleanup_free_ char *why = last_line(json_string_value(json_object_get(rep, "log")));
	json_t *status = json_object_get(rep, "status");
	free(r->message);
	r->message = xasprintf("installing the script's PEP 723 dependencies failed%s: %s; "
			       "check that network.index_url and every host pip fetches from are "
			       "in network.allowed_hosts (config/sandbox.yaml); the proxy logs "
			       "what it refused in state_dir/proxy/tinyproxy.log",
			       json_is_string(status) ? " (install_timeout reached)" : "",
			       *why ? why : json_string_value(json_object_get(rep, "error")) ?: "");
}

int sandbox_deps_parse_toml(const struct sandbox_runner *runner, const struct sandbox_pip *pip,
			    const char *toml, size_t len, json_t **table, char **err)
{
	const struct sandbox_run_mode mode = { .min_timeout_ms = PARSE_TIMEOUT_MS,
					       .no_network = true, .image = pip->image,
					       .program = toml_parser };
	struct sandbox_job job = { .job_id = "pep723", .file_name = "pep723.toml",
				   .code = (const uint8_t *)toml, .len = len,
				   .trust = TRUST_UNTRUSTED };
	struct sandbox_result r;
	json_t *j = NULL;
	int rc = 0;

	*table = NULL;
	if (!pip->image_id) {
		*err = xasprintf("the image %s that reads it (with tomllib) is missing from the "
				 "engine: build it with packaging/sandbox-image/build.sh --variant "
				 "pip, or set network.image in config/sandbox.yaml", pip->image);
		return -ENOENT;
	}
	if (runner->run(runner->ctx, &job, &mode, &r) < 0 || r.verdict != SANDBOX_VERDICT_EXITED ||
	    r.exit_code != 0 || r.out.truncated ||
	    !(j = json_loadb(r.out.data, r.out.len, 0, NULL))) {
		*err = xasprintf("parsing the PEP 723 block in a container failed (%s: %s; "
				 "stderr: %.200s)", sandbox_verdict_to_string(r.verdict),
				 r.message ? r.message : r.out.truncated ? "output too large" : "no JSON",
				 r.err.data ? r.err.data : "");
		rc = -EIO;
	} else if (!json_is_true(json_object_get(j, "ok"))) {
		const char *e = json_string_value(json_object_get(j, "error"));
		*err = xasprintf("the PEP 723 block is not valid TOML: %s", e ? e : "unknown error");
		rc = -EINVAL;
	} else {
		*table = json_incref(json_object_get(j, "table"));
	}
	json_decref(j);
	sandbox_result_clear(&r);
	return rc;
}
