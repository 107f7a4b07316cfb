#include "source.h"

#include <grp.h>
#include <string.h>
#include <sys/stat.h>

struct drop_source {
	const struct drop_source_ops *ops;
	void *impl;
	char *agent_dir;
};

struct drop_source *drop_source_new(const struct drop_source_ops *ops, void *impl,
				    const char *agent_dir)
{
	struct drop_source *s = xcalloc(1, sizeof(*s));
	s->ops = ops;
	s->impl = impl;
	s->agent_dir = xstrdup(agent_dir);
	return s;
}

const char *drop_source_dir(const struct drop_source *s) { return s->agent_dir; }
int drop_source_fd(const struct drop_source *s) { return s->ops->fd(s->impl); }
int drop_source_timeout_ms(const struct drop_source *s) { return s->ops->timeout_ms(s->impl); }
int drop_source_process(struct drop_source *s) { return s->ops->process(s->impl); }
bool drop_source_present(const struct drop_source *s) { return s->ops->present(s->impl); }

void drop_source_set_settle_ms(struct drop_source *s, unsigned ms)
{
	if (s->ops->set_settle_ms)
		s->ops->set_settle_ms(s->impl, ms);
}

void drop_source_set_max_size(struct drop_source *s, size_t bytes)
{
	if (s->ops->set_max_size)
		s->ops->set_max_size(s->impl, bytes);
}

void drop_source_changed(struct drop_source *s, const char *rel)
{
	if (s->ops->changed)
		s->ops->changed(s->impl, rel);
}

bool drop_source_incomplete(const struct drop_source *s, const char *rel, int *err)
{
	*err = 0;
	return s->ops->incomplete && s->ops->incomplete(s->impl, rel, err);
}

void drop_source_free(struct drop_source *s)
{
	if (!s)
		return;
	s->ops->free(s->impl);
	free(s->agent_dir);
	free(s);
}

void drop_taken_clear(struct drop_taken *t)
{
	if (t)
		intake_snapshot_clear(&t->snap);
}

/* --- the drop directory's permissions --- */

static int group_id(const char *group, gid_t *gid)
{
	char *end;
	long n = strtol(group, &end, 10);
	if (*group && !*end && n >= 0) {
		*gid = (gid_t)n;
		return 0;
	}
	char buf[4096];
	struct group g, *found = NULL;
	int r = getgrnam_r(group, &g, buf, sizeof(buf), &found);
	if (r != 0)
		return -r;
	if (!found)
		return -ENOENT;
	*gid = found->gr_gid;
	return 0;
}

int drop_dir_prepare(int dirfd, const char *what, const char *mode, const char *group,
		     char **err)
{
	if (group && *group) {
		gid_t gid;
		int r = group_id(group, &gid);
		if (r < 0) {
			*err = xasprintf("drop_dir_group: there is no group '%s' (%s); create it "
					 "with 'groupadd %s' or fix agent.drop_dir_group in agent.yaml",
					 group, strerror(-r), group);
			return r;
		}
		if (fchown(dirfd, (uid_t)-1, gid) < 0) {
			r = -errno;
			*err = xasprintf("cannot give %s the group %s: %s (agent.drop_dir_group in "
					 "agent.yaml)", what, group, strerror(-r));
			return r;
		}
	}
	if (mode && *mode) {
		mode_t m = (mode_t)strtoul(mode, NULL, 8);
		if (fchmod(dirfd, m & 07777) < 0) {
			int r = -errno;
			*err = xasprintf("cannot give %s the permissions %s: %s (agent.drop_dir_mode "
					 "in agent.yaml)", what, mode, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* --- the inotify watch as a source --- */

struct watch_source {
	struct watch *w;
	drop_source_fn fn;
	void *arg;
};

static void watch_source_name(void *arg, const char *rel, enum names_kind kind)
{
	struct watch_source *ws = arg;
	struct drop_name n = { .rel = rel, .kind = kind };
	ws->fn(ws->arg, &n);
}

static int ws_fd(void *impl) { return watch_fd(((struct watch_source *)impl)->w); }
static int ws_timeout(void *impl) { return watch_timeout_ms(((struct watch_source *)impl)->w); }
static int ws_process(void *impl) { return watch_process(((struct watch_source *)impl)->w); }
static bool ws_present(void *impl) { return watch_dir_present(((struct watch_source *)impl)->w); }

static void ws_set_settle(void *impl, unsigned ms)
{
	watch_set_settle_ms(((struct watch_source *)impl)->w, ms);
}

static void ws_free(void *impl)
{
	struct watch_source *ws = impl;
	watch_free(ws->w);
	free(ws);
}

static const struct drop_source_ops watch_source_ops = {
	.fd = ws_fd,
	.timeout_ms = ws_timeout,
	.process = ws_process,
	.present = ws_present,
	.set_settle_ms = ws_set_settle,
	.free = ws_free,
};

int drop_source_watch_new(const struct watch_options *o, drop_source_fn fn, void *arg,
			  struct drop_source **out, char **err)
{
	struct watch_source *ws = xcalloc(1, sizeof(*ws));
	ws->fn = fn;
	ws->arg = arg;
	int r = watch_new(o, watch_source_name, ws, &ws->w, err);
	if (r < 0) {
		free(ws);
		return r;
	}
	*out = drop_source_new(&watch_source_ops, ws, o->dir);
	return 0;
}
