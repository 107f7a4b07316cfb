/* A run's result: the names of its verdicts, the "execution" object of
 * result.json, and freeing it. */
#include "sandbox_result.h"

#include <string.h>

#include "macro.h"

const char *sandbox_verdict_to_string(enum sandbox_verdict v)
{
	switch (v) {
	case SANDBOX_VERDICT_EXITED: return "exited";
	case SANDBOX_VERDICT_TIMEOUT: return "timeout";
	case SANDBOX_VERDICT_OOM_KILLED: return "oom_killed";
	case SANDBOX_VERDICT_OUTPUT_LIMIT: return "output_limit";
	case SANDBOX_VERDICT_PIDS_LIMIT: return "pids_limit";
	case SANDBOX_VERDICT_SANDBOX_ERROR: return "sandbox_error";
	}
	return "unknown";
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when invalid. */
static size_t utf8_sequence(const unsigned char *p, size_t left)
{
	size_t n;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) { n = 2; cp = p[0] & 0x1f; }
	else if ((p[0] & 0xf0) == 0xe0) { n = 3; cp = p[0] & 0x0f; }
	else if ((p[0] & 0xf8) == 0xf0) { n = 4; cp = p[0] & 0x07; }
	else return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* Script output is arbitrary bytes; JSON strings are UTF-8. Invalid bytes
 * (and NUL, which jansson refuses in C strings) become U+FFFD. */
static json_t *text_json(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	char *buf = xmalloc(len * 3 + 1), *o = buf;
	json_t *j;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence(p + i, len - i);
		if (n == 0 || p[i] == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(o, p + i, n);
		o += n;
		i += n;
	}
	j = json_stringn(buf, (size_t)(o - buf));
	free(buf);
	return j ? j : json_string("");
}

static json_t *output_json(const struct sandbox_output *o)
{
	return json_pack("{s:o, s:I, s:I, s:b}",
			 "text", text_json(o->data ? o->data : "", o->len),
			 "bytes_kept", (json_int_t)o->len,
			 "bytes", (json_int_t)o->total,
			 "truncated", o->truncated);
}

static json_t *limits_json(const struct sandbox_limits *l)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "memory_bytes", (json_int_t)l->memory_bytes,
			 "nano_cpus", (json_int_t)l->nano_cpus,
			 "pids", (json_int_t)l->pids,
			 "tmpfs_bytes", (json_int_t)l->tmpfs_bytes,
			 "nofile", (json_int_t)l->nofile,
			 "fsize_bytes", (json_int_t)l->fsize_bytes,
			 "timeout_ms", (json_int_t)l->timeout_ms,
			 "stdout_max", (json_int_t)l->stdout_max,
			 "stderr_max", (json_int_t)l->stderr_max);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *sandbox_result_to_json(const struct sandbox_result *r)
{
	json_t *j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:o, s:s, s:o,"
			      " s:o, s:o, s:o, s:i, s:o}",
			      "verdict", sandbox_verdict_to_string(r->verdict),
			      "exit_code", r->exit_code >= 0 ? json_integer(r->exit_code) : json_null(),
			      "signal", r->signal ? json_integer(r->signal) : json_null(),
			      "stdout", output_json(&r->out),
			      "stderr", output_json(&r->err),
			      "wall_ms", (json_int_t)r->wall_ms,
			      "cpu_ms", (json_int_t)r->cpu_ms,
			      "peak_memory_bytes", (json_int_t)r->peak_memory_bytes,
			      "pids_peak", (json_int_t)r->pids_peak,
			      "limits", limits_json(&r->limits),
			      "trust", trust_to_string(r->trust),
			      "runtime", str_or_null(r->runtime),
			      "image", str_or_null(r->image),
			      "image_id", str_or_null(r->image_id),
			      "docker_version", str_or_null(r->docker_version),
			      "cgroup_version", r->cgroup_version,
			      "message", str_or_null(r->message));
	if (!j)
		abort(); /* a json_pack format error is a programming error */
	json_object_set_new(j, "uid", r->run_uid ? json_integer(r->run_uid) : json_null());
	json_object_set_new(j, "seccomp", str_or_null(r->seccomp));
	if (r->dependencies)
		json_object_set(j, "dependencies", r->dependencies);
	if (r->engine)
		json_object_set_new(j, "engine",
				    json_pack("{s:s, s:o, s:o, s:s, s:o}", "name", r->engine,
					      "host", str_or_null(r->endpoint),
					      "node", str_or_null(r->node),
					      "end_from", r->ended_by_kernel ? "kernel" : "engine",
					      "usage_from", str_or_null(r->usage_source)));
	return j;
}

void sandbox_result_clear(struct sandbox_result *r)
{
	free(r->out.data);
	free(r->err.data);
	free(r->runtime);
	free(r->image);
	free(r->image_id);
	free(r->docker_version);
	free(r->container_id);
	free(r->engine);
	free(r->endpoint);
	free(r->node);
	free(r->message);
	json_decref(r->dependencies);
	memset(r, 0, sizeof(*r));
}
