/* Placing the agent's sidecars (foo.result.json, foo.audit) in the drop
 * directory, which its writers share with the agent.
 *
 * Each sidecar is written with dirwrite_replace() (dirwrite.h): never
 * through a name someone else prepared, never blocking. When what sits at
 * the sidecar's name is refused (a FIFO, a symlink, a directory, a file of
 * another user), the sidecar goes to the fallback directory instead
 * (agent.state_dir/PLACE_FALLBACK_DIR, readable by the agent and root
 * only), under place_fallback_name() of its path, where the audit view's
 * runs/ finds it; once the drop directory takes the sidecar again, the
 * fallback copy is removed. The job is answered either way: in the drop
 * directory, or through the view and the log. */
#ifndef MAI_PLACE_H
#define MAI_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "dirwrite.h"
#include "macro.h"

#define PLACE_FALLBACK_DIR "unplaced"

struct place_dirs {
	const char *drop_dir;
	/* Where refused sidecars go (created 0700 when needed); NULL: none,
	 * a refusal is then only an error. */
	const char *fallback_dir;
};

enum place_outcome {
	PLACE_IN_DROP_DIR,
	PLACE_IN_FALLBACK, /* refused in the drop directory; *err says why and where it went */
};

/* How a sidecar reaches the disk (always atomically: a reader sees the old
 * content or the new, whole). */
enum place_sync {
	PLACE_SYNC_NONE, /* not synced: a state that is replaced within moments */
	PLACE_SYNC,      /* the file, then its directory, synced */
	/* The file synced; its directory is synced by the next PLACE_SYNC
	 * write of a sidecar of the same script (the .audit sidecar before its
	 * result.json: one directory fsync for both). In the fallback
	 * directory, and when that next write goes there, it is synced at
	 * once. */
	PLACE_SYNC_DATA,
};

/* Writes buf as the sidecar rel (relative to the drop directory, such as
 * "sub/foo.result.json"), owned and readable as acc says (the script's
 * owner, group and read bits: place_script_access()), or the agent's own
 * with mode 0644 when acc is NULL; synced as sync says. Returns the enum
 * place_outcome (>= 0), or -errno when it could be written nowhere; *err is
 * set for PLACE_IN_FALLBACK and for errors (caller frees). */
int place_sidecar(const struct place_dirs *p, const char *rel, const void *buf, size_t len,
		  const struct dirwrite_access *acc, enum place_sync sync, char **err)
	_nonnull_(1, 2, 7) _must_check_;

/* What a script's sidecars get: who may read the script may read them, and
 * no one else (its diffs and outputs are the script's content): its owner
 * and group, its read bits, and write for its owner when it may read. */
void place_script_access(uid_t uid, gid_t gid, mode_t mode, struct dirwrite_access *out)
	_nonnull_(4);

/* The fallback copy's file name for the sidecar rel: rel with '%' and '/'
 * written as %25 and %2F and a leading '.' as %2E. Caller frees. */
char *place_fallback_name(const char *rel) _nonnull_(1);

/* The directory of rel below drop_dir, opened with O_NOFOLLOW at every step
 * (a symlinked subdirectory is never entered); *base points at rel's last
 * component. fd or -errno. */
int place_open_parent(const char *drop_dir, const char *rel, const char **base) _nonnull_(1, 2, 3);

/* Removes the temporaries a crash left in the drop directory (and, with
 * recursive, in its subdirectories that are not hidden), then logs how many.
 * Called once at start. */
void place_clear_temporaries(const char *drop_dir, bool recursive) _nonnull_(1);

#endif
