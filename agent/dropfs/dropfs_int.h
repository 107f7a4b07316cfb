/* dropfs internals, shared by its files (not seen outside agent/dropfs):
 *
 *   dropfs.c          mount, unmount, the serving threads, the queue of
 *                     names to the daemon's loop, the scan at start
 *   dropfs_files.c    paths beneath the backing directory, ownership, and
 *                     open files: writers, completion, snapshots
 *   dropfs_root.c     the drop directory as users see it; the one
 *                     underneath, the agent's alone
 *   dropfs_rules.c    what a caller may not do, refused at the call
 *   dropfs_wait.c     .wait/foo.result.json
 *   dropfs_notes.c    notes of the scripts open for writing (a crash's)
 *   dropfs_ops.c      the FUSE operations
 *
 * Threads: the serving threads run the FUSE handlers; the daemon's loop
 * thread calls the source operations (process, changed, set_max_size) and,
 * through the daemon's workers, changed(). Each part below has its own lock. */
#ifndef MAI_DROPFS_INT_H
#define MAI_DROPFS_INT_H

#define FUSE_USE_VERSION 312

#include <fuse.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "dropfs.h"
#include "strmap.h"

/* Serving threads free for requests other than .wait's: a reader blocked
 * on .wait holds its thread, so one more is started for each (up to
 * DROPFS_THREADS + the readers waiting). */
#define DROPFS_THREADS 16
/* .wait opens blocked at once per user; a user's next gets EAGAIN. The only
 * cap: no global one that several users together could fill for everyone
 * (issue #27, point 5). What it costs, a thread per reader, is bounded by
 * the accounts that may open the mount, which root made; a thread that
 * cannot be started refuses that reader (EAGAIN), never the mount. */
#define DROPFS_MAX_WAITERS_PER_USER 3
/* Inode numbers of what only the mount has (readdir skips a 0): .wait, and
 * below it one per script (its own with the top bit set). */
#define DROPFS_WAIT_INO ((ino_t)1 << 62)
#define DROPFS_WAIT_FILE_INO(ino) ((ino_t)(ino) | ((ino_t)1 << 63))

/* A file open for writing, by inode (dropfs_files.c). */
struct dropfs_file {
	ino_t ino;
	unsigned refs;     /* handles and calls using it; under files_lock */
	unsigned writers;  /* handles open for writing */
	bool dirty;        /* written since it was last taken */
	bool pending;      /* renamed into place while written: taken at the last release */
	int write_err;     /* errno of a write that failed since it was last taken; 0: none */
	char *note;        /* the script it was opened as, noted as being written (dropfs_notes.c) */
	struct drop_writer last_writer;
	/* Writes take it shared, a snapshot exclusive (dropfs.h "Completion"). */
	pthread_rwlock_t content;
};

/* A waiter on .wait (dropfs_wait.c). */
struct dropfs_waiter {
	int efd;
	uid_t uid;
	struct dropfs_waiter *next;
};

struct dropfs_event; /* a name for the daemon's loop (dropfs.c) */

struct dropfs {
	struct dropfs_options o;    /* the callbacks; strings not kept */
	char *mountpoint;           /* canonical */
	int root_fd;                /* the backing directory */
	ino_t root_ino;
	dev_t root_dev;
	/* What users see of the root through the mount (dropfs_root.c). */
	pthread_mutex_t root_lock;
	mode_t shown_mode;
	uid_t shown_uid;
	gid_t shown_gid;
	mode_t umask;               /* the process's, undone on what users create */
	atomic_size_t max_size;
	drop_source_fn fn;
	void *fn_arg;

	/* names for the loop: a list and an eventfd */
	pthread_mutex_t queue_lock;
	struct dropfs_event *queue_head, **queue_tail;
	int queue_fd;

	/* open files: "ino" in hex -> struct dropfs_file */
	pthread_mutex_t files_lock;
	struct strmap *files;

	/* scripts open for writing (dropfs_notes.c): where their notes go
	 * (NULL: nowhere), and the scripts the last start found noted, held
	 * as incomplete until written again (under files_lock) */
	char *notes_dir;
	struct strmap *held;

	/* .wait */
	pthread_mutex_t wait_lock;
	struct dropfs_waiter *waiters;
	unsigned n_waiters;

	/* open handles (dropfs_ops.c), under files_lock */
	struct dropfs_handle *handles;

	/* serving */
	struct fuse *fuse;
	struct fuse_session *se;
	pthread_mutex_t threads_lock; /* threads, n_threads, cap_threads */
	pthread_t *threads;
	unsigned n_threads, cap_threads;
	atomic_bool stopping;
};

/* The dropfs of the calling FUSE handler. */
struct dropfs *dropfs_get(void);

/* --- dropfs.c --- */
/* Queues rel (kind) for the daemon's loop with the snapshot taken (taken
 * over; NULL: none) and its writer (NULL: unknown). */
void dropfs_queue(struct dropfs *fs, const char *rel, enum names_kind kind,
		  struct drop_taken *taken, const struct drop_writer *writer);
/* Queues every script and answer file below the directory rel ("" for the
 * root), as the scan at start does for the whole tree. */
void dropfs_scan(struct dropfs *fs, const char *rel);
/* Starts serving threads until there are DROPFS_THREADS + busy (busy: the
 * readers of .wait blocked now, who hold one each). 0, or -errno when one
 * cannot be started (or the mount stops). */
int dropfs_serve_more(struct dropfs *fs, unsigned busy);
/* The FUSE operations (dropfs_ops.c). */
const struct fuse_operations *dropfs_operations(void);
/* Frees the handles the kernel had not released when the mount stopped
 * (after the serving threads ended), keeping their files' notes. */
void dropfs_handles_free(struct dropfs *fs);

/* --- dropfs_root.c --- */
/* Makes the backing directory the agent's alone (root, 0700) and sets what
 * users see: kept from an earlier start, else what it had; mode and group
 * (agent.drop_dir_mode, agent.drop_dir_group) replace it when set. 0 or
 * -errno with *err. */
int dropfs_root_prepare(struct dropfs *fs, const char *mode, const char *group, char **err);
/* st (the backing root's) with the owner, group and mode users see. */
void dropfs_root_attr(struct dropfs *fs, struct stat *st);
/* Whether st is the backing root. */
bool dropfs_is_root(const struct dropfs *fs, const struct stat *st);
/* chmod and chown of the mount's root (uid or gid -1: unchanged). 0. */
int dropfs_root_chmod(struct dropfs *fs, mode_t mode);
int dropfs_root_chown(struct dropfs *fs, uid_t uid, gid_t gid);

/* --- dropfs_files.c: paths and owners --- */
/* A path as FUSE gives it ("/sub/foo.py") beneath the backing directory:
 * the directory that holds its last component, opened without following a
 * symbolic link at any step, and that component ("" for the root itself). */
struct dropfs_at {
	int dirfd;        /* fs->root_fd or owned */
	bool owned;
	const char *leaf; /* points into the path */
};
int dropfs_at_open(struct dropfs *fs, const char *path, struct dropfs_at *at) _must_check_;
void dropfs_at_close(struct dropfs_at *at);
/* "/sub/foo.py" -> "sub/foo.py". */
static inline const char *dropfs_rel(const char *path) { return path[0] == '/' ? path + 1 : path; }
/* The caller of the current request, with its process: read at every
 * request that may make a script, whatever the name it writes (a hidden
 * temporary renamed into place is taken at its last release, as its
 * opener wrote it). */
void dropfs_caller(struct drop_writer *w);
/* Gives what the caller just created at at/leaf (fd >= 0: that descriptor)
 * the caller as owner (the group too unless the directory is setgid) and
 * mode as asked (the agent's umask undone, no set-user-ID, and no
 * set-group-ID but on a directory). 0 or -errno. */
int dropfs_own(struct dropfs *fs, const struct dropfs_at *at, int fd, mode_t mode,
	       bool is_dir, bool is_symlink);

/* --- dropfs_files.c: open files --- */
struct dropfs_file *dropfs_file_get(struct dropfs *fs, ino_t ino);
void dropfs_file_put(struct dropfs *fs, struct dropfs_file *f);
/* A handle open for writing was opened (writers++) as rel or released.
 * The first writer of a script notes it (dropfs_notes.c), the last one's
 * release removes the note. Released: wrote says whether it wrote; true
 * when that completes the file (the last writer went and it changed), with
 * *writer who wrote it last and *write_err the errno of a write that failed
 * meanwhile (0: none). */
void dropfs_file_writer_open(struct dropfs *fs, struct dropfs_file *f, const char *rel);
bool dropfs_file_writer_release(struct dropfs *fs, struct dropfs_file *f, bool wrote,
				const struct drop_writer *who, struct drop_writer *writer,
				int *write_err);
/* A write to f failed with err: the content is not what its writer meant,
 * and is not taken at its release (dropfs.h "Incomplete content"). */
void dropfs_file_write_failed(struct dropfs *fs, struct dropfs_file *f, int err);
/* A rename or a truncation by name changed the file whole: true when no
 * handle writes to it (take it now); otherwise it is taken at the last
 * release. */
bool dropfs_file_changed_whole(struct dropfs *fs, struct dropfs_file *f,
			       const struct drop_writer *who);
/* True while a handle writes to the inode or it waits to be taken. */
bool dropfs_file_busy(struct dropfs *fs, ino_t ino);
/* rel is complete: a script is snapshotted now (with writes to f held off
 * when f is not NULL) and queued with writer; an answer file or a bad name
 * is queued for the daemon to read; anything else is ignored. Wakes the
 * waiters. incomplete: 0, or the errno of a write that failed (the script
 * is queued as INTAKE_INCOMPLETE), or DROPFS_OPEN_AT_STOP. */
#define DROPFS_OPEN_AT_STOP (-1) /* noted as being written when the agent stopped */
void dropfs_complete(struct dropfs *fs, const char *rel, struct dropfs_file *f,
		     const struct drop_writer *writer, int incomplete);

/* --- dropfs_notes.c --- */
/* Creates dir when needed and holds the scripts its notes name (and that
 * still exist); removes the others. 0 or -errno with *err. */
int dropfs_notes_load(struct dropfs *fs, const char *dir, char **err) _must_check_;
void dropfs_notes_free(struct dropfs *fs);
/* rel is being written / no longer is (its note goes, and it is no longer
 * held). No-ops without a notes directory. */
void dropfs_note_writing(struct dropfs *fs, const char *rel);
void dropfs_note_done(struct dropfs *fs, const char *rel);
/* A write to rel failed with err: it is held as incomplete (and noted, so
 * that a restart holds it too) until it is written again. */
void dropfs_note_failed(struct dropfs *fs, const char *rel, int err);
/* Whether rel is held as incomplete: noted as being written when the agent
 * last stopped, or one of its writes failed, and not written again since.
 * *err (may be NULL): the failed write's errno, 0 for the former. */
bool dropfs_note_held(struct dropfs *fs, const char *rel, int *err);

/* --- dropfs_rules.c --- */
enum dropfs_check {
	DROPFS_CHECK_REMOVE, /* unlink, rmdir, the old name of a rename */
	DROPFS_CHECK_WRITE,  /* create, the new name of a rename or link, open for writing, truncate */
	DROPFS_CHECK_ATTR,   /* chmod, chown, utimens */
};
/* 0 when the caller may do op on path; else the refusal is reported
 * (log line, the refused callback) and -EACCES or -EPERM returned. */
int dropfs_check(struct dropfs *fs, const char *path, enum dropfs_check what, const char *op);
/* Refuses op on path outright for why (mkdir without recursion, link,
 * mknod): reports it and returns -EPERM. */
int dropfs_refuse(struct dropfs *fs, const char *path, enum dropfs_refusal_why why,
		  const char *op);
/* True for a name the agent writes itself: foo.result.json, foo.audit and
 * their temporaries. */
bool dropfs_is_agent_file(const char *leaf);
/* True for the agent's sidecars that users read (served direct_io: the
 * agent replaces them behind the kernel's cache). */
bool dropfs_is_sidecar(const char *leaf);

/* --- dropfs_wait.c --- */
/* Whether path is .wait or below it; *rest is what follows ".wait/" ("" for
 * .wait itself). */
bool dropfs_wait_path(const char *path, const char **rest);
int dropfs_wait_getattr(struct dropfs *fs, const char *rest, struct stat *st);
/* Blocks until the result is final (see dropfs.h); on 0 *fd is the
 * result, open for reading. -EINTR when the reader got a signal, -ENOENT
 * when there is no such script, -EAGAIN when too many wait already,
 * -ECANCELED when the agent stops. */
int dropfs_wait_open(struct dropfs *fs, const char *rest, int *fd);
/* Something changed that a waiter may be waiting for. Any thread. */
void dropfs_wait_wake(struct dropfs *fs);

#endif
