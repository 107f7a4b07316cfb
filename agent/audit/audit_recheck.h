/* The writer reads back what it wrote (audit.c, before it signs each
 * checkpoint): the records from where the last re-reading stopped up to
 * the durable end are read from the segment files as any reader would see
 * them, checked (layout, own hash, sequence number, chain) and folded into
 * the compact range of the records before them, whose root must then be
 * the one the writer computed from the lines it formatted. A byte changed,
 * a record removed, inserted or reordered, a segment replaced or cut since
 * it was written: the next checkpoint sees it and is not signed. Each
 * record is read back once; memory is a compact range and a buffer. */
#ifndef MAI_AUDIT_RECHECK_H
#define MAI_AUDIT_RECHECK_H

#include "audit_lines.h"
#include "merkle.h"
#include "merkle_store.h"

struct audit_recheck {
	char *dir;
	struct audit_chain chain;      /* the next record to read back */
	uint64_t seg_first, off;       /* its segment and offset */
	struct merkle_compact compact; /* of the records before it */
};

/* Starts at record chain->seq, at off in the segment that begins with
 * seg_first, the records before it having compact range compact. */
void audit_recheck_init(struct audit_recheck *c, const char *dir, const struct audit_chain *chain,
			uint64_t seg_first, uint64_t off, const struct merkle_compact *compact);
void audit_recheck_clear(struct audit_recheck *c);

/* Reads back the records up to (not including) want->size, want being the
 * writer's compact range of them; tree, when not NULL, holds the leaf
 * hashes the writer stored, to name the first record that differs when
 * its own hash was made to match. 0 (the next call goes on from there), or
 * -EBADMSG with *err (caller frees): what differs and where. */
int audit_recheck_run(struct audit_recheck *c, const struct merkle_compact *want, const struct merkle_store *tree,
		      char **err);

#endif
