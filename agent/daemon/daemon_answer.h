/* Who may write an answer file (foo.approve, foo.override) in mount mode,
 * asked at the call (dropfs.h answer_allowed).
 *
 * A small interface of its own until the approvers of security.yaml land:
 * root, and the members of the group mai-approvers when it exists (its
 * gid as the caller's group, or the caller's user listed in it). */
#ifndef MAI_DAEMON_ANSWER_H
#define MAI_DAEMON_ANSWER_H

#include "writer.h"

#define DAEMON_APPROVERS_GROUP "mai-approvers"

/* 0 when caller may answer for script; -EPERM with *why (caller frees)
 * saying who may. arg is unused. Thread-safe. */
int daemon_answer_allowed(void *arg, const struct drop_writer *caller, const char *script,
			  char **why);

#endif
