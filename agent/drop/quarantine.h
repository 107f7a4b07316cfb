/* Moving aside what someone else put at a name the agent or an approver
 * must be able to use (an answer file refused for who wrote it, a
 * directory at foo.approve, a FIFO or a forged file at a sidecar's name).
 *
 * Nothing is deleted: it is kept for evidence in the holder, a directory of
 * the agent's own (agent.state_dir/quarantine, quarantine_set_holder()),
 * out of the drop directory, where no writer can reach, change, put back or
 * rename away what was moved there. A rename moves it (nothing is opened,
 * read or written through), so the holder must be on the drop directory's
 * file system: where it is not (or none is set), what is moved goes to
 * QUARANTINE_DIR, a hidden directory of the same directory that the agent
 * creates owned by itself with mode 0700 (in watch mode a member of the drop
 * group may rename that directory away, though not read it); what another
 * user put at QUARANTINE_DIR itself is renamed out of the way first. The
 * caller records the move, and where it went. */
#ifndef MAI_QUARANTINE_H
#define MAI_QUARANTINE_H

#include <stdbool.h>

#include "macro.h"

#define QUARANTINE_DIR ".mai-quarantine"

/* Makes dir (an absolute path; created 0700 when missing) the holder of
 * what is moved aside from now on; NULL: none. Called at start, before any
 * thread moves anything, and NULL once none will (the value is the
 * process's). 0 or -errno. */
int quarantine_set_holder(const char *dir);
/* Where what is moved aside is kept, for messages: the holder, else
 * QUARANTINE_DIR. Static until the next quarantine_set_holder(). */
const char *quarantine_where(void);
/* Whether the holder is on the file system of the directory dirfd (what is
 * moved from there reaches it); false when there is none. */
bool quarantine_holder_reaches(int dirfd);

/* Moves dirfd/name (one path component) into the holder (else into
 * dirfd/QUARANTINE_DIR/) under "<name>.<seconds>.<inode>" (name cut to 200
 * bytes). 0 with *moved_to (caller frees) the new path: absolute in the
 * holder, else relative to dirfd; -ENOENT when nothing is at name, or
 * -errno with *detail (caller frees). */
int quarantine_move(int dirfd, const char *name, char **moved_to, char **detail)
	_nonnull_(2, 3, 4) _must_check_;

/* Told of each name quarantine_sweep() moved: rel (relative to the drop
 * directory), where it went (absolute in the holder, else relative to the
 * drop directory), what it was
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
