/* Approvers: who may approve a HIGH script or override a BLOCKED one
 * (security.yaml "approvers: {users: [...], groups: [...]}" and
 * "allow_self_approval"), and the one check of a person against them.
 *
 * The check takes a uid: the owner of an answer file that the agent opened
 * (approval.c), the caller of 'mai-agent approve' (refused early), or the
 * uid of a file system request (a FUSE mount of the drop directory). A uid
 * is an approver when it is listed (by name or number) or belongs to a
 * listed group (as primary or supplementary group, asked of the user
 * database at each check, so a membership added while the agent runs
 * counts at once). Even an approver may not answer for a script that the
 * same uid wrote (the snapshot's owner) unless allow_self_approval is set:
 * a program that writes a risky script must not be able to wave it through
 * as well.
 *
 * A set is immutable once made; it is shared by reference counting, so a
 * reload can swap in a new one while jobs still hold the old one. */
#ifndef MAI_APPROVERS_H
#define MAI_APPROVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/* The group listed by default, when it exists. */
#define APPROVERS_DEFAULT_GROUP "mai-approvers"

enum approvers_verdict {
	APPROVERS_OK,
	APPROVERS_NOT_APPROVER, /* neither listed nor in a listed group */
	APPROVERS_SELF,         /* an approver, but the script's writer too */
};
/* "ok", "not_approver", "self_approval". */
const char *approvers_verdict_to_string(enum approvers_verdict v);

struct approvers;

/* A set from the configured entries (names or decimal ids; copied).
 * Never fails: an entry that names no account today is kept, so that it
 * counts once the account exists; approvers_unknown() lists those. Free
 * with approvers_unref(). */
struct approvers *approvers_new(const char *const *users, size_t n_users,
				const char *const *groups, size_t n_groups, bool allow_self);
struct approvers *approvers_ref(struct approvers *a) _nonnull_(1);
void approvers_unref(struct approvers *a);

/* Whether uid is an approver (see above). */
bool approvers_is_approver(const struct approvers *a, uid_t uid) _nonnull_(1);

/* The check of one answer: answer_uid is who answers, script_uid the
 * writer of the script it answers (the snapshot's owner). */
enum approvers_verdict approvers_check(const struct approvers *a, uid_t answer_uid,
				       uid_t script_uid) _nonnull_(1);

bool approvers_allow_self(const struct approvers *a) _nonnull_(1);

/* Who may approve, for a message: "root or a member of group
 * mai-approvers", "nobody (approvers in security.yaml lists no one)".
 * Caller frees. */
char *approvers_describe(const struct approvers *a) _nonnull_(1);

/* The entries that name no account now, one per line as "user NAME" or
 * "group NAME" ("" when none). Caller frees. */
char *approvers_unknown(const struct approvers *a) _nonnull_(1);

#endif
