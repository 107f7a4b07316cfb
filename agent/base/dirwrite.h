/* Writing files into a directory that others can write (the drop
 * directory): the agent's sidecars, a user's answer files.
 *
 * Whoever can write the directory can put anything at any name in it
 * before the writer gets there: a FIFO (an open for writing blocks), a
 * symbolic link (an open follows it), a hard link to another user's file
 * (an open writes through it). So a file here is never opened by a name
 * that someone else could have prepared:
 * - the content goes into an anonymous file (O_TMPFILE) in the directory,
 *   is flushed, and is linked in (linkat) under its final name when that
 *   name is free, or else under an unpredictable temporary name
 *   (DIRWRITE_TEMP_PREFIX and 16 random hex digits, which linkat refuses
 *   to reuse) that is then renamed over the final name: a rename replaces
 *   a name, it never writes into what the name pointed to;
 * - where the file system has no O_TMPFILE, the temporary is created under
 *   such a name with O_CREAT|O_EXCL|O_NOFOLLOW|O_NONBLOCK and checked with
 *   fstat before anything is written;
 * - what is at the final name already is looked at with fstatat, never
 *   opened: a directory is never replaced, and unless the caller says
 *   otherwise neither is anything but a regular file of the writing user
 *   (a FIFO, a symlink, a device, another user's file): the write is
 *   refused with -EEXIST and a detail naming what is there and whose it is.
 * No call blocks on what another user put in the directory. A crash leaves
 * at most one temporary name per write in progress (an anonymous file
 * vanishes with the process); dirwrite_clear_temporaries() removes them. */
#ifndef MAI_DIRWRITE_H
#define MAI_DIRWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "macro.h"

#define DIRWRITE_TEMP_PREFIX ".mai-tmp."

enum dirwrite_flag {
	DIRWRITE_DURABLE = 1 << 0,         /* fsync the file, then the directory */
	/* fsync the file only: the caller syncs the directory afterwards (one
	 * fsync of a directory for several names written in it). */
	DIRWRITE_DURABLE_DATA = 1 << 2,
	/* Replace whatever non-directory is at the name (by rename, so nothing
	 * is written through it): for a user's answer file that takes the
	 * place of another user's refused one. */
	DIRWRITE_REPLACE_FOREIGN = 1 << 1,
};

/* Who the written file belongs to and its mode (applied as given, not
 * masked by the umask). With marked, the file gets DIRWRITE_MARK_XATTR set
 * to its name (a security.* attribute: any process may read it, only a
 * privileged one set it), and a regular file with one link that bears the mark of that very
 * name may be replaced as the writer's own whoever owns it: the agent's
 * sidecars, given to their scripts' writers. */
struct dirwrite_access {
	uid_t uid;
	gid_t gid;  /* (gid_t)-1: the writing process's */
	mode_t mode;
	bool marked;
};

#define DIRWRITE_MARK_XATTR "security.mai-agent.name"

/* Whether dirfd/name is a regular file with one link that the writing
 * user owns or that bears the mark of name (see above). st is its fstatat. */
bool dirwrite_is_own(int dirfd, const char *name, const struct stat *st) _nonnull_(2, 3);

/* Whether the open file fd bears the mark of name (see above): what a
 * reader of a sidecar that is not the agent's own checks. */
bool dirwrite_fd_marked(int fd, const char *name) _nonnull_(2);
/* Whether the file system of the directory dirfd keeps the mark (extended
 * attributes in its namespace: ramfs, vfat and some network file systems
 * keep none, and a file given away there could not be told from anyone
 * else's). Tried on the directory itself, set and removed. 0, -ENOTSUP, or
 * another -errno. */
int dirwrite_marks_supported(int dirfd);

/* dirwrite_replace() of a file that belongs to a->uid and a->gid with
 * mode a->mode (a sidecar takes its script's owner, group and read bits). */
int dirwrite_replace_as(int dirfd, const char *name, const void *buf, size_t len,
			const struct dirwrite_access *a, unsigned flags, char **detail)
	_nonnull_(2, 5, 7) _must_check_;

/* Replaces dirfd/name (one path component) with buf, mode applied as
 * given (not masked by the umask). 0; -EEXIST when what is at name is
 * refused (see above), -EISDIR for a directory, -ENAMETOOLONG, or -errno;
 * on every error *detail says what and where (caller frees; the name is
 * the caller's to add). */
int dirwrite_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		     unsigned flags, char **detail) _nonnull_(2, 7) _must_check_;

/* "a FIFO owned by nobody (uid 65534)", "a regular file with 2 links
 * owned by root (uid 0)": what st is, for a message. Caller frees. */
char *dirwrite_describe(const struct stat *st) _nonnull_(1);

/* True for a temporary name of dirwrite_replace() (also of the agent's
 * versions before it: "<sidecar>.tmp.<pid>"). */
bool dirwrite_is_temporary(const char *name) _nonnull_(1);

/* Removes the temporaries that a crash left in dirfd: regular files of the
 * calling user whose name dirwrite_is_temporary(). *removed counts them.
 * 0 or -errno (the directory could not be read). */
int dirwrite_clear_temporaries(int dirfd, unsigned *removed) _nonnull_(2);

#endif
