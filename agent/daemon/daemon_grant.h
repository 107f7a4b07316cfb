/* Answers already consumed for content whose run then failed (Docker down)
 * or whose record could not be written: the retry of the same content uses
 * the kept answer instead of asking again. Thread-safe. */
#ifndef MAI_DAEMON_GRANT_H
#define MAI_DAEMON_GRANT_H

#include <stdbool.h>
#include <stdint.h>

#include "approval.h"
#include "hash.h"

struct daemon_grant {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	struct approval answer;
	bool recorded; /* its approval/override record is in the log, at seq */
	uint64_t seq;
};

struct daemon_grants;

/* NULL never (allocation aborts). */
struct daemon_grants *daemon_grants_new(void);
void daemon_grants_free(struct daemon_grants *g);
/* Keeps a copy of answer for name at sha (replacing any other). */
void daemon_grants_keep(struct daemon_grants *g, const char *name, const char *sha,
			const struct approval *answer, bool recorded, uint64_t seq);
/* The grant kept for name at sha, copied into *out (its answer's reason is
 * then the caller's: approval_clear(&out->answer)); false when none. */
bool daemon_grants_find(struct daemon_grants *g, const char *name, const char *sha,
			struct daemon_grant *out);
void daemon_grants_drop(struct daemon_grants *g, const char *name);

#endif
