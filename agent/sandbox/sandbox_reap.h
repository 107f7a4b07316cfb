/* Removal of finished containers off the critical path: a run hands its
 * container over once its result is known and returns; one background
 * thread removes them in order, between runs where it can, with the
 * containers' own removal (sandbox_container.h, which keeps what Docker
 * refuses as an orphan). What is queued when the agent is killed is found
 * by label at the next start. Only sandbox_container.c uses it. */
#ifndef MAI_SANDBOX_REAP_H
#define MAI_SANDBOX_REAP_H

#include "sandbox_quiet.h"

struct sandbox_reaper;

/* Removes the container id and frees id. */
typedef void (*sandbox_reap_fn)(void *arg, char *id);

/* NULL only if no thread can be started. While no more than backlog
 * containers wait, each removal first waits for a quiet moment (q, at most
 * a second). */
struct sandbox_reaper *sandbox_reaper_start(sandbox_reap_fn remove, void *arg,
					    struct sandbox_quiet *q, unsigned backlog);
/* Takes ownership of id: 0. -1 (id untouched) when r is NULL: the caller
 * removes it itself. Thread-safe. */
int sandbox_reaper_add(struct sandbox_reaper *r, char *id);
/* Blocks until every container handed over so far is removed. */
void sandbox_reaper_wait(struct sandbox_reaper *r);
/* Removes what is still queued, then stops the thread. */
void sandbox_reaper_stop(struct sandbox_reaper *r);

#endif
