#include "watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "monoclock.h"
#include "strmap.h"

#define WATCH_RETRY_MS 1000

#define DIR_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE | \
		  IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | \
		  IN_DONT_FOLLOW | IN_EXCL_UNLINK)
#define PARENT_MASK (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR)

struct watch_pending {
	char *rel;
	enum names_kind kind;
	uint64_t deadline;
	struct watch_pending *prev, *next;
};

struct watch_dir {
	int wd;
	char *rel; /* "" for the drop directory itself */
};

struct watch {
	char *dir, *parent, *base;
	bool recursive;
	unsigned settle_ms;
	watch_fn fn;
	void *arg;
	int ifd;
	int parent_wd;
	struct watch_dir *dirs;
	size_t ndirs, capdirs;
	bool present;
	uint64_t retry_at;
	/* Pending names: a map for lookup and a list in deadline order. Every
	 * (re)schedule sets now + settle_ms and appends at the tail, or (a
	 * rename into place) joins the names due at once, after those already
	 * there (ready_tail, the last of them; NULL: none) and before any that
	 * settle, so the list stays sorted, the head is always the next to
	 * fire, and renames fire in their order of arrival. */
	struct strmap *pending;
	struct watch_pending *head, *tail, *ready_tail;
	unsigned overflows;
};

static char *join(const char *rel, const char *name)
{
	return *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

static char *full_path(const struct watch *w, const char *rel)
{
	return *rel ? xasprintf("%s/%s", w->dir, rel) : xstrdup(w->dir);
}

static void list_unlink(struct watch *w, struct watch_pending *p)
{
	if (w->ready_tail == p)
		w->ready_tail = p->prev;
	if (p->prev)
		p->prev->next = p->next;
	else
		w->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		w->tail = p->prev;
	p->prev = p->next = NULL;
}

static void list_append(struct watch *w, struct watch_pending *p)
{
	p->prev = w->tail;
	p->next = NULL;
	if (w->tail)
		w->tail->next = p;
	else
		w->head = p;
	w->tail = p;
}

static void pending_free(void *v)
{
	struct watch_pending *p = v;
	free(p->rel);
	free(p);
}

/* p due at once: after the names already due at once, ahead of the rest.
 * Its deadline is theirs (or now, or the head's if earlier): the list stays
 * sorted. */
static void list_add_ready(struct watch *w, struct watch_pending *p)
{
	struct watch_pending *after = w->ready_tail, *before = after ? after->next : w->head;
	uint64_t now = (uint64_t)monoclock_ms();

	p->deadline = after ? after->deadline : before && before->deadline < now ? before->deadline : now;
	p->prev = after;
	p->next = before;
	if (after)
		after->next = p;
	else
		w->head = p;
	if (before)
		before->prev = p;
	else
		w->tail = p;
	w->ready_tail = p;
}

/* settle: wait settle_ms of quiet (a write may be one step of several);
 * otherwise the file is complete now (renamed into place). */
static void schedule(struct watch *w, const char *rel, enum names_kind kind, bool settle)
{
	struct watch_pending *p = strmap_get(w->pending, rel);

	if (p) {
		list_unlink(w, p);
	} else {
		p = xcalloc(1, sizeof(*p));
		p->rel = xstrdup(rel);
		strmap_put(w->pending, rel, p);
	}
	p->kind = kind;
	if (settle) {
		p->deadline = (uint64_t)monoclock_ms() + w->settle_ms;
		list_append(w, p);
	} else {
		list_add_ready(w, p);
	}
}

static void extend(struct watch *w, const char *rel)
{
	struct watch_pending *p = strmap_get(w->pending, rel);
	if (p)
		schedule(w, rel, p->kind, true);
}

static void cancel(struct watch *w, const char *rel)
{
	struct watch_pending *p = strmap_take(w->pending, rel);
	if (!p)
		return;
	list_unlink(w, p);
	pending_free(p);
}

/* Schedules rel unless its name is one the agent ignores on purpose. */
static void consider(struct watch *w, const char *rel, const char *name, bool settle)
{
	enum names_reason reason;
	enum names_kind kind = names_classify(name, &reason);

	if (kind == NAMES_IGNORED) {
		if (log_get_level() >= LOG_LEVEL_DEBUG) {
			_cleanup_free_ char *p = names_printable(rel);
			log_debug("ignoring %s: %s", p, names_reason_to_string(reason));
		}
		return;
	}
	schedule(w, rel, kind, settle);
}

static bool is_answer(const char *name)
{
	enum names_kind k = names_classify(name, NULL);
	return k == NAMES_APPROVE || k == NAMES_OVERRIDE;
}

/* A directory named like a script is not one: said in the log, since no
 * result will answer it. */
static void note_directory(const struct watch *w, const char *rel, const char *name)
{
	if (names_classify(name, NULL) != NAMES_SCRIPT)
		return;
	_cleanup_free_ char *p = names_printable(rel);
	log_warnx("%s/%s is a directory, not a script: it is not run and gets no result (only "
		  "regular files named *.py are run)%s", w->dir, p,
		  w->recursive ? "; what it holds is watched like any subdirectory" : "");
}

static struct watch_dir *find_dir(struct watch *w, int wd)
{
	for (size_t i = 0; i < w->ndirs; i++)
		if (w->dirs[i].wd == wd)
			return &w->dirs[i];
	return NULL;
}

static void drop_dir_at(struct watch *w, size_t i, bool rm_watch)
{
	if (rm_watch)
		inotify_rm_watch(w->ifd, w->dirs[i].wd);
	free(w->dirs[i].rel);
	w->dirs[i] = w->dirs[--w->ndirs];
}

/* Forgets rel and every directory below it (renamed away or removed). */
static void drop_dirs_under(struct watch *w, const char *rel)
{
	size_t n = strlen(rel);
	for (size_t i = 0; i < w->ndirs;) {
		const char *r = w->dirs[i].rel;
		if (strncmp(r, rel, n) == 0 && (r[n] == '\0' || r[n] == '/'))
			drop_dir_at(w, i, true);
		else
			i++;
	}
}

static int add_dir(struct watch *w, const char *rel);

static void scan_dir(struct watch *w, const char *rel)
{
	_cleanup_free_ char *path = full_path(w, rel);
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		log_warn("cannot scan %s", path);
		return;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		_cleanup_free_ char *child = join(rel, de->d_name);
		bool is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			is_dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISDIR(st.st_mode);
		}
		if (is_dir && is_answer(de->d_name)) {
			consider(w, child, de->d_name, false);
			continue;
		}
		if (is_dir) {
			note_directory(w, child, de->d_name);
			if (w->recursive && de->d_name[0] != '.')
				add_dir(w, child);
			continue;
		}
		consider(w, child, de->d_name, true);
	}
	closedir(d);
}

/* Watches dir/rel (again) and schedules what it holds. 0 or -errno. */
static int add_dir(struct watch *w, const char *rel)
{
	_cleanup_free_ char *path = full_path(w, rel);
	int wd = inotify_add_watch(w->ifd, path, DIR_MASK);
	struct watch_dir *d;

	if (wd < 0)
		return -errno;
	d = find_dir(w, wd);
	if (d) {
		free(d->rel);
	} else {
		if (w->ndirs == w->capdirs) {
			w->capdirs = w->capdirs ? 2 * w->capdirs : 8;
			w->dirs = xrealloc(w->dirs, w->capdirs * sizeof(*w->dirs));
		}
		d = &w->dirs[w->ndirs++];
		d->wd = wd;
	}
	d->rel = xstrdup(rel);
	scan_dir(w, rel);
	return 0;
}

static void detach(struct watch *w)
{
	while (w->ndirs > 0)
		drop_dir_at(w, 0, true);
	w->present = false;
	w->retry_at = (uint64_t)monoclock_ms() + WATCH_RETRY_MS;
}

static int attach(struct watch *w)
{
	int r = add_dir(w, "");
	if (r < 0) {
		w->present = false;
		w->retry_at = (uint64_t)monoclock_ms() + WATCH_RETRY_MS;
		return r;
	}
	if (!w->present)
		log_info("watching %s%s", w->dir, w->recursive ? " and its subdirectories" : "");
	w->present = true;
	return 0;
}

void watch_rescan(struct watch *w)
{
	if (!w->present) {
		attach(w);
		return;
	}
	/* Rescanning from the root re-adds every subdirectory watch too (an
	 * existing one keeps its descriptor) and picks up directories that
	 * appeared during an overflow. */
	add_dir(w, "");
}

static void handle_parent_event(struct watch *w, const struct inotify_event *ev)
{
	if (ev->len == 0 || strcmp(ev->name, w->base) != 0)
		return;
	if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && (ev->mask & IN_ISDIR) && !w->present) {
		if (attach(w) == 0)
			log_info("drop directory %s is back; rescanned it", w->dir);
	} else if ((ev->mask & (IN_MOVED_FROM | IN_DELETE)) && w->present) {
		log_warnx("drop directory %s was removed or renamed; waiting for it to reappear",
			  w->dir);
		detach(w);
	}
}

static void handle_event(struct watch *w, const struct inotify_event *ev)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		w->overflows++;
		log_warnx("inotify queue overflowed on %s; rescanning it", w->dir);
		watch_rescan(w);
		return;
	}
	if (ev->wd == w->parent_wd) {
		handle_parent_event(w, ev);
		return;
	}
	struct watch_dir *d = find_dir(w, ev->wd);
	if (!d)
		return;
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
		if (*d->rel == '\0') {
			if (w->present)
				log_warnx("drop directory %s was removed or renamed; waiting for it "
					  "to reappear", w->dir);
			detach(w);
			/* It may already be back (rm -rf; mkdir in quick succession). */
			attach(w);
		} else {
			_cleanup_free_ char *rel = xstrdup(d->rel);
			drop_dirs_under(w, rel);
		}
		return;
	}
	if (ev->len == 0)
		return;

	_cleanup_free_ char *rel = join(d->rel, ev->name);
	if (ev->mask & IN_ISDIR) {
		if (ev->mask & (IN_CREATE | IN_MOVED_TO))
			note_directory(w, rel, ev->name);
		if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && is_answer(ev->name)) {
			/* It blocks the name an approver must write: reported like
			 * an answer, the agent moves it aside (approval.h). */
			consider(w, rel, ev->name, false);
			return;
		}
		if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && w->recursive && ev->name[0] != '.')
			add_dir(w, rel);
		else if (ev->mask & (IN_MOVED_FROM | IN_DELETE))
			drop_dirs_under(w, rel);
		return;
	}
	if (ev->mask & IN_MOVED_TO) {
		/* A rename into place (write-temp-then-rename, mv, mai-agent
		 * submit) brings a complete file in one step: no settle delay. */
		consider(w, rel, ev->name, false);
	} else if (ev->mask & IN_CLOSE_WRITE) {
		consider(w, rel, ev->name, true);
	} else if (ev->mask & IN_CREATE) {
		/* A plain create is followed by IN_CLOSE_WRITE; report it now only
		 * when it will not be: a hard link (content already there, or a
		 * second link) or a symlink, FIFO or device (never written). */
		_cleanup_free_ char *path = full_path(w, rel);
		struct stat st;
		if (lstat(path, &st) == 0 &&
		    (!S_ISREG(st.st_mode) || st.st_nlink > 1 || st.st_size > 0))
			consider(w, rel, ev->name, true);
	} else if (ev->mask & IN_MODIFY) {
		extend(w, rel);
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		cancel(w, rel);
	}
}

static int read_events(struct watch *w)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(w->ifd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return 0;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			handle_event(w, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void fire_due(struct watch *w)
{
	uint64_t now = (uint64_t)monoclock_ms();

	if (!w->present && now >= w->retry_at) {
		if (attach(w) == 0)
			log_info("drop directory %s is back; rescanned it", w->dir);
	}
	while (w->head && w->head->deadline <= now) {
		struct watch_pending *p = w->head;
		list_unlink(w, p);
		strmap_take(w->pending, p->rel);
		w->fn(w->arg, p->rel, p->kind);
		pending_free(p);
	}
}

int watch_process(struct watch *w)
{
	int r = read_events(w);
	fire_due(w);
	return r;
}

int watch_timeout_ms(const struct watch *w)
{
	uint64_t now = (uint64_t)monoclock_ms(), next = UINT64_MAX;

	if (w->head)
		next = w->head->deadline;
	if (!w->present && w->retry_at < next)
		next = w->retry_at;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

int watch_poll(struct watch *w, int timeout_ms)
{
	struct pollfd pfd = { .fd = w->ifd, .events = POLLIN };
	int t = watch_timeout_ms(w);

	if (t < 0 || (timeout_ms >= 0 && timeout_ms < t))
		t = timeout_ms;
	if (poll(&pfd, 1, t) < 0 && errno != EINTR)
		return -errno;
	return watch_process(w);
}

int watch_new(const struct watch_options *o, watch_fn fn, void *arg, struct watch **out,
	      char **err)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	_cleanup_free_ char *copy1 = xstrdup(o->dir);
	_cleanup_free_ char *copy2 = xstrdup(o->dir);
	int r;

	w->dir = xstrdup(o->dir);
	w->parent = xstrdup(dirname(copy1));
	w->base = xstrdup(basename(copy2));
	w->recursive = o->recursive;
	w->settle_ms = o->settle_ms;
	w->fn = fn;
	w->arg = arg;
	w->parent_wd = -1;
	w->pending = strmap_new(NULL);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0) {
		r = -errno;
		*err = xasprintf("cannot start inotify: %s (raise fs.inotify.max_user_instances)",
				 strerror(-r));
		watch_free(w);
		return r;
	}
	r = attach(w);
	if (r < 0) {
		*err = xasprintf("cannot watch drop directory %s: %s (check agent.drop_dir in "
				 "agent.yaml)", o->dir, strerror(-r));
		watch_free(w);
		return r;
	}
	/* The parent tells us when the drop directory comes back after being
	 * removed; without it the one-second retry still notices. */
	w->parent_wd = inotify_add_watch(w->ifd, w->parent, PARENT_MASK);
	if (w->parent_wd < 0)
		log_warn("cannot watch %s; a re-created drop directory is noticed within a "
			 "second instead", w->parent);
	*out = w;
	return 0;
}

static void free_pending_entry(const char *key, void *value, void *arg)
{
	(void)key; (void)arg;
	pending_free(value);
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	strmap_foreach(w->pending, free_pending_entry, NULL);
	strmap_free(w->pending);
	for (size_t i = 0; i < w->ndirs; i++)
		free(w->dirs[i].rel);
	free(w->dirs);
	if (w->ifd >= 0)
		close(w->ifd);
	free(w->dir);
	free(w->parent);
	free(w->base);
	free(w);
}

int watch_fd(const struct watch *w) { return w->ifd; }
void watch_set_settle_ms(struct watch *w, unsigned settle_ms)
{
	w->settle_ms = settle_ms;
}

unsigned watch_pending(const struct watch *w) { return (unsigned)strmap_size(w->pending); }
bool watch_dir_present(const struct watch *w) { return w->present; }
unsigned watch_overflows(const struct watch *w) { return w->overflows; }
