/* Approval: the user's answers to a held script, foo.approve (confirms a
 * HIGH foo.py) and foo.override (runs a BLOCKED foo.py; must explain why).
 *
 * File format: an optional first line "sha256: <64 hex digits>" pins the
 * answer to one content of the script (mai-agent approve/override write it);
 * the rest is the user's explanation, trimmed. Without a pin the answer
 * applies to the content the script has when the answer is consumed.
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
 * others) is not read and is left in place: the job stays held, and its
 * owner or an approver deals with it. Any other answer is read and then
 * removed, if its name still holds the file that was read: a usable one,
 * and one that cannot be used (empty override, pinned to other content, not
 * a regular file), whose result says why so that the user writes a new
 * one. Hence a later edit of the script always needs a new answer. */
#ifndef MAI_APPROVAL_H
#define MAI_APPROVAL_H

#include <stdbool.h>
#include <sys/types.h>

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
	APPROVAL_NOT_REGULAR, /* a symlink, FIFO, directory, ... */
	APPROVAL_TOO_LARGE,   /* over APPROVAL_MAX_SIZE */
	APPROVAL_IO_ERROR,    /* errno in *err_out */
	/* Refused for who wrote it, left in place and not read: */
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
/* True for the statuses whose answer is left in place (refused for who
 * wrote it). */
bool approval_left_in_place(enum approval_status s);

struct approval {
	enum approval_kind kind;
	bool has_uid; /* the answer file was looked at: uid and links are known */
	uid_t uid;    /* owner of the answer file */
	nlink_t links;
	char *reason; /* the explanation, NULL when there is none; freed by approval_clear */
	char pinned_sha256[HASH_SHA256_HEX_LEN + 1]; /* "" when not pinned */
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
 * script_uid (the snapshot's owner), checked against who (see above). On
 * APPROVAL_OK *out is filled; on APPROVAL_EMPTY and APPROVAL_STALE too (uid
 * and reason, for the audit record); whenever the file was looked at, uid
 * and links are (has_uid). */
enum approval_status approval_take(int dirfd, const char *script, enum approval_kind kind,
				   const char *current_sha256, const struct approvers *who,
				   uid_t script_uid, struct approval *out, int *err_out)
	_nonnull_(2, 4, 5, 7, 8);

/* Writes dir/<script stem>.<kind> in the format above (what the approve and
 * override commands do), with dirwrite_replace(): a new file renamed into
 * place, replacing (never writing through) whatever another user left at
 * that name. sha256 and reason may be NULL. 0 or -errno with *err set
 * (caller frees). */
int approval_write(const char *dir, const char *script, enum approval_kind kind,
		   const char *sha256, const char *reason, char **err) _nonnull_(1, 2, 6);

#endif
