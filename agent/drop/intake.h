/* Intake: one consistent, hashed snapshot of a dropped file.
 *
 * Everything after intake works on the snapshot in memory, never on the path
 * again. The file is opened relative to a directory descriptor with
 * O_NOFOLLOW|O_NONBLOCK, so a symlink is never followed (its target is never
 * opened) and a FIFO or device never blocks the agent. Anything that is not a
 * regular file is refused before it is opened. So is a file with more than
 * one link: a hard link may name a file outside the drop directory that its
 * writer could not read (ln /root/secret.py drop/x.py), so its content is
 * never read; the link count is checked before the open, on the open file
 * and again after the read, whose bytes are dropped then. A file that changes while it
 * is read (size, mtime or ctime differ between the fstat before and after the
 * read, or the read length differs from the size) is read again a few times;
 * if it never holds still the result is INTAKE_UNSTABLE. Whatever the outcome
 * the watcher sees the writer's later IN_CLOSE_WRITE too, so the newest
 * content is always taken again after it settles. */
#ifndef MAI_INTAKE_H
#define MAI_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hash.h"
#include "macro.h"

enum intake_status {
	INTAKE_OK,
	INTAKE_SYMLINK,     /* the name is a symbolic link */
	INTAKE_NOT_REGULAR, /* a FIFO, socket, device or directory */
	INTAKE_HARD_LINK,   /* a regular file with more than one link */
	INTAKE_TOO_LARGE,   /* larger than the configured cap */
	INTAKE_VANISHED,    /* removed or renamed before it could be read */
	INTAKE_UNSTABLE,    /* kept changing while it was read */
	INTAKE_BAD_NAME,    /* empty, ".", "..", or holds a '/' */
	INTAKE_IO_ERROR,    /* open or read failed otherwise; errno in *err_out */
	/* Never from intake_read(): the mount (dropfs) says so of a file one of
	 * whose writes failed (the errno goes with it) or that was open for
	 * writing when the agent stopped (errno 0). Its snapshot is read all
	 * the same, so that the answer names the content it is for. */
	INTAKE_INCOMPLETE,
};

/* Stable identifier ("symlink", "not_regular", ...) for logs and JSON. */
const char *intake_status_to_string(enum intake_status s);
/* One sentence for the user: what happened and what to do about it. */
const char *intake_status_message(enum intake_status s);

struct intake_options {
	size_t max_size;        /* bytes; a larger file is INTAKE_TOO_LARGE */
	unsigned retries;       /* extra reads when the file changed; 0 = default 3 */
	unsigned retry_delay_ms; /* pause between reads; 0 = default 20 */
	/* Test hook, NULL in the agent: called between the read and the second
	 * fstat so that a test can change the file at exactly that moment (a
	 * real concurrent writer cannot be timed deterministically). */
	void (*after_read)(void *arg, unsigned attempt);
	void *after_read_arg;
};

struct intake_snapshot {
	uint8_t *data;  /* len bytes plus a NUL; owned, freed by intake_snapshot_clear */
	size_t len;
	char sha256[HASH_SHA256_HEX_LEN + 1];
	uid_t uid;      /* owner of the file: who dropped it */
	gid_t gid;      /* its group */
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	struct timespec mtime;
	unsigned attempts; /* reads it took: 1 when it held still at once */
};

/* Reads dirfd/name (name is one path component). On INTAKE_OK *out holds
 * the snapshot; on any other status *out is zeroed but for uid and nlink
 * when the file was looked at (for INTAKE_HARD_LINK: who owns it and how many
 * links it has) and, for INTAKE_IO_ERROR, *err_out holds the errno (0
 * otherwise). */
enum intake_status intake_read(int dirfd, const char *name, const struct intake_options *opts,
			       struct intake_snapshot *out, int *err_out) _nonnull_(2, 3, 4);

void intake_snapshot_clear(struct intake_snapshot *s);

#endif
