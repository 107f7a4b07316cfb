/* Between the writer (audit.c) and the sidecar writer (sidecar.c) only. */
#ifndef MAI_AUDIT_INTERNAL_H
#define MAI_AUDIT_INTERNAL_H

#include "audit.h"
#include "merkle.h"

struct audit_proof {
	uint8_t path[MERKLE_MAX_PROOF][MERKLE_HASH_LEN];
	size_t n;
};

/* Inclusion proofs of seqs in the tree of the first size durable records.
 * 0 or -ENOENT when a seq is not below size. */
int audit_inclusion_proofs(struct audit_log *log, const uint64_t *seqs, size_t n, uint64_t size,
			   struct audit_proof *out);
const char *audit_log_dir(const struct audit_log *log);

#endif
