/* dropfs: the drop directory served by the agent as a FUSE file system
 * (agent.drop_mode: mount).
 *
 * The agent mounts over drop_dir while holding a descriptor to the
 * directory underneath (the backing directory), and does every operation on
 * it with *at() calls relative to that descriptor, never through a path.
 * Users keep the same path in both modes. The mount is allow_other with
 * default_permissions: the kernel checks each call against the owner, group
 * and mode the backing files have, and the backing directory's own
 * (agent.drop_dir_mode, agent.drop_dir_group) are the mount's.
 *
 * What users see is an ordinary directory: create, write, truncate, read,
 * rename (also over an existing name), unlink, readdir, stat, utimens,
 * chmod, chown (root), fsync, symlinks (Emacs lock files), temporary files,
 * and subdirectories when agent.recursive is true. A file is stored with its
 * writer as owner (the group of a setgid directory is kept).
 *
 * Completion (docs/ARCHITECTURE.md "Data flow"): a .py file is complete
 * when the last handle that wrote to it is released (its last close), when
 * it is renamed into place with no handle open for writing, or when it is
 * truncated by name; no settle delay. It is snapshotted (intake) right then,
 * and the snapshot holds exactly the bytes as of that moment: writes,
 * truncations and fallocate on the file wait while it is read, so a write
 * that arrives during a snapshot lands after it, whole, and the handle that
 * made it completes the file again at its own release. A file renamed into
 * place while a handle still writes to it is taken at that handle's release.
 * The writer's uid, gid and pid come from the FUSE request of the handle
 * that wrote last (its open) or of the rename, with the process's name.
 *
 * Incomplete content (dropfs_notes.c): a script one of whose writes
 * failed (a full disk) is not run at its last close but reported as
 * INTAKE_INCOMPLETE with the write's errno; the daemon answers it as
 * rejected (incomplete). While a handle writes to a script, a note in
 * notes_dir names it; a note found at start names a script that was being
 * written when the agent stopped (its writer got ENOTCONN), which is held
 * as INTAKE_INCOMPLETE (errno 0) until it is written again.
 *
 * Refused at the call, with a log line (dropfs_rules.c):
 * - writing, truncating, renaming, deleting, chmod/chown/utimens of the
 *   agent's sidecars (*.result.json, *.audit, and their temporaries): EACCES
 *   (but the sidecars of a script that no longer exists may be removed by
 *   root, their owner, the script's writer, or an approver);
 * - creating or writing foo.approve / foo.override (create, rename or link
 *   to that name, open for writing) unless answer_allowed() says the caller
 *   may (an approver, and not foo.py's writer unless self-approval is
 *   allowed): EPERM, and refused() is told so that it can record it;
 * - mkdir while agent.recursive is false, hard links, device nodes and
 *   FIFOs: EPERM.
 *
 * Waiting (dropfs_wait.c): opening .wait/foo.result.json (.wait/sub/... for
 * a subdirectory) blocks until foo.py has a final result for its current
 * content, then reads that result; a signal to the reader ends the wait
 * with EINTR. .wait lists nothing, so tools that walk the directory do not
 * block on it. A user may have 3 readers waiting at once (the next gets
 * EAGAIN), and each holds a serving thread, so one more is started for it:
 * however many users wait, the mount keeps its threads for everyone else.
 *
 * Lifecycle: dropfs_new() clears a stale mount left on drop_dir by a killed
 * agent (ENOTCONN), refuses a live one, opens the backing directory, applies
 * its mode and group, mounts, reports every script already there (files
 * that arrived while the agent was down) and serves on threads of its own.
 * drop_source_free() unmounts (lazily, so a shell whose working directory
 * is in it does not stop the agent) and joins them. */
#ifndef MAI_DROPFS_H
#define MAI_DROPFS_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"
#include "names.h"
#include "source.h"
#include "writer.h"

enum dropfs_refusal_why {
	DROPFS_AGENT_FILE,   /* a sidecar or its temporary: the agent's own file */
	DROPFS_NOT_APPROVER, /* an answer file by someone who may not answer */
	DROPFS_NO_SUBDIRS,   /* mkdir while agent.recursive is false */
	DROPFS_HARD_LINK,    /* link(2): the intake refuses hard links anyway */
	DROPFS_SPECIAL_FILE, /* mknod: FIFOs, sockets and devices */
};
const char *dropfs_refusal_why_to_string(enum dropfs_refusal_why w);

struct dropfs_refusal {
	enum dropfs_refusal_why why;
	const char *rel;        /* the name refused, relative to the drop directory */
	const char *op;         /* "create", "rename", "unlink", "write", "mkdir", ... */
	int err;                /* what the caller got: EACCES or EPERM */
	const struct drop_writer *caller;
	/* For DROPFS_NOT_APPROVER: the kind (NAMES_APPROVE or NAMES_OVERRIDE),
	 * the script it answers, that script's content now and its owner (NULL
	 * and -1 when there is none), answer_allowed()'s status
	 * ("not_approver", "self_approval") and its reason. */
	enum names_kind kind;
	const char *script;
	const char *script_sha256;
	long script_uid;
	const char *status;
	const char *detail;
};

/* A script renamed into place by someone other than the author of its
 * bytes (its owner): the rename is theirs, the content stays the author's
 * (issue #27, point 5). */
struct dropfs_rename {
	const char *from, *to;          /* relative to the drop directory */
	const struct drop_writer *by;   /* the request's caller: who renamed */
	uid_t author_uid;               /* the bytes' owner: the content's writer */
	gid_t author_gid;
};

struct dropfs_options {
	const char *dir;          /* drop_dir: the mount point and the backing directory */
	bool recursive;           /* subdirectories allowed (and served) */
	size_t max_file_size;     /* snapshots' cap (drop_source_set_max_size changes it) */
	const char *dir_mode;     /* agent.drop_dir_mode ("" or NULL: as it is) */
	const char *dir_group;    /* agent.drop_dir_group ("" or NULL: as it is) */
	/* May caller write an answer file for script (relative name), whose
	 * owner (its writer: files are stored with their writer as owner) is
	 * script_uid (-1: no such script)? 0, or -EPERM with *status (a static
	 * id for the record) and *why (caller frees) saying who may. NULL: only
	 * root. Called on the mount's threads. */
	int (*answer_allowed)(void *arg, const struct drop_writer *caller, const char *script,
			      long script_uid, const char **status, char **why);
	/* Told of every refusal once it is decided, on the mount's threads,
	 * before the caller gets its error (the daemon logs it and records
	 * refused answers in the audit log). May be NULL: logged here. */
	void (*refused)(void *arg, const struct dropfs_refusal *r);
	/* Told of each such rename once it is done, on the mount's threads
	 * (the daemon records it in the audit log). May be NULL: logged here. */
	void (*renamed)(void *arg, const struct dropfs_rename *r);
	void *arg;
	/* Where the notes of the scripts open for writing go (see "Incomplete
	 * content"; agent.state_dir/writing); NULL: none are kept. */
	const char *notes_dir;
	/* Test hook, NULL in the agent: called when a snapshot of rel is
	 * about to be read, with writes to it held off already. */
	void (*snapshot_hook)(void *arg, const char *rel);
	void *hook_arg;
};

/* Mounts o->dir as described above and returns it as a source of names
 * (fn is called on the thread that calls drop_source_process()). 0 or
 * -errno with *err (caller frees) saying what to do. */
int dropfs_new(const struct dropfs_options *o, drop_source_fn fn, void *arg,
	       struct drop_source **out, char **err) _must_check_;

/* The directory that holds the .wait files. */
#define DROPFS_WAIT_DIR ".wait"

#endif
