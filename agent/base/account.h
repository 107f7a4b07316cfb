/* Accounts: user and group names and ids from the system's user database
 * (getpwnam_r and friends, so every NSS source counts), asked afresh at
 * each call: an account or a group membership added while the agent runs
 * is seen at once. */
#ifndef MAI_ACCOUNT_H
#define MAI_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/* The user name of uid, or NULL when the database has no such user.
 * Caller frees. */
char *account_user_name(uid_t uid);
/* "alice (uid 1001)", or "uid 1001" when the user is unknown: how a person
 * is named in a message. Caller frees. */
char *account_user_label(uid_t uid);

/* A user given as a name or as a decimal uid ("alice", "1001"). 0, or
 * -ENOENT when no user has that name, -EINVAL when it is neither. A numeric
 * uid needs no entry in the database. */
int account_parse_user(const char *s, uid_t *out) _nonnull_(1, 2);
/* The same for a group ("mai-approvers", "1500"). */
int account_parse_group(const char *s, gid_t *out) _nonnull_(1, 2);

/* Whether the user uid belongs to group gid: as its primary group or as a
 * supplementary member (getgrouplist). A uid without a database entry
 * belongs to no group. */
bool account_in_group(uid_t uid, gid_t gid);

/* True for what may name an account in a configuration file: a decimal
 * id, or a name of letters, digits, '.', '_' and '-' not starting with '-'
 * (at most 32 bytes, with an optional trailing '$' as Samba's machine
 * accounts have). */
bool account_name_valid(const char *s) _nonnull_(1);

#endif
