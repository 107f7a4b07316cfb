/* Fair intake: the scripts the source of names reported, waiting for the
 * loop to take them in (read, hash, queue or answer), in one queue per
 * writer taken round-robin (issue #27, point 4).
 *
 * Taking a name in costs a read, a hash and a result write; a writer who
 * renames 20,000 files into the drop directory at once would otherwise have
 * all of them taken before the name another writer saved a moment later,
 * whatever the jobs' turns (jobs.h) do afterwards. Here a writer's name
 * waits behind at most one name of each other writer, and the loop takes a
 * bounded share at a time so that it reads new names in between.
 *
 * A name reported again while it waits keeps its place and takes the newer
 * report (snapshot, writer); reported for another writer, it moves to that
 * writer's queue. The loop's thread only. */
#ifndef MAI_DAEMON_INTAKE_H
#define MAI_DAEMON_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"
#include "source.h"

struct daemon_intake;

/* One waiting name, as the source reported it. */
struct daemon_intake_item {
	char *rel;              /* owned */
	bool has_taken;         /* taken holds the snapshot the source took */
	struct drop_taken taken; /* owned: drop_taken_clear() */
	struct drop_writer writer; /* DROP_WRITER_UNKNOWN: not known to the source */
};

struct daemon_intake *daemon_intake_new(void);
/* Frees what still waits (a restart's scan finds those names again). */
void daemon_intake_free(struct daemon_intake *q);

/* Queues rel for turn_uid (whose turn it takes: the writer, or the file's
 * owner when the source does not know the writer). taken (may be NULL) is
 * taken over: its snapshot moves into the queue. */
void daemon_intake_put(struct daemon_intake *q, uid_t turn_uid, const char *rel,
		       struct drop_taken *taken, const struct drop_writer *writer)
	_nonnull_(1, 3, 5);
/* The next name in turn into *out (caller releases it with
 * daemon_intake_item_clear()); false when nothing waits. */
bool daemon_intake_next(struct daemon_intake *q, struct daemon_intake_item *out)
	_nonnull_(1, 2);
/* Takes rel out of its queue into *out, wherever it waits (an answer takes
 * its script at once); false when it does not wait. */
bool daemon_intake_take(struct daemon_intake *q, const char *rel,
			struct daemon_intake_item *out) _nonnull_(1, 2, 3);
size_t daemon_intake_count(const struct daemon_intake *q) _nonnull_(1);
void daemon_intake_item_clear(struct daemon_intake_item *it);

#endif
