/* The audit writer's start (audit.c): every segment is read back once, with
 * memory that does not depend on the log's size (audit_lines.h), each
 * record checked (layout, own hash, sequence number, chain); the tree file
 * is re-derived (merkle_store.h) and the last segment's index rebuilt. A
 * trailing partial line of the last segment is a torn tail, kept aside in
 * a quarantine file; anything else wrong means the log was changed after
 * it was written, and the start is refused with what changed and how to
 * recover (audit_tamper_text). */
#ifndef MAI_AUDIT_RECOVER_H
#define MAI_AUDIT_RECOVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "audit_lines.h"
#include "merkle_store.h"

struct audit_recovered {
	struct merkle_store *tree; /* the records' tree; the caller frees it */
	struct audit_chain chain;  /* the next seq and the last entry hash */
	bool have_segments;
	uint64_t last_first;       /* first seq of the last segment (chain.seq: none) */
	json_t *torn;              /* the audit_torn_tail record's fields, or NULL */
};

/* Reads the log in dir back. 0 with *out filled, or -errno (-EBADMSG: the
 * log was changed) with *err (caller frees). */
int audit_recover(const char *dir, struct audit_recovered *out, char **err);

/* The checkpoint beside the log against its records (the tree of the
 * first durable ones): one that covers more records, or whose root is not
 * theirs, means records were cut or changed under a signed checkpoint
 * (-EBADMSG, *err). 0 with *ckpt_size its size (left alone when there is
 * no checkpoint to judge). */
int audit_recover_checkpoint(const char *dir, const struct merkle_store *tree, uint64_t durable,
			     uint64_t *ckpt_size, char **err);

/* What a log changed behind the writer's back means and how to recover:
 * the message of a refused start and of a writer that stopped. what names
 * the change. Caller frees. */
char *audit_tamper_text(const char *dir, const char *what);

#endif
