/* Approval: the user's answers to a held script, foo.approve (confirms a
 * HIGH foo.py) and foo.override (runs a BLOCKED foo.py; must explain why).
 *
 * File format: an optional first line "sha256: <64 hex digits>" pins the
 * answer to one content of the script (mai-agent approve/override write it);
 * the rest is the user's explanation, trimmed. Without a pin the answer
 * applies to the content the script has when the answer is consumed.
 *
 * Consumption: approval_take() first renames the answer to a hidden name
 * (so that what it reads cannot be rewritten under it, and the watcher
 * ignores it), reads it with O_NOFOLLOW, records the uid that owns it (the
 * user who wrote it), then removes it. An answer that cannot be used (empty
 * override, pinned to other content, not a regular file) is consumed as
 * well: the result says why, and the user writes a new one. Hence a later
 * edit of the script always needs a new answer. */
#ifndef MAI_APPROVAL_H
#define MAI_APPROVAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "hash.h"
#include "macro.h"

#define APPROVAL_MAX_SIZE 16384

enum approval_kind {
	APPROVAL_APPROVE,
	APPROVAL_OVERRIDE,
};
/* "approve" or "override": also the file suffix without its dot. */
const char *approval_kind_to_string(enum approval_kind k);

enum approval_status {
	APPROVAL_OK,
	APPROVAL_NONE,        /* there is no answer file */
	APPROVAL_EMPTY,       /* an override without an explanation */
	APPROVAL_STALE,       /* pinned to content the script no longer has */
	APPROVAL_NOT_REGULAR, /* a symlink, FIFO, directory, ... */
	APPROVAL_TOO_LARGE,   /* over APPROVAL_MAX_SIZE */
	APPROVAL_IO_ERROR,    /* errno in *err_out */
};
const char *approval_status_to_string(enum approval_status s);
/* What approval_take() did with an answer of that status, for the audit
 * record: "removed" (used), "refused: empty", "refused: stale content", ...
 * Static string. */
const char *approval_consumed_to_string(enum approval_status s);
/* A sentence for the result's message about an unusable answer, naming the
 * answer file, e.g. "foo.override is empty: write why it must run into it".
 * Caller frees. */
char *approval_status_message(enum approval_status s, enum approval_kind k, const char *script)
	_nonnull_(3);

struct approval {
	enum approval_kind kind;
	uid_t uid;    /* owner of the answer file */
	char *reason; /* the explanation, NULL when there is none; freed by approval_clear */
	char pinned_sha256[HASH_SHA256_HEX_LEN + 1]; /* "" when not pinned */
};
void approval_clear(struct approval *a);

/* True when the answer file for script (a path component such as "foo.py"
 * in dirfd) exists, whatever it holds. */
bool approval_exists(int dirfd, const char *script, enum approval_kind kind) _nonnull_(2);

/* Consumes the answer for script at content current_sha256 (see above).
 * On APPROVAL_OK *out is filled; on APPROVAL_EMPTY and APPROVAL_STALE too
 * (uid and reason, for the audit record). */
enum approval_status approval_take(int dirfd, const char *script, enum approval_kind kind,
				   const char *current_sha256, struct approval *out,
				   int *err_out) _nonnull_(2, 4, 5, 6);

/* Writes dir/<script stem>.<kind> atomically in the format above (what the
 * approve and override commands do). sha256 and reason may be NULL. 0 or
 * -errno with *err set (caller frees). */
int approval_write(const char *dir, const char *script, enum approval_kind kind,
		   const char *sha256, const char *reason, char **err) _nonnull_(1, 2, 6);

#endif
