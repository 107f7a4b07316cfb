/* Who wrote a dropped file, as far as the agent can tell.
 *
 * In mount mode the FUSE request that wrote or renamed the file carries the
 * writing process's uid, gid and pid, and the agent reads the process's
 * name; in watch mode the agent knows only the file's owner and group,
 * which whoever can write the drop directory controls (a file copied with
 * 'cp -p' or made by root keeps any owner). "from" says which it is. */
#ifndef MAI_DROP_WRITER_H
#define MAI_DROP_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

enum drop_writer_from {
	DROP_WRITER_UNKNOWN, /* nothing known (yet) */
	DROP_WRITER_OWNER,   /* the file's owner and group (watch mode, files found at start) */
	DROP_WRITER_REQUEST, /* the FUSE request of the write (mount mode) */
};
/* "file_owner" or "request" ("unknown" for DROP_WRITER_UNKNOWN). */
const char *drop_writer_from_to_string(enum drop_writer_from f);

#define DROP_WRITER_PROCESS_MAX 16 /* the kernel's comm: 15 bytes and a NUL */

struct drop_writer {
	enum drop_writer_from from;
	uid_t uid;
	gid_t gid;
	pid_t pid;                              /* process (thread group) id; 0: unknown */
	char process[DROP_WRITER_PROCESS_MAX];  /* its name (comm); "": unknown */
};

/* The writer known from a file's owner and group. */
void drop_writer_from_owner(struct drop_writer *w, uid_t uid, gid_t gid);

/* Fills w from a request's uid, gid and the pid of the calling thread:
 * the process it belongs to and that process's name come from /proc (left
 * as the thread's id and "" when it has already gone). */
void drop_writer_from_request(struct drop_writer *w, uid_t uid, gid_t gid, pid_t tid);

/* {"uid", "gid", "from", "pid"?, "process"?} (pid and process only when
 * known; a process name that is not printable UTF-8 is escaped), or NULL
 * for DROP_WRITER_UNKNOWN. New reference. */
json_t *drop_writer_to_json(const struct drop_writer *w);

#endif
