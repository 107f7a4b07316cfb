/* Every drop gets an answer, again when it is lost (docs/ARCHITECTURE.md
 * "Failure behaviour").
 *
 * Each final sidecar the agent writes (foo.result.json of a final state,
 * and the foo.audit that goes with it) is kept in agent.state_dir/answers/
 * (DAEMON_SIDECARS_DIR), one file per sidecar named by the SHA-256 of its
 * path in the drop directory. When final content is taken again (dropped or
 * submitted anew, while the index of final results says it needs no run)
 * and a sidecar in the drop directory is missing or is not that copy
 * (removed, replaced by someone's file, or never written), the copy is
 * placed again: daemon_sidecars_restore(). A content with no copy (the
 * agent's copy was lost too, or it was answered before copies were kept)
 * runs again.
 *
 * A final sidecar that could be written nowhere (the drop directory's disk
 * full: the fallback takes only names that are refused) is held in memory
 * and placed again by daemon_sidecars_place_pending(), which the loop calls
 * every second, until it lands; a later answer for the same sidecar
 * replaces it.
 *
 * Thread-safe: workers keep, the loop restores and places. */
#ifndef MAI_DAEMON_SIDECARS_H
#define MAI_DAEMON_SIDECARS_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

#define DAEMON_SIDECARS_DIR "answers"

/* Places text as script's sidecar with suffix (".result.json", ".audit"),
 * as the result writer does: the enum place_outcome (>= 0) or -errno. */
typedef int (*daemon_sidecars_place_fn)(void *arg, const char *script, const char *suffix,
					const char *text, size_t len);

struct daemon_sidecars;

struct daemon_sidecars *daemon_sidecars_new(const char *state_dir, daemon_sidecars_place_fn place,
					    void *arg) _nonnull_(1, 2);
void daemon_sidecars_free(struct daemon_sidecars *s);

/* A sidecar of script was written: placed is place_sidecar()'s outcome
 * (< 0: written nowhere). A final one is kept, and held for placing again
 * when it was written nowhere; any answer placed ends the hold of an older
 * one. */
void daemon_sidecars_keep(struct daemon_sidecars *s, const char *script, const char *suffix,
			  const char *text, size_t len, bool final, int placed) _nonnull_(1, 2, 3, 4);

/* Places what is held; logs each that lands. Returns how many are still
 * held. */
size_t daemon_sidecars_place_pending(struct daemon_sidecars *s) _nonnull_(1);

enum daemon_sidecars_restored {
	DAEMON_SIDECARS_IN_PLACE, /* the sidecars are the kept copies: nothing to do */
	DAEMON_SIDECARS_RESTORED, /* a copy was placed again (see *what) */
	DAEMON_SIDECARS_NO_COPY,  /* no kept answer for this content: run it again */
};

/* For script at content sha256, which has a final result: compares each
 * sidecar in drop_dir with its kept copy and places the copy again where
 * they differ. On RESTORED, *what (caller frees) says which and why
 * ("foo.audit missing; foo.result.json changed") and *placed is
 * PLACE_IN_DROP_DIR, PLACE_IN_FALLBACK when one went there, or -errno when
 * one could be written nowhere. */
enum daemon_sidecars_restored daemon_sidecars_restore(struct daemon_sidecars *s,
						      const char *drop_dir, const char *script,
						      const char *sha256, char **what, int *placed)
	_nonnull_(1, 2, 3, 4, 5, 6);

#endif
