/* The audit writer's Merkle tree with its hashes on disk: every perfect
 * subtree's hash in one file (log_dir/tree), in merkle_node_position() order,
 * so that the file only grows; in memory only the compact range that
 * appending needs (at most 64 hashes). Memory stays the same however long
 * the log grows.
 *
 * The file is derived from the records and not synced: at open the writer
 * appends every leaf again, and merkle_store_append() compares each node
 * with what the file holds before it writes, so a tail lost in a crash is
 * written again and a good file is only read. Proofs read the file; the
 * root the writer signs comes from the compact range, which it computed
 * from the records it wrote, so a changed file can make a proof fail but
 * never a checkpoint sign something else.
 *
 * One thread appends, flushes and rolls back (the audit writer's flushing
 * thread, or its opener); any thread may read nodes below a size that a
 * flush has covered. */
#ifndef MAI_MERKLE_STORE_H
#define MAI_MERKLE_STORE_H

#include <stdint.h>

#include "merkle.h"

struct merkle_store;

/* Opens or creates path. base: the compact range of leaves dropped by
 * retention (NULL: none), whose subtrees are written in place. 0, or -errno
 * with *err (caller frees). */
int merkle_store_open(const char *path, const struct merkle_compact *base, struct merkle_store **out,
		      char **err);
void merkle_store_free(struct merkle_store *s);

/* Appends one leaf hash; the subtrees it completes are written by the next
 * merkle_store_flush(). */
void merkle_store_append(struct merkle_store *s, const uint8_t leaf[MERKLE_HASH_LEN]);
/* Writes what was appended. 0 or -errno: then roll back to a mark. */
int merkle_store_flush(struct merkle_store *s);

/* The size and compact range now, to go back to when a batch fails. */
struct merkle_store_mark {
	struct merkle_compact compact;
	uint64_t nodes;
};
void merkle_store_mark(const struct merkle_store *s, struct merkle_store_mark *m);
void merkle_store_rollback(struct merkle_store *s, const struct merkle_store_mark *m);

/* The compact range of every leaf appended: the current root. */
const struct merkle_compact *merkle_store_compact(const struct merkle_store *s);
/* The tree of the first size leaves (at most what a flush covered), for
 * merkle_nodes_root(), _inclusion_proof() and _compact(). */
struct merkle_nodes merkle_store_nodes(const struct merkle_store *s, uint64_t size);
/* Leaf hash at index, which the caller knows a flush covered. 0, -ENOENT
 * (dropped by retention), -EIO. */
int merkle_store_leaf(const struct merkle_store *s, uint64_t index, uint8_t out[MERKLE_HASH_LEN]);

/* Retention: the nodes of the first cut leaves are punched out of the file
 * but for the perfect subtrees of their compact range, which later proofs
 * use; leaves below cut are gone. 0 or -errno. */
int merkle_store_drop_below(struct merkle_store *s, uint64_t cut);

#endif
