/* Held scripts as the commands see them (held.h). */
#include "held.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "account.h"
#include "fileio.h"
#include "intake.h"
#include "names.h"
#include "place.h"
#include "result.h"

/* A result carries the script's output; this is far above any result the
 * agent writes with its default caps. */
#define RESULT_READ_MAX ((size_t)256 << 20)

uid_t held_agent_uid(const struct mai_config *cfg)
{
	struct stat st;
	return stat(cfg->agent.state_dir, &st) == 0 ? st.st_uid : 0;
}

json_t *held_read_result(int dfd, const char *side, const char *rel, const char *sha256,
			 uid_t agent_uid, const char **why)
{
	struct stat st;
	_cleanup_free_ char *text = NULL;
	size_t len;

	_cleanup_close_ int fd = openat(dfd, side, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
						   O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ENOENT ? "the agent has not answered this script yet"
				       : "its result cannot be opened";
		return NULL;
	}
	/* The agent's own, or given by it to the script's writer (its mark). */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != agent_uid && !dirwrite_fd_marked(fd, side))) {
		*why = "its result sidecar is not the agent's (another user's file, a link or not "
		       "a regular file)";
		return NULL;
	}
	if (fileio_read_fd(fd, RESULT_READ_MAX, &text, &len) < 0) {
		*why = "its result cannot be read";
		return NULL;
	}
	json_t *o = json_loadb(text, len, 0, NULL);
	const char *file = json_string_value(json_object_get(o, "file"));
	const char *sha = json_string_value(json_object_get(o, "sha256"));
	if (!o || !file || strcmp(file, rel) != 0) {
		*why = "its result is not about this script";
		json_decref(o);
		return NULL;
	}
	if (!sha || strcmp(sha, sha256) != 0) {
		*why = "the agent has not answered the content it has now (it changed since, or "
		       "is still being assessed)";
		json_decref(o);
		return NULL;
	}
	return o;
}

void held_clear(struct held *h)
{
	free(h->rel);
	free(h->path);
	free(h->writer);
	json_decref(h->result);
	memset(h, 0, sizeof(*h));
}

int held_load(const char *drop_dir, const char *rel, uid_t agent_uid, size_t max_size,
	      struct held *h, char **err)
{
	const char *base = rel;
	struct intake_options io = { .max_size = max_size };
	struct intake_snapshot snap;
	int e = 0;

	memset(h, 0, sizeof(*h));
	_cleanup_close_ int dfd = place_open_parent(drop_dir, rel, &base);
	if (dfd < 0) {
		*err = xasprintf("cannot open the directory of %s in %s: %s", rel, drop_dir,
				 strerror(-dfd));
		return dfd;
	}
	enum intake_status s = intake_read(dfd, base, &io, &snap, &e);
	if (s != INTAKE_OK) {
		*err = xasprintf("cannot read %s/%s: %s%s%s", drop_dir, rel,
				 intake_status_message(s), e ? " " : "", e ? strerror(e) : "");
		return s == INTAKE_IO_ERROR ? -e : -EINVAL;
	}
	h->rel = xstrdup(rel);
	h->path = xasprintf("%s/%s", drop_dir, rel);
	memcpy(h->sha256, snap.sha256, sizeof(h->sha256));
	h->size = snap.len;
	h->writer_uid = snap.uid;
	h->writer = account_user_label(snap.uid);
	intake_snapshot_clear(&snap);
	_cleanup_free_ char *side = names_result_sidecar(base, RESULT_SUFFIX);
	h->result = held_read_result(dfd, side, rel, h->sha256, agent_uid, &h->no_result);
	return 0;
}

const char *held_state(const struct held *h)
{
	return h->result ? json_string_value(json_object_get(h->result, "state")) : NULL;
}

bool held_is_held(const struct held *h)
{
	const char *s = held_state(h);
	return s && (strcmp(s, "awaiting_confirmation") == 0 || strcmp(s, "blocked") == 0);
}

static int severity_rank(const json_t *f)
{
	static const char *const order[] = { "CRITICAL", "HIGH", "MEDIUM", "LOW" };
	const char *s = json_string_value(json_object_get(f, "severity"));
	for (size_t i = 0; s && i < ARRAY_SIZE(order); i++)
		if (strcmp(s, order[i]) == 0)
			return (int)i;
	return (int)ARRAY_SIZE(order);
}

static int by_severity(const void *a, const void *b)
{
	const json_t *fa = *(json_t *const *)a, *fb = *(json_t *const *)b;
	int d = severity_rank(fa) - severity_rank(fb);
	if (d)
		return d;
	double sa = json_number_value(json_object_get(fa, "score"));
	double sb = json_number_value(json_object_get(fb, "score"));
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return (int)(json_integer_value(json_object_get(fa, "line")) -
		     json_integer_value(json_object_get(fb, "line")));
}

json_t *held_top_findings(const struct held *h, size_t max)
{
	json_t *all = json_object_get(json_object_get(h->result, "assessment"), "findings");
	size_t n = json_array_size(all);
	json_t *out = json_array();
	if (n == 0)
		return out;
	json_t **v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(all, i);
	qsort(v, n, sizeof(*v), by_severity);
	for (size_t i = 0; i < n && i < max; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

void held_print_findings(FILE *out, json_t *findings)
{
	size_t i;
	json_t *f;
	if (json_array_size(findings) == 0)
		fprintf(out, "    (no findings)\n");
	json_array_foreach(findings, i, f) {
		const char *msg = json_string_value(json_object_get(f, "message"));
		_cleanup_free_ char *shown = names_printable(msg ? msg : "");
		fprintf(out, "    %s %s line %lld: %s\n",
			json_string_value(json_object_get(f, "rule_id")) ?
				json_string_value(json_object_get(f, "rule_id")) : "?",
			json_string_value(json_object_get(f, "severity")) ?
				json_string_value(json_object_get(f, "severity")) : "?",
			(long long)json_integer_value(json_object_get(f, "line")), shown);
	}
}

char *held_shell_quote(const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "/._-+,:@%") == strlen(s))
		return xstrdup(s);
	size_t n = 2;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *out = xmalloc(n + 1), *o = out;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

char *held_command(const struct held *h)
{
	_cleanup_free_ char *q = held_shell_quote(h->path);
	const char *s = held_state(h);
	if (s && strcmp(s, "blocked") == 0)
		return xasprintf("mai-agent override %s --reason 'why it must run'", q);
	return xasprintf("mai-agent approve %s", q);
}
