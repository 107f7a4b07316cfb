/* Approval: the user's answers to a held script, foo.approve (confirms a
 * HIGH foo.py) and foo.override (runs a BLOCKED foo.py; must explain why).
 *
 * File format: an optional first line "sha256: <64 hex digits>" pins the
 * answer to one content of the script (mai-agent approve/override write it);
 * the rest is the user's explanation, trimmed.
 *
 * What it covers: exactly what the approver saw. A pinned answer covers the
 * content it names. An answer without a pin covers only the content that
 * was held (and shown as held: in the result, in 'mai-agent pending') before
 * the answer file was written, from the same writer: the caller says what
 * was held last (struct approval_seen), and the answer file's time of
 * writing (its modification time, or its birth time when earlier; only its
 * owner, an approver, can set them) must come after that. Content that
 * arrived after the answer, or was never held, is not covered
 * (APPROVAL_UNSEEN): a co-user who swaps a script in at the first sight of
 * the answer file gets nothing from it.
 *
 * Who: an answer counts only when its file is a regular file with one
 * link, owned by an approver (approvers.h) other than the script's writer
 * (unless allow_self_approval), and writable by its owner alone; the owner
 * is taken from the opened file, never from its name.
 *
 * Consumption: approval_take() looks at the answer with fstatat (a FIFO or
 * device is never opened), opens it with O_NOFOLLOW|O_NONBLOCK and checks
 * the opened file again with fstat. An answer refused for who wrote it
 * (not an approver, the script's own writer, a hard link, writable by
 * others) is not read; it is moved aside (quarantine.h, kept for evidence)
 * so that the name is free for a real approver, and the job stays held.
 * Any other answer is read and then removed, if its name still holds the
 * file that was read: a usable one, and one that cannot be used (empty
 * override, pinned to other content, not covering this content, not a
 * regular file), whose result says why so that the user writes a new one.
 * A directory at the name is removed when empty, else moved aside. Hence a
 * later edit of the script always needs a new answer. */
#ifndef MAI_APPROVAL_H
#define MAI_APPROVAL_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "approvers.h"
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
	APPROVAL_UNSEEN,      /* not pinned, and written before this content was held */
	APPROVAL_NOT_REGULAR, /* a symlink, FIFO, directory, ... */
	APPROVAL_TOO_LARGE,   /* over APPROVAL_MAX_SIZE */
	APPROVAL_IO_ERROR,    /* errno in *err_out */
		/* Refused for who wrote it, moved aside unread: */
	APPROVAL_HARD_LINK,    /* more than one link: it may be anyone's file */
	APPROVAL_NOT_APPROVER, /* its owner is not an approver */
	APPROVAL_SELF,         /* its owner wrote the script too */
	APPROVAL_WRITABLE,     /* others than its owner may write it */
};
const char *approval_status_to_string(enum approval_status s);
/* What approval_take() did with an answer of that status, for the audit
 * record: "removed" (used), "refused: empty", "refused: stale content",
 * "refused: not an approver", ... Static string. */
const char *approval_consumed_to_string(enum approval_status s);
/* True for the statuses whose answer is moved aside unread (refused for
 * who wrote it). */
bool approval_set_aside(enum approval_status s);

struct approval {
	enum approval_kind kind;
	bool has_uid; /* the answer file was looked at: uid and links are known */
	uid_t uid;    /* owner of the answer file */
	nlink_t links;
	char *reason; /* the explanation, NULL when there is none; freed by approval_clear */
	char pinned_sha256[HASH_SHA256_HEX_LEN + 1]; /* "" when not pinned */
	struct timespec written; /* when its owner wrote it (see above); 0 unknown */
	/* Where a refused answer (or a directory) was moved, relative to the
	 * script's directory; NULL when it was not. Freed by approval_clear. */
	char *moved_to;
};

/* The content of the script that was held and shown last, as the agent
 * recorded it: its SHA-256, its writer, and when it was held (taken before
 * the held result was written, CLOCK_REALTIME). */
struct approval_seen {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	uid_t uid;
	struct timespec held;
};
void approval_clear(struct approval *a);

/* A sentence for the result's message about an unusable answer a (of
 * status s, for script), naming the answer file and what to do, e.g.
 * "foo.override was empty and has been consumed: ...". who says who may
 * approve, for the refusals of a person. Caller frees. */
char *approval_status_message(enum approval_status s, enum approval_kind k, const char *script,
			      const struct approval *a, const struct approvers *who)
	_nonnull_(3, 4, 5);

/* True when the answer file for script (a path component such as "foo.py"
 * in dirfd) exists, whatever it holds. */
bool approval_exists(int dirfd, const char *script, enum approval_kind kind) _nonnull_(2);

/* Takes the answer for script at content current_sha256, written by
 * script_uid (the snapshot's owner), checked against who (see above);
 * seen is what was held last of script (NULL: nothing), which an answer
 * without a pin must cover. On
 * APPROVAL_OK *out is filled; on APPROVAL_EMPTY and APPROVAL_STALE too (uid
 * and reason, for the audit record); whenever the file was looked at, uid
 * and links are (has_uid). */
enum approval_status approval_take(int dirfd, const char *script, enum approval_kind kind,
				   const char *current_sha256, const struct approvers *who,
				   uid_t script_uid, const struct approval_seen *seen,
				   struct approval *out, int *err_out)
	_nonnull_(2, 4, 5, 8, 9);

/* Writes dir/<script stem>.<kind> in the format above (what the approve and
 * override commands do), with dirwrite_replace(): a new file renamed into
 * place, replacing (never writing through) whatever another user left at
 * that name. sha256 and reason may be NULL. 0 or -errno with *err set
 * (caller frees). */
int approval_write(const char *dir, const char *script, enum approval_kind kind,
		   const char *sha256, const char *reason, char **err) _nonnull_(1, 2, 6);

#endif
