/* Moving aside what someone else put at a name the agent or an approver
 * must be able to use (an answer file refused for who wrote it, a
 * directory at foo.approve, a FIFO or a forged file at a sidecar's name).
 *
 * Nothing is deleted: it is kept for evidence in QUARANTINE_DIR, a hidden
 * directory of the same directory that the agent creates owned by itself
 * with mode 0700, so that no writer can reach, change or put back what was
 * moved there. A rename moves it (the same file system, nothing is opened,
 * read or written through). What another user put at QUARANTINE_DIR itself
 * is renamed out of the way first. The caller records the move. */
#ifndef MAI_QUARANTINE_H
#define MAI_QUARANTINE_H

#include <stdbool.h>

#include "macro.h"

#define QUARANTINE_DIR ".mai-quarantine"

/* Moves dirfd/name (one path component) into dirfd/QUARANTINE_DIR/ under
 * "<name>.<seconds>.<inode>" (name cut to 200 bytes). 0 with *moved_to the
 * new path relative to dirfd (caller frees), -ENOENT when nothing is at
 * name, or -errno with *detail (caller frees). */
int quarantine_move(int dirfd, const char *name, char **moved_to, char **detail)
	_nonnull_(2, 3, 4) _must_check_;

/* Told of each name quarantine_sweep() moved: rel (relative to the drop
 * directory), where it went (relative to the drop directory), what it was
 * ("a FIFO owned by ...") and the script it belongs to ("sub/foo.py"). */
typedef void (*quarantine_fn)(void *arg, const char *rel, const char *moved_to,
			      const char *what, const char *script);

/* At start, before any name is taken: moves aside, in drop_dir (and with
 * recursive its subdirectories that are not hidden), every sidecar name
 * (*.result.json, *.audit) that holds anything but the agent's own sidecar
 * (dirwrite_is_own(): owned by the agent, or marked by it with that name
 * when it gave the file to its script's writer), and every answer
 * name (*.approve, *.override) that holds anything but a regular file with
 * one link: what someone put there while the agent was stopped, which no
 * one may take for the agent's answer and which must not block the names
 * the agent and approvers write. fn (may be NULL) is told of each. */
void quarantine_sweep(const char *drop_dir, bool recursive, quarantine_fn fn, void *arg)
	_nonnull_(1);

#endif
