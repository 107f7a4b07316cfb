/* Watch: inotify on the drop directory, turned into one notification per
 * settled name.
 *
 * The watcher does not own an event loop: the daemon polls watch_fd() for
 * input next to its signalfd and wakeup descriptors, waits at most
 * watch_timeout_ms(), and calls watch_process(). Each name that changed is
 * reported once its changes have stopped for the settle delay, so an
 * editor's multi-step save (probe file, backup rename, write, close) makes
 * one notification.
 *
 * What counts as a change: IN_CLOSE_WRITE, IN_MOVED_TO, and IN_CREATE of a
 * name that already has content or more than one link (a hard link made by
 * link(2), which some tools use to rename; a plain create is followed by its
 * IN_CLOSE_WRITE). IN_MODIFY pushes back the deadline of a name that is
 * already pending, so a slow writer is not read half-way. IN_DELETE and
 * IN_MOVED_FROM cancel a pending name. IN_Q_OVERFLOW rescans everything. The
 * drop directory itself being removed, or renamed away, is noticed through
 * a watch on its parent and a retry every second; when it exists again it is
 * watched again and rescanned. A rescan reports every existing name, also at
 * start, so files dropped while the agent was down are answered. */
#ifndef MAI_WATCH_H
#define MAI_WATCH_H

#include <stdbool.h>

#include "macro.h"
#include "names.h"

struct watch;

struct watch_options {
	const char *dir;    /* the drop directory */
	bool recursive;     /* also watch subdirectories (not hidden ones) */
	unsigned settle_ms; /* quiet time before a name is reported */
};

/* relpath is relative to the drop directory ("foo.py", "sub/foo.py"); kind
 * is names_classify() of its last component and never NAMES_IGNORED (ignored
 * names are logged at debug level with the reason and not reported). */
typedef void (*watch_fn)(void *arg, const char *relpath, enum names_kind kind);

/* Watches o->dir (which must exist) and schedules its existing names (the
 * initial scan). 0 or -errno with a message in *err (caller frees).
 * watch_free() releases it. */
int watch_new(const struct watch_options *o, watch_fn fn, void *arg, struct watch **out,
	      char **err) _must_check_;
void watch_free(struct watch *w);

/* The descriptor to poll for input. */
int watch_fd(const struct watch *w);
/* Milliseconds until the next deadline (settle or directory retry); -1 when
 * nothing is pending. */
int watch_timeout_ms(const struct watch *w);
/* Reads whatever inotify has (never blocks), handles it, and reports the
 * names whose deadline has passed. 0 or -errno. */
int watch_process(struct watch *w);
/* For tests and simple callers: waits up to timeout_ms for input or the next
 * deadline, then watch_process(). 0 or -errno. */
int watch_poll(struct watch *w, int timeout_ms);
/* Schedules every existing name again (what an overflow does). */
void watch_rescan(struct watch *w);

/* Changes the settle delay for names scheduled from now on (a reload).
 * Names already waiting keep their deadline, and a name waits at most until
 * those ahead of it are due, so a shorter delay applies fully once the old
 * deadlines have passed. */
void watch_set_settle_ms(struct watch *w, unsigned settle_ms);

/* Number of names waiting for their settle delay. */
unsigned watch_pending(const struct watch *w);
/* True while the drop directory exists and is watched. */
bool watch_dir_present(const struct watch *w);
/* How many overflows were handled (for status and tests). */
unsigned watch_overflows(const struct watch *w);

#endif
