/* Content of the maiaudit files, built at open. See view_content.h. */
#include "view_content.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <jansson.h>

#include "audit_stats.h"
#include "daemon_metrics.h"
#include "daemon_status.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "place.h"

#define RESULT_SUFFIX ".result.json"
#define AUDIT_SUFFIX ".audit"

struct view_ctx {
	struct view_log *log;
	char *state_dir;
	char *drop_dir;
	/* Sizes of the last content built per node, for getattr (see
	 * view_content_size). Only the recomputed-at-open nodes use it. */
	pthread_mutex_t size_lock;
	size_t last_len[VIEW_NODE_RUN_AUDIT + 1];
	bool have_len[VIEW_NODE_RUN_AUDIT + 1];
};

struct view_ctx *view_ctx_new(struct view_log *log, const char *state_dir, const char *drop_dir)
{
	struct view_ctx *ctx = xcalloc(1, sizeof(*ctx));
	ctx->log = log;
	ctx->state_dir = xstrdup(state_dir);
	ctx->drop_dir = drop_dir ? xstrdup(drop_dir) : NULL;
	pthread_mutex_init(&ctx->size_lock, NULL);
	return ctx;
}

void view_ctx_free(struct view_ctx *ctx)
{
	if (!ctx)
		return;
	view_log_free(ctx->log);
	pthread_mutex_destroy(&ctx->size_lock);
	free(ctx->state_dir);
	free(ctx->drop_dir);
	free(ctx);
}

void view_file_free(struct view_file *f)
{
	if (!f)
		return;
	free(f->data);
	free(f);
}

size_t view_file_read(const struct view_file *f, char *buf, size_t size, off_t off)
{
	if (off < 0 || (uint64_t)off >= f->len)
		return 0;
	size_t n = f->len - (size_t)off;
	if (n > size)
		n = size;
	memcpy(buf, f->data + off, n);
	return n;
}

static bool is_recomputed(enum view_node node)
{
	return node == VIEW_NODE_VERIFY || node == VIEW_NODE_VERIFY_JSON ||
	       node == VIEW_NODE_STATUS || node == VIEW_NODE_METRICS;
}

/* Takes ownership of a malloc'd JSON object and turns it into file text. */
static char *json_text(json_t *j, size_t *len)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(j);
	if (!s)
		abort(); /* only on allocation failure: same policy as xmalloc */
	char *out = xasprintf("%s\n", s);
	free(s);
	*len = strlen(out);
	return out;
}

/* status.json as the agent wrote it, or an explanation when it is absent,
 * unreadable or left behind by an agent that is gone. */
static char *build_status(struct view_ctx *ctx, size_t *len)
{
	_cleanup_free_ char *path = xasprintf("%s/status.json", ctx->state_dir);
	_cleanup_free_ char *data = NULL;
	size_t n = 0;
	int r = fileio_read_path(path, VIEW_FILE_MAX, &data, &n);
	if (r == -ENOENT) {
		_cleanup_free_ char *msg = xasprintf(
			"the agent is not running: %s does not exist; start it with "
			"'mai-agent run' (or check --state-dir)", path);
		return json_text(json_pack("{s:b, s:s, s:s}", "running", 0, "message", msg,
					   "state_dir", ctx->state_dir), len);
	}
	if (r < 0) {
		_cleanup_free_ char *msg = xasprintf("cannot read %s: %s", path, strerror(-r));
		return json_text(json_pack("{s:n, s:s}", "running", "error", msg), len);
	}
	json_error_t jerr;
	json_t *j = json_loadb(data, n, 0, &jerr);
	if (!j || !json_is_object(j)) {
		_cleanup_free_ char *msg = xasprintf(
			"%s is not a JSON object (line %d, column %d: %s); the agent writes it "
			"atomically, so something else changed it", path, jerr.line, jerr.column,
			j ? "not an object" : jerr.text);
		json_decref(j);
		return json_text(json_pack("{s:n, s:s}", "running", "error", msg), len);
	}
	/* An agent killed with SIGKILL leaves its last status behind, and a
	 * stuck one stops rewriting it: say so rather than show a healthy agent
	 * that is not there (the same judgement as 'mai-agent status'). */
	json_t *pid = json_object_get(j, "pid");
	struct stat st;
	long long age = stat(path, &st) == 0 ? (long long)(time(NULL) - st.st_mtime) : -1;
	enum daemon_liveness live = json_is_integer(pid) && json_integer_value(pid) > 0
					    ? daemon_liveness(json_integer_value(pid), age)
					    : DAEMON_RUNNING;
	if (live != DAEMON_RUNNING) {
		_cleanup_free_ char *msg =
			live == DAEMON_GONE
				? xasprintf("the agent is not running: process %lld that wrote %s is "
					    "gone; restart it with 'mai-agent run'",
					    (long long)json_integer_value(pid), path)
				: xasprintf("the agent is not answering: process %lld that wrote %s "
					    "is alive but has not rewritten it for %lld s (it does "
					    "every second): it is stuck or is not the agent; see the "
					    "agent log", (long long)json_integer_value(pid), path, age);
		return json_text(json_pack("{s:b, s:s, s:o}", "running", 0, "message", msg,
					   "last_status", j), len);
	}
	json_decref(j);
	if (n == 0 || data[n - 1] != '\n') {
		*len = n + 1;
		char *out = xasprintf("%s\n", data);
		return out;
	}
	*len = n;
	return steal_pointer(&data);
}

/* The agent's metrics (daemon_metrics.h) from status.json and the log
 * directory this view reads, whatever state the agent is in. */
static char *build_metrics(struct view_ctx *ctx, size_t *len)
{
	struct daemon_metrics_input in = { .now = time(NULL), .status_age_s = -1 };
	struct audit_stats audit;
	json_t *st = NULL;

	daemon_status_read(ctx->state_dir, &st, &in.status_age_s, &in.live);
	in.status = st;
	if (audit_stats_read(view_log_dir(ctx->log), &audit) == 0)
		in.audit = &audit;
	char *text = daemon_metrics_render(&in);
	json_decref(st);
	*len = strlen(text);
	return text;
}

/* The agent's uid: the owner of its state directory (root when that cannot
 * be seen). A sidecar of anyone else is not the agent's answer. */
static uid_t agent_uid(const struct view_ctx *ctx)
{
	struct stat st;
	return stat(ctx->state_dir, &st) == 0 ? st.st_uid : 0;
}

/* Opens a regular file without following a symlink and without blocking on
 * a FIFO; fd, or -ENOENT for anything else. */
static int open_regular(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -ENOENT : -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* Opens a run's sidecar: the agent's own file in the drop directory, else
 * the copy the agent keeps in its state directory when the drop directory
 * refused it (place.h: a FIFO, a symlink or another user's file sat at its
 * name). Another user's file in the drop directory is never shown as the
 * agent's answer. */
static int open_sidecar(struct view_ctx *ctx, const char *name, size_t name_len,
			const char *suffix, struct stat *st)
{
	if (!ctx->drop_dir || !view_run_name_valid(name, name_len))
		return -ENOENT;
	_cleanup_free_ char *file = xasprintf("%.*s%s", (int)name_len, name, suffix);
	_cleanup_close_ int dfd = open(ctx->drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	int fd = open_regular(dfd, file, st);
	/* The agent's own, or given by it to the script's writer (its mark). */
	if (fd >= 0 && st->st_nlink == 1 &&
	    (st->st_uid == agent_uid(ctx) || dirwrite_fd_marked(fd, file)))
		return fd;
	if (fd >= 0)
		close(fd);
	_cleanup_free_ char *fb = xasprintf("%s/%s", ctx->state_dir, PLACE_FALLBACK_DIR);
	_cleanup_free_ char *fb_name = place_fallback_name(file);
	_cleanup_close_ int fbfd = open(fb, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fbfd < 0 ? -ENOENT : open_regular(fbfd, fb_name, st);
}

static int build_sidecar(struct view_ctx *ctx, const struct view_path *p, const char *suffix,
			 char **data, size_t *len)
{
	struct stat st;
	_cleanup_close_ int fd = open_sidecar(ctx, p->run_name, p->run_name_len, suffix, &st);
	if (fd < 0)
		return fd;
	int r = fileio_read_fd(fd, VIEW_FILE_MAX, data, len);
	if (r < 0)
		log_warnx("cannot read %s/%.*s%s: %s", ctx->drop_dir, (int)p->run_name_len,
			  p->run_name, suffix, strerror(-r));
	return r;
}

bool view_run_exists(struct view_ctx *ctx, const struct view_path *p)
{
	struct stat st;
	const char *suffix = p->node == VIEW_NODE_RUN_AUDIT ? AUDIT_SUFFIX : RESULT_SUFFIX;
	int fd = open_sidecar(ctx, p->run_name, p->run_name_len, suffix, &st);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int build_log_text(struct view_ctx *ctx, const struct view_path *p, char **data,
			  size_t *len)
{
	_cleanup_free_ char *err = NULL;
	int r;
	switch (p->node) {
	case VIEW_NODE_ENTRY:
		r = view_log_entry(ctx->log, p->seq, data, len, &err);
		break;
	case VIEW_NODE_HEAD:
		r = view_log_head(ctx->log, data, len, &err);
		break;
	default:
		r = view_log_checkpoint(ctx->log, data, len, &err);
		break;
	}
	if (r < 0 && err)
		log_warnx("%s: %s", view_node_to_string(p->node), err);
	return r;
}

int view_content_build(struct view_ctx *ctx, const struct view_path *p, struct view_file **out)
{
	char *data = NULL;
	size_t len = 0;
	int r = 0;

	switch (p->node) {
	case VIEW_NODE_VERIFY:
	case VIEW_NODE_VERIFY_JSON:
		view_log_verify(ctx->log, p->node == VIEW_NODE_VERIFY_JSON, &data, &len);
		break;
	case VIEW_NODE_STATUS:
		data = build_status(ctx, &len);
		break;
	case VIEW_NODE_METRICS:
		data = build_metrics(ctx, &len);
		break;
	case VIEW_NODE_PUBKEY: {
		_cleanup_free_ char *key = view_log_pubkey_path(ctx->log);
		r = fileio_read_path(key, VIEW_FILE_MAX, &data, &len);
		if (r < 0)
			log_warnx("pubkey: cannot read %s: %s; pass the key with --pubkey",
				  key, strerror(-r));
		break;
	}
	case VIEW_NODE_HEAD:
	case VIEW_NODE_CHECKPOINT:
	case VIEW_NODE_ENTRY:
		r = build_log_text(ctx, p, &data, &len);
		break;
	case VIEW_NODE_RUN_RESULT:
		r = build_sidecar(ctx, p, RESULT_SUFFIX, &data, &len);
		break;
	case VIEW_NODE_RUN_AUDIT:
		r = build_sidecar(ctx, p, AUDIT_SUFFIX, &data, &len);
		break;
	default:
		return -EISDIR;
	}
	if (r < 0)
		return r;
	if (is_recomputed(p->node)) {
		pthread_mutex_lock(&ctx->size_lock);
		ctx->last_len[p->node] = len;
		ctx->have_len[p->node] = true;
		pthread_mutex_unlock(&ctx->size_lock);
	}
	struct view_file *f = xmalloc(sizeof(*f));
	f->data = data;
	f->len = len;
	*out = f;
	return 0;
}

int view_content_size(struct view_ctx *ctx, const struct view_path *p, size_t *size)
{
	if (is_recomputed(p->node)) {
		pthread_mutex_lock(&ctx->size_lock);
		bool have = ctx->have_len[p->node];
		*size = ctx->last_len[p->node];
		pthread_mutex_unlock(&ctx->size_lock);
		if (have)
			return 0;
	}
	struct view_file *f = NULL;
	int r = view_content_build(ctx, p, &f);
	if (r < 0)
		return r;
	*size = f->len;
	view_file_free(f);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct name_list {
	char **items;
	size_t n, cap;
};

/* Adds the run names of the result sidecars in dir; in the fallback
 * directory (fallback), only those of the drop directory's top level, with
 * place_fallback_name()'s escapes undone. 0 or -errno. */
static int add_runs(struct name_list *l, const char *dir, bool fallback)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	const size_t slen = strlen(RESULT_SUFFIX);
	struct dirent *de;
	while ((de = readdir(d))) {
		_cleanup_free_ char *name = xstrdup(de->d_name);
		if (fallback) {
			if (strstr(name, "%2F"))
				continue;
			char *o = name;
			for (const char *p = de->d_name; *p; p++) {
				if (strncmp(p, "%25", 3) == 0 || strncmp(p, "%2E", 3) == 0) {
					*o++ = p[2] == '5' ? '%' : '.';
					p += 2;
				} else {
					*o++ = *p;
				}
			}
			*o = '\0';
		}
		size_t len = strlen(name);
		if (len <= slen || strcmp(name + len - slen, RESULT_SUFFIX) != 0)
			continue;
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		if (!view_run_name_valid(name, len - slen)) {
			log_debug("runs: not shown: a sidecar whose name is not safe to show "
				  "in %s", dir);
			continue;
		}
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 16;
			l->items = xrealloc(l->items, l->cap * sizeof(*l->items));
		}
		l->items[l->n++] = xstrndup(name, len - slen);
	}
	closedir(d);
	return 0;
}

int view_runs_list(struct view_ctx *ctx, char ***names, size_t *count)
{
	struct name_list l = { 0 };

	*names = NULL;
	*count = 0;
	if (!ctx->drop_dir)
		return 0;
	int r = add_runs(&l, ctx->drop_dir, false);
	if (r < 0) {
		log_warnx("runs: cannot list the drop directory %s: %s; check --drop-dir",
			  ctx->drop_dir, strerror(-r));
		return r;
	}
	/* Answers the drop directory refused (absent: none). */
	_cleanup_free_ char *fb = xasprintf("%s/%s", ctx->state_dir, PLACE_FALLBACK_DIR);
	(void)add_runs(&l, fb, true);
	if (l.n > 1)
		qsort(l.items, l.n, sizeof(*l.items), cmp_names);
	/* A name in both lists is one run; a name whose result the view would
	 * not open (another user's file at a sidecar's name) is none. */
	size_t out = 0;
	for (size_t i = 0; i < l.n; i++) {
		struct stat st;
		int fd = -1;
		bool dup = out > 0 && strcmp(l.items[out - 1], l.items[i]) == 0;
		if (!dup)
			fd = open_sidecar(ctx, l.items[i], strlen(l.items[i]), RESULT_SUFFIX, &st);
		if (fd >= 0) {
			close(fd);
			l.items[out++] = l.items[i];
		} else {
			free(l.items[i]);
		}
	}
	*names = l.items;
	*count = out;
	return 0;
}

void view_runs_free(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

void view_entries_range(struct view_ctx *ctx, bool refresh, uint64_t *first, uint64_t *count)
{
	_cleanup_free_ char *err = NULL;
	*first = *count = 0;
	if (view_log_range(ctx->log, refresh, first, count, &err) < 0) {
		log_debug("entries: %s", err ? err : "cannot count the records");
		*first = *count = 0;
	}
}
