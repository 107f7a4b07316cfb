/* Held scripts as the commands see them (pending, approve, override,
 * submit): a script's current content and the agent's result sidecar for
 * exactly that content.
 *
 * The drop directory is shared with every writer, who can put a file of
 * their own at a result's name or rename another script's result there. So
 * a result counts only when it is a regular file with one link owned by the
 * agent (the owner of its state directory), and names this script and the
 * content it has now (file and sha256). */
#ifndef MAI_HELD_H
#define MAI_HELD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "config.h"
#include "hash.h"
#include "macro.h"

/* The agent's uid: the owner of agent.state_dir (0 when it cannot be seen). */
uid_t held_agent_uid(const struct mai_config *cfg) _nonnull_(1);

/* The agent's result sidecar named side in dfd, for the script rel at
 * content sha256, when it can be trusted (see above). A new reference, or
 * NULL with *why (static text) saying why not. */
json_t *held_read_result(int dfd, const char *side, const char *rel, const char *sha256,
			 uid_t agent_uid, const char **why) _nonnull_(2, 3, 4, 6);

struct held {
	char *rel;       /* the script, relative to the drop directory */
	char *path;      /* drop_dir/rel, as a person types it */
	char sha256[HASH_SHA256_HEX_LEN + 1]; /* of its content now */
	size_t size;
	uid_t writer_uid; /* the script's owner */
	char *writer;     /* "alice (uid 1001)" */
	json_t *result;   /* the agent's result for this content, or NULL */
	const char *no_result; /* why result is NULL (static text) */
};
void held_clear(struct held *h);

/* Reads the script rel below drop_dir (as intake does: no symlink, no
 * FIFO, no hard link, at most max_size bytes) and the agent's result for
 * its content. 0, or -errno with *err (caller frees) when the script cannot
 * be read. */
int held_load(const char *drop_dir, const char *rel, uid_t agent_uid, size_t max_size,
	      struct held *h, char **err) _nonnull_(1, 2, 5, 6);

/* The state of the result ("awaiting_confirmation", ...), or NULL. */
const char *held_state(const struct held *h) _nonnull_(1);
/* True for awaiting_confirmation and blocked. */
bool held_is_held(const struct held *h) _nonnull_(1);

/* The first max findings of the assessment, most severe first (a new
 * array; empty without a result). */
json_t *held_top_findings(const struct held *h, size_t max) _nonnull_(1);
/* Prints findings (held_top_findings) one per line, indented. */
void held_print_findings(FILE *out, json_t *findings) _nonnull_(1);

/* The command that answers it: "mai-agent approve /drop/x.py" or
 * "mai-agent override /drop/x.py --reason '...'", the path quoted for a
 * shell when it must be. Caller frees. */
char *held_command(const struct held *h) _nonnull_(1);

/* s as one word for a POSIX shell. Caller frees. */
char *held_shell_quote(const char *s) _nonnull_(1);

#endif
