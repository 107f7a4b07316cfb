/* Where the names of complete files come from: the drop directory watched
 * with inotify (watch.h, drop_mode: watch) or served by the agent as a FUSE
 * file system (agent/dropfs, drop_mode: mount). The daemon's loop polls
 * drop_source_fd() next to its own descriptors, waits at most
 * drop_source_timeout_ms() and calls drop_source_process(), which reports
 * each complete name through the callback on the loop's thread; everything
 * after that (intake, jobs, results) is the same for both. */
#ifndef MAI_DROP_SOURCE_H
#define MAI_DROP_SOURCE_H

#include <stdbool.h>

#include "intake.h"
#include "macro.h"
#include "names.h"
#include "watch.h"
#include "writer.h"

/* A snapshot the source took itself (mount mode: at the close or the rename
 * that completed the file, with writes held off while it was read). */
struct drop_taken {
	enum intake_status status;
	int err;                    /* errno for INTAKE_IO_ERROR and INTAKE_INCOMPLETE */
	/* For INTAKE_OK and INTAKE_INCOMPLETE; the callback may take it over. */
	struct intake_snapshot snap;
};

struct drop_name {
	const char *rel;          /* relative to the drop directory: "foo.py", "sub/foo.py" */
	enum names_kind kind;     /* names_classify() of its last component, never IGNORED */
	struct drop_taken *taken; /* NULL: the daemon reads the file itself */
	struct drop_writer writer; /* DROP_WRITER_UNKNOWN: not known to the source */
};

typedef void (*drop_source_fn)(void *arg, struct drop_name *n);

/* What a source implements; impl is its own state. */
struct drop_source_ops {
	int (*fd)(void *impl);
	int (*timeout_ms)(void *impl);  /* -1: nothing due */
	int (*process)(void *impl);     /* reports what is ready; 0 or -errno */
	bool (*present)(void *impl);    /* the drop directory is there and served */
	void (*set_settle_ms)(void *impl, unsigned ms); /* may be NULL */
	void (*set_max_size)(void *impl, size_t bytes);  /* snapshots' cap; may be NULL */
	/* The agent wrote or removed rel itself (a sidecar, a consumed answer)
	 * in drop_source_dir(): may be NULL. */
	void (*changed)(void *impl, const char *rel);
	/* Whether the source holds rel as incomplete (INTAKE_INCOMPLETE: a
	 * write to it failed, or it was being written when the agent stopped,
	 * and it was not written again since), with *err that write's errno
	 * (0: being written at the stop). May be NULL: never. */
	bool (*incomplete)(void *impl, const char *rel, int *err);
	void (*free)(void *impl);
};

struct drop_source;

/* Wraps impl; agent_dir is the path by which the agent itself reads and
 * writes the drop directory's files (copied). drop_source_free() frees impl
 * through ops->free. */
struct drop_source *drop_source_new(const struct drop_source_ops *ops, void *impl,
				    const char *agent_dir) _nonnull_(1, 2, 3);

/* The inotify watch (watch.h) as a source: names come without a snapshot
 * or a writer, and the agent's own files are in o->dir. */
int drop_source_watch_new(const struct watch_options *o, drop_source_fn fn, void *arg,
			  struct drop_source **out, char **err) _must_check_;

/* The directory the agent reads snapshots from and writes sidecars to: the
 * drop directory itself in watch mode; in mount mode the directory beneath
 * the mount, reached through the descriptor the source holds
 * ("/proc/self/fd/N"), so that the agent never goes through its own mount. */
const char *drop_source_dir(const struct drop_source *s);
int drop_source_fd(const struct drop_source *s);
int drop_source_timeout_ms(const struct drop_source *s);
int drop_source_process(struct drop_source *s);
bool drop_source_present(const struct drop_source *s);
/* A reload: the settle delay (watch) and the snapshots' size cap (mount). */
void drop_source_set_settle_ms(struct drop_source *s, unsigned ms);
void drop_source_set_max_size(struct drop_source *s, size_t bytes);
void drop_source_changed(struct drop_source *s, const char *rel);
/* For a snapshot the agent reads itself (a retry, an answer, a rerun): the
 * source's word that rel's content is incomplete (see the ops). */
bool drop_source_incomplete(const struct drop_source *s, const char *rel, int *err);
void drop_source_free(struct drop_source *s);

/* Releases what a drop_taken holds. */
void drop_taken_clear(struct drop_taken *t);

/* Gives the directory dirfd the permissions mode (octal text such as
 * "2770") and the group group (a name or a numeric gid), each unless "" or
 * NULL (agent.drop_dir_mode, agent.drop_dir_group). what names the
 * directory in messages. 0 or -errno with *err (caller frees). */
int drop_dir_prepare(int dirfd, const char *what, const char *mode, const char *group,
		     char **err) _must_check_;

#endif
